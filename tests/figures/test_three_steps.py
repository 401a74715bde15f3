"""The three-steps figure in CPython: defaults, every control, bad input."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from attention.basics import context, query_scores, softmax
from attention.fixtures import TOKENS, book_inputs
from figures import three_steps
from figures.fmt import vec
from tests.figures.probe import messages, readouts, widgets


def test_default_state_is_journey_from_the_book():
    """Post 1, section 03: 'the context vector is [0.4419, 0.6515, 0.5683]'."""
    shown = readouts(three_steps.view())
    assert shown["scores"] == "[0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865]"
    assert shown["weights"] == "[0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581]"
    assert shown["context"] == "[0.4419, 0.6515, 0.5683]"


def test_every_query_gives_the_cores_numbers():
    view = three_steps.view()
    X = book_inputs()
    for i, token in enumerate(TOKENS):
        widgets(view)["Query token"].value = token
        w = softmax(query_scores(X, i))
        assert readouts(view)["context"] == vec(context(w, X))


@settings(max_examples=60, deadline=None)
@given(
    token=st.sampled_from(TOKENS),
    row=st.integers(0, 5),
    col=st.integers(0, 2),
    value=st.floats(-1e6, 1e6, allow_nan=False) | st.sampled_from([0.0, -1e308, 1e308, 1e-300]),
)
def test_any_edit_recomputes_or_explains(token, row, col, value):
    view = three_steps.view()
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
    view = three_steps.view()
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
