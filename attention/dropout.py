"""Dropout on the attention weights, inverted as every framework does it (section 3.5.2).

During training each weight is kept with probability 1 - p and zeroed otherwise; the kept ones
are multiplied by 1/(1 - p) so that the expectation survives:

    dropped_ij = b_ij / (1 - p) * weights_ij,  b_ij ~ Bernoulli(1 - p),  E[dropped_ij] = weights_ij

Rows therefore sum to 1 in expectation, not on any single pass, and a causal row with k
non-zero weights is zeroed entirely with probability p**k: at p = 0.5 the first token's row
(one weight) dies on half the passes, the second's (two weights) on a quarter.
Without the factor (``scale=False``) the expectation shrinks to (1 - p) * weights.
"""

from typing import NamedTuple

import numpy as np

from attention._checks import check_array, check_positive_int, check_probability

BOOK_RATE = 0.5  # the book's demonstration rate
GPT_RATES = (0.1, 0.2)  # what real GPT training runs use


def survivor_scale(p: float) -> float:
    """The factor 1/(1 - p) applied to kept weights. p in [0, 1) -> float >= 1"""
    p = check_probability(p)
    if p == 1.0:
        raise ValueError("p = 1 drops every weight, so no survivor exists to scale")
    return 1.0 / (1.0 - p)


def dropout(
    weights: np.ndarray, p: float, rng: np.random.Generator, scale: bool = True
) -> np.ndarray:
    """One training pass of dropout. weights: (..., T) any shape -> same shape

    Each entry is kept with probability 1 - p (and divided by 1 - p if ``scale``). p = 1
    returns zeros without dividing by zero; p = 0 returns the weights unchanged.
    """
    weights = check_array(weights, "weights", (1, 2, 3, 4))
    p = check_probability(p)
    if p == 1.0:
        return np.zeros_like(weights)
    dropped = weights * keep_mask(weights.shape, p, rng)
    return dropped * survivor_scale(p) if scale else dropped


def keep_mask(shape: tuple[int, ...], p: float, rng: np.random.Generator) -> np.ndarray:
    """Which entries a dropout pass keeps, each with probability 1 - p. -> bool, ``shape``

    p = 1 keeps nothing and draws no random numbers.
    """
    if p == 1.0:
        return np.zeros(shape, dtype=bool)
    return rng.random(shape) >= p  # P(u >= p) = 1 - p for u uniform on [0, 1)


def death_probability(weights: np.ndarray, p: float) -> np.ndarray:
    """Chance that dropout zeroes a whole row: p to the number of its non-zero weights.

    weights: (T, T) -> (T,)
    """
    weights = check_array(weights, "weights", 2)
    p = check_probability(p)
    return p ** np.count_nonzero(weights, axis=-1).astype(np.float64)


class DropoutStats(NamedTuple):
    """Monte-Carlo summary of n dropout passes over a (T, T) weight matrix."""

    dead_share: np.ndarray  # (T,) fraction of passes in which the row is all zero
    mean_row_sum: float  # mean over passes and rows of each row's sum; 1 when scaled
    row_sums: np.ndarray  # (n, T) every pass's row sums
    mean_weights: np.ndarray  # (T, T) mean over passes; tends to weights when scaled


def dropout_stats(
    weights: np.ndarray, p: float, n_draws: int, rng: np.random.Generator, scale: bool = True
) -> DropoutStats:
    """Run ``n_draws`` independent dropout passes at once. weights: (T, T) -> DropoutStats

    The passes are those ``dropout`` makes of the weights stacked n_draws times (the same
    random numbers), summarised from the keep mask so that no (n, T, T) array of dropped
    weights is built: 10,000 passes of a 6 x 6 matrix take a few milliseconds.
    """
    weights = check_array(weights, "weights", 2)
    n_draws = check_positive_int(n_draws, "n_draws")
    p = check_probability(p)
    keep = keep_mask((n_draws, *weights.shape), p, rng)  # the draws n dropout passes make
    factor = 0.0 if p == 1.0 else (survivor_scale(p) if scale else 1.0)
    # Per pass and row, the kept weights' sum and how many non-zero weights were kept, as
    # one (n, T*T) @ (T*T, 2T) product: numpy's reductions over an axis of six, or batches of
    # tiny products, are several times slower than one plain matrix product.
    rows = weights.shape[0]
    kept = keep.reshape(n_draws, weights.size).astype(np.float64)  # 1 where the weight was kept
    both = kept @ _row_blocks(weights * factor, (weights != 0.0) * 1.0)
    row_sums, alive = both[:, :rows], both[:, rows:]  # (n, T) each
    return DropoutStats(
        dead_share=np.mean(alive == 0.0, axis=0),
        mean_row_sum=float(np.mean(row_sums)),
        row_sums=row_sums,
        mean_weights=weights * factor * np.mean(kept, axis=0).reshape(weights.shape),
    )


def _row_blocks(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(R, C), (R, C) -> (R*C, 2R): M[i*C + j, i] = a[i, j] and M[i*C + j, R + i] = b[i, j].

    A pass's flattened (R*C,) keep mask times M gives each row's sum of kept ``a`` and of
    kept ``b`` side by side.
    """
    rows, cols = a.shape
    eye = np.eye(rows)
    blocks = [(m[:, :, None] * eye[:, None, :]).reshape(rows * cols, rows) for m in (a, b)]
    return np.concatenate(blocks, axis=1)


def expected_factor(p: float, scale: bool = True) -> float:
    """E[dropped weight] / weight: what a row's sum averages to, for rows that sum to 1.

    1 with the survivor scaling (p < 1), 1 - p without it, and 0 at p = 1 (nothing survives).
    """
    p = check_probability(p)
    if not isinstance(scale, bool | np.bool_):
        raise ValueError(f"scale must be True or False, got {scale!r}")
    if p == 1.0:
        return 0.0
    return 1.0 if scale else 1.0 - p
