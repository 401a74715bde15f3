"""How far a gradient walks back along the sequence: recurrence against attention.

Two of the numbers are exact counts (layers x T, and layers); the third is a factor the reader
sets, raised to the power T. The figure labels which is which.
"""

from typing import NamedTuple

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource, PrintfTickFormatter, Range1d

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
from figures.frame import ACCENT, INK, MUTED, frame, message_html, pane, readout_html, recompute
from figures.plots import data_table, integer_ticker, labelled_points, note, plot, refill
from figures.tryit import drawn
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


def _depth_plot(lines: ColumnDataSource, here: ColumnDataSource):
    p = plot("Layers crossed, last token to first", height=260)
    p.x_range = Range1d(0, MAX_T * 1.03)  # room for the marker at T = MAX_T
    p.line(x="T", y="recurrent", source=lines, line_width=2, color=ACCENT, legend_label="recurrent")
    p.line(x="T", y="attention", source=lines, line_width=2, color=INK, legend_label="attention")
    labelled_points(p, here, "T", "depth", "color")
    # The lines run from end to end of the axis: the data a reader wants is at their T.
    columns = [("T", "sequence length T", "int"), ("depth", "layers crossed", "int")]
    data_table(p, here, columns, rows=["recurrent", "attention"], row_header="path")
    p.legend.location = "top_left"
    p.xaxis.axis_label = "sequence length T"
    p.yaxis.axis_label = "layers crossed (a count)"
    return p


def _decay_plot(curve: ColumnDataSource, here: ColumnDataSource):
    p = plot("Your factor ^ T (log scale)", height=260)
    p.x_range = Range1d(0, MAX_T * 1.03)  # room for the marker at T = MAX_T
    p.line(x="T", y="log10", source=curve, line_width=2, color=MUTED)
    labelled_points(p, here, "T", "log10", ACCENT)
    data_table(p, here, [("T", "sequence length T", "int"), ("text", "factor^T", "text")])
    p.yaxis.ticker = integer_ticker()
    p.yaxis.formatter = PrintfTickFormatter(format="1e%d")
    p.xaxis.axis_label = "sequence length T"
    p.yaxis.axis_label = "factor^T"
    return p


LEGEND = (
    "<b>Counts</b> (exact integers, nothing measured): the recurrent path is layers × T, "
    "the attention path is layers. <b>Your number</b>: the factor you set, raised to the "
    f"power T. A sigmoid's slope is at most {num(sigmoid_slope(0.0), 2)}, its default."
)


def view() -> pn.viewable.Viewable:
    """The figure: three sliders, the two depths against T, and factor^T on a log axis."""
    T = pn.widgets.IntSlider(name="Sequence length T", start=1, end=MAX_T, value=EXAMPLE_T)
    layers = pn.widgets.IntSlider(name="Layers", start=1, end=MAX_LAYERS, value=EXAMPLE_LAYERS)
    factor = pn.widgets.FloatSlider(
        name="Factor per step", start=0.01, end=1.0, step=0.01, value=sigmoid_slope(0.0)
    )
    lines = ColumnDataSource({"T": [], "recurrent": [], "attention": []})
    depth_here = ColumnDataSource(
        {"T": [], "depth": [], "text": [], "color": [], "dx": [], "align": []}
    )
    curve = ColumnDataSource({"T": ALL_T, "log10": np.zeros(MAX_T)})
    decay_here = ColumnDataSource({"T": [], "log10": [], "text": [], "dx": [], "align": []})
    depth_plot = _depth_plot(lines, depth_here)
    decay_plot = _decay_plot(curve, decay_here)
    readout, banner = pane(), pane()
    legend = note(LEGEND)

    def draw() -> str:
        state = State(T.value, layers.value, factor.value)
        depth_lines, depth_marks = _depth_columns(state)
        refill(lines, depth_lines)
        refill(depth_here, depth_marks)
        decay_curve, decay_marks = _decay_columns(state)
        refill(curve, decay_curve)
        refill(decay_here, decay_marks)
        readout.object = readout_html(readouts(drawn(state)))
        return message_html(message(state), kind="info")

    recompute((T, layers, factor), banner, draw)
    return frame([T, layers, factor], [depth_plot, decay_plot], readout, pn.Column(banner, legend))
