"""Glossary links: templates call ``term(id, text=None)``.

The first use of a term on a page becomes a link to its glossary entry with a tooltip holding
the short definition; later uses on the same page are plain text, so a paragraph is not a
field of links. The terms themselves are pages/glossary.py's.
"""

import difflib
from collections.abc import Callable

from markupsafe import Markup, escape

from pages.glossary import SLUG, Term, load, lookup
from sitebuild.checks import BuildError


def entry_url(base: str, term_id: str) -> str:
    """Where a term's entry is: the glossary page, at the term's anchor."""
    return f"{base}{SLUG}/#{term_id}"


def tip_id(term_id: str) -> str:
    """The id of a term's tooltip (one per page: only the first use has it)."""
    return f"term-tip-{term_id}"


def tooltip_link(base: str, t: Term, text: str) -> Markup:
    """A term's first use: a link to its entry, described by a tooltip with its definition."""
    return Markup(
        '<span class="term-wrap"><a class="term" href="{url}" aria-describedby="{tip}">{text}</a>'
        '<span class="term-tip" role="tooltip" id="{tip}"><b>{name}</b> {short}</span></span>'
    ).format(url=entry_url(base, t.id), tip=tip_id(t.id), text=text, name=t.name, short=t.short)


def unknown(terms: dict[str, Term], key: str) -> str:
    """What to do about a term the glossary lacks; the build adds the template's file and line."""
    spellings = [t.id for t in terms.values()]
    near = difflib.get_close_matches(key.lower(), spellings, n=3)
    hint = f" (did you mean {', '.join(map(repr, near))}?)" if near else ""
    return (
        f"unknown glossary term {key!r}{hint}: term() takes a term's id, name or alias from "
        "glossary.toml; add a [[term]] there for a new one"
    )


def renderer(base: str, terms: dict[str, Term] | None = None) -> Callable[..., Markup]:
    """A page's ``term(id, text=None)``: a tooltip link on first use, plain text after."""
    terms = load() if terms is None else terms
    used: set[str] = set()

    def term(key: str, text: str | None = None) -> Markup:
        try:
            t = lookup(terms, key)
        except ValueError as err:
            raise BuildError(unknown(terms, key)) from err
        shown = t.name if text is None else text
        if t.id in used:
            return escape(shown)
        used.add(t.id)
        return tooltip_link(base, t, shown)

    return term
