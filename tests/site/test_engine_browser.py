"""The engine in a real browser: pre-render, going live, one checked interaction, failure."""

import json
import re
from urllib.parse import urlsplit

import numpy as np
import pytest
from playwright.sync_api import expect

import pages
from attention.basics import context, query_scores, softmax
from attention.fixtures import TOKENS, book_inputs
from figures.page import to_json
from formatting import vec

pytestmark = pytest.mark.browser
POST1 = "attention-without-weights/"
POSTS = [f"{post.SLUG}/" for post in pages.posts()]  # the pages with figures


@pytest.fixture(scope="module")
def post1(visit):
    """Post 1, opened once and left live for every interaction test in this module."""
    v = visit(POST1)
    v.wait_for("live")
    return v


def expected_context(X: np.ndarray, token: str) -> str:
    w = softmax(query_scores(X, TOKENS.index(token)))
    return vec(context(w, X))


def test_goes_live_with_only_local_requests_and_no_errors(post1, server_url):
    origin = urlsplit(server_url)[:2]
    outside = [u for u in post1.requests if urlsplit(u)[:2] != origin]
    assert outside == []
    assert post1.errors == []
    marks = post1.page.evaluate(
        "performance.getEntriesByType('mark').map(m => [m.name, m.startTime])"
    )
    names = dict(marks)
    assert names["prerender-visible"] < names["figures-live"]


def test_live_default_state_is_the_books(post1):
    assert post1.readout("three-steps", "context") == "[0.4419, 0.6515, 0.5683]"
    assert post1.readout("three-steps", "context") == expected_context(book_inputs(), "journey")


def test_choosing_a_query_recomputes_in_the_browser(post1):
    figure = post1.page.locator('[data-figure="three-steps"]')
    figure.locator("select").select_option("step")
    want = expected_context(book_inputs(), "step")
    expect(post1.readout_locator("three-steps", "context")).to_have_text(want)


def test_editing_an_embedding_number_recomputes(post1):
    figure = post1.page.locator('[data-figure="three-steps"]')
    figure.locator("select").select_option("journey")
    box = figure.get_by_label("step x₁", exact=True)
    box.fill("2.5")
    box.press("Enter")
    X = book_inputs()
    X[TOKENS.index("step"), 0] = 2.5
    want = expected_context(X, "journey")
    expect(post1.readout_locator("three-steps", "context")).to_have_text(want)


def test_blocked_wasm_leaves_a_readable_prerender_that_says_why(visit):
    v = visit(POST1, block="**/pyodide.asm.wasm*")  # the file, and its zstd copy
    v.wait_for("failed")
    assert v.readout("three-steps", "context") == "[0.4419, 0.6515, 0.5683]"
    status = v.page.locator('[data-figure="three-steps"] .fig-status').inner_text()
    assert status.startswith("Not live:")


PRERENDER = re.compile(r'(<script type="application/json" id="prerender">)(.*?)(</script>)', re.S)


def unlike_the_live_figures(html: str) -> str:
    """The page with its three-steps pre-render built differently from the live figure: one
    of its models sets an attribute (to its default value) that the worker's leaves unset."""

    def edit(m: re.Match) -> str:
        data = json.loads(m[2])
        (doc,) = data["three-steps"]["docs_json"].values()
        doc["roots"][0]["attributes"]["visible"] = True
        return m[1] + to_json(data) + m[3]

    return PRERENDER.sub(edit, html, count=1)


def serve_unlike(context, url: str) -> None:
    """Serve the page at url as `unlike_the_live_figures` makes it."""

    def handle(route) -> None:
        response = route.fetch()
        route.fulfill(response=response, body=unlike_the_live_figures(response.text()))

    context.route(url, handle)


def holder_ids(page) -> dict[str, str]:
    """Figure id -> the id of the element its Bokeh root is drawn into."""
    return page.eval_on_selector_all(
        "figure[data-figure]",
        "figs => Object.fromEntries(figs.map((f) =>"
        " [f.dataset.figure, f.querySelector('.fig-slot > div').id]))",
    )


