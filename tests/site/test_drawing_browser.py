"""A figure is drawn as the reader nears it. On a phone, post 1 loads with the figures near the
screen drawn and the rest waiting, each an empty, named Tab stop; scrolled to, a waiting figure
is drawn and live at once (its readouts CPython's, a control answered as CPython computes it);
reached by Tab, it is drawn and the focus goes on to its first control; a link to a far
figure's view draws that figure first, in the view; and print draws every figure. While the
page starts, a figure just below the screen waits until the start is over, unless the reader
brings it onto the screen.

At a phone's pixel ratio the figures' canvases outgrow the page's budget, and the figures the
reader has left far behind are released: no views, no canvases (their pixels given back at
once), no Bokeh document, the same room, and the heap lets them go; back at one, the reader
finds it drawn again as they left it. The figure the reader is in is kept. On a desktop's
screen every figure stays drawn.

Each test opens a fresh page: what is drawn before the reader moves is the point."""

import pytest
from playwright.sync_api import expect

from figures import depth, magnitude
from harness.dom import focus_before, wait_until
from harness.site import POST1, POST3
from harness.visit import PHONE, until
from tests.figures.probe import agree

pytestmark = pytest.mark.browser
FIRST, LAST = "depth", "magnitude"  # post 1's first figure and its last, screens below
NOT_DRAWN = "figure[data-figure]:not([data-drawn])"
PLACEHOLDER = "its plots and controls, drawn as you reach them"  # a waiting slot's name


def expected(module, state) -> dict[str, str]:
    return {key: text for key, _, text in module.readouts(state)}


def drawn(v, figure_id: str) -> bool:
    return v.figure(figure_id).get_attribute("data-drawn") is not None


def canvases(v, figure_id: str) -> int:
    return v.figure(figure_id).locator("canvas").count()


@pytest.fixture
def phone_page(visit):
    """Post 1, fresh, at a phone's size, live; closed after the test (it holds a Python)."""
    v = visit(POST1, viewport=PHONE)
    v.wait_for("live")
    yield v
    v.close()


def test_the_page_draws_the_figures_near_the_screen_and_the_rest_as_the_reader_nears_them(
    phone_page,
):
    v = phone_page
    assert v.page.evaluate("() => performance.getEntriesByName('prerender-visible').length") == 1
    # No figure is on a phone's first screen of post 1: the worker is told at once, not left
    # to wait for a drawing that never comes.
    assert v.page.evaluate("() => harnessProbe.sent['prerender-visible']") == 1
    # Drawn: only figures that were within a screen of the screen (and so are above its end).
    tops = v.page.locator("figure[data-figure][data-drawn]").evaluate_all(
        "(figures) => figures.map((f) => f.getBoundingClientRect().top / innerHeight)"
    )
    assert all(top < 2 for top in tops), tops
    assert not drawn(v, LAST) and canvases(v, LAST) == 0
    slot = v.figure(LAST).locator(".fig-slot")
    expect(slot).to_have_attribute("tabindex", "0")
    expect(slot).to_have_accessible_name(f"Figure 6: {PLACEHOLDER}")
    v.show(FIRST)
    assert canvases(v, FIRST) > 0
    agree(FIRST, v.readouts(FIRST), expected(depth, depth.DEFAULT))
    v.show(LAST)
    assert canvases(v, LAST) > 0
    expect(slot).not_to_have_attribute("tabindex", "0")
    agree(LAST, v.readouts(LAST), expected(magnitude, magnitude.DEFAULT))
    token = next(t for t in magnitude.CONTROLS[0].values if t != magnitude.DEFAULT.token)
    v.figure(LAST).locator("select").first.select_option(token)
    v.wait_idle()
    moved = magnitude.DEFAULT._replace(token=token)
    agree(LAST, v.readouts(LAST), expected(magnitude, moved))


def test_a_figure_reached_by_tab_is_drawn_and_the_focus_goes_on_to_its_first_control(phone_page):
    v = phone_page
    assert not drawn(v, LAST)
    focus_before(v.status(LAST))
    v.page.keyboard.press("Tab")
    expect(v.figure(LAST)).to_have_attribute("data-drawn", "live")
    where = v.page.evaluate(
        """(id) => {
          let el = document.activeElement;
          while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
          let inside = false;
          const fig = document.querySelector(`[data-figure="${id}"]`);
          for (let n = el; n; n = n.parentNode || n.host) if (n === fig) inside = true;
          return { inside, tag: el?.tagName, name: el?.getAttribute("aria-label") || el?.title };
        }""",
        LAST,
    )
    assert where["inside"] and where["tag"] == "SELECT", where


