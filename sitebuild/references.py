"""Citations: templates call ``cite(key)`` in the prose and ``references()`` at the end.

``cite`` prints a numbered link, "[2]", to the work's entry ``#ref-<key>``; works are numbered
in the order the page first cites them. ``references()`` prints the page's "References"
section: the works it cited, in that order, each entry with a link back to where the page
first cites it. The works themselves are pages/references.py's. A key it lacks, a page that
cites without listing, or a list placed before a citation fails the build.
"""

from markupsafe import Markup

from pages.references import WORKS, Work
from sitebuild.checks import BuildError


def entry_id(key: str) -> str:
    return f"ref-{key}"


def cite_id(key: str, k: int) -> str:
    """The id of the page's ``k``-th citation of ``key`` (from 1)."""
    return f"cite-{key}-{k}"


def unknown(key: str, works: dict[str, Work]) -> str:
    return (
        f"unknown reference {key!r}: cite() takes one of {', '.join(sorted(works))}; "
        "add a Work to pages/references.py for a new one"
    )


class Citations:
    """One page's citations, as its template renders; ``cite`` and ``references`` are the
    template's functions, ``check`` runs after the page is rendered."""

    def __init__(self, env, works: dict[str, Work] | None = None) -> None:
        self.env = env
        self.works = WORKS if works is None else works
        self.order: list[str] = []  # keys, in the order first cited
        self.count: dict[str, int] = {}
        self.listed = False

    def cite(self, key: str) -> Markup:
        if key not in self.works:
            raise BuildError(unknown(key, self.works))
        if self.listed:
            raise BuildError(f"cite({key!r}) comes after references(): list the works last")
        if key not in self.count:
            self.order.append(key)
        self.count[key] = self.count.get(key, 0) + 1
        work = self.works[key]
        return Markup('<a class="cite" id="{id}" href="#{entry}" title="{title}">[{n}]</a>').format(
            id=cite_id(key, self.count[key]),
            entry=entry_id(key),
            title=f"{work.short}: {work.title}",
            n=self.order.index(key) + 1,
        )

    def references(self) -> Markup:
        self.listed = True
        if not self.order:
            return Markup("")
        cited = [(entry_id(k), cite_id(k, 1), self.works[k]) for k in self.order]
        return Markup(self.env.get_template("_references.html").render(cited=cited))

    def check(self) -> None:
        if self.order and not self.listed:
            cited = ", ".join(self.order)
            raise BuildError(
                f"the page cites {cited} but never lists them: end it with {{{{ references() }}}}"
            )
