"""The dropout figure's layout: rate, scaling, run length, Resample; one pass, the dead rows
and the row sums."""

import panel as pn
from bokeh.models import ColumnDataSource, Range1d

from attention.fixtures import TOKENS
from figurekit.drawing import ACCENT, INK
from figurekit.figure import Figure
from figures.dropout import ROWS, WEIGHT_SET
from layoutkit.frame import frame, pane
from layoutkit.plots import data_table, heatmap, legend_above, note, plot, stacked
from layoutkit.wiring import widget, wire


def _row_plot(title: str, source: ColumnDataSource, y_label: str, top: float):
    rows = list(ROWS)
    p = plot(title, height=250, x_range=rows, y_range=Range1d(0, top))
    p.vbar(x="row", top="observed", width=0.7, color=INK, source=source, legend_label="this run")
    p.scatter(
        x="row",
        y="expected",
        size=11,
        marker="dash",
        line_width=3,
        color=ACCENT,
        source=source,
        legend_label="expected",
    )
    p.xgrid.visible = False
    p.yaxis.axis_label = y_label
    data_table(
        p,
        source,
        [
            ("row", "row", "text"),
            ("observed", f"{y_label}, this run", "num"),
            ("expected", f"{y_label}, expected", "num"),
        ],
    )
    legend_above(p)
    return p


def layout(figure: Figure) -> pn.viewable.Viewable:
    """Rate, scaling, run length, Resample; one pass, dead rows, row sums."""
    widgets = {key: widget(c, c.get(figure.state))[0] for key, c in figure.controls.items()}
    pass_plot, pass_src, pass_map = heatmap("one training pass", TOKENS, TOKENS)
    dead = ColumnDataSource({"row": [], "observed": [], "expected": []})
    sums = ColumnDataSource({"row": [], "observed": [], "expected": []})
    dead_plot = _row_plot("share of passes in which the row is all zero", dead, "share", 1.3)
    sum_plot = _row_plot("mean row sum over the run", sums, "row sum", 1.6)
    readout, message = pane(), pane()
    weight_set = note(
        f"<b>Weights:</b> the causal matrix of {WEIGHT_SET}, generated in numpy. "
        "Row i has i live weights, so it dies with probability p to the power i."
    )
    handles = {
        "pass": pass_src,
        "pass.mapper": pass_map,
        "dead": dead,
        "sums": sums,
        "readout": readout,
        "message": message,
    }
    wire(figure, widgets, {}, handles)
    return frame(
        list(widgets.values()),
        [pass_plot, dead_plot, sum_plot],
        stacked(readout, weight_set),
        message,
    )
