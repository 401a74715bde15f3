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
# Post 2's experiment: the seed and number of passes its figure starts with and its prose quotes.
RUN_SEED = 0
RUN_DRAWS = 10_000


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
    return keep_where(rng.random(shape), p)


def keep_where(u: np.ndarray, p: float) -> np.ndarray:
    """The keep mask that uniforms on [0, 1) give at rate p. u: any shape -> bool, same shape

    An entry is kept when u >= p, which has probability 1 - p.
    """
    return np.asarray(u) >= check_probability(p)


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
    mean_weights: np.ndarray  # (T, T) mean over passes; tends to weights when scaled


def dropout_stats(
    weights: np.ndarray, p: float, n_draws: int, rng: np.random.Generator, scale: bool = True
) -> DropoutStats:
    """Summarise ``n_draws`` independent dropout passes at once. weights: (T, T) -> DropoutStats

    The passes are those ``dropout`` makes of the weights stacked n_draws times (the same
    random numbers), summarised from the keep mask alone: no (n, T, T) array of dropped
    weights is built.
    """
    weights = check_array(weights, "weights", 2)
    n_draws = check_positive_int(n_draws, "n_draws")
    keep = keep_mask((n_draws, *weights.shape), p, rng)  # the draws n dropout passes make
    return pass_stats(weights, p, keep, scale)


def pass_stats(weights: np.ndarray, p: float, keep: np.ndarray, scale: bool = True) -> DropoutStats:
    """Summarise passes at rate p from what each kept. (T, T), (n, T, T) bool -> DropoutStats

    ``keep`` is the passes' keep masks, as ``keep_mask`` or ``keep_where`` make them.
    """
    weights = check_array(weights, "weights", 2)
    p = check_probability(p)
    keep = np.asarray(keep, dtype=bool)
    if keep.ndim != 3 or keep.shape[1:] != weights.shape or len(keep) == 0:
        raise ValueError(f"keep must be (n, *{weights.shape}) with n >= 1, got {keep.shape}")
    n_draws = len(keep)
    factor = 0.0 if p == 1.0 else (survivor_scale(p) if scale else 1.0)
    mean_weights = weights * factor * (np.sum(keep, axis=0) / n_draws)
    # A row is dead when none of its non-zero weights was kept. One column at a time, over
    # every pass: numpy reduces a short last axis far more slowly than it walks columns.
    live = weights != 0.0
    alive = np.zeros((n_draws, weights.shape[0]), dtype=bool)
    for j in range(weights.shape[1]):
        alive |= keep[:, :, j] & live[:, j]
    return DropoutStats(
        dead_share=np.sum(~alive, axis=0) / n_draws,
        mean_row_sum=float(np.sum(mean_weights) / weights.shape[0]),
        mean_weights=mean_weights,
    )


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


# --- The experiment: one pass and a run of many, each from its own random stream ------------


def generator(seed: int, stream: int) -> np.random.Generator:
    """The experiment's random numbers: stream 0 for the single pass, 1 for the run.

    SFC64 rather than numpy's default PCG64: PCG64 multiplies 128-bit numbers, which
    WebAssembly has no instruction for, so in the browser it is far slower to draw a run.
    """
    return np.random.Generator(np.random.SFC64([seed, stream]))


def one_pass(weights: np.ndarray, p: float, seed: int, scale: bool = True) -> np.ndarray:
    """The single pass shown for ``seed``. (T, T) -> (T, T)"""
    return dropout(weights, p, generator(seed, 0), scale)


# The current run's keep masks: (seed, p, shape) -> its generator and the masks drawn so far.
_run_keep: dict[tuple, tuple[np.random.Generator, np.ndarray]] = {}


def run_keep(seed: int, p: float, n_draws: int, shape: tuple[int, int]) -> np.ndarray:
    """What the first ``n_draws`` passes of ``seed``'s run keep at rate p. -> (n, *shape) bool

    The masks are kept, and extended when a longer run is asked for, so that changing the
    run length draws nothing new. A stream's numbers do not depend on how many are drawn at
    a time, so these are exactly the masks of one draw of n_draws passes. Only the current
    seed and rate's are kept, so memory stays one run's worth.
    """
    key = (seed, p, shape)
    rng, keep = _run_keep.get(key) or (generator(seed, 1), np.empty((0, *shape), dtype=bool))
    if len(keep) < n_draws:
        more = keep_where(rng.random((n_draws - len(keep), *shape)), p)
        keep = np.concatenate([keep, more]) if len(keep) else more
    _run_keep.clear()
    _run_keep[key] = (rng, keep)
    return keep[:n_draws]


def run(weights: np.ndarray, p: float, n_draws: int, seed: int, scale: bool = True) -> DropoutStats:
    """The run of ``n_draws`` passes shown for ``seed``. -> DropoutStats"""
    return pass_stats(weights, p, run_keep(seed, p, n_draws, weights.shape), scale)
