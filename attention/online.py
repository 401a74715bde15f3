"""Attention without the T x T matrix: the online softmax behind FlashAttention (post 3).

The softmax of a row of scores needs its maximum (to subtract) and its sum of exponentials
(to divide by), and both seem to need the whole row first. They do not: keys can arrive in
tiles, and a running maximum m and a running sum ℓ are corrected as each tile comes in
(Milakov and Gimelshein 2018, "Online normalizer calculation for softmax", arXiv:1805.02867).
When a tile raises the maximum from m to m_new, every exponential summed so far was taken
against the old maximum, so the sum is rescaled by exp(m - m_new) instead of recomputed:

    s_j = q . k_j / sqrt(d_k)                      one tile's scores,  j in [a, b)
    m~ = max_j s_j,  P~_j = exp(s_j - m~),  ℓ~ = sum_j P~_j
    m_new = max(m, m~),  ℓ_new = exp(m - m_new) ℓ + exp(m~ - m_new) ℓ~
    o_new = (exp(m - m_new) ℓ / ℓ_new) o + (exp(m~ - m_new) P~ / ℓ_new) V[a:b]

Dao et al. 2022 (FlashAttention, arXiv:2205.14135, Algorithm 1) carry the output o the same
way, so the (T, T) score matrix is never stored: only o (T, d_v), m and ℓ (T numbers each;
``ell`` in the code) and one tile of scores. (Their loop runs over key tiles outside and
query blocks inside; here query blocks are outside. Each row sees the same updates in the
same order either way.) After the last tile, m is the row's maximum, ℓ its softmax
denominator and o its attention output: equal to the full computation up to rounding, and
bit for bit equal to it when one tile holds every key (``full_attention``; the tests check
both).

Shapes: q (d_k,) one query row or Q (T_q, d_k) all of them; K (T, d_k); V (T, d_v).
"""

import math
from typing import NamedTuple

import numpy as np

from attention._checks import (
    check_array,
    check_index,
    check_matrix,
    check_positive_int,
    checked_matmul,
)
from attention.basics import softmax
from attention.cost import score_matrix_bytes

# The figure's small example: T keys of width d, drawn from a seeded generator.
EXAMPLE_T = 12
EXAMPLE_D = 4
EXAMPLE_SEED = 3
EXAMPLE_QUERY = 7  # its running maximum holds for three tiles of 3 keys, then rises
EXAMPLE_TILE = 3
# The memory comparison's tile: 128 queries by 128 keys. An illustrative size, not one the
# papers fix (FlashAttention derives its block sizes from the on-chip memory of the card).
MEMORY_TILE = 128


class TileStep(NamedTuple):
    """The running state after one tile of keys, keys[0]:keys[1], for queries[0]:queries[1].

    m, ell: the running maximum and sum, float for one query row, (rows,) for a block;
    o: the partial output, the softmax-weighted average of the values seen so far,
    (d_v,) for one row, (rows, d_v) for a block.
    """

    queries: tuple[int, int]
    keys: tuple[int, int]
    m: float | np.ndarray
    ell: float | np.ndarray
    o: np.ndarray


def example(T: int = EXAMPLE_T, d: int = EXAMPLE_D, seed: int = EXAMPLE_SEED):
    """Queries, keys and values of standard normal entries. -> Q, K, V: (T, d) each"""
    T, d = check_positive_int(T, "T"), check_positive_int(d, "d")
    rng = np.random.default_rng(seed)
    Q, K, V = (rng.standard_normal((T, d)) for _ in range(3))
    return Q, K, V


def _check_kv(K, V) -> tuple[np.ndarray, np.ndarray]:
    K, V = check_matrix(K, "K"), check_matrix(V, "V")
    if K.shape[0] != V.shape[0]:
        raise ValueError(f"K has {K.shape[0]} keys but V has {V.shape[0]} values; one per token")
    return K, V


def _check_qkv(q, K, V) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    q = check_array(q, "q", (1, 2))
    K, V = _check_kv(K, V)
    if q.shape[-1] != K.shape[1]:
        raise ValueError(f"q has width {q.shape[-1]} but K has width {K.shape[1]}; both are d_k")
    return q, K, V


def tile_bounds(T: int, tile: int) -> list[tuple[int, int]]:
    """Where each tile of ``tile`` keys starts and stops, the last maybe shorter. -> ceil(T/tile)"""
    T, tile = check_positive_int(T, "T"), check_positive_int(tile, "tile")
    return [(a, min(a + tile, T)) for a in range(0, T, tile)]


