"""What attention did to the book's tensor: softmax weights against a flat 1/T average.

The left panel draws the inputs and the context vectors in the plane where the inputs spread
most; each context vector is joined to the flat average (the plain mean of the inputs) by the
distance it would move if the weights went flat. The right panel is each row's entropy
against the ceiling log2 T.
"""

from typing import NamedTuple

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource, HoverTool, LabelSet, Range1d, Span

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
from figures.frame import ACCENT, INK, MUTED, frame, pane, readout_html, recompute
from figures.plots import TOKEN_COLORS, bar_chart, choice, data_table, note, outline, plot, refill
from figures.tryit import drawn
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


def _labels(source: ColumnDataSource) -> LabelSet:
    return LabelSet(
        x="x",
        y="y",
        text="label",
        source=source,
        x_offset="dx",
        text_align="align",
        y_offset=-5,
        text_font_size="11px",
        text_color=INK,
    )


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


def _plane_plot(
    title: str,
    inputs: ColumnDataSource,
    outputs: ColumnDataSource,
    centre: ColumnDataSource,
    half_width: float | None = None,
):
    """Inputs, context vectors and the flat average in the plane; zoomed if ``half_width``."""
    if half_width is None:
        p = plot(title, height=300, match_aspect=True)
    else:  # a square window around the flat average, which sits at the origin of the plane
        window = {"x_range": Range1d(-half_width, half_width)}
        p = plot(title, height=300, y_range=Range1d(-half_width, half_width), **window)
    p.scatter(x="x", y="y", size=11, color="color", source=inputs)
    p.add_layout(_labels(inputs))
    p.segment(x0="x", y0="y", x1="cx", y1="cy", source=outputs, color=MUTED, line_width=1.5)
    diamonds = p.scatter(
        x="x", y="y", marker="diamond", size=12, color="color", line_color=ACCENT, source=outputs
    )
    p.scatter(x="x", y="y", marker="x", size=12, line_width=2, color=INK, source=centre)
    if half_width is None:
        p.x_range.range_padding = 0.25  # room for the labels of the outermost inputs
    else:  # the context vectors crowd together: named on hover, not by labels that overlap
        p.add_tools(HoverTool(renderers=[diamonds], tooltips=[("context vector of", "@label")]))
    p.xaxis.axis_label = "main direction of spread"
    p.yaxis.axis_label = "second direction"
    columns = [("label", "context vector of", "text"), ("x", "main direction", "num")]
    data_table(p, outputs, [*columns, ("y", "second direction", "num")])
    return p


def _entropy_plot(rows: ColumnDataSource):
    """Each row's entropy against the ceiling log2 T, dashed."""
    ceiling = max_entropy_bits(T)
    p = bar_chart(
        f"Row entropy in bits (ceiling log₂ {T} = {num(ceiling, 3)})",
        rows,
        TOKENS,
        "entropy",
        "bits",
        tooltips=[("row", "@label"), ("entropy", "@entropy{0.000} bits")],
    )
    p.y_range.start = 0
    p.add_layout(
        Span(
            location=ceiling, dimension="width", line_color=ACCENT, line_dash="dashed", line_width=2
        )
    )
    return p


def view() -> pn.viewable.Viewable:
    """The figure: a softmax/flat switch, the plane of inputs and outputs, row entropies."""
    mode, mode_control = choice("Weights", ["softmax", FLAT], "softmax")
    inputs = ColumnDataSource(_inputs_columns())
    outputs = ColumnDataSource({"x": [], "y": [], "cx": [], "cy": [], "color": [], "label": []})
    centre_xy = _flat_average()
    centre = ColumnDataSource({"x": centre_xy[:, 0], "y": centre_xy[:, 1]})
    rows = ColumnDataSource(_rows_columns(np.zeros(T)))
    plane_plot = _plane_plot(
        "Inputs (circles), context vectors (diamonds)", inputs, outputs, centre
    )
    close_plot = _plane_plot(
        "Close-up around the flat average ×", inputs, outputs, centre, _close_up_reach()
    )
    entropy_plot = _entropy_plot(rows)
    readout, banner = pane(), pane()
    hint = note(HINT)

    def draw() -> None:
        state = State(flat=mode.value == FLAT)
        refill(outputs, _outputs_columns(state))
        refill(rows, _rows_columns(entropy_bits(weights(state))))
        readout.object = readout_html(readouts(drawn(state)))

    recompute([mode], banner, draw)
    return frame(
        [mode_control], [plane_plot, close_plot, entropy_plot], readout, pn.Column(banner, hint)
    )
