"""Softmax one tile at a time: the online softmax behind FlashAttention (post 3).

One query of a small example (12 keys of width 4) meets its keys tile by tile. After each
tile the running maximum m, the running sum ℓ and the partial output o are what
``attention.online`` carries; after the last one they are the full softmax's, up to rounding.
Beside the toy, what the T x T matrix would take at a real length, against the tiled state.
"""

from typing import NamedTuple

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource, FixedTicker, Span

from attention.models import LLAMA2_7B
from attention.online import (
    EXAMPLE_QUERY,
    EXAMPLE_T,
    EXAMPLE_TILE,
    MEMORY_TILE,
    TileStep,
    example,
    full_row,
    max_difference,
    memory,
    online_row,
    row_normalizer,
    tile_scores,
)
from figures.frame import ACCENT, INK, MUTED, frame, pane, readout_html, recompute
from figures.plots import TOKEN_COLORS, data_table, note, plot, refill, stacked
from figures.tryit import drawn
from figures.widgets import ChoiceSlider, button, switch
from formatting import bytes_text, integer, noise_text, num, vec

TITLE = "Softmax one tile at a time"
CAPTION = (
    "Step through the key tiles with Next: each tile may raise the running maximum m, and "
    "then the sum ℓ and the partial output o are rescaled, not recomputed. After the last "
    "tile, compare with the full softmax. Try a tile of 1 key, or of all 12, and the causal "
    "switch."
)
EXAMPLE = example()  # (Q, K, V), each (12, 4)
LENGTHS: tuple[int, ...] = tuple(2**k for k in range(10, 21))  # 1,024 to 1,048,576 tokens
MODEL = LLAMA2_7B  # the memory readout: one head of its size, in its 16-bit numbers
SEEN_COLOR, FULL_COLOR = TOKEN_COLORS[0], TOKEN_COLORS[2]
ABOUT = (
    "Bars: the query's scores, the current tile in orange, tiles not yet seen faint. The "
    "dashed line in the first plot is the running maximum; in the second, the dashed lines "
    "are the full row's maximum and sum, which the running values reach at the last tile."
)


# Readouts that print float64 rounding itself: their last digits depend on the maths library
# that computed them, so the build's CPython and the reader's browser may print different ones.
ROUNDING = frozenset({"difference"})


class State(NamedTuple):
    """The controls: query row, keys per tile, tiles seen, causal, and T for the memory."""

    query: int = EXAMPLE_QUERY
    tile: int = EXAMPLE_TILE
    seen: int = 2
    causal: bool = False
    length: int = 4096


DEFAULT = State()


def steps(state: State) -> list[TileStep]:
    """The running state after each tile, for the state's query row."""
    Q, K, V = EXAMPLE
    position = state.query if state.causal else None
    return online_row(Q[state.query], K, V, state.tile, state.causal, position)[1]


def seen(state: State) -> int:
    """Tiles seen: the slider's value, at most the number of tiles there are."""
    return min(state.seen, len(steps(state)))


def full(state: State) -> np.ndarray:
    """The full softmax's output for the query row. -> (d_v,)"""
    Q, K, V = EXAMPLE
    position = state.query if state.causal else None
    return full_row(Q[state.query], K, V, state.causal, position)


def _difference(state: State) -> str:
    """After the last tile, |tiled - full| (exact zero, or rounding); before it, how far o is."""
    all_steps, k = steps(state), seen(state)
    gap = max_difference(all_steps[k - 1].o, full(state))
    if k < len(all_steps):
        return f"{num(gap)} so far: {len(all_steps) - k} tile(s) to go"
    return f"{noise_text(gap)} ({'bit for bit' if gap == 0.0 else 'rounding'})"


def _keys(a: int, b: int) -> str:
    """'keys 3 to 5', or 'key 4' for a tile of one."""
    return f"key {a}" if b - a == 1 else f"keys {a} to {b - 1}"


