"""WCAG reflow: on a phone, at 320 CSS px (a 1280 px window zoomed to 400%) and at 200% zoom, a
reader never scrolls a page sideways; wide things (code, tables) scroll in their own box."""

import pytest

from harness.dom import emulate_screen, next_frame, wait_until
from harness.site import PATHS, WITH_FIGURES

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


# Each plot's title, its width in its own font, the room it has (from the plot area's left edge,
# where BokehJS starts a title, to the plot's right edge) and the plot's width. Titles are drawn
# on the canvas, which clips what does not fit.
TITLES = """() => {
  const measure = document.createElement("canvas").getContext("2d");
  const seen = new Set();
  const found = [];
  const walk = (view) => {
    if (!view || seen.has(view)) return;
    seen.add(view);
    const title = view.model?.type === "Figure" ? view.model.title : null;
    if (title?.text) {
      measure.font = `${title.text_font_style} ${title.text_font_size} ${title.text_font}`;
      const room = view.bbox.x1 - view.frame.bbox.x0;
      found.push([title.text, measure.measureText(title.text).width, room, view.bbox.width]);
    }
    for (const child of view.child_views ?? []) walk(child);
  };
  for (const root of Bokeh.index.roots) walk(root);
  return found;
}"""


@pytest.mark.parametrize("path", WITH_FIGURES)
def test_every_plot_title_fits_on_a_phone(live, path):
    page = live(path).page
    viewport, scale = SCREENS["phone"]
    emulate_screen(page, viewport, scale)
    # The plots are laid out again at the new width at a later frame.
    wait_until(page, f"() => ({TITLES})().every((title) => title[3] <= {viewport['width']})")
    titles = page.evaluate(TITLES)
    clipped = [(text, round(width), round(room)) for text, width, room, _ in titles if width > room]
    assert clipped == [], clipped
