"""Stretching RoPE past its training length: each pair's period before and after (post 3).

For Llama 3.1 8B or DeepSeek-V2, and a way of stretching (the model's own by-parts rule,
position interpolation or NTK-aware scaling), the first plot gives every rotary pair's period
before and after, with the trained length and the target; the second how many times longer
each period became; the readouts count the pairs kept, stretched and blended
(attention.rope_scaling).
"""

from typing import NamedTuple

import numpy as np

from attention.models import by_name
from attention.rope_scaling import (
    SCALINGS,
    Scaling,
    changes,
    never_turned,
    periods,
    scaled_periods,
    yarn_temperature,
)
from attention.rotary import frequencies
from figurekit.controls import Choice
from figurekit.drawing import Drawing, html, readout_html
from formatting import integer, num

TITLE = "Stretching the rotations"
CAPTION = (
    "Pick a model and a way of stretching its rotary positions to s times the length it was "
    "trained on: position interpolation slows every pair s times, NTK-aware scaling slows the "
    "slow pairs most, and the models' own rules keep the fast pairs and slow only those that "
    "never turned within training."
)
METHODS = {
    "the model's own": "own",
    "position interpolation": "interpolation",
    "NTK-aware": "ntk",
}


class State(NamedTuple):
    """The model and the way its rotations are stretched."""

    model: str = SCALINGS[0].name
    method: str = "own"


DEFAULT = State()
CONTROLS = (
    Choice("model", "Model", [sc.name for sc in SCALINGS], style="menu"),
    Choice("method", "Stretched by", METHODS, style="labelled"),
)


def scaling(state: State) -> Scaling:
    """The model the menu chose."""
    return by_name(state.model, SCALINGS)


def _period(tokens: float) -> str:
    return integer(round(tokens)) if tokens >= 100 else num(tokens, 2)


def readouts(state: State) -> list[tuple[str, str, str]]:
    """The model's rotary part, the lengths, and what the method does to the pairs."""
    sc = scaling(state)
    before = periods(frequencies(sc.width, sc.base))
    after = scaled_periods(sc, state.method)
    kept, stretched, blended = changes(sc, state.method)
    pairs = sc.width // 2
    rule = f"{sc.rule}, ramp from {num(sc.alpha, 0)} to {num(sc.beta, 0)} turns"
    part = f"{integer(pairs)} of a {integer(sc.width)}-wide part, base {integer(sc.base)}"
    target = integer(round(sc.trained * sc.factor))
    lengths = f"{integer(sc.trained)} × {num(sc.factor, 0)} = {target} tokens"
    temperature = num(yarn_temperature(sc.factor))
    return [
        ("pairs", "rotary pairs", part),
        ("lengths", "trained length, then s times it", lengths),
        ("own-rule", "its configuration's rule", rule),
        ("never", "pairs with no full turn within the trained length", integer(never_turned(sc))),
        ("kept", "periods kept", integer(kept)),
        ("stretched", "periods made s times longer", integer(stretched)),
        ("blended", "periods between", integer(blended)),
        ("first", "pair 1's period, tokens", f"{_period(before[0])} → {_period(after[0])}"),
        ("last", f"pair {pairs}'s period, tokens", f"{_period(before[-1])} → {_period(after[-1])}"),
        ("temperature", "the YaRN paper's √(1/t) = 0.1 ln s + 1", temperature),
    ]


def period_columns(state: State) -> dict:
    """Every pair's period before and after, in tokens."""
    sc = scaling(state)
    before = periods(frequencies(sc.width, sc.base))
    after = scaled_periods(sc, state.method)
    return {
        "pair": list(range(1, len(before) + 1)),
        "before": before.tolist(),
        "after": after.tolist(),
        "stretch": (after / before).tolist(),
    }


def draw(state: State) -> Drawing:
    """The periods, the stretch of each, the lengths marked, and the readout."""
    sc = scaling(state)
    columns = period_columns(state)
    return {
        "periods": {"data": columns},
        "trained": {"location": sc.trained},
        "target": {"location": sc.trained * sc.factor},
        "periods.x_range": {"end": len(columns["pair"]) + 0.5},
        "stretch.x_range": {"end": len(columns["pair"]) + 0.5},
        "stretch.y_range": {"end": float(np.float64(sc.factor) * 1.6)},
        "readout": html(readout_html(readouts(state))),
    }
