"""scaling: the sqrt(d_k) divisor, post 2's section 02 ("Divide by 1.4142").

The post's figures are one Monte-Carlo sample each, so the tests check them with bounds derived
from the sampling error, never as exact values.
"""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings

from attention import scaling as sc
from attention.basics import softmax
from tests.strategies import arrays_T, examples

# "a few hundred" draws in the post: take the smallest plausible count, which gives the widest
# (most forgiving) sampling error when judging the post's single-sample numbers.
POST_DRAWS = 300
BIG = 20_000  # draws for estimating population quantities in these tests


def binomial_halfwidth(p: float, n: int, z: float = 4.0) -> float:
    """z standard errors of a proportion p estimated from n draws."""
    return z * math.sqrt(p * (1 - p) / n)


# --- the Jacobian ------------------------------------------------------------------------------


@settings(max_examples=examples(40), deadline=None)
@given(arrays_T(min_T=1, max_T=8, lo=-5.0, hi=5.0))
def test_jacobian_matches_torch_autograd(scores):
    s = softmax(scores)
    expected = torch.autograd.functional.jacobian(
        lambda w: torch.softmax(w, dim=-1), torch.from_numpy(scores)
    ).numpy()
    assert np.allclose(sc.softmax_jacobian(s), expected, rtol=0, atol=1e-14)


@settings(max_examples=examples(40), deadline=None)
@given(arrays_T(min_T=2, max_T=8, lo=-5.0, hi=5.0))
def test_peak_is_the_largest_jacobian_entry(scores):
    s = softmax(scores)
    J = sc.softmax_jacobian(s)
    assert math.isclose(sc.jacobian_peak(s), np.max(J), rel_tol=1e-12)
    # the peak sits on the diagonal: off-diagonal entries are -s_i s_j <= 0
    assert np.all(J - np.diag(np.diag(J)) <= 0)


def test_peak_stays_accurate_when_the_softmax_saturates():
    # s = softmax([0, -50, ..., -50]): 1 - s_0 is below float64's resolution next to 1, but the
    # peak s_0 (1 - s_0) is about 5 e^-50; a naive 1 - s_0 would give 0 there and report e^-50.
    s = softmax(np.array([0.0, -50, -50, -50, -50, -50]))
    assert 1.0 - s[0] == 0.0
    assert math.isclose(sc.jacobian_peak(s), 5 * math.exp(-50), rel_tol=1e-12)


def test_peak_is_vectorised_over_draws():
    s = softmax(np.random.default_rng(3).normal(size=(7, 6)))
    peaks = sc.jacobian_peak(s)
    assert peaks.shape == (7,)
    assert np.allclose(peaks, [sc.jacobian_peak(row) for row in s], rtol=0, atol=0)
    assert np.all(peaks <= 0.25)  # s (1 - s) <= 1/4


def test_peak_of_rows_down_the_first_axis_is_the_same():
    s = softmax(np.random.default_rng(4).normal(size=(9, 6)) * 20)
    s[0] = softmax(np.array([0.0, -50, -50, -50, -50, -50]))  # saturated: the careful branch
    np.testing.assert_array_equal(sc.jacobian_peak(s.T, axis=0), sc.jacobian_peak(s))


# --- the sampler ---------------------------------------------------------------------------------


def test_sampler_shape_and_reproducibility():
    a = sc.sample_scores(np.random.default_rng(1), d_k=64, n_draws=50)
    b = sc.sample_scores(np.random.default_rng(1), d_k=64, n_draws=50)
    assert a.shape == (50, 6) and np.array_equal(a, b)
    assert sc.sample_scores(np.random.default_rng(1), d_k=8, n_keys=3, n_draws=4).shape == (4, 3)


