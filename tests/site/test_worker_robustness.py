"""The worker in a real browser when something optional goes wrong or a browser lacks a feature.

The rehearsal after a snapshot start is a warm-up only: its failure must leave the figures
live. A figure the build did not make fails the start honestly, naming it. The snapshot start
must not rely on async iteration of a ReadableStream, which Safari lacked for years: Chromium's
is removed from the worker (its script is served with a first line that deletes it;
Playwright's init scripts do not run in workers) and from the page. Each is served something
different from the first request on, so each opens a page of its own.
"""

import json
import re

import pytest
from playwright.sync_api import expect

from attention.basics import context, query_scores, softmax
from attention.fixtures import TOKENS, book_inputs
from formatting import vec
from harness.dom import wait_until
from harness.site import POST1
from tests.site.test_snapshot_browser import assert_live_and_computing, start_of

pytestmark = pytest.mark.browser
NO_ASYNC_ITERATION = (
    "delete ReadableStream.prototype[Symbol.asyncIterator];"
    " delete ReadableStream.prototype.values;\n"
)


def test_a_failed_rehearsal_leaves_the_figures_live(visit):
    """The worker is served with its rehearsal of the first figure asking Python for a figure
    it does not know, so the warm-up raises after the figures went live."""
    call = "figuresLive.rehearse(first);"

    def worker_rehearsing_an_unknown_figure(route):
        script = route.fetch().text()
        assert script.count(call) == 1, "the worker's rehearsal call changed: update this test"
        faulty = 'figuresLive.rehearse(first === "three-steps" ? "no-such-figure" : first);'
        route.fulfill(body=script.replace(call, faulty), content_type="text/javascript")

    v = visit(POST1, goto=False, routes=[("**/worker.js", worker_rehearsing_an_unknown_figure)])
    warnings: list[str] = []
    v.page.on("console", lambda m: m.type == "warning" and warnings.append(m.text))
    v.open()
    v.wait_for("live")
    assert start_of(v) == "snapshot"
    # The rehearsal runs once the page is live, one figure per task; then the worker says so.
    wait_until(v.page, "() => harnessProbe.received.rehearsed === 1")
    status = v.page.locator('[data-figure="three-steps"] .fig-status').inner_text()
    assert status.startswith("Live:"), status
    assert [w for w in warnings if "rehearsing three-steps failed" in w], warnings
    assert_live_and_computing(v)
    assert len(v.page.workers) == 1
    assert v.errors == []


def test_a_figure_the_build_did_not_make_fails_the_start_and_says_which(visit):
    """A page whose list names a figure Python does not have: the snapshot does not hold it, so
    the page falls back to the ordinary start, which cannot build it either. The page says the
    figures failed and names the figure, with no uncaught error; the pre-render stays."""

    def page_with_unknown_figure(route):
        html = route.fetch().text()
        head, config, tail = re.split(r'(?<=id="page-config">)(.*?)(?=</script>)', html, maxsplit=1)
        data = json.loads(config)
        data["figures"] = ["no-such-figure", *data["figures"]]
        route.fulfill(body=head + json.dumps(data) + tail, content_type="text/html")

    v = visit(POST1, routes=[(f"**/{POST1}", page_with_unknown_figure)])
    v.wait_for("failed")
    status = v.page.locator('[data-figure="three-steps"] .fig-status').inner_text()
    assert status.startswith("Not live:") and "no-such-figure" in status, status
    w = softmax(query_scores(book_inputs(), TOKENS.index("journey")))
    v.show("three-steps")
    expect(v.readout_locator("three-steps", "context")).to_have_text(vec(context(w, book_inputs())))
    assert v.errors == []


def test_the_snapshot_start_needs_no_async_iteration_of_streams(visit):

    def without_async_iteration(route):
        response = route.fetch()
        route.fulfill(response=response, body=NO_ASYNC_ITERATION + response.text())

    v = visit(
        POST1,
        goto=False,
        routes=[("**/worker.js", without_async_iteration)],
        init_scripts=[NO_ASYNC_ITERATION],
    )
    fallbacks: list[str] = []
    v.page.on("console", lambda m: "without the snapshot" in m.text and fallbacks.append(m.text))
    v.open()
    assert_live_and_computing(v)
    assert start_of(v) == "snapshot", fallbacks
    (worker,) = v.page.workers
    assert worker.evaluate("() => Symbol.asyncIterator in ReadableStream.prototype") is False
    assert v.errors == []
