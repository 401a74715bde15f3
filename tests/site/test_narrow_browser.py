"""WCAG reflow: on a phone, at 320 CSS px (a 1280 px window zoomed to 400%) and at 200% zoom, a
reader never scrolls a page sideways; wide things (code, tables) scroll in their own box."""

import pytest

from harness.dom import emulate_screen, next_frame
from harness.site import PATHS

pytestmark = pytest.mark.browser
# name: (viewport, device pixels per CSS pixel). Zooming a 1280 x 900 window to 200% lays the
# page out in 640 x 450 CSS px with two device pixels to each.
SCREENS = {
    "phone": ({"width": 390, "height": 844}, 1),
    "320px": ({"width": 320, "height": 640}, 1),
    "zoom200": ({"width": 640, "height": 450}, 2),
}
# The widest thing that sticks out past the viewport and is not inside a box of its own that
# scrolls or clips, looking through the figures' shadow roots, named so that a failure says which
# element to fix.
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const all = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      all.push(el);
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(document.body);
  const parent = (el) => el.parentElement ?? el.getRootNode().host ?? null;
  const boxed = (el) => {
    for (let a = parent(el); a && a !== document.body; a = parent(a)) {
      if (getComputedStyle(a).overflowX !== 'visible') return true;
    }
    return false;
  };
  const wide = all.filter((el) => el.getBoundingClientRect().right > width + 0.5 && !boxed(el))
    .slice(0, 5).map((el) => `${el.tagName.toLowerCase()}.${el.className}`);
  const scrollWidth = document.documentElement.scrollWidth;
  return [scrollWidth, wide];
}"""


@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("path", PATHS)
def test_no_page_scrolls_sideways(live, path, screen):
    """The live page (the session's shared one) laid out at that size, as a reader's window
    resized or zoomed lays it out: the figures follow the width."""
    viewport, scale = SCREENS[screen]
    page = live(path).page
    emulate_screen(page, viewport, scale)
    next_frame(page)
    scroll_width, wide = page.evaluate(OVERFLOW)
    assert scroll_width <= viewport["width"], (path, scroll_width, wide)
