"""The engine in a real browser: pre-render, going live, one checked interaction, and the
pre-render kept as the live figures.

The checks of a page as it goes live read the session's shared pages; the one that must see a
page start (a control moved before live) opens a page of its own, since that is a start."""

import json
from urllib.parse import urlsplit

import numpy as np
import pytest
from playwright.sync_api import expect

from attention.basics import context, query_scores, softmax
from attention.fixtures import TOKENS, book_inputs
from formatting import vec
from harness.site import POST1, WITH_FIGURES
from harness.visit import until

pytestmark = pytest.mark.browser


@pytest.fixture
def post1(live):
    """Post 1: the session's shared live page, its figures at their defaults."""
    return live(POST1)


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


def holder_ids(page) -> dict[str, str]:
    """Figure id -> the id of the element its Bokeh root is drawn into."""
    return page.eval_on_selector_all(
        "figure[data-figure]",
        "figs => Object.fromEntries(figs.map((f) =>"
        " [f.dataset.figure, f.querySelector('.fig-slot > div')?.id]))",
    )


@pytest.mark.parametrize("path", WITH_FIGURES)
def test_the_live_figures_are_the_prerender_taken_over(live, path):
    """Going live draws nothing again: the figures on screen are still the pre-render's."""
    v = live(path)
    prerender = json.loads(v.page.locator("#prerender").text_content())
    drawn = {fid: f"fig-{fid}-{data['roots'][fid]}" for fid, data in prerender.items()}
    assert holder_ids(v.page) == drawn
    assert v.page.evaluate("[...Bokeh.index].length") == len(drawn)
    assert v.errors == []


def test_a_control_moved_before_live_takes_effect_when_live(visit):
    """No dead controls: a change made on the pre-render is kept, and sent to Python when the
    figures go live (its own start: Python's downloads are held)."""
    held = []  # Python's downloads, held until released: the page cannot go live meanwhile
    routes = [
        (pattern, held.append) for pattern in ("**/pyodide.asm.wasm*", "**/runtime/snapshots/**")
    ]
    v = visit(POST1, routes=routes)
    page = v.page
    v.wait_for("static")
    v.show("three-steps")
    page.locator('[data-figure="three-steps"] select').select_option("with")
    until(page, lambda: held, what="Python's download should be waiting")
    assert v.figures == "static"
    for route in held:
        route.continue_()
    v.wait_for("live")
    want = expected_context(book_inputs(), "with")
    expect(v.readout_locator("three-steps", "context")).to_have_text(want)
    assert page.locator('[data-figure="three-steps"] select').input_value() == "with"
    prerender = json.loads(page.locator("#prerender").text_content())["three-steps"]["roots"]
    assert holder_ids(page)["three-steps"] == f"fig-three-steps-{prerender['three-steps']}"
    page.locator('[data-figure="three-steps"] select').select_option("step")
    expect(v.readout_locator("three-steps", "context")).to_have_text(
        expected_context(book_inputs(), "step")
    )
    assert v.errors == []


@pytest.mark.parametrize("path", WITH_FIGURES)
def test_the_math_fonts_a_page_draws_with_are_the_ones_it_preloads(live, path):
    """Named in the head, the fonts come with the page instead of one by one as the math is
    laid out (each arrival lays the page out again); none is named that the page does not use."""
    v = live(path)
    preloaded = v.page.eval_on_selector_all(
        'link[rel="preload"][as="font"]', "links => links.map((l) => l.href)"
    )
    loaded = {url for url in v.requests if url.endswith(".woff2")}
    assert preloaded and set(preloaded) == loaded
