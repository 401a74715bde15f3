"""Section 3.3's grids of cells from the keyboard: one Tab stop each, arrows and Home/End.

The score matrix (6 x 6) and the score row (1 x 6) follow the WAI-ARIA grid pattern: Tab
reaches a grid once and leaves it in one press, the arrow keys, Home/End and Ctrl+Home/End
move focus between its cells and the explanation follows, and the focused cell's name, as
Chromium's accessibility tree gives it to assistive technology, says its row, column and
value. Every test runs on the pre-render with Python blocked and on the live page.
"""

import pytest
from playwright.sync_api import expect

from attention.basics import dot_terms
from attention.fixtures import TOKENS, book_inputs
from formatting import num
from tests.site.conftest import focus_in_tab_order

pytestmark = pytest.mark.browser
PAGE = "section-3-3/"
X = book_inputs()
JOURNEY = TOKENS.index("journey")
# The focused element's data-explain key, looking through shadow roots (null if none).
FOCUSED_KEY = """() => {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return a && a.dataset ? a.dataset.explain || null : null;
}"""


@pytest.fixture(scope="module")
def live(visit):
    v = visit(PAGE)
    v.wait_for("live")
    return v


@pytest.fixture(scope="module")
def prerender(visit):
    v = visit(PAGE, block="**/worker.js")
    v.wait_for("failed")
    return v


@pytest.fixture(params=["prerender", "live"])
def page(request):
    return request.getfixturevalue(request.param).page


def figure(page, figure_id: str):
    return page.locator(f'[data-figure="{figure_id}"]')


def products_line(i: int, j: int) -> str:
    terms, total = dot_terms(X[i], X[j])
    return " + ".join(num(t) for t in terms) + f" = {num(total)}"


def focused_node(page) -> tuple[str, str]:
    """The role and name of the focused node in Chromium's accessibility tree (the document,
    which is focused too, left out)."""
    session = page.context.new_cdp_session(page)
    try:
        nodes = session.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        session.detach()
    (node,) = [
        n
        for n in nodes
        if n["role"]["value"] != "RootWebArea"
        and any(p["name"] == "focused" and p["value"]["value"] for p in n.get("properties", []))
    ]
    return node["role"]["value"], node["name"]["value"]


def stops(fig) -> list[str]:
    """The keys of the grid's cells that Tab reaches."""
    return fig.locator('[role="grid"] [data-explain][tabindex="0"]').evaluate_all(
        "cells => cells.map((c) => c.dataset.explain)"
    )


def press(page, key: str, fig, i: int, j: int) -> None:
    """Press ``key``; score cell [i, j] is then focused and explained, and the only stop."""
    page.keyboard.press(key)
    assert page.evaluate(FOCUSED_KEY) == f"m{i}-{j}", key
    expect(fig.locator("[data-explain-out] [data-sum-line]")).to_have_text(products_line(i, j))
    assert stops(fig) == [f"m{i}-{j}"]


def test_the_score_matrix_is_one_tab_stop_walked_by_the_arrows(page):
    fig = figure(page, "score-matrix")
    focus_in_tab_order(fig.get_by_label("scores ω"))
    # Tab lands on the pointed cell, the grid's only stop of 36 cells.
    press(page, "Tab", fig, JOURNEY, JOURNEY + 1)
    assert fig.locator('[role="grid"] [data-explain]').count() == len(TOKENS) ** 2
    assert focused_node(page) == ("gridcell", "row journey, column starts: 1.4754")
    press(page, "ArrowRight", fig, 1, 3)
    press(page, "ArrowDown", fig, 2, 3)
    press(page, "ArrowLeft", fig, 2, 2)
    press(page, "ArrowUp", fig, 1, 2)
    press(page, "Home", fig, 1, 0)
    press(page, "ArrowLeft", fig, 1, 0)  # the edge holds
    press(page, "End", fig, 1, 5)
    press(page, "Control+Home", fig, 0, 0)
    press(page, "ArrowUp", fig, 0, 0)
    press(page, "Control+End", fig, 5, 5)
    press(page, "ArrowDown", fig, 5, 5)
    assert focused_node(page) == (
        "gridcell",
        f"row {TOKENS[5]}, column {TOKENS[5]}: {num(X[5] @ X[5])}",
    )
    # One Tab leaves the grid; Shift+Tab comes back to the cell it left.
    page.keyboard.press("Tab")
    assert not (page.evaluate(FOCUSED_KEY) or "").startswith("m")
    press(page, "Shift+Tab", fig, 5, 5)


def test_the_score_row_is_one_tab_stop_walked_by_the_arrows(page):
    fig = figure(page, "matmul-scores")
    focus_in_tab_order(fig.locator("select"))
    shown = fig.locator("[data-explain-out] [data-sum-line]")
    page.keyboard.press("Tab")
    for j in range(len(TOKENS)):
        if j:
            page.keyboard.press("ArrowRight")
        assert page.evaluate(FOCUSED_KEY) == f"s{j}"
        expect(shown).to_have_text(products_line(JOURNEY, j))
        total = num(dot_terms(X[JOURNEY], X[j])[1])
        assert focused_node(page) == ("gridcell", f"row ω for journey, column {TOKENS[j]}: {total}")
        assert stops(fig) == [f"s{j}"]
    for key, j in (("ArrowDown", 5), ("Home", 0), ("ArrowUp", 0), ("End", 5), ("ArrowLeft", 4)):
        page.keyboard.press(key)
        assert page.evaluate(FOCUSED_KEY) == f"s{j}", key
        expect(shown).to_have_text(products_line(JOURNEY, j))
    page.keyboard.press("Tab")
    assert not (page.evaluate(FOCUSED_KEY) or "").startswith("s")
    page.keyboard.press("Shift+Tab")
    assert page.evaluate(FOCUSED_KEY) == "s4"


def test_a_click_moves_the_stop_to_the_clicked_cell(page):
    """Tab comes back to the cell a pointer last focused, not to the one the grid began with."""
    fig = figure(page, "score-matrix")
    fig.locator('[data-explain="m4-1"]').click()
    assert stops(fig) == ["m4-1"]
    press(page, "ArrowRight", fig, 4, 2)
