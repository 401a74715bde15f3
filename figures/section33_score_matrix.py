"""All 36 scores at once, inputs @ inputs.T, with a switch to their row-softmaxed weights.

Pointing at a cell shows where it came from: a score is row i of the inputs dotted with row j;
a weight is that score's share of its row after softmax.
"""

from functools import lru_cache
from html import escape
from typing import NamedTuple

import numpy as np

from attention.basics import attend, dot_terms, row_sums, symmetry_error
from attention.fixtures import TOKENS, book_inputs
from figurekit.controls import Choice
from figurekit.drawing import Drawing, html, readout_html
from figurekit.pointing import (
    CORNER,
    Pointed,
    element,
    grid,
    grid_cell,
    scope,
    sub,
    terms_table,
    token_vector,
)
from formatting import num, vec

TITLE = "The whole score matrix"
CAPTION = (
    "Every cell [i, j] is token i's row of the inputs dotted with token j's. Point at a cell "
    "(hover, tap, or Tab to it) to see its origin; switch to the weights to see each row "
    "softmaxed on its own."
)
MODES = ("scores ω", "weights α")
HINT = "Point at a cell to see where its number comes from."


class State(NamedTuple):
    """Which matrix is shown: one of ``MODES``."""

    mode: str


DEFAULT = State(MODES[0])
CONTROLS = (Choice("mode", "Show", list(MODES), style="radio"),)


def _score_explanation(X: np.ndarray, omega: np.ndarray, i: int, j: int) -> str:
    terms, total = dot_terms(X[i], X[j])
    head = (
        f"<p><b>ω{sub(f'{i + 1}{j + 1}')} = {token_vector(i + 1)} · {token_vector(j + 1)}</b>"
        f" (row {escape(TOKENS[i])}, column {escape(TOKENS[j])})</p>"
    )
    mirror = (
        f"<p>On the diagonal: {escape(TOKENS[i])} dotted with itself, the square of its length.</p>"
        if i == j
        else f"<p>Its mirror ω{sub(f'{j + 1}{i + 1}')} (row {escape(TOKENS[j])}, column "
        f"{escape(TOKENS[i])}) is {num(omega[j, i])}: the same products, added in the "
        "same way.</p>"
    )
    return head + terms_table(X[i], X[j], terms, total) + mirror


def _weight_explanation(omega: np.ndarray, alpha: np.ndarray, i: int, j: int) -> str:
    return (
        f"<p><b>α{sub(f'{i + 1}{j + 1}')} = exp(ω{sub(f'{i + 1}{j + 1}')}) ÷ "
        f"Σₖ exp(ω{sub(i + 1)}ₖ) = {num(alpha[i, j])}</b></p>"
        f"<p>Row {escape(TOKENS[i])} is softmaxed on its own. Its scores "
        f'<span class="s33-line">{vec(omega[i])}</span> become the weights '
        f'<span class="s33-line">{vec(alpha[i])}</span>, which sum to '
        f"{num(row_sums(alpha[i]))}.</p>"
        + (
            f"<p>On the diagonal: the weight {escape(TOKENS[i])} gives itself.</p>"
            if i == j
            else f"<p>Its mirror α{sub(f'{j + 1}{i + 1}')} is {num(alpha[j, i])}: row "
            f"{escape(TOKENS[j])} has its own denominator.</p>"
        )
    )


def _lights(mode: str, i: int, j: int) -> tuple[str, ...]:
    if mode == MODES[0]:
        return (f"q{i}", f"k{j}", f"x{i}", f"x{j}")
    return (f"q{i}", f"k{j}", f"row{i}")


def matrix_html(X: np.ndarray, mode: str, pointed: tuple[int, int]) -> str:
    """The inputs beside the score (or weight) matrix; cell ``pointed`` explained first."""
    omega, alpha, _ = attend(X)
    M = omega if mode == MODES[0] else alpha
    T, d = X.shape
    state = Pointed(f"m{pointed[0]}-{pointed[1]}", frozenset(_lights(mode, *pointed)))

    x_head = f"<tr>{CORNER}" + "".join(f"<th>dim {k + 1}</th>" for k in range(d)) + "</tr>"
    x_rows = "".join(
        f'<tr><th scope="row">{escape(TOKENS[i])}</th>'
        + "".join(element("td", num(v, 2), state, marks=(f"x{i}",)) for v in X[i])
        + "</tr>"
        for i in range(T)
    )
    inputs = (
        '<div class="s33-block"><p class="s33-label">inputs</p>'
        f"<table>{x_head}{x_rows}</table></div>"
    )
    m_head = (
        f"<tr>{CORNER}"
        + "".join(
            element("th", escape(TOKENS[j]), state, marks=(f"k{j}",), attrs={"scope": "col"})
            for j in range(T)
        )
        + "</tr>"
    )
    m_rows = "".join(
        "<tr>"
        + element("th", escape(TOKENS[i]), state, marks=(f"q{i}",), attrs={"scope": "row"})
        + "".join(
            grid_cell(
                num(M[i, j]),
                state,
                key=f"m{i}-{j}",
                row=TOKENS[i],
                column=TOKENS[j],
                lights=_lights(mode, i, j),
                marks=(f"row{i}",),
                attrs={"data-cell": f"{i}-{j}"},
            )
            for j in range(T)
        )
        + "</tr>"
        for i in range(T)
    )
    label = "scores: inputs @ inputs.T" if mode == MODES[0] else "weights: softmax of each row"
    matrix = (
        f'<div class="s33-block"><p class="s33-label">{label}</p>'
        f"{grid(label, m_head + m_rows)}</div>"
    )
    explanations = {
        f"m{i}-{j}": (
            _score_explanation(X, omega, i, j)
            if mode == MODES[0]
            else _weight_explanation(omega, alpha, i, j)
        )
        for i in range(T)
        for j in range(T)
    }
    body = f'<div class="s33-row">{inputs}{matrix}</div>'
    return scope(body, explanations, state, HINT)


@lru_cache(maxsize=len(MODES))
def picture(state: State) -> str:
    """The figure's HTML in the state's mode; the inputs are fixed, so each mode's is written
    once."""
    journey = TOKENS.index("journey")
    return matrix_html(book_inputs(), state.mode, pointed=(journey, journey + 1))


# Not readouts(state): section 3.3's figures show the book's fixed matrices, with no try-it
# cell (figurekit/tryit.py gives one to a figure with readouts).
def readout_rows(state: State) -> list[tuple[str, str, str]]:
    """The readout rows: how far the shown matrix is from symmetric, and its row sums."""
    omega, alpha, _ = attend(book_inputs())
    M = omega if state.mode == MODES[0] else alpha
    return [
        ("symmetry", "largest |Mᵢⱼ − Mⱼᵢ|", num(symmetry_error(M))),
        ("row-sums", "row sums", vec(row_sums(M))),
    ]


def draw(state: State) -> Drawing:
    """The inputs beside the scores or the weights, and the readout."""
    return {
        "picture": html(picture(state)),
        "readout": html(readout_html(readout_rows(state))),
    }
