"""Multi-head attention, two ways (section 3.6).

The wrapper (``MultiHeadAttentionWrapper``) runs H independent causal heads, each with its
own (d_in, d_out) matrices, and concatenates their contexts: output width H * d_out, so d_out
is a *per-head* width. The split class (``MultiHeadAttention``) holds one (d_in, d_out)
matrix per role and cuts its columns into H stripes of head_dim = d_out / H: output width
d_out, a *total* width. Head h owns columns h * head_dim : (h + 1) * head_dim of every
projection, because a matrix product maps the columns of its right operand to the columns of
the result; the split class is therefore the wrapper with its heads' matrices laid side by side.

Shapes through the split class (b batch, T tokens, H heads, hd = head_dim):

    x (b, T, d_in) -> x @ W (b, T, d_out) -> view (b, T, H, hd) -> transpose(1, 2) (b, H, T, hd)
    scores, weights (b, H, T, T) -> weights @ values (b, H, T, hd)
    -> transpose(1, 2) (b, T, H, hd) -> contiguous().view (b, T, d_out)

The scores are divided by sqrt(head_dim), since keys.shape[-1] is read after the split: GPT-2
(768 wide, 12 heads) divides by 8, not by sqrt(768) = 27.7.
"""

import math
from typing import NamedTuple

import numpy as np

from attention._checks import (
    check_array,
    check_matrix,
    check_positive_int,
    checked_matmul,
    refuse_overflow,
)
from attention.basics import softmax
from attention.masking import masked_before_softmax

Stage = tuple[str, np.ndarray]

# The configurations the section names: the book's toy (a batch of two copies of the six
# tokens, d_out = 2 split over 2 heads), GPT-2 small (768 wide, 12 heads, a feed-forward
# four times as wide), and the largest GPT-3 (96 layers of 96 heads).
BOOK_BATCH = 2
BOOK_HEADS = 2
GPT2_HEADS = 12
GPT2_FF_MULTIPLE = 4
GPT3_LAYERS = 96
GPT3_HEADS = 96


def head_dim(d_out: int, num_heads: int) -> int:
    """Columns per head, d_out / num_heads; ValueError unless it is a whole number. -> int"""
    d_out = check_positive_int(d_out, "d_out")
    num_heads = check_positive_int(num_heads, "num_heads")
    if d_out % num_heads:
        divisors = [h for h in range(1, d_out + 1) if d_out % h == 0]
        raise ValueError(
            f"d_out = {d_out} cannot be split into {num_heads} heads: each head takes an equal "
            f"block of d_out / num_heads = {d_out / num_heads:.4g} columns, which must be a whole "
            f"number. num_heads must divide d_out; here it can be one of {divisors}"
        )
    return d_out // num_heads


def score_divisor(d_out: int, num_heads: int) -> float:
    """What the split class divides its scores by: sqrt(head_dim), not sqrt(d_out). -> float"""
    return math.sqrt(head_dim(d_out, num_heads))


def head_columns(d_out: int, num_heads: int) -> list[tuple[int, int]]:
    """Each head's column range [start, stop) in the projections, for the stripes figure.

    -> num_heads pairs (h * hd, (h + 1) * hd)
    """
    hd = head_dim(d_out, num_heads)
    return [(h * hd, (h + 1) * hd) for h in range(num_heads)]


def _check_inputs(X: np.ndarray) -> np.ndarray:
    """X as a batch: (T, d_in) becomes (1, T, d_in); (b, T, d_in) is kept."""
    X = check_array(X, "X", (2, 3))
    return X[None] if X.ndim == 2 else X


def _check_projections(d_in: int, *Ws: np.ndarray) -> list[np.ndarray]:
    Ws = [check_matrix(W, n) for W, n in zip(Ws, ("W_query", "W_key", "W_value"), strict=True)]
    for W, name in zip(Ws, ("W_query", "W_key", "W_value"), strict=True):
        if W.shape[0] != d_in:
            raise ValueError(f"{name} has {W.shape[0]} rows but the inputs have d_in = {d_in}")
    if Ws[0].shape[1] != Ws[1].shape[1]:
        raise ValueError(f"W_query and W_key need one width, got {Ws[0].shape} and {Ws[1].shape}")
    return Ws


