"""dropout: post 2's section 04 ("The row that sums to zero").

Dropout is random, so every check against the post (and against torch, whose stream differs)
is a statistical bound derived from the binomial or sampling error, not an exact value.
"""

import math
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import dropout as dr
from attention.fixtures import book_inputs
from attention.masking import book_causal_weights, masked_before_softmax
from attention.torch_rng import weights_section_3_5
from tests.strategies import examples, ndarrays_of_shape

X = book_inputs()
W_QUERY, W_KEY, _ = weights_section_3_5()
CAUSAL = masked_before_softmax((X @ W_QUERY) @ (X @ W_KEY).T, 2)  # the seed-789 causal weights


def z_bound(p: float, n: int, z: float = 4.0) -> float:
    """z standard errors of a proportion p over n draws."""
    return z * math.sqrt(p * (1 - p) / n)


def row_sum_sd(weights: np.ndarray, p: float, n: int, scale: bool) -> float:
    """Standard error of the mean row sum over n passes and all rows.

    A kept weight is a Bernoulli(1 - p) times a / (1 - p) (scaled) or times a (unscaled), so a
    row's sum has variance sum_j a_j^2 p / (1 - p), resp. sum_j a_j^2 p (1 - p); rows and
    passes are independent.
    """
    factor = p / (1 - p) if scale else p * (1 - p)
    per_row = factor * np.sum(weights**2, axis=1)
    return math.sqrt(np.sum(per_row) / (weights.shape[0] ** 2 * n))


def test_rows_die_as_the_post_reports():
    # Section 04: at p = 0.5 the first row is entirely zero on half the passes (expected: 50%)
    # and the second, with two live weights, on a quarter (25%). The page prints its own
    # seeded run's shares; tests/pages/test_post2.py checks those.
    n = 20_000
    stats = dr.dropout_stats(CAUSAL, 0.5, n, np.random.default_rng(0))
    expected = dr.death_probability(CAUSAL, 0.5)
    assert expected[:2].tolist() == [0.5, 0.25]
    assert np.all(np.abs(stats.dead_share - expected) < [z_bound(q, n) for q in expected])
    # The source's "49.5% over 20,000 draws" is a plausible sample of the core's expectation.
    assert abs(0.495 - expected[0]) < z_bound(expected[0], n)


@pytest.mark.parametrize(("scale", "post_value"), [(True, 0.998), (False, 0.499)])
def test_mean_row_sum_with_and_without_the_factor(scale, post_value):
    # Section 04: the mean row sum is 1 with the scaling factor and 1 - p without it. The
    # source's run read 0.998 and 0.499 over ten thousand draws; the page prints its own
    # (tests/pages/test_post2.py). Both are within sampling error of the core's expectation.
    n = 10_000
    expected = dr.expected_factor(0.5, scale)
    assert expected == (1.0 if scale else 0.5)
    stats = dr.dropout_stats(CAUSAL, 0.5, n, np.random.default_rng(1), scale=scale)
    sd = row_sum_sd(CAUSAL, 0.5, n, scale)
    assert abs(stats.mean_row_sum - expected) < 4 * sd
    assert abs(post_value - expected) < 4 * sd


def test_half_the_weights_go_and_survivors_double():
    # Section 04: "At a rate of 0.5, half the weights are zeroed and the survivors multiplied by
    # 1/0.5 = 2."
    assert dr.survivor_scale(0.5) == 2.0
    ones = np.ones((200, 200))
    dropped = dr.dropout(ones, 0.5, np.random.default_rng(2))
    assert set(np.unique(dropped).tolist()) <= {0.0, 2.0}
    assert abs(np.mean(dropped == 0.0) - 0.5) < z_bound(0.5, ones.size)


def test_first_row_is_the_zero_vector_or_doubled():
    # "the first token's context vector is the zero vector on half of all training steps"
    passes = dr.dropout(np.broadcast_to(CAUSAL, (1000, 6, 6)), 0.5, np.random.default_rng(3))
    rows = passes[:, 0].sum(axis=-1)
    assert set(np.round(rows, 12).tolist()) == {0.0, 2.0}