def tile_scores(q: np.ndarray, K_tile: np.ndarray) -> np.ndarray:
    """One tile's scaled scores. q: (d_k,) or (rows, d_k), K_tile: (n, d_k) -> (n,) or (rows, n)"""
    scores = checked_matmul(q, K_tile.T, "the scores", "q and K")
    return scores / np.sqrt(K_tile.shape[1])


def fold_tile(m, ell, o, s, V_tile):
    """Fold one tile's scores s (..., n) and values V_tile (n, d_v) into the state (m, ell, o)."""
    m_tile = np.max(s, axis=-1)
    P = np.exp(s - m_tile[..., None])  # largest entry exp(0) = 1: no overflow
    ell_tile = np.sum(P, axis=-1)
    m_new = np.maximum(m, m_tile)
    old = np.exp(m - m_new)  # exp(-inf) = 0 on the first tile, when ell and o are still 0
    new = np.asarray(np.exp(m_tile - m_new))
    ell_new = np.asarray(old * ell + new * ell_tile)
    # divide after scaling P, as softmax does: with one tile this is softmax(s) @ V exactly
    weights = (new[..., None] * P) / ell_new[..., None]
    o_new = (old * ell / ell_new)[..., None] * o + checked_matmul(
        weights, V_tile, "the output", "V"
    )
    return m_new, ell_new, o_new


def online_row(q, K, V, tile: int, causal: bool = False, position: int | None = None):
    """One query row through the key tiles. q: (d_k,), K: (T, d_k), V: (T, d_v)

    -> output (d_v,), steps: one ``TileStep`` per tile visited (m, ell floats, o (d_v,)).
    With ``causal`` the query sits at ``position`` and sees keys 0..position only: the
    tile holding it is cut after it and later tiles are skipped.
    """
    q, K, V = _check_qkv(q, K, V)
    if q.ndim != 1:
        raise ValueError(
            f"q must be one query row (d_k,), got shape {q.shape}; use online_attention"
        )
    tile = check_positive_int(tile, "tile")
    T = K.shape[0]
    if causal:
        if position is None:
            raise ValueError("a causal query needs its position: pass position=i, 0 <= i < T")
        T = check_index(position, T, "position") + 1
    elif position is not None:
        check_index(position, T, "position")
    m, ell, o = -math.inf, 0.0, np.zeros(V.shape[1])
    steps = []
    queries = (position, position + 1) if position is not None else (0, 1)
    for a, b in tile_bounds(T, tile):
        m, ell, o = fold_tile(m, ell, o, tile_scores(q, K[a:b]), V[a:b])
        m, ell = float(m), float(ell)
        steps.append(TileStep(queries, (a, b), m, ell, o))
    return o, steps


def online_attention(Q, K, V, tile: int, causal: bool = False):
    """Every query row, in blocks of ``tile`` rows against tiles of ``tile`` keys.

    Q: (T, d_k) or one row (d_k,), K: (T, d_k), V: (T, d_v) -> output (T, d_v) or (d_v,),
    steps: one ``TileStep`` per (query block, key tile) visited, in order.

    With ``causal``, query i sees keys 0..i: a key tile that starts after a block's last
    query is skipped, and the tile on the diagonal has its entries above it set to -inf
    (every row still sees the tile's first key, since blocks and tiles line up).
    A single row q is treated as the last query (it sees every key) unless it is causal,
    in which case use ``online_row`` with its position.
    """
    Q, K, V = _check_qkv(Q, K, V)
    tile = check_positive_int(tile, "tile")
    if Q.ndim == 1:
        return online_row(Q, K, V, tile, causal, K.shape[0] - 1 if causal else None)
    if causal and Q.shape[0] != K.shape[0]:
        raise ValueError(
            f"causal attention pairs query i with key i, so Q needs one row per key: Q has "
            f"{Q.shape[0]} rows, K {K.shape[0]}"
        )
    T_q, T = Q.shape[0], K.shape[0]
    out = np.empty((T_q, V.shape[1]))
    steps = []
    for r0, r1 in tile_bounds(T_q, tile):
        m, ell, o = np.full(r1 - r0, -math.inf), np.zeros(r1 - r0), np.zeros((r1 - r0, V.shape[1]))
        for a, b in tile_bounds(T, tile):
            if causal and a > r1 - 1:
                break  # this tile and the rest lie above the diagonal
            s = tile_scores(Q[r0:r1], K[a:b])
            if causal:
                rows, cols = np.arange(r0, r1)[:, None], np.arange(a, b)[None, :]
                s = np.where(cols > rows, -np.inf, s)
            m, ell, o = fold_tile(m, ell, o, s, V[a:b])
            steps.append(TileStep((r0, r1), (a, b), m.copy(), ell.copy(), o.copy()))
        out[r0:r1] = o
    return out, steps