def test_sampler_keeps_the_shared_query():
    # With q shared, E[(q.k_0)^2 (q.k_1)^2] = E|q|^4 = d_k (d_k + 2); independent queries would
    # give d_k^2. For d_k = 4: 24 against 16. Var of the product is 9 E|q|^8 - 24^2.
    d_k, n = 4, 40_000
    s = sc.sample_scores(np.random.default_rng(11), d_k=d_k, n_draws=n)
    product = s[:, 0] ** 2 * s[:, 1] ** 2
    fourth = d_k * (d_k + 2)
    eighth = d_k * (d_k + 2) * (d_k + 4) * (d_k + 6)
    stderr = math.sqrt((9 * eighth - fourth**2) / n)
    assert abs(product.mean() - fourth) < 4 * stderr
    assert abs(product.mean() - d_k**2) > 4 * stderr


def test_sampler_agrees_with_explicit_vectors():
    # Brute force at d_k = 16: build q and the six keys, take the dot products. The share of
    # brute-force peaks below the sampler's (large-sample) median must be one half.
    d_k, n = 16, 4000
    rng = np.random.default_rng(5)
    q = rng.standard_normal((n, 1, d_k))
    keys = rng.standard_normal((n, 6, d_k))
    explicit = sc.jacobian_peak(softmax(np.sum(q * keys, axis=-1)))
    median = np.median(sc.dk_experiment(d_k, scaled=False, n_draws=BIG, seed=6).peaks)
    share = np.mean(explicit < median)
    assert abs(share - 0.5) < binomial_halfwidth(0.5, n) + binomial_halfwidth(0.5, BIG)


# --- the numbers of section 02 ---------------------------------------------------------------


def std_halfwidth(d_k: int, n: int, n_keys: int = 6, z: float = 4.0) -> float:
    """z standard errors of std/sqrt(d_k) over n draws of n_keys scores sharing one query.

    s^2 / d_k is a mean of R Z with R = |q|^2/d_k (var 2/d_k) and Z = mean_j z_j^2 (var 2/m),
    so Var(R Z) = (1 + 2/d_k)(1 + 2/m) - 1; the std's relative error is half the variance's.
    """
    return z * 0.5 * math.sqrt(((1 + 2 / d_k) * (1 + 2 / n_keys) - 1) / n)


@pytest.mark.parametrize(("d_k", "post_std"), [(64, 7.890), (4096, 63.5)])
def test_dot_product_std_tracks_sqrt_dk(d_k, post_std):
    # Section 02 of the source: "reading 7.890 against 8 at d_k = 64 and 63.5 against 64 at
    # 4,096". The page prints its figure's own seeded run (tests/pages/test_post2.py); here the
    # core's sample and the source's both lie within sampling error of the core's sqrt(d_k).
    stats = sc.dk_experiment(d_k, scaled=False, n_draws=4000, seed=1)
    assert stats.expected_std == math.sqrt(d_k)
    assert abs(stats.dot_std / stats.expected_std - 1) < std_halfwidth(d_k, 4000)
    # the source does not say how many draws it took; allow a run the size of the figure's
    assert abs(post_std / stats.expected_std - 1) < std_halfwidth(d_k, sc.N_DRAWS)


# The note's population medians, as (low, high) rounding intervals of the printed value.
POPULATION_MEDIANS = {
    2: (0.2245, 0.2255),  # 0.225
    64: (0.02345, 0.02355),  # 0.0235
    768: (1.25e-6, 1.35e-6),  # 1.3e-6
    4096: (2.35e-14, 2.45e-14),  # 2.4e-14
}


@pytest.mark.parametrize("d_k", sorted(POPULATION_MEDIANS))
def test_unscaled_median_matches_the_population_median(d_k):
    # A median m means half the draws fall below it: the share below the interval's ends must
    # bracket one half within the binomial error of n draws.
    n = 4000
    low, high = POPULATION_MEDIANS[d_k]
    peaks = sc.dk_experiment(d_k, scaled=False, n_draws=n, seed=2).peaks
    width = binomial_halfwidth(0.5, n)
    assert np.mean(peaks < high) > 0.5 - width
    assert np.mean(peaks < low) < 0.5 + width