def _scores_and_weights(
    Q: np.ndarray, K: np.ndarray, causal: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Raw scores Q K^T and their (masked) softmax of scores / sqrt(d_k). -> two (..., T, T)"""
    if not isinstance(causal, bool | np.bool_):
        raise ValueError(f"causal must be True or False, got {causal!r}")
    scores = checked_matmul(Q, np.swapaxes(K, -1, -2), "the scores")
    d_k = K.shape[-1]
    weights = masked_before_softmax(scores, d_k) if causal else softmax(scores / np.sqrt(d_k))
    return scores, weights


def causal_attention(
    X: np.ndarray,
    W_query: np.ndarray,
    W_key: np.ndarray,
    W_value: np.ndarray,
    causal: bool = True,
) -> np.ndarray:
    """One head: the book's CausalAttention without dropout. ([b,] T, d_in) -> ([b,] T, d_v)"""
    batch = _check_inputs(X)
    W_query, W_key, W_value = _check_projections(batch.shape[-1], W_query, W_key, W_value)
    queries = checked_matmul(batch, W_query, "the projection")
    keys = checked_matmul(batch, W_key, "the projection")
    values = checked_matmul(batch, W_value, "the projection")
    _, weights = _scores_and_weights(queries, keys, causal)
    context = checked_matmul(weights, values, "the context")
    return context[0] if np.ndim(X) == 2 else context


def multihead_wrapper(
    X: np.ndarray, heads: list[tuple[np.ndarray, np.ndarray, np.ndarray]], causal: bool = True
) -> np.ndarray:
    """H independent heads, contexts concatenated along the features.

    X: ([b,] T, d_in), heads: H triples (W_query, W_key, W_value) of (d_in, d_out)
    -> ([b,] T, H * d_out)
    """
    if len(heads) == 0:
        raise ValueError("need at least one head")
    if any(len(head) != 3 for head in heads):
        raise ValueError("each head must be a triple (W_query, W_key, W_value)")
    return np.concatenate([causal_attention(X, *head, causal=causal) for head in heads], axis=-1)


def split_heads(M: np.ndarray, num_heads: int) -> np.ndarray:
    """view(b, T, H, hd) then transpose(1, 2). (b, T, d_out) -> (b, H, T, hd)"""
    b, T, d_out = M.shape
    return M.reshape(b, T, num_heads, head_dim(d_out, num_heads)).transpose(0, 2, 1, 3)


def _out_proj(merged: np.ndarray, W_out: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """merged @ W_out + bias, refusing overflow in the sum too. (b, T, d_out) -> (b, T, d_out)"""
    projected = checked_matmul(merged, W_out, "out_proj")
    with np.errstate(over="ignore"):
        return refuse_overflow(projected + bias, "out_proj")


def multihead_split_stages(
    X: np.ndarray,
    W_query: np.ndarray,
    W_key: np.ndarray,
    W_value: np.ndarray,
    num_heads: int,
    causal: bool = True,
    W_out: np.ndarray | None = None,
    b_out: np.ndarray | None = None,
) -> list[Stage]:
    """Every intermediate of the split class, named as in ``shape_trace``. Always batched.

    X: ([b,] T, d_in), W_*: (d_in, d_out) -> [(description, array)], arrays with a batch axis
    (b = 1 for 2-D X). W_out (d_out, d_out) and b_out (d_out,), if given, add the book's
    ``out_proj`` as a last stage.
    """
    batch = _check_inputs(X)
    W_query, W_key, W_value = _check_projections(batch.shape[-1], W_query, W_key, W_value)
    d_out = W_query.shape[1]
    if W_value.shape[1] != d_out:
        raise ValueError(f"W_value must be (d_in, {d_out}) like W_query, got {W_value.shape}")
    hd = head_dim(d_out, num_heads)
    keys = checked_matmul(batch, W_key, "the projection")  # (b, T, d_out)
    queries = split_heads(checked_matmul(batch, W_query, "the projection"), num_heads)
    values = split_heads(checked_matmul(batch, W_value, "the projection"), num_heads)
    viewed = keys.reshape(*keys.shape[:2], num_heads, hd)  # (b, T, H, hd)
    split = viewed.transpose(0, 2, 1, 3)  # (b, H, T, hd)
    scores, weights = _scores_and_weights(queries, split, causal)  # (b, H, T, T)
    context = checked_matmul(weights, values, "the context")  # (b, H, T, hd)
    moved = context.transpose(0, 2, 1, 3)  # (b, T, H, hd)
    merged = moved.reshape(*moved.shape[:2], d_out)  # (b, T, d_out)
    stages = [
        ("input x", batch),
        ("keys = x @ W_key (queries, values alike)", keys),
        ("keys.view(b, T, num_heads, head_dim)", viewed),
        ("keys.transpose(1, 2)", split),
        ("scores = queries @ keys.transpose(2, 3)", scores),
        ("weights = softmax(scores / sqrt(head_dim))", weights),
        ("context = weights @ values", context),
        ("context.transpose(1, 2)", moved),
        ("context.contiguous().view(b, T, d_out)", merged),
    ]
    if W_out is not None:
        W_out = check_matrix(W_out, "W_out")
        if W_out.shape != (d_out, d_out):
            raise ValueError(f"W_out must be ({d_out}, {d_out}), got {W_out.shape}")
        bias = np.zeros(d_out) if b_out is None else check_array(b_out, "b_out", 1)
        if bias.shape != (d_out,):
            raise ValueError(f"b_out must be ({d_out},), got {bias.shape}")
        stages.append(("out_proj(context)", _out_proj(merged, W_out, bias)))
    elif b_out is not None:
        raise ValueError("b_out was given without W_out")
    return stages


def multihead_split(
    X: np.ndarray,
    W_query: np.ndarray,
    W_key: np.ndarray,
    W_value: np.ndarray,
    num_heads: int,
    causal: bool = True,
    W_out: np.ndarray | None = None,
    b_out: np.ndarray | None = None,
) -> np.ndarray:
    """The split class's output (dropout off). ([b,] T, d_in) -> ([b,] T, d_out)

    Without W_out this is the concatenated context, before the book's ``out_proj``.
    """
    stages = multihead_split_stages(X, W_query, W_key, W_value, num_heads, causal, W_out, b_out)
    out = stages[-1][1]
    return out[0] if np.ndim(X) == 2 else out


def shape_trace(
    b: int, T: int, d_in: int, d_out: int, num_heads: int, out_proj: bool = False
) -> list[tuple[str, tuple[int, ...]]]:
    """The shape after every step of the split class, without computing anything.

    -> [(description, shape)], the descriptions of ``multihead_split_stages``.
    """
    b, T, d_in = (check_positive_int(n, name) for n, name in ((b, "b"), (T, "T"), (d_in, "d_in")))
    H = num_heads
    hd = head_dim(d_out, H)
    trace = [
        ("input x", (b, T, d_in)),
        ("keys = x @ W_key (queries, values alike)", (b, T, d_out)),
        ("keys.view(b, T, num_heads, head_dim)", (b, T, H, hd)),
        ("keys.transpose(1, 2)", (b, H, T, hd)),
        ("scores = queries @ keys.transpose(2, 3)", (b, H, T, T)),
        ("weights = softmax(scores / sqrt(head_dim))", (b, H, T, T)),
        ("context = weights @ values", (b, H, T, hd)),
        ("context.transpose(1, 2)", (b, T, H, hd)),
        ("context.contiguous().view(b, T, d_out)", (b, T, d_out)),
    ]
    if out_proj:
        trace.append(("out_proj(context)", (b, T, d_out)))
    return trace


def output_shapes(
    b: int, T: int, d_out: int, num_heads: int
) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """The same constructor arguments, two meanings of d_out. -> (wrapper shape, split shape)

    The wrapper's d_out is per head, width H * d_out; the split class's is the total.
    """
    b, T = check_positive_int(b, "b"), check_positive_int(T, "T")
    head_dim(d_out, num_heads)  # the split class refuses what it cannot divide
    return (b, T, num_heads * d_out), (b, T, d_out)


class ParamCounts(NamedTuple):
    """Projection parameters of both classes at one output width."""

    wrapper: int  # H heads x 3 matrices of (d_in, width / H) (+ biases)
    split: int  # 3 matrices of (d_in, width) (+ biases): equal to ``wrapper``
    out_proj: int  # the split class's extra (width, width) layer with bias; 0 in the wrapper
    wrapper_matmuls: int  # projections per forward pass: 3 H
    split_matmuls: int  # 3


def param_counts(d_in: int, width: int, num_heads: int, qkv_bias: bool = False) -> ParamCounts:
    """Count parameters at matched output width: the wrapper with per-head d_out = width / H
    against the split class with d_out = width. -> ParamCounts
    """
    d_in = check_positive_int(d_in, "d_in")
    per_head = head_dim(width, num_heads)
    bias = 1 if qkv_bias else 0
    wrapper = num_heads * 3 * (d_in + bias) * per_head
    split = 3 * (d_in + bias) * width
    return ParamCounts(
        wrapper=wrapper,
        split=split,
        out_proj=width * width + width,
        wrapper_matmuls=3 * num_heads,
        split_matmuls=3,
    )
