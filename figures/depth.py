"""How far a gradient walks back along the sequence: recurrence against attention.

Two of the numbers are exact counts (layers x T, and layers); the third is a factor the reader
sets, raised to the power T. The figure labels which is which.
"""

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
from figures.plots import integer_ticker, note, plot, refill
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


def _label_side(T: int) -> tuple[float, str]:
    """The value labels' offset and alignment: left of the marker in the plot's last quarter,
    where a label on the right would run off the edge."""
    return (-8.0, "right") if T > 0.75 * MAX_T else (8.0, "left")


def _depth_plot(lines: ColumnDataSource, here: ColumnDataSource):
    p = plot("Layers crossed, last token to first", height=260)
    p.x_range = Range1d(0, MAX_T * 1.03)  # room for the marker at T = MAX_T
    p.line(x="T", y="recurrent", source=lines, line_width=2, color=ACCENT, legend_label="recurrent")
    p.line(x="T", y="attention", source=lines, line_width=2, color=INK, legend_label="attention")
    p.scatter(x="T", y="depth", source=here, size=9, color="color")
    p.text(
        x="T",
        y="depth",
        text="text",
        source=here,
        x_offset="dx",
        text_align="align",
        text_baseline="middle",
        text_font_size="11px",
    )
    p.legend.location = "top_left"
    p.xaxis.axis_label = "sequence length T"
    p.yaxis.axis_label = "layers crossed (a count)"
    return p


def _decay_plot(curve: ColumnDataSource, here: ColumnDataSource):
    p = plot("Your factor ^ T (log scale)", height=260)
    p.x_range = Range1d(0, MAX_T * 1.03)  # room for the marker at T = MAX_T
    p.line(x="T", y="log10", source=curve, line_width=2, color=MUTED)
    p.scatter(x="T", y="log10", source=here, size=9, color=ACCENT)
    p.text(
        x="T",
        y="log10",
        text="text",
        source=here,
        x_offset="dx",
        text_align="align",
        text_baseline="middle",
        text_font_size="11px",
    )
    p.yaxis.ticker = integer_ticker()
    p.yaxis.formatter = PrintfTickFormatter(format="1e%d")
    p.xaxis.axis_label = "sequence length T"
    p.yaxis.axis_label = "factor^T"
    return p


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
    ends = np.array([1, MAX_T])
    curve = ColumnDataSource({"T": np.arange(1, MAX_T + 1), "log10": np.zeros(MAX_T)})
    decay_here = ColumnDataSource({"T": [], "log10": [], "text": [], "dx": [], "align": []})
    depth_plot = _depth_plot(lines, depth_here)
    decay_plot = _decay_plot(curve, decay_here)
    readout, message = pane(), pane()
    legend = note(
        "<b>Counts</b> (exact integers, nothing measured): the recurrent path is layers × T, "
        "the attention path is layers. <b>Your number</b>: the factor you set, raised to the "
        f"power T. A sigmoid's slope is at most {num(sigmoid_slope(0.0), 2)}, its default."
    )

    def draw() -> str | None:
        rec, att = recurrent_depth(layers.value, T.value), attention_depth(layers.value)
        rec_line = [recurrent_depth(layers.value, int(t)) for t in ends]
        log_curve = log10_decay(factor.value, np.arange(1, MAX_T + 1))
        log_here = log10_decay(factor.value, T.value)
        value = decay(factor.value, T.value)
        powered = power_of_ten(log_here, value=value)
        refill(lines, {"T": ends.tolist(), "recurrent": rec_line, "attention": [att, att]})
        dx, align = _label_side(T.value)
        refill(
            depth_here,
            {
                "T": [T.value, T.value],
                "depth": [rec, att],
                "text": [integer(rec), integer(att)],
                "color": [ACCENT, INK],
                "dx": [dx, dx],
                "align": [align, align],
            },
        )
        refill(curve, {"T": np.arange(1, MAX_T + 1), "log10": log_curve})
        refill(
            decay_here,
            {"T": [T.value], "log10": [log_here], "text": [powered], "dx": [dx], "align": [align]},
        )
        readout.object = readout_html(
            [
                ("recurrent", "recurrent path: layers × T (count)", integer(rec)),
                ("attention", "attention path: layers (count)", integer(att)),
                ("decay", f"your factor ^ T: {num(factor.value, 2)}^{T.value}", powered),
            ]
        )
        if value == 0.0:
            return message_html(
                f"{num(factor.value, 2)}^{T.value} is below the smallest float64 and rounds "
                "to 0; it is printed here from its logarithm.",
                kind="info",
            )
        return None

    recompute((T, layers, factor), message, draw)
    return frame([T, layers, factor], [depth_plot, decay_plot], readout, pn.Column(message, legend))