@pytest.mark.parametrize(
    ("d_k", "post_median"), [(2, 0.220), (64, 0.022), (768, 3.1e-6), (4096, 4.8e-14)]
)
def test_post_medians_are_plausible_samples(d_k, post_median):
    # Section 02: "going 0.220 at d_k = 2 to 0.022 at 64 to 3.1e-6 at 768 to 4.8e-14 at 4,096".
    # A median of POST_DRAWS draws has half the population below it, up to the binomial error.
    peaks = sc.dk_experiment(d_k, scaled=False, n_draws=BIG, seed=3).peaks
    share = np.mean(peaks < post_median)
    assert abs(share - 0.5) < binomial_halfwidth(0.5, POST_DRAWS) + binomial_halfwidth(0.5, BIG)


@pytest.mark.parametrize(("d_k", "post_mean"), [(2, 0.208), (4096, 0.0063)])
def test_post_means_are_plausible_samples(d_k, post_mean):
    # Section 02: "The mean over the same draws falls only from 0.208 to 0.0063".
    peaks = sc.dk_experiment(d_k, scaled=False, n_draws=BIG, seed=4).peaks
    sd = float(np.std(peaks))
    bound = 4 * sd / math.sqrt(POST_DRAWS) + 4 * sd / math.sqrt(BIG)
    assert abs(post_mean - peaks.mean()) < bound


def test_mean_is_held_up_by_the_tail():
    # "...and never reaches the dead regime at all": at 4,096 the median is ~1e-14 and the
    # mean stays above the live threshold, ten orders of magnitude higher.
    stats = sc.dk_experiment(4096, scaled=False, n_draws=4000, seed=5)
    assert stats.median_peak < 1e-12
    assert stats.mean_peak > sc.LIVE_THRESHOLD


def test_about_a_third_stay_live_at_768():
    # Section 02: "at d_k = 768 with no divisor about a third of draws still have a live Jacobian".
    stats = sc.dk_experiment(768, scaled=False, n_draws=BIG, seed=6)
    assert abs(stats.live_share - 1 / 3) < binomial_halfwidth(1 / 3, POST_DRAWS)


@pytest.mark.parametrize("d_k", [2, 64, 768, 4096])
def test_scaled_column_sits_flat_near_0_23(d_k):
    # Section 02: "while the scaled column sits flat near 0.23 the whole way".
    stats = sc.dk_experiment(d_k, scaled=True, n_draws=4000, seed=7)
    assert abs(stats.median_peak - 0.23) < 0.015
    assert stats.live_share > 0.99
    assert abs(stats.dot_std / math.sqrt(d_k) - 1) < std_halfwidth(d_k, 4000)


def test_experiment_is_seeded_and_shaped():
    a = sc.dk_experiment(64, scaled=False, n_draws=100, seed=9)
    b = sc.dk_experiment(64, scaled=False, n_draws=100, seed=9)
    c = sc.dk_experiment(64, scaled=False, n_draws=100, seed=10)
    assert a.median_peak == b.median_peak and a.median_peak != c.median_peak
    assert a.weights.shape == (100, 6) and a.peaks.shape == (100,)
    assert np.allclose(a.weights.sum(axis=1), 1.0)


def test_bad_input_raises():
    with pytest.raises(ValueError, match="d_k"):
        sc.dk_experiment(0, scaled=True)
    with pytest.raises(ValueError, match="d_k"):
        sc.dk_experiment(2.5, scaled=True)
    with pytest.raises(ValueError, match="n_draws"):
        sc.dk_experiment(4, scaled=True, n_draws=0)
    with pytest.raises(ValueError, match="scaled"):
        sc.dk_experiment(4, scaled="yes")
    with pytest.raises(ValueError, match="seed"):
        sc.dk_experiment(4, scaled=True, seed=-1)
    with pytest.raises(ValueError, match="NaN"):
        sc.jacobian_peak(np.array([0.5, np.nan]))


def test_input_std_is_the_spread_the_softmax_sees():
    # Dividing by sqrt(d_k) cancels the growth: what the softmax receives has spread about 1.
    raw = sc.dk_experiment(4096, scaled=False, n_draws=400, seed=11)
    scaled = sc.dk_experiment(4096, scaled=True, n_draws=400, seed=11)
    assert raw.input_std == raw.dot_std
    assert scaled.dot_std == raw.dot_std
    assert scaled.input_std == scaled.dot_std / 64.0
    assert abs(scaled.input_std - 1) < std_halfwidth(4096, 400)


