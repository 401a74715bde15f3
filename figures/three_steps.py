"""Three steps, one word: scores, then weights, then the context vector, for one query.

The three panels share one data source with a row per token, so they are linked views: a
token has the same colour in each, and tapping it in any panel picks it out in all three. The
third panel stacks each token's share (weight x embedding) of the context vector.
"""

from typing import NamedTuple

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource, HoverTool, Span

from attention.basics import context, contributions, query_scores, softmax
from attention.fixtures import TOKENS, book_inputs
from figures.frame import INK, VISUALLY_HIDDEN_LABEL, frame, pane, readout_html, recompute
from figures.plots import (
    TOKEN_COLORS,
    bar_chart,
    data_table,
    note,
    outline,
    plot,
    refill,
    stack_bounds,
)
from figures.tryit import drawn
from figures.widgets import token_picker
from formatting import num, vec

TITLE = "Three steps, one word"
CAPTION = (
    "Pick a query token and edit any of the eighteen embedding numbers: the scores, the "
    "weights and the context vector recompute. Tap a bar to follow one token through all "
    "three panels, and try making one token's numbers large to watch it take weight from "
    "every other token."
)
DIMS = ("x₁", "x₂", "x₃")
HINT = (
    "Colours match across the panels; the query has an orange outline. "
    "<b>Tap a bar</b> to pick out that token everywhere (tap empty space to clear)."
)


class State(NamedTuple):
    """The query token and the embedding boxes' numbers, row by row (an empty box is None)."""

    query: str
    values: tuple[tuple[float | None, ...], ...]


def inputs(state: State) -> np.ndarray:
    """The embeddings as a (T, 3) float64 array; ``ValueError`` for an empty box or a number
    float64 cannot hold."""
    if any(v is None for row in state.values for v in row):
        raise ValueError("Every embedding number needs a value.")
    X = np.array(state.values, dtype=np.float64)
    if not np.all(np.isfinite(X)):  # the box shows "Infinity" for 1e400
        raise ValueError("Every embedding number must be finite: at most about 1.8e308.")
    return X


def _steps(state: State) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The three steps for the query: scores, weights, context vector."""
    X = inputs(state)
    s = query_scores(X, TOKENS.index(state.query))
    w = softmax(s)
    return s, w, context(w, X)


def readouts(state: State) -> list[tuple[str, str, str]]:
    """Each step's numbers for the query; raises ``ValueError`` where the core refuses."""
    s, w, z = _steps(state)
    return [
        ("scores", f"ω for {state.query}", vec(s)),
        ("weights", "α = softmax(ω)", vec(w)),
        ("context", f"z for {state.query}", vec(z)),
    ]


def _token_rows(s, w, parts, i) -> dict:
    """The shared source's columns: one row per token, read by all three panels."""
    bottom, top = stack_bounds(parts)
    n = len(TOKENS)
    data = {
        "label": list(TOKENS),
        "score": s.tolist(),
        "weight": w.tolist(),
        "color": list(TOKEN_COLORS),
        **outline([j == i for j in range(n)]),
    }
    for k, dim in enumerate(DIMS):
        data[f"dim{k}"] = [dim] * n
        data[f"part{k}"] = parts[:, k].tolist()
        data[f"bottom{k}"] = bottom[:, k].tolist()
        data[f"top{k}"] = top[:, k].tolist()
    return data


def _token_columns(state: State) -> dict:
    """The shared source for the state: each token's score, weight and share of z."""
    s, w, _ = _steps(state)
    parts = contributions(w, inputs(state))
    return _token_rows(s, w, parts, TOKENS.index(state.query))


def _totals_columns(state: State) -> dict:
    """The context vector's coordinates, marked at the top of each stack."""
    z = _steps(state)[2]
    return {"dim": list(DIMS), "z": z.tolist(), "text": [num(v) for v in z]}


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


def _embedding_grid(X0: np.ndarray) -> tuple[list[list[pn.widgets.FloatInput]], pn.GridBox]:
    """A box per embedding number, under a header of dimensions, each row named by its token."""
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
    return cells, grid


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


def view() -> pn.viewable.Viewable:
    """The figure: query picker, 6x3 embedding grid, three linked panels."""
    query = token_picker()
    cells, grid = _embedding_grid(book_inputs())
    boxes = [cell for row in cells for cell in row]
    zeros = np.zeros((len(TOKENS), len(DIMS)))
    tokens = ColumnDataSource(_token_rows(zeros[:, 0], zeros[:, 0], zeros, 1))
    totals = ColumnDataSource({"dim": list(DIMS), "z": [0.0] * 3, "text": [""] * 3})
    plots = _step_plots(tokens, totals)
    readout, banner = pane(), pane()
    hint = note(HINT)

    def draw() -> None:
        state = State(query.value, tuple(tuple(cell.value for cell in row) for row in cells))
        refill(tokens, _token_columns(state))
        refill(totals, _totals_columns(state))
        readout.object = readout_html(readouts(drawn(state)))

    recompute([query, *boxes], banner, draw)
    return frame([query, grid], plots, readout, pn.Column(banner, hint))
