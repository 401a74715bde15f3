"""A band instead of a triangle: sliding-window attention (post 3).

Three views of one window W: the mask for T tokens (each query keeps its last W keys, itself
included), how many stacked layers carry each earlier position to each later one (the last
token's row outlined: after L layers it hears from L (W - 1) positions back), and the scores
one head computes against T on log axes, the band's line against the causal triangle and post
2's full T^2. The readout sets the same counts beside Mistral 7B's window and layers.
"""

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource, HoverTool, LinearColorMapper, Range1d
from bokeh.plotting import figure

from attention.cost import GPT41_CONTEXT
from attention.models import MISTRAL_7B
from attention.window import (
    causal_scores,
    full_scores,
    influencers,
    layers_needed,
    paper_span,
    reach,
    window_fraction,
    window_mask,
    window_scores,
)
from figures.frame import ACCENT, INK, MUTED, frame, pane, readout_html, recompute
from figures.plots import (
    EMPTY,
    HEAT,
    HIGHLIGHT,
    data_table,
    integer_ticker,
    note,
    plot,
    refill,
    stacked,
)
from figures.tryit import drawn
from formatting import integer, percent

TITLE = "A band instead of a triangle"
CAPTION = (
    "Slide the window W down from T and watch the triangle of scores thin to a band, and the "
    "band's line on the log plot fall from a parabola to a straight line. Then add layers: "
    "each one lets the last token hear W − 1 positions further back."
)
MAX_T = 64  # a 64 x 64 grid is still drawn at once
MAX_LAYERS = MISTRAL_7B.layers  # up to Mistral 7B's depth
# Context lengths for the log plot: powers of two up to half a million, then post 2's GPT-4.1.
LENGTHS: tuple[int, ...] = (*(2**k for k in range(20)), GPT41_CONTEXT)


class State(NamedTuple):
    """The figure's controls: tokens T, window W, stacked layers L."""

    T: int = 16
    W: int = 4
    L: int = 2


DEFAULT = State()


def readouts(state: State) -> list[tuple[str, str, str]]:
    """The readout rows for ``state``: the band's scores and reach, and Mistral 7B's."""
    T, W, L = state
    m_window, m_layers, m_context = MISTRAL_7B.window, MISTRAL_7B.layers, MISTRAL_7B.context
    return [
        ("scores", "scores computed in the band", integer(window_scores(T, W))),
        ("causal", "causal triangle, T(T + 1)/2", integer(causal_scores(T))),
        ("full", "full matrix, T² (post 2)", integer(full_scores(T))),
        ("fraction", "band as a share of the triangle", percent(window_fraction(T, W))),
        ("reach", f"reach after {integer(L)} layers, L(W − 1)", integer(reach(W, L))),
        (
            "influencers",
            "positions the last token hears from",
            f"{integer(influencers(T, W, L))} of {integer(T)}",
        ),
        ("mistral", "Mistral 7B: window W, layers", f"{integer(m_window)}, {integer(m_layers)}"),
        (
            "mistral-reach",
            f"its reach, {integer(m_layers)} × {integer(m_window - 1)}",
            integer(reach(m_window, m_layers)),
        ),
        (
            "mistral-span",
            f"the paper's k × W, {integer(m_layers)} × {integer(m_window)}",
            integer(paper_span(m_window, m_layers)),
        ),
        (
            "mistral-fraction",
            f"its band at {integer(m_context)} tokens, share of the triangle",
            percent(window_fraction(m_context, m_window)),
        ),
    ]


def cells(state: State) -> dict:
    """The causal triangle's cells, row by row, for both grids: one source, five columns.

    ``x`` is the key j and ``y`` the query i; ``band`` is 1 inside the window and 0 outside;
    ``needed`` the fewest layers that carry j to i; ``shade`` colours the reach plot (one layer
    darkest, NaN beyond L). Numeric arrays only: a 64-token triangle has 2,080 cells, and
    Bokeh checks every element of every column that changes.
    """
    T, W, L = state
    i, j = np.tril_indices(T)
    needed = layers_needed(T, W)[i, j]
    return {
        "x": j,
        "y": i,
        "band": window_mask(T, W)[i, j].astype(np.float64),
        "needed": needed,
        "shade": np.where(needed <= L, L + 1 - needed, np.nan),
    }


def cost_lines(state: State) -> dict:
    """Scores against T for the log plot: the band at W, the causal triangle, the full matrix."""
    return {
        "n": list(LENGTHS),
        "window": [window_scores(n, state.W) for n in LENGTHS],
        "causal": [causal_scores(n) for n in LENGTHS],
        "full": [full_scores(n) for n in LENGTHS],
    }


