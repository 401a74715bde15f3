"""projections: Q, K, V, scaled scores, and the three modes of post 2's section 01."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import projections as pj
from attention.basics import softmax, symmetry_error
from attention.fixtures import TOKENS, book_inputs
from attention.torch_rng import weights_section_3_4, weights_section_3_5
from tests.attention.torch_reference import SelfAttention_v1, SelfAttention_v2, run, set_qkv, tensor
from tests.strategies import arrays_DO, arrays_TD, arrays_TT, examples, ndarrays_of_shape

X = book_inputs()
JOURNEY, STARTS = TOKENS.index("journey"), TOKENS.index("starts")


# --- shapes and the plain computation -------------------------------------------------------


def test_shapes_of_section_01():
    # Section 01: W (3, 2), so Q, K, V (6, 2), Omega and A (6, 6), Z (6, 2).
    W_query, W_key, W_value = weights_section_3_4()
    Q, K, V = pj.qkv(X, W_query, W_key, W_value)
    assert Q.shape == K.shape == V.shape == (6, 2)
    scores, weights, context = pj.self_attention(X, W_query, W_key, W_value)
    assert scores.shape == weights.shape == (6, 6)
    assert context.shape == (6, 2)


def test_self_attention_is_the_formula():
    W_query, W_key, W_value = weights_section_3_5()
    scores, weights, context = pj.self_attention(X, W_query, W_key, W_value)
    Q, K, V = X @ W_query, X @ W_key, X @ W_value
    assert np.allclose(scores, Q @ K.T, rtol=0, atol=1e-15)
    assert np.allclose(weights, softmax(Q @ K.T / np.sqrt(2)), rtol=0, atol=1e-15)
    assert np.allclose(context, weights @ V, rtol=0, atol=1e-15)
    assert np.allclose(weights.sum(axis=1), 1.0)
    assert np.allclose(pj.scaled_scores(Q, K), scores / np.sqrt(2), rtol=0, atol=1e-15)


def test_scaled_scores_divides_by_the_key_width():
    Q = np.ones((2, 16))
    assert np.allclose(pj.scaled_scores(Q, Q), 16 / 4)
    batched = pj.scaled_scores(np.ones((3, 2, 4, 9)), np.ones((3, 2, 5, 9)))
    assert batched.shape == (3, 2, 4, 5) and np.allclose(batched, 3.0)


def test_project_accepts_a_batch_axis():
    W = weights_section_3_5()[0]
    batch = np.stack([X, 2 * X])
    out = pj.project(batch, W)
    assert out.shape == (2, 6, 2)
    assert np.allclose(out[1], 2 * (X @ W))


# --- PyTorch oracle ---------------------------------------------------------------------------


def test_v1_on_the_book_seed_matches_torch():
    # Section 3.4 constructs SelfAttention_v1(3, 2) right after torch.manual_seed(123).
    torch.manual_seed(123)
    module = SelfAttention_v1(3, 2).double()
    _, _, context = pj.self_attention(X, *weights_section_3_4())
    assert np.allclose(context, run(module, X), rtol=0, atol=1e-14)


def test_v2_on_the_book_seed_matches_torch():
    # Section 3.5 runs on sa_v2 = SelfAttention_v2(3, 2) after torch.manual_seed(789).
    torch.manual_seed(789)
    module = SelfAttention_v2(3, 2).double()
    _, _, context = pj.self_attention(X, *weights_section_3_5())
    assert np.allclose(context, run(module, X), rtol=0, atol=1e-14)


@st.composite
def inputs_and_weights(draw):
    X = draw(arrays_TD())
    d_in = X.shape[1]
    W_query = draw(arrays_DO(min_d=d_in, max_d=d_in))
    d_out = W_query.shape[1]
    W_key = draw(ndarrays_of_shape((d_in, d_out), -1.0, 1.0))
    W_value = draw(arrays_DO(min_d=d_in, max_d=d_in))
    return X, W_query, W_key, W_value


@settings(max_examples=examples(40), deadline=None)
@given(inputs_and_weights())
def test_v1_and_v2_match_torch_on_random_inputs(case):
    X, W_query, W_key, W_value = case
    d_in, d_out = W_query.shape
    _, _, context = pj.self_attention(X, W_query, W_key, W_value)
    v1 = SelfAttention_v1(d_in, d_out)
    v1.W_query, v1.W_key, v1.W_value = (
        torch.nn.Parameter(tensor(W)) for W in (W_query, W_key, W_value)
    )
    v2 = SelfAttention_v2(d_in, d_out)
    v2.W_value = torch.nn.Linear(d_in, W_value.shape[1], bias=False)  # d_v may differ from d_k
    set_qkv(v2.double(), W_query, W_key, W_value)
    assert np.allclose(context, run(v1, X), rtol=1e-12, atol=1e-12)
    assert np.allclose(context, run(v2, X), rtol=1e-12, atol=1e-12)


# --- the three modes (post 2, section 01) -----------------------------------------------------


def test_rows_of_xxt_sum_as_printed():
    # Section 01: "the rows of XX^T sum to 4.4600, 6.5617, 6.4801, 3.6459, 3.1863 and 4.6730".
    W_query, W_key, _ = weights_section_3_4()
    sums = pj.score_row_sums(pj.mode_scores(X, "none", W_query, W_key))
    assert np.round(sums, 4).tolist() == [4.46, 6.5617, 6.4801, 3.6459, 3.1863, 4.673]


@given(st.integers(2, 6), st.integers(0, 2**32 - 1), st.integers(1, 8))
def test_symmetric_scores_give_weights_in_the_ratio_of_the_denominators(T, seed, d_k):
    # Post 2, section 01: with symmetric scores a_ij / a_ji = D_j / D_i, so rows with different
    # softmax denominators cannot give symmetric weights.
    M = np.random.default_rng(seed).normal(size=(T, 3))
    scores = M @ M.T
    weights = softmax(scores / np.sqrt(d_k))
    D = pj.softmax_denominators(scores, d_k)
    assert np.allclose(weights * D[:, None], np.exp(scores / np.sqrt(d_k)), rtol=1e-12)
    assert np.allclose(weights / weights.T, D[None, :] / D[:, None], rtol=1e-12)


def test_a_denominator_that_overflows_is_refused():
    with pytest.raises(ValueError, match="denominator overflowed"):
        pj.softmax_denominators(np.array([[800.0, 0.0], [0.0, 1.0]]), 1)


def test_no_matrices_gives_symmetric_scores_but_not_symmetric_weights():
    # Section 01: "With no matrices the score error is exactly 0" and "a perfectly symmetric
    # score matrix still gives a weight error of 0.0634: journey gives starts 0.2134 and gets
    # back 0.2157". The divisor is sqrt(d_out) = sqrt(2) (the note's convention).
    W_query, W_key, _ = weights_section_3_4()
    assert symmetry_error(pj.mode_scores(X, "none", W_query, W_key)) == 0.0
    weights = pj.mode_weights(X, "none", W_query, W_key)
    assert round(symmetry_error(weights), 4) == 0.0634
    assert round(weights[JOURNEY, STARTS], 4) == 0.2134
    assert round(weights[STARTS, JOURNEY], 4) == 0.2157
    # the note: the maximum itself sits at the journey/one pair
    i, j = np.unravel_index(np.argmax(np.abs(weights - weights.T)), weights.shape)
    assert {TOKENS[i], TOKENS[j]} == {"journey", "one"}


@pytest.mark.parametrize("weights_of", [weights_section_3_4, weights_section_3_5])
def test_tied_is_a_gram_matrix_again(weights_of):
    # Section 01: "Tie W_q to W_k and it walks straight back to 0".
    W_query, W_key, _ = weights_of()
    scores = pj.mode_scores(X, "tied", W_query, W_key)
    assert round(symmetry_error(scores), 4) == 0.0
    Q = X @ W_query
    assert np.allclose(scores, Q @ Q.T, rtol=0, atol=1e-15)


@pytest.mark.parametrize("weights_of", [weights_section_3_4, weights_section_3_5])
def test_only_separate_matrices_break_the_symmetry(weights_of):
    # Section 01: "Only two genuinely different matrices break it".
    W_query, W_key, _ = weights_of()
    assert symmetry_error(pj.mode_scores(X, "separate", W_query, W_key)) > 1e-3
    # "The attention weights are never symmetric, in any mode."
    for mode in pj.MODES:
        assert symmetry_error(pj.mode_weights(X, mode, W_query, W_key)) > 1e-3


@settings(max_examples=examples(50), deadline=None)
@given(inputs_and_weights())
def test_tied_and_none_are_symmetric_for_any_input(case):
    X, W_query, W_key, _ = case
    for mode in ("none", "tied"):
        scores = pj.mode_scores(X, mode, W_query, W_key)
        scale = max(1.0, float(np.max(np.abs(scores))))
        assert symmetry_error(scores) <= 1e-13 * scale


def test_separate_mode_is_the_self_attention_scores():
    W_query, W_key, W_value = weights_section_3_5()
    scores, weights, _ = pj.self_attention(X, W_query, W_key, W_value)
    assert np.array_equal(pj.mode_scores(X, "separate", W_query, W_key), scores)
    assert np.allclose(pj.mode_weights(X, "separate", W_query, W_key), weights, atol=1e-16)


# --- bad input ---------------------------------------------------------------------------------


def test_bad_input_raises():
    W = np.ones((3, 2))
    with pytest.raises(ValueError, match="mode"):
        pj.mode_scores(X, "shared", W, W)
    with pytest.raises(ValueError, match="features"):
        pj.project(X, np.ones((2, 2)))
    with pytest.raises(ValueError, match="NaN"):
        pj.project(np.full((2, 3), np.nan), W)
    with pytest.raises(ValueError, match="width d_k"):
        pj.qkv(X, W, np.ones((3, 4)), W)
    with pytest.raises(ValueError, match="width d_k"):
        pj.scaled_scores(np.ones((2, 3)), np.ones((2, 4)))
    with pytest.raises(ValueError, match="empty"):
        pj.project(np.ones((0, 3)), W)
    with pytest.raises(ValueError, match="overflowed"):
        pj.self_attention(np.full((2, 3), 1e200), W, W, W)


# --- asymmetry, for the three-modes figure -----------------------------------------------------


def test_most_asymmetric_weight_pair_is_journey_and_one():
    # The note: with no matrices the 0.0634 maximum sits at the journey/one pair.
    W_query, W_key, _ = weights_section_3_4()
    weights = pj.mode_weights(X, "none", W_query, W_key)
    i, j = pj.most_asymmetric_pair(weights)
    assert (TOKENS[i], TOKENS[j]) == ("journey", "one")
    assert abs(pj.asymmetry(weights)[i, j]) == symmetry_error(weights)


@settings(max_examples=examples(50), deadline=None)
@given(arrays_TT(min_T=1, max_T=7))
def test_asymmetry_is_antisymmetric_and_its_peak_is_the_symmetry_error(M):
    gap = pj.asymmetry(M)
    assert np.array_equal(gap, -gap.T)
    i, j = pj.most_asymmetric_pair(M)
    assert i <= j
    assert abs(gap[i, j]) == symmetry_error(M)


def test_asymmetry_refuses_a_non_square_matrix():
    with pytest.raises(ValueError, match="square"):
        pj.asymmetry(np.ones((2, 3)))
    assert pj.most_asymmetric_pair(np.ones((1, 1))) == (0, 0)
