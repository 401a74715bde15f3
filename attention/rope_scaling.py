"""Stretching RoPE past its training length: what each way of doing it does to each pair's
period (post 3).

Pair i turns by theta_i per token (``attention.rotary.frequencies``), so it comes back to where
it started every lambda_i = 2 pi / theta_i tokens: its period. A model trained on L tokens has
seen each pair with lambda_i < L make at least one full turn; a pair with a longer period
never did, and past L it reaches angles training never showed it. To run at s L tokens, each
way changes the frequencies (the pairs counted from 1, as ``attention.rotary`` counts them):

    position interpolation     theta_i / s for every pair: every period times s.
      (Chen et al. 2023, arXiv:2306.15595)
    NTK-aware                  the base raised to b s^(d / (d - 2)): the first pair keeps its
      (bloc97 2023, as the YaRN paper's section 3.1 writes it)    period, the last one's
                               is multiplied by s, those between by s^(2(i - 1) / (d - 2)).
    by parts                   r_i = L / lambda_i, the turns pair i makes within L; with
      (YaRN's interpolation: Peng et al. 2023, arXiv:2309.00071, section 3.2)
                               gamma_i = ramp(r_i) = 0 below alpha, 1 above beta, linear
                               between: theta_i ((1 - gamma_i) / s + gamma_i). Pairs that
                               turned more than beta times keep their period, those that
                               turned fewer than alpha times are interpolated.

YaRN also sharpens the softmax, sqrt(1/t) = 0.1 ln s + 1 (its section 3.4). DeepSeek-V2's
released code ramps over the pair index instead of over r: linearly from the pair that turns
beta times within L (rounded down) to the one that turns alpha times (rounded up), which keeps
and stretches the same pairs here and blends those between by slightly different amounts
(``yarn_by_pair``). Llama 3.1's rule,
as Meta's reference code writes it (periods below L / high_freq_factor kept, above
L / low_freq_factor divided by s, a smooth blend between), is the by-parts rule with
alpha = low_freq_factor and beta = high_freq_factor; the tests check the two against each other.

    from attention.rope_scaling import LLAMA31_8B, scaled_periods
    scaled_periods(LLAMA31_8B, "own")  # the 64 periods Llama 3.1 8B runs with
"""

import math
from typing import NamedTuple

import numpy as np

from attention._checks import check_positive_int
from attention.models import DEEPSEEK_V2
from attention.rotary import check_base, check_even_width, frequencies, full_turns_within

METHODS = ("interpolation", "ntk", "own")


class Scaling(NamedTuple):
    """A model's rotary part and how its configuration stretches it: ``width`` rotated numbers
    per head, ``base``, the ``trained`` length L, the ``factor`` s, and the by-parts ramp's
    ``alpha`` and ``beta`` (turns within L)."""

    name: str
    width: int
    base: float
    trained: int
    factor: float
    alpha: float
    beta: float
    rule: str  # what the configuration calls its rule
    source: str


# Llama 3.1 8B's configuration: rope_theta 500,000 on heads of 128, and rope_scaling
# {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
# "original_max_position_embeddings": 8192}.
LLAMA31_8B = Scaling(
    name="Llama 3.1 8B",
    width=128,
    base=500000.0,
    trained=8192,
    factor=8.0,
    alpha=1.0,
    beta=4.0,
    rule="llama3",
    source="https://huggingface.co/meta-llama/Llama-3.1-8B/blob/main/config.json",
)
# DeepSeek-V2's configuration: rope_theta 10,000 on a rotary part of qk_rope_head_dim = 64,
# and rope_scaling {"type": "yarn", "factor": 40, "original_max_position_embeddings": 4096,
# "beta_fast": 32, "beta_slow": 1} (the paper's beta and alpha).
DEEPSEEK_V2_ROPE = Scaling(
    name=DEEPSEEK_V2.name,
    width=DEEPSEEK_V2.rope_head_dim,
    base=10000.0,
    trained=4096,
    factor=40.0,
    alpha=1.0,
    beta=32.0,
    rule="yarn",
    source=DEEPSEEK_V2.source,
)
SCALINGS = (LLAMA31_8B, DEEPSEEK_V2_ROPE)


def _check_factor(s) -> float:
    s = float(s)
    if not math.isfinite(s) or s < 1:
        raise ValueError(f"the factor s stretches the context, so s >= 1; got {s}")
    return s


def periods(theta: np.ndarray) -> np.ndarray:
    """Tokens per full turn of each pair: 2 pi / theta_i. (d/2,) -> (d/2,)"""
    return 2.0 * np.pi / np.asarray(theta, dtype=float)


def interpolation(theta: np.ndarray, s: float) -> np.ndarray:
    """Position interpolation: every frequency divided by s. (d/2,) -> (d/2,)"""
    return np.asarray(theta, dtype=float) / _check_factor(s)


def ntk_base(d: int, base: float, s: float) -> float:
    """The NTK-aware base b s^(d / (d - 2)): the last pair's period grows s times."""
    d = check_even_width(d)
    if d < 4:
        raise ValueError(f"NTK-aware scaling needs two pairs at least (d >= 4), got d = {d}")
    return check_base(base) * _check_factor(s) ** (d / (d - 2))