def test_a_link_to_a_far_figures_view_draws_that_figure_first_in_the_view(visit):
    moved = magnitude.DEFAULT._replace(scale=2.5)
    v = visit(f"{POST1}?{LAST}.scale-factor=2.5#figure-{LAST}", viewport=PHONE)
    try:
        v.wait_for("live")
        expect(v.status(LAST)).to_contain_text("showing the view from the link")
        v.wait_idle()
        assert drawn(v, LAST)
        agree(LAST, v.readouts(LAST), expected(magnitude, moved))
    finally:
        v.close()


def test_while_the_page_starts_only_the_figures_on_the_screen_are_drawn(visit):
    """On a desktop post 1's first figure is less than a screen below the first screen: it is
    drawn once the page is live, without the reader moving, and not while Python starts (held
    here), when the main thread is the start's; a figure the reader brings onto the screen
    meanwhile is drawn at once."""
    held = []  # Python's downloads, held until released: the page cannot go live meanwhile
    patterns = ("**/pyodide.asm.wasm*", "**/runtime/snapshots/**")
    v = visit(POST1, routes=[(pattern, held.append) for pattern in patterns])
    try:
        wait_until(v.page, "() => performance.getEntriesByName('prerender-complete').length")
        until(v.page, lambda: held, what="Python's download should be waiting")
        top = v.figure(FIRST).evaluate("(f) => f.getBoundingClientRect().top / innerHeight")
        assert 1 < top < 2, f"{FIRST} should start within a screen below the first: {top}"
        assert not drawn(v, FIRST) and canvases(v, FIRST) == 0
        v.show("three-steps")  # a jump past the first figure, which stays off the screen
        assert v.figures == "static" and canvases(v, "three-steps") > 0
        v.page.evaluate("() => scrollTo(0, 0)")
        assert not drawn(v, FIRST)
        for route in held:
            route.continue_()
        v.wait_for("live")
        expect(v.figure(FIRST)).to_have_attribute("data-drawn", "live")
        assert v.page.evaluate("() => scrollY") == 0
        agree(FIRST, v.readouts(FIRST), expected(depth, depth.DEFAULT))
        assert v.errors == []
    finally:
        v.close()


def gone(route) -> None:
    route.fulfill(status=404, body="gone")  # a file a redeploy removed


@pytest.mark.parametrize(
    ("ending", "routes"),
    [
        ("failed", [("**/pyodide.asm.wasm*", lambda r: r.abort())]),
        ("outdated", [("**/worker.js", gone)]),
    ],
    ids=["failed", "outdated"],
)
def test_a_start_that_failed_is_over_too(visit, ending, routes):
    """Python cannot start (its runtime blocked, or its worker gone from the server): once the
    page says so, the figure below the first screen is drawn, the reader unmoved."""
    v = visit(POST1, routes=routes)
    try:
        v.wait_for(ending)
        expect(v.figure(FIRST)).to_have_attribute("data-drawn", "")
        assert v.page.evaluate("() => scrollY") == 0
        agree(FIRST, v.readouts(FIRST), expected(depth, depth.DEFAULT))
    finally:
        v.close()


def test_print_draws_every_figure(phone_page):
    v = phone_page
    assert v.page.locator(NOT_DRAWN).count() > 0
    v.page.emulate_media(media="print")
    expect(v.page.locator(NOT_DRAWN)).to_have_count(0)
    for figure_id in v.page.locator("figure[data-figure]").evaluate_all(
        "(figures) => figures.map((f) => f.dataset.figure)"
    ):
        assert canvases(v, figure_id) > 0, figure_id


PHONE_SCALE = 2.625  # a phone's pixel ratio, as the benchmark measures memory at
BLUR = "() => document.activeElement?.blur()"  # the reader moves on
# Counts each figure drawn from its pre-render (its data-drawn set to ""), from now on.
COUNT_DRAWINGS = """() => {
  window.drawings = 0;
  new MutationObserver((changes) => {
    for (const c of changes) if (c.target.dataset.drawn === "") window.drawings += 1;
  }).observe(document, { attributes: true, subtree: true, attributeFilter: ["data-drawn"] });
}"""

