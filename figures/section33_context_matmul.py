"""The last matmul, weights @ inputs: every context vector at once.

Pointing at a row of the result rebuilds that context vector as the sum of the six inputs,
each scaled by its weight.
"""

from html import escape
from typing import NamedTuple

import numpy as np

from attention.basics import attend, contributions
from attention.fixtures import TOKENS, book_inputs
from figurekit.controls import Choice
from figurekit.drawing import Drawing, html, readout_html
from figurekit.pointing import CORNER, Pointed, element, scope, sub, token_vector
from formatting import num, vec

TITLE = "Every context vector in one product"
CAPTION = (
    "Row i of the weights times the inputs is token i's context vector. Point at a row of the "
    "result (hover, tap, or Tab to it) to rebuild it from the six weighted inputs."
)
HINT = "Point at a row of the context vectors to rebuild it."


class State(NamedTuple):
    """The token whose context vector is rebuilt first."""

    row: str


DEFAULT = State(TOKENS[1])
CONTROLS = (Choice("row", "Row to rebuild", list(TOKENS), style="menu"),)


def _explanation(X: np.ndarray, alpha: np.ndarray, Z: np.ndarray, i: int) -> str:
    parts = contributions(alpha[i], X)
    rows = "".join(
        f'<div class="s33-rb"><span>{escape(TOKENS[j])}</span>'
        f"<span>{num(alpha[i, j])} × {vec(X[j], 2)}</span><span>= {vec(parts[j])}</span></div>"
        for j in range(len(TOKENS))
    )
    total = (
        '<div class="s33-rb s33-rb-sum"><span>sum</span><span></span>'
        f"<span>= {vec(Z[i])}</span></div>"
    )
    return (
        f"<p><b>{token_vector(i + 1, 'z')} = Σⱼ α{sub(i + 1)}ⱼ x⁽ʲ⁾</b>"
        f" (the context vector of {escape(TOKENS[i])})</p>"
        f'<div class="s33-rebuild">{rows}{total}</div>'
    )


def product_html(X: np.ndarray, pointed: int) -> str:
    """Weights, inputs and context vectors side by side; row ``pointed`` rebuilt first."""
    _, alpha, Z = attend(X)
    T, d = X.shape
    lights = {f"z{i}": (f"a{i}", "x") for i in range(T)}
    state = Pointed(f"z{pointed}", frozenset(lights[f"z{pointed}"]))

    def table(label: str, M: np.ndarray, columns: list[str], digits: int, row) -> str:
        head = f"<tr>{CORNER}" + "".join(f'<th scope="col">{c}</th>' for c in columns) + "</tr>"
        body = "".join(row(i, M[i], digits) for i in range(T))
        return (
            f'<div class="s33-block"><p class="s33-label">{label}</p>'
            f"<table>{head}{body}</table></div>"
        )

    def weight_row(i: int, values, digits: int) -> str:
        cells = "".join(element("td", num(v, digits), state, marks=(f"a{i}",)) for v in values)
        return f'<tr><th scope="row">{escape(TOKENS[i])}</th>{cells}</tr>'

    def input_row(i: int, values, digits: int) -> str:
        cells = "".join(element("td", num(v, digits), state, marks=("x",)) for v in values)
        return f'<tr><th scope="row">{escape(TOKENS[i])}</th>{cells}</tr>'

    def context_row(i: int, values, digits: int) -> str:
        cells = f'<th scope="row">{escape(TOKENS[i])}</th>' + "".join(
            f"<td>{num(v, digits)}</td>" for v in values
        )
        return element(
            "tr",
            cells,
            state,
            key=f"z{i}",
            lights=lights[f"z{i}"],
            attrs={"data-token": TOKENS[i]},
        )

    dims = [f"dim {k + 1}" for k in range(d)]
    body = (
        '<div class="s33-row">'
        + table("weights α", alpha, [escape(t) for t in TOKENS], 4, weight_row)
        + '<span class="s33-op">@</span>'
        + table("inputs", X, dims, 2, input_row)
        + '<span class="s33-op">=</span>'
        + table("context vectors z", Z, dims, 4, context_row)
        + "</div>"
    )
    explanations = {f"z{i}": _explanation(X, alpha, Z, i) for i in range(T)}
    return scope(body, explanations, state, HINT)


def picture(state: State) -> str:
    """The figure's HTML with the state's token's context vector rebuilt first."""
    return product_html(book_inputs(), pointed=TOKENS.index(state.row))


# Not readouts(state): section 3.3's figures show the book's fixed matrices, with no try-it
# cell (figurekit/tryit.py gives one to a figure with readouts).
def readout_rows(state: State) -> list[tuple[str, str, str]]:
    """The readout rows: that token's context vector."""
    _, _, Z = attend(book_inputs())
    return [("context", f"z for {state.row}", vec(Z[TOKENS.index(state.row)]))]


def draw(state: State) -> Drawing:
    """The weights @ inputs picture, that row rebuilt first, and the readout."""
    return {
        "picture": html(picture(state)),
        "readout": html(readout_html(readout_rows(state))),
    }
