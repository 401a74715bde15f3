"""One query's six scores as one matrix product: the query row times the transposed inputs.

Pointing at a result cell writes out its dot product: the three products and their sum.
"""

from html import escape
from typing import NamedTuple

from attention.basics import dot_terms, query_scores
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

TITLE = "Six scores, one matrix product"
CAPTION = (
    "Point at a score in the bottom row (hover, tap, or Tab to it): the query row and that "
    "token's column light up, and the three products and their sum are written out."
)
HINT = "Point at a score ω to see its row × column."


class State(NamedTuple):
    """The query token whose six scores are shown."""

    query: str


DEFAULT = State(TOKENS[1])
CONTROLS = (Choice("query", "Query token", list(TOKENS), style="menu"),)


def _explanation(q: int, j: int, X, terms, total: float) -> str:
    title = (
        f"ω{sub(f'{q + 1}{j + 1}')} = {token_vector(q + 1)} · {token_vector(j + 1)} "
        f"({escape(TOKENS[q])} · {escape(TOKENS[j])})"
    )
    return f"<p><b>{title}</b></p>" + terms_table(X[q], X[j], terms, total)


def matmul_html(X, q: int, pointed: int) -> str:
    """Query row, transposed inputs and the score row; cell ``pointed`` explained first."""
    T, d = X.shape
    dots = [dot_terms(X[q], X[j]) for j in range(T)]
    lights = {f"s{j}": ("q", f"c{j}") for j in range(T)}
    state = Pointed(f"s{pointed}", frozenset(lights[f"s{pointed}"]))

    query_cells = "".join(element("td", num(v, 2), state, marks=("q",)) for v in X[q])
    query_head = "".join(f"<th>dim {k + 1}</th>" for k in range(d))
    query = (
        f'<div class="s33-block"><p class="s33-label">query {token_vector(q + 1)} '
        f"({escape(TOKENS[q])})</p><table><tr>{query_head}</tr><tr>{query_cells}</tr>"
        "</table></div>"
    )
    head = CORNER + "".join(
        element("th", escape(TOKENS[j]), state, marks=(f"c{j}",), attrs={"scope": "col"})
        for j in range(T)
    )
    rows = "".join(
        f'<tr><th scope="row">dim {k + 1}</th>'
        + "".join(element("td", num(X[j, k], 2), state, marks=(f"c{j}",)) for j in range(T))
        + "</tr>"
        for k in range(d)
    )
    scores_row = (
        f'<tr class="s33-result"><th scope="row">ω{sub(q + 1)}ⱼ</th>'
        + "".join(
            grid_cell(
                num(total),
                state,
                key=f"s{j}",
                row=f"ω for {TOKENS[q]}",
                column=TOKENS[j],
                lights=lights[f"s{j}"],
                attrs={"data-token": TOKENS[j]},
            )
            for j, (_, total) in enumerate(dots)
        )
        + "</tr>"
    )
    matrix = (
        '<div class="s33-block"><p class="s33-label">inputsᵀ: one column per token</p>'
        + grid(f"inputsᵀ and the scores of {TOKENS[q]}", f"<tr>{head}</tr>{rows}{scores_row}")
        + "</div>"
    )
    body = f'<div class="s33-row">{query}<span class="s33-op">·</span>{matrix}</div>'
    explanations = {
        f"s{j}": _explanation(q, j, X, terms, total) for j, (terms, total) in enumerate(dots)
    }
    return scope(body, explanations, state, HINT)


def picture(state: State) -> str:
    """The figure's HTML for the state's query token, its first score explained."""
    return matmul_html(book_inputs(), TOKENS.index(state.query), pointed=0)


# Not readouts(state): section 3.3's figures show the book's fixed matrices, with no try-it
# cell (figurekit/tryit.py gives one to a figure with readouts).
def readout_rows(state: State) -> list[tuple[str, str, str]]:
    """The readout rows: the query's six scores."""
    q = TOKENS.index(state.query)
    return [("scores", f"ω for {state.query}", vec(query_scores(book_inputs(), q)))]


def draw(state: State) -> Drawing:
    """The query row times the transposed inputs, and the readout."""
    return {
        "picture": html(picture(state)),
        "readout": html(readout_html(readout_rows(state))),
    }
