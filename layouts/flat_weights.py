"""The flat-weights figure's layout: a softmax/flat switch over the plane of inputs and
context vectors (whole, and a close-up around the flat average) and the rows' entropies."""

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource, HoverTool, LabelSet, Range1d, Span

from attention.analysis import max_entropy_bits
from attention.fixtures import TOKENS
from figurekit.drawing import ACCENT, INK, MUTED
from figurekit.figure import Figure
from figures.flat_weights import (
    HINT,
    T,
    _close_up_reach,
    _flat_average,
    _inputs_columns,
    _rows_columns,
)
from formatting import num
from layoutkit.frame import frame, pane
from layoutkit.plots import bar_chart, data_table, note, plot
from layoutkit.wiring import widget, wire


def _labels(source: ColumnDataSource) -> LabelSet:
    return LabelSet(
        x="x",
        y="y",
        text="label",
        source=source,
        x_offset="dx",
        text_align="align",
        y_offset=-5,
        text_font_size="11px",
        text_color=INK,
    )


def _plane_plot(
    title: str,
    inputs: ColumnDataSource,
    outputs: ColumnDataSource,
    centre: ColumnDataSource,
    half_width: float | None = None,
):
    """Inputs, context vectors and the flat average in the plane; zoomed if ``half_width``."""
    if half_width is None:
        p = plot(title, height=300, match_aspect=True)
    else:  # a square window around the flat average, which sits at the origin of the plane
        window = {"x_range": Range1d(-half_width, half_width)}
        p = plot(title, height=300, y_range=Range1d(-half_width, half_width), **window)
    p.scatter(x="x", y="y", size=11, color="color", source=inputs)
    p.add_layout(_labels(inputs))
    p.segment(x0="x", y0="y", x1="cx", y1="cy", source=outputs, color=MUTED, line_width=1.5)
    diamonds = p.scatter(
        x="x", y="y", marker="diamond", size=12, color="color", line_color=ACCENT, source=outputs
    )
    p.scatter(x="x", y="y", marker="x", size=12, line_width=2, color=INK, source=centre)
    if half_width is None:
        p.x_range.range_padding = 0.25  # room for the labels of the outermost inputs
    else:  # the context vectors crowd together: named on hover, not by labels that overlap
        p.add_tools(HoverTool(renderers=[diamonds], tooltips=[("context vector of", "@label")]))
    p.xaxis.axis_label = "main direction of spread"
    p.yaxis.axis_label = "second direction"
    columns = [("label", "context vector of", "text"), ("x", "main direction", "num")]
    data_table(p, outputs, [*columns, ("y", "second direction", "num")])
    return p


def _entropy_plot(rows: ColumnDataSource):
    """Each row's entropy against the ceiling log2 T, dashed."""
    ceiling = max_entropy_bits(T)
    p = bar_chart(
        f"Row entropy in bits (ceiling log₂ {T} = {num(ceiling, 3)})",
        rows,
        TOKENS,
        "entropy",
        "bits",
        tooltips=[("row", "@label"), ("entropy", "@entropy{0.000} bits")],
    )
    p.y_range.start = 0
    p.add_layout(
        Span(
            location=ceiling, dimension="width", line_color=ACCENT, line_dash="dashed", line_width=2
        )
    )
    return p


def layout(figure: Figure) -> pn.viewable.Viewable:
    """A softmax/flat switch, the plane of inputs and outputs, row entropies."""
    drawn = {key: widget(c, c.get(figure.state)) for key, c in figure.controls.items()}
    inputs = ColumnDataSource(_inputs_columns())
    outputs = ColumnDataSource({"x": [], "y": [], "cx": [], "cy": [], "color": [], "label": []})
    centre_xy = _flat_average()
    centre = ColumnDataSource({"x": centre_xy[:, 0], "y": centre_xy[:, 1]})
    rows = ColumnDataSource(_rows_columns(np.zeros(T)))
    plane_plot = _plane_plot(
        "Inputs (circles), context vectors (diamonds)", inputs, outputs, centre
    )
    close_plot = _plane_plot(
        "Close-up around the flat average ×", inputs, outputs, centre, _close_up_reach()
    )
    entropy_plot = _entropy_plot(rows)
    readout, message = pane(), pane()
    hint = note(HINT)
    handles = {"outputs": outputs, "rows": rows, "readout": readout, "message": message}
    wire(figure, {key: w for key, (w, _) in drawn.items()}, {}, handles)
    placed = [placed for _, placed in drawn.values()]
    return frame(placed, [plane_plot, close_plot, entropy_plot], readout, pn.Column(message, hint))
