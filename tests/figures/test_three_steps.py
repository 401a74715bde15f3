"""The three-steps figure in CPython: defaults, every control, bad input."""

import math

import numpy as np
import panel as pn
import pytest
from bokeh.models import TapTool
from hypothesis import given, settings
from hypothesis import strategies as st

from attention.basics import context, query_scores, softmax
from attention.fixtures import TOKENS, book_inputs
from figures import three_steps
from formatting import vec
from layoutkit.document import view_of
from tests.figures.probe import driven, messages, readouts, widgets
from tests.strategies import examples


def test_default_state_is_journey_from_the_book():
    """Post 1, section 03: 'the context vector is [0.4419, 0.6515, 0.5683]'."""
    shown = readouts(driven(three_steps))
    assert shown["scores"] == "[0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865]"
    assert shown["weights"] == "[0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581]"
    assert shown["context"] == "[0.4419, 0.6515, 0.5683]"


def test_every_query_gives_the_cores_numbers():
    view = driven(three_steps)
    X = book_inputs()
    for i, token in enumerate(TOKENS):
        widgets(view)["Query token"].value = token
        w = softmax(query_scores(X, i))
        assert readouts(view)["context"] == vec(context(w, X))


@settings(max_examples=examples(60), deadline=None)
@given(
    token=st.sampled_from(TOKENS),
    row=st.integers(0, 5),
    col=st.integers(0, 2),
    value=st.floats(-1e6, 1e6, allow_nan=False) | st.sampled_from([0.0, -1e308, 1e308, 1e-300]),
)
def test_any_edit_recomputes_or_explains(token, row, col, value):
    view = driven(three_steps)
    controls = widgets(view)
    controls["Query token"].value = token
    controls[f"{TOKENS[row]} {three_steps.DIMS[col]}"].value = value
    X = book_inputs()
    X[row, col] = value
    try:
        w = softmax(query_scores(X, TOKENS.index(token)))
        want = vec(context(w, X))
    except ValueError:
        assert messages(view), "an impossible state must be explained on the figure"
        return
    assert messages(view) == []
    assert readouts(view)["context"] == want


def test_recovers_after_an_overflow_and_an_empty_box():
    view = driven(three_steps)
    controls = widgets(view)
    box = controls["step x₁"]
    controls["Query token"].value = "step"
    box.value = 1e308
    assert "overflow" in messages(view)[0]
    box.value = None
    assert "needs a value" in messages(view)[0]
    box.value = 0.05
    controls["Query token"].value = "journey"
    assert messages(view) == []
    assert readouts(view)["context"] == "[0.4419, 0.6515, 0.5683]"
    assert np.isfinite(box.value)


def test_a_huge_or_infinite_number_is_explained_and_printed_short():
    view = driven(three_steps)
    box = widgets(view)["Your x₁"]
    box.value = 1e200  # finite: computed, and printed in scientific notation
    assert messages(view) == []
    assert all(len(v) < 80 for v in readouts(view).values())
    box.value = math.inf  # what the browser sends for 1e400
    (message,) = messages(view)
    assert "must be finite" in message and "1.8e308" in message
    box.value = 0.43
    assert readouts(view)["context"] == "[0.4419, 0.6515, 0.5683]"


def _plots(view):
    return [p.object for p in view.select(pn.pane.Bokeh)]


def test_the_three_panels_are_linked_through_one_source():
    """Tapping a token selects it in the shared source, so it lights up in all three panels."""
    plots = _plots(view_of("three-steps"))
    assert len(plots) == 3
    token_sources = {
        id(r.data_source) for p in plots for r in p.renderers if "label" in r.data_source.data
    }
    assert len(token_sources) == 1
    assert all(any(isinstance(t, TapTool) for t in p.tools) for p in plots)


@settings(max_examples=examples(30), deadline=None)
@given(
    token=st.sampled_from(TOKENS),
    row=st.integers(0, 5),
    col=st.integers(0, 2),
    value=st.floats(-50, 50, allow_nan=False),
)
def test_the_stacked_shares_add_up_to_the_context_vector(token, row, col, value):
    """Panel 3 stacks weight_j * x_j for every token; the stacks end at z, the readout."""
    view = driven(three_steps)
    controls = widgets(view)
    controls["Query token"].value = token
    controls[f"{TOKENS[row]} {three_steps.DIMS[col]}"].value = value
    X = book_inputs()
    X[row, col] = value
    w = softmax(query_scores(X, TOKENS.index(token)))
    z = context(w, X)
    data = view.shown["tokens"]["data"]  # what the three panels' shared source is given
    for k in range(3):
        parts = np.array(data[f"part{k}"])
        np.testing.assert_allclose(parts, w * X[:, k], rtol=0, atol=1e-12)
        top, bottom = np.array(data[f"top{k}"]), np.array(data[f"bottom{k}"])
        np.testing.assert_allclose(top - bottom, parts, atol=1e-12)
        ends = top.max(initial=0.0) + top.min(initial=0.0)  # positive stack end + negative one
        np.testing.assert_allclose(ends, z[k], atol=1e-12)
    edges = data["edge_width"]
    assert edges.index(max(edges)) == TOKENS.index(token)  # the query is outlined
    assert readouts(view)["context"] == vec(z)


# --- the readouts as a function of the controls, without Panel -----------------------------


def state_of(token: str, X) -> three_steps.State:
    return three_steps.State(token, tuple(tuple(row) for row in np.asarray(X).tolist()))


@settings(max_examples=examples(60), deadline=None)
@given(
    token=st.sampled_from(TOKENS),
    row=st.integers(0, 5),
    col=st.integers(0, 2),
    value=st.floats(-1e6, 1e6, allow_nan=False) | st.sampled_from([0.0, -1e308, 1e308]),
)
def test_the_readouts_are_the_cores_numbers_or_refused(token, row, col, value):
    X = book_inputs()
    X[row, col] = value
    state = state_of(token, X)
    try:
        w = softmax(query_scores(X, TOKENS.index(token)))
        want = [vec(query_scores(X, TOKENS.index(token))), vec(w), vec(context(w, X))]
    except ValueError as refused:
        with pytest.raises(ValueError) as also:
            three_steps.readouts(state)
        assert str(also.value) == str(refused)
        return
    shown = three_steps.readouts(state)
    assert [text for _, _, text in shown] == want
    assert [label for _, label, _ in shown] == [
        f"ω for {token}",
        "α = softmax(ω)",
        f"z for {token}",
    ]


@pytest.mark.parametrize(
    ("value", "words"),
    [(None, "needs a value"), (math.inf, "must be finite"), (math.nan, "finite")],
)
def test_an_empty_box_or_a_non_finite_number_is_refused(value, words):
    values = [list(row) for row in book_inputs().tolist()]
    values[2][1] = value
    with pytest.raises(ValueError, match=words):
        three_steps.inputs(three_steps.State("journey", tuple(map(tuple, values))))


def test_the_books_journey_row_without_panel():
    shown = dict(
        (key, text) for key, _, text in three_steps.readouts(state_of("journey", book_inputs()))
    )
    assert shown["context"] == "[0.4419, 0.6515, 0.5683]"
