"""The loop-against-matmul figure in CPython: every step, both switch states, the counts."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention.basics import (
    filled_difference,
    loop_scores,
    loop_scores_steps,
    matmul_scores,
)
from attention.fixtures import TOKENS, book_inputs
from figures import loop_matmul
from formatting import num, sci
from tests.figures.probe import driven, messages, readouts, widgets
from tests.strategies import examples

STEP, MATMUL = "Loop steps done", "Matmul: all at once"


def grids(view) -> list[dict]:
    """The two heatmaps' sources: loop first, matmul second."""
    return [view.shown[handle]["data"] for handle in ("loop", "matmul")]


def set_controls(view, k: int, on: bool) -> None:
    controls = widgets(view)
    controls[STEP].value = k
    controls[MATMUL].value = on


def test_counts_and_symmetry():
    """Post 1 section 05: 'the same 108 multiplications', 'the largest difference between
    omega_ij and omega_ji anywhere is 0', 'the largest gap between alpha_ij and alpha_ji is
    0.087657', 'one layer's score matrix alone is 805,306,368 multiply-accumulates'."""
    shown = readouts(driven(loop_matmul))
    assert shown["count"] == "6² × 3 = 108 (36 dot products)"
    assert shown["score_symmetry"] == "0.000000"
    assert shown["weight_symmetry"] == "0.087657"
    assert shown["gpt2"] == "1,024² × 768 = 805,306,368"


def test_default_shows_a_dot_product_forming():
    """Step 8 is journey against itself: 0.55×0.55 + 0.87×0.87 + 0.66×0.66 = 1.4950."""
    view = driven(loop_matmul)
    shown = readouts(view)
    assert shown["step"] == "8 of 36"
    assert shown["dot"].startswith("ω[journey, journey] = 0.55×0.55 + 0.87×0.87 + 0.66×0.66")
    assert shown["dot"].endswith("= 1.4950")
    assert messages(view) == []


@pytest.mark.parametrize("k", [0, 1, 35, 36])
@pytest.mark.parametrize("on", [False, True])
def test_extremes(k, on):
    view = driven(loop_matmul)
    set_controls(view, k, on)
    X = book_inputs()
    loop_grid, mat_grid = grids(view)
    filled = loop_scores(X, k)
    np.testing.assert_array_equal(np.isnan(loop_grid["value"]), np.isnan(filled.ravel()))
    assert sum(t != "" for t in loop_grid["text"]) == k
    assert sum(t != "" for t in mat_grid["text"]) == (36 if on else 0)
    shown = readouts(view)
    assert shown["step"] == f"{k} of 36"
    if k and on:
        assert shown["agree"] == f"{k} of {k} filled cells"
        assert shown["gap"].startswith(sci(filled_difference(filled, matmul_scores(X))))
    assert messages(view) == []


@settings(max_examples=examples(40), deadline=None)
@given(k=st.integers(0, 36), on=st.booleans())
def test_each_step_shows_its_cell(k, on):
    view = driven(loop_matmul)
    set_controls(view, k, on)
    shown = readouts(view)
    loop_grid, _ = grids(view)
    if k == 0:
        assert shown["dot"].startswith("nothing yet")
        assert 3.0 not in loop_grid["edge_width"]
    else:
        i, j, _, value = loop_scores_steps(book_inputs())[k - 1]
        assert shown["dot"].startswith(f"ω[{TOKENS[i]}, {TOKENS[j]}]")
        assert shown["dot"].endswith(f"= {num(value)}")
        assert loop_grid["edge_width"].index(3.0) == k - 1  # the cell just filled is outlined


def test_full_loop_and_matmul_agree_to_every_printed_digit():
    """'The two grids agree ...': equal at the printed precision, within float64 rounding."""
    view = driven(loop_matmul)
    set_controls(view, 36, True)
    loop_grid, mat_grid = grids(view)
    assert loop_grid["text"] == mat_grid["text"]
    assert readouts(view)["agree"] == "36 of 36 filled cells"
    assert filled_difference(loop_scores(book_inputs()), matmul_scores(book_inputs())) < 1e-15


# --- the readouts as a function of the controls, without Panel -----------------------------


def shown(k: int, on: bool) -> dict[str, str]:
    return {key: text for key, _, text in loop_matmul.readouts(loop_matmul.State(k, on))}


@settings(max_examples=examples(40), deadline=None)
@given(k=st.integers(0, 36), on=st.booleans())
def test_the_readouts_follow_the_loop_and_the_switch(k, on):
    X = book_inputs()
    texts = shown(k, on)
    assert texts["step"] == f"{k} of 36"
    if k:
        i, j, _, value = loop_scores_steps(X)[k - 1]
        assert texts["dot"].startswith(f"ω[{TOKENS[i]}, {TOKENS[j]}] = ")
        assert texts["dot"].endswith(f"= {num(value)}")
    else:
        assert texts["dot"] == "nothing yet: move the slider"
    if k and on:
        gap = filled_difference(loop_scores(X, k), matmul_scores(X))
        assert texts["gap"] == sci(gap)
        assert texts["agree"] == f"{k} of {k} filled cells"
    else:
        expected = "switch on matmul to compare" if k else "no loop cells yet"
        assert texts["agree"] == texts["gap"] == expected
    assert texts["count"] == "6² × 3 = 108 (36 dot products)"


def test_the_view_shows_what_the_function_says():
    view = driven(loop_matmul)
    set_controls(view, 17, True)
    assert readouts(view) == shown(17, True)
