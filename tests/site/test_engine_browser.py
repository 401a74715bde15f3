"""The engine in a real browser: pre-render, going live, one checked interaction, failure."""

from urllib.parse import urlsplit

import numpy as np
import pytest
from playwright.sync_api import expect

from attention.basics import context, query_scores, softmax
from attention.fixtures import TOKENS, book_inputs
from figures.fmt import vec

pytestmark = pytest.mark.browser
POST1 = "attention-without-weights/"


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


def test_a_control_moved_before_live_takes_effect_when_live(browser, server_url):
    """No dead controls: a change made on the pre-render is replayed on the live figure."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    held = []  # Python's downloads, held until released: the page cannot go live meanwhile
    for pattern in ("**/pyodide.asm.wasm*", "**/runtime/snapshots/*"):
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
    finally:
        context.close()


@pytest.mark.parametrize("path", ["attention-without-weights/", "section-3-3/", "trainable-attention/"])
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

