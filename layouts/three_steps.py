"""The three-steps figure's layout: query picker, 6x3 embedding grid, three linked panels
(scores, weights, the context vector's stacked shares) over one shared source."""

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource, HoverTool, Span

from attention.fixtures import TOKENS
from figurekit.drawing import INK, TOKEN_COLORS
from figurekit.figure import Figure
from figures.three_steps import DIMS, HINT, _token_rows
from layoutkit.frame import VISUALLY_HIDDEN_LABEL, frame, pane
from layoutkit.plots import bar_chart, data_table, note, plot
from layoutkit.wiring import widget, wire

# The query picker is narrow (every token is short); each embedding box is named by its row
# and column headers, its own label kept for screen readers only.
QUERY = {"width": 160}
BOX = {"step": 0.01, "width": 66, "margin": (4, 3), "stylesheets": [VISUALLY_HIDDEN_LABEL]}


def _context_plot(tokens: ColumnDataSource, totals: ColumnDataSource):
    """Each context coordinate as a stack of the tokens' shares, with the total marked."""
    p = plot("3 · context z = Σ α x (stacked by token)", x_range=list(DIMS), tools="tap")
    for k in range(len(DIMS)):
        seg = p.vbar(
            x=f"dim{k}",
            bottom=f"bottom{k}",
            top=f"top{k}",
            width=0.6,
            fill_color="color",
            line_color="#ffffff",
            nonselection_fill_alpha=0.25,
            source=tokens,
        )
        p.add_tools(
            HoverTool(
                renderers=[seg], tooltips=[("token", "@label"), ("α x", f"@part{k}{{0.0000}}")]
            )
        )
    p.scatter(x="dim", y="z", marker="dash", size=46, line_width=3, color=INK, source=totals)
    p.text(
        x="dim",
        y="z",
        text="text",
        text_align="center",
        text_baseline="bottom",
        y_offset=-6,
        text_font_size="11px",
        text_color=INK,
        source=totals,
    )
    p.add_layout(Span(location=0, dimension="width", line_color="#cbd5e1"))
    p.xgrid.visible = False
    shares = [(f"part{k}", f"α x, {dim}", "num") for k, dim in enumerate(DIMS)]
    data_table(p, tokens, [("label", "token", "text"), *shares])
    p.y_range.range_padding = 0.3  # room for the totals' labels
    p.yaxis.axis_label = "value"
    return p


def _embedding_grid(cells: list[list[pn.widgets.FloatInput]]) -> pn.GridBox:
    """The embedding boxes under a header of dimensions, each row named by its token."""
    swatch = '<span style="color:{}">■</span> {}'
    header = [pn.pane.HTML("", width=66, margin=(0, 3))] + [
        pn.pane.HTML(f"<b>{dim}</b>", width=66, margin=(0, 3), align="center") for dim in DIMS
    ]
    return pn.GridBox(
        *header,
        *[
            item
            for i, row in enumerate(cells)
            for item in (
                pn.pane.HTML(swatch.format(TOKEN_COLORS[i], TOKENS[i]), width=66, margin=(4, 3)),
                *row,
            )
        ],
        ncols=4,
    )


def _step_plots(tokens: ColumnDataSource, totals: ColumnDataSource) -> tuple:
    """The three linked panels: scores, weights, and the context vector's stacked shares."""
    score_plot = bar_chart(
        "1 · scores ω = x_query · x_j",
        tokens,
        TOKENS,
        "score",
        "dot product",
        tooltips=[("token", "@label"), ("ω", "@score{0.0000}"), ("α", "@weight{0.0000}")],
    )
    weight_plot = bar_chart(
        "2 · weights α = softmax(ω)",
        tokens,
        TOKENS,
        "weight",
        "weight",
        tooltips=[("token", "@label"), ("α", "@weight{0.0000}")],
    )
    return score_plot, weight_plot, _context_plot(tokens, totals)


def layout(figure: Figure) -> pn.viewable.Viewable:
    """Query picker, 6x3 embedding grid, three linked panels."""
    widgets = {
        key: widget(c, c.get(figure.state), **(BOX if c.at else QUERY))[0]
        for key, c in figure.controls.items()
    }
    query, *boxes = widgets.values()
    cells = [boxes[i * len(DIMS) : (i + 1) * len(DIMS)] for i in range(len(TOKENS))]
    grid = _embedding_grid(cells)
    zeros = np.zeros((len(TOKENS), len(DIMS)))
    tokens = ColumnDataSource(_token_rows(zeros[:, 0], zeros[:, 0], zeros, 1))
    totals = ColumnDataSource({"dim": list(DIMS), "z": [0.0] * 3, "text": [""] * 3})
    plots = _step_plots(tokens, totals)
    readout, message = pane(), pane()
    hint = note(HINT)
    handles = {"tokens": tokens, "totals": totals, "readout": readout, "message": message}
    wire(figure, widgets, {}, handles)
    return frame([query, grid], plots, readout, pn.Column(message, hint))
