"""The pointing HTML of the section 3.3 figures (figurekit/pointing.py, its styles
layoutkit/pointing.py's), and a reader for it the figure tests share.

``pointing(html)`` parses a figure's pane into what the browser script works with: the
pointable elements, the lightable ones, the explanation templates and the box that shows
one. ``check_pointing`` asserts the contract static/explain.js relies on.
"""

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import panel as pn
import pytest

from attention.basics import dot_terms
from attention.fixtures import TOKENS
from figurekit.pointing import (
    Pointed,
    element,
    grid,
    grid_cell,
    scope,
    sub,
    terms_table,
    token_vector,
)
from formatting import num
from layoutkit.pointing import EXPLAIN_CSS
from tests.figures.probe import Driven
from tests.sitebuild.test_snippets import AA, contrast


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    children: list["Node | str"] = field(default_factory=list)

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def walk(self):
        yield self
        for c in self.children:
            if isinstance(c, Node):
                yield from c.walk()

    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())


class _TreeBuilder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("root", {})
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        self.stack.append(node)

    def handle_endtag(self, tag):
        assert self.stack[-1].tag == tag, f"</{tag}> closes <{self.stack[-1].tag}>"
        self.stack.pop()

    def handle_data(self, data):
        self.stack[-1].children.append(data)


def parse(html: str) -> Node:
    """The HTML as a tree; fails on mismatched tags."""
    builder = _TreeBuilder()
    builder.feed(html)
    builder.close()
    assert builder.stack == [builder.root], "unclosed elements"
    return builder.root


@dataclass
class Grid:
    """A ``<table role="grid">``: its name, and its pointable cells row by row."""

    label: str
    rows: list[list[Node]]

    @property
    def cells(self) -> list[Node]:
        return [c for row in self.rows for c in row]


@dataclass
class Pointing:
    pointables: list[Node]
    lightables: list[Node]
    templates: dict[str, Node]
    out: Node
    grids: list[Grid]

    def by_key(self, key: str) -> list[Node]:
        return [p for p in self.pointables if p.attrs["data-explain"] == key]

    def explanation(self, key: str) -> str:
        return " ".join(self.templates[key].text().split())

    def lit(self) -> list[Node]:
        return [n for n in self.lightables if "is-lit" in n.classes()]


def pane_html(view: "Driven | pn.viewable.Viewable") -> str:
    """The one pane of a figure (driven, or its layout) that holds an explain scope."""
    if isinstance(view, Driven):
        objects = [str(props.get("object", "")) for props in view.shown.values()]
    else:
        objects = [str(p.object) for p in view.select(pn.pane.HTML)]
    found = [html for html in objects if "data-explain-scope" in html]
    assert len(found) == 1
    return found[0]


def pointing(html: str) -> Pointing:
    root = parse(html)
    nodes = list(root.walk())
    templates = {n.attrs["data-explanation"]: n for n in nodes if n.tag == "template"}
    outside = [n for n in nodes if not _inside_template(root, n)]
    (out,) = [n for n in outside if "data-explain-out" in n.attrs]
    return Pointing(
        pointables=[n for n in outside if "data-explain" in n.attrs],
        lightables=[n for n in outside if "data-marks" in n.attrs],
        templates=templates,
        out=out,
        grids=[
            Grid(
                n.attrs.get("aria-label", ""),
                [
                    cells
                    for row in n.walk()
                    if row.tag == "tr"
                    if (cells := [c for c in row.walk() if "data-explain" in c.attrs])
                ],
            )
            for n in outside
            if n.tag == "table" and n.attrs.get("role") == "grid"
        ],
    )


def _inside_template(root: Node, target: Node) -> bool:
    def search(node: Node, in_template: bool) -> bool | None:
        if node is target:
            return in_template
        for c in node.children:
            if isinstance(c, Node):
                found = search(c, in_template or node.tag == "template")
                if found is not None:
                    return found
        return None

    return bool(search(root, False))


def check_pointing(html: str) -> Pointing:
    """The contract static/explain.js relies on; returns the parsed parts for more checks."""
    p = pointing(html)
    marks = {m for n in p.lightables for m in n.attrs["data-marks"].split()}
    assert p.pointables, "nothing to point at"
    in_grids = {id(cell) for g in p.grids for cell in g.cells}
    for g in p.grids:
        # One Tab stop per grid (the arrow keys reach the rest), each cell named for its meaning.
        stops = [c.attrs["data-explain"] for c in g.cells if c.attrs.get("tabindex") == "0"]
        assert len(stops) == 1, f"grid {g.label!r} has Tab stops {stops}"
        assert all(c.attrs.get("tabindex") in ("0", "-1") for c in g.cells)
        assert g.label, "a grid without a name"
        for c in g.cells:
            assert c.tag == "td" and c.attrs.get("aria-label"), (
                f"{c.attrs['data-explain']}: no name"
            )
    for n in p.pointables:
        key = n.attrs["data-explain"]
        if id(n) not in in_grids:
            assert n.attrs.get("tabindex") == "0", f"{key} cannot be reached by keyboard"
        assert key in p.templates, f"no explanation for {key}"
        lights = n.attrs["data-lights"].split()
        assert set(lights) <= marks, f"{key} lights marks nobody carries"
    assert set(p.templates) == {n.attrs["data-explain"] for n in p.pointables}
    # Drawn pointed at one element: its explanation shown, exactly its marks lit.
    showing = p.out.attrs["data-showing"]
    pointed = [n for n in p.pointables if "is-pointed" in n.classes()]
    assert pointed and pointed == p.by_key(showing)
    assert " ".join(p.out.text().split()) == p.explanation(showing)
    lights = set(pointed[0].attrs["data-lights"].split())
    for n in p.lightables:
        assert ("is-lit" in n.classes()) == bool(lights & set(n.attrs["data-marks"].split()))
    return p


