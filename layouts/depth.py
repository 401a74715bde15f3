"""The depth figure's layout: three sliders; the two depths against T, and factor^T on a log
axis."""

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource, PrintfTickFormatter, Range1d

from figurekit.drawing import ACCENT, INK, MUTED
from figurekit.figure import Figure
from figures.depth import ALL_T, LEGEND, MAX_T
from layoutkit.frame import frame, pane
from layoutkit.plots import data_table, integer_ticker, labelled_points, legend_above, note, plot
from layoutkit.wiring import widget, wire


def _depth_plot(lines: ColumnDataSource, here: ColumnDataSource):
    p = plot("Layers crossed, last token to first", height=260)
    p.x_range = Range1d(0, MAX_T * 1.03)  # room for the marker at T = MAX_T
    p.line(x="T", y="recurrent", source=lines, line_width=2, color=ACCENT, legend_label="recurrent")
    p.line(x="T", y="attention", source=lines, line_width=2, color=INK, legend_label="attention")
    labelled_points(p, here, "T", "depth", "color")
    # The lines run from end to end of the axis: the data a reader wants is at their T.
    columns = [("T", "sequence length T", "int"), ("depth", "layers crossed", "int")]
    data_table(p, here, columns, rows=["recurrent", "attention"], row_header="path")
    legend_above(p)
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


def layout(figure: Figure) -> pn.viewable.Viewable:
    """Three sliders, the two depths against T, and factor^T on a log axis."""
    widgets = {key: widget(c, c.get(figure.state))[0] for key, c in figure.controls.items()}
    lines = ColumnDataSource({"T": [], "recurrent": [], "attention": []})
    depth_here = ColumnDataSource(
        {"T": [], "depth": [], "text": [], "color": [], "dx": [], "align": []}
    )
    curve = ColumnDataSource({"T": ALL_T, "log10": np.zeros(MAX_T)})
    decay_here = ColumnDataSource({"T": [], "log10": [], "text": [], "dx": [], "align": []})
    depth_plot = _depth_plot(lines, depth_here)
    decay_plot = _decay_plot(curve, decay_here)
    readout, message = pane(), pane()
    legend = note(LEGEND)
    handles = {
        "lines": lines,
        "depth-marks": depth_here,
        "curve": curve,
        "decay-marks": decay_here,
        "readout": readout,
        "message": message,
    }
    wire(figure, widgets, {}, handles)
    return frame(
        list(widgets.values()), [depth_plot, decay_plot], readout, pn.Column(message, legend)
    )
