"""The glossary: terms defined once in glossary.toml, linked from every page that uses them.

Templates call ``term(id, text=None)``. The first use of a term on a page becomes a link to
its glossary entry with a tooltip holding the short definition; later uses on the same page
are plain text, so a paragraph is not a field of links.
"""

import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from markupsafe import Markup, escape

SLUG = "glossary"
DATA = Path(__file__).resolve().parent.parent / "glossary.toml"
_ID = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
_REQUIRED = ("id", "name", "short", "long")
_OPTIONAL = ("symbol", "aliases", "related")


class Term(NamedTuple):
    """One glossary entry, as the data file gives it."""

    id: str
    name: str
    short: str
    long: str
    symbol: str = ""
    aliases: tuple[str, ...] = ()
    related: tuple[str, ...] = ()


def _term(entry: dict) -> Term:
    """One checked entry of the data file."""
    missing = [k for k in _REQUIRED if not str(entry.get(k, "")).strip()]
    if missing:
        raise ValueError(f"glossary entry {entry.get('id', '?')!r} lacks {', '.join(missing)}")
    unknown = set(entry) - set(_REQUIRED) - set(_OPTIONAL)
    if unknown:
        raise ValueError(f"glossary entry {entry['id']!r} has unknown fields {sorted(unknown)}")
    if not _ID.fullmatch(entry["id"]):
        raise ValueError(f"glossary id {entry['id']!r} must be lower-case words joined by '-'")
    return Term(
        id=entry["id"],
        name=entry["name"].strip(),
        short=" ".join(entry["short"].split()),
        long=" ".join(entry["long"].split()),
        symbol=entry.get("symbol", ""),
        aliases=tuple(entry.get("aliases", ())),
        related=tuple(entry.get("related", ())),
    )


def load(path: Path = DATA) -> dict[str, Term]:
    """Every term by id, checked: unique ids and spellings, related ids that exist."""
    with path.open("rb") as f:
        entries = tomllib.load(f).get("term", [])
    if not entries:
        raise ValueError(f"{path.name} defines no [[term]]")
    terms: dict[str, Term] = {}
    spellings: dict[str, str] = {}
    for entry in entries:
        t = _term(entry)
        if t.id in terms:
            raise ValueError(f"glossary id {t.id!r} is defined twice")
        terms[t.id] = t
        for spelling in {t.id, t.name.lower(), *(a.lower() for a in t.aliases)}:
            if spellings.setdefault(spelling, t.id) != t.id:
                raise ValueError(f"{spelling!r} names both {spellings[spelling]!r} and {t.id!r}")
    for t in terms.values():
        for other in t.related:
            if other not in terms or other == t.id:
                raise ValueError(f"glossary entry {t.id!r} relates to unknown {other!r}")
    return terms


def lookup(terms: dict[str, Term], key: str) -> Term:
    """A term by its id, its name or one of its aliases (any case)."""
    if key in terms:
        return terms[key]
    wanted = key.lower()
    for t in terms.values():
        if wanted == t.name.lower() or wanted in (a.lower() for a in t.aliases):
            return t
    raise ValueError(f"no glossary term {key!r}; add it to glossary.toml")


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


def renderer(base: str, terms: dict[str, Term] | None = None) -> Callable[..., Markup]:
    """A page's ``term(id, text=None)``: a tooltip link on first use, plain text after."""
    terms = load() if terms is None else terms
    used: set[str] = set()

    def term(key: str, text: str | None = None) -> Markup:
        t = lookup(terms, key)
        shown = t.name if text is None else text
        if t.id in used:
            return escape(shown)
        used.add(t.id)
        return tooltip_link(base, t, shown)

    return term
