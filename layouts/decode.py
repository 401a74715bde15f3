"""The decoding figure's layout: model, length, batch and heads; the bound on tokens per second
against the length, and one step's bytes."""

import panel as pn
from bokeh.models import ColumnDataSource, Range1d

from attention.decode import H100_DATASHEET, H100_SXM_BANDWIDTH
from attention.models import MISTRAL_7B
from figurekit.drawing import ACCENT, INK, MUTED
from figurekit.figure import Figure
from figures.decode import CARD, DEFAULT, bytes_columns, point_columns, rate_columns
from formatting import integer, num
from layoutkit.frame import frame, pane
from layoutkit.plots import data_table, legend_above, note, plot, stacked
from layoutkit.wiring import widget, wire

# How each control looks, by control key.
LOOK = {"model": {"width": 160}}


def _rate_plot(rates: ColumnDataSource, point: ColumnDataSource):
    p = plot("tokens per second, at most", height=300, x_axis_type="log", y_axis_type="log")
    p.line(x="tokens", y="released", source=rates, color=ACCENT, line_width=2,
           legend_label="K/V heads as released")  # fmt: skip
    p.line(x="tokens", y="multi_head", source=rates, color=MUTED, line_width=2,
           line_dash="dashed", legend_label="a K/V head per query head")  # fmt: skip
    p.scatter(x="tokens", y="rate", source=point, color=INK, size=9)
    legend_above(p)
    p.xaxis.axis_label = "tokens in each sequence"
    p.yaxis.axis_label = "tokens per second"
    columns = [
        ("tokens", "tokens in each sequence", "int"),
        ("released", "K/V heads as released", "num"),
        ("multi_head", "a K/V head per query head", "num"),
    ]
    data_table(p, rates, columns)
    return p


def _bytes_plot(source: ColumnDataSource):
    p = plot("bytes one step reads", height=180, y_range=["cache", "weights"])
    p.hbar(y="part", right="gib", height=0.6, color="color", source=source)
    p.text(x="gib", y="part", text="text", source=source, text_baseline="middle",
           text_font_size="11px", text_color=INK)  # fmt: skip
    p.x_range = Range1d(0, 1)
    p.xaxis.axis_label = "GiB"
    p.ygrid.visible = False
    data_table(p, source, [("part", "read", "text"), ("text", "bytes", "text")])
    return p


def layout(figure: Figure) -> pn.viewable.Viewable:
    """Model, length, batch, heads; the bound against the length, one step's bytes."""
    widgets = {
        key: widget(c, c.get(figure.state), **LOOK.get(key, {}))[0]
        for key, c in figure.controls.items()
    }
    rates = ColumnDataSource(rate_columns(DEFAULT))
    point = ColumnDataSource(point_columns(DEFAULT))
    bytes_source = ColumnDataSource(bytes_columns(DEFAULT))
    rate_plot, bytes_plot = _rate_plot(rates, point), _bytes_plot(bytes_source)
    readout, message = pane(), pane()
    about = note(
        f"<b>Card:</b> an {CARD}, whose memory reads {num(H100_SXM_BANDWIDTH / 1e12, 2)} TB/s "
        f'(<a href="{H100_DATASHEET}">NVIDIA\'s datasheet</a>). <b>Bound:</b> bytes read over '
        "that bandwidth; the arithmetic, the activations and the cards a 70B model needs are "
        "left out, so real decoding is slower. <b>Weights:</b> counted from each configuration, "
        "at the precision it was released in. <b>Cache:</b> "
        f"{MISTRAL_7B.name} reads its last {integer(MISTRAL_7B.window)} tokens at most (its "
        "sliding window)."
    )
    handles = {
        "rates": rates,
        "point": point,
        "rates.title": rate_plot.title,
        "bytes": bytes_source,
        "bytes.x_range": bytes_plot.x_range,
        "readout": readout,
        "message": message,
    }
    wire(figure, widgets, {}, handles)
    return frame(list(widgets.values()), [rate_plot, bytes_plot], stacked(readout, about), message)