def full_attention(Q, K, V, causal: bool = False):
    """The whole score matrix at once, for comparison: softmax(Q K^T / sqrt(d_k)) V.

    Q: (T_q, d_k) or (d_k,), K: (T, d_k), V: (T, d_v) -> (T_q, d_v) or (d_v,).
    A causal single row is the last query (it sees every key).
    """
    Q, K, V = _check_qkv(Q, K, V)
    s = tile_scores(Q, K)
    if causal and Q.ndim == 2:
        if Q.shape[0] != K.shape[0]:
            raise ValueError(
                f"causal attention pairs query i with key i, so Q needs one row per key: Q has "
                f"{Q.shape[0]} rows, K {K.shape[0]}"
            )
        s = np.where(np.triu(np.ones(s.shape, dtype=bool), k=1), -np.inf, s)
    return checked_matmul(softmax(s, axis=-1), V, "the output", "V")


def full_row(q, K, V, causal: bool = False, position: int | None = None) -> np.ndarray:
    """One row of ``full_attention``; causal, the row at ``position`` sees keys 0..position.

    q: (d_k,), K: (T, d_k), V: (T, d_v) -> (d_v,)
    """
    q, K, V = _check_qkv(q, K, V)
    if causal:
        if position is None:
            raise ValueError("a causal query needs its position: pass position=i, 0 <= i < T")
        stop = check_index(position, K.shape[0], "position") + 1
        K, V = K[:stop], V[:stop]
    return full_attention(q, K, V)


def row_normalizer(q, K, causal: bool = False, position: int | None = None) -> tuple[float, float]:
    """The full row's maximum and softmax denominator sum_j exp(s_j - max). -> (m, ell)"""
    q = check_array(q, "q", 1)
    K = check_matrix(K, "K")
    if causal:
        if position is None:
            raise ValueError("a causal query needs its position: pass position=i, 0 <= i < T")
        K = K[: check_index(position, K.shape[0], "position") + 1]
    s = tile_scores(q, K)
    m = float(np.max(s))
    return m, float(np.sum(np.exp(s - m)))


def ulps(difference: float, V) -> float:
    """A difference in units in the last place of the largest |value|. -> float

    An output entry is a weighted average of a column of V, so its size is at most max |V|,
    and its rounding error is counted against that scale: 1.0 is one float64 step there.
    """
    V = check_matrix(V, "V")
    scale = float(np.max(np.abs(V)))
    if scale == 0.0:
        raise ValueError("V is all zeros: every output is exactly 0, there is no scale to count in")
    return float(difference) / float(np.spacing(scale))


def max_difference(a, b) -> float:
    """Largest |a - b| between the tiled and the full result. -> float"""
    a, b = check_array(a, "a", (1, 2)), check_array(b, "b", (1, 2))
    if a.shape != b.shape:
        raise ValueError(f"shapes differ: {a.shape} and {b.shape}")
    return float(np.max(np.abs(a - b)))


def visited_tiles(T: int, tile: int, causal: bool = False) -> int:
    """(query block, key tile) pairs ``online_attention`` visits: n^2, or n(n+1)/2 causal."""
    n = len(tile_bounds(T, tile))
    return n * (n + 1) // 2 if causal else n * n


def tiled_extra_elements(T: int, tile: int) -> int:
    """Numbers the tiled version holds beyond its inputs and output: 2T + tile^2.

    A running maximum and sum per query row (2T), and one (tile, tile) block of scores
    (a block of ``tile`` queries against a tile of ``tile`` keys; capped at T x T).
    """
    T, tile = check_positive_int(T, "T"), check_positive_int(tile, "tile")
    side = min(tile, T)
    return 2 * T + side * side


def output_elements(T: int, d_v: int) -> int:
    """The output both versions write: T rows of d_v numbers. -> T d_v"""
    return check_positive_int(T, "T") * check_positive_int(d_v, "d_v")


class Memory(NamedTuple):
    """Bytes of one head's attention at T tokens, full against tiled."""

    scores: int  # the (T, T) score matrix the full version stores
    tiled: int  # what the tiled version keeps instead: m, ell and one tile of scores
    output: int  # the (T, d_v) output, written by both


def memory(T: int, d_v: int, tile: int, bytes_per_value: int = 2) -> Memory:
    """Exact byte counts for one head: the T x T matrix against the tiled state."""
    bytes_per_value = check_positive_int(bytes_per_value, "bytes_per_value")
    return Memory(
        scores=score_matrix_bytes(T, bytes_per_value),
        tiled=tiled_extra_elements(T, tile) * bytes_per_value,
        output=output_elements(T, d_v) * bytes_per_value,
    )
