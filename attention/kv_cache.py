"""The key/value cache: one query against the stored keys and values per new token (post 3, 1).

A decoder generates one token at a time, and token t's output needs the keys and values of
tokens 1..t. Without a cache each step runs the layer over the whole prefix again: t queries,
keys and values projected, a (t, t) score matrix, t context rows, of which only the last is
new. The keys and values of earlier tokens never change (a causal layer's row j depends on
tokens 1..j only), so a cache keeps them: each step projects the new token once, appends one
row to K and one to V, and attends with one query against the cache, (1, d_k) x (t, d_k)^T.
The work per step goes from quadratic in t to linear; the memory is the cache itself,

    bytes = 2 (K and V) x layers x kv_heads x head_dim x bytes_per_value x tokens x batch.

Both routes give the same floats, not close ones. Every product here (``project``,
``dot_rows``, the weighted sum in ``attend``) is a sum over one axis written as a loop of
elementwise numpy operations, added left to right, and the softmax's sum is the same loop:
an elementwise multiply or add rounds each element on its own, so row i of a result depends on
row i of the operands alone and not on how many rows were computed beside it. A BLAS matrix
product gives no such promise (it may block, vectorise or fuse a (6, 3) product differently
from a (1, 3) one). The last row of the full causal pass and the cached step are therefore the
same operations in the same order on the same numbers; the mask adds nothing to that row, since
the newest token sees every key. (The one elementwise function whose kernel could depend on
layout, ``np.exp``, is given contiguous arrays on both routes.)

Shapes: X (T, d_in) the tokens in order; W_query, W_key (d_in, d_k); W_value (d_in, d_v).
"""

import math
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from attention._checks import check_matrix, check_positive_int, refuse_overflow
from attention.cost import matmul_multiplies
from attention.fixtures import book_inputs
from attention.models import Model
from attention.torch_rng import weights_section_3_5

STAGES = ("queries", "keys", "values", "scores", "context")


class Step(NamedTuple):
    """One generation step: ``t`` tokens seen, the newest token's output, what it took."""

    t: int
    output: np.ndarray  # (d_v,): the attention output for token t
    work: dict[str, int]  # multiplications per stage (STAGES), exact
    computed: dict[str, tuple[int, ...]]  # rows of Q, K, V computed at this step (0-based)


def _ordered_sum(terms: np.ndarray) -> np.ndarray:
    """Sum over the last axis, left to right, one elementwise add per term. (..., n) -> (...)"""
    total = terms[..., 0]
    for j in range(1, terms.shape[-1]):
        total = total + terms[..., j]
    return total


def project(X: np.ndarray, W: np.ndarray) -> np.ndarray:
    """X @ W in a fixed order: row i depends on X[i] alone. (T, d_in), (d_in, d_out) -> (T, d_out)

    Each entry is ((x_1 w_1 + x_2 w_2) + x_3 w_3) + ..., the same whether X has one row or many.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        out = _ordered_sum(X[:, None, :] * W.T[None, :, :])
    return refuse_overflow(out, "the projection")


def dot_rows(Q: np.ndarray, K: np.ndarray) -> np.ndarray:
    """Q K^T in a fixed order: row i depends on Q[i] and K alone. (m, d_k), (n, d_k) -> (m, n)"""
    with np.errstate(over="ignore", invalid="ignore"):
        out = _ordered_sum(Q[:, None, :] * K[None, :, :])
    return refuse_overflow(out, "the scores")


def attend(Q: np.ndarray, K: np.ndarray, V: np.ndarray) -> np.ndarray:
    """Causal attention of the last m of n positions. (m, d_k), (n, d_k), (n, d_v) -> (m, d_v)

    Query i stands at position n - m + i and sees keys 0..n - m + i: m = n is the full causal
    layer, m = 1 the newest token against a cache (which needs no mask).
    """
    m, n = Q.shape[0], K.shape[0]
    if m > n:
        raise ValueError(f"{m} queries need at least {m} keys, got {n}")
    scaled = dot_rows(Q, K) / math.sqrt(K.shape[1])
    position = np.arange(n - m, n)[:, None]
    scaled = np.ascontiguousarray(np.where(np.arange(n)[None, :] <= position, scaled, -np.inf))
    e = np.exp(scaled - np.max(scaled, axis=1, keepdims=True))  # the max is exact in any order
    weights = e / _ordered_sum(e)[:, None]
    with np.errstate(over="ignore", invalid="ignore"):
        out = _ordered_sum(weights[:, None, :] * V.T[None, :, :])
    return refuse_overflow(out, "the context")


def _check(X, W_query, W_key, W_value) -> tuple[np.ndarray, ...]:
    X = check_matrix(X, "X")
    Ws = [
        check_matrix(W, n)
        for W, n in ((W_query, "W_query"), (W_key, "W_key"), (W_value, "W_value"))
    ]
    for W, name in zip(Ws, ("W_query", "W_key", "W_value"), strict=True):
        if W.shape[0] != X.shape[1]:
            raise ValueError(
                f"{name} has {W.shape[0]} rows but the tokens have d_in = {X.shape[1]}"
            )
    if Ws[0].shape[1] != Ws[1].shape[1]:
        raise ValueError(
            f"W_query and W_key need one width d_k, got {Ws[0].shape[1]} and {Ws[1].shape[1]}"
        )
    return X, *Ws


def step_work(t: int, d_in: int, d_k: int, d_v: int, cached: bool) -> dict[str, int]:
    """Multiplications of step t, by stage. -> {stage: exact int}

    Without a cache: the whole layer over t tokens, t d_in d_k for queries and keys, t d_in d_v
    for values, t^2 d_k scores (the masked half included, as a matrix product computes it) and
    t^2 d_v for the context. With a cache: one token projected, t scores, t rows summed.
    """
    t = check_positive_int(t, "t")
    rows = 1 if cached else t
    return {
        "queries": matmul_multiplies(rows, d_in, d_k),
        "keys": matmul_multiplies(rows, d_in, d_k),
        "values": matmul_multiplies(rows, d_in, d_v),
        "scores": matmul_multiplies(rows, d_k, t),
        "context": matmul_multiplies(rows, t, d_v),
    }


def generate_without_cache(X, W_query, W_key, W_value) -> list[Step]:
    """Token by token, the whole prefix recomputed each step; its last row kept. -> T Steps"""
    X, W_query, W_key, W_value = _check(X, W_query, W_key, W_value)
    d_in, d_k, d_v = X.shape[1], W_key.shape[1], W_value.shape[1]
    steps = []
    for t in range(1, X.shape[0] + 1):
        prefix = X[:t]
        Q, K, V = project(prefix, W_query), project(prefix, W_key), project(prefix, W_value)
        output = attend(Q, K, V)[-1]
        every_row = tuple(range(t))
        computed = {"queries": every_row, "keys": every_row, "values": every_row}
        steps.append(Step(t, output, step_work(t, d_in, d_k, d_v, cached=False), computed))
    return steps


def extend_cache(
    K: np.ndarray, V: np.ndarray, x: np.ndarray, W_key: np.ndarray, W_value: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Append one token's key and value rows. (t-1, d_k), (t-1, d_v), (d_in,) -> (t, d_k), (t, d_v)

    Returns new arrays; the cache passed in is left as it was.
    """
    x = x[None, :]
    return np.vstack([K, project(x, W_key)]), np.vstack([V, project(x, W_value)])


