"""The grouped-heads figure's layout: layout picker, K/V heads box, the two ends; the stripes
and the cache bars."""

import panel as pn
from bokeh.models import ColumnDataSource, FixedTicker, Range1d

from attention.grouped import TOY
from figurekit.figure import Figure
from figures.grouped_heads import bars
from layoutkit.frame import frame, pane
from layoutkit.plots import bar_chart, data_table, note, plot, stacked
from layoutkit.wiring import action_button, widget, wire

# How each control looks, by control key.
LOOK = {"head-layout": {"width": 260}, "k-v-heads": {"width": 110}}


def _stripe_plot(quads: ColumnDataSource, labels: ColumnDataSource):
    p = plot("query heads (top), each coloured as its K/V head", height=220)
    p.x_range, p.y_range = Range1d(0, TOY.heads), Range1d(-0.1, 2.35)
    p.quad(left="left", right="right", bottom="bottom", top="top", color="color", source=quads)
    p.text(
        x="x",
        y="y",
        text="text",
        source=labels,
        text_align="center",
        text_baseline="middle",
        text_font_size="10px",
        text_color="color",
    )
    p.yaxis.ticker = FixedTicker(ticks=[0.5, 1.75])
    p.yaxis.major_label_overrides = {0.5: "K/V heads", 1.75: "query heads"}
    p.xaxis.axis_label = "query head"
    data_table(p, quads, [("head", "head", "text"), ("reads", "K/V head it reads", "text")])
    p.xaxis.visible = False
    p.grid.visible = False
    p.axis.axis_line_color = None
    p.axis.major_tick_line_color = None
    return p


def layout(figure: Figure) -> pn.viewable.Viewable:
    """Layout picker, K/V heads box, two ends; stripes, cache bars, readout."""
    widgets = {
        key: widget(c, c.get(figure.state), **LOOK.get(key, {}))[0]
        for key, c in figure.controls.items()
    }
    actions = {key: action_button(a) for key, a in figure.actions.items()}
    quads = ColumnDataSource({"left": [], "right": [], "bottom": [], "top": [], "color": []})
    labels = ColumnDataSource({"x": [], "y": [], "text": [], "color": []})
    stripe_plot = _stripe_plot(quads, labels)
    start = bars(TOY, TOY.kv_heads)
    cache = ColumnDataSource(start)
    cache_plot = bar_chart(
        "K/V cache per token, by K/V heads",
        cache,
        start["label"],
        "bytes",
        "bytes per token",
        tooltips=[("K/V heads", "@label"), ("bytes per token", "@bytes{0,0}")],
        x_label="K/V heads",
        value_format="int",
    )
    cache_plot.xaxis.axis_label = "K/V heads"
    readout, message = pane(), pane()
    about = note(
        "Each query head keeps its own W_q columns; only keys and values are shared, so only "
        "they shrink. The difference is computed live on the book's six tokens, head_dim 2."
    )
    handles = {
        "quads": quads,
        "labels": labels,
        "stripes.x_range": stripe_plot.x_range,
        "cache": cache,
        "cache.x_range": cache_plot.x_range,
        "readout": readout,
        "message": message,
    }
    wire(figure, widgets, actions, handles)
    return frame(
        [*widgets.values(), *actions.values()],
        [stripe_plot, cache_plot],
        stacked(readout, about),
        message,
    )
