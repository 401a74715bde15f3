"""The helpers several figures share: the token picker, presets, outlines, labelled points."""

import panel as pn
import pytest
from bokeh.models import ColumnDataSource

from attention.fixtures import TOKENS
from figures.frame import ACCENT
from figures.plots import labelled_points, outline, plot
from figures.widgets import Presets, token_picker


def test_the_token_picker_offers_the_six_tokens_and_starts_on_journey():
    picker = token_picker()
    assert (picker.name, picker.options, picker.value) == ("Query token", list(TOKENS), "journey")
    assert picker.width == 160
    other = token_picker("Token to scale", "with", width=None)
    assert (other.name, other.value, other.width) == ("Token to scale", "with", None)


def sized():
    """Two controls under presets, and the list of draws they caused."""
    draws: list[tuple] = []
    a = pn.widgets.IntSlider(name="a", start=0, end=9, value=1)
    b = pn.widgets.IntSlider(name="b", start=0, end=9, value=2)
    presets = Presets([a, b], lambda: draws.append((a.value, b.value)))
    return a, b, presets, draws


def test_a_preset_sets_every_control_then_draws_once():
    *_, presets, draws = sized()
    presets.load(7, 8)
    assert draws == [(7, 8)]  # drawn once, with both values already set
    assert not presets.loading


def test_a_readers_change_draws_at_once():
    a, b, _, draws = sized()
    a.value = 5
    b.value = 6
    assert draws == [(5, 2), (5, 6)]


def test_a_picker_loads_its_choices_settings():
    *_, presets, draws = sized()
    picker = pn.widgets.Select(name="preset", options=["low", "high"], value="low")
    presets.picked_by(picker, lambda choice: (0, 0) if choice == "low" else (9, 9))
    picker.value = "high"
    assert draws == [(9, 9)]
    picker.value = "low"
    assert draws == [(9, 9), (0, 0)]


def test_a_preset_of_the_wrong_length_is_refused_and_draws_stay_live():
    a, _, presets, draws = sized()
    with pytest.raises(ValueError):
        presets.load(1)
    a.value = 4
    assert draws[-1] == (4, 2)  # a failed preset leaves the reader's changes drawing


def test_outline_marks_only_the_picked():
    assert outline([False, True, False]) == {
        "edge": ["#ffffff", ACCENT, "#ffffff"],
        "edge_width": [1.0, 3.0, 1.0],
    }


def test_labelled_points_put_each_label_beside_its_marker():
    source = ColumnDataSource({"x": [1], "y": [2], "text": ["a"], "dx": [8.0], "align": ["left"]})
    p = plot("t")
    labelled_points(p, source, "x", "y", ACCENT)
    marker, label = p.renderers
    assert marker.glyph.x == "x" and label.glyph.text == "text"
    assert label.glyph.x_offset == "dx" and label.glyph.text_align == "align"
