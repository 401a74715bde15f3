"""The section 3.3 page in a real browser: pointing explains, by mouse, keyboard and touch.

Every pointing test runs twice: on the pre-render with Python blocked (the explanations need
no Python) and on the session's shared live page (they keep working once the live figures
replace it).
"""

import re
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from attention.basics import attend, contributions, dot_terms, query_scores, softmax, sum_normalise
from attention.fixtures import TOKENS, book_inputs
from formatting import num, vec
from harness.dom import ACTIVE, ax_nodes, ax_properties, focus_in_tab_order, in_view, tap, untouch
from harness.site import SECTION33 as PAGE
from harness.visit import DESKTOP, PHONE

pytestmark = pytest.mark.browser
X = book_inputs()
JOURNEY = TOKENS.index("journey")
DEEP_ACTIVE = f"() => {{ {ACTIVE} return el && el.dataset ? el.dataset.explain || null : null; }}"


@pytest.fixture
def live33(live):
    """The section 3.3 page: the session's shared live page, its figures at their defaults."""
    return live(PAGE)


@pytest.fixture(scope="module")
def prerender(visit):
    """The page with its Python worker blocked: only the pre-render and the static script."""
    v = visit(PAGE, block="**/worker.js")
    v.wait_for("failed")
    return v


@pytest.fixture(params=["prerender", "live33"])
def page(request):
    page = request.getfixturevalue(request.param).page
    page.bring_to_front()  # pointing and Tab act on the page in front, as in a reader's window
    return page


def figure(page, figure_id: str):
    """The figure, on screen and at rest, ready to be pointed at."""
    fig = page.locator(f'[data-figure="{figure_id}"]')
    in_view(fig)
    return fig


def shown(fig) -> str:
    return " ".join(fig.locator("[data-explain-out]").inner_text().split())


def products_line(i: int, j: int) -> str:
    terms, total = dot_terms(X[i], X[j])
    return " + ".join(num(t) for t in terms) + f" = {num(total)}"


def test_pointing_at_a_score_cell_shows_its_three_products_and_sum(page):
    fig = figure(page, "matmul-scores")
    for j in (2, 0, 5):
        cell = fig.locator(f'[data-explain="s{j}"]')
        cell.hover()
        expect(fig.locator("[data-explain-out] [data-sum-line]")).to_have_text(
            products_line(JOURNEY, j)
        )
        expect(cell).to_have_class(re.compile(r"\bis-pointed\b"))
        # The query row and the token's column are lit, and no other column.
        lit = fig.locator(".is-lit")
        expect(lit.filter(has_text=TOKENS[j])).to_have_count(1)
        assert lit.count() == 3 + 1 + 3  # query cells, column header, column entries
    # The section's worked example, in full.
    fig.locator('[data-explain="s0"]').hover()
    assert "0.2365 + 0.1305 + 0.5874 = 0.9544" in shown(fig)
    for factor in ("0.55", "0.43", "0.87", "0.15", "0.66", "0.89"):
        assert factor in shown(fig)


def test_pointing_at_a_token_in_one_chart_lights_it_in_the_other(page):
    fig = figure(page, "normalisations-compare")
    s = query_scores(X, JOURNEY)
    for source, other in (("by-sum", "softmax"), ("softmax", "by-sum")):
        for token in ("starts", "one"):
            j = TOKENS.index(token)
            fig.locator(f'[data-chart="{source}"] [data-token="{token}"]').hover()
            twin = fig.locator(f'[data-chart="{other}"] [data-token="{token}"]')
            expect(twin).to_have_class(re.compile(r"\bis-lit\b"))
            expect(fig.locator(f'[data-chart="{other}"] .is-lit')).to_have_count(1)
            text = shown(fig)
            assert num(sum_normalise(s)[j]) in text and num(softmax(s)[j]) in text


def test_pointing_at_a_matrix_cell_shows_its_origin(page):
    fig = figure(page, "score-matrix")
    for i, j in ((0, 4), (3, 1)):
        fig.locator(f'[data-explain="m{i}-{j}"]').hover()
        assert products_line(i, j) in shown(fig)
        lit_rows = fig.locator("tr .is-lit").all_inner_texts()
        for v in (*X[i], *X[j]):
            assert num(v, 2) in lit_rows


