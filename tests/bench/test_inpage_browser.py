"""The benchmark's scroll through a page (bench/inpage.js) when the renderer draws no frame, as
headless Chromium has been seen to stop drawing a visible page's: it ends, and says how many
frames it went on without."""

import pytest

from bench.browser import INPAGE_JS
from harness import chromium
from harness.visit import instrument
from tests.harness.test_dom_browser import NO_FRAMES

pytestmark = pytest.mark.browser

LONG_PAGE = "data:text/html,<body style='height: 3000px'>A page three screens long.</body>"
# The scroll, or what a scroll that would never end gives instead (a failure, not a hang).
SCROLL = """() => Promise.race([
  window.__bench.scrollThrough(1000),
  new Promise((resolve) => setTimeout(() => resolve("still scrolling after 120 s"), 120000)),
])"""


def test_a_scroll_whose_frames_never_come_ends_and_counts_them():
    with chromium.launch() as browser:
        context = browser.new_context(viewport={"width": 412, "height": 915})
        instrument(context)
        context.add_init_script(INPAGE_JS)
        context.add_init_script(NO_FRAMES)
        page = context.new_page()
        page.goto(LONG_PAGE)
        scrolled = page.evaluate(SCROLL)
        assert isinstance(scrolled, dict), scrolled
        # One wait per step down and the first: several, each one missed.
        assert scrolled["framesMissed"] > 4, scrolled
        assert page.evaluate("() => scrollY + innerHeight") >= 3000
