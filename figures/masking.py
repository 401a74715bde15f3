"""Two routes to causal weights, stepped side by side (post 2, section 03).

Naive: softmax, zero the future, renormalise. Efficient: fill the future with -inf, softmax.
Both run on section 3.5's scores (seed 789, ``SelfAttention_v2(3, 2)``), and the difference
grid shows that they agree to float64 rounding. The mask switch fills the future with 0
instead of -inf, which leaks weight to tokens the query must not see. A free-form row of
scores shows that a zero score is not a zero weight.
"""

import re
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from attention.basics import softmax
from attention.fixtures import TOKENS
from attention.masking import (
    COUNTEREXAMPLE_SCORES,
    book_scores,
    efficient_stages,
    leaked_weight,
    mask_difference,
    naive_stages,
    zero_mask_difference,
    zero_mask_stages,
)
from attention.torch_rng import BOOK_D_IN, BOOK_D_OUT, SEED_3_5
from figurekit.controls import Choice, Slider, Text
from figurekit.drawing import ACCENT, INK, Drawing, heatmap_data, html, readout_html
from formatting import noise_text, num, vec

TITLE = "Two ways to hide the future"
CAPTION = (
    "Step both pipelines to the end and read the difference grid: rounding noise only. Then "
    "set the future scores to 0 instead of −∞ and watch the first token hand most of its "
    "attention to tokens it must not see. Edit the row of scores in the text box: a zero score "
    "is not a zero weight."
)
WEIGHT_SET = f"seed {SEED_3_5}, SelfAttention_v2({BOOK_D_IN}, {BOOK_D_OUT}) (section 3.5)"
FILLS = {"−∞ (correct)": "-inf", "0 (wrong)": "zero"}
MAX_SCORES = 12  # entries in the free-form row; more would not fit the bar chart
_SPLIT = re.compile(r"[,\s;]+")


def parse_scores(text: str) -> np.ndarray:
    """'1, 2, 3, 0, 0' -> array([1., 2., 3., 0., 0.]); ValueError saying what is wrong."""
    parts = [p for p in _SPLIT.split(text.strip()) if p]
    if not parts:
        raise ValueError("Type a few scores separated by commas, such as 1, 2, 3, 0, 0.")
    if len(parts) > MAX_SCORES:
        raise ValueError(f"At most {MAX_SCORES} scores fit the chart; you typed {len(parts)}.")
    try:
        return np.array([float(p.replace("−", "-")) for p in parts])
    except ValueError:
        bad = next(p for p in parts if not _is_number(p))
        raise ValueError(f"{bad!r} is not a number; separate the scores with commas.") from None


def _is_number(text: str) -> bool:
    try:
        float(text.replace("−", "-"))
    except ValueError:
        return False
    return True


def grid_text(values: np.ndarray, digits: int = 4) -> list[str]:
    """Cell labels: −∞ spelled out, four decimals otherwise. (T, T) -> T*T strings"""
    return [num(v, digits) for v in values.ravel()]


class Routes(NamedTuple):
    """Section 3.5's scores through both routes, for either fill of the future."""

    d_k: int
    naive: list[tuple[str, np.ndarray]]  # (stage name, (T, T) grid) per step
    efficient: dict[str, list[tuple[str, np.ndarray]]]  # by fill: "-inf" or "zero"
    difference: dict[str, np.ndarray]  # by fill: naive − efficient final weights, (T, T)


@lru_cache(maxsize=1)
def routes() -> Routes:
    """Every stage of both routes: the scores are fixed, so they are computed once."""
    scores, d_k = book_scores()  # Q K^T, section 3.5
    return Routes(
        d_k,
        naive_stages(scores, d_k),
        {"-inf": efficient_stages(scores, d_k), "zero": zero_mask_stages(scores, d_k)},
        {"-inf": mask_difference(scores, d_k), "zero": zero_mask_difference(scores, d_k)},
    )


N_STEPS = len(routes().naive)  # the naive route's stages, the step slider's end


class State(NamedTuple):
    """The figure's controls: the step reached, what fills the future, the typed row."""

    step: int = 1  # the caption asks the reader to step to the end: start at the beginning
    fill: str = "-inf"
    row_text: str = ", ".join(num(s, 1) for s in COUNTEREXAMPLE_SCORES)


DEFAULT = State()
CONTROLS = (
    Slider("step", "Step", start=1, end=N_STEPS),
    Choice("fill", "Future scores set to", FILLS, style="buttons"),
    Text("row_text", "Scores to softmax"),
)


