"""The dropout figure in CPython: one pass, the run's statistics, every rate and switch."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from attention.basics import row_sums
from attention.dropout import death_probability, dropout_stats, expected_factor
from figures import dropout
from formatting import num, percent, vec
from tests.figures.probe import messages, readouts, widgets

WEIGHTS = dropout.causal_weights()
RATES = [round(0.05 * k, 2) for k in range(21)]


def test_causal_weights_are_section_3_5s():
    assert np.allclose(WEIGHTS.sum(axis=1), 1.0)
    assert np.all(np.triu(WEIGHTS, k=1) == 0.0)
    assert round(WEIGHTS[1, 0], 4) == 0.5517  # section 03's second row


@settings(max_examples=40)
@given(
    asks=st.lists(
        st.tuples(st.integers(0, 3), st.integers(1, 300), st.sampled_from([0.1, 0.5, 1.0])),
        min_size=1,
        max_size=6,
    ),
    scale=st.booleans(),
)
def test_a_run_is_one_draw_of_its_passes_however_its_masks_were_kept(asks, scale):
    """The figure keeps a run's keep masks and extends them for longer runs: every run is
    still exactly the one a single draw of its passes from the seed's stream gives."""
    for seed, n, p in asks:
        fresh = dropout.generator(seed, 1).random((n, *WEIGHTS.shape)) >= p
        np.testing.assert_array_equal(dropout.run_keep(seed, p, n, WEIGHTS.shape), fresh)
        ran = dropout.run(WEIGHTS, p, n, seed, scale)
        drawn = dropout_stats(WEIGHTS, p, n, dropout.generator(seed, 1), scale)
        np.testing.assert_array_equal(ran.dead_share, drawn.dead_share)
        np.testing.assert_array_equal(ran.mean_weights, drawn.mean_weights)


def test_default_run_is_the_posts_experiment():
    # Section 04: at p = 0.5 the first row dies on about half the passes (49.5% in the post),
    # the second on a quarter, and the scaled mean row sum walks to about 1 (0.998 in the post).
    view = dropout.view()
    shown = readouts(view)
    stats = dropout.run(WEIGHTS, 0.5, dropout.DEFAULT_DRAWS, dropout.DEFAULT_SEED)
    assert shown["row-1-dead"] == percent(stats.dead_share[0])
    assert shown["row-2-dead"] == percent(stats.dead_share[1])
    assert shown["mean-row-sum"] == num(stats.mean_row_sum, 3)
    assert shown["expected-dead"] == "50.0% and 25.0%"
    assert shown["factor"] == "× 2.00"
    n = dropout.DEFAULT_DRAWS
    assert abs(stats.dead_share[0] - 0.5) < 4 * math.sqrt(0.25 / n)
    assert abs(stats.dead_share[1] - 0.25) < 4 * math.sqrt(0.25 * 0.75 / n)
    assert abs(stats.mean_row_sum - 1.0) < 0.02
    single = dropout.one_pass(WEIGHTS, 0.5, dropout.DEFAULT_SEED)
    assert shown["pass-row-sums"] == vec(row_sums(single), 3)
    assert messages(view) == []


def test_scaling_off_halves_the_row_sum():
    # Section 04: "with scaling on, the mean row sum ... walks to 0.998; with it off, to 0.499".
    view = dropout.view()
    widgets(view)["Scale survivors by 1/(1 − p)"].value = False
    shown = readouts(view)
    assert abs(float(shown["mean-row-sum"]) - 0.5) < 0.01
    assert shown["expected-row-sum"] == "0.500"
    assert shown["factor"] == "off (× 1)"


@settings(max_examples=40, deadline=None)
@given(
    p=st.sampled_from(RATES),
    scale=st.booleans(),
    n=st.sampled_from(list(dropout.DRAWS.values())),
    clicks=st.integers(0, 2),
)
def test_any_state_matches_the_core(p, scale, n, clicks):
    view = dropout.view()
    controls = widgets(view)
    for _ in range(clicks):
        controls["Resample"].clicks += 1
    controls["Dropout rate p"].value = p
    controls["Scale survivors by 1/(1 − p)"].value = scale
    controls["Passes in the run"].value = n
    seed = dropout.DEFAULT_SEED + clicks
    stats = dropout.run(WEIGHTS, p, n, seed, scale)
    single = dropout.one_pass(WEIGHTS, p, seed, scale)
    deaths = death_probability(WEIGHTS, p)
    shown = readouts(view)
    assert shown["row-1-dead"] == percent(stats.dead_share[0])
    assert shown["mean-row-sum"] == num(stats.mean_row_sum, 3)
    assert shown["expected-row-sum"] == num(expected_factor(p, scale), 3)
    assert shown["expected-dead"] == f"{percent(deaths[0])} and {percent(deaths[1])}"
    assert shown["pass-row-sums"] == vec(row_sums(single), 3)
    assert shown["run"] == f"{seed} · {n:,}"
    # the ends of the slider are explained, never an exception
    assert bool(messages(view)) == (p in (0.0, 1.0))


def test_rate_one_explains_that_nothing_survives():
    view = dropout.view()
    widgets(view)["Dropout rate p"].value = 1.0
    assert "nothing" in readouts(view)["factor"]
    assert "every weight is dropped" in messages(view)[0]
    assert readouts(view)["row-1-dead"] == "100.0%"
    widgets(view)["Dropout rate p"].value = 0.5
    assert messages(view) == []
