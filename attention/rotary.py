"""Rotary position embeddings (RoPE): positions enter by rotating pairs of coordinates.

Su et al. 2021, *RoFormer: Enhanced Transformer with Rotary Position Embedding* (arXiv
2104.09864), section 3.2: a query or key ``x`` of even width ``d`` at position ``m`` is
rotated pair by pair, pair ``i`` (counted from 1) by the angle ``m * theta_i``, with

    theta_i = base ** (-2 (i - 1) / d),    i = 1 .. d/2,    base = 10,000 in the paper

(Llama 3 uses base 500,000: ``attention.models.LLAMA3_8B.rope_base``). A rotation of the
plane is orthogonal, so norms are kept, and rotating a query by ``m theta`` and a key by
``n theta`` turns their dot product into ``q . R((n - m) theta) k``: the score depends on the
positions only through their offset (the paper's section 3.2.2). In exact arithmetic moving both
positions by the same ``s`` changes nothing; in float64 it changes the score by rounding
alone, and ``shift_error`` measures by how much.

Pairing convention: this module pairs the paper's neighbours ``(x_{2i-1}, x_{2i})``, that is
``x[0::2]`` with ``x[1::2]`` (interleaved pairs, as Meta's Llama code does with complex
numbers). GPT-NeoX and Hugging Face's Llama pair the first half with the second half instead
(``x[:d/2]`` with ``x[d/2:]``); the two are the same rotation after permuting the coordinates,
which converted weights do, so both give the same scores.

    from attention import rotary
    rotary.frequencies(8)  # array([1.0, 0.1, 0.01, 0.001])
"""

import math
import numbers

import numpy as np

from attention._checks import check_array, check_matrix, check_positive_int, check_vector

ROPE_BASE = 10000.0  # the paper's base (RoFormer, section 3.2.2)


def check_base(base) -> float:
    """A finite base greater than 1 (a base of 1 would give every pair the same frequency)."""
    if isinstance(base, bool) or not isinstance(base, numbers.Real):
        raise ValueError(f"base must be a number, got {base!r}")
    base = float(base)
    if not (math.isfinite(base) and base > 1.0):
        raise ValueError(f"base must be a finite number above 1 (the paper uses 10000), got {base}")
    return base


def check_even_width(d, name: str = "d") -> int:
    """An even width >= 2: the coordinates go in pairs."""
    d = check_positive_int(d, name)
    if d % 2:
        raise ValueError(
            f"{name} must be even, got {d}: rotary embeddings rotate coordinates in pairs, so "
            "use a head width such as 64 or 128"
        )
    return d


