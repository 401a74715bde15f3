"""Why the scores are divided by sqrt(d_k): variance growth and a vanishing softmax Jacobian.

A dot product q . k of two vectors with d_k independent unit-variance entries is a sum of d_k
terms of variance 1, so Var(q . k) = d_k and its standard deviation grows like sqrt(d_k).
The gradient leaving a softmax s = softmax(omega) is its Jacobian

    J = diag(s) - s s^T,   J_ij = s_i (delta_ij - s_j),

whose largest entry is max_i s_i (1 - s_i). As scores spread out one s_i tends to 1, the rest
to 0, and every entry of J tends to 0 with them: a saturated softmax passes no gradient.

The experiment of post 2's section 02: one query q ~ N(0, I) against n_keys = 6 keys
k_j ~ N(0, I), all of width d_k; the scores are q . k_j, optionally divided by sqrt(d_k);
report the median and mean of the Jacobian's largest entry over a few hundred draws, and the
share of draws where it exceeds 1e-3 (a "live" Jacobian). Population medians without the
divisor, from large simulations: about 0.225, 0.0235, 1.3e-6 and 2.4e-14 at d_k = 2, 64, 768
and 4096; with the divisor about 0.22 to 0.23 at every d_k. The median over a few hundred
draws scatters around these, and the mean stays far higher than the median because a minority
of draws keeps a live Jacobian.
"""

from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from attention._checks import check_array, check_positive_int
from attention.basics import softmax

N_KEYS = 6
N_DRAWS = 400
LIVE_THRESHOLD = 1e-3
# Post 2's sweep: the key widths its figure and prose report, and the seed both use.
SWEEP_D_KS: tuple[int, ...] = (2, 4, 8, 16, 32, 64, 128, 256, 512, 768, 1024, 2048, 4096, 8192)
SWEEP_SEED = 0


def sample_scores(
    rng: np.random.Generator, d_k: int, n_keys: int = N_KEYS, n_draws: int = N_DRAWS
) -> np.ndarray:
    """Raw scores q . k_j for independent draws of q and k_1..k_n ~ N(0, I_{d_k}).

    -> (n_draws, n_keys), unscaled.

    Sampled without building the vectors: given q, the n_keys dot products are independent
    N(0, |q|^2), and |q|^2 follows a chi-square law with d_k degrees of freedom. Drawing
    |q| and then n_keys standard normals gives exactly the joint law of the scores (including
    their dependence through the shared query) at a cost independent of d_k.
    """
    d_k = check_positive_int(d_k, "d_k")
    n_keys = check_positive_int(n_keys, "n_keys")
    n_draws = check_positive_int(n_draws, "n_draws")
    query_norm = np.sqrt(rng.chisquare(d_k, size=n_draws))  # (n_draws,)
    return query_norm[:, None] * rng.standard_normal((n_draws, n_keys))


def softmax_jacobian(s: np.ndarray) -> np.ndarray:
    """d softmax_i / d omega_j = s_i (delta_ij - s_j). s: (..., T) -> (..., T, T)"""
    s = check_array(s, "s", (1, 2))
    return s[..., :, None] * np.eye(s.shape[-1]) - s[..., :, None] * s[..., None, :]


def jacobian_peak(s: np.ndarray, axis: int = -1) -> np.ndarray:
    """The Jacobian's largest entry, max_i s_i (1 - s_i). s: (..., T) -> (...)

    For the row's largest weight, 1 - s_i is computed as the sum of the other weights, not by
    subtraction from 1, so a saturated row (s_i within 1e-16 of 1) still gives its true tiny
    peak instead of 0. Every other weight is at most 1/2, where 1 - s_i loses nothing. Only
    (..., T) temporaries, no (..., T, T) one: it runs on tens of thousands of rows per update.
    The rows run along ``axis`` (for many short rows, axis 0 reduces much faster).
    """
    s = check_array(s, "s", (1, 2))
    along = [1] * s.ndim
    along[axis] = -1
    is_top = np.arange(s.shape[axis]).reshape(along) == np.argmax(s, axis=axis, keepdims=True)
    others_of_top = np.sum(np.where(is_top, 0.0, s), axis=axis, keepdims=True)  # (..., 1)
    return np.max(np.where(is_top, s * others_of_top, s * (1.0 - s)), axis=axis)


def median(x: np.ndarray, axis: int | None = None) -> np.ndarray:
    """The median along ``axis`` (all of ``x`` if None), as np.quantile's 0.5, which is the
    same number: np.median imports numpy.ma (to check for NaN), the largest of numpy's packages,
    and every module the figures import is held in the reader's worker."""
    return np.quantile(x, 0.5, axis=axis)