def test_subscripts_and_token_names():
    assert sub(21) == "₂₁"
    assert token_vector(2) == "x⁽²⁾"
    assert token_vector(6, "z") == "z⁽⁶⁾"


def test_element_marks_the_pointed_and_the_lit():
    state = Pointed("a", frozenset({"m"}))
    assert element("td", "1", state, key="a", lights=("m",)) == (
        '<td tabindex="0" data-explain="a" data-lights="m" class="is-pointed">1</td>'
    )
    assert element("td", "2", state, marks=("m", "n")) == (
        '<td data-marks="m n" class="is-lit">2</td>'
    )
    assert element("td", "3", state, marks=("n",), attrs={"class": "x", "title": '"q"'}) == (
        '<td title="&quot;q&quot;" data-marks="n" class="x">3</td>'
    )


def test_a_grid_is_one_tab_stop_of_named_cells():
    state = Pointed("b1", frozenset())
    rows = "".join(
        "<tr>"
        + "".join(grid_cell(f"{r}.{c}", state, key=f"{r}{c}", row=r, column=c) for c in "12")
        + "</tr>"
        for r in "ab"
    )
    body = grid("two by two", rows) + element("td", "x", state, key="free")
    keys = ["a1", "a2", "b1", "b2", "free"]
    p = check_pointing(scope(body, {k: k for k in keys}, state, "hint"))
    (g,) = p.grids
    assert g.label == "two by two"
    assert [[c.attrs["data-explain"] for c in row] for row in g.rows] == [
        ["a1", "a2"],
        ["b1", "b2"],
    ]
    assert [c.attrs["tabindex"] for c in g.cells] == ["-1", "-1", "0", "-1"]
    assert g.cells[2].attrs["aria-label"] == "row b, column 1: b.1"
    assert p.by_key("free")[0].attrs["tabindex"] == "0"  # outside a grid, every one is a stop


def test_the_checker_catches_a_grid_without_its_one_stop():
    state = Pointed("a", frozenset())
    cells = grid_cell("1", state, key="a", row="r", column="c") + element(
        "td", "2", state, key="b", attrs={"aria-label": "row r, column d: 2"}
    )
    html = scope(grid("g", f"<tr>{cells}</tr>"), {"a": "x", "b": "y"}, state, "hint")
    with pytest.raises(AssertionError, match=r"Tab stops \['a', 'b'\]"):
        check_pointing(html)


def test_terms_table_writes_out_the_book_worked_example():
    """Section 3.3.1: 0.55·0.43 + 0.87·0.15 + 0.66·0.89 = 0.2365 + 0.1305 + 0.5874 = 0.9544."""
    x2, x1 = np.array([0.55, 0.87, 0.66]), np.array([0.43, 0.15, 0.89])
    terms, total = dot_terms(x2, x1)
    tree = parse(terms_table(x2, x1, terms, total))
    (line,) = [n for n in tree.walk() if "data-sum-line" in n.attrs]
    assert line.text() == "0.2365 + 0.1305 + 0.5874 = 0.9544"
    rows = [" ".join(n.text().split()) for n in tree.walk() if n.tag == "tr"]
    assert rows == [
        f"{num(a, 2)}×{num(b, 2)}={num(p)}" for a, b, p in zip(x2, x1, terms, strict=True)
    ] + [f"sum{num(total)}"]


def test_scope_shows_the_pointed_explanation_and_keeps_the_rest():
    state = Pointed("b", frozenset({"m"}))
    body = element("td", "A", state, key="a", lights=("n",), marks=("m",)) + element(
        "td", "B", state, key="b", lights=("m",), marks=("n",)
    )
    p = check_pointing(scope(body, {"a": "<p>about a</p>", "b": "<p>about b</p>"}, state, "hint"))
    assert p.explanation("a") == "about a"
    assert p.out.text() == "about b"


def test_the_checker_catches_a_missing_explanation():
    state = Pointed("a", frozenset())
    body = element("td", "A", state, key="a") + element("td", "B", state, key="b")
    with pytest.raises(AssertionError, match="no explanation for b"):
        check_pointing(scope(body, {"a": "x"}, state, "hint"))


