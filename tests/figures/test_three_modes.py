"""The three-modes figure in CPython: the post's readouts, every mode and token pair."""

from hypothesis import given, settings
from hypothesis import strategies as st

from attention.basics import symmetry_error
from attention.fixtures import TOKENS, book_inputs
from attention.projections import MODES, mode_scores, mode_weights
from attention.torch_rng import weights_section_3_4
from figures import three_modes
from formatting import error_text, num
from layoutkit.document import view_of
from tests.figures.probe import driven, messages, readouts, widgets
from tests.strategies import examples

X = book_inputs()
W_QUERY, W_KEY, _ = weights_section_3_4()


def test_default_is_no_matrices_with_the_posts_numbers():
    # Post 2, section 01: "a perfectly symmetric score matrix still gives a weight error of
    # 0.0634: journey gives starts 0.2134 and gets back 0.2157", in the inverse ratio of the two
    # rows' softmax denominators.
    shown = readouts(driven(three_modes))
    assert shown["score-error"] == "0 (exact)"
    assert shown["weight-error"] == "0.0634"
    assert shown["a-to-b"] == "0.2134"
    assert shown["b-to-a"] == "0.2157"
    assert shown["largest-pair"] == "journey ↔ one"
    D = [float(d) for d in shown["denominators"].strip("[]").split(", ")]
    journey, starts = TOKENS.index("journey"), TOKENS.index("starts")
    assert abs(0.2134 / 0.2157 - D[starts] / D[journey]) < 1e-3


def test_score_error_is_zero_zero_nonzero():
    # Section 01: the score error is 0 with no matrices, 0 with W_q tied to W_k, and only two
    # different matrices make it non-zero.
    view = driven(three_modes)
    errors = {}
    for label, mode in three_modes.MODES.items():
        widgets(view)["Mode"].value = mode
        errors[mode] = readouts(view)["score-error"]
        assert error_text(symmetry_error(mode_scores(X, mode, W_QUERY, W_KEY))) == errors[mode], (
            label
        )
    assert errors["none"] == errors["tied"] == "0 (exact)"
    assert float(errors["separate"]) > 0.0


@settings(max_examples=examples(40), deadline=None)
@given(mode=st.sampled_from(MODES), a=st.sampled_from(TOKENS), b=st.sampled_from(TOKENS))
def test_any_state_shows_the_cores_weights(mode, a, b):
    view = driven(three_modes)
    controls = widgets(view)
    controls["Mode"].value = mode
    controls["From token"].value = a
    controls["To token"].value = b
    weights = mode_weights(X, mode, W_QUERY, W_KEY)
    i, j = TOKENS.index(a), TOKENS.index(b)
    shown = readouts(view)
    assert shown["a-to-b"] == num(weights[i, j])
    assert shown["b-to-a"] == num(weights[j, i])
    assert shown["weight-error"] == error_text(symmetry_error(weights))
    assert bool(messages(view)) == (a == b)  # the same token twice is explained, not an error


def test_every_mode_is_labelled_and_the_weight_set_is_stated():
    view = view_of("three-modes")
    assert set(widgets(view)["Mode"].options) == set(three_modes.MODES)
    assert "seed 123" in three_modes.WEIGHT_SET and "section 3.4" in three_modes.WEIGHT_SET


@given(mode=st.sampled_from(MODES), first=st.sampled_from(TOKENS), second=st.sampled_from(TOKENS))
def test_readouts_and_message_are_functions_of_the_state_alone(mode, first, second):
    # No Panel: the state's readout is the core's grids, formatted; the message only for a pair
    # that is one token twice.
    state = three_modes.State(mode, first, second)
    shown = {key: value for key, _, value in three_modes.readouts(state)}
    weights = mode_weights(X, mode, W_QUERY, W_KEY)
    a, b = TOKENS.index(first), TOKENS.index(second)
    assert shown["score-error"] == error_text(symmetry_error(mode_scores(X, mode, W_QUERY, W_KEY)))
    assert shown["a-to-b"] == num(weights[a, b])
    assert shown["b-to-a"] == num(weights[b, a])
    assert bool(three_modes.message(state)) == (first == second)