def readouts(state: State) -> list[tuple[str, str, str]]:
    """The running state after the tiles seen, the full result, and the memory at T."""
    all_steps, k = steps(state), seen(state)
    step = all_steps[k - 1]
    a, b = step.keys
    m_full, ell_full = row_normalizer(
        EXAMPLE[0][state.query], EXAMPLE[1], state.causal, state.query if state.causal else None
    )
    mem = memory(state.length, MODEL.head_dim, MEMORY_TILE, MODEL.bytes_per_value)
    return [
        ("seen", "tiles seen", f"{k} of {len(all_steps)} (this one: {_keys(a, b)})"),
        ("m", "running maximum m", num(step.m)),
        ("ell", "running sum ℓ", num(step.ell)),
        ("partial", "partial output o", vec(step.o)),
        ("full-m", "full row: maximum and sum", f"{num(m_full)}, {num(ell_full)}"),
        ("full", "full softmax output", vec(full(state))),
        ("difference", "largest |tiled − full|", _difference(state)),
        ("length", "context length T (memory)", integer(state.length)),
        ("matrix", "one head's T × T scores", bytes_text(mem.scores)),
        (
            "tiled",
            f"tiled: m and ℓ per row, one {MEMORY_TILE} × {MEMORY_TILE} tile",
            bytes_text(mem.tiled),
        ),
        ("output", f"output, both ways: T × {MODEL.head_dim}", bytes_text(mem.output)),
    ]


def _score_columns(state: State) -> dict:
    """One bar per key: seen tiles dark, the current tile orange, the rest faint or hidden."""
    Q, K, _ = EXAMPLE
    s = tile_scores(Q[state.query], K)
    step = steps(state)[seen(state) - 1]
    a, b = step.keys
    visible = [not (state.causal and j > state.query) for j in range(EXAMPLE_T)]
    color = [ACCENT if a <= j < b else INK if j < a else MUTED for j in range(EXAMPLE_T)]
    alpha = [(1.0 if j < b else 0.3) if visible[j] else 0.0 for j in range(EXAMPLE_T)]
    # In words, for the plot's data table, what the colour and the fading say.
    tile = [
        ("this tile" if a <= j < b else "seen" if j < a else "not yet") if visible[j] else "hidden"
        for j in range(EXAMPLE_T)
    ]
    return {
        "x": list(range(EXAMPLE_T)),
        "score": s.tolist(),
        "color": color,
        "alpha": alpha,
        "tile": tile,
    }


def _boundaries(state: State) -> dict:
    """Vertical lines between tiles, up to the keys the query can see."""
    stops = [st.keys[0] for st in steps(state)[1:]]
    return {"x": [j - 0.5 for j in stops]}


def _running_columns(state: State) -> tuple[dict, dict]:
    """m and ℓ after each tile seen, against the tile's number."""
    done = steps(state)[: seen(state)]
    x = list(range(1, len(done) + 1))
    ell = [st.ell for st in done]
    # m's source carries ℓ as well, undrawn, so the plot's data table has both.
    return {"x": x, "y": [st.m for st in done], "ell": ell}, {"x": x, "y": ell}


def _output_columns(state: State) -> tuple[dict, dict]:
    """The partial output and the full one, side by side per component."""
    o = steps(state)[seen(state) - 1].o
    d = len(o)
    whole = full(state).tolist()
    # The partial output's source carries the full one as well, undrawn, for the data table.
    return (
        {"x": [c - 0.18 for c in range(d)], "y": o.tolist(), "c": list(range(d)), "full": whole},
        {"x": [c + 0.18 for c in range(d)], "y": whole},
    )


