"""Parameter-free self-attention: scores, weights, context vectors.

Section 3.3 of Raschka's *Build a Large Language Model (From Scratch)*: each token's scores are
its dot products with every token, the weights are those scores softmaxed along each row, and
the context vectors are the weighted averages of the embeddings.

    scores = X X^T,  weights = softmax_row(scores),  context = weights X
    X: (T, d),  scores, weights: (T, T),  context: (T, d)
"""

import numpy as np

from attention._checks import (
    check_array,
    check_index,
    check_matrix,
    check_positive_int,
    check_square,
    check_vector,
    checked_matmul,
)


def scores(X: np.ndarray) -> np.ndarray:
    """Every token's dot product with every token. X: (T, d) -> (T, T)"""
    X = check_matrix(X)
    return checked_matmul(X, X.T, "scores", "the embeddings")  # inf would be NaN weights


def query_scores(X: np.ndarray, i: int) -> np.ndarray:
    """One query's scores: token i dotted with every token. X: (T, d), i -> (T,)"""
    X = check_matrix(X)
    i = check_index(i, X.shape[0])
    return checked_matmul(X, X[i], "scores", "the embeddings")


def softmax(scores: np.ndarray, axis: int = -1) -> np.ndarray:
    """Exponentiate and normalise along ``axis``. (..., T) -> (..., T)

    The row maximum is subtracted first, so any finite input gives finite weights
    (exp of the largest entry is exp(0) = 1). Entries equal to -inf get weight 0 (that is
    how a causal mask hides the future); NaN, +inf, or a row with nothing but -inf has no
    meaningful weights and raises ValueError instead of returning NaN.
    """
    scores = np.asarray(scores, dtype=np.float64)
    if scores.size == 0:
        raise ValueError("softmax of an empty array")
    if np.any(np.isnan(scores)) or np.any(scores == np.inf):
        raise ValueError("scores contain NaN or +inf")
    if np.any(np.all(scores == -np.inf, axis=axis)):
        raise ValueError("a row of scores is entirely -inf (every position masked)")
    shifted = scores - np.max(scores, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)


def sum_normalise(scores: np.ndarray, axis: int = -1) -> np.ndarray:
    """Divide each score by its row's sum, the normalisation softmax replaces. (..., T) -> (..., T)

    Negative scores are allowed on purpose: they give negative "weights", and a row whose
    scores nearly cancel gives huge ones. Only an exactly zero sum is refused.
    """
    s = check_array(scores, "scores", (1, 2, 3, 4))
    total = np.sum(s, axis=axis, keepdims=True)
    if np.any(total == 0.0):
        raise ValueError("a row of scores sums to 0, so dividing by the sum is undefined")
    return s / total


