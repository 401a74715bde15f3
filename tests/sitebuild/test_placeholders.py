"""The placeholders' heights: every figure measured at every width of the ladder, and the
rules a page gets from them (a slot not drawn yet, at the height its figure takes drawn)."""

import figures
from harness.heights import WIDTHS
from sitebuild import placeholders


def test_every_figure_has_a_height_at_every_width_measured():
    table = placeholders.load()
    assert table["widths"] == WIDTHS == sorted(WIDTHS)
    assert set(table["heights"]) == set(figures.REGISTRY), "run python -m harness.heights SITE"
    for figure_id, heights in table["heights"].items():
        assert len(heights) == len(WIDTHS) and all(h > 100 for h in heights), figure_id


def test_a_slot_takes_the_height_measured_at_the_widest_width_its_screen_reaches():
    table = {"widths": [320, 600, 1080], "heights": {"a": [900, 900, 500], "b": [700, 650, 400]}}
    rules = placeholders.css(["a", "b"], table)
    assert rules == (
        "figure:not([data-drawn]) > #fig-a { height: 900px; }\n"
        "figure:not([data-drawn]) > #fig-b { height: 700px; }\n"
        "@media (min-width: 600px) {\n"
        "figure:not([data-drawn]) > #fig-b { height: 650px; }\n"
        "}\n"
        "@media (min-width: 1080px) {\n"
        "figure:not([data-drawn]) > #fig-a { height: 500px; }\n"
        "figure:not([data-drawn]) > #fig-b { height: 400px; }\n"
        "}"
    )
    assert placeholders.css(["not-measured"], table) == ""
