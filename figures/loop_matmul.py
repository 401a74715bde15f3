"""One query is one row: the double loop fills the score grid cell by cell, matmul all at once.

The loop grid fills in loop order (row by row) up to the step the reader sets, and the cell
just filled shows its dot product term by term; the matmul grid appears whole when switched
on. The readout compares them and counts the work.
"""

from typing import NamedTuple

import numpy as np

from attention.basics import (
    agreeing_cells,
    attend,
    filled_difference,
    loop_scores,
    loop_scores_steps,
    matmul_scores,
    score_dot_products,
    score_multiplies,
    symmetry_error,
)
from attention.fixtures import GPT2_CONTEXT, GPT2_EMBED, TOKENS, book_inputs
from figurekit.controls import Slider, Switch
from figurekit.drawing import Drawing, heatmap_data, html, outline, readout_html
from formatting import integer, num, sci

TITLE = "The double loop and X @ Xᵀ"
CELLS = score_dot_products(len(TOKENS))
CAPTION = (
    f"Step the loop through the {CELLS} cells and watch each dot product form; then switch "
    f"on matmul to get all {CELLS} at once. The grids agree, the scores are symmetric, and "
    "the weights are not."
)
HIGH = float(matmul_scores(book_inputs()).max())  # one colour scale for both grids
HINT = (
    "The loop runs row by row, as its two <code>for</code> statements nest; each cell is "
    "the dot product of two rows of X. The outlined cell is the one just filled."
)


class State(NamedTuple):
    """The step slider and the matmul switch."""

    step: int
    matmul: bool


DEFAULT = State(step=8, matmul=False)
CONTROLS = (
    Slider("step", "Loop steps done", start=0, end=CELLS),
    Switch("matmul", "Matmul: all at once"),
)


def _terms(x_i, x_j, products, value) -> str:
    """'0.55×0.43 + 0.87×0.15 + 0.66×0.89 = 0.2365 + 0.1305 + 0.5874 = 0.9544'."""
    factors = " + ".join(f"{num(a, 2)}×{num(b, 2)}" for a, b in zip(x_i, x_j, strict=True))
    return f"{factors} = {' + '.join(num(p) for p in products)} = {num(value)}"


def _grid_data(grid, current: int | None) -> dict:
    """Heatmap columns for a (T, T) grid with blank NaN cells and the current cell outlined."""
    text = ["" if np.isnan(v) else num(v, 2) for v in grid.ravel()]  # blank: not filled yet
    cells = outline([k == current for k in range(grid.size)])
    return heatmap_data(grid, text, **cells, low=0.0, high=HIGH)


def _loop_columns(state: State) -> dict:
    """The loop's grid after ``state.step`` cells, the last one filled outlined."""
    k = state.step
    return _grid_data(loop_scores(book_inputs(), k), k - 1 if k else None)


def _matmul_columns(state: State) -> dict:
    """The matmul's grid: whole when switched on, blank when off."""
    full = matmul_scores(book_inputs())
    return _grid_data(full if state.matmul else np.full_like(full, np.nan), None)


def _dot_text(k: int) -> str:
    """The dot product of the cell just filled, term by term."""
    if not k:
        return "nothing yet: move the slider"
    X = book_inputs()
    i, j, products, value = loop_scores_steps(X)[k - 1]
    return f"ω[{TOKENS[i]}, {TOKENS[j]}] = " + _terms(X[i], X[j], products, value)


def _comparison(state: State) -> tuple[str, str]:
    """How many filled cells the two grids print alike, and their largest gap."""
    k = state.step
    if not (k and state.matmul):
        text = "switch on matmul to compare" if k else "no loop cells yet"
        return text, text
    X = book_inputs()
    grid, full = loop_scores(X, k), matmul_scores(X)
    filled, same = agreeing_cells(grid, full)
    gap = filled_difference(grid, full)
    return f"{same} of {filled} filled cells", sci(gap)  # post 1 says why it may not be 0


def _counts() -> list[tuple[str, str, str]]:
    """The readouts no control changes: the symmetries and the multiplication counts."""
    X = book_inputs()
    T, d = X.shape
    return [
        (
            "score_symmetry",
            "largest |ω_ij − ω_ji| (scores)",
            num(symmetry_error(matmul_scores(X)), 6),
        ),
        (
            "weight_symmetry",
            "largest |α_ij − α_ji| (weights)",
            num(symmetry_error(attend(X)[1]), 6),
        ),
        (
            "count",
            "multiplications: T² d",
            f"{T}² × {d} = {integer(score_multiplies(T, d))} ({integer(CELLS)} dot products)",
        ),
        (
            "gpt2",
            "smallest GPT-2, one layer's scores",
            f"{integer(GPT2_CONTEXT)}² × {GPT2_EMBED} = "
            f"{integer(score_multiplies(GPT2_CONTEXT, GPT2_EMBED))}",
        ),
    ]


def readouts(state: State) -> list[tuple[str, str, str]]:
    """The loop's progress, the cell just filled, the comparison with matmul, the counts."""
    agree, gap = _comparison(state)
    return [
        ("step", "loop cells filled", f"{state.step} of {CELLS}"),
        ("dot", "the cell just filled", _dot_text(state.step)),
        ("agree", "cells where loop and matmul print the same", agree),
        ("gap", "largest |loop − matmul| in this numpy", gap),
        *_counts(),
    ]


def draw(state: State) -> Drawing:
    """The two score grids and the readout."""
    return {
        "loop": {"data": _loop_columns(state)},
        "matmul": {"data": _matmul_columns(state)},
        "readout": html(readout_html(readouts(state))),
    }