def frequencies(d: int, base: float = ROPE_BASE) -> np.ndarray:
    """theta_i = base^(-2(i-1)/d) for the d/2 pairs, in radians per token. d -> (d/2,)"""
    d, base = check_even_width(d), check_base(base)
    i = np.arange(d // 2)  # i - 1 in the paper's counting from 1
    return base ** (-2.0 * i / d)


def wavelengths(d: int, base: float = ROPE_BASE) -> np.ndarray:
    """Tokens per full turn of each pair, 2 pi / theta_i. d -> (d/2,)"""
    return 2.0 * np.pi / frequencies(d, base)


def full_turns_within(d: int, context: int, base: float = ROPE_BASE) -> int:
    """How many of the d/2 pairs turn at least once within ``context`` positions (0 .. context-1).

    A pair turns a full circle once its angle (context - 1) * theta_i reaches 2 pi.
    """
    context = check_positive_int(context, "context")
    return int(np.count_nonzero((context - 1) * frequencies(d, base) >= 2.0 * np.pi))


def _positions(positions, count: int, name: str) -> np.ndarray:
    """Positions as a float64 vector of ``count`` entries, one per row of x."""
    p = check_array(positions, name, (0, 1))
    if p.ndim == 0 or p.shape[0] != count:
        raise ValueError(f"{name} must hold one position per row ({count}), got shape {p.shape}")
    return p


def angles(positions, d: int, base: float = ROPE_BASE) -> np.ndarray:
    """Each position's angle for each pair, m * theta_i. positions: (T,) -> (T, d/2)"""
    p = check_vector(positions, "positions")
    return np.multiply.outer(p, frequencies(d, base))


def rotate(x, positions, base: float = ROPE_BASE) -> np.ndarray:
    """Rotate pair i of each row by its position times theta_i. (T, d), (T,) -> (T, d)

    Also (d,) with one position -> (d,). Pairs are interleaved, (x[2j], x[2j+1]) (the
    paper's (x_{2i-1}, x_{2i})):
        y[2j]   = x[2j] cos(m theta_j) - x[2j+1] sin(m theta_j)
        y[2j+1] = x[2j] sin(m theta_j) + x[2j+1] cos(m theta_j)
    """
    x = check_array(x, "x", (1, 2))
    single = x.ndim == 1
    X = x[None, :] if single else x  # (T, d)
    d = check_even_width(X.shape[1], "the width of x")
    if single:
        p = check_array(positions, "position", (0, 1)).reshape(-1)
        if p.shape != (1,):
            raise ValueError(f"a single vector x takes one position, got shape {p.shape}")
    else:
        p = _positions(positions, X.shape[0], "positions")
    phi = angles(p, d, base)  # (T, d/2)
    cos, sin = np.cos(phi), np.sin(phi)
    even, odd = X[:, 0::2], X[:, 1::2]  # (T, d/2) each
    Y = np.empty(X.shape)  # C order whatever x's layout, so each row sums the same way
    Y[:, 0::2] = even * cos - odd * sin
    Y[:, 1::2] = even * sin + odd * cos
    return Y[0] if single else Y


def rotary_scores(Q, K, positions_q, positions_k, base: float = ROPE_BASE) -> np.ndarray:
    """Unscaled scores of rotated queries against rotated keys. (T_q, d), (T_k, d) -> (T_q, T_k)

    positions_q: (T_q,), positions_k: (T_k,). Entry [a, b] is rotate(q_a, m_a) . rotate(k_b, n_b);
    divide by sqrt(d) before the softmax as in chapter 3.
    """
    Q, K = check_matrix(Q, "Q"), check_matrix(K, "K")
    if Q.shape[1] != K.shape[1]:
        raise ValueError(f"Q and K must have the same width, got {Q.shape[1]} and {K.shape[1]}")
    with np.errstate(over="ignore", invalid="ignore"):
        scores = rotate(Q, positions_q, base) @ rotate(K, positions_k, base).T
    if not np.all(np.isfinite(scores)):
        raise ValueError("the rotary scores overflowed float64; Q and K are too large")
    return scores


def score(q, k, m, n, base: float = ROPE_BASE) -> float:
    """One query at position m against one key at position n. (d,), (d,) -> scalar

    Summed as ``shifted_scores`` sums, so that score(m + s, n + s) - score(m, n) measures the
    rotation's rounding, not two summation orders.
    """
    return float(shifted_scores(q, k, m, n, [0], base)[0])


def shifted_scores(q, k, m, n, shifts, base: float = ROPE_BASE) -> np.ndarray:
    """q at m + s against k at n + s, for each shift s. (d,), (d,), shifts (S,) -> (S,)"""
    q, k = check_vector(q, "q"), check_vector(k, "k")
    if q.shape != k.shape:
        raise ValueError(f"q and k must have the same width, got {q.shape[0]} and {k.shape[0]}")
    s = check_vector(shifts, "shifts")
    Qs = rotate(np.broadcast_to(q, (s.size, q.size)), m + s, base)  # (S, d)
    Ks = rotate(np.broadcast_to(k, (s.size, k.size)), n + s, base)
    with np.errstate(over="ignore", invalid="ignore"):
        scores = (Qs * Ks).sum(axis=1)  # row by row, the same order for any number of shifts
    if not np.all(np.isfinite(scores)):
        raise ValueError("the rotary score overflowed float64; q and k are too large")
    return scores


def shift_error(q, k, m, n, shifts, base: float = ROPE_BASE) -> float:
    """max over s of |score(m + s, n + s) - score(m, n)|: zero in exact arithmetic.

    (d,), (d,), shifts (S,) -> scalar. What float64 rounding alone does to the score.
    """
    return float(np.max(np.abs(shifted_scores(q, k, m, n, shifts, base) - score(q, k, m, n, base))))


def pair(x, i: int) -> np.ndarray:
    """Pair i of x, counted from 1 as in the paper: (x_{2i-1}, x_{2i}). (d,) -> (2,)"""
    x = check_vector(x, "x")
    d = check_even_width(x.size, "the width of x")
    if isinstance(i, bool) or not isinstance(i, numbers.Integral) or not 1 <= i <= d // 2:
        raise ValueError(f"pair i must be an integer from 1 to {d // 2}, got {i!r}")
    return x[2 * (i - 1) : 2 * i].copy()


def angle_between(u, v) -> float:
    """The signed angle from v to u in radians, in [-pi, pi]. (2,), (2,) -> scalar"""
    u, v = check_vector(u, "u"), check_vector(v, "v")
    if u.shape != (2,) or v.shape != (2,):
        raise ValueError(f"u and v must be 2-D points, got shapes {u.shape} and {v.shape}")
    return math.remainder(math.atan2(u[1], u[0]) - math.atan2(v[1], v[0]), 2.0 * math.pi)


def example_query_key(d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A query and a key of width d with standard normal entries, from numpy's seeded PCG64.

    d -> (d,), (d,). Stand-ins for one head's projected query and key: rotary embeddings act
    after the projections of chapter 3, on whatever vectors they produce.
    """
    d = check_even_width(d)
    rng = np.random.default_rng(seed)
    return rng.standard_normal(d), rng.standard_normal(d)
