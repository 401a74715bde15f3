"""The last matmul, weights @ inputs: every context vector at once.

Pointing at a row of the result rebuilds that context vector as the sum of the six inputs,
each scaled by its weight.
"""

from html import escape

import numpy as np
import panel as pn

from attention.basics import attend, contributions
from attention.fixtures import TOKENS, book_inputs
from figures.section33_html import (
    CORNER,
    Pointed,
    element,
    pointing_figure,
    scope,
    sub,
    token_control,
    token_vector,
)
from formatting import num, vec

TITLE = "Every context vector in one product"
CAPTION = (
    "Row i of the weights times the inputs is token i's context vector. Point at a row of the "
    "result (hover, tap, or Tab to it) to rebuild it from the six weighted inputs."
)
HINT = "Point at a row of the context vectors to rebuild it."


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


def picture(row: str) -> str:
    """The figure's HTML with token ``row``'s context vector rebuilt first."""
    return product_html(book_inputs(), pointed=TOKENS.index(row))


def readouts(row: str) -> list[tuple[str, str, str]]:
    """The readout rows: that token's context vector."""
    _, _, Z = attend(book_inputs())
    return [("context", f"z for {row}", vec(Z[TOKENS.index(row)]))]


def view() -> pn.viewable.Viewable:
    """The figure: which row to rebuild first, over the weights @ inputs picture."""
    return pointing_figure(token_control("Row to rebuild"), picture, readouts)