@pytest.mark.parametrize("path", POSTS)
def test_the_live_figures_are_the_prerender_taken_over(visit, path):
    """Going live draws nothing again: the figures on screen are still the pre-render's."""
    v = visit(path)
    v.wait_for("live")
    prerender = json.loads(v.page.locator("#prerender").text_content())
    drawn = {fid: f"fig-{fid}-{data['roots'][fid]}" for fid, data in prerender.items()}
    assert holder_ids(v.page) == drawn
    assert v.page.evaluate("document.documentElement.dataset.liveDocument") == "adopted"
    assert v.page.evaluate("[...Bokeh.index].length") == len(drawn)
    assert v.errors == []


def test_a_prerender_unlike_the_live_figures_is_drawn_again(browser, server_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    errors = []
    try:
        serve_unlike(context, server_url + POST1)
        page = context.new_page()
        page.on("console", lambda m: m.type == "error" and errors.append(m.text))
        page.goto(server_url + POST1)
        page.wait_for_function("() => document.documentElement.dataset.figures === 'live'")
        assert page.evaluate("document.documentElement.dataset.liveDocument") == "drawn"
        before = json.loads(page.locator("#prerender").text_content())["three-steps"]["roots"]
        assert holder_ids(page)["three-steps"] != f"fig-three-steps-{before['three-steps']}"
        assert page.evaluate("[...Bokeh.index].length") == len(holder_ids(page))
        page.locator('[data-figure="three-steps"] select').select_option("step")
        want = expected_context(book_inputs(), "step")
        expect(page.locator('[data-figure="three-steps"] [data-readout="context"]')).to_have_text(
            want
        )
        assert errors == []
    finally:
        context.close()


@pytest.mark.parametrize("unlike", [False, True], ids=["adopted", "drawn-again"])
def test_a_control_moved_before_live_takes_effect_when_live(browser, server_url, unlike):
    """No dead controls: a change made on the pre-render is replayed on the live figure,
    whether the page keeps the pre-render as the live figures or draws them again."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    if unlike:
        serve_unlike(context, server_url + POST1)
    held = []  # Python's downloads, held until released: the page cannot go live meanwhile
    for pattern in ("**/pyodide.asm.wasm*", "**/runtime/snapshots/**"):
        context.route(pattern, lambda route: held.append(route))
    try:
        page = context.new_page()
        page.goto(server_url + POST1)
        page.wait_for_function("() => document.documentElement.dataset.figures === 'static'")
        page.locator('[data-figure="three-steps"] select').select_option("with")
        for _ in range(100):
            if held:
                break
            page.wait_for_timeout(100)
        assert held, "Python's download should be waiting"
        assert page.evaluate("() => document.documentElement.dataset.figures") == "static"
        for route in held:
            route.continue_()
        page.wait_for_function(
            "() => document.documentElement.dataset.figures === 'live'", timeout=120_000
        )
        want = expected_context(book_inputs(), "with")
        locator = page.locator('[data-figure="three-steps"] [data-readout="context"]')
        expect(locator).to_have_text(want, timeout=10_000)
        assert page.locator('[data-figure="three-steps"] select').input_value() == "with"
        mode = page.evaluate("document.documentElement.dataset.liveDocument")
        assert mode == ("drawn" if unlike else "adopted")
    finally:
        context.close()


@pytest.mark.parametrize("path", POSTS)
def test_the_math_fonts_a_page_draws_with_are_the_ones_it_preloads(visit, path):
    """Named in the head, the fonts come with the page instead of one by one as the math is
    laid out (each arrival lays the page out again); none is named that the page does not use."""
    v = visit(path)
    v.wait_for("live")
    preloaded = v.page.eval_on_selector_all(
        'link[rel="preload"][as="font"]', "links => links.map((l) => l.href)"
    )
    loaded = {url for url in v.requests if url.endswith(".woff2")}
    assert preloaded and set(preloaded) == loaded
