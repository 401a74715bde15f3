"""What parameter-free attention actually does to the book's tensor (post 1, section 06).

Measures of how decided the weights are (entropy, dynamic range), how far the context vectors
move from a flat average and from each other, and what the dot product is ranking (length).
Entropies are in bits; distances are Euclidean.
"""

from collections.abc import Sequence

import numpy as np

from attention._checks import (
    check_array,
    check_index,
    check_matrix,
    check_positive_int,
)
from attention.basics import context

_ROW_SUM_TOLERANCE = 1e-9
# Post 1's example, where the magnitude figure starts: the shortest embedding made 3x longer.
SCALE_EXAMPLE = 3.0


def _check_weights(weights) -> np.ndarray:
    """Rows of probabilities: non-negative and summing to 1 along the last axis."""
    w = check_array(weights, "weights", (1, 2))
    if np.any(w < 0.0):
        raise ValueError("weights must be non-negative")
    if np.any(np.abs(np.sum(w, axis=-1) - 1.0) > _ROW_SUM_TOLERANCE):
        raise ValueError("each row of weights must sum to 1")
    return w


def entropy_bits(weights: np.ndarray) -> np.ndarray | float:
    """Shannon entropy of each row in bits, with 0 log 0 = 0. (T, T) -> (T,); (T,) -> float"""
    w = _check_weights(weights)
    logs = np.log2(w, out=np.zeros_like(w), where=w > 0.0)
    h = -np.sum(w * logs, axis=-1)
    return float(h) if h.ndim == 0 else h


def max_entropy_bits(T: int) -> float:
    """Entropy of a flat choice among T options: log2 T, the ceiling for any row of T weights."""
    return float(np.log2(check_positive_int(T, "T")))


def entropy_fraction(weights: np.ndarray) -> np.ndarray | float:
    """Each row's entropy as a share of the ceiling log2 T. (T, T) -> (T,); (T,) -> float"""
    w = _check_weights(weights)
    T = w.shape[-1]
    if T == 1:
        raise ValueError("a single weight has no entropy to compare; need T >= 2")
    return entropy_bits(w) / max_entropy_bits(T)


def entropy_gap_bits(weights: np.ndarray) -> np.ndarray | float:
    """How far each row's entropy falls below log2 T, in bits. (T, T) -> (T,); (T,) -> float"""
    w = _check_weights(weights)
    return max_entropy_bits(w.shape[-1]) - entropy_bits(w)


def dynamic_range(weights: np.ndarray) -> float:
    """Largest weight over smallest weight anywhere in the matrix. (T, T) -> float"""
    w = _check_weights(weights)
    smallest = np.min(w)
    if smallest == 0.0:
        raise ValueError("a weight is exactly 0, so the dynamic range is unbounded")
    return float(np.max(w) / smallest)


def flat_weights(T: int) -> np.ndarray:
    """Every query weighting every token equally: 1/T in each cell. -> (T, T)"""
    T = check_positive_int(T, "T")
    return np.full((T, T), 1.0 / T)


