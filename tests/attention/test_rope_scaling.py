"""rope_scaling: how position interpolation, NTK-aware scaling, YaRN's by-parts rule and
Llama 3.1's rule change each rotary pair's period (post 3), against PyTorch for Llama 3.1's
rule and against the papers' own statements for the rest."""

import math

import numpy as np
import pytest
import torch

from attention import rope_scaling as rs
from attention.rotary import frequencies


def torch_llama3(theta: np.ndarray, s: float, L: int, low: float, high: float) -> np.ndarray:
    """Llama 3.1's rule written in torch from its description: periods under L / high kept,
    over L / low divided by s, a linear blend in L / period between."""
    freqs = torch.tensor(theta, dtype=torch.float64)
    wavelen = 2 * torch.pi / freqs
    smooth = ((L / wavelen - low) / (high - low)).clamp(0.0, 1.0)
    blended = (1 - smooth) * freqs / s + smooth * freqs
    return blended.numpy()


def test_llama_3_1s_rule_is_the_by_parts_ramp_from_1_to_4_turns():
    sc = rs.LLAMA31_8B
    theta = frequencies(sc.width, sc.base)
    ours = rs.llama3(theta, sc.factor, sc.trained, low=1.0, high=4.0)
    np.testing.assert_allclose(ours, torch_llama3(theta, 8.0, 8192, 1.0, 4.0), rtol=1e-15, atol=0)
    np.testing.assert_allclose(rs.scaled(sc, "own"), ours, rtol=1e-15, atol=0)


def test_interpolation_stretches_every_period_by_s():
    for sc in rs.SCALINGS:
        before = rs.periods(frequencies(sc.width, sc.base))
        np.testing.assert_allclose(rs.scaled_periods(sc, "interpolation"), sc.factor * before)
        assert rs.changes(sc, "interpolation") == (0, sc.width // 2, 0)


def test_ntk_aware_keeps_the_first_period_and_stretches_the_last_by_s():
    """The YaRN paper's section 3.1: b' = b s^(|D| / (|D| - 2))."""
    for sc in rs.SCALINGS:
        d = sc.width
        assert rs.ntk_base(d, sc.base, sc.factor) == sc.base * sc.factor ** (d / (d - 2))
        before = rs.periods(frequencies(d, sc.base))
        after = rs.scaled_periods(sc, "ntk")
        assert after[0] == pytest.approx(before[0], rel=1e-12)
        assert after[-1] == pytest.approx(sc.factor * before[-1], rel=1e-12)
        i = np.arange(d // 2)
        np.testing.assert_allclose(after / before, sc.factor ** (2 * i / (d - 2)), rtol=1e-12)


def test_by_parts_keeps_fast_pairs_and_interpolates_slow_ones():
    """YaRN's section 3.2: r = L / lambda; above beta turns kept, below alpha divided by s."""
    for sc in rs.SCALINGS:
        theta = frequencies(sc.width, sc.base)
        r = sc.trained / rs.periods(theta)
        ratio = theta / rs.by_parts(theta, sc.factor, sc.trained, sc.alpha, sc.beta)
        np.testing.assert_allclose(ratio[r > sc.beta], 1.0)
        np.testing.assert_allclose(ratio[r < sc.alpha], sc.factor)
        between = (r >= sc.alpha) & (r <= sc.beta)
        assert np.all((ratio[between] >= 1) & (ratio[between] <= sc.factor))
        assert np.count_nonzero(np.isclose(ratio, sc.factor)) == rs.never_turned(sc)


def test_deepseek_v2s_ramp_runs_over_the_pair_index_between_its_beta_pairs():
    """DeepSeek-V2's code: j(n) = d ln(L / (2 pi n)) / (2 ln b); pairs up to floor(j(32)) kept,
    from ceil(j(1)) on divided by s, linear in j between; the same pairs as the paper's rule."""
    ds = rs.DEEPSEEK_V2_ROPE
    theta = frequencies(64, 10000.0)
    j_fast = 64 * math.log(4096 / (2 * math.pi * 32)) / (2 * math.log(10000.0))
    j_slow = 64 * math.log(4096 / (2 * math.pi * 1)) / (2 * math.log(10000.0))
    low, high = math.floor(j_fast), math.ceil(j_slow)
    assert (low, high) == (10, 23)
    ratio = theta / rs.scaled(ds, "own")
    np.testing.assert_allclose(ratio[: low + 1], 1.0)
    np.testing.assert_allclose(ratio[high:], 40.0)
    toward_s = (np.arange(low + 1, high) - low) / (high - low)
    np.testing.assert_allclose(1 / ratio[low + 1 : high], toward_s / 40 + (1 - toward_s))
    paper = theta / rs.by_parts(theta, 40.0, 4096, 1.0, 32.0)
    assert rs.changes(ds, "own") == (
        int(np.sum(np.isclose(paper, 1))),
        int(np.sum(np.isclose(paper, 40))),
        12,
    )


def test_the_counts_the_post_quotes():
    llama = rs.LLAMA31_8B
    periods = 2 * math.pi * 500000.0 ** (np.arange(64) * 2 / 128)
    assert rs.never_turned(llama) == int(np.sum(periods > 8192)) == 29
    assert rs.changes(llama, "own") == (int(np.sum(periods < 2048)), 29, 6)
    ds = rs.DEEPSEEK_V2_ROPE
    periods = 2 * math.pi * 10000.0 ** (np.arange(32) * 2 / 64)
    assert rs.changes(ds, "own") == (
        int(np.sum(periods < 4096 / 32)),
        int(np.sum(periods > 4096)),
        12,
    )


def test_the_scalings_are_the_configurations():
    llama, ds = rs.LLAMA31_8B, rs.DEEPSEEK_V2_ROPE
    assert (llama.width, llama.base, llama.trained, llama.factor) == (128, 500000.0, 8192, 8.0)
    assert (llama.alpha, llama.beta) == (1.0, 4.0)  # low_freq_factor, high_freq_factor
    assert (ds.width, ds.base, ds.trained, ds.factor) == (64, 10000.0, 4096, 40.0)
    assert (ds.alpha, ds.beta) == (1.0, 32.0)  # beta_slow, beta_fast
    assert ds.trained * ds.factor == 163840  # its max_position_embeddings


def test_yarns_temperature():
    assert rs.yarn_temperature(40) == pytest.approx(0.1 * math.log(40) + 1)
    assert rs.yarn_temperature(1) == 1.0


@pytest.mark.parametrize(
    "call, fix",
    [
        (lambda: rs.interpolation(np.ones(2), 0.5), "s >= 1"),
        (lambda: rs.ramp(np.ones(2), 4, 1), "alpha < beta"),
        (lambda: rs.scaled(rs.LLAMA31_8B, "linear"), "interpolation, ntk, own"),
        (lambda: rs.ntk_base(2, 10000, 2), "d >= 4"),
    ],
)
def test_a_wrong_call_says_how_to_fix_it(call, fix):
    with pytest.raises(ValueError, match=fix):
        call()
