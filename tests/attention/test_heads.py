"""heads: post 2's section 05 ("One matrix, sliced into stripes")."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import heads as hd
from attention import torch_rng
from attention.basics import softmax
from attention.fixtures import GPT2_EMBED, book_inputs
from tests.attention.torch_reference import (
    MultiHeadAttention,
    MultiHeadAttentionWrapper,
    run,
    set_linear,
    set_qkv,
)
from tests.strategies import examples

X = book_inputs()
BATCH = np.stack([X, X])  # the book's batch of two copies, (2, 6, 3)


def book_wrapper_heads(seed: int, d_in: int, d_out: int, num_heads: int):
    """The (d_in, d_out) matrices torch draws for MultiHeadAttentionWrapper after manual_seed."""
    generator = torch_rng.stream(seed)
    return [
        tuple(torch_rng.linear_weight(generator, d_in, d_out).T for _ in range(3))
        for _ in range(num_heads)
    ]


def book_split_weights(seed: int, d_in: int, d_out: int):
    """W_query, W_key, W_value, W_out, b_out as torch draws them for MultiHeadAttention."""
    generator = torch_rng.stream(seed)
    W_query, W_key, W_value, W_out = (
        torch_rng.linear_weight(generator, d, d_out).T for d in (d_in, d_in, d_in, d_out)
    )
    return W_query, W_key, W_value, W_out, torch_rng.linear_bias(generator, d_out, d_out)


# --- the book's toy setting -------------------------------------------------------------------


def test_wrapper_on_the_book_seed_matches_torch_and_prints_2_6_4():
    # Section 05: "It reproduces the printed shapes, [2, 6, 4] against [2, 6, 2]".
    torch.manual_seed(123)
    module = MultiHeadAttentionWrapper(3, 2, context_length=6, dropout=0.0, num_heads=2).double()
    ours = hd.multihead_wrapper(BATCH, book_wrapper_heads(123, 3, 2, 2))
    expected = run(module, BATCH)
    assert list(expected.shape) == [2, 6, 4]
    assert ours.shape == (2, 6, 4)
    assert np.allclose(ours, expected, rtol=0, atol=1e-14)


def test_split_class_on_the_book_seed_matches_torch_and_prints_2_6_2():
    torch.manual_seed(123)
    module = MultiHeadAttention(3, 2, context_length=6, dropout=0.0, num_heads=2).double()
    W_query, W_key, W_value, W_out, b_out = book_split_weights(123, 3, 2)
    ours = hd.multihead_split(BATCH, W_query, W_key, W_value, 2, W_out=W_out, b_out=b_out)
    expected = run(module, BATCH)
    assert list(expected.shape) == [2, 6, 2]
    assert ours.shape == (2, 6, 2)
    assert np.allclose(ours, expected, rtol=0, atol=1e-14)


def test_d_out_means_two_things():
    # Section 05: "d_out means two different things: per head in the wrapper class, whose output
    # width is d_out x H, and total in the split class, whose width is d_out."
    assert hd.output_shapes(2, 6, 2, 2) == ((2, 6, 4), (2, 6, 2))


def test_book_toy_is_degenerate():
    # Section 05: "d_out = 2 with num_heads = 2 gives head_dim = 1".
    assert hd.head_dim(2, 2) == 1


# --- GPT-2 and the divisor ----------------------------------------------------------------------


def test_gpt2_divides_by_8_not_27_7():
    # Section 05: "GPT-2 divides its attention scores by 8, not by 27.7 ... 768 dimensions over
    # 12 heads is head_dim 64."
    assert hd.head_dim(GPT2_EMBED, 12) == 64
    assert hd.score_divisor(GPT2_EMBED, 12) == 8.0
    assert round(math.sqrt(GPT2_EMBED), 1) == 27.7
    assert hd.score_divisor(GPT2_EMBED, 1) == math.sqrt(GPT2_EMBED)


def test_split_scores_use_head_dim():
    # keys.shape[-1] is read after the reshape: the weights stage is softmax(scores / sqrt(hd)).
    rng = np.random.default_rng(0)
    Ws = [rng.normal(size=(5, 12)) for _ in range(3)]
    stages = dict(hd.multihead_split_stages(rng.normal(size=(1, 4, 5)), *Ws, 3, causal=False))
    scores = stages["scores = queries @ keys.transpose(2, 3)"]
    weights = stages["weights = softmax(scores / sqrt(head_dim))"]
    assert np.allclose(weights, softmax(scores / 2.0), rtol=0, atol=1e-15)  # sqrt(12 / 3)


def test_head_dim_explains_an_uneven_split():
    with pytest.raises(
        ValueError, match=r"d_out = 10 cannot be split into 3 heads.*\[1, 2, 5, 10\]"
    ):
        hd.head_dim(10, 3)
    with pytest.raises(ValueError, match="num_heads"):
        hd.head_dim(10, 0)


# --- stripes, parameters ----------------------------------------------------------------------


def test_head_columns_are_adjacent_stripes():
    # "the first head_dim columns being head 1 and the next head_dim head 2"
    assert hd.head_columns(6, 3) == [(0, 2), (2, 4), (4, 6)]
    assert hd.head_columns(GPT2_EMBED, 12)[-1] == (704, 768)


@pytest.mark.parametrize(
    ("d_in", "width", "num_heads", "qkv_bias"),
    [(3, 2, 2, False), (768, 768, 12, False), (768, 768, 12, True), (5, 12, 4, True)],
)
def test_matched_width_gives_equal_parameter_counts(d_in, width, num_heads, qkv_bias):
    # Section 05: "At matched output width the two classes have exactly the same number of
    # projection parameters, and the only difference is 3H matrix multiplications against 3."
    counts = hd.param_counts(d_in, width, num_heads, qkv_bias)
    assert counts.wrapper == counts.split
    assert (counts.wrapper_matmuls, counts.split_matmuls) == (3 * num_heads, 3)
    # the same counts read off the torch classes
    wrapper = MultiHeadAttentionWrapper(d_in, width // num_heads, 4, 0.0, num_heads, qkv_bias)
    split = MultiHeadAttention(d_in, width, 4, 0.0, num_heads, qkv_bias)
    assert counts.wrapper == sum(p.numel() for p in wrapper.parameters())
    projections = (split.W_query, split.W_key, split.W_value)
    assert counts.split == sum(p.numel() for layer in projections for p in layer.parameters())
    assert counts.out_proj == sum(p.numel() for p in split.out_proj.parameters())


# --- properties on random shapes ------------------------------------------------------------------


@st.composite
def multihead_cases(draw):
    """Random (b, T, H, head_dim, d_in) and matching inputs and weights."""
    b, T, H, h_dim, d_in = (draw(st.integers(1, hi)) for hi in (3, 7, 4, 3, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X = rng.normal(size=(b, T, d_in))
    Ws = [rng.normal(size=(d_in, H * h_dim)) for _ in range(3)]
    return X, Ws, H


@settings(max_examples=examples(40), deadline=None)
@given(multihead_cases(), st.booleans())
def test_every_step_has_the_traced_shape(case, with_out_proj):
    X, Ws, H = case
    b, T, d_in = X.shape
    d_out = Ws[0].shape[1]
    W_out = np.eye(d_out) if with_out_proj else None
    stages = hd.multihead_split_stages(X, *Ws, H, W_out=W_out)
    trace = hd.shape_trace(b, T, d_in, d_out, H, out_proj=with_out_proj)
    assert [name for name, _ in stages] == [name for name, _ in trace]
    assert [a.shape for _, a in stages] == [shape for _, shape in trace]
    h_dim = d_out // H
    assert dict(trace)["keys.transpose(1, 2)"] == (b, H, T, h_dim)
    assert dict(trace)["scores = queries @ keys.transpose(2, 3)"] == (b, H, T, T)


@settings(max_examples=examples(40), deadline=None)
@given(multihead_cases(), st.booleans())
def test_split_is_the_wrapper_with_heads_side_by_side(case, causal):
    # One big projection computes every head's projection at once, already in place: head h is
    # the wrapper head whose matrices are columns h*hd:(h+1)*hd.
    X, Ws, H = case
    d_out = Ws[0].shape[1]
    heads = [tuple(W[:, start:stop] for W in Ws) for start, stop in hd.head_columns(d_out, H)]
    split = hd.multihead_split(X, *Ws, H, causal=causal)
    assert np.allclose(split, hd.multihead_wrapper(X, heads, causal=causal), rtol=0, atol=1e-12)


@settings(max_examples=examples(30), deadline=None)
@given(multihead_cases())
def test_split_matches_torch_on_random_inputs(case):
    X, Ws, H = case
    _, T, d_in = X.shape
    d_out = Ws[0].shape[1]
    rng = np.random.default_rng(1)
    W_out, b_out = rng.normal(size=(d_out, d_out)), rng.normal(size=d_out)
    module = MultiHeadAttention(d_in, d_out, T + 2, 0.0, H).double()
    set_qkv(module, *Ws)
    set_linear(module.out_proj, W_out, b_out)
    ours = hd.multihead_split(X, *Ws, H, W_out=W_out, b_out=b_out)
    assert np.allclose(ours, run(module, X), rtol=1e-12, atol=1e-12)


@settings(max_examples=examples(30), deadline=None)
@given(multihead_cases())
def test_wrapper_matches_torch_on_random_inputs(case):
    X, Ws, H = case
    b, T, d_in = X.shape
    d_out = Ws[0].shape[1]
    module = MultiHeadAttentionWrapper(d_in, d_out, T, 0.0, H).double()
    rng = np.random.default_rng(2)
    heads = [tuple(rng.normal(size=(d_in, d_out)) for _ in range(3)) for _ in range(H)]
    for torch_head, head in zip(module.heads, heads, strict=True):
        set_qkv(torch_head, *head)
    ours = hd.multihead_wrapper(X, heads)
    assert ours.shape == (b, T, H * d_out)
    assert np.allclose(ours, run(module, X), rtol=1e-12, atol=1e-12)


def test_batch_axis_is_optional():
    W_query, W_key, W_value, _, _ = book_split_weights(123, 3, 2)
    single = hd.multihead_split(X, W_query, W_key, W_value, 2)
    assert single.shape == (6, 2)
    assert np.array_equal(single, hd.multihead_split(X[None], W_query, W_key, W_value, 2)[0])
    heads = book_wrapper_heads(123, 3, 2, 2)
    assert hd.multihead_wrapper(X, heads).shape == (6, 4)
    assert hd.causal_attention(X, *heads[0]).shape == (6, 2)


def test_causal_head_ignores_the_future():
    # Changing the last token cannot change any earlier token's context.
    heads = book_wrapper_heads(123, 3, 2, 2)
    edited = X.copy()
    edited[-1] = [9.0, -9.0, 9.0]
    before, after = hd.multihead_wrapper(X, heads), hd.multihead_wrapper(edited, heads)
    assert np.array_equal(before[:-1], after[:-1])
    assert not np.allclose(before[-1], after[-1])


def test_bad_input_raises():
    W = np.ones((3, 4))
    with pytest.raises(ValueError, match="d_out = 4 cannot be split into 3 heads"):
        hd.multihead_split(X, W, W, W, 3)
    with pytest.raises(ValueError, match="rows"):
        hd.multihead_split(X, np.ones((2, 4)), W, W, 2)
    with pytest.raises(ValueError, match="one width"):
        hd.causal_attention(X, W, np.ones((3, 2)), W)
    with pytest.raises(ValueError, match="at least one head"):
        hd.multihead_wrapper(X, [])
    with pytest.raises(ValueError, match="triple"):
        hd.multihead_wrapper(X, [(W, W)])
    with pytest.raises(ValueError, match="W_out"):
        hd.multihead_split(X, W, W, W, 2, W_out=np.ones((4, 3)))
    with pytest.raises(ValueError, match="without W_out"):
        hd.multihead_split(X, W, W, W, 2, b_out=np.ones(4))
    with pytest.raises(ValueError, match="causal"):
        hd.multihead_split(X, W, W, W, 2, causal="yes")
    with pytest.raises(ValueError, match="NaN"):
        hd.multihead_split(np.full((2, 3), np.nan), W, W, W, 2)
    with pytest.raises(ValueError, match="T"):
        hd.shape_trace(1, 0, 3, 4, 2)


def test_named_configurations():
    # Section 05/07: GPT-2 small is 768 wide with 12 heads (head_dim 64), and its attention
    # block has 2,360,064 parameters: q, k, v without bias plus out_proj with bias.
    assert hd.head_dim(GPT2_EMBED, hd.GPT2_HEADS) == 64
    counts = hd.param_counts(GPT2_EMBED, GPT2_EMBED, hd.GPT2_HEADS)
    assert counts.split + counts.out_proj == 2_360_064
    assert hd.head_dim(2, hd.BOOK_HEADS) == 1  # the book's degenerate toy