def context_shift(weights: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Distance of each context vector from the flat-weight one (the plain mean of X).

    weights: (T, T), X: (T, d) -> (T,)
    """
    X = check_matrix(X)
    w = _check_weights(weights)
    if w.ndim != 2:
        raise ValueError(f"weights must be 2-D, got shape {w.shape}")
    Z = context(w, X)
    Z_flat = context(flat_weights(X.shape[0]), X)
    if Z.shape != Z_flat.shape:
        raise ValueError(f"weights must be ({X.shape[0]}, {X.shape[0]}), got {w.shape}")
    return np.linalg.norm(Z - Z_flat, axis=-1)


def pairwise_distances(X: np.ndarray) -> np.ndarray:
    """Euclidean distance between every pair of rows. X: (T, d) -> (T, T)"""
    X = check_matrix(X)
    diff = X[:, None, :] - X[None, :, :]  # (T, T, d)
    return np.linalg.norm(diff, axis=-1)


def mean_pairwise_distance(X: np.ndarray) -> float:
    """Mean distance over the T(T-1)/2 unordered pairs of rows. X: (T, d) -> float"""
    D = pairwise_distances(X)
    T = D.shape[0]
    if T < 2:
        raise ValueError("need at least two rows to measure a distance between them")
    upper = np.triu_indices(T, k=1)
    return float(np.mean(D[upper]))


def spread_ratio(Z: np.ndarray, X: np.ndarray) -> float:
    """How spread out Z is relative to X: ratio of their mean pairwise distances. -> float"""
    spread_X = mean_pairwise_distance(X)
    if spread_X == 0.0:
        raise ValueError("the rows of X coincide, so there is no spread to compare against")
    return mean_pairwise_distance(Z) / spread_X


def nearest_input(Z: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Index of the row of X nearest to each row of Z. Z: (T_z, d), X: (T, d) -> (T_z,) int"""
    Z, X = check_matrix(Z, "Z"), check_matrix(X, "X")
    if Z.shape[1] != X.shape[1]:
        raise ValueError(f"Z has {Z.shape[1]} features but X has {X.shape[1]}")
    D = np.linalg.norm(Z[:, None, :] - X[None, :, :], axis=-1)  # (T_z, T)
    return np.argmin(D, axis=1)


def norms(X: np.ndarray) -> np.ndarray:
    """Length of each embedding; its square is the diagonal of the scores. X: (T, d) -> (T,)"""
    return np.linalg.norm(check_matrix(X), axis=-1)


def scale_token(X: np.ndarray, i: int, factor: float) -> np.ndarray:
    """A copy of X with row i multiplied by factor. X: (T, d) -> (T, d)"""
    X = check_matrix(X).copy()
    i = check_index(i, X.shape[0])
    factor = float(check_array(factor, "factor", 0))
    X[i] *= factor
    return X


def cosine_scores(X: np.ndarray, tokens: Sequence[str] | None = None) -> np.ndarray:
    """Dot products divided by both lengths: cos of the angle between each pair. X: (T, d) -> (T, T)

    A zero vector has no direction; the error names it (by ``tokens`` if given).
    """
    X = check_matrix(X)
    n = norms(X)
    zero = np.flatnonzero(n == 0.0)
    if zero.size:
        i = int(zero[0])
        label = f"{tokens[i]!r} (row {i})" if tokens is not None else f"row {i}"
        raise ValueError(f"token {label} is a zero vector, so its cosine is undefined")
    unit = X / n[:, None]
    return unit @ unit.T


def largest_per_row(weights: np.ndarray) -> np.ndarray:
    """Column of each row's largest weight. (T_q, T) -> (T_q,) int"""
    return np.argmax(check_array(weights, "weights", 2), axis=-1)


def runner_up_per_row(weights: np.ndarray) -> np.ndarray:
    """Column of each row's second-largest weight. (T_q, T) -> (T_q,) int

    The largest weight once ``largest_per_row``'s column is set aside, so never the winner's
    own column: on a tie for first it is the other tied column (margin 0);
    among equal runners-up, the first.
    """
    w = check_array(weights, "weights", 2)
    if w.shape[1] < 2:
        raise ValueError("need at least two columns to have a runner-up")
    others = w.copy()
    others[np.arange(w.shape[0]), largest_per_row(w)] = -np.inf
    return np.argmax(others, axis=-1)


def winning_margin(weights: np.ndarray) -> np.ndarray:
    """How far each row's largest weight beats its second largest. (T_q, T) -> (T_q,)"""
    w = check_array(weights, "weights", 2)
    if w.shape[1] < 2:
        raise ValueError("need at least two columns to have a margin")
    top_two = np.sort(w, axis=-1)[:, -2:]
    return top_two[:, 1] - top_two[:, 0]


def attends_to_itself(weights: np.ndarray) -> np.ndarray:
    """Whether each row's largest weight sits on its own token. (T, T) -> (T,) bool"""
    w = check_array(weights, "weights", 2)
    if w.shape[0] != w.shape[1]:
        raise ValueError(f"weights must be square, got shape {w.shape}")
    return largest_per_row(w) == np.arange(w.shape[0])


def rows_won_by(weights: np.ndarray, j: int) -> int:
    """In how many rows column j holds the largest weight. (T_q, T), j -> int"""
    w = check_array(weights, "weights", 2)
    j = check_index(j, w.shape[1], "j")
    return int(np.sum(largest_per_row(w) == j))


def plane_coordinates(points: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Points placed in the plane where X spreads most (its two principal directions).

    points: (n, d), X: (T, d) with d >= 2 -> (n, 2). The plane passes through the mean of X;
    each axis is signed so that its largest component is positive, so the picture is stable.
    A drawing aid: distances within the plane are true distances only for points in it.
    """
    X = check_matrix(X)
    P = check_matrix(points, "points")
    if X.shape[1] < 2:
        raise ValueError(f"need at least 2 features for a plane, got {X.shape[1]}")
    if P.shape[1] != X.shape[1]:
        raise ValueError(f"points have {P.shape[1]} features but X has {X.shape[1]}")
    centre = X.mean(axis=0)
    _, _, Vt = np.linalg.svd(X - centre, full_matrices=False)  # rows: directions of spread
    axes = Vt[:2] if Vt.shape[0] >= 2 else np.eye(X.shape[1])[:2]
    signs = np.sign(axes[np.arange(2), np.argmax(np.abs(axes), axis=1)])
    return (P - centre) @ (axes * signs[:, None]).T


def mean_entropy_bits(weights: np.ndarray) -> float:
    """Average row entropy in bits: how decided a weight matrix is overall. (T, T) -> float"""
    h = entropy_bits(check_array(weights, "weights", 2))
    return float(np.mean(h))
