"""One projection sliced into heads: column stripes, the shape trace, two meanings of d_out.

Post 2, section 05. The split class's W_query is drawn with each head's block of columns in
its own colour (darker for larger |weight|); the trace lists the shape after every reshape;
the readouts set the wrapper class against the split class at the same arguments (output
width) and at the same output width (parameters). The weights are ``nn.Linear``'s initial
values after seed 123, as the book constructs ``MultiHeadAttention``, generated in numpy.
"""

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from attention.fixtures import GPT2_EMBED, TOKENS
from attention.heads import (
    BOOK_BATCH,
    BOOK_HEADS,
    GPT2_HEADS,
    head_columns,
    head_dim,
    output_shapes,
    param_counts,
    score_divisor,
    shape_trace,
)
from attention.torch_rng import BOOK_D_IN, BOOK_D_OUT, SEED_3_4, linear_weight, stream
from figurekit.controls import Action, Number
from figurekit.drawing import MUTED, Drawing, html, message_html, readout_html
from formatting import integer, root_text, shape_text

TITLE = "One matrix, sliced into stripes"
CAPTION = (
    "Step num_heads and watch W_query's columns regroup into one stripe per head; walk the "
    "shape trace below. Load GPT-2's sizes to see why its scores are divided by "
    f"{score_divisor(GPT2_EMBED, GPT2_HEADS):g}, and try a head count that does not "
    "divide d_out."
)
MAX_SIZE = 1024  # d_in and d_out: a (1024, 1024) projection is still drawn at once
MAX_ROWS = 16  # rows of W_query drawn; the stripes run down every row alike
T = len(TOKENS)
HEAD_COLORS = (
    "#0072b2",
    "#e69f00",
    "#009e73",
    "#cc79a7",
    "#56b4e9",
    "#d55e00",
    "#f0e442",
    "#000000",
)
PRESETS = {
    "book": (BOOK_D_IN, BOOK_D_OUT, BOOK_HEADS),
    "gpt2": (GPT2_EMBED, GPT2_EMBED, GPT2_HEADS),
}


@lru_cache(maxsize=4)
def query_weights(d_in: int, d_out: int) -> np.ndarray:
    """W_query as the book's MultiHeadAttention starts it after seed 123. -> (d_in, d_out)"""
    return linear_weight(stream(SEED_3_4), d_in, d_out).T


def stripes_rgba(W: np.ndarray, columns: list[tuple[int, int]] | None) -> np.ndarray:
    """The first MAX_ROWS rows of W as an RGBA image, row 0 at the top.

    Each head's columns take that head's colour, mixed with white by |weight| / max |weight|;
    ``columns`` None (no valid split) draws every column in grey. -> (rows, d_out) uint32
    """
    shown = W[:MAX_ROWS][::-1]  # Bokeh draws image row 0 at the bottom
    strength = 0.2 + 0.8 * np.abs(shown) / max(float(np.max(np.abs(shown))), 1e-300)
    hexes = [MUTED] * W.shape[1]
    for h, (start, stop) in enumerate(columns or []):
        hexes[start:stop] = [HEAD_COLORS[h % len(HEAD_COLORS)]] * (stop - start)
    rgb = np.array([[int(c[k : k + 2], 16) for k in (1, 3, 5)] for c in hexes], dtype=float)
    mixed = 255.0 - strength[..., None] * (255.0 - rgb[None, :, :])  # (rows, d_out, 3)
    rgba = np.concatenate([mixed, np.full((*mixed.shape[:2], 1), 255.0)], axis=-1)
    return np.ascontiguousarray(rgba.round().astype(np.uint8)).view(np.uint32)[..., 0]


class State(NamedTuple):
    """The three size boxes; a box the reader has emptied is None."""

    d_in: int | None = BOOK_D_IN
    d_out: int | None = BOOK_D_OUT
    heads: int | None = BOOK_HEADS


DEFAULT = State()
# The boxes' range travels to the page, where a box says it next to an entry outside it
# (static/number-boxes.js); draw() still refuses any size out of range, in words.
CONTROLS = (
    Number("d_in", "d_in", whole=True, start=1, end=MAX_SIZE),
    Number("d_out", "d_out", whole=True, start=1, end=MAX_SIZE),
    Number("heads", "num_heads", whole=True, start=1, end=MAX_SIZE),
)
# The presets set the three boxes together, and the figure draws once.
ACTIONS = (
    Action("Book toy (3, 2, 2 heads)", lambda _state: State(*PRESETS["book"])),
    Action("GPT-2 small (768, 768, 12 heads)", lambda _state: State(*PRESETS["gpt2"])),
)


