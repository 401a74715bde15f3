"""The divisor figure's layout: d_k slider, divisor buttons, Resample; the spread, the
Jacobian bars and one softmax row."""

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource, FactorRange, Range1d
from bokeh.transform import dodge

from attention.scaling import LIVE_THRESHOLD, N_DRAWS, N_KEYS, SWEEP_D_KS
from figurekit.drawing import ACCENT, INK, MUTED
from figurekit.figure import Figure
from figures.divisor import FLOOR, KEYS, RAW_COLOR, SCALED_COLOR
from formatting import sci
from layoutkit.frame import frame, pane
from layoutkit.plots import data_table, legend_above, note, plot, stacked
from layoutkit.wiring import widget, wire


def _spread_plot(points: ColumnDataSource, line: ColumnDataSource, here: ColumnDataSource):
    p = plot("Spread of the dot products q·k", height=260, x_axis_type="log", y_axis_type="log")
    p.line(x="d_k", y="sqrt", source=line, color=MUTED, line_width=2, legend_label="√d_k")
    p.scatter(x="d_k", y="raw", source=points, size=6, color=RAW_COLOR, legend_label="std of q·k")
    p.scatter(
        x="d_k",
        y="scaled",
        source=points,
        size=6,
        color=SCALED_COLOR,
        marker="square",
        legend_label="std of q·k / √d_k",
    )
    p.scatter(x="d_k", y="raw", source=here, size=14, fill_alpha=0, line_color=ACCENT, line_width=2)
    p.x_range = Range1d(1.4, SWEEP_D_KS[-1] * 1.4)
    p.y_range = Range1d(0.5, np.sqrt(SWEEP_D_KS[-1]) * 2)
    p.xaxis.axis_label = "d_k"
    p.yaxis.axis_label = "standard deviation"
    data_table(
        p,
        points,
        [
            ("d_k", "d_k", "int"),
            ("raw", "std of q·k", "mag"),
            ("scaled", "std of q·k / √d_k", "mag"),
        ],
    )
    legend_above(p)
    return p


def _peak_plot(bars: ColumnDataSource, cursor: ColumnDataSource):
    labels = [str(d) for d in SWEEP_D_KS]
    p = plot(
        "Jacobian peak: median bars, mean dashed",
        height=260,
        x_range=FactorRange(*labels),
        y_axis_type="log",
    )
    for offset, column, color, name in (
        (-0.2, "raw", RAW_COLOR, "divisor 1"),
        (0.2, "scaled", SCALED_COLOR, "divisor √d_k"),
    ):
        p.vbar(
            x=dodge("label", offset, range=p.x_range),
            top=column,
            bottom=FLOOR,
            width=0.38,
            source=bars,
            fill_color=color,
            line_color=f"{column}_edge",
            line_width=2,
            fill_alpha=f"{column}_alpha",
            legend_label=name,
        )
        p.line(
            x=dodge("label", offset, range=p.x_range),
            y=f"{column}_mean",
            source=bars,
            color=color,
            line_dash="dashed",
            line_width=2,
        )
    p.scatter(x="label", y="y", source=cursor, marker="inverted_triangle", size=12, color=ACCENT)
    p.y_range = Range1d(FLOOR, 30.0)
    p.xaxis.axis_label = "d_k"
    p.xaxis.major_label_orientation = 0.8
    p.xgrid.visible = False
    data_table(
        p,
        bars,
        [
            ("label", "d_k", "text"),
            ("raw", "median peak, divisor 1", "mag"),
            ("raw_mean", "mean peak, divisor 1", "mag"),
            ("scaled", "median peak, divisor √d_k", "mag"),
            ("scaled_mean", "mean peak, divisor √d_k", "mag"),
        ],
    )
    legend_above(p)
    return p


def _row_plot(row: ColumnDataSource):
    p = plot("One draw's softmax weights", height=260, x_range=list(KEYS), y_range=Range1d(0, 1.05))
    p.vbar(x="key", top="weight", width=0.7, color=INK, source=row)
    p.xgrid.visible = False
    p.yaxis.axis_label = "weight"
    data_table(p, row, [("key", "key", "text"), ("weight", "softmax weight", "num")])
    return p


def layout(figure: Figure) -> pn.viewable.Viewable:
    """d_k slider, divisor buttons, Resample; spread, Jacobian bars, one row."""
    widgets = {key: widget(c, c.get(figure.state))[0] for key, c in figure.controls.items()}
    points = ColumnDataSource({"d_k": [], "raw": [], "scaled": []})
    line = ColumnDataSource({"d_k": list(SWEEP_D_KS), "sqrt": np.sqrt(SWEEP_D_KS).tolist()})
    here = ColumnDataSource({"d_k": [], "raw": []})
    bars = ColumnDataSource(
        {"label": [], "raw": [], "scaled": [], "raw_mean": [], "scaled_mean": []}
    )
    row = ColumnDataSource({"key": [], "weight": []})
    cursor = ColumnDataSource({"label": [], "y": []})
    plots = [_spread_plot(points, line, here), _peak_plot(bars, cursor), _row_plot(row)]
    readout, message = pane(), pane()
    about = note(
        f"Each d_k: {N_DRAWS} draws of one query against {N_KEYS} keys, entries N(0, 1). "
        f"A Jacobian counts as live when its largest entry exceeds {sci(LIVE_THRESHOLD, 0)}."
    )
    handles = {
        "points": points,
        "here": here,
        "cursor": cursor,
        "bars": bars,
        "row": row,
        "readout": readout,
        "message": message,
    }
    wire(figure, widgets, {}, handles)
    return frame(list(widgets.values()), plots, stacked(readout, about), message)
