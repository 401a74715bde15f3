"""The masking figure's layout: step slider, mask switch, score row; naive, efficient and
difference heatmaps, the typed row's bars."""

import panel as pn
from bokeh.models import ColumnDataSource, Range1d

from attention.fixtures import TOKENS
from figurekit.drawing import INK
from figurekit.figure import Figure
from figures.masking import WEIGHT_SET, routes
from layoutkit.frame import frame, pane
from layoutkit.plots import data_table, heatmap, note, plot, stacked
from layoutkit.wiring import widget, wire


def _counter_plot(bars: ColumnDataSource):
    p = plot("softmax of the row you typed", height=260, x_range=["s1"], y_range=Range1d(0, 1.1))
    p.vbar(x="label", top="weight", width=0.7, color="color", source=bars)
    p.text(
        x="label",
        y="weight",
        text="text",
        source=bars,
        text_align="center",
        y_offset=-4,
        text_font_size="10px",
        text_color=INK,
    )
    p.xgrid.visible = False
    p.yaxis.axis_label = "weight"
    data_table(p, bars, [("label", "score", "text"), ("weight", "softmax weight", "num")])
    return p


def layout(figure: Figure) -> pn.viewable.Viewable:
    """Step slider, mask switch, score row; naive, efficient, difference, the typed row."""
    widgets = {key: widget(c, c.get(figure.state))[0] for key, c in figure.controls.items()}
    naive_plot, naive_src, naive_map = heatmap("naive", TOKENS, TOKENS)
    fast_plot, fast_src, fast_map = heatmap("efficient", TOKENS, TOKENS)
    diff_plot, diff_src, diff_map = heatmap("naive − efficient (final weights)", TOKENS, TOKENS)
    bars = ColumnDataSource({"label": [], "weight": [], "text": [], "color": []})
    counter_plot = _counter_plot(bars)
    readout, message = pane(), pane()
    weight_set = note(f"<b>Weights:</b> {WEIGHT_SET}, generated in numpy; d_k = {routes().d_k}.")
    handles = {
        "naive": naive_src,
        "naive.mapper": naive_map,
        "naive.title": naive_plot.title,
        "efficient": fast_src,
        "efficient.mapper": fast_map,
        "efficient.title": fast_plot.title,
        "difference": diff_src,
        "difference.mapper": diff_map,
        "bars": bars,
        "bars.x_range": counter_plot.x_range,
        "readout": readout,
        "message": message,
    }
    wire(figure, widgets, {}, handles)
    return frame(
        list(widgets.values()),
        [naive_plot, fast_plot, diff_plot, counter_plot],
        stacked(readout, weight_set),
        message,
    )
