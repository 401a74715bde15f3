"""A figure not drawn yet keeps the room it takes drawn: on a phone and on a desktop, every
figure's drawing (its slot, and the "Data" disclosure after it) takes the height
sitebuild/figure_heights.json gives it at that width (the table the placeholders are sized
from; ``python -m harness.heights SITE`` measures it again after a layout changes), and a slot
not drawn yet takes that height already."""

import bisect

import pytest

from harness.heights import ROOMS
from harness.site import WITH_FIGURES
from harness.visit import DESKTOP, PHONE
from sitebuild import placeholders

pytestmark = pytest.mark.browser


def measured(width: int) -> dict[str, int]:
    """Each figure's height in the table at a screen ``width`` wide."""
    table = placeholders.load()
    i = bisect.bisect_right(table["widths"], width) - 1
    return {figure_id: heights[i] for figure_id, heights in table["heights"].items()}


def rooms(v) -> dict[str, int]:
    """The room each figure takes (harness/heights.py), drawn or not."""
    return v.page.locator("figure[data-figure]").evaluate_all(ROOMS)


def assert_as_measured(heights: dict[str, int], width: int) -> None:
    table = measured(width)
    off = {f: (h, table[f]) for f, h in heights.items() if abs(h - table[f]) > 1}
    assert not off, f"drawn (now, in the table) at {width} px: run python -m harness.heights"


@pytest.mark.parametrize("path", WITH_FIGURES)
def test_on_a_desktop_every_drawn_figure_is_as_tall_as_its_placeholder(live, path):
    v = live(path)
    assert_as_measured(rooms(v), DESKTOP["width"])


@pytest.mark.parametrize("path", WITH_FIGURES)
def test_on_a_phone_every_figure_is_as_tall_before_and_after_it_is_drawn(visit, path):
    v = visit(path, "**/worker.js", viewport=PHONE)  # the pre-render alone: no Python needed
    try:
        v.page.wait_for_load_state("load")
        waiting = v.page.locator("figure[data-figure]:not([data-drawn])")
        before = dict.fromkeys(waiting.evaluate_all("(fs) => fs.map((f) => f.dataset.figure)"))
        assert before, "every figure was drawn at load: none to compare"
        before = {f: h for f, h in rooms(v).items() if f in before}
        assert_as_measured(before, PHONE["width"])
        v.show_every_figure()
        assert_as_measured(rooms(v), PHONE["width"])
    finally:
        v.close()