def stages(state: State) -> tuple[str, np.ndarray, str, np.ndarray]:
    """The naive and the efficient route at ``state``'s step: each stage's name and grid.

    The efficient route has fewer steps; past its end it stays on its last stage.
    """
    naive, route = routes().naive, routes().efficient[state.fill]
    naive_name, naive_grid = naive[state.step - 1]
    fast_name, fast_grid = route[min(state.step, len(route)) - 1]
    return naive_name, naive_grid, fast_name, fast_grid


def titles(state: State) -> tuple[str, str]:
    """The two route heatmaps' titles: which step each shows."""
    naive_name, _, fast_name, _ = stages(state)
    route = routes().efficient[state.fill]
    fast_step = min(state.step, len(route))
    done = " (done)" if state.step >= len(route) else ""
    return (
        f"naive · step {state.step} of {N_STEPS}: {naive_name}",
        f"efficient · step {fast_step}: {fast_name}{done}",
    )


def typed_weights(state: State) -> tuple[np.ndarray, np.ndarray]:
    """The typed row of scores and its softmax; ValueError saying what is wrong with the row."""
    row = parse_scores(state.row_text)
    with np.errstate(over="ignore"):  # ±1e308 rows: the gap overflows to a 0 weight
        return row, softmax(row)


def readouts(state: State) -> list[tuple[str, str, str]]:
    """The readout rows for ``state``: both stages, their difference, the typed row's softmax."""
    naive_name, _, fast_name, _ = stages(state)
    difference = routes().difference[state.fill]
    final = routes().efficient[state.fill][-1][1]
    try:
        counterexample = vec(typed_weights(state)[1])
    except ValueError:  # the grids are still drawn: only the row is refused
        counterexample = "—"
    return [
        ("naive-stage", "naive route, this step", naive_name),
        ("efficient-stage", "efficient route, this step", fast_name),
        ("max-difference", "largest |naive − efficient|", noise_text(np.max(np.abs(difference)))),
        ("row-1", "row 1 (efficient route)", vec(final[0])),
        ("row-2", "row 2", vec(final[1])),
        ("row-3", "row 3", vec(final[2])),
        ("leak", f"weight {TOKENS[0]} gives to the future", num(leaked_weight(final)[0])),
        ("counterexample", "softmax of your row", counterexample),
    ]


def message(state: State) -> str:
    """What is wrong with the typed row, or nothing."""
    try:
        typed_weights(state)
    except ValueError as err:
        return f"Your row of scores: {err}"
    return ""


def drawable(typed: State, shown: State) -> State:
    """A typed row that cannot be drawn leaves the bars and their readout at the last good one."""
    return typed._replace(row_text=shown.row_text) if message(typed) else typed


def _heatmap(handle: str, values: np.ndarray, text: list[str]) -> Drawing:
    """One route's heatmap: −∞ cells drawn blank, the colour scale spanning the finite values."""
    finite = np.where(np.isfinite(values), values, np.nan)
    low, high = float(np.nanmin(finite)), float(np.nanmax(finite))
    high = high if high > low else low + 1.0
    return {
        f"{handle}.mapper": {"low": low, "high": high},
        handle: {"data": heatmap_data(finite, text, low=low, high=high)},
    }


def draw(state: State) -> Drawing:
    """Both routes at the state's step, their difference, the typed row's bars, the readout."""
    _, naive_grid, _, fast_grid = stages(state)
    naive_title, fast_title = titles(state)
    difference = routes().difference[state.fill]
    high = max(float(np.max(np.abs(difference))), 1e-300)
    row, weights = typed_weights(state)
    labels = [f"s{j + 1}" for j in range(len(row))]
    return {
        "naive.title": {"text": naive_title},
        **_heatmap("naive", naive_grid, grid_text(naive_grid)),
        "efficient.title": {"text": fast_title},
        **_heatmap("efficient", fast_grid, grid_text(fast_grid)),
        "difference.mapper": {"low": 0.0, "high": high},
        "difference": {
            "data": heatmap_data(
                np.abs(difference), [noise_text(v) for v in difference.ravel()], low=0.0, high=high
            )
        },
        "bars.x_range": {"factors": labels},
        "bars": {
            "data": {
                "label": labels,
                "weight": weights.tolist(),
                "text": [num(w, 4) for w in weights],
                "color": [ACCENT if s == 0.0 else INK for s in row],
            }
        },
        "readout": html(readout_html(readouts(state))),
    }