@settings(max_examples=examples(30), deadline=None)
@given(
    weights=st.integers(1, 5).flatmap(lambda T: ndarrays_of_shape((T, T), 0.0, 1.0)),
    p=st.floats(0.0, 0.9),
    seed=st.integers(0, 2**32 - 1),
    scale=st.booleans(),
)
def test_expectation_survives_only_with_the_factor(weights, p, seed, scale):
    # E[dropped] = weights (scaled) or (1 - p) weights (unscaled); each mean over n passes lies
    # within 5 standard errors: |a| sqrt(p / (1 - p) / n), resp. |a| sqrt(p (1 - p) / n).
    n = 4000
    stats = dr.dropout_stats(weights, p, n, np.random.default_rng(seed), scale=scale)
    target = weights if scale else (1 - p) * weights
    factor = p / (1 - p) if scale else p * (1 - p)
    sd = np.abs(weights) * math.sqrt(factor / n)
    assert np.all(np.abs(stats.mean_weights - target) <= 5 * sd + 1e-12)


def test_torch_follows_the_same_scaling_rule():
    # torch's dropout draws from its own generator, so compare the rule, not the numbers:
    # survivors are exactly w / (1 - p), the keep share is 1 - p within binomial error.
    p, n = 0.3, 100_000
    torch.manual_seed(0)
    theirs = torch.nn.functional.dropout(torch.full((n,), 0.7, dtype=torch.float64), p).numpy()
    ours = dr.dropout(np.full(n, 0.7), p, np.random.default_rng(4))
    for out in (theirs, ours):
        kept = out[out != 0.0]
        assert np.allclose(kept, 0.7 / (1 - p), rtol=1e-15, atol=0)
        assert abs(kept.size / n - (1 - p)) < z_bound(1 - p, n)
        assert abs(out.mean() - 0.7) < 4 * 0.7 * math.sqrt(p / (1 - p) / n)


def test_torch_dropout_kills_causal_rows_at_the_same_rate():
    p, n = 0.5, 20_000
    torch.manual_seed(1)
    batch = torch.from_numpy(np.broadcast_to(CAUSAL, (n, 6, 6)).copy())
    theirs = torch.nn.functional.dropout(batch, p).numpy()
    torch_dead = np.mean(np.all(theirs == 0.0, axis=-1), axis=0)
    ours = dr.dropout_stats(CAUSAL, p, n, np.random.default_rng(5)).dead_share
    expected = dr.death_probability(CAUSAL, p)
    for dead in (torch_dead, ours):
        assert np.all(np.abs(dead - expected) < [z_bound(q, n) for q in expected])


def test_extreme_rates():
    rng = np.random.default_rng(6)
    assert np.array_equal(dr.dropout(CAUSAL, 0.0, rng), CAUSAL)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no division-by-zero warning either
        assert np.array_equal(dr.dropout(CAUSAL, 1.0, rng), np.zeros((6, 6)))
        stats = dr.dropout_stats(CAUSAL, 1.0, 10, rng)
    assert np.all(stats.dead_share == 1.0) and stats.mean_row_sum == 0.0


def test_dropout_is_seeded():
    a = dr.dropout(CAUSAL, 0.5, np.random.default_rng(7))
    b = dr.dropout(CAUSAL, 0.5, np.random.default_rng(7))
    assert np.array_equal(a, b)


@settings(max_examples=examples(40), deadline=None)
@given(
    weights=st.integers(1, 5).flatmap(lambda T: ndarrays_of_shape((T, T), -1.0, 1.0)),
    p=st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]),
    n=st.integers(1, 50),
    seed=st.integers(0, 2**32 - 1),
    scale=st.booleans(),
)
def test_the_summary_is_that_of_n_dropout_passes(weights, p, n, seed, scale):
    """dropout_stats summarises, without building them, the passes dropout makes of the
    weights stacked n times from the same random numbers."""
    passes = dr.dropout(
        np.broadcast_to(weights, (n, *weights.shape)), p, np.random.default_rng(seed), scale
    )
    stats = dr.dropout_stats(weights, p, n, np.random.default_rng(seed), scale)
    np.testing.assert_array_equal(stats.dead_share, np.mean(np.all(passes == 0.0, axis=-1), axis=0))
    np.testing.assert_allclose(stats.mean_weights, passes.mean(axis=0), rtol=1e-12, atol=1e-12)
    assert stats.mean_row_sum == pytest.approx(float(passes.sum(axis=-1).mean()), abs=1e-12)


