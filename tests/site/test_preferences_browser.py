"""The reader's system preferences reach inside the figures' widgets: reduced motion stops their
transitions, and in forced colours (Windows' contrast themes) the chosen button of a row, the
focus ring and the scheme toggle's state still show, in the reader's system colours.

The preferences are switched in place, as a reader's system switches them, on the session's
shared page of post 1."""

import pytest

from harness.dom import wait_until
from harness.site import POST1
from harness.visit import LIVE_TIMEOUT_MS

pytestmark = pytest.mark.browser
# The first element matching a selector, looking through the figures' shadow roots.
DEEP = """(selector) => {
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.matches(selector)) return el;
      const found = el.shadowRoot && walk(el.shadowRoot);
      if (found) return found;
    }
    return null;
  };
  return walk(document.body);
}"""


def deep(page, selector: str):
    """The element, once drawn: a figure off screen may still be drawing when the page is live."""
    return wait_until(page, DEEP, arg=selector, timeout=LIVE_TIMEOUT_MS)


def live_page(live, **preferences):
    page = live(POST1).page
    page.emulate_media(**preferences)
    return page


@pytest.mark.parametrize("motion, duration", [("reduce", "0s"), ("no-preference", "0.3s")])
def test_reduced_motion_stops_the_sliders_glide(live, motion, duration):
    """A click on a slider's track glides the handle there (noUiSlider's tap transition), unless
    the reader asked for reduced motion; the other case shows the check can tell."""
    page = live_page(live, reduced_motion=motion)
    origin = deep(page, ".noUi-origin")
    try:
        glide = origin.evaluate(
            """(origin) => {
              origin.closest('.noUi-target').classList.add('noUi-state-tap');
              return getComputedStyle(origin).transitionDuration;
            }"""
        )
    finally:
        origin.evaluate("(o) => o.closest('.noUi-target').classList.remove('noUi-state-tap')")
    assert glide == duration


def test_forced_colours_keep_the_chosen_button_and_the_focus_ring(live):
    page = live_page(live, forced_colors="active")
    try:
        chosen = deep(page, ".bk-btn-group .bk-btn.bk-active")
        selected, backgrounds = chosen.evaluate(
            """(chosen) => {
              // The reader's SelectedItem colour, as the browser resolves it in this root.
              const probe = document.createElement('i');
              probe.style.background = 'SelectedItem';
              chosen.getRootNode().append(probe);
              const selected = getComputedStyle(probe).backgroundColor;
              probe.remove();
              const row = [...chosen.parentElement.querySelectorAll('.bk-btn')];
              const colours = row.map((b) => [b === chosen, getComputedStyle(b).backgroundColor]);
              return [selected, colours];
            }"""
        )
        chosen.focus()
        page.keyboard.press("ArrowRight")  # moves the choice and shows the focus ring
        ring = page.evaluate(
            """() => {
              let el = document.activeElement;
              while (el && el.shadowRoot && el.shadowRoot.activeElement) {
                el = el.shadowRoot.activeElement;
              }
              const style = getComputedStyle(el);
              return [style.outlineStyle, parseFloat(style.outlineWidth)];
            }"""
        )
        toggle = page.get_by_role("button", name="Dark mode")
        toggle.click()
        mark = toggle.evaluate("(b) => getComputedStyle(b, '::before').content")
        toggle.click()  # back to the light scheme
    finally:
        page.emulate_media(forced_colors="none")
    assert all((colour == selected) == is_chosen for is_chosen, colour in backgrounds), (
        selected,
        backgrounds,
    )
    assert ring[0] != "none" and ring[1] >= 2, ring
    assert "✓" in mark, mark
