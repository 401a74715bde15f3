"""Three steps, one word: scores, then weights, then the context vector, for one query.

The three panels share one data source with a row per token, so they are linked views: a
token has the same colour in each, and tapping it in any panel picks it out in all three. The
third panel stacks each token's share (weight x embedding) of the context vector.
"""

from typing import NamedTuple

import numpy as np

from attention.basics import context, contributions, query_scores, softmax
from attention.fixtures import TOKENS, book_inputs
from figurekit.controls import Choice, Number
from figurekit.drawing import (
    TOKEN_COLORS,
    Drawing,
    html,
    outline,
    readout_html,
    stack_bounds,
)
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


DEFAULT = State(TOKENS[1], tuple(tuple(float(v) for v in row) for row in book_inputs()))
CONTROLS = (
    Choice("query", "Query token", list(TOKENS), style="menu"),
    *(
        Number("values", f"{token} {dim}", at=(i, k))
        for i, token in enumerate(TOKENS)
        for k, dim in enumerate(DIMS)
    ),
)


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


def draw(state: State) -> Drawing:
    """The three panels' shared source, the context vector's totals, and the readout."""
    tokens = _token_columns(state)
    totals = _totals_columns(state)
    return {
        "tokens": {"data": tokens},
        "totals": {"data": totals},
        "readout": html(readout_html(readouts(state))),
    }
