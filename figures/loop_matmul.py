"""One query is one row: the double loop fills the score grid cell by cell, matmul all at once.

The loop grid fills in loop order (row by row) up to the step the reader sets, and the cell
just filled shows its dot product term by term; the matmul grid appears whole when switched
on. The readout compares them and counts the work.
"""

import numpy as np
import panel as pn

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
from figures.frame import ACCENT, frame, pane, readout_html, recompute
from figures.plots import heatmap, heatmap_data, note, refill
from figures.widgets import switch
from formatting import integer, num, sci

TITLE = "The double loop and X @ Xᵀ"
CELLS = score_dot_products(len(TOKENS))
CAPTION = (
    f"Step the loop through the {CELLS} cells and watch each dot product form; then switch "
    f"on matmul to get all {CELLS} at once. The grids agree, the scores are symmetric, and "
    "the weights are not."
)


def _terms(x_i, x_j, products, value) -> str:
    """'0.55×0.43 + 0.87×0.15 + 0.66×0.89 = 0.2365 + 0.1305 + 0.5874 = 0.9544'."""
    factors = " + ".join(f"{num(a, 2)}×{num(b, 2)}" for a, b in zip(x_i, x_j, strict=True))
    return f"{factors} = {' + '.join(num(p) for p in products)} = {num(value)}"


def _grid_data(grid, current: int | None, high: float) -> dict:
    """Heatmap columns for a (T, T) grid with blank NaN cells and the current cell outlined."""
    n = grid.size
    text = ["" if np.isnan(v) else num(v, 2) for v in grid.ravel()]  # blank: not filled yet
    edge = [ACCENT if k == current else "#ffffff" for k in range(n)]
    width = [3.0 if k == current else 1.0 for k in range(n)]
    return heatmap_data(grid, text, edge=edge, edge_width=width, low=0.0, high=high)


def view() -> pn.viewable.Viewable:
    """The figure: a step slider and a matmul switch over two 6x6 score grids."""
    X = book_inputs()
    T, d = X.shape
    cells = score_dot_products(T)
    steps = loop_scores_steps(X)
    full = matmul_scores(X)
    _, weights, _ = attend(X)
    step = pn.widgets.IntSlider(name="Loop steps done", start=0, end=cells, value=8)
    matmul = switch("Matmul: all at once", False)
    high = float(full.max())  # one colour scale for both grids
    loop_plot, loop_src, _ = heatmap(
        "for i … for j …: ω[i, j] = x_i · x_j", TOKENS, TOKENS, high=high
    )
    mat_plot, mat_src, _ = heatmap("X @ X.T", TOKENS, TOKENS, high=high)
    readout, message = pane(), pane()
    hint = note(
        "The loop runs row by row, as its two <code>for</code> statements nest; each cell is "
        "the dot product of two rows of X. The outlined cell is the one just filled."
    )
    counts = [
        ("score_symmetry", "largest |ω_ij − ω_ji| (scores)", num(symmetry_error(full), 6)),
        ("weight_symmetry", "largest |α_ij − α_ji| (weights)", num(symmetry_error(weights), 6)),
        (
            "count",
            "multiplications: T² d",
            f"{T}² × {d} = {integer(score_multiplies(T, d))} ({integer(cells)} dot products)",
        ),
        (
            "gpt2",
            "smallest GPT-2, one layer's scores",
            f"{integer(GPT2_CONTEXT)}² × {GPT2_EMBED} = "
            f"{integer(score_multiplies(GPT2_CONTEXT, GPT2_EMBED))}",
        ),
    ]

    def draw() -> None:
        k = step.value
        grid = loop_scores(X, k)
        compared = k and matmul.value
        filled, same = agreeing_cells(grid, full) if compared else (k, 0)
        gap = filled_difference(grid, full) if compared else None
        refill(loop_src, _grid_data(grid, k - 1 if k else None, high))
        blank = np.full_like(full, np.nan)
        refill(mat_src, _grid_data(full if matmul.value else blank, None, high))
        if k:
            i, j, products, value = steps[k - 1]
            formed = f"ω[{TOKENS[i]}, {TOKENS[j]}] = " + _terms(X[i], X[j], products, value)
        else:
            formed = "nothing yet: move the slider"
        if gap is None:
            agree = bits = "switch on matmul to compare" if k else "no loop cells yet"
        else:
            agree = f"{same} of {filled} filled cells"
            bits = f"{sci(gap)} (the last bits depend on the numpy build)"
        readout.object = readout_html(
            [
                ("step", "loop cells filled", f"{k} of {cells}"),
                ("dot", "the cell just filled", formed),
                ("agree", "cells where loop and matmul print the same", agree),
                ("gap", "largest |loop − matmul| in this numpy", bits),
                *counts,
            ]
        )

    recompute((step, matmul), message, draw)
    return frame([step, matmul], [loop_plot, mat_plot], readout, pn.Column(message, hint))
