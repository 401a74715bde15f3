"""The flat-weights figure in CPython: softmax against a flat average, both ways and back."""

import numpy as np
import panel as pn
from hypothesis import given, settings
from hypothesis import strategies as st

from attention.analysis import (
    context_shift,
    dynamic_range,
    entropy_bits,
    max_entropy_bits,
    mean_pairwise_distance,
    nearest_input,
    spread_ratio,
)
from attention.basics import attend, context
from attention.fixtures import TOKENS, book_inputs
from figures import flat_weights as figure
from formatting import num, percent, vec
from layoutkit.document import view_of
from tests.figures.probe import driven, messages, readouts, widgets
from tests.strategies import examples


def expected(weights: np.ndarray) -> dict:
    X = book_inputs()
    Z = context(weights, X)
    shift = context_shift(weights, X)
    return {
        "shift": vec(shift, 3),
        "max_shift": num(shift.max(), 3),
        "spread_inputs": num(mean_pairwise_distance(X)),
        "spread_context": num(mean_pairwise_distance(Z)),
        "ratio": percent(spread_ratio(Z, X)),
        "nearest": ", ".join(TOKENS[j] for j in nearest_input(Z, X)),
        "entropy": vec(entropy_bits(weights), 3),
        "ceiling": num(max_entropy_bits(6), 3),
        "range": num(dynamic_range(weights), 3),
    }


def test_softmax_state_is_section_06():
    """Post 1 section 06: 'no context vector moves more than 0.080', 'The six input embeddings
    sit 0.6576 apart on average. The six context vectors sit 0.0482 apart, 7.3% of the spread',
    'all six of them closest to the same input embedding, starts', 'The six rows here cost
    2.549, 2.519, 2.521, 2.560, 2.564 and 2.534 bits', 'log2 6 = 2.585', 'a factor of 2.408'."""
    view = driven(figure)
    shown = readouts(view)
    assert shown == expected(attend(book_inputs())[1])
    assert shown["max_shift"] == "0.080"
    assert (shown["spread_inputs"], shown["spread_context"], shown["ratio"]) == (
        "0.6576",
        "0.0482",
        "7.3%",
    )
    assert shown["nearest"] == ", ".join(["starts"] * 6)
    assert shown["entropy"] == "[2.549, 2.519, 2.521, 2.560, 2.564, 2.534]"
    assert shown["ceiling"] == "2.585"
    assert shown["range"] == "2.408"
    assert messages(view) == []


def test_flat_state_collapses_to_the_mean():
    view = view_of("flat-weights")
    switch = widgets(view)["Weights"]
    switch.value = switch.options[figure.FLAT]
    shown = readouts(view)
    assert shown == expected(figure.flat_weights(6))
    assert shown["max_shift"] == "0.000" and shown["ratio"] == "0.0%"
    assert shown["entropy"] == vec([max_entropy_bits(6)] * 6, 3)
    assert shown["range"] == "1.000"
    diamonds = view.select(pn.pane.Bokeh)[0].object.renderers[2].data_source.data
    np.testing.assert_allclose(diamonds["x"], diamonds["cx"], atol=1e-15)  # all on the mean


@settings(max_examples=examples(20), deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=6))
def test_switching_back_and_forth(flips):
    view = driven(figure)
    switch = widgets(view)["Weights"]
    for flat in flips:
        switch.value = switch.control.values[int(flat)]
    weights = figure.flat_weights(6) if flips[-1] else attend(book_inputs())[1]
    assert readouts(view) == expected(weights)
    assert messages(view) == []


def test_a_label_moves_left_of_its_point_when_a_neighbour_crowds_its_right():
    # starts and journey sit 0.03 apart in the plane: their labels ran into each other.
    P = np.array([[0.19, -0.07], [0.22, -0.06], [-0.6, -0.25]])
    dx, align = figure._label_sides(P, near=0.1)
    assert align == ["right", "left", "left"] and dx == [-7.0, 7.0, 7.0]


# --- the readouts as a function of the switch, without Panel -------------------------------


def test_the_readouts_are_the_cores_numbers_for_both_settings():
    softmax_state, flat_state = figure.State(flat=False), figure.State(flat=True)
    np.testing.assert_array_equal(figure.weights(softmax_state), attend(book_inputs())[1])
    np.testing.assert_array_equal(figure.weights(flat_state), np.full((6, 6), 1 / 6))
    for state in (softmax_state, flat_state):
        shown = {key: text for key, _, text in figure.readouts(state)}
        assert shown == expected(figure.weights(state))
    flat = {key: text for key, _, text in figure.readouts(flat_state)}
    assert (flat["max_shift"], flat["ratio"], flat["range"]) == ("0.000", "0.0%", "1.000")


def test_the_view_shows_what_the_function_says():
    view = driven(figure)
    switch = widgets(view)["Weights"]
    switch.value = switch.control.options[figure.FLAT]
    assert readouts(view) == {key: text for key, _, text in figure.readouts(figure.State(True))}