def test_pointing_at_a_context_row_rebuilds_it(page):
    fig = figure(page, "context-matmul")
    _, alpha, Z = attend(X)
    for i in (JOURNEY, 4):
        fig.locator(f'[data-explain="z{i}"]').hover()
        text = shown(fig).replace(" ", "")
        for j, part in enumerate(contributions(alpha[i], X)):
            assert f"{num(alpha[i, j])}×{vec(X[j], 2)}={vec(part)}".replace(" ", "") in text
        assert f"sum={vec(Z[i])}".replace(" ", "") in text
    fig.locator(f'[data-explain="z{JOURNEY}"]').hover()
    assert "[0.4419, 0.6515, 0.5683]" in shown(fig)


def test_a_keyboard_user_steps_through_the_scores_and_sees_each_explanation(page):
    """The score row is a grid: Tab reaches it, the arrows step along it
    (the grid tests below try every key)."""
    fig = figure(page, "matmul-scores")
    focus_in_tab_order(fig.locator("select"))
    for j in range(len(TOKENS)):
        page.keyboard.press("ArrowRight" if j else "Tab")
        assert page.evaluate(DEEP_ACTIVE) == f"s{j}"
        expect(fig.locator("[data-explain-out] [data-sum-line]")).to_have_text(
            products_line(JOURNEY, j)
        )
    page.keyboard.press("ArrowLeft")
    expect(fig.locator("[data-explain-out] [data-sum-line]")).to_have_text(
        products_line(JOURNEY, len(TOKENS) - 2)
    )


def test_a_keyboard_user_reaches_the_charts_and_the_context_rows(page):
    fig = figure(page, "normalisations-compare")
    focus_in_tab_order(fig.locator("select"))
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")  # the second bar of the first chart: journey
    assert page.evaluate(DEEP_ACTIVE) == "t1"
    expect(fig.locator('[data-chart="softmax"] [data-token="journey"]')).to_have_class(
        re.compile(r"\bis-lit\b")
    )
    fig = figure(page, "context-matmul")
    focus_in_tab_order(fig.locator("select"))
    page.keyboard.press("Tab")
    assert page.evaluate(DEEP_ACTIVE) == "z0"
    assert f"sum={vec(attend(X)[2][0])}".replace(" ", "") in shown(fig).replace(" ", "")


def test_tapping_explains_on_a_touch_screen(page):
    """At a phone's width, with a finger."""
    page.set_viewport_size(PHONE)
    try:
        fig = figure(page, "matmul-scores")
        tap(page, fig.locator('[data-explain="s3"]'))
        expect(fig.locator("[data-explain-out] [data-sum-line]")).to_have_text(
            products_line(JOURNEY, 3)
        )
        fig = figure(page, "normalisations-compare")
        tap(page, fig.locator('[data-chart="softmax"] [data-token="step"]'))
        expect(fig.locator('[data-chart="by-sum"] [data-token="step"]')).to_have_class(
            re.compile(r"\bis-lit\b")
        )
        fig = figure(page, "context-matmul")
        tap(page, fig.locator('[data-explain="z5"]'))
        assert vec(attend(X)[2][5]) in shown(fig)
    finally:
        untouch(page)
        page.set_viewport_size(DESKTOP)


def test_live_switch_to_weights_then_pointing_still_explains(live33):
    live = live33
    fig = figure(live.page, "score-matrix")
    fig.get_by_label("weights α").check()
    _, alpha, _ = attend(X)
    expect(fig.locator('[data-cell="1-2"]')).to_have_text(num(alpha[1, 2]))
    expect(live.readout_locator("score-matrix", "symmetry")).to_have_text("0.0877")
    fig.locator('[data-explain="m3-0"]').hover()
    assert vec(alpha[3]) in shown(fig)
    expect(fig.locator('[data-cell="3-5"]')).to_have_class(re.compile(r"\bis-lit\b"))
    fig.get_by_label("scores ω").check()
    expect(fig.locator('[data-cell="1-2"]')).to_have_text("1.4754")


