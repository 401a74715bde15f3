"""The dropout figure in CPython: one pass, the run's statistics, every rate and switch."""

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from attention.basics import row_sums
from attention.dropout import (
    RUN_DRAWS,
    RUN_SEED,
    death_probability,
    expected_factor,
    one_pass,
    run,
)
from attention.masking import book_causal_weights
from figures import dropout
from formatting import num, percent, vec
from tests.figures.probe import driven, messages, readouts, widgets
from tests.strategies import examples

WEIGHTS = book_causal_weights()
RATES = [round(0.05 * k, 2) for k in range(21)]


def test_default_run_is_the_posts_experiment():
    # Section 04: at p = 0.5 the first row dies on about half the passes (49.5% in the post),
    # the second on a quarter, and the scaled mean row sum walks to about 1 (0.998 in the post).
    view = driven(dropout)
    shown = readouts(view)
    stats = run(WEIGHTS, 0.5, RUN_DRAWS, RUN_SEED)
    assert shown["row-1-dead"] == percent(stats.dead_share[0])
    assert shown["row-2-dead"] == percent(stats.dead_share[1])
    assert shown["mean-row-sum"] == num(stats.mean_row_sum, 3)
    assert shown["expected-dead"] == "50.0% and 25.0%"
    assert shown["factor"] == "× 2.00"
    n = RUN_DRAWS
    assert abs(stats.dead_share[0] - 0.5) < 4 * math.sqrt(0.25 / n)
    assert abs(stats.dead_share[1] - 0.25) < 4 * math.sqrt(0.25 * 0.75 / n)
    assert abs(stats.mean_row_sum - 1.0) < 0.02
    single = one_pass(WEIGHTS, 0.5, RUN_SEED)
    assert shown["pass-row-sums"] == vec(row_sums(single), 3)
    assert messages(view) == []


def test_scaling_off_halves_the_row_sum():
    # Section 04: "with scaling on, the mean row sum ... walks to 0.998; with it off, to 0.499".
    view = driven(dropout)
    widgets(view)["Scale survivors by 1/(1 − p)"].value = False
    shown = readouts(view)
    assert abs(float(shown["mean-row-sum"]) - 0.5) < 0.01
    assert shown["expected-row-sum"] == "0.500"
    assert shown["factor"] == "off (× 1)"


@settings(max_examples=examples(40), deadline=None)
@given(
    p=st.sampled_from(RATES),
    scale=st.booleans(),
    n=st.sampled_from(list(dropout.DRAWS.values())),
    clicks=st.integers(0, 2),
)
def test_any_state_matches_the_core(p, scale, n, clicks):
    view = driven(dropout)
    controls = widgets(view)
    for _ in range(clicks):
        controls["Resample"].clicks += 1
    controls["Dropout rate p"].value = p
    controls["Scale survivors by 1/(1 − p)"].value = scale
    controls["Passes in the run"].value = n
    seed = RUN_SEED + clicks
    stats = run(WEIGHTS, p, n, seed, scale)
    single = one_pass(WEIGHTS, p, seed, scale)
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
    view = driven(dropout)
    widgets(view)["Dropout rate p"].value = 1.0
    assert "nothing" in readouts(view)["factor"]
    assert "every weight is dropped" in messages(view)[0]
    assert readouts(view)["row-1-dead"] == "100.0%"
    widgets(view)["Dropout rate p"].value = 0.5
    assert messages(view) == []


def _rows(state: dropout.State) -> dict[str, str]:
    return {key: value for key, _, value in dropout.readouts(state)}


@settings(max_examples=examples(30), deadline=None)
@given(p=st.sampled_from(RATES), scaled=st.booleans(), seed=st.integers(0, 3))
def test_readouts_and_message_are_functions_of_the_state_alone(p, scaled, seed):
    # No Panel: a state's readout is the core's run and pass, formatted; its message is set
    # exactly at the slider's ends.
    state = dropout.State(p, scaled, 1_000, RUN_SEED + seed)
    stats = run(WEIGHTS, p, 1_000, RUN_SEED + seed, scaled)
    shown = _rows(state)
    assert shown["row-2-dead"] == percent(stats.dead_share[1])
    assert shown["mean-row-sum"] == num(stats.mean_row_sum, 3)
    assert shown["pass-row-sums"] == vec(row_sums(one_pass(WEIGHTS, p, RUN_SEED + seed, scaled)), 3)
    assert shown["run"] == f"{RUN_SEED + seed} · 1,000"
    assert bool(dropout.message(state)) == (p in (0.0, 1.0))


def test_factor_text_names_each_case():
    assert dropout.factor_text(dropout.State(p=0.5)) == "× 2.00"
    assert dropout.factor_text(dropout.State(p=0.5, scaled=False)) == "off (× 1)"
    assert dropout.factor_text(dropout.State(p=1.0)) == "none: nothing survives"
    assert "every weight is dropped" in dropout.message(dropout.State(p=1.0))
    assert "nothing is dropped" in dropout.message(dropout.State(p=0.0))
