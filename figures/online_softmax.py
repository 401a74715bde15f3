"""Softmax one tile at a time: the online softmax behind FlashAttention (post 3).

One query of a small example (12 keys of width 4) meets its keys tile by tile. After each
tile the running maximum m, the running sum ℓ and the partial output o are what
``attention.online`` carries; after the last one they are the full softmax's, up to rounding.
Beside the toy, what the T x T matrix would take at a real length, against the tiled state.
"""

from functools import lru_cache
from typing import NamedTuple

import numpy as np

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
from figurekit.controls import Action, Choice, Slider, Switch
from figurekit.drawing import ACCENT, INK, MUTED, TOKEN_COLORS, Drawing, html, readout_html
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

    query: int = EXAMPLE_QUERY + 1  # counted from 1, as the series counts
    tile: int = EXAMPLE_TILE
    seen: int = 2
    causal: bool = False
    length: int = 4096


DEFAULT = State()
CONTROLS = (
    Slider("query", "Query row i", start=1, end=EXAMPLE_T),
    Slider("tile", "Keys per tile", start=1, end=EXAMPLE_T),
    Slider("seen", "Tiles seen", start=1, end=EXAMPLE_T),
    Switch("causal", "Causal: keys after i hidden"),
    Choice("length", "Context length T (memory)", {integer(n): n for n in LENGTHS}, style="slider"),
)


def row(state: State) -> int:
    """The query's row in numpy's count, from 0."""
    if not 1 <= state.query <= EXAMPLE_T:
        raise ValueError(f"the query row is 1 to {EXAMPLE_T}, counted from 1; got {state.query}")
    return state.query - 1


def position(state: State) -> int | None:
    """Where a causal query sits (keys after it hidden); None when nothing is hidden."""
    return row(state) if state.causal else None


def steps(state: State) -> tuple[TileStep, ...]:
    """The running state after each tile, for the state's query row."""
    return _steps(row(state), state.tile, state.causal)


# Drawing one state reads the steps a dozen times (readouts, plots, sliders): kept for the
# last few states, so a change computes them once.
@lru_cache(maxsize=8)
def _steps(i: int, tile: int, causal: bool) -> tuple[TileStep, ...]:
    Q, K, V = EXAMPLE
    return tuple(online_row(Q[i], K, V, tile, causal, i if causal else None)[1])


def seen(state: State) -> int:
    """Tiles seen: the slider's value, at most the number of tiles there are."""
    return min(state.seen, len(steps(state)))


def react(state: State, key: str) -> State:
    """A new tile size, query or causal switch leaves as many tiles as there are: the tiles
    seen stay within them, so the slider and the readout agree."""
    try:
        return state._replace(seen=seen(state))
    except ValueError:  # the figure shows why it cannot draw this state
        return state


def seen_slider(state: State) -> dict:
    """The tiles-seen slider runs to the number of tiles; with a single tile there is nothing
    to step through, and the slider is off (a slider needs two stops)."""
    n = len(steps(state))
    return {"end": max(n, 2), "disabled": n == 1}


def full(state: State) -> np.ndarray:
    """The full softmax's output for the query row. -> (d_v,)"""
    Q, K, V = EXAMPLE
    return full_row(Q[row(state)], K, V, state.causal, position(state))


def _difference(state: State) -> str:
    """After the last tile, |tiled - full| (exact zero, or rounding); before it, how far o is."""
    all_steps, k = steps(state), seen(state)
    gap = max_difference(all_steps[k - 1].o, full(state))
    if k < len(all_steps):
        return f"{num(gap)} so far: {len(all_steps) - k} tile(s) to go"
    return f"{noise_text(gap)} ({'bit for bit' if gap == 0.0 else 'rounding'})"


def _keys(a: int, b: int) -> str:
    """Keys a to b - 1 from 0 as the series counts them: 'keys 4 to 6', or 'key 5' alone."""
    return f"key {a + 1}" if b - a == 1 else f"keys {a + 1} to {b}"


def readouts(state: State) -> list[tuple[str, str, str]]:
    """The running state after the tiles seen, the full result, and the memory at T."""
    all_steps, k = steps(state), seen(state)
    step = all_steps[k - 1]
    a, b = step.keys
    m_full, ell_full = row_normalizer(
        EXAMPLE[0][row(state)], EXAMPLE[1], state.causal, position(state)
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
    s = tile_scores(Q[row(state)], K)
    step = steps(state)[seen(state) - 1]
    a, b = step.keys
    visible = [not (state.causal and j > row(state)) for j in range(EXAMPLE_T)]
    color = [ACCENT if a <= j < b else INK if j < a else MUTED for j in range(EXAMPLE_T)]
    alpha = [(1.0 if j < b else 0.3) if visible[j] else 0.0 for j in range(EXAMPLE_T)]
    # In words, for the plot's data table, what the colour and the fading say.
    tile = [
        ("this tile" if a <= j < b else "seen" if j < a else "not yet") if visible[j] else "hidden"
        for j in range(EXAMPLE_T)
    ]
    return {
        "x": list(range(1, EXAMPLE_T + 1)),
        "score": s.tolist(),
        "color": color,
        "alpha": alpha,
        "tile": tile,
    }


def _boundaries(state: State) -> dict:
    """Vertical lines between tiles, up to the keys the query can see."""
    stops = [st.keys[0] for st in steps(state)[1:]]
    return {"x": [j + 0.5 for j in stops]}  # between keys j and j + 1, counted from 1


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
        {
            "x": [c - 0.18 for c in range(1, d + 1)],
            "y": o.tolist(),
            "c": list(range(1, d + 1)),
            "full": whole,
        },
        {"x": [c + 0.18 for c in range(1, d + 1)], "y": whole},
    )


def step_by(delta: int):
    """The move of a tile button: the slider ``delta`` tiles on, clamped to the tiles there are
    (the slider's own range covers the smallest tile); a state the figure cannot draw stays."""

    def move(state: State) -> State:
        try:
            k, n = seen(state), len(steps(state))
        except ValueError:  # the figure already shows why it cannot draw
            return state
        return state._replace(seen=max(1, min(k + delta, n)))

    return move


ACTIONS = (Action("Previous tile", step_by(-1)), Action("Next tile", step_by(+1)))


def draw(state: State) -> Drawing:
    """The scores by tile, the running m and ℓ against the full row's, the partial output
    against the full one, and the readout."""
    rows = readouts(state)  # computes everything before anything is drawn
    k = seen(state)
    m_data, ell_data = _running_columns(state)
    m_full, ell_full = row_normalizer(
        EXAMPLE[0][row(state)], EXAMPLE[1], state.causal, position(state)
    )
    partial, whole = _output_columns(state)
    return {
        "bars": {"data": _score_columns(state)},
        "cuts": {"data": _boundaries(state)},
        "m_line": {"location": steps(state)[k - 1].m},
        "m": {"data": m_data},
        "ell": {"data": ell_data},
        "m_full": {"location": m_full},
        "ell_full": {"location": ell_full},
        "partial": {"data": partial},
        "full": {"data": whole},
        "readout": html(readout_html(rows)),
        "tiles_seen": seen_slider(state),
    }
