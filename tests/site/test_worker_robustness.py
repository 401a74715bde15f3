"""The worker in a real browser when something optional goes wrong or a browser lacks a feature.

The rehearsal after a snapshot start is a warm-up only: its failure must leave the figures
live. The snapshot start must not rely on async iteration of a ReadableStream, which Safari
lacked for years: Chromium's is removed from the worker (its script is served with a first
line that deletes it; Playwright's init scripts do not run in workers) and from the page.
"""

import json
import re

import pytest

from tests.site.test_snapshot_browser import assert_live_and_computing, start_of

pytestmark = pytest.mark.browser
POST1 = "attention-without-weights/"
NO_ASYNC_ITERATION = (
    "delete ReadableStream.prototype[Symbol.asyncIterator];"
    " delete ReadableStream.prototype.values;\n"
)


def test_a_failed_rehearsal_leaves_the_figures_live(visit):
    """A figure id Python does not know, added to the page's list, makes the rehearsal raise
    after the snapshot start (which does not build figures by that list)."""
    v = visit(POST1)
    warnings: list[str] = []
    v.page.on("console", lambda m: m.type == "warning" and warnings.append(m.text))

    def page_with_unknown_figure(route):
        html = route.fetch().text()
        head, config, tail = re.split(r'(?<=id="page-config">)(.*?)(?=</script>)', html, maxsplit=1)
        data = json.loads(config)
        data["figures"] = ["no-such-figure", *data["figures"]]
        route.fulfill(body=head + json.dumps(data) + tail, content_type="text/html")

    v.context.route(f"**/{POST1}", page_with_unknown_figure)
    v.page.reload()
    v.wait_for("live")
    assert start_of(v) == "snapshot"
    # The rehearsal runs once the page is live, one figure per task: the unknown one first.
    for _ in range(100):
        if warnings or v.page.evaluate("() => document.documentElement.dataset.figures") != "live":
            break
        v.page.wait_for_timeout(100)
    status = v.page.locator('[data-figure="three-steps"] .fig-status').inner_text()
    assert status.startswith("Live:"), status
    assert [w for w in warnings if "no-such-figure" in w], warnings
    assert_live_and_computing(v)
    assert len(v.page.workers) == 1
    assert v.errors == []


def test_the_snapshot_start_needs_no_async_iteration_of_streams(visit):
    v = visit(POST1)
    fallbacks: list[str] = []
    v.page.on("console", lambda m: "without the snapshot" in m.text and fallbacks.append(m.text))

    def without_async_iteration(route):
        response = route.fetch()
        route.fulfill(response=response, body=NO_ASYNC_ITERATION + response.text())

    v.context.route("**/worker.js", without_async_iteration)
    v.context.add_init_script(NO_ASYNC_ITERATION)
    v.page.reload()
    assert_live_and_computing(v)
    assert start_of(v) == "snapshot", fallbacks
    (worker,) = v.page.workers
    assert worker.evaluate("() => Symbol.asyncIterator in ReadableStream.prototype") is False
    assert v.errors == []
