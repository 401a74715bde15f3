"""Save-Data: a reader whose browser asks to save data downloads no byte of the Python runtime
until they use a figure or ask for the live figures; then the figures go live as usual.

Nothing-loaded is checked once the page has drawn its whole pre-render (its
"prerender-complete" mark): by then the page's scripts have all run, and a worker they started
would have been sent its start (the harness counts what the page posts to a worker)."""

import pytest
from playwright.sync_api import expect

from attention.basics import context, query_scores, softmax
from attention.fixtures import TOKENS, book_inputs
from formatting import vec
from harness.dom import wait_until
from harness.site import POST1
from harness.visit import Visit

pytestmark = pytest.mark.browser
# What Chromium's Data Saver shows a page (Playwright has no switch for it).
SAVE_DATA = """Object.defineProperty(Navigator.prototype, "connection", {
  configurable: true,
  get: () => ({ saveData: true, effectiveType: "4g" }),
});"""
# Pyodide's files, the snapshot, the wheels and the worker that would fetch them.
RUNTIME = ("/runtime/", ".whl", "/worker.js", "/zstd.js", "/restore.js")


def saving_data(browser, url: str) -> Visit:
    """``url`` in a fresh context whose browser asks to save data; its pre-render drawn."""
    v = Visit(browser, url, init_scripts=[SAVE_DATA])
    v.wait_for("static")
    assert v.page.evaluate("() => navigator.connection.saveData") is True
    wait_until(v.page, "() => performance.getEntriesByName('prerender-complete').length")
    assert v.page.evaluate("() => harnessProbe.sent.start") is None, "a worker was started"
    return v


def runtime_requests(v: Visit) -> list[str]:
    return [url for url in v.requests if any(part in url for part in RUNTIME)]


def test_nothing_of_the_runtime_loads_until_the_reader_asks(browser, server_url):
    v = saving_data(browser, server_url + POST1)
    try:
        assert runtime_requests(v) == []
        status = v.page.locator('[data-figure="three-steps"] .fig-status')
        assert "save data" in status.inner_text()
        # Nothing is loading, so no figure tells assistive technology to wait for it.
        assert v.page.locator("figure[aria-busy]").count() == 0
        # Nor is anything starting: the figure just below the first screen is drawn too.
        expect(v.page.locator('[data-figure="depth"]')).to_have_attribute("data-drawn", "")
        status.get_by_role("button", name="Load live figures").click()
        v.wait_for("live")
        assert v.page.locator("figure[aria-busy]").count() == 0
        assert [url for url in runtime_requests(v) if "/snapshots/" in url]
        assert "save data" not in status.inner_text()
        assert v.errors == []
    finally:
        v.close()


def test_using_a_control_brings_the_figures_live_with_that_change(browser, server_url):
    v = saving_data(browser, server_url + POST1)
    try:
        assert runtime_requests(v) == []
        v.show("three-steps")
        v.page.locator('[data-figure="three-steps"] select').select_option("step")
        v.wait_for("live")
        w = softmax(query_scores(book_inputs(), TOKENS.index("step")))
        readout = v.readout_locator("three-steps", "context")
        expect(readout).to_have_text(vec(context(w, book_inputs())))
        assert runtime_requests(v)
    finally:
        v.close()
