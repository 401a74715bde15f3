"""The cost figure's layout: length slider, bytes per score, card size; memory and time
against T on log axes."""

import panel as pn
from bokeh.models import ColumnDataSource, Span

from attention.cost import CARD_GIB, REF_SECONDS, REF_TOKENS, card_bytes, scaled_time
from figurekit.drawing import ACCENT, INK, MUTED
from figurekit.figure import Figure
from figures.cost import LENGTHS
from formatting import integer, num
from layoutkit.frame import frame, pane
from layoutkit.plots import data_table, note, plot, stacked
from layoutkit.wiring import widget, wire


def _log_plot(
    title: str, curve: ColumnDataSource, here: ColumnDataSource, y_label: str, y_format: str
):
    p = plot(title, height=260, x_axis_type="log", y_axis_type="log")
    p.line(x="n", y="y", source=curve, color=MUTED, line_width=2)
    p.scatter(x="n", y="y", source=here, size=11, color=ACCENT)
    p.xaxis.axis_label = "context length T (tokens)"
    p.yaxis.axis_label = y_label
    data_table(p, curve, [("n", "context length T", "int"), ("y", y_label, y_format)])
    return p


def layout(figure: Figure) -> pn.viewable.Viewable:
    """Length slider, bytes per score, card size; memory and time against T."""
    widgets = {key: widget(c, c.get(figure.state))[0] for key, c in figure.controls.items()}
    memory_curve = ColumnDataSource({"n": [], "y": []})
    memory_here = ColumnDataSource({"n": [], "y": []})
    time_curve = ColumnDataSource({"n": list(LENGTHS), "y": [scaled_time(n)[0] for n in LENGTHS]})
    time_here = ColumnDataSource({"n": [], "y": []})
    memory_plot = _log_plot("one head's score matrix", memory_curve, memory_here, "bytes", "int")
    card_line = Span(
        dimension="width", location=card_bytes(CARD_GIB), line_dash="dashed", line_color=INK
    )
    memory_plot.add_layout(card_line)
    time_plot = _log_plot(
        f"time per token, {num(REF_SECONDS, 1)} s at {integer(REF_TOKENS)} tokens",
        time_curve,
        time_here,
        "seconds",
        "mag",
    )
    readout, message = pane(), pane()
    about = note(
        "The dashed line is one card. Exact integers: bytes and whole cards; the ratio and the "
        "time are rounded for display."
    )
    handles = {
        "memory": memory_curve,
        "memory.here": memory_here,
        "time.here": time_here,
        "card": card_line,
        "readout": readout,
        "message": message,
    }
    wire(figure, widgets, {}, handles)
    return frame(list(widgets.values()), [memory_plot, time_plot], stacked(readout, about), message)