def context(weights: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Weighted averages of the embeddings.

    weights: (T,) -> (d,) for one query; weights: (T_q, T) -> (T_q, d) for many. X: (T, d)
    """
    X = check_matrix(X)
    w = check_array(weights, "weights", (1, 2))
    if w.shape[-1] != X.shape[0]:
        raise ValueError(f"weights have {w.shape[-1]} columns but X has {X.shape[0]} tokens")
    # divide-by-sum weights can be huge (sum_normalise), so the average can overflow
    return checked_matmul(w, X, "the context vectors", "the weights or embeddings")


def attend(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The three steps of section 3.3 at once.

    X: (T, d) -> scores (T, T), weights (T, T), context (T, d)
    """
    omega = scores(X)
    alpha = softmax(omega, axis=-1)
    return omega, alpha, context(alpha, X)


def dot_terms(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    """A dot product shown term by term. x, y: (d,) -> products (d,), their sum"""
    x, y = check_vector(x, "x"), check_vector(y, "y")
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same length, got {x.shape} and {y.shape}")
    products = x * y
    return products, float(np.sum(products))


def loop_scores_steps(X: np.ndarray) -> list[tuple[int, int, np.ndarray, float]]:
    """The double loop of section 3.3, one entry per cell in loop order (row by row).

    X: (T, d) -> T*T tuples (i, j, terms (d,), value), where terms are the elementwise
    products of x_i and x_j and value is their sum, the score for cell [i, j].
    """
    X = check_matrix(X)
    T = X.shape[0]
    steps = []
    for i in range(T):
        for j in range(T):
            terms, value = dot_terms(X[i], X[j])
            steps.append((i, j, terms, value))
    return steps


def loop_scores(X: np.ndarray, steps: int | None = None) -> np.ndarray:
    """The score grid filled cell by cell, stopped after ``steps`` cells. X: (T, d) -> (T, T)

    Cells the loop has not reached yet are NaN (a figure draws them blank); ``steps=None``
    runs the whole loop, giving a grid with no NaN.
    """
    X = check_matrix(X)
    T = X.shape[0]
    if steps is None:
        steps = T * T
    if isinstance(steps, bool) or not isinstance(steps, int | np.integer) or steps < 0:
        raise ValueError(f"steps must be a non-negative integer, got {steps!r}")
    grid = np.full((T, T), np.nan)
    for i, j, _, value in loop_scores_steps(X)[:steps]:
        grid[i, j] = value
    return grid


def matmul_scores(X: np.ndarray) -> np.ndarray:
    """The same grid as one expression, X @ X.T. X: (T, d) -> (T, T)"""
    return scores(X)


def max_abs_difference(a: np.ndarray, b: np.ndarray) -> float:
    """Largest |a - b| over all entries of two finite arrays of one shape. -> float"""
    a = check_array(a, "a", tuple(range(1, 5)))
    b = check_array(b, "b", tuple(range(1, 5)))
    if a.shape != b.shape:
        raise ValueError(f"shapes differ: {a.shape} and {b.shape}")
    return float(np.max(np.abs(a - b)))


def symmetry_error(M: np.ndarray) -> float:
    """How far a square matrix is from symmetric: max over i, j of |M_ij - M_ji|. (T, T) -> float"""
    M = check_square(M)
    return float(np.max(np.abs(M - M.T)))


def score_dot_products(T: int) -> int:
    """Dot products in one score matrix: one per (query, key) pair. -> T^2"""
    T = check_positive_int(T, "T")
    return T * T


def score_multiplies(T: int, d: int) -> int:
    """Multiplications in one score matrix: T^2 dot products of d terms. -> T^2 d (exact int)"""
    return score_dot_products(T) * check_positive_int(d, "d")


def contributions(weights: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Each token's share of one context vector: row j is weight_j * x_j. (T,), (T, d) -> (T, d)

    The rows add up to ``context(weights, X)``; a figure stacks them to show the average forming.
    """
    X = check_matrix(X)
    w = check_array(weights, "weights", 1)
    if w.shape[0] != X.shape[0]:
        raise ValueError(f"weights have {w.shape[0]} entries but X has {X.shape[0]} tokens")
    return w[:, None] * X


def improper_weights(weights: np.ndarray) -> np.ndarray:
    """Which weights no probability could be: below 0 or above 1. (..., T) -> (..., T) bool

    Dividing by the sum can produce both (section 04); softmax never does.
    """
    w = check_array(weights, "weights", (1, 2))
    return (w < 0.0) | (w > 1.0)


def filled_difference(partial: np.ndarray, full: np.ndarray) -> float:
    """Largest |partial - full| over the cells ``partial`` has filled (non-NaN). (T, T) x2 -> float

    Compares a half-run loop grid with the matmul grid; a grid with nothing filled yet has no
    difference to report and raises.
    """
    p = check_array(partial, "partial", 2, finite=False)
    f = check_array(full, "full", 2)
    if p.shape != f.shape:
        raise ValueError(f"shapes differ: {p.shape} and {f.shape}")
    filled = ~np.isnan(p)
    if not filled.any():
        raise ValueError("no cell is filled yet, so there is nothing to compare")
    if not np.all(np.isfinite(p[filled])):
        raise ValueError("partial contains infinity")
    return float(np.max(np.abs(p[filled] - f[filled])))


def row_sums(a: np.ndarray) -> np.ndarray | float:
    """Sum along the last axis: the divide-by-sum denominator, or a check that weights total 1.

    (T,) -> float; (T_q, T) -> (T_q,)
    """
    s = np.sum(check_array(a, "a", (1, 2)), axis=-1)
    return float(s) if s.ndim == 0 else s


def agreeing_cells(partial: np.ndarray, full: np.ndarray, decimals: int = 4) -> tuple[int, int]:
    """How many cells ``partial`` has filled, and how many of those print as ``full`` does.

    (T, T) x2 -> (filled, agreeing). Printed digits are the comparison that does not depend on
    the numpy build: the last bit of a sum depends on the order its terms are added, which
    differs between BLAS libraries (and between CPython and the browser).
    """
    p = check_array(partial, "partial", 2, finite=False)
    f = check_array(full, "full", 2)
    if p.shape != f.shape:
        raise ValueError(f"shapes differ: {p.shape} and {f.shape}")
    filled = ~np.isnan(p)
    same = np.round(p[filled], decimals) == np.round(f[filled], decimals)
    return int(filled.sum()), int(same.sum())
