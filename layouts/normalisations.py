"""The normalisation figure's layout: tensor and query pickers over two bar charts (divide by
the sum, softmax) that share one source."""

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource, Span

from attention.fixtures import TOKENS
from figurekit.figure import Figure
from figures.normalisations import HINT, _columns
from layoutkit.frame import frame, pane
from layoutkit.plots import bar_chart, note
from layoutkit.wiring import widget, wire

# The presets' long names stack; the token menu is narrow, since every token is short.
LOOK = {"preset": {"orientation": "vertical", "width": 280}, "query": {"width": 160}}


def _bar_plots(source: ColumnDataSource) -> tuple:
    """The two bar charts, divide-by-sum and softmax, with a line at 0."""
    tips = [("token", "@label"), ("score ω", "@score{0.0000}")]
    by_sum_plot = bar_chart(
        "ω / Σω  (divide by the sum)",
        source,
        TOKENS,
        "by_sum",
        "weight",
        tooltips=[*tips, ("ω / Σω", "@by_sum_text")],
    )
    softmax_plot = bar_chart(
        "softmax(ω)",
        source,
        TOKENS,
        "softmax",
        "weight",
        color="soft_color",
        tooltips=[*tips, ("softmax", "@softmax_text")],
    )
    for p in (by_sum_plot, softmax_plot):
        p.add_layout(Span(location=0, dimension="width", line_color="#64748b", line_width=1))
    return by_sum_plot, softmax_plot


def layout(figure: Figure) -> pn.viewable.Viewable:
    """Preset and query pickers, two bar charts, scores and both weight rows."""
    drawn = {
        key: widget(c, c.get(figure.state), **LOOK[c.field]) for key, c in figure.controls.items()
    }
    zeros = np.zeros(len(TOKENS))
    source = ColumnDataSource(_columns(zeros, zeros, zeros, zeros.astype(bool), 1))
    by_sum_plot, softmax_plot = _bar_plots(source)
    readout, message = pane(), pane()
    hint = note(HINT)
    handles = {"bars": source, "readout": readout, "message": message}
    wire(figure, {key: w for key, (w, _) in drawn.items()}, {}, handles)
    placed = [placed for _, placed in drawn.values()]
    return frame(placed, [by_sum_plot, softmax_plot], readout, pn.Column(message, hint))