def sizes(state: State) -> tuple[int, int, int]:
    """d_in, d_out and num_heads as integers; ValueError saying what is missing or too large."""
    if any(s is None for s in state):
        raise ValueError("d_in, d_out and num_heads each need a value.")
    n_in, n_out, H = (int(s) for s in state)
    if not all(1 <= s <= MAX_SIZE for s in (n_in, n_out, H)):
        raise ValueError(
            f"d_in, d_out and num_heads must each be between 1 and {integer(MAX_SIZE)}; "
            f"got {integer(n_in)}, {integer(n_out)} and {integer(H)}."
        )
    return n_in, n_out, H


def columns(state: State) -> list[tuple[int, int]] | None:
    """Each head's block of W_query's columns, or None when num_heads does not divide d_out."""
    _, n_out, H = sizes(state)
    try:
        return head_columns(n_out, H)
    except ValueError:
        return None


def readouts(state: State) -> list[tuple[str, str, str]]:
    """The readout rows for ``state``: head_dim, the divisor, the two classes side by side."""
    n_in, n_out, H = sizes(state)
    if columns(state) is None:
        return [("head-dim", "head_dim = d_out / num_heads", "not a whole number")]
    hd = head_dim(n_out, H)
    wrapper_shape, split_shape = output_shapes(BOOK_BATCH, T, n_out, H)
    counts = param_counts(n_in, n_out, H)
    return [
        ("head-dim", "head_dim = d_out / num_heads", integer(hd)),
        ("divisor", "scores divided by √head_dim", f"√{hd} = {root_text(score_divisor(n_out, H))}"),
        ("not-divisor", "not by √d_out", f"√{n_out} = {root_text(score_divisor(n_out, 1))}"),
        ("wrapper-shape", "wrapper output, same arguments", shape_text(wrapper_shape)),
        ("split-shape", "split class output", shape_text(split_shape)),
        ("wrapper-params", "wrapper Q, K, V parameters at width d_out", integer(counts.wrapper)),
        ("split-params", "split class Q, K, V parameters", integer(counts.split)),
        (
            "matmuls",
            "projection matmuls: wrapper vs split",
            f"{counts.wrapper_matmuls} vs {counts.split_matmuls}",
        ),
    ]


def trace(state: State) -> list[tuple[str, str, str]]:
    """The shape after every step of the split class, as readout rows; none without a split."""
    if columns(state) is None:
        return []
    steps = shape_trace(BOOK_BATCH, T, *sizes(state))
    return [(f"trace-{k + 1}", step, shape_text(shape)) for k, (step, shape) in enumerate(steps)]


def message(state: State) -> str:
    """Why ``state`` cannot be drawn or split, or nothing when it can."""
    try:
        _, n_out, H = sizes(state)
        head_columns(n_out, H)
    except ValueError as err:
        return str(err)
    return ""


def legend_html(state: State) -> str:
    """The note under the stripes: which rows of which matrix are drawn."""
    n_in, n_out, _ = sizes(state)
    rows = min(n_in, MAX_ROWS)
    shown_rows = f"rows 1–{rows} of {integer(n_in)}" if n_in > rows else "every row"
    return (
        f'<p class="fig-note">W_query ({integer(n_in)} × {integer(n_out)}), {shown_rows}; '
        f"nn.Linear's initial weights after seed {SEED_3_4}. Darker = larger |weight|.</p>"
    )


def draw(state: State) -> Drawing:
    """The stripes of W_query split into the state's heads, the legend, the readout and the
    shape trace; sizes out of range raise before anything is drawn."""
    n_in, n_out, _ = sizes(state)
    split, rows = columns(state), min(n_in, MAX_ROWS)
    stripes = stripes_rgba(query_weights(n_in, n_out), split)
    starts = [start for start, _ in (split or [])[1:]]
    named = split if split is not None and len(split) <= len(HEAD_COLORS) else []
    heads = split or []
    steps = trace(state)
    return {
        "image": {"data": {"image": [stripes], "dw": [n_out], "dh": [rows]}},
        "stripes.x_range": {"end": n_out},
        "stripes.y_range": {"end": rows * 1.18},
        "bounds": {"data": {"x": starts, "top": [rows] * len(starts)}},
        "labels": {
            "data": {
                "x": [(a + b) / 2 for a, b in named],
                "y": [rows * 1.01] * len(named),
                "text": [f"head {h + 1}" for h in range(len(named))],
            }
        },
        "split": {
            "data": {
                "head": [f"head {h + 1}" for h in range(len(heads))],
                "first": [start + 1 for start, _ in heads],  # counted from 1
                "last": [stop for _, stop in heads],
            }
        },
        "legend": html(legend_html(state)),
        "readout": html(readout_html(readouts(state))),
        "shapes": html(readout_html(steps) if steps else ""),
        "message": html(message_html(message(state))),
    }
