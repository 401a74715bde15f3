"""The helpers several figures share: the token picker, outlines, labelled points."""

from bokeh.models import ColumnDataSource

from attention.fixtures import TOKENS
from figurekit.drawing import ACCENT
from layoutkit.plots import labelled_points, outline, plot
from layoutkit.widgets import token_picker


def test_the_token_picker_offers_the_six_tokens_and_starts_on_journey():
    picker = token_picker()
    assert (picker.name, picker.options, picker.value) == ("Query token", list(TOKENS), "journey")
    assert picker.width == 160
    other = token_picker("Token to scale", "with", width=None)
    assert (other.name, other.value, other.width) == ("Token to scale", "with", None)


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
