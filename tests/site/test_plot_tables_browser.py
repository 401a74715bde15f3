"""Each plot's data as a table (issue 20, item 3): on every post, every plot that a screen
reader meets as an image has a table with its name, holding the numbers CPython computes
for the figure's state, printed by formatting/'s rules; after a control change the open tables
hold the new state's numbers, and a closed disclosure is not redrawn until it opens (it costs an
update nothing). The tests read the session's shared pages."""

import math

import panel as pn
import pytest
from bokeh.plotting import figure

from formatting import integer, magnitude_text, num
from harness.dom import wait_until
from harness.site import path
from layoutkit.document import view_of
from pages import placed_figures, post1, post2, post3
from tests.figures.test_plot_data import data_spec, plots_of

pytestmark = pytest.mark.browser

# Per figure on the page: its plots' names (the images a screen reader meets) and its tables.
_READ = """() => [...document.querySelectorAll("figure.fig")].map((fig) => {
  const plots = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll("*")) {
      if (el.classList.contains("bk-Figure") && el.getAttribute("role") === "img") {
        plots.push(el.getAttribute("aria-label"));
      }
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(fig);
  const text = (row) => [...row.cells].map((c) => c.textContent);
  const tables = [...fig.querySelectorAll(":scope > details.fig-data > table")].map((t) => ({
    caption: t.caption.textContent,
    head: text(t.tHead.rows[0]),
    rows: [...t.tBodies[0].rows].map(text),
  }));
  return { id: fig.dataset.figure, plots, tables };
})"""


def _cell(value, fmt: str) -> str:
    """A value as static/plot-tables.js prints it: formatting/'s rule for each format."""
    if fmt == "text":
        return str(value).strip()
    x = float(value)
    if fmt == "int" and math.isfinite(x):
        return integer(int(x))
    return magnitude_text(x) if fmt == "mag" else num(x)


def _blank(value) -> bool:
    """A grid's NaN cell, drawn blank and left blank in its table."""
    return isinstance(value, float) and math.isnan(value)


def expected_tables(view: pn.viewable.Viewable) -> dict[str, dict]:
    """Each plot's table as the page should show it, by caption, from the figure's Python."""
    tables = {}
    for p in [m for m in view.get_root().references() if isinstance(m, figure)]:
        spec = data_spec(p)
        data = p.renderers[spec["renderer"]].data_source.data
        if "grid" in spec:
            values, width = list(data[spec["grid"]]), len(spec["cols"])
            blank = lambda v: isinstance(v, float) and math.isnan(v)  # noqa: E731
            cells = ["" if blank(v) else _cell(v, spec["format"]) for v in values]
            head = [spec["corner"], *spec["cols"]]
            rows = [
                [name, *cells[i * width : (i + 1) * width]] for i, name in enumerate(spec["rows"])
            ]
        else:
            columns = spec["columns"]
            head = [h for _, h, _ in columns]
            n = len(data[columns[0][0]])
            rows = [[_cell(data[f][i], fmt) for f, _, fmt in columns] for i in range(n)]
            if "rows" in spec:
                head = [spec["row_header"], *head]
                rows = [[spec["rows"][i], *row] for i, row in enumerate(rows)]
            if not rows and spec.get("empty"):  # one cell across: how to take the measurement
                rows = [[spec["empty"]]]
        tables[p.title.text.strip()] = {"head": head, "rows": rows}
    return tables


# One figure's plots and tables as they are, its disclosures left closed.
_READ_CLOSED = f"(id) => ({_READ})().find((fig) => fig.id === id)"


def read(page) -> dict[str, dict]:
    """Every figure's plots and tables, with its "Data" disclosure opened (its tables are drawn
    when it opens, and redrawn while it is open)."""
    boxes = "[...document.querySelectorAll('details.fig-data')]"
    page.evaluate(f"() => {boxes}.forEach((d) => d.open = true)")
    wait_until(page, f"() => {boxes}.every((d) => d.querySelector('table'))")
    return {fig["id"]: fig for fig in page.evaluate(_READ)}


def close_tables(page) -> None:
    page.evaluate(
        "() => document.querySelectorAll('details.fig-data').forEach((d) => d.open = false)"
    )