class DkStats(NamedTuple):
    """One run of the d_k experiment. n = n_draws, m = n_keys."""

    d_k: int
    scaled: bool
    dot_std: float  # standard deviation of the raw dot products q . k; about sqrt(d_k)
    expected_std: float  # sqrt(d_k), the line the figure draws
    median_peak: float  # median over draws of max_i s_i (1 - s_i)
    mean_peak: float  # mean of the same; held up by the draws that stay live
    live_share: float  # fraction of draws with peak > LIVE_THRESHOLD
    weights: np.ndarray  # (n, m) the softmax rows, for the bar chart
    peaks: np.ndarray  # (n,) each draw's largest Jacobian entry

    @property
    def input_std(self) -> float:
        """Spread of what the softmax receives: dot_std, over sqrt(d_k) when scaled (about 1)."""
        return self.dot_std / self.expected_std if self.scaled else self.dot_std


def dk_experiment(
    d_k: int, scaled: bool, n_draws: int = N_DRAWS, seed: int = 0, n_keys: int = N_KEYS
) -> DkStats:
    """Sample n_draws score rows at width d_k, softmax them (divided by sqrt(d_k) if scaled).

    -> DkStats; the same seed gives the same numbers. Vectorised over draws: d_k = 4096 with
    a few hundred draws costs well under a millisecond.
    """
    if not isinstance(scaled, bool | np.bool_):
        raise ValueError(f"scaled must be True or False, got {scaled!r}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    rng = np.random.default_rng(seed)
    dots = sample_scores(rng, d_k, n_keys, n_draws)  # (n, m)
    divisor = np.sqrt(d_k) if scaled else 1.0
    weights = softmax(dots / divisor)
    peaks = jacobian_peak(weights)
    return DkStats(
        d_k=int(d_k),
        scaled=bool(scaled),
        dot_std=float(np.std(dots)),
        expected_std=float(np.sqrt(d_k)),
        median_peak=float(median(peaks)),
        mean_peak=float(np.mean(peaks)),
        live_share=float(np.mean(peaks > LIVE_THRESHOLD)),
        weights=weights,
        peaks=peaks,
    )


def dk_sweep(
    d_ks: Sequence[int], n_draws: int = N_DRAWS, seed: int = 0, n_keys: int = N_KEYS
) -> dict[tuple[int, bool], DkStats]:
    """The experiment at several key widths at once, each with and without the divisor.

    d_ks: K widths -> {(d_k, scaled): DkStats}, 2K runs from one seed.

    Every width gets its own query norms |q|^2 ~ chi-square(d_k) but all widths share one set
    of standard normals (common random numbers), so each run has exactly the law of a
    ``dk_experiment`` run while the curves across d_k are smooth rather than jittery; the
    scaled and unscaled runs of a width share their dot products, as in the figure's two
    columns. One vectorised pass: far cheaper than 2K separate runs.
    """
    widths = [check_positive_int(d, "d_k") for d in d_ks]
    if not widths:
        raise ValueError("d_ks must name at least one key width")
    n_draws = check_positive_int(n_draws, "n_draws")
    n_keys = check_positive_int(n_keys, "n_keys")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    rng = np.random.default_rng(seed)
    K = len(widths)
    dfs = np.array(widths, dtype=np.float64)
    query_norm = np.sqrt(rng.chisquare(dfs[:, None], size=(K, n_draws)))  # (K, n)
    # Keys first: numpy reduces thousands of rows of six far faster down the first axis than
    # along the last.
    keys = np.ascontiguousarray(rng.standard_normal((n_draws, n_keys)).T)  # (m, n)
    dots = query_norm * keys[:, None, :]  # (m, K, n)
    dot_std = np.std(dots, axis=(0, 2))  # (K,)
    runs: dict[tuple[int, bool], DkStats] = {}
    for scaled in (False, True):
        divisor = np.sqrt(dfs)[:, None] if scaled else 1.0
        weights = softmax(dots / divisor, axis=0)  # (m, K, n)
        peaks = jacobian_peak(weights.reshape(n_keys, K * n_draws), axis=0).reshape(K, n_draws)
        medians, means = median(peaks, axis=1), np.mean(peaks, axis=1)
        live = np.mean(peaks > LIVE_THRESHOLD, axis=1)
        for k, d_k in enumerate(widths):
            runs[(d_k, scaled)] = DkStats(
                d_k=d_k,
                scaled=scaled,
                dot_std=float(dot_std[k]),
                expected_std=float(np.sqrt(d_k)),
                median_peak=float(medians[k]),
                mean_peak=float(means[k]),
                live_share=float(live[k]),
                weights=weights[:, k].T,
                peaks=peaks[k],
            )
    return runs


@lru_cache(maxsize=8)
def post_sweep(seed: int = SWEEP_SEED) -> dict[tuple[int, bool], DkStats]:
    """``dk_sweep`` over SWEEP_D_KS for one seed, kept: a figure asks again on every redraw.

    -> {(d_k, scaled): DkStats}; the result is shared between callers, so do not modify it.
    """
    return dk_sweep(SWEEP_D_KS, seed=seed)
