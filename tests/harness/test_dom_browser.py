"""The browser tests' waits for a frame when the renderer draws none, as headless Chromium has been
seen to stop drawing a visible page's: ``next_frame`` (harness/dom.py) wakes the page and waits
again, goes on once frames come, and fails, saying so, if none does; the probe's frame
(harness/probe.js), which the tests' scripts in the page await, goes on without one."""

import pytest

from harness import chromium
from harness.dom import next_frame
from harness.visit import instrument

pytestmark = pytest.mark.browser

PAGE = "data:text/html,<p>A page.</p>"
# No frame is ever drawn: nothing requestAnimationFrame is given runs.
NO_FRAMES = "window.requestAnimationFrame = () => 0;"
# Frames stop for the page's first second (load included), then come again.
FRAMES_AFTER_A_SECOND = """{
  const frame = window.requestAnimationFrame.bind(window);
  const resumes = performance.now() + 1000;
  window.requestAnimationFrame = (callback) => {
    const wait = () => (performance.now() < resumes ? setTimeout(wait, 50) : frame(callback));
    wait();
    return 0;
  };
}"""


@pytest.fixture(scope="module")
def browser():
    with chromium.launch() as launched:
        yield launched


def page_whose(browser, frames: str):
    context = browser.new_context()
    instrument(context)  # the probe
    context.add_init_script(frames)
    page = context.new_page()
    page.goto(PAGE)
    return page


def test_a_wait_goes_on_once_frames_come_again(browser):
    page = page_whose(browser, FRAMES_AFTER_A_SECOND)
    next_frame(page, wake_after_ms=200, timeout_ms=20_000)
    page.context.close()


def test_a_wait_whose_frames_never_come_fails_saying_so(browser):
    page = page_whose(browser, NO_FRAMES)
    with pytest.raises(AssertionError, match=r"no frame drawn in 2000 ms, the page woken after"):
        next_frame(page, wake_after_ms=500, timeout_ms=2_000)
    page.context.close()


# The probe's frame awaited, or what a wait that would never end gives instead.
PROBE_FRAME = """() => Promise.race([
  harnessProbe.frame().then((drawn) => (drawn ? "a frame drawn" : "went on")),
  new Promise((resolve) => setTimeout(() => resolve("still waiting after 20 s"), 20000)),
])"""


def test_the_probes_frame_goes_on_without_a_frame(browser):
    page = page_whose(browser, NO_FRAMES)
    assert page.evaluate(PROBE_FRAME) == "went on"
    page.context.close()
