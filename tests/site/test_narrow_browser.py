"""A phone-wide reader never scrolls a page sideways: wide things scroll in their own box."""

import pytest

import pages

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}
LIVE_TIMEOUT_MS = 120_000
PATHS = [f"{p.SLUG}/" if p.SLUG else "" for p in pages.all_pages()]
# Every block laid out (prose off screen is skipped until near), then what sticks out past the
# viewport, named so that a failure says which element to fix.
OVERFLOW = """() => {
  for (const el of document.querySelectorAll('article > *')) el.style.contentVisibility = 'visible';
  const width = document.documentElement.clientWidth;
  const wide = [...document.querySelectorAll('body *')]
    .filter((el) => el.getBoundingClientRect().right > width + 0.5)
    .slice(0, 5).map((el) => `${el.tagName.toLowerCase()}.${el.className}`);
  return [document.documentElement.scrollWidth, wide];
}"""


@pytest.mark.parametrize("path", PATHS)
def test_no_page_scrolls_sideways_at_390_px(browser, server_url, site, path):
    """Opened on a phone-wide screen, as a reader would (the figures lay out at that width),
    and checked once the figures are live."""
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(server_url + path)
    if 'id="page-config"' in (site / path / "index.html").read_text():
        page.wait_for_function(
            "() => document.documentElement.dataset.figures === 'live'", timeout=LIVE_TIMEOUT_MS
        )
    page.wait_for_load_state("load")
    scroll_width, wide = page.evaluate(OVERFLOW)
    context.close()
    assert scroll_width <= PHONE["width"], (path, scroll_width, wide)
