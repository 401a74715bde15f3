"""What attention did to the book's tensor: softmax weights against a flat 1/T average.

The left panel draws the inputs and the context vectors in the plane where the inputs spread
most; each context vector is joined to the flat average (the plain mean of the inputs) by the
distance it would move if the weights went flat. The right panel is each row's entropy
against the ceiling log2 T.
"""

from typing import NamedTuple

import numpy as np

from attention.analysis import (
    context_shift,
    dynamic_range,
    entropy_bits,
    flat_weights,
    max_entropy_bits,
    mean_pairwise_distance,
    nearest_input,
    plane_coordinates,
    spread_ratio,
)
from attention.basics import attend, context
from attention.fixtures import TOKENS, book_inputs
from figurekit.controls import Choice
from figurekit.drawing import TOKEN_COLORS, Drawing, html, outline, readout_html
from formatting import num, percent, vec

TITLE = "Softmax weights against a flat average"
T = len(TOKENS)
CAPTION = (
    f"Switch the weights between softmax and a flat 1/{T} each. The six context vectors barely "
    "move, because they were already huddled around the average; the entropies sit just "
    "under the ceiling."
)
FLAT = f"flat: 1/{T} each"
HINT = (
    "The plane is where the six inputs spread most; × marks the flat average, and each "
    "grey line is how far a context vector moves when the weights go flat. A context "
    "vector (diamond) has its token's colour; point at one in the close-up for its name."
)


class State(NamedTuple):
    """The weights switch: softmax, or flat (1/T each)."""

    flat: bool


DEFAULT = State(flat=False)
CONTROLS = (Choice("flat", "Weights", {"softmax": False, FLAT: True}, style="labelled"),)


def weights(state: State) -> np.ndarray:
    """The (T, T) weights the context vectors are built with."""
    return flat_weights(T) if state.flat else attend(book_inputs())[1]


def readouts(state: State) -> list[tuple[str, str, str]]:
    """How far the context vectors sit from the flat average, how spread, how uncertain."""
    X, W = book_inputs(), weights(state)
    Z = context(W, X)
    shift = context_shift(W, X)
    nearest = nearest_input(Z, X)
    return [
        ("shift", "distance each context vector moves to flat", vec(shift, 3)),
        ("max_shift", "largest move", num(np.max(shift), 3)),
        ("spread_inputs", "inputs: mean distance apart", num(mean_pairwise_distance(X))),
        ("spread_context", "context vectors: mean distance apart", num(mean_pairwise_distance(Z))),
        ("ratio", "context spread / input spread", percent(spread_ratio(Z, X))),
        ("nearest", "nearest input to each context vector", ", ".join(TOKENS[j] for j in nearest)),
        ("entropy", "row entropies (bits)", vec(entropy_bits(W), 3)),
        ("ceiling", f"ceiling log₂ {T}", num(max_entropy_bits(T), 3)),
        ("range", "largest weight / smallest weight", num(dynamic_range(W), 3)),
    ]


def _label_sides(P: np.ndarray, near: float) -> tuple[list[float], list[str]]:
    """Each point's label offset and alignment: to its left when a neighbour within ``near``
    sits to its right (where the label would run into the neighbour's), else to its right."""
    left = [
        any(0 < P[j, 0] - P[i, 0] < near and abs(P[j, 1] - P[i, 1]) < near for j in range(len(P)))
        for i in range(len(P))
    ]
    return [-7.0 if k else 7.0 for k in left], ["right" if k else "left" for k in left]


def _flat_average() -> np.ndarray:
    """The flat average (every context vector under flat weights) in the plane, as (1, 2)."""
    X = book_inputs()
    return plane_coordinates(context(flat_weights(T), X)[:1], X)


def _inputs_columns() -> dict:
    """The inputs in the plane, each labelled with its token on the side that stays clear."""
    P = plane_coordinates(book_inputs(), book_inputs())
    dx, align = _label_sides(P, near=0.1)
    return {
        "x": P[:, 0],
        "y": P[:, 1],
        "label": list(TOKENS),
        "color": list(TOKEN_COLORS),
        "dx": dx,
        "align": align,
    }


def _outputs_columns(state: State) -> dict:
    """The context vectors in the plane, each joined to the flat average."""
    X = book_inputs()
    Q = plane_coordinates(context(weights(state), X), X)
    centre = _flat_average()
    return {
        "x": Q[:, 0],
        "y": Q[:, 1],
        "cx": np.repeat(centre[:, 0], T),
        "cy": np.repeat(centre[:, 1], T),
        "color": list(TOKEN_COLORS),
        "label": list(TOKENS),
    }


def _rows_columns(entropy: np.ndarray) -> dict:
    """One bar per row of the weights: its entropy in bits."""
    return {
        "label": list(TOKENS),
        "entropy": entropy.tolist(),
        "color": list(TOKEN_COLORS),
        **outline([False] * T),
    }


def _close_up_reach() -> float:
    """The close-up's half width, one scale for both settings: a little beyond softmax's
    largest move."""
    X = book_inputs()
    return 1.25 * float(np.max(context_shift(attend(X)[1], X)))


def draw(state: State) -> Drawing:
    """The context vectors in the plane, each row's entropy, and the readout."""
    return {
        "outputs": {"data": _outputs_columns(state)},
        "rows": {"data": _rows_columns(entropy_bits(weights(state)))},
        "readout": html(readout_html(readouts(state))),
    }
