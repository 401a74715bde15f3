"""Nothing on a page jumps. From the navigation until the figures are live, and while the
reader then scrolls the page from top to bottom, the layout shifts no input caused (the probe's
record: what the cumulative layout shift adds up) come to at most 0.02, at a phone's size in the
dark scheme and a desktop's in the light one. A shift's record names what moved."""

import pytest

from harness.dom import next_frame
from harness.site import PATHS, has_figures
from harness.visit import DESKTOP, PHONE

# The largest cumulative layout shift a page may have (a good score is at most 0.1).
MOST = 0.02
SCREENS = {"phone-dark": (PHONE, "dark"), "desktop-light": (DESKTOP, "light")}

# Half a screen down, as a reader scrolls; whether there is more below.
SCROLL_STEP = """() => {
  scrollBy(0, innerHeight / 2);
  return scrollY + innerHeight < document.documentElement.scrollHeight;
}"""


@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("path", PATHS)
def test_nothing_on_the_page_jumps(visit, path, screen):
    viewport, scheme = SCREENS[screen]
    v = visit(path, viewport=viewport, color_scheme=scheme)
    try:
        if has_figures(path):
            v.wait_for("live")
        else:
            v.page.wait_for_load_state("load")
        while v.page.evaluate(SCROLL_STEP):
            next_frame(v.page)
        next_frame(v.page)
        shifts = v.page.evaluate("() => harnessProbe.shifts")
        assert sum(shift["value"] for shift in shifts) <= MOST, shifts
    finally:
        v.close()  # a live page holds a Python of its own
