"""How far a gradient walks back along the sequence: recurrence against attention.

Two of the numbers are exact counts (layers x T, and layers); the third is a factor the reader
sets, raised to the power T. The figure labels which is which.
"""

from typing import NamedTuple

import numpy as np

from attention.depth import (
    EXAMPLE_LAYERS,
    EXAMPLE_T,
    attention_depth,
    decay,
    log10_decay,
    recurrent_depth,
    sigmoid_slope,
)
from attention.fixtures import GPT2_CONTEXT
from figurekit.controls import Slider
from figurekit.drawing import ACCENT, INK, Drawing, html, message_html, readout_html
from formatting import integer, num, power_of_ten

TITLE = "How far back the gradient walks"
MAX_T = GPT2_CONTEXT  # up to the context length of the smallest GPT-2
MAX_LAYERS = 48
CAPTION = (
    "Set the sequence length, the number of layers and a per-step factor. It starts at "
    f"T = {EXAMPLE_T} with {EXAMPLE_LAYERS} layers; drag T up and the recurrent path grows with "
    "it while the attention path stays put, and the factor to the power T falls off the "
    "bottom of float64."
)
ENDS = np.array([1, MAX_T])  # the recurrent path is a straight line: its two ends draw it
ALL_T = np.arange(1, MAX_T + 1)


class State(NamedTuple):
    """The three sliders' values."""

    T: int
    layers: int
    factor: float


DEFAULT = State(EXAMPLE_T, EXAMPLE_LAYERS, sigmoid_slope(0.0))
CONTROLS = (
    Slider("T", "Sequence length T", start=1, end=MAX_T),
    Slider("layers", "Layers", start=1, end=MAX_LAYERS),
    Slider("factor", "Factor per step", start=0.01, end=1.0, step=0.01),
)


def _powered(state: State) -> str:
    """factor^T by the page's rule for magnitudes (0.2500 at T = 1, 6.2e-61 at T = 100),
    printed from its logarithm below the smallest float64, where the value itself is 0."""
    return power_of_ten(log10_decay(state.factor, state.T), value=decay(state.factor, state.T))


def readouts(state: State) -> list[tuple[str, str, str]]:
    """The two path lengths, each a count, and the reader's factor to the power T."""
    rec, att = recurrent_depth(state.layers, state.T), attention_depth(state.layers)
    return [
        ("recurrent", "recurrent path: layers × T (count)", integer(rec)),
        ("attention", "attention path: layers (count)", integer(att)),
        ("decay", f"your factor ^ T: {num(state.factor, 2)}^{state.T}", _powered(state)),
    ]


def message(state: State) -> str:
    """An explanation when factor^T rounds to 0 in float64, else nothing."""
    if decay(state.factor, state.T) != 0.0:
        return ""
    return (
        f"{num(state.factor, 2)}^{state.T} is below the smallest float64 and rounds "
        "to 0; it is printed here from its logarithm."
    )


def _label_side(T: int) -> tuple[float, str]:
    """The value labels' offset and alignment: left of the marker in the plot's last quarter,
    where a label on the right would run off the edge."""
    return (-8.0, "right") if T > 0.75 * MAX_T else (8.0, "left")


def _depth_columns(state: State) -> tuple[dict, dict]:
    """The two depth lines against T, and the markers at the reader's T."""
    rec, att = recurrent_depth(state.layers, state.T), attention_depth(state.layers)
    dx, align = _label_side(state.T)
    lines = {
        "T": ENDS.tolist(),
        "recurrent": [recurrent_depth(state.layers, int(t)) for t in ENDS],
        "attention": [att, att],
    }
    here = {
        "T": [state.T, state.T],
        "depth": [rec, att],
        "text": [integer(rec), integer(att)],
        "color": [ACCENT, INK],
        "dx": [dx, dx],
        "align": [align, align],
    }
    return lines, here


def _decay_columns(state: State) -> tuple[dict, dict]:
    """factor^T's logarithm for every T, and the marker at the reader's T."""
    dx, align = _label_side(state.T)
    curve = {"T": ALL_T, "log10": log10_decay(state.factor, ALL_T)}
    here = {
        "T": [state.T],
        "log10": [log10_decay(state.factor, state.T)],
        "text": [_powered(state)],
        "dx": [dx],
        "align": [align],
    }
    return curve, here


LEGEND = (
    "<b>Counts</b> (exact integers, nothing measured): the recurrent path is layers × T, "
    "the attention path is layers. <b>Your number</b>: the factor you set, raised to the "
    f"power T. A sigmoid's slope is at most {num(sigmoid_slope(0.0), 2)}, its default."
)


def draw(state: State) -> Drawing:
    """The two depths against T, factor^T on a log axis, the readout and the underflow note."""
    depth_lines, depth_marks = _depth_columns(state)
    decay_curve, decay_marks = _decay_columns(state)
    return {
        "lines": {"data": depth_lines},
        "depth-marks": {"data": depth_marks},
        "curve": {"data": decay_curve},
        "decay-marks": {"data": decay_marks},
        "readout": html(readout_html(readouts(state))),
        "message": html(message_html(message(state), "info")),
    }
