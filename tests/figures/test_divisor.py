"""The divisor figure in CPython: the experiment's numbers, every control, speed at 4096."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention.scaling import SWEEP_D_KS, SWEEP_SEED, dk_sweep
from figures import divisor
from formatting import peak_text, percent, std_text
from tests.figures.probe import driven, messages, readouts, widgets
from tests.strategies import examples


def _expected(d_k: int, scaled: bool, seed: int = SWEEP_SEED):
    return dk_sweep(SWEEP_D_KS, seed=seed)[(d_k, scaled)]


def test_default_readouts_are_the_sweeps_numbers():
    shown = readouts(driven(divisor))
    stats = _expected(divisor.DEFAULT_D_K, False)
    assert shown["divisor"] == "1"
    assert shown["dot-std"] == std_text(stats.dot_std)
    assert shown["sqrt-dk"] == std_text(math.sqrt(divisor.DEFAULT_D_K))
    assert shown["median-peak"] == peak_text(stats.median_peak)
    assert shown["mean-peak"] == peak_text(stats.mean_peak)
    assert shown["live-share"] == percent(stats.live_share)
    assert shown["seed"] == "0 · 400"
    assert messages(driven(divisor)) == []


def test_the_slider_reaches_4096_and_beyond():
    assert min(SWEEP_D_KS) == 2 and max(SWEEP_D_KS) >= 4096
    assert {2, 64, 768, 4096} <= set(SWEEP_D_KS)  # the widths the post reads off


@settings(max_examples=examples(40), deadline=None)
@given(d_k=st.sampled_from(SWEEP_D_KS), scaled=st.booleans(), clicks=st.integers(0, 3))
def test_any_state_matches_the_core(d_k, scaled, clicks):
    view = driven(divisor)
    controls = widgets(view)
    for _ in range(clicks):
        controls["Resample"].clicks += 1
    controls["Key width d_k"].value = d_k
    controls["Divide the scores by"].value = scaled
    stats = _expected(d_k, scaled, SWEEP_SEED + clicks)
    shown = readouts(view)
    assert shown["median-peak"] == peak_text(stats.median_peak)
    assert shown["mean-peak"] == peak_text(stats.mean_peak)
    assert shown["dot-std"] == std_text(stats.dot_std)
    assert shown["seed"].startswith(f"{SWEEP_SEED + clicks} ·")
    # one number, one format: the divisor reads as the √d_k readout beside it does
    assert shown["divisor"] == (f"√{d_k} = {shown['sqrt-dk']}" if scaled else "1")
    assert shown["sqrt-dk"] == std_text(stats.expected_std)
    assert messages(view) == []


def test_unscaled_median_collapses_and_scaled_stays_flat():
    # Section 02: unscaled, the median falls off a cliff (4.8e-14 at 4,096 in the post); scaled,
    # it "sits flat near 0.23 the whole way".
    view = driven(divisor)
    controls = widgets(view)
    controls["Key width d_k"].value = 4096
    assert float(readouts(view)["median-peak"]) < 1e-9
    controls["Divide the scores by"].value = True
    assert abs(float(readouts(view)["median-peak"]) - 0.23) < 0.03


def test_resample_changes_the_draws():
    view = driven(divisor)
    before = readouts(view)["dot-std"]
    widgets(view)["Resample"].clicks += 1
    assert readouts(view)["dot-std"] != before
    assert readouts(view)["seed"].startswith("1 ·")


def _rows(state: divisor.State) -> dict[str, str]:
    return {key: value for key, _, value in divisor.readouts(state)}


@settings(max_examples=examples(20), deadline=None)
@given(d_k=st.sampled_from(SWEEP_D_KS), scaled=st.booleans(), seed=st.integers(0, 2))
def test_readouts_are_a_function_of_the_state_alone(d_k, scaled, seed):
    # No Panel: the readout at a state is the sweep's statistics for that seed, formatted.
    stats = _expected(d_k, scaled, SWEEP_SEED + seed)
    shown = _rows(divisor.State(d_k, scaled, SWEEP_SEED + seed))
    assert shown["median-peak"] == peak_text(stats.median_peak)
    assert shown["live-share"] == percent(stats.live_share)
    assert shown["divisor"] == (f"√{d_k} = {std_text(math.sqrt(d_k))}" if scaled else "1")
    assert shown["seed"] == f"{SWEEP_SEED + seed} · 400"


def test_a_width_outside_the_sweep_is_refused_with_a_value_error():
    with pytest.raises(ValueError):
        divisor.readouts(divisor.State(d_k=3))
