"""Three steps, one word: scores, then weights, then the context vector, for one query.

The three panels share one data source with a row per token, so they are linked views: a
token has the same colour in each, and tapping it in any panel picks it out in all three. The
third panel stacks each token's share (weight x embedding) of the context vector.
"""

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource, HoverTool, Span

from attention.basics import context, contributions, query_scores, softmax
from attention.fixtures import TOKENS, book_inputs
from figures.frame import (
    ACCENT,
    INK,
    VISUALLY_HIDDEN_LABEL,
    frame,
    pane,
    readout_html,
    recompute,
)
from figures.plots import TOKEN_COLORS, bar_chart, note, plot, refill, stack_bounds
from formatting import num, vec

TITLE = "Three steps, one word"
CAPTION = (
    "Pick a query token and edit any of the eighteen embedding numbers: the scores, the "
    "weights and the context vector recompute. Tap a bar to follow one token through all "
    "three panels, and try making one token's numbers large to watch it take weight from "
    "every other token."
)
DIMS = ("x₁", "x₂", "x₃")


def _token_rows(s, w, parts, i) -> dict:
    """The shared source's columns: one row per token, read by all three panels."""
    bottom, top = stack_bounds(parts)
    n = len(TOKENS)
    data = {
        "label": list(TOKENS),
        "score": s.tolist(),
        "weight": w.tolist(),
        "color": list(TOKEN_COLORS),
        "edge": [ACCENT if j == i else "#ffffff" for j in range(n)],
        "edge_width": [3.0 if j == i else 1.0 for j in range(n)],
    }
    for k, dim in enumerate(DIMS):
        data[f"dim{k}"] = [dim] * n
        data[f"part{k}"] = parts[:, k].tolist()
        data[f"bottom{k}"] = bottom[:, k].tolist()
        data[f"top{k}"] = top[:, k].tolist()
    return data


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
    p.y_range.range_padding = 0.3  # room for the totals' labels
    p.yaxis.axis_label = "value"
    return p


def view() -> pn.viewable.Viewable:
    """The figure: query picker, 6x3 embedding grid, three linked panels."""
    X0 = book_inputs()
    query = pn.widgets.Select(name="Query token", options=list(TOKENS), value=TOKENS[1], width=160)
    cells = [
        [
            pn.widgets.FloatInput(
                name=f"{TOKENS[i]} {DIMS[k]}",
                value=float(X0[i, k]),
                step=0.01,
                width=66,
                margin=(4, 3),
                stylesheets=[VISUALLY_HIDDEN_LABEL],
            )
            for k in range(3)
        ]
        for i in range(len(TOKENS))
    ]
    swatch = '<span style="color:{}">■</span> {}'
    header = [pn.pane.HTML("", width=66, margin=(0, 3))] + [
        pn.pane.HTML(f"<b>{dim}</b>", width=66, margin=(0, 3), align="center") for dim in DIMS
    ]
    grid = pn.GridBox(
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
    zeros = np.zeros((len(TOKENS), len(DIMS)))
    tokens = ColumnDataSource(_token_rows(zeros[:, 0], zeros[:, 0], zeros, 1))
    totals = ColumnDataSource({"dim": list(DIMS), "z": [0.0] * 3, "text": [""] * 3})
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
    context_plot = _context_plot(tokens, totals)
    readout, message = pane(), pane()
    hint = note(
        "Colours match across the panels; the query has an orange outline. "
        "<b>Tap a bar</b> to pick out that token everywhere (tap empty space to clear)."
    )

    def draw() -> None:
        values = [[cell.value for cell in row] for row in cells]
        if any(v is None for row in values for v in row):
            raise ValueError("Every embedding number needs a value.")
        X = np.array(values, dtype=np.float64)
        if not np.all(np.isfinite(X)):  # the box shows "Infinity" for 1e400
            raise ValueError("Every embedding number must be finite: at most about 1.8e308.")
        i = TOKENS.index(query.value)
        s = query_scores(X, i)
        w = softmax(s)
        z = context(w, X)
        parts = contributions(w, X)
        refill(tokens, _token_rows(s, w, parts, i))
        refill(totals, {"dim": list(DIMS), "z": z.tolist(), "text": [num(v) for v in z]})
        readout.object = readout_html(
            [
                ("scores", f"ω for {query.value}", vec(s)),
                ("weights", "α = softmax(ω)", vec(w)),
                ("context", f"z for {query.value}", vec(z)),
            ]
        )

    recompute([query, *[c for row in cells for c in row]], message, draw)
    return frame(
        [query, grid], [score_plot, weight_plot, context_plot], readout, pn.Column(message, hint)
    )