def _grid_plot(
    title: str, source: ColumnDataSource, field: str, mapper, column: tuple[str, str]
) -> figure:
    """Cells of a T x T grid at integer positions, query i down the side (row 0 on top)."""
    p = plot(title, height=300, x_axis_location="above")
    p.x_range = Range1d(-0.5, DEFAULT.T - 0.5)
    p.y_range = Range1d(DEFAULT.T - 0.5, -0.5)
    fill = {"field": field, "transform": mapper}
    grid = p.rect(x="x", y="y", width=1, height=1, fill_color=fill, line_color=None, source=source)
    p.xaxis.axis_label = "key position j"
    p.yaxis.axis_label = "query position i"
    p.xaxis.ticker = integer_ticker()
    p.yaxis.ticker = integer_ticker()
    p.grid.visible = False
    tips = [("query i", "@y"), ("key j", "@x"), ("layers needed", "@needed{0}")]
    p.add_tools(HoverTool(renderers=[grid], tooltips=tips))
    cell = [("y", "query i", "int"), ("x", "key j", "int")]
    data_table(p, source, [*cell, (*column, "int")])
    return p


def _plots() -> tuple[list, Callable[[State], None]]:
    """The mask, the reach and the cost plots, and the function that draws a state on them."""
    source = ColumnDataSource(cells(DEFAULT))
    band = LinearColorMapper(palette=[EMPTY, ACCENT], low=0, high=1)
    mask_plot = _grid_plot("the mask", source, "band", band, ("band", "kept (1) or masked (0)"))
    layers = LinearColorMapper(palette=list(HEAT), low=0, high=1, nan_color=EMPTY)
    reach_plot = _grid_plot("layers needed", source, "shade", layers, ("needed", "layers needed"))
    last_row = ColumnDataSource({"x": [], "y": [], "w": []})
    reach_plot.rect(
        x="x", y="y", width="w", height=1, source=last_row, fill_color=None,
        line_color=HIGHLIGHT, line_width=2,
    )  # fmt: skip

    lines = ColumnDataSource(cost_lines(DEFAULT))
    here = ColumnDataSource({"n": [], "y": [], "color": []})
    cost_plot = plot("scores one head computes", height=300, x_axis_type="log", y_axis_type="log")
    cost_plot.line(x="n", y="full", source=lines, color=MUTED, line_width=2, line_dash="dashed",
                   legend_label="full T² (post 2)")  # fmt: skip
    cost_plot.line(x="n", y="causal", source=lines, color=INK, line_width=2,
                   legend_label="causal T(T+1)/2")  # fmt: skip
    cost_plot.line(x="n", y="window", source=lines, color=ACCENT, line_width=2,
                   legend_label="band, window W")  # fmt: skip
    cost_plot.scatter(x="n", y="y", source=here, color="color", size=9)
    cost_plot.legend.location = "top_left"  # above every line, where the lines start low
    cost_plot.xaxis.axis_label = "tokens T"
    cost_plot.yaxis.axis_label = "scores"
    columns = [("n", "tokens T", "int"), ("y", "scores", "int")]
    matrices = ["band, window W", "causal", "full"]
    data_table(cost_plot, here, columns, rows=matrices, row_header="matrix")

    def show(state: State) -> None:
        T, W, L = state
        # Everything is computed before anything is written: a refusal leaves the last drawing.
        grid, curves = cells(state), cost_lines(state)
        counts = [window_scores(T, W), causal_scores(T), full_scores(T)]
        for p in (mask_plot, reach_plot):
            p.x_range.end, p.y_range.start = T - 0.5, T - 0.5
        mask_plot.title.text = f"the mask: T = {integer(T)}, W = {integer(W)}"
        reach_plot.title.text = f"layers needed, up to L = {integer(L)} (darker: fewer)"
        layers.low, layers.high = -L / 2, L  # L layers still visibly coloured
        refill(source, grid)
        refill(last_row, {"x": [(T - 1) / 2], "y": [T - 1], "w": [T]})
        refill(lines, curves)
        refill(here, {"n": [T] * 3, "y": counts, "color": [ACCENT, INK, MUTED]})

    return [mask_plot, reach_plot, cost_plot], show


def view() -> pn.viewable.Viewable:
    """The figure: T, W and L sliders; the mask, the layers needed, the scores against T."""
    T = pn.widgets.IntSlider(name="Tokens T", start=4, end=MAX_T, value=DEFAULT.T)
    W = pn.widgets.IntSlider(name="Window W", start=1, end=MAX_T, value=DEFAULT.W)
    L = pn.widgets.IntSlider(name="Layers L", start=1, end=MAX_LAYERS, value=DEFAULT.L)
    plots, show = _plots()
    readout = pane()
    message = pane()
    about = note(
        "Each query keeps its last W keys, itself included; with W ≥ T the band is the whole "
        "causal triangle. The outlined row is the last token. Counts are exact integers."
    )

    def draw() -> None:
        state = State(int(T.value), int(W.value), int(L.value))
        rows = readouts(drawn(state))
        show(state)
        readout.object = readout_html(rows)

    recompute((T, W, L), message, draw)
    return frame([T, W, L], plots, stacked(readout, about), message)
