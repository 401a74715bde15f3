"""One query's scores normalised two ways, side by side: divide by the sum, and softmax.

Pointing at a token in either chart lights that token in both and writes out both divisions.
"""

from html import escape
from typing import NamedTuple

import numpy as np

from attention.basics import query_scores, row_sums, softmax, sum_normalise
from attention.fixtures import TOKENS, book_inputs
from figurekit.controls import Choice
from figurekit.drawing import Drawing, html, readout_html
from figurekit.pointing import Pointed, element, scope, sub
from formatting import num, vec

TITLE = "Two ways to make weights"
CAPTION = (
    "Both charts turn the same six scores into weights that sum to 1. Point at a token in "
    "either chart (hover, tap, or Tab to it) to light it in both and see both divisions."
)
HINT = "Point at a token in either chart to compare its two weights."
CHARTS = (("by-sum", "Divide by the sum"), ("softmax", "Softmax"))


class State(NamedTuple):
    """The query token whose scores are normalised."""

    query: str


DEFAULT = State(TOKENS[1])
CONTROLS = (Choice("query", "Query token", list(TOKENS), style="menu"),)


def _explanation(q: int, j: int, score: float, total: float, by_sum: float, soft: float) -> str:
    w = f"{sub(q + 1)}{sub(j + 1)}"
    return (
        f"<p><b>{escape(TOKENS[j])}</b>: score ω{w} = {num(score)}</p>"
        '<table class="s33-terms">'
        f"<tr><th>divide by the sum</th><td>{num(score)} ÷ {num(total)}</td><td>=</td>"
        f"<td>{num(by_sum)}</td></tr>"
        f"<tr><th>softmax</th><td>exp({num(score)}) ÷ Σₖ exp(ω{sub(q + 1)}ₖ)</td><td>=</td>"
        f"<td>{num(soft)}</td></tr></table>"
    )


def _bar(token: int, weight: float, top: float, state: Pointed) -> str:
    length = 100 * max(weight, 0.0) / top  # bar length in percent of the chart's width
    svg = (
        '<svg viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">'
        f'<rect x="0" y="0" width="{length:.3f}" height="10"></rect></svg>'
    )
    key = f"t{token}"
    return element(
        "div",
        f'<span class="s33-tok">{escape(TOKENS[token])}</span>{svg}'
        f'<span class="s33-val">{num(weight)}</span>',
        state,
        key=key,
        lights=(key,),
        marks=(key,),
        attrs={"class": "s33-bar", "data-token": TOKENS[token]},
    )


def charts_html(scores: np.ndarray, q: int, pointed: int) -> str:
    """Both normalisations of one query's ``scores`` as bar charts; token ``pointed`` first."""
    total = row_sums(scores)
    weights = {"by-sum": sum_normalise(scores), "softmax": softmax(scores)}
    top = max(float(np.max(w)) for w in weights.values())  # one scale for both charts
    state = Pointed(f"t{pointed}", frozenset({f"t{pointed}"}))
    charts = "".join(
        f'<div class="s33-chart" data-chart="{name}" role="group" aria-label="{label}">'
        f'<p class="s33-label">{label}</p>'
        + "".join(_bar(j, w, top, state) for j, w in enumerate(weights[name]))
        + "</div>"
        for name, label in CHARTS
    )
    explanations = {
        f"t{j}": _explanation(q, j, scores[j], total, weights["by-sum"][j], weights["softmax"][j])
        for j in range(len(scores))
    }
    return scope(f'<div class="s33-row">{charts}</div>', explanations, state, HINT)


def picture(state: State) -> str:
    """The figure's HTML for the state's query token, the query itself pointed at first."""
    q = TOKENS.index(state.query)
    return charts_html(query_scores(book_inputs(), q), q, pointed=q)


# Not readouts(state): section 3.3's figures show the book's fixed matrices, with no try-it
# cell (figurekit/tryit.py gives one to a figure with readouts).
def readout_rows(state: State) -> list[tuple[str, str, str]]:
    """The readout rows: the scores' sum and both normalisations."""
    s = query_scores(book_inputs(), TOKENS.index(state.query))
    return [
        ("sum", f"sum of the scores of {state.query}", num(row_sums(s))),
        ("by-sum", "divided by the sum", vec(sum_normalise(s))),
        ("softmax", "softmax", vec(softmax(s))),
    ]


def draw(state: State) -> Drawing:
    """Both charts, and the readout."""
    return {
        "picture": html(picture(state)),
        "readout": html(readout_html(readout_rows(state))),
    }