def ntk_aware(d: int, base: float, s: float) -> np.ndarray:
    """NTK-aware scaling: the frequencies of the raised base. -> (d/2,)"""
    return frequencies(d, ntk_base(d, base, s))


def ramp(r: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    """gamma(r): 0 below alpha, 1 above beta, linear between. -> same shape as r"""
    if not 0 <= alpha < beta:
        raise ValueError(
            f"the ramp runs from alpha to beta, 0 <= alpha < beta; got {alpha}, {beta}"
        )
    return np.clip((np.asarray(r, dtype=float) - alpha) / (beta - alpha), 0.0, 1.0)


def by_parts(theta: np.ndarray, s: float, trained: int, alpha: float, beta: float) -> np.ndarray:
    """YaRN's by-parts interpolation: each pair by the turns r = L / lambda it makes within
    the trained length L. (d/2,) -> (d/2,)"""
    theta = np.asarray(theta, dtype=float)
    r = check_positive_int(trained, "trained") / periods(theta)
    gamma = ramp(r, alpha, beta)
    return theta * ((1.0 - gamma) / _check_factor(s) + gamma)


def llama3(theta: np.ndarray, s: float, trained: int, low: float, high: float) -> np.ndarray:
    """Llama 3.1's rule as Meta's reference code states it, by period: below L / high kept,
    above L / low divided by s, between blended by (L / period - low) / (high - low)."""
    theta = np.asarray(theta, dtype=float)
    period, L, s = periods(theta), check_positive_int(trained, "trained"), _check_factor(s)
    smooth = (L / period - low) / (high - low)
    blended = (1 - smooth) * theta / s + smooth * theta
    return np.where(period < L / high, theta, np.where(period > L / low, theta / s, blended))


def pair_turning(turns: float, d: int, base: float, trained: int) -> float:
    """The pair index j (from 0) whose period fits ``turns`` times into L: where
    L / (2 pi base^(2j/d)) = turns, so j = d ln(L / (2 pi turns)) / (2 ln base)."""
    return d * math.log(trained / (2 * math.pi * turns)) / (2 * math.log(base))


def yarn_by_pair(
    d: int, base: float, s: float, trained: int, beta_fast: float, beta_slow: float
) -> np.ndarray:
    """DeepSeek-V2's YaRN frequencies: pairs up to floor(j(beta_fast)) kept, from
    ceil(j(beta_slow)) on divided by s, a linear ramp in the pair index between. -> (d/2,)"""
    theta = frequencies(d, base)
    low = max(math.floor(pair_turning(beta_fast, d, base, trained)), 0)
    high = min(math.ceil(pair_turning(beta_slow, d, base, trained)), d - 1)
    toward_s = np.clip((np.arange(d // 2) - low) / (high - low), 0.0, 1.0)
    return theta / _check_factor(s) * toward_s + theta * (1.0 - toward_s)


def yarn_temperature(s: float) -> float:
    """YaRN's sqrt(1/t) = 0.1 ln s + 1: queries and keys are both multiplied by it."""
    return 0.1 * math.log(_check_factor(s)) + 1.0


def scaled(scaling: Scaling, method: str) -> np.ndarray:
    """The frequencies the model would run with under ``method``: "interpolation", "ntk", or
    "own" (its configuration's rule: by parts for Llama 3.1, DeepSeek-V2's YaRN code for
    DeepSeek-V2). -> (width/2,)"""
    theta = frequencies(scaling.width, scaling.base)
    s = scaling.factor
    if method == "interpolation":
        return interpolation(theta, s)
    if method == "ntk":
        return ntk_aware(scaling.width, scaling.base, s)
    if method == "own" and scaling.rule == "yarn":
        return yarn_by_pair(
            scaling.width, scaling.base, s, scaling.trained, scaling.beta, scaling.alpha
        )
    if method == "own":
        return by_parts(theta, s, scaling.trained, scaling.alpha, scaling.beta)
    raise ValueError(f"no method {method!r}; use one of {', '.join(METHODS)}")


def scaled_periods(scaling: Scaling, method: str) -> np.ndarray:
    """The periods under ``method``, in tokens. -> (width/2,)"""
    return periods(scaled(scaling, method))


class Changes(NamedTuple):
    """How many pairs a method leaves, stretches by the full s, or blends."""

    kept: int
    stretched: int
    blended: int


def changes(scaling: Scaling, method: str, rtol: float = 1e-9) -> Changes:
    """Count the pairs by what ``method`` does to their period."""
    ratio = scaled_periods(scaling, method) / periods(frequencies(scaling.width, scaling.base))
    kept = int(np.count_nonzero(np.isclose(ratio, 1.0, rtol=rtol)))
    stretched = int(np.count_nonzero(np.isclose(ratio, scaling.factor, rtol=rtol)))
    return Changes(kept, stretched, len(ratio) - kept - stretched)


def never_turned(scaling: Scaling) -> int:
    """Pairs that make no full turn within the trained length (``rotary.full_turns_within``)."""
    turned = full_turns_within(scaling.width, scaling.trained, scaling.base)
    return scaling.width // 2 - turned
