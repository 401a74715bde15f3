"""A band instead of a triangle: sliding-window attention (post 3).

Three views of one window W: the mask for T tokens (each query keeps its last W keys, itself
included), how many stacked layers carry each earlier position to each later one (the last
token's row outlined: after L layers it hears from L (W - 1) positions back), and the scores
one head computes against T on log axes, the band's line against the causal triangle and post
2's full T^2. The readout sets the same counts beside Mistral 7B's window and layers.
"""

from typing import NamedTuple

import numpy as np

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
from figurekit.controls import Slider
from figurekit.drawing import ACCENT, INK, MUTED, Drawing, html, readout_html
from formatting import integer, percent

TITLE = "A band instead of a triangle"
CAPTION = (
    "Slide the window W down from T and watch the triangle of scores thin to a band, and the "
    "band's line on the log-log plot bend from the triangle's slope of 2 to a slope of 1 once "
    "T passes W. Then add layers: "
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
CONTROLS = (
    Slider("T", "Tokens T", start=4, end=MAX_T),
    Slider("W", "Window W", start=1, end=MAX_T),
    Slider("L", "Layers L", start=1, end=MAX_LAYERS),
)


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

    ``x`` is the key j and ``y`` the query i, both counted from 1 as the series counts;
    ``band`` is 1 inside the window and 0 outside; ``needed`` the fewest layers that carry j
    to i; ``shade`` colours the reach plot (one layer darkest, NaN beyond L). Numeric arrays
    only: a 64-token triangle has 2,080 cells, and Bokeh checks every element of every
    column that changes.
    """
    T, W, L = state
    i, j = np.tril_indices(T)
    needed = layers_needed(T, W)[i, j]
    return {
        "x": j + 1,
        "y": i + 1,
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


def draw(state: State) -> Drawing:
    """The mask, the layers needed, the scores against T, and the readout, at ``state``."""
    T, W, L = state
    rows = readouts(state)
    grid, curves = cells(state), cost_lines(state)
    counts = [window_scores(T, W), causal_scores(T), full_scores(T)]
    return {
        "mask.x_range": {"end": T + 0.5},
        "mask.y_range": {"start": T + 0.5},
        "reach.x_range": {"end": T + 0.5},
        "reach.y_range": {"start": T + 0.5},
        "mask.title": {"text": f"the mask: T = {integer(T)}, W = {integer(W)}"},
        "reach.title": {"text": f"layers needed, up to L = {integer(L)} (darker: fewer)"},
        "reach.mapper": {"low": -L / 2, "high": L},  # L layers still visibly coloured
        "cells": {"data": grid},
        "last-row": {"data": {"x": [(T + 1) / 2], "y": [T], "w": [T]}},
        "lines": {"data": curves},
        "here": {"data": {"n": [T] * 3, "y": counts, "color": [ACCENT, INK, MUTED]}},
        "readout": html(readout_html(rows)),
    }