# Holds on to the canvases given, as the heap may until it next collects; how many.
KEEP_CANVASES = "(canvases) => (window.keptCanvases = canvases).length"


def live_documents(v) -> int:
    """The Bokeh documents the page's heap holds after a full garbage collection."""
    cdp = v.page.context.new_cdp_session(v.page)
    cdp.send("HeapProfiler.collectGarbage")
    found = cdp.send(
        "Runtime.evaluate",
        {"expression": "Bokeh.require('document/document').Document.prototype"},
    )
    held = cdp.send("Runtime.queryObjects", {"prototypeObjectId": found["result"]["objectId"]})
    count = cdp.send(
        "Runtime.callFunctionOn",
        {
            "objectId": held["objects"]["objectId"],
            "functionDeclaration": "function () { return this.length; }",
            "returnByValue": True,
        },
    )
    return count["result"]["value"]


@pytest.fixture
def dense_phone(visit):
    """Post 3, fresh, at a phone's size and pixel ratio, live."""
    v = visit(POST3, viewport=PHONE, device_scale_factor=PHONE_SCALE)
    v.wait_for("live")
    yield v
    v.close()


def figure_ids(v, which: str = "figure[data-figure]") -> list[str]:
    return v.page.locator(which).evaluate_all("(figures) => figures.map((f) => f.dataset.figure)")


def height(v, figure_id: str) -> float:
    return v.figure(figure_id).evaluate("(figure) => figure.getBoundingClientRect().height")


def test_on_a_phone_a_figure_left_far_behind_is_released_and_comes_back_as_it_was_left(
    dense_phone,
):
    v = dense_phone
    first, *rest = figure_ids(v)
    v.show(first)
    before = v.readouts(first)
    handle = v.figure(first).locator(".noUi-handle").first
    handle.focus()
    handle.press("ArrowRight")
    v.wait_idle()
    moved, value = v.readouts(first), handle.get_attribute("aria-valuetext")
    assert moved != before
    room = height(v, first)
    held = v.figure(first).locator("canvas").evaluate_all(KEEP_CANVASES)
    assert held > 0
    v.page.evaluate(BLUR)
    v.page.evaluate(COUNT_DRAWINGS)
    for figure_id in rest:  # down the page, each figure drawn as the reader reaches it
        v.show(figure_id)
    drawn_now = figure_ids(v, "figure[data-drawn]")
    assert first not in drawn_now and canvases(v, first) == 0
    # Its canvases' pixels are given back at once, not when the heap next collects them.
    assert v.page.evaluate("() => keptCanvases.map((c) => c.width * c.height)") == [0] * held
    assert v.page.evaluate("() => Bokeh.documents.length") == len(drawn_now)
    assert height(v, first) == pytest.approx(room, abs=0.5)
    shifts = v.page.evaluate("() => harnessProbe.shifts")
    assert sum(shift["value"] for shift in shifts) <= 0.02, shifts
    v.show(first)  # back up: drawn again, live, as the reader left it
    assert canvases(v, first) > 0
    assert v.readouts(first) == moved
    assert handle.get_attribute("aria-valuetext") == value
    # What was released is let go: BokehJS's plot views, left alone, keep every document
    # they were drawn from (and its canvases) for as long as the page is open.
    drawn_ever = 1 + v.page.evaluate("() => drawings")  # the first figure, drawn at the start
    assert live_documents(v) < drawn_ever


def test_on_a_phone_the_figure_the_reader_is_in_is_kept(dense_phone):
    v = dense_phone
    first, second, *rest = figure_ids(v)
    v.show(first)
    v.figure(first).locator(".noUi-handle").first.focus()
    v.show(second)
    v.page.evaluate(BLUR)
    v.show(first)
    v.figure(first).locator(".noUi-handle").first.focus()
    for figure_id in rest:
        v.show(figure_id)
    drawn_now = figure_ids(v, "figure[data-drawn]")
    assert first in drawn_now
    assert second not in drawn_now  # the budget did release the figures left behind


def test_on_a_desktop_every_figure_stays_drawn(live):
    v = live(POST3)  # the shared page: every figure shown once, as a reader who read it
    assert figure_ids(v, NOT_DRAWN) == []