def generate_with_cache(X, W_query, W_key, W_value) -> list[Step]:
    """Token by token, one key and value row appended per step, one query against the cache."""
    X, W_query, W_key, W_value = _check(X, W_query, W_key, W_value)
    d_in, d_k, d_v = X.shape[1], W_key.shape[1], W_value.shape[1]
    K, V = np.empty((0, d_k)), np.empty((0, d_v))
    steps = []
    for t in range(1, X.shape[0] + 1):
        K, V = extend_cache(K, V, X[t - 1], W_key, W_value)
        q = project(X[t - 1 : t], W_query)
        output = attend(q, K, V)[0]
        newest = (t - 1,)
        computed = {"queries": newest, "keys": newest, "values": newest}
        steps.append(Step(t, output, step_work(t, d_in, d_k, d_v, cached=True), computed))
    return steps


def total_work(steps: list[Step]) -> int:
    """Multiplications over every step, every stage. -> exact int"""
    return sum(sum(step.work.values()) for step in steps)


def largest_difference(a: list[Step], b: list[Step]) -> float:
    """max |a - b| over every step's output: 0.0 when the two routes give the same floats."""
    if len(a) != len(b):
        raise ValueError(f"the routes ran {len(a)} and {len(b)} steps; compare equal runs")
    return max(float(np.max(np.abs(x.output - y.output))) for x, y in zip(a, b, strict=True))


@lru_cache(maxsize=1)
def book_generation() -> tuple[tuple[Step, ...], tuple[Step, ...]]:
    """Both routes over the book's six tokens with section 3.5's weights (seed 789).

    -> (without cache, with cache), six Steps each; d_in = 3, d_k = d_v = 2.
    """
    X, weights = book_inputs(), weights_section_3_5()
    return tuple(generate_without_cache(X, *weights)), tuple(generate_with_cache(X, *weights))


# --- The cache's size in real models --------------------------------------------------------


def check_model(model) -> Model:
    if not isinstance(model, Model):
        raise ValueError(
            f"model must be an attention.models.Model (one of MODELS), got {type(model).__name__}; "
            "a latent-attention model caches a compressed latent, not keys and values per head"
        )
    return model


def kv_values_per_token(model: Model) -> int:
    """Numbers cached per token: 2 (K and V) x layers x kv_heads x head_dim. -> exact int"""
    model = check_model(model)
    return 2 * model.layers * model.kv_heads * model.head_dim


def kv_cache_bytes(model: Model, tokens: int, batch: int = 1) -> int:
    """The cache's bytes after ``tokens`` tokens of ``batch`` sequences, at the model's precision.

    2 x layers x kv_heads x head_dim x bytes_per_value x tokens x batch -> exact int. This is the
    whole cache; a model with a sliding window may keep fewer tokens (see ``Model.window``).
    """
    tokens = check_positive_int(tokens, "tokens")
    batch = check_positive_int(batch, "batch")
    return kv_values_per_token(model) * model.bytes_per_value * tokens * batch