def assert_tables(shown: dict, expected: dict[str, dict]) -> None:
    """The page's tables for one figure are ``expected``, one per plot, named as the plot."""
    assert shown["plots"], f"{shown['id']}: no plot"
    assert [t["caption"] for t in shown["tables"]] == shown["plots"], shown["id"]
    assert sorted(shown["plots"]) == sorted(expected), shown["id"]
    for table in shown["tables"]:
        want = expected[table["caption"]]
        assert table["head"] == want["head"], (shown["id"], table["caption"])
        assert len(table["rows"]) == len(want["rows"]), (shown["id"], table["caption"])
        for row, wanted in zip(table["rows"], want["rows"], strict=True):
            assert len(row) == len(wanted), (shown["id"], table["caption"], row, wanted)
            for a, b in zip(row, wanted, strict=True):
                assert _same(a, b), (shown["id"], table["caption"], row, wanted)


def _same(shown: str, wanted: str) -> bool:
    """A cell as CPython prints it; a value of float64 rounding (below 1e-9, as the latent cache's
    gaps) only as rounding, since the browser's numpy may round apart from CPython's."""
    if shown == wanted:
        return True
    try:
        a, b = float(shown), float(wanted)
    except ValueError:
        return False
    return abs(a) < 1e-9 and abs(b) < 1e-9


@pytest.mark.parametrize("post", [post1, post2, post3], ids=lambda m: m.SLUG)
def test_every_plot_has_its_data_table(live, post):
    v = live(path(post))
    shown = read(v.page)
    with_plots = 0
    for figure_id in placed_figures(post.TEMPLATE):
        if not plots_of(figure_id):
            assert not shown[figure_id]["tables"], figure_id
            continue
        with_plots += 1
        assert_tables(shown[figure_id], expected_tables(view_of(figure_id)))
    assert with_plots >= 3
    assert v.errors == []


def _python_after(figure_id: str, control: str, value) -> dict[str, dict]:
    """The figure's tables in CPython once its control named ``control`` is set to ``value``."""
    view = view_of(figure_id)
    (widget,) = [w for w in view.select(pn.widgets.Widget) if w.name == control]
    widget.value = value
    return expected_tables(view)


def _matches(shown: dict, expected: dict[str, dict]) -> bool:
    try:
        assert_tables(shown, expected)
    except AssertionError:
        return False
    return True


def _act(v, box, act) -> None:
    """The reader's move, then every change it made answered by the worker."""
    if act[0] == "slider":
        _, index, key, times = act
        handle = box.locator(".noUi-handle").nth(index)
        handle.focus()
        for _ in range(times):
            handle.press(key)
    else:
        box.get_by_role("radio", name=act[1]).click()
    v.wait_idle()


@pytest.mark.parametrize(
    ("post", "figure_id", "control", "value", "act"),
    [
        # A slider: T from 100 to 103, three presses of the right arrow.
        (post1, "depth", "Sequence length T", 103, ("slider", 0, "ArrowRight", 3)),
        # A row of radio buttons: 4 bytes per score.
        (post2, "cost", "Bytes per score", 4, ("radio", "4 bytes/score (32-bit)")),
        # A slider on post 3: 17 tokens in the sliding window's grids.
        (post3, "sliding-window", "Tokens T", 17, ("slider", 0, "ArrowRight", 1)),
    ],
    ids=["depth-slider", "cost-radio", "sliding-window-slider"],
)
def test_a_control_change_updates_the_tables(live, post, figure_id, control, value, act):
    """Open, the tables follow the change; closed, they are left as they were until opened."""
    v = live(path(post))
    box = v.page.locator(f'[data-figure="{figure_id}"]')
    expected = _python_after(figure_id, control, value)
    before = read(v.page)[figure_id]  # opens the disclosures
    assert not _matches(before, expected)  # the change is visible
    _act(v, box, act)
    assert_tables(read(v.page)[figure_id], expected)
    # Closed, a disclosure is not redrawn: back to the defaults, its tables still hold the state
    # above, until it opens again.
    close_tables(v.page)
    box.locator("[data-view=reset]").click()
    v.wait_idle()
    closed = v.page.evaluate(_READ_CLOSED, figure_id)
    # The tables, that is: the plots' own titles follow the figure.
    assert _matches({**closed, "plots": [t["caption"] for t in closed["tables"]]}, expected)
    assert_tables(read(v.page)[figure_id], expected_tables(view_of(figure_id)))
    assert v.errors == []
