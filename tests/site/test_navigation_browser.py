"""Navigation and print in the browser: a printed post shows each figure's plot without its
controls, status lines or source, and a figure's anchor brings its title on screen. The
session's shared page of post 1 is read (printed by its media switched in place)."""

import pytest
from playwright.sync_api import expect

from harness.site import POST1 as POST

pytestmark = pytest.mark.browser
FIGURE = "depth"  # the post's first figure: a plot with sliders above it


def test_printed_figures_keep_their_plots_and_drop_what_only_works_on_screen(live):
    v = live(POST)
    figure = v.page.locator(f'[data-figure="{FIGURE}"]')
    screen_only = [
        figure.locator(".fig-controls").first,
        figure.locator(".fig-status"),
        figure.locator("details.fig-source summary"),
        v.page.locator('nav[aria-label="Contents"]'),
    ]
    for element in screen_only:
        expect(element).to_be_visible()
    v.page.emulate_media(media="print")
    for element in [*screen_only, v.page.locator("#live-status"), v.page.locator(".self-link")]:
        expect(element.first).to_be_hidden()
    expect(figure.locator(".bk-Figure canvas").first).to_be_visible()
    overflow = v.page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0, "the printed page is wider than the paper"


@pytest.mark.parametrize(
    ("anchor", "title_on_screen"), [(f"figure-{FIGURE}", True), (f"fig-{FIGURE}", False)]
)
def test_a_figures_anchor_shows_its_title(live, server_url, anchor, title_on_screen):
    """Its own anchor, not its plot area's (whose title sits above the fold)."""
    v = live(POST)
    v.page.goto(f"{server_url}{POST}#{anchor}")  # the same page: only its fragment changes
    v.wait_for("live")
    v.page.evaluate(f"() => document.getElementById({anchor!r}).scrollIntoView()")
    top = v.page.locator(f'[data-figure="{FIGURE}"] .fig-title').bounding_box()["y"]
    assert (0 <= top < v.page.viewport_size["height"]) is title_on_screen
