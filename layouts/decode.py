"""The decoding figure's layout: model, length, batch and heads; the bound on tokens per second
against the length, and one step's bytes."""

import panel as pn
from bokeh.models import ColumnDataSource

from attention.decode import H100_DATASHEET, H100_SXM_BANDWIDTH
from attention.models import MISTRAL_7B
from figurekit.figure import Figure
from figures.decode import CARD, DEFAULT, bytes_columns, point_columns, rate_columns
from formatting import integer, num
from layoutkit.frame import frame, pane
from layoutkit.plots import labelled_bars, note, stacked, two_lines
from layoutkit.wiring import widget, wire

# How each control looks, by control key.
LOOK = {"model": {"width": 160}}


def layout(figure: Figure) -> pn.viewable.Viewable:
    """Model, length, batch, heads; the bound against the length, one step's bytes."""
    widgets = {
        key: widget(c, c.get(figure.state), **LOOK.get(key, {}))[0]
        for key, c in figure.controls.items()
    }
    rates = ColumnDataSource(rate_columns(DEFAULT))
    point = ColumnDataSource(point_columns(DEFAULT))
    bytes_source = ColumnDataSource(bytes_columns(DEFAULT))
    rate_plot = two_lines(
        "tokens per second, at most",
        rates,
        point,
        x=("tokens", "tokens in each sequence"),
        solid=("released", "K/V heads as released"),
        dashed=("multi_head", "a K/V head per query head"),
        y_label="tokens per second",
        point_y="rate",
    )
    bytes_plot = labelled_bars(
        "bytes one step reads", bytes_source, ["weights", "cache"], ("gib", "GiB"), "read"
    )
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
