"""The masking figure in CPython: both routes stepped, the wrong mask, the typed row."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from attention.basics import softmax
from attention.fixtures import book_inputs
from attention.masking import efficient_stages, naive_stages, zero_mask_stages
from attention.projections import mode_scores
from attention.torch_rng import weights_section_3_5
from figures import masking
from formatting import vec
from tests.figures.probe import driven, messages, readouts, widgets
from tests.strategies import examples

X = book_inputs()
W_QUERY, W_KEY, _ = weights_section_3_5()
SCORES = mode_scores(X, "separate", W_QUERY, W_KEY)


def test_default_shows_the_books_rows_and_the_counterexample():
    # Section 03: "Row 1 collapses to 1.0000 ..., row 2 is [0.5517, 0.4483] and row 3 is
    # [0.3800, 0.3097, 0.3103]"; "softmax([1.0, 2.0, 3.0, 0.0, 0.0]) is [0.0844, 0.2295, 0.6239,
    # 0.0311, 0.0311]"; the largest disagreement is float64 noise (5.6e-17 in the post).
    view = driven(masking)
    shown = readouts(view)
    assert shown["row-1"].startswith("[1.0000, 0.0000")
    assert shown["row-2"].startswith("[0.5517, 0.4483, 0.0000")
    assert shown["row-3"].startswith("[0.3800, 0.3097, 0.3103, 0.0000")
    assert shown["counterexample"] == "[0.0844, 0.2295, 0.6239, 0.0311, 0.0311]"
    assert float(shown["max-difference"]) <= 4.5e-16
    assert shown["leak"] == "0.0000"
    assert messages(view) == []


def test_the_zero_mask_leaks_0_8029():
    # Section 03: "switch the mask to zero, and the first token hands 0.8029 of its attention to
    # five tokens it is not allowed to see".
    view = driven(masking)
    widgets(view)["Future scores set to"].value = "zero"
    assert readouts(view)["leak"] == "0.8029"
    assert float(readouts(view)["max-difference"]) > 0.5
    widgets(view)["Future scores set to"].value = "-inf"
    assert readouts(view)["leak"] == "0.0000"


@settings(max_examples=examples(30), deadline=None)
@given(step=st.integers(1, 5), fill=st.sampled_from(list(masking.FILLS.values())))
def test_every_step_names_the_cores_stage(step, fill):
    view = driven(masking)
    controls = widgets(view)
    controls["Step"].value = step
    controls["Future scores set to"].value = fill
    route = efficient_stages(SCORES, 2) if fill == "-inf" else zero_mask_stages(SCORES, 2)
    shown = readouts(view)
    assert shown["naive-stage"] == naive_stages(SCORES, 2)[step - 1][0]
    assert shown["efficient-stage"] == route[min(step, len(route)) - 1][0]
    assert shown["row-1"] == vec(route[-1][1][0])


@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(
        st.floats(-1e6, 1e6, allow_nan=False) | st.sampled_from([0.0, -1e308, 1e308]),
        min_size=1,
        max_size=12,
    )
)
def test_any_typed_row_is_softmaxed(row):
    view = driven(masking)
    widgets(view)["Scores to softmax"].value = ", ".join(repr(x) for x in row)
    with np.errstate(over="ignore"):
        expected = vec(softmax(np.array(row)))
    assert readouts(view)["counterexample"] == expected
    assert messages(view) == []


def test_bad_rows_are_explained_and_recovered_from():
    view = driven(masking)
    box = widgets(view)["Scores to softmax"]
    default = box.value  # a bad row leaves the figure at the last good one
    for text, words in [
        ("", "Type a few scores"),
        ("1, two, 3", "'two' is not a number"),
        ("inf, 1", "NaN or +inf"),
        ("nan", "NaN or +inf"),
        ("-inf, -inf", "entirely -inf"),
        (", ".join(["1"] * 13), "At most 12"),
    ]:
        box.value = text
        assert any(words in m for m in messages(view)), text
        assert readouts(view)["counterexample"] == vec(softmax(masking.parse_scores(default)))
    box.value = "−1, 0 ; 1"  # a typographic minus and mixed separators are fine
    assert messages(view) == []
    assert readouts(view)["counterexample"] == vec(softmax(np.array([-1.0, 0.0, 1.0])))


def test_the_weight_set_is_section_3_5():
    assert "seed 789" in masking.WEIGHT_SET and "section 3.5" in masking.WEIGHT_SET


def _rows(state: masking.State) -> dict[str, str]:
    return {key: value for key, _, value in masking.readouts(state)}


@given(step=st.integers(1, 5), fill=st.sampled_from(list(masking.FILLS.values())))
def test_readouts_are_functions_of_the_state_alone(step, fill):
    # No Panel: each state names the core's stages; a bad typed row empties only its own row.
    state = masking.State(step, fill, "1, x")
    route = efficient_stages(SCORES, 2) if fill == "-inf" else zero_mask_stages(SCORES, 2)
    shown = _rows(state)
    assert shown["naive-stage"] == naive_stages(SCORES, 2)[step - 1][0]
    assert shown["efficient-stage"] == route[min(step, len(route)) - 1][0]
    assert shown["row-1"] == vec(route[-1][1][0])
    assert shown["counterexample"] == "—"
    assert masking.message(state).startswith("Your row of scores: 'x' is not a number")
    assert masking.titles(state)[1].endswith(" (done)") == (step >= len(route))


def test_the_default_row_is_softmaxed_without_a_message():
    state = masking.DEFAULT
    assert _rows(state)["counterexample"] == vec(softmax(masking.parse_scores(state.row_text)))
    assert masking.message(state) == ""
    assert masking.N_STEPS == len(naive_stages(SCORES, 2))


def test_the_figure_starts_at_the_first_step_of_both_routes():
    """The caption says to step both routes to the end: they start at their first stage."""
    assert masking.DEFAULT.step == 1
    view = driven(masking)
    assert widgets(view)["Step"].value == 1
    assert readouts(view)["naive-stage"] == naive_stages(SCORES, 2)[0][0]
    assert not masking.titles(masking.DEFAULT)[1].endswith(" (done)")
