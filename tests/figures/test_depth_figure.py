"""The depth figure in CPython: the book's example, every slider at its ends and at random."""

import math

import panel as pn
import pytest
from bokeh.models import ColumnDataSource
from hypothesis import given, settings
from hypothesis import strategies as st

from attention.depth import attention_depth, decay, log10_decay, recurrent_depth
from figures import depth
from formatting import integer, magnitude_text, num, power_of_ten
from layoutkit.document import view_of
from tests.figures.probe import driven, messages, readouts, widgets
from tests.strategies import examples

CONTROLS = ("Sequence length T", "Layers", "Factor per step")
# Every value each slider can take.
SLIDERS = {
    "T": st.integers(1, depth.MAX_T),
    "layers": st.integers(1, depth.MAX_LAYERS),
    "factor": st.integers(1, 100).map(lambda k: k / 100),
}


def set_controls(view, T, layers, factor):
    controls = widgets(view)
    controls["Sequence length T"].value = T
    controls["Layers"].value = layers
    controls["Factor per step"].value = factor


def expected(T, layers, factor) -> dict:
    value = decay(factor, T)
    return {
        "recurrent": integer(recurrent_depth(layers, T)),
        "attention": integer(attention_depth(layers)),
        "decay": power_of_ten(log10_decay(factor, T), value=value),
    }


def test_default_is_five_layers_a_hundred_steps():
    """Post 1 section 01: 'At five layers and a hundred steps the comparison is 500 against 5';
    the factor starts at the sigmoid's largest slope, 0.25."""
    view = driven(depth)
    assert readouts(view) == {"recurrent": "500", "attention": "5", "decay": "6.2e-61"}
    assert widgets(view)["Factor per step"].value == 0.25
    assert messages(view) == []


def test_the_figure_says_which_numbers_are_counts():
    view = view_of("depth")
    text = " ".join(str(p.object) for p in view.select(pn.pane.HTML))
    assert "Counts" in text and "Your number" in text
    assert "(count)" in text


@pytest.mark.parametrize("T", [1, depth.MAX_T])
@pytest.mark.parametrize("layers", [1, depth.MAX_LAYERS])
@pytest.mark.parametrize("factor", [0.01, 1.0])
def test_every_extreme(T, layers, factor):
    view = driven(depth)
    set_controls(view, T, layers, factor)
    assert readouts(view) == expected(T, layers, factor)
    underflow = decay(factor, T) == 0.0
    assert bool(messages(view)) == underflow


def test_underflow_is_explained_and_still_printed():
    """0.01 to the power 1,024 is 1e-2048: not a float64, so it is printed from its logarithm."""
    view = driven(depth)
    set_controls(view, depth.MAX_T, 5, 0.01)
    assert readouts(view)["decay"] == "1.0e-2048"
    assert "smallest float64" in messages(view)[0]
    set_controls(view, 100, 5, 0.25)
    assert messages(view) == []


@settings(max_examples=examples(60), deadline=None)
@given(**SLIDERS)
def test_random_settings_give_the_cores_numbers(T, layers, factor):
    view = driven(depth)
    set_controls(view, T, layers, factor)
    assert readouts(view) == expected(T, layers, factor)


def test_the_sliders_are_the_three_controls():
    assert set(widgets(view_of("depth"))) == set(CONTROLS)


# --- the formatting helper the figure adds to formatting/ --------------------------------


@pytest.mark.parametrize(("factor", "T"), [(0.25, 100), (0.5, 3), (0.99, 1), (1.0, 7), (0.3, 40)])
def test_power_of_ten_prints_what_magnitude_text_prints(factor, T):
    """Where float64 holds factor^T, both routes print the same digits (ties included)."""
    assert power_of_ten(log10_decay(factor, T), value=decay(factor, T)) == magnitude_text(factor**T)


def test_power_of_ten_beyond_float64():
    assert power_of_ten(-2048.0) == "1.0e-2048"
    assert power_of_ten(1024 * math.log10(0.25)) == "3.1e-617"
    assert power_of_ten(-3.0004) == "1.0e-3"  # 9.99e-4 rounds up: carried, not "10.0e-4"
    assert power_of_ten(5.0) == "1.0e+5"
    assert power_of_ten(-math.inf) == "−∞"


@pytest.mark.parametrize(
    ("T", "factor", "text"),
    [
        (1, 0.25, "0.2500"),  # printed 2.5e-1 before: an ordinary value reads as the prose's
        (1, 0.01, "0.0100"),
        (1, 1.0, "1.0000"),
        (depth.MAX_T, 1.0, "1.0000"),
        (3, 0.5, "0.1250"),
        (4, 0.25, "0.0039"),
        (5, 0.25, "9.8e-4"),  # below 0.001 four decimals would keep one digit
        (100, 0.25, "6.2e-61"),  # the default
        (depth.MAX_T, 0.01, "1.0e-2048"),
    ],
)
def test_factor_to_the_T_prints_plain_until_it_is_tiny(T, factor, text):
    assert depth.readouts(depth.State(T, 5, factor))[2][2] == text


def test_value_labels_stay_inside_the_plot_at_long_sequences():
    # At T = 1,024 a label right of its marker ran off the plot's edge.
    view = view_of("depth")
    widgets(view)["Sequence length T"].value = depth.MAX_T
    plots = [p.object for p in view.select(pn.pane.Bokeh)]
    found = {s for p in plots for s in p.select(ColumnDataSource) if "align" in s.data}
    sources = list(found)
    assert len(sources) == 2 and all(set(s.data["align"]) == {"right"} for s in sources)
    widgets(view)["Sequence length T"].value = 100
    assert all(set(s.data["align"]) == {"left"} for s in sources)


# --- the readouts and the message as functions of the sliders, without Panel ---------------


@settings(max_examples=examples(60), deadline=None)
@given(**SLIDERS)
def test_the_readouts_are_the_cores_numbers(T, layers, factor):
    shown = depth.readouts(depth.State(T, layers, factor))
    assert {key: text for key, _, text in shown} == expected(T, layers, factor)
    assert shown[2][1] == f"your factor ^ T: {num(factor, 2)}^{T}"


def test_the_message_speaks_only_of_an_underflow():
    assert depth.message(depth.State(100, 5, 0.25)) == ""
    assert depth.message(depth.State(depth.MAX_T, 5, 1.0)) == ""
    text = depth.message(depth.State(depth.MAX_T, 5, 0.01))
    assert text.startswith("0.01^1024 is below the smallest float64")


def test_the_view_shows_what_the_functions_say():
    view = driven(depth)
    set_controls(view, 700, 12, 0.37)
    state = depth.State(700, 12, 0.37)
    assert readouts(view) == {key: text for key, _, text in depth.readouts(state)}
    assert messages(view) == ([depth.message(state)] if depth.message(state) else [])
