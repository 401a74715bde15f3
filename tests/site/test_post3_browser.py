"""Post 3 in a real browser: every figure goes live, and each answers a control as CPython does.

For each figure the reader's move is a key press on its first slider (or a number typed into
its box, or a click on another of its buttons). What
the page then shows is compared with CPython: the figure's view is read back through "Link to
this view" (the controls that differ from the defaults, as the URL names them), the same view
is set on the figure built in CPython, and every readout must match, digit for digit, except
those a figure declares as printing float64 rounding itself (its ROUNDING keys), whose numbers
must agree to 1e-9.
"""

import re
from urllib.parse import parse_qsl, urlsplit

import pytest
from playwright.sync_api import expect

from attention import gpt
from figures import module
from figures.generation import NOT_WRITTEN
from harness.dom import wait_until
from harness.site import POST3
from pages import placed_figures, post3
from tests.figures.probe import agree, driven, readouts

pytestmark = pytest.mark.browser
FIGURES = placed_figures(post3.TEMPLATE)
# What the reader types into the first box of a figure that has no slider.
TYPED = {"grouped-heads": "4"}  # K/V heads: 4 of the toy's 8 query heads
# What the reader clicks in a figure that has neither a slider nor a box.
CLICKED = {"rope-scaling": "position interpolation"}
# The status line of a figure measuring on the reader's machine (static/page/state.js).
MEASURING = "Measuring in your browser: the figure updates when it is done."


@pytest.fixture
def live3(live):
    """Post 3: the session's shared live page, its figures at their defaults."""
    return live(POST3)


def test_the_page_places_eleven_figures_and_goes_live(live3):
    assert len(FIGURES) == 11
    statuses = live3.page.locator("figure[data-figure] .fig-status")
    assert statuses.count() == 11
    for i in range(11):
        expect(statuses.nth(i)).to_have_attribute("data-status", "live")
    assert live3.errors == []


def shown(v, figure_id: str) -> dict[str, str]:
    return v.readouts(figure_id)


def cpython(figure_id: str, params: dict[str, str]) -> dict[str, str]:
    """The readouts of the figure built in CPython and set to the view ``params`` describe."""
    figure = driven(module(figure_id))
    drawing, note = figure.figure.follow(params)
    assert note == ""
    figure.take(drawing)
    return readouts(figure)


@pytest.mark.parametrize("figure_id", FIGURES)
def test_a_slider_moved_by_the_keyboard_shows_what_cpython_computes(live3, figure_id):
    figure = live3.page.locator(f'[data-figure="{figure_id}"]')
    before = shown(live3, figure_id)
    agree(figure_id, before, cpython(figure_id, {}))
    if figure_id in TYPED:  # a figure with no slider: the reader types into its box
        box = figure.locator("input.bk-input").first
        box.fill(TYPED[figure_id])
        box.press("Enter")
    elif figure_id in CLICKED:  # a figure with buttons only: the reader picks another one
        figure.locator("button", has_text=CLICKED[figure_id]).first.click()
    else:
        handle = figure.locator(".noUi-handle").first
        handle.focus()
        handle.press("ArrowRight")
    wait_until(
        live3.page,
        """([id, before]) => {
          const now = harnessProbe.readouts(id);
          return Object.keys(before).some((k) => now[k] !== before[k]);
        }""",
        arg=[figure_id, before],
        timeout=20_000,
    )
    figure.get_by_role("button", name="Link to this view").click()
    expect(figure.locator(".fig-status")).to_contain_text("Link ")
    query = dict(parse_qsl(urlsplit(live3.page.url).query))
    params = {
        key.split(".", 1)[1]: value
        for key, value in query.items()
        if key.startswith(f"{figure_id}.")
    }
    assert params, "the reader's move changed no control"
    agree(figure_id, shown(live3, figure_id), cpython(figure_id, params))
    figure.get_by_role("button", name="Reset").click()
    wait_until(
        live3.page,
        "(id) => !new URLSearchParams(location.search).toString().includes(id + '.')",
        arg=figure_id,
    )
    assert live3.errors == []


def test_the_gpt_writes_the_same_text_both_ways_and_times_it_in_the_browser(live3):
    """Write and time: the reader's browser writes the default 32 tokens with the cache and
    without; both texts are CPython's greedy continuation, and each way has a speed, read
    from the browser's clock (printed with -s; no test asserts a duration)."""
    page = live3.page
    figure = page.locator('[data-figure="generation"]')
    figure.scroll_into_view_if_needed()
    expect(figure.locator(".fig-status")).to_have_attribute("data-status", "live")
    assert shown(live3, "generation")["same"] == NOT_WRITTEN
    # What the status line says, and whether the figure is busy, at each change while it times.
    figure.evaluate("""(fig) => {
        window.measuringSeen = [];
        const seen = () => window.measuringSeen.push(
            [fig.querySelector(".fig-status").textContent, fig.getAttribute("aria-busy")]);
        window.measuringWatch = new MutationObserver(seen);
        window.measuringWatch.observe(fig, {attributes: true, attributeFilter: ["aria-busy"],
                                            childList: true, subtree: true});
    }""")
    figure.get_by_role("button", name="Write and time").click()
    wait_until(page, "() => harnessProbe.readouts('generation').same !== " + repr(NOT_WRITTEN),
               timeout=60_000)  # fmt: skip
    rows = shown(live3, "generation")
    assert rows["same"] == f"yes, all {gpt.EXAMPLE_TOKENS} tokens"
    written = gpt.decode(
        gpt.generate(gpt.init(), gpt.encode(gpt.EXAMPLE_PROMPT), gpt.EXAMPLE_TOKENS, cached=True)
    )
    texts = figure.locator("[data-generated] mark").all_text_contents()
    assert texts == [written, written]
    rates = {way: float(rows[f"{way}-rate"].replace(",", "")) for way in ("cached", "uncached")}
    assert all(rate > 0 for rate in rates.values())
    print(f"\ngeneration in the browser: {rates} tokens per second, speed-up {rows['speed-up']}")
    status = figure.locator(".fig-status")
    expect(status).to_have_text(re.compile("^Live: "))
    expect(figure).not_to_have_attribute("aria-busy", "true")
    seen = page.evaluate("window.measuringWatch.disconnect() || window.measuringSeen")
    assert [MEASURING, "true"] in seen, seen  # busy, and saying so, while it measured
    assert live3.errors == []
    figure.get_by_role("button", name="Reset").click()
    wait_until(page, "() => harnessProbe.readouts('generation').same === " + repr(NOT_WRITTEN))
