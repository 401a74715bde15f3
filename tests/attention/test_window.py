"""window: sliding-window attention (post 3), with PyTorch's scaled_dot_product_attention as the
oracle, and the reach after L layers proved against composed masks."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import window as sw
from attention.basics import score_dot_products
from attention.cost import score_matrix_bytes
from attention.fixtures import book_inputs
from attention.masking import causal_mask, masked_before_softmax
from attention.models import MISTRAL_7B
from attention.projections import qkv
from attention.torch_rng import weights_section_3_5
from tests.attention.torch_reference import CausalAttention, run, set_qkv, tensor
from tests.strategies import arrays_DO, arrays_TD, examples

X = book_inputs()
W_QUERY, W_KEY, W_VALUE = weights_section_3_5()

sizes = st.integers(1, 24)


def torch_band_mask(T: int, W: int) -> torch.Tensor:
    """The band written independently, in torch: tril, then the diagonals below -W cut off."""
    ones = torch.ones(T, T, dtype=torch.bool)
    return torch.tril(ones) & torch.triu(ones, diagonal=-(W - 1))


def torch_window_attention(X, W_q, W_k, W_v, W) -> np.ndarray:
    """F.scaled_dot_product_attention with the band as a boolean mask (True takes part)."""
    Q, K, V = (tensor(X) @ tensor(M) for M in (W_q, W_k, W_v))
    mask = torch_band_mask(X.shape[0], W)
    return F.scaled_dot_product_attention(Q[None], K[None], V[None], attn_mask=mask)[0].numpy()


# --- the mask ---------------------------------------------------------------------------------


def test_the_band_keeps_the_last_w_tokens_itself_included():
    assert np.array_equal(
        sw.window_mask(5, 2),
        [
            [1, 0, 0, 0, 0],
            [1, 1, 0, 0, 0],
            [0, 1, 1, 0, 0],
            [0, 0, 1, 1, 0],
            [0, 0, 0, 1, 1],
        ],
    )
    assert sw.window_mask(5, 2).dtype == bool


@given(T=sizes, W=sizes)
def test_the_mask_is_the_torch_band(T, W):
    assert np.array_equal(sw.window_mask(T, W), torch_band_mask(T, W).numpy())


@given(T=sizes, W=sizes)
def test_each_row_keeps_min_of_its_prefix_and_w(T, W):
    mask = sw.window_mask(T, W)
    assert mask.sum(axis=1).tolist() == [min(i + 1, W) for i in range(T)]
    assert np.all(mask[np.diag_indices(T)])  # every token sees itself: no empty softmax row
    assert not np.any(mask & ~causal_mask(T))  # nothing from the future


@given(T=sizes, extra=st.integers(0, 8))
def test_a_window_as_long_as_the_text_is_the_causal_mask(T, extra):
    assert np.array_equal(sw.window_mask(T, T + extra), causal_mask(T))


def test_a_window_of_one_is_the_identity():
    assert np.array_equal(sw.window_mask(4, 1), np.eye(4, dtype=bool))


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "4"])
def test_bad_windows_say_what_to_pass(bad):
    with pytest.raises(ValueError, match="W"):
        sw.window_mask(4, bad)
    with pytest.raises(ValueError, match="T"):
        sw.window_mask(bad, 2)


# --- attention under the band, against torch --------------------------------------------------


@pytest.mark.parametrize("W", [1, 2, 3, 6, 10])
def test_book_tokens_match_torch_sdpa_with_the_band(W):
    ours = sw.window_attention(X, W_QUERY, W_KEY, W_VALUE, W)
    theirs = torch_window_attention(X, W_QUERY, W_KEY, W_VALUE, W)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)


@settings(max_examples=examples(60), deadline=None)
@given(X=arrays_TD(max_T=10, min_d=2), data=st.data())
def test_random_inputs_match_torch_sdpa(X, data):
    d_in = X.shape[1]
    W_q = data.draw(arrays_DO(min_d=d_in, max_d=d_in))
    d_out = W_q.shape[1]
    W_k = data.draw(arrays_DO(min_d=d_in, max_d=d_in, min_O=d_out, max_O=d_out))
    W_v = data.draw(arrays_DO(min_d=d_in, max_d=d_in))
    W = data.draw(st.integers(1, 12))
    ours = sw.window_attention(X, W_q, W_k, W_v, W)
    np.testing.assert_allclose(
        ours, torch_window_attention(X, W_q, W_k, W_v, W), rtol=1e-10, atol=1e-12
    )


@pytest.mark.parametrize("W", [6, 7, 100])
def test_a_window_of_t_or_more_is_the_books_causal_attention(W):
    causal = CausalAttention(3, 2, context_length=6, dropout=0.0).double()
    set_qkv(causal, W_QUERY, W_KEY, W_VALUE)
    book = run(causal, X[None])[0]
    np.testing.assert_allclose(sw.window_attention(X, W_QUERY, W_KEY, W_VALUE, W), book, rtol=1e-12)
    Q, K, _ = qkv(X, W_QUERY, W_KEY, W_VALUE)
    assert np.array_equal(
        sw.window_weights(X, W_QUERY, W_KEY, W_VALUE, W), masked_before_softmax(Q @ K.T, 2)
    )


def test_weights_are_zero_outside_the_band_and_rows_sum_to_one():
    weights = sw.window_weights(X, W_QUERY, W_KEY, W_VALUE, 3)
    assert np.all(weights[~sw.window_mask(6, 3)] == 0.0)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, rtol=1e-15)
    assert weights[0, 0] == 1.0  # the first token has only itself


def test_mismatched_shapes_are_refused():
    with pytest.raises(ValueError, match="features"):
        sw.window_attention(X[:, :2], W_QUERY, W_KEY, W_VALUE, 2)


# --- what the band costs ----------------------------------------------------------------------


@given(T=sizes, W=sizes)
def test_scores_computed_count_the_mask(T, W):
    assert sw.window_scores(T, W) == int(sw.window_mask(T, W).sum())
    assert sw.window_scores(T, W) == sum(min(i + 1, W) for i in range(T))
    assert sw.causal_scores(T) == int(causal_mask(T).sum())
    assert sw.full_scores(T) == score_dot_products(T) == T * T


@given(T=st.integers(1, 10**12), W=st.integers(1, 10**6))
def test_the_closed_form_holds_at_any_size(T, W):
    # Against the mask's row count, summed in two pieces: rows still filling, rows full.
    filling = min(T, W)
    assert sw.window_scores(T, W) == filling * (filling + 1) // 2 + (T - filling) * W


@given(T=st.integers(1, 10**9), W=st.integers(1, 10**4))
def test_the_band_is_linear_in_t_once_full(T, W):
    if T > W:
        assert sw.window_scores(T + 1, W) - sw.window_scores(T, W) == W
    assert sw.window_scores(T, W) <= sw.causal_scores(T) <= sw.full_scores(T)
    assert 0.0 < sw.window_fraction(T, W) <= 1.0


def test_band_bytes_are_post_2s_bytes_per_score():
    for per_score, heads in ((1, 1), (2, 1), (2, 32), (4, 8)):
        per = score_matrix_bytes(1, per_score, heads)
        assert sw.window_score_bytes(100, 7, per_score, heads) == sw.window_scores(100, 7) * per
    # A window as long as the text: the causal half of post 2's full matrix, plus the diagonal.
    assert 2 * sw.window_score_bytes(64, 64) == score_matrix_bytes(64) + 64 * 2


# --- how far information travels --------------------------------------------------------------


@settings(max_examples=examples(150), deadline=None)
@given(T=st.integers(1, 20), W=st.integers(1, 8), L=st.integers(1, 8))
def test_the_reach_formula_is_the_composed_masks(T, W, L):
    """Proof by computation: the L-th boolean power of the band is the band of width L(W-1)+1."""
    composed = sw.composed_mask(T, W, L)
    assert np.array_equal(composed, sw.window_mask(T, sw.reach(W, L) + 1))
    assert np.array_equal(composed, sw.layers_needed(T, W) <= L)
    assert int(composed[-1].sum()) == sw.influencers(T, W, L)


def test_composed_masks_grow_one_band_per_layer():
    # Written out for T = 7, W = 3: each layer adds W - 1 = 2 positions of reach.
    assert sw.composed_mask(7, 3, 1)[6].tolist() == [0, 0, 0, 0, 1, 1, 1]
    assert sw.composed_mask(7, 3, 2)[6].tolist() == [0, 0, 1, 1, 1, 1, 1]
    assert sw.composed_mask(7, 3, 3)[6].tolist() == [1, 1, 1, 1, 1, 1, 1]
    assert sw.layers_needed(7, 3)[6].tolist() == [3, 3, 2, 2, 1, 1, 1]


def test_composing_matches_torch_matrix_powers():
    T, W, L = 12, 3, 4
    step = torch_band_mask(T, W).to(torch.float64)
    power = torch.linalg.matrix_power(step, L) > 0
    assert np.array_equal(sw.composed_mask(T, W, L), power.numpy())


def test_a_window_of_one_carries_nothing():
    assert sw.reach(1, 32) == 0
    assert np.array_equal(sw.composed_mask(5, 1, 4), np.eye(5, dtype=bool))
    assert np.isinf(sw.layers_needed(5, 1)[4, 0])


def test_mistral_7b_numbers():
    # Jiang et al. 2023, Table 1: window_size 4096, n_layers 32; section 2: "using a window size
    # of W = 4096, we have a theoretical attention span of approximately 131K tokens" (k x W).
    W, L = MISTRAL_7B.window, MISTRAL_7B.layers
    assert (W, L) == (4096, 32)
    assert sw.paper_span(W, L) == W * L
    assert round(sw.paper_span(W, L), -3) == 131_000
    # W keys, itself included: W - 1 positions back per layer, L fewer than the paper's k x W.
    assert sw.reach(W, L) == sw.paper_span(W, L) - L
    assert round(sw.reach(W, L), -3) == 131_000