@pytest.mark.parametrize("p", [-0.1, 1.5, math.nan, math.inf, "0.5", True])
def test_bad_rates_raise(p):
    with pytest.raises(ValueError, match="p must"):
        dr.dropout(CAUSAL, p, np.random.default_rng(0))


def test_bad_input_raises():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="NaN"):
        dr.dropout(np.array([0.5, np.nan]), 0.5, rng)
    with pytest.raises(ValueError, match="n_draws"):
        dr.dropout_stats(CAUSAL, 0.5, 0, rng)
    with pytest.raises(ValueError, match="2-D"):
        dr.dropout_stats(np.ones(3), 0.5, 10, rng)
    with pytest.raises(ValueError, match="no survivor"):
        dr.survivor_scale(1.0)
    with pytest.raises(ValueError, match="keep must be"):
        dr.pass_stats(CAUSAL, 0.5, np.ones((10, 5, 6), dtype=bool))
    with pytest.raises(ValueError, match="keep must be"):
        dr.pass_stats(CAUSAL, 0.5, np.ones((0, 6, 6), dtype=bool))
    with pytest.raises(ValueError, match="p must"):
        dr.keep_where(np.zeros(3), 1.5)


def test_a_uniform_is_kept_from_the_rate_up():
    u = np.array([0.0, 0.2999, 0.3, 0.7, 0.9999])
    np.testing.assert_array_equal(dr.keep_where(u, 0.3), [False, False, True, True, True])
    assert not dr.keep_where(u, 1.0).any() and dr.keep_where(u, 0.0).all()


@pytest.mark.parametrize("p", [0.0, 0.1, 0.5, 0.9, 1.0])
@pytest.mark.parametrize("scale", [True, False])
def test_expected_factor_is_the_monte_carlo_mean(p, scale):
    # Scaled rows average to 1 (0 at p = 1, where nothing survives); unscaled ones to 1 - p.
    n = 10_000
    stats = dr.dropout_stats(CAUSAL, p, n, np.random.default_rng(3), scale=scale)
    expected = dr.expected_factor(p, scale)
    sd = row_sum_sd(CAUSAL, p, n, scale) if 0.0 < p < 1.0 else 0.0
    assert abs(stats.mean_row_sum - expected) <= 4 * sd + 1e-12
    assert expected == (0.0 if p == 1.0 else (1.0 if scale else 1.0 - p))


def test_expected_factor_refuses_bad_input():
    with pytest.raises(ValueError, match="p must"):
        dr.expected_factor(1.5)
    with pytest.raises(ValueError, match="scale"):
        dr.expected_factor(0.5, scale="yes")


def test_book_causal_weights_are_section_3_5s():
    np.testing.assert_array_equal(book_causal_weights(), CAUSAL)
    assert np.allclose(CAUSAL.sum(axis=1), 1.0)
    assert np.all(np.triu(CAUSAL, k=1) == 0.0)
    assert round(CAUSAL[1, 0], 4) == 0.5517  # section 03's second row


@settings(max_examples=examples(40))
@given(
    asks=st.lists(
        st.tuples(st.integers(0, 3), st.integers(1, 300), st.sampled_from([0.1, 0.5, 1.0])),
        min_size=1,
        max_size=6,
    ),
    scale=st.booleans(),
)
def test_a_run_is_one_draw_of_its_passes_however_its_masks_were_kept(asks, scale):
    """A run's keep masks are kept, and extended for longer runs: every run is
    still exactly the one a single draw of its passes from the seed's stream gives."""
    for seed, n, p in asks:
        fresh = dr.generator(seed, 1).random((n, *CAUSAL.shape)) >= p
        np.testing.assert_array_equal(dr.run_keep(seed, p, n, CAUSAL.shape), fresh)
        ran = dr.run(CAUSAL, p, n, seed, scale)
        drawn = dr.dropout_stats(CAUSAL, p, n, dr.generator(seed, 1), scale)
        np.testing.assert_array_equal(ran.dead_share, drawn.dead_share)
        np.testing.assert_array_equal(ran.mean_weights, drawn.mean_weights)
