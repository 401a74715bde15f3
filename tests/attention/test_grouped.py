"""grouped: multi-query and grouped-query attention (post 3, section 2), torch as the oracle."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from attention import grouped as gq
from attention.fixtures import book_inputs
from attention.heads import multihead_split
from attention.models import LLAMA2_7B, LLAMA2_70B, LLAMA3_8B, MISTRAL_7B, MODELS
from tests.attention.torch_reference import tensor
from tests.strategies import examples, ndarrays_of_shape

X = book_inputs()


def torch_heads(M: np.ndarray, n: int) -> torch.Tensor:
    """(b, T, n hd) numpy -> (b, n, T, hd) tensor, the layout SDPA takes."""
    b, T, width = M.shape
    return tensor(M).view(b, T, n, width // n).transpose(1, 2)


def torch_gqa(X, W_q, W_k, W_v, heads, kv_heads, causal=True, enable_gqa=True) -> np.ndarray:
    """The oracle: SDPA with enable_gqa, or with K/V repeated by repeat_interleave first."""
    batch = X[None] if X.ndim == 2 else X
    q = torch_heads(batch @ W_q, heads)
    k, v = torch_heads(batch @ W_k, kv_heads), torch_heads(batch @ W_v, kv_heads)
    if enable_gqa:
        out = F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)
    else:
        group = heads // kv_heads
        k, v = k.repeat_interleave(group, dim=-3), v.repeat_interleave(group, dim=-3)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    b, _, T, _ = out.shape
    merged = out.transpose(1, 2).reshape(b, T, -1).numpy()
    return merged[0] if X.ndim == 2 else merged


# --- which K/V head each query head reads -----------------------------------------------------


def test_multi_query_is_one_kv_head_shared_by_every_query_head():
    # The trap: multi-query means ONE K/V head for all H query heads, not H of them.
    assert gq.kind(8, 1) == "multi-query"
    assert gq.kv_head_of(8, 1).tolist() == [0] * 8
    _, W_k, W_v = gq.toy_weights(8, 1)
    assert W_k.shape == (3, gq.TOY_HEAD_DIM) and W_v.shape == (3, gq.TOY_HEAD_DIM)
    assert gq.kind(8, 8) == "multi-head"
    assert gq.kind(8, 2) == "grouped-query"


@pytest.mark.parametrize("heads", [1, 6, 8, 12, 32, 64])
def test_query_head_h_reads_kv_head_h_over_the_group_size(heads):
    for kv in gq.allowed_kv_heads(heads):
        group = gq.group_size(heads, kv)
        groups = gq.kv_head_of(heads, kv)
        assert groups.tolist() == [h // group for h in range(heads)]
        assert np.bincount(groups).tolist() == [group] * kv  # equal groups, each K/V head used


def test_a_kv_count_that_does_not_divide_the_heads_says_which_would():
    with pytest.raises(ValueError, match=r"kv_heads = 3 does not divide heads = 8.*\[1, 2, 4, 8\]"):
        gq.group_size(8, 3)
    with pytest.raises(ValueError, match="does not divide"):
        gq.grouped_query_attention(X, *gq.toy_weights(8, 2), heads=8, kv_heads=3)
    with pytest.raises(ValueError, match="at least 1"):
        gq.group_size(8, 0)
    with pytest.raises(ValueError, match="integer"):
        gq.group_size(8, 2.0)


def test_allowed_kv_heads_are_the_divisors():
    assert gq.allowed_kv_heads(8) == [h for h in range(1, 9) if 8 % h == 0]
    for model in MODELS:
        assert model.kv_heads in gq.allowed_kv_heads(model.heads)


def test_wrong_widths_name_the_matrix():
    W_q, W_k, W_v = gq.toy_weights(8, 2)
    with pytest.raises(ValueError, match=r"W_k must be \(d_in, kv_heads \* head_dim\)"):
        gq.grouped_query_attention(X, W_q, W_k, W_v, heads=8, kv_heads=4)
    with pytest.raises(ValueError, match="W_q has 3 rows"):
        gq.grouped_query_attention(X[:, :2], W_q, W_k[:2], W_v[:2], heads=8, kv_heads=2)
    with pytest.raises(ValueError, match="W_q has 16 columns"):
        gq.grouped_query_attention(X, W_q, W_k, W_v, heads=6, kv_heads=2)
    with pytest.raises(ValueError, match="causal must be True or False"):
        gq.grouped_query_attention(X, W_q, W_k, W_v, heads=8, kv_heads=2, causal="yes")


# --- against torch ----------------------------------------------------------------------------


@pytest.mark.parametrize("kv", gq.allowed_kv_heads(gq.TOY_HEADS))
@pytest.mark.parametrize("enable_gqa", [True, False])
@pytest.mark.parametrize("causal", [True, False])
def test_toy_matches_torch_sdpa(kv, enable_gqa, causal):
    W = gq.toy_weights(gq.TOY_HEADS, kv)
    ours = gq.grouped_query_attention(X, *W, gq.TOY_HEADS, kv, causal=causal)
    theirs = torch_gqa(X, *W, gq.TOY_HEADS, kv, causal=causal, enable_gqa=enable_gqa)
    assert ours.shape == (6, gq.TOY_HEADS * gq.TOY_HEAD_DIM)
    assert np.allclose(ours, theirs, rtol=0, atol=1e-14)


def test_toy_weights_are_what_torch_draws():
    # Three bias-free nn.Linear layers, query first, after manual_seed(123).
    torch.manual_seed(gq.TOY_SEED)
    layers = [nn.Linear(3, n * gq.TOY_HEAD_DIM, bias=False) for n in (8, 2, 2)]
    for ours, layer in zip(gq.toy_weights(8, 2), layers, strict=True):
        assert np.array_equal(ours, layer.weight.detach().double().numpy().T)


@st.composite
def gqa_case(draw):
    heads = draw(st.integers(1, 8))
    kv = draw(st.sampled_from(gq.allowed_kv_heads(heads)))
    hd, d_in, b, T = (draw(st.integers(1, n)) for n in (4, 6, 2, 7))
    return (
        draw(ndarrays_of_shape((b, T, d_in))),
        draw(ndarrays_of_shape((d_in, heads * hd), -1.0, 1.0)),
        draw(ndarrays_of_shape((d_in, kv * hd), -1.0, 1.0)),
        draw(ndarrays_of_shape((d_in, kv * hd), -1.0, 1.0)),
        heads,
        kv,
    )


@settings(max_examples=examples(80), deadline=None)
@given(gqa_case(), st.booleans())
def test_any_grouping_matches_torch_sdpa_with_enable_gqa(case, causal):
    X_b, W_q, W_k, W_v, heads, kv = case
    ours = gq.grouped_query_attention(X_b, W_q, W_k, W_v, heads, kv, causal=causal)
    theirs = torch_gqa(X_b, W_q, W_k, W_v, heads, kv, causal=causal)
    assert ours.shape == theirs.shape
    assert np.allclose(ours, theirs, rtol=1e-12, atol=1e-13)


# --- the two equalities with multi-head attention ---------------------------------------------


@settings(max_examples=examples(80), deadline=None)
@given(gqa_case(), st.booleans())
def test_kv_heads_equal_to_heads_is_multihead_attention_exactly(case, causal):
    X_b, W_q, W_k, W_v, heads, _ = case
    W_k, W_v = W_q[:, :], W_q[:, ::-1]  # full-width K/V: one per query head
    ours = gq.grouped_query_attention(X_b, W_q, W_k, W_v, heads, heads, causal=causal)
    assert np.array_equal(ours, multihead_split(X_b, W_q, W_k, W_v, heads, causal=causal))


@settings(max_examples=examples(80), deadline=None)
@given(gqa_case(), st.booleans())
def test_grouped_is_multihead_with_copied_kv_weights(case, causal):
    # Equal in exact arithmetic; BLAS may round X @ W and X @ repeat_kv(W) differently (a
    # single row goes through another kernel), so here only to rounding. The toy: exactly.
    X_b, W_q, W_k, W_v, heads, kv = case
    ours = gq.grouped_query_attention(X_b, W_q, W_k, W_v, heads, kv, causal=causal)
    copied_k, copied_v = gq.repeat_kv(W_k, heads, kv), gq.repeat_kv(W_v, heads, kv)
    mha = multihead_split(X_b, W_q, copied_k, copied_v, heads, causal=causal)
    assert np.allclose(ours, mha, rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("heads", [8, 12, 32, 64])
def test_copied_weights_give_zero_difference_on_the_book_inputs(heads):
    for kv in gq.allowed_kv_heads(heads):
        W_q, W_k, W_v = gq.toy_weights(heads, kv)
        ours = gq.grouped_query_attention(X, W_q, W_k, W_v, heads, kv)
        mha = multihead_split(
            X, W_q, gq.repeat_kv(W_k, heads, kv), gq.repeat_kv(W_v, heads, kv), heads
        )
        assert np.max(np.abs(ours - mha)) == 0.0


def test_wide_inputs_agree_to_rounding():
    # Wider inputs: BLAS sums the two products' columns in different orders.
    rng = np.random.default_rng(0)
    X_w, W_q, W_k, W_v = (rng.normal(size=s) for s in ((9, 64), (64, 96), (64, 24), (64, 24)))
    ours = gq.grouped_query_attention(X_w, W_q, W_k, W_v, 8, 2)
    mha = multihead_split(X_w, W_q, gq.repeat_kv(W_k, 8, 2), gq.repeat_kv(W_v, 8, 2), 8)
    assert np.allclose(ours, mha, rtol=1e-12, atol=1e-12)


def test_repeat_kv_is_torch_repeat_interleave_on_heads():
    _, W_k, _ = gq.toy_weights(8, 2, head_dim=3)
    theirs = tensor(W_k).view(3, 2, 3).repeat_interleave(4, dim=1).reshape(3, 24).numpy()
    assert np.array_equal(gq.repeat_kv(W_k, 8, 2), theirs)


def test_independent_kv_heads_are_not_the_same_model():
    # Sharing is a constraint: multi-head attention with its own K/V per head differs.
    W_q, W_k, W_v = gq.toy_weights(8, 2)
    _, W_k8, W_v8 = gq.toy_weights(8, 8)
    shared = gq.grouped_query_attention(X, W_q, W_k, W_v, 8, 2)
    assert np.max(np.abs(shared - multihead_split(X, W_q, W_k8, W_v8, 8))) > 1e-3


# --- parameters and cache -----------------------------------------------------------------------


def test_projection_params_count_torch_linear_layers():
    for model in (LLAMA2_7B, MISTRAL_7B, LLAMA2_70B):
        d, hd = model.d_model, model.head_dim
        layers = [
            nn.Linear(d, model.heads * hd, bias=False, device="meta"),
            nn.Linear(d, model.kv_heads * hd, bias=False, device="meta"),
            nn.Linear(d, model.kv_heads * hd, bias=False, device="meta"),
            nn.Linear(model.heads * hd, d, bias=False, device="meta"),
        ]
        sizes = [layer.weight.numel() for layer in layers]
        counts = gq.model_params(model)
        assert counts.query == sizes[0]
        assert counts.key_value == sizes[1] + sizes[2]
        assert counts.output == sizes[3]
        assert counts.total == sum(sizes)


def test_kv_params_and_cache_follow_kv_heads_linearly():
    for model in MODELS:
        full = gq.cache_bytes_per_token(model, model.heads)
        full_params = gq.model_params(model, model.heads).key_value
        for kv in gq.allowed_kv_heads(model.heads):
            ratio = gq.cache_ratio(model.heads, kv)
            assert gq.cache_bytes_per_token(model, kv) == full * kv // model.heads
            assert gq.model_params(model, kv).key_value == full_params * kv // model.heads
            assert ratio == kv / model.heads


def test_cache_per_token_is_keys_and_values_of_every_layer():
    # A cached key and value tensor per layer, (kv_heads, head_dim) each, in 16-bit floats.
    for model in (LLAMA2_7B, MISTRAL_7B, LLAMA2_70B, LLAMA3_8B):
        one_layer = torch.zeros(model.kv_heads, model.head_dim, dtype=torch.bfloat16)
        per_layer = 2 * one_layer.numel() * one_layer.element_size()
        assert gq.cache_bytes_per_token(model) == model.layers * per_layer
        assert gq.cache_bytes(model, model.context) == model.context * model.layers * per_layer


def test_llama2_70b_caches_an_eighth_of_multihead():
    # Published: 64 query heads over 8 K/V heads (attention.models).
    assert gq.kind(LLAMA2_70B.heads, LLAMA2_70B.kv_heads) == "grouped-query"
    assert gq.cache_ratio(LLAMA2_70B.heads, LLAMA2_70B.kv_heads) == 1 / 8
    assert gq.cache_ratio(LLAMA2_7B.heads, LLAMA2_7B.kv_heads) == 1.0


def test_cache_refuses_a_kv_count_the_model_cannot_group():
    with pytest.raises(ValueError, match="kv_heads can be one of"):
        gq.cache_bytes_per_token(MISTRAL_7B, 5)
    with pytest.raises(ValueError, match="tokens must be at least 1"):
        gq.cache_bytes(MISTRAL_7B, 0)