# --- the sweep the figure and the page use ---------------------------------------------------

SWEEP_WIDTHS = (2, 64, 768, 4096)


def test_sweep_runs_are_self_consistent():
    runs = sc.dk_sweep(SWEEP_WIDTHS, n_draws=300, seed=12)
    assert set(runs) == {(d, s) for d in SWEEP_WIDTHS for s in (False, True)}
    for (d_k, scaled), stats in runs.items():
        assert (stats.d_k, stats.scaled) == (d_k, scaled)
        assert stats.weights.shape == (300, sc.N_KEYS) and stats.peaks.shape == (300,)
        assert np.allclose(stats.weights.sum(axis=1), 1.0)
        assert np.array_equal(stats.peaks, sc.jacobian_peak(stats.weights))
        assert stats.median_peak == np.median(stats.peaks)
        assert stats.mean_peak == np.mean(stats.peaks)
        assert stats.live_share == np.mean(stats.peaks > sc.LIVE_THRESHOLD)
        assert stats.expected_std == math.sqrt(d_k)
        # the two columns of one width share their dot products
        assert stats.dot_std == runs[(d_k, not scaled)].dot_std
    # scaled weights are the unscaled ones with the logits divided by sqrt(d_k): undo it
    raw, scaled = runs[(64, False)].weights, runs[(64, True)].weights
    logits = np.log(raw) - np.log(raw[:, :1])
    assert np.allclose(softmax(logits / 8.0), scaled, rtol=1e-9)


def test_sweep_is_seeded():
    a = sc.dk_sweep((2, 64), seed=3)
    b = sc.dk_sweep((2, 64), seed=3)
    c = sc.dk_sweep((2, 64), seed=4)
    assert a[(64, False)].median_peak == b[(64, False)].median_peak
    assert a[(64, False)].median_peak != c[(64, False)].median_peak


@pytest.mark.parametrize("d_k", sorted(POPULATION_MEDIANS))
def test_sweep_has_the_experiments_law(d_k):
    # Each width of the sweep is distributed as a dk_experiment run: same population median,
    # same spread, and the flat scaled column.
    n = 4000
    runs = sc.dk_sweep(SWEEP_WIDTHS, n_draws=n, seed=13)
    low, high = POPULATION_MEDIANS[d_k]
    peaks = runs[(d_k, False)].peaks
    width = binomial_halfwidth(0.5, n)
    assert np.mean(peaks < high) > 0.5 - width
    assert np.mean(peaks < low) < 0.5 + width
    assert abs(runs[(d_k, False)].dot_std / math.sqrt(d_k) - 1) < std_halfwidth(d_k, n)
    assert abs(runs[(d_k, True)].median_peak - 0.23) < 0.015


def test_sweep_refuses_bad_input():
    with pytest.raises(ValueError, match="at least one"):
        sc.dk_sweep(())
    with pytest.raises(ValueError, match="d_k"):
        sc.dk_sweep((2, 0))
    with pytest.raises(ValueError, match="seed"):
        sc.dk_sweep((2,), seed=-1)
    with pytest.raises(ValueError, match="n_draws"):
        sc.dk_sweep((2,), n_draws=0)


@settings(max_examples=examples(60), deadline=None)
@given(arrays_T(min_T=1, max_T=8, lo=-60.0, hi=60.0))
def test_peak_matches_the_exact_all_pairs_formula(scores):
    # max_i s_i * sum_{j != i} s_j, every "1 - s_i" summed from the other weights.
    s = softmax(scores)
    exact = max(s[i] * np.sum(np.delete(s, i)) for i in range(len(s)))
    assert math.isclose(sc.jacobian_peak(s), exact, rel_tol=1e-12)


@pytest.mark.parametrize("shape", [(301,), (300,), (5, 301), (5, 300)])
def test_the_median_is_numpys_to_the_last_bit(shape):
    x = np.random.default_rng(len(shape) + shape[-1]).random(shape) ** 3
    axis = None if len(shape) == 1 else 1
    assert np.array_equal(sc.median(x, axis=axis), np.median(x, axis=axis))