def _plots():
    """The three plots and the function that fills them for a state."""
    bars = ColumnDataSource(_score_columns(DEFAULT))
    cuts = ColumnDataSource(_boundaries(DEFAULT))
    p_scores = plot("scores of the tiles seen, s_j = q · k_j / √d_k", height=250)
    p_scores.vbar(x="x", top="score", width=0.75, color="color", fill_alpha="alpha",
                  line_alpha="alpha", source=bars)  # fmt: skip
    p_scores.segment(x0="x", x1="x", y0=-3.5, y1=3.5, source=cuts, line_color=MUTED,
                     line_dash="dotted")  # fmt: skip
    m_line = Span(dimension="width", line_dash="dashed", line_color=ACCENT, line_width=2)
    p_scores.add_layout(m_line)
    p_scores.xaxis.ticker = FixedTicker(ticks=list(range(EXAMPLE_T)))
    p_scores.xaxis.axis_label = "key j"
    p_scores.xgrid.visible = False
    columns = [("x", "key j", "int"), ("score", "score s_j", "num"), ("tile", "tile", "text")]
    data_table(p_scores, bars, columns)

    m_src = ColumnDataSource({"x": [], "y": [], "ell": []})
    ell_src = ColumnDataSource({"x": [], "y": []})
    p_run = plot("running maximum m and sum ℓ after each tile", height=250)
    for src, color, label in ((m_src, ACCENT, "m"), (ell_src, SEEN_COLOR, "ℓ")):
        p_run.line(x="x", y="y", source=src, color=color, line_width=2, legend_label=label)
        p_run.scatter(x="x", y="y", source=src, color=color, size=8)
    m_full = Span(dimension="width", line_dash="dashed", line_color=ACCENT)
    ell_full = Span(dimension="width", line_dash="dashed", line_color=SEEN_COLOR)
    p_run.add_layout(m_full)
    p_run.add_layout(ell_full)
    p_run.xaxis.axis_label = "tiles seen"
    p_run.xaxis.ticker = FixedTicker(ticks=list(range(1, EXAMPLE_T + 1)))
    p_run.legend.location = "top_left"
    columns = [("x", "tiles seen", "int"), ("y", "running maximum m", "num")]
    data_table(p_run, m_src, [*columns, ("ell", "running sum ℓ", "num")])

    o_src = ColumnDataSource({"x": [], "y": [], "c": [], "full": []})
    full_src = ColumnDataSource({"x": [], "y": []})
    p_out = plot("partial output o against the full output", height=250)
    p_out.vbar(x="x", top="y", width=0.34, source=o_src, color=ACCENT, legend_label="partial o")
    p_out.vbar(x="x", top="y", width=0.34, source=full_src, color=FULL_COLOR,
               legend_label="full softmax")  # fmt: skip
    p_out.xaxis.ticker = FixedTicker(ticks=list(range(EXAMPLE[2].shape[1])))
    p_out.xaxis.axis_label = "component of the output"
    p_out.xgrid.visible = False
    p_out.legend.location = "top_left"
    columns = [("y", "partial output o", "num"), ("full", "full softmax output", "num")]
    data_table(p_out, o_src, [("c", "component", "int"), *columns])

    def show(state: State) -> None:
        refill(bars, _score_columns(state))
        refill(cuts, _boundaries(state))
        k = seen(state)
        m_line.location = steps(state)[k - 1].m
        m_src_data, ell_src_data = _running_columns(state)
        refill(m_src, m_src_data)
        refill(ell_src, ell_src_data)
        q = EXAMPLE[0][state.query]
        position = state.query if state.causal else None
        m_full.location, ell_full.location = row_normalizer(q, EXAMPLE[1], state.causal, position)
        partial, whole = _output_columns(state)
        refill(o_src, partial)
        refill(full_src, whole)

    return [p_scores, p_run, p_out], show


def view() -> pn.viewable.Viewable:
    """The figure: query, tile size, the tile stepper, causal; scores, running state, output."""
    query = pn.widgets.IntSlider(name="Query row i", start=0, end=EXAMPLE_T - 1,
                                 value=DEFAULT.query)  # fmt: skip
    tile = pn.widgets.IntSlider(name="Keys per tile", start=1, end=EXAMPLE_T, value=DEFAULT.tile)
    tiles = pn.widgets.IntSlider(name="Tiles seen", start=1, end=EXAMPLE_T, value=DEFAULT.seen)
    previous, following = button("Previous tile"), button("Next tile")
    causal = switch("Causal: keys after i hidden", DEFAULT.causal)
    length = ChoiceSlider(
        name="Context length T (memory)",
        options={integer(n): n for n in LENGTHS},
        value=DEFAULT.length,
    )
    plots, show = _plots()
    readout, message = pane(), pane()

    def state() -> State:
        return State(query.value, tile.value, tiles.value, causal.value, int(length.value))

    def draw() -> None:
        current = state()
        rows = readouts(drawn(current))  # computes everything before anything is drawn
        show(current)
        readout.object = readout_html(rows)

    def step_by(delta: int) -> None:
        # clamp to the tiles there are; the slider's own range covers the smallest tile
        try:
            k, n = seen(state()), len(steps(state()))
        except ValueError:  # the figure already shows why it cannot draw
            return
        tiles.value = max(1, min(k + delta, n))

    previous.on_click(lambda _event: step_by(-1))
    following.on_click(lambda _event: step_by(+1))
    controls = (query, tile, tiles, causal, length)
    recompute(controls, message, draw)
    about = note(ABOUT)
    return frame(
        [query, tile, tiles, previous, following, causal, length],
        plots,
        stacked(readout, about),
        message,
    )
