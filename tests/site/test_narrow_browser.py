"""WCAG reflow: on a phone, at 320 CSS px (a 1280 px window zoomed to 400%) and at 200% zoom, a
reader never scrolls a page sideways; wide things (code, tables) scroll in their own box."""

import pytest

import pages

pytestmark = pytest.mark.browser
LIVE_TIMEOUT_MS = 120_000
PATHS = [f"{p.SLUG}/" if p.SLUG else "" for p in pages.all_pages()]
# name: (viewport, device pixels per CSS pixel). Zooming a 1280 x 900 window to 200% lays the
# page out in 640 x 450 CSS px with two device pixels to each.
SCREENS = {
    "phone": ({"width": 390, "height": 844}, 1),
    "320px": ({"width": 320, "height": 640}, 1),
    "zoom200": ({"width": 640, "height": 450}, 2),
}
# Every block laid out (prose off screen is skipped until near), then the widest thing that
# sticks out past the viewport and is not inside a box of its own that scrolls or clips, looking
# through the figures' shadow roots, named so that a failure says which element to fix.
OVERFLOW = """() => {
  for (const el of document.querySelectorAll('article > *')) el.style.contentVisibility = 'visible';
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
  return [document.documentElement.scrollWidth, wide];
}"""


@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("path", PATHS)
def test_no_page_scrolls_sideways(browser, server_url, site, path, screen):
    """Opened at that size, as a reader would (the figures lay out at that width), and checked
    once the figures are live."""
    viewport, scale = SCREENS[screen]
    context = browser.new_context(viewport=viewport, device_scale_factor=scale)
    page = context.new_page()
    page.goto(server_url + path)
    if 'id="page-config"' in (site / path / "index.html").read_text():
        page.wait_for_function(
            "() => document.documentElement.dataset.figures === 'live'", timeout=LIVE_TIMEOUT_MS
        )
    page.wait_for_load_state("load")
    scroll_width, wide = page.evaluate(OVERFLOW)
    context.close()
    assert scroll_width <= viewport["width"], (path, scroll_width, wide)