def _rules(css: str) -> dict[str, dict[str, str]]:
    """Selector -> declarations of the top-level rules (the media queries are left out)."""
    top = re.sub(r"/\*.*?\*/", "", css.split("@media")[0])
    rules: dict[str, dict[str, str]] = {}
    for selectors, body in re.findall(r"([^{}]+)\{([^}]*)\}", top):
        decls = dict(
            (k.strip(), v.strip())
            for k, v in (d.split(":", 1) for d in body.split(";") if ":" in d)
        )
        for selector in selectors.split(","):
            rules.setdefault(selector.strip(), {}).update(decls)
    return rules


SITE_CSS = Path(__file__).resolve().parents[2] / "static" / "site.css"


def _colour(value: str, scheme: str) -> str:
    """A CSS colour as the page resolves it in ``scheme``: a site variable (site.css's
    light-dark pair, else the fallback) or a light-dark(light, dark) pair, picked."""
    if found := re.fullmatch(r"var\((--[\w-]+),\s*([^)]+)\)", value):
        name, fallback = found.groups()
        declared = re.search(rf"{name}:\s*([^;]+);", SITE_CSS.read_text())
        value = declared.group(1).strip() if declared else fallback
    if found := re.fullmatch(r"light-dark\(([^,]+),\s*([^)]+)\)", value):
        value = found.group(1 if scheme == "light" else 2)
    return value.strip()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_hovered_element_keeps_readable_text(scheme):
    """The element under the pointer is the pointed one: its text stays AA on any hover colour."""
    rules = _rules(EXPLAIN_CSS)
    text = _colour(rules[".s33"]["color"], scheme)
    pointed = {k: _colour(v, scheme) for k, v in rules[".s33 .is-pointed"].items()}
    assert contrast(pointed["color"], pointed["background"]) >= AA
    hovers = {
        s: _colour(d["background"], scheme)
        for s, d in rules.items()
        if ":hover" in s and "background" in d
    }
    assert hovers
    for selector, background in hovers.items():
        assert contrast(text, background) >= AA, selector
        if ":not(.is-pointed)" not in selector:  # it paints the pointed element too
            assert contrast(pointed["color"], background) >= AA, selector


def _grids_of_section33() -> dict[str, list[Grid]]:
    from figures import section33_matmul_scores, section33_score_matrix

    found = {
        f"score-matrix {mode}": check_pointing(
            section33_score_matrix.picture(section33_score_matrix.State(mode))
        ).grids
        for mode in section33_score_matrix.MODES
    }
    for query in TOKENS:
        found[f"matmul-scores {query}"] = check_pointing(
            section33_matmul_scores.picture(section33_matmul_scores.State(query))
        ).grids
    return found


def test_every_grid_cell_of_section33_says_its_row_column_and_value():
    """The score matrix's 36 cells and each score row's 6, each named as it reads on screen."""
    for name, grids in _grids_of_section33().items():
        (g,) = grids
        for r, row in enumerate(g.rows):
            for c, cell in enumerate(row):
                if name.startswith("score-matrix"):
                    assert len(g.rows) == len(row) == len(TOKENS)
                    row_name = TOKENS[r]
                else:
                    assert len(g.rows) == 1 and len(row) == len(TOKENS)
                    row_name = f"ω for {name.split()[-1]}"
                label = f"row {row_name}, column {TOKENS[c]}: {cell.text()}"
                assert cell.attrs["aria-label"] == label, name
    (scores,) = _grids_of_section33()["score-matrix scores ω"]
    (stop,) = [c for c in scores.cells if c.attrs["tabindex"] == "0"]
    assert stop.attrs["aria-label"] == "row journey, column starts: 1.4754"


@pytest.mark.parametrize(
    ("figure_id", "kind"),
    [
        ("matmul-scores", pn.widgets.Select),
        ("normalisations-compare", pn.widgets.Select),
        ("score-matrix", pn.widgets.RadioBoxGroup),
        ("context-matmul", pn.widgets.Select),
    ],
)
def test_each_layout_shows_its_drawing_under_its_one_control(figure_id, kind):
    """The layout (layoutkit/pointing.py) draws the picture the figure declares, in the pane
    styled for pointing, under the control it always had."""
    from figures import module
    from layoutkit.document import view_of

    view = view_of(figure_id)
    (control,) = [w for w in view.select(pn.widgets.Widget) if w.name]
    assert isinstance(control, kind)
    if kind is pn.widgets.Select:
        assert control.width == 300 and control.options == list(TOKENS)
    else:
        assert control.inline
    assert pane_html(view) == pane_html(Driven(module(figure_id)))
    (shown,) = [p for p in view.select(pn.pane.HTML) if "data-explain-scope" in str(p.object)]
    assert EXPLAIN_CSS in shown.stylesheets
