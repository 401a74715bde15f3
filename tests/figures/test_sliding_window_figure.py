"""The sliding-window figure in CPython: its readouts are the core's counts, its grids the core's
masks, at the defaults, at the sliders' ends and at random states."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention.models import MISTRAL_7B
from attention.window import (
    causal_scores,
    composed_mask,
    full_scores,
    influencers,
    paper_span,
    reach,
    window_fraction,
    window_mask,
    window_scores,
)
from figures import sliding_window as fig
from formatting import integer, percent
from tests.figures.probe import driven, messages, readouts, widgets
from tests.strategies import examples

T_VALUES = st.integers(4, fig.MAX_T)
W_VALUES = st.integers(1, fig.MAX_T)
L_VALUES = st.integers(1, fig.MAX_LAYERS)


def shown(state: fig.State) -> dict[str, str]:
    """What the view should show for ``state``: the pure readouts, by key."""
    return {key: text for key, _, text in fig.readouts(state)}


def expected(T: int, W: int, L: int) -> dict[str, str]:
    """The core's numbers for a state, in the readout's digits."""
    return {
        "scores": integer(window_scores(T, W)),
        "causal": integer(causal_scores(T)),
        "full": integer(full_scores(T)),
        "fraction": percent(window_fraction(T, W)),
        "reach": integer(reach(W, L)),
        "influencers": f"{integer(influencers(T, W, L))} of {integer(T)}",
    }


def set_state(view, T: int, W: int, L: int) -> None:
    controls = widgets(view)
    controls["Tokens T"].value = T
    controls["Window W"].value = W
    controls["Layers L"].value = L


@pytest.mark.parametrize(
    "state",
    [
        fig.DEFAULT,
        fig.State(4, 1, 1),  # every slider at its start
        fig.State(fig.MAX_T, fig.MAX_T, fig.MAX_LAYERS),  # and at its end
        fig.State(fig.MAX_T, 1, fig.MAX_LAYERS),  # a window of one carries nothing
        fig.State(8, 40, 1),  # a window longer than the text: the causal triangle
    ],
)
def test_readouts_are_the_cores_numbers(state):
    rows = shown(state)
    for key, text in expected(*state).items():
        assert rows[key] == text


def test_the_defaults_read_as_the_core_counts_them():
    rows = shown(fig.DEFAULT)
    T, W, L = fig.DEFAULT
    assert rows["scores"] == integer(int(window_mask(T, W).sum()))
    assert rows["influencers"] == f"{integer(int(composed_mask(T, W, L)[-1].sum()))} of {T}"


def test_a_window_as_long_as_the_text_computes_the_whole_triangle():
    rows = shown(fig.State(8, 40, 1))
    assert rows["scores"] == rows["causal"]
    assert rows["fraction"] == percent(1.0)


def test_mistral_7b_from_attention_models():
    rows = shown(fig.DEFAULT)
    W, L, context = MISTRAL_7B.window, MISTRAL_7B.layers, MISTRAL_7B.context
    assert rows["mistral"] == f"{integer(W)}, {integer(L)}"
    assert rows["mistral-reach"] == integer(reach(W, L))
    assert rows["mistral-span"] == integer(paper_span(W, L))
    assert rows["mistral-fraction"] == percent(window_fraction(context, W))


@settings(max_examples=examples(40), deadline=None)
@given(T=T_VALUES, W=W_VALUES, L=L_VALUES)
def test_the_grids_are_the_cores_masks(T, W, L):
    cells = fig.cells(fig.State(T, W, L))
    i, j = cells["y"] - 1, cells["x"] - 1  # the grids count from 1, numpy from 0
    assert i.min() == j.min() == 0 and i.max() == T - 1
    assert len(i) == causal_scores(T)  # the causal triangle, each cell once
    assert np.array_equal(cells["band"] == 1.0, window_mask(T, W)[i, j])
    assert int(cells["band"].sum()) == window_scores(T, W)
    assert np.array_equal(np.isfinite(cells["shade"]), composed_mask(T, W, L)[i, j])


def test_the_log_plot_draws_the_cores_counts():
    lines = fig.cost_lines(fig.DEFAULT)
    assert lines["window"] == [window_scores(n, fig.DEFAULT.W) for n in fig.LENGTHS]
    assert lines["causal"] == [causal_scores(n) for n in fig.LENGTHS]
    assert lines["full"] == [full_scores(n) for n in fig.LENGTHS]


def test_the_view_shows_its_readouts_at_the_defaults():
    view = driven(fig)
    assert readouts(view) == shown(fig.DEFAULT)
    assert messages(view) == []


@settings(max_examples=examples(30), deadline=None)
@given(T=T_VALUES, W=W_VALUES, L=L_VALUES)
def test_the_view_shows_its_readouts_for_any_slider_values(T, W, L):
    view = driven(fig)
    set_state(view, T, W, L)
    assert readouts(view) == shown(fig.State(T, W, L))
    assert messages(view) == []


def test_a_state_the_core_refuses_shows_a_message_and_keeps_the_last_drawing():
    with pytest.raises(ValueError, match="W"):
        fig.readouts(fig.State(8, 0, 1))
    view = driven(fig)
    before = readouts(view)
    widgets(view)["Window W"].value = 0  # no slider goes there; a stale link might
    assert messages(view) == ["W (the window) must be at least 1, got 0"]
    assert readouts(view) == before
    widgets(view)["Window W"].value = 5
    assert messages(view) == []
    assert readouts(view) == shown(fig.State(fig.DEFAULT.T, 5, fig.DEFAULT.L))