def test_live_query_change_then_pointing_explains_the_new_query(live33):
    live = live33
    fig = figure(live.page, "matmul-scores")
    fig.locator("select").select_option("step")
    step = TOKENS.index("step")
    expect(live.readout_locator("matmul-scores", "scores")).to_have_text(vec(query_scores(X, step)))
    fig.locator('[data-explain="s1"]').hover()
    expect(fig.locator("[data-explain-out] [data-sum-line]")).to_have_text(products_line(step, 1))
    fig.locator("select").select_option("journey")


def test_the_page_prints_the_sections_numbers_and_stays_local(live33, server_url):
    live = live33
    text = live.article_text()
    for printed in (
        "[0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865]",
        "[0.1455, 0.2278, 0.2249, 0.1285, 0.1077, 0.1656]",
        "[0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581]",
        "[0.4419, 0.6515, 0.5683]",
        "0.2365 + 0.1305 + 0.5874 = 0.9544",
    ):
        assert printed in text
    for row in attend(X)[2]:
        assert vec(row) in text
    origin = urlsplit(server_url)[:2]
    assert [u for u in live.requests if urlsplit(u)[:2] != origin] == []
    assert live.errors == []


# The grids of cells from the keyboard (WAI-ARIA grid pattern): the score matrix (6 x 6) and the
# score row (1 x 6) are one Tab stop each, which Tab reaches once and leaves in one press; the
# arrow keys, Home/End and Ctrl+Home/End move focus between cells and the explanation follows;
# the focused cell's name, as Chromium's accessibility tree gives it, says its row, column and
# value.


@pytest.fixture(params=["prerender", "live33"])
def fresh(request):
    """The page as ``page`` gives it, reloaded: the tests above leave the grids' stops elsewhere
    than on their first cells."""
    v = request.getfixturevalue(request.param)
    v.page.reload()
    v.wait_for("failed" if request.param == "prerender" else "live")
    return v.page


def focused_node(page) -> tuple[str, str]:
    """The role and name of the focused node in Chromium's accessibility tree (the document,
    which is focused too, left out)."""
    (node,) = [
        n
        for n in ax_nodes(page)
        if n["role"]["value"] != "RootWebArea" and ax_properties(n).get("focused")
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
    assert page.evaluate(DEEP_ACTIVE) == f"m{i}-{j}", key
    expect(fig.locator("[data-explain-out] [data-sum-line]")).to_have_text(products_line(i, j))
    assert stops(fig) == [f"m{i}-{j}"]


def test_the_score_matrix_is_one_tab_stop_walked_by_the_arrows(fresh):
    page = fresh
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
    assert not (page.evaluate(DEEP_ACTIVE) or "").startswith("m")
    press(page, "Shift+Tab", fig, 5, 5)


def test_the_score_row_is_one_tab_stop_walked_by_the_arrows(fresh):
    page = fresh
    fig = figure(page, "matmul-scores")
    focus_in_tab_order(fig.locator("select"))
    shown = fig.locator("[data-explain-out] [data-sum-line]")
    page.keyboard.press("Tab")
    for j in range(len(TOKENS)):
        if j:
            page.keyboard.press("ArrowRight")
        assert page.evaluate(DEEP_ACTIVE) == f"s{j}"
        expect(shown).to_have_text(products_line(JOURNEY, j))
        total = num(dot_terms(X[JOURNEY], X[j])[1])
        assert focused_node(page) == ("gridcell", f"row ω for journey, column {TOKENS[j]}: {total}")
        assert stops(fig) == [f"s{j}"]
    for key, j in (("ArrowDown", 5), ("Home", 0), ("ArrowUp", 0), ("End", 5), ("ArrowLeft", 4)):
        page.keyboard.press(key)
        assert page.evaluate(DEEP_ACTIVE) == f"s{j}", key
        expect(shown).to_have_text(products_line(JOURNEY, j))
    page.keyboard.press("Tab")
    assert not (page.evaluate(DEEP_ACTIVE) or "").startswith("s")
    page.keyboard.press("Shift+Tab")
    assert page.evaluate(DEEP_ACTIVE) == "s4"


def test_a_click_moves_the_stop_to_the_clicked_cell(fresh):
    """Tab comes back to the cell a pointer last focused, not to the one the grid began with."""
    page = fresh
    fig = figure(page, "score-matrix")
    fig.locator('[data-explain="m4-1"]').click()
    assert stops(fig) == ["m4-1"]
    press(page, "ArrowRight", fig, 4, 2)
