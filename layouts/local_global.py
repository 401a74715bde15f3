"""The local/global figure's layout: model, length and the all-global switch; the cache of
both layouts against the length, and the strip of layers."""

import panel as pn
from bokeh.models import ColumnDataSource, Range1d, Span

from figurekit.drawing import INK
from figurekit.figure import Figure
from figures.local_global import DEFAULT, line_columns, model, point_columns, strip_columns
from layoutkit.frame import frame, pane
from layoutkit.plots import data_table, note, plot, stacked, two_lines
from layoutkit.wiring import widget, wire

# How each control looks, by control key.
LOOK = {"model": {"width": 160}}


def _strip_plot(strip: ColumnDataSource):
    p = plot("layers, first to last (orange: global)", height=120)
    p.rect(x="layer", y=0, width=0.9, height=1, color="color", source=strip)
    p.x_range = Range1d(0.5, model(DEFAULT).layers + 0.5)
    p.y_range = Range1d(-0.5, 0.5)
    p.yaxis.visible = False
    p.ygrid.visible = False
    p.xaxis.axis_label = "layer"
    data_table(p, strip, [("layer", "layer", "int"), ("kind", "kind", "text")])
    return p


def layout(figure: Figure) -> pn.viewable.Viewable:
    """Model, length, switch; the caches against the length, the layers."""
    widgets = {
        key: widget(c, c.get(figure.state), **LOOK.get(key, {}))[0]
        for key, c in figure.controls.items()
    }
    lines = ColumnDataSource(line_columns(DEFAULT))
    point = ColumnDataSource(point_columns(DEFAULT))
    strip = ColumnDataSource(strip_columns(DEFAULT))
    line_plot = two_lines(
        "cache of one sequence",
        lines,
        point,
        x=("tokens", "tokens T"),
        solid=("mixed", "local and global, as released"),
        dashed=("full", "every layer global"),
        y_label="GiB",
        point_y="gib",
    )
    strip_plot = _strip_plot(strip)
    context = Span(dimension="height", location=model(DEFAULT).context, line_dash="dotted")
    context.line_color = INK
    line_plot.add_layout(context)
    readout, message = pane(), pane()
    about = note(
        "<b>Dotted line:</b> the context the model was trained to. "
        "<b>Counted:</b> a key and a value per layer, K/V head and token, 16 bits each, for one "
        "sequence. A local layer keeps its last W tokens (the window counts the token itself), "
        "a global layer every token. <b>Layouts:</b> each model's configuration; the pattern "
        "repeats from the first layer, which is local."
    )
    handles = {
        "lines": lines,
        "point": point,
        "lines.title": line_plot.title,
        "context": context,
        "strip": strip,
        "strip.x_range": strip_plot.x_range,
        "readout": readout,
        "message": message,
    }
    wire(figure, widgets, {}, handles)
    return frame(list(widgets.values()), [line_plot, strip_plot], stacked(readout, about), message)
