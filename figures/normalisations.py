"""Why not divide by the sum: the obvious normalisation beside softmax, for one query.

Presets edit the book's tensor so that dividing by the sum breaks: a negative weight, then a
denominator so close to zero that one weight explodes. Weights no probability could be are
drawn in red and named on the figure.
"""

from typing import NamedTuple

import numpy as np

from attention.basics import improper_weights, query_scores, row_sums, softmax, sum_normalise
from attention.fixtures import PRESETS, TOKENS, preset_inputs, preset_query
from figurekit.controls import Choice
from figurekit.drawing import FLAG, INK, Drawing, html, message_html, outline, readout_html
from formatting import num, vec

TITLE = "Divide by the sum, or softmax"
CAPTION = (
    f"The same six scores normalised two ways. Pick “{PRESETS['negative']}” and read the "
    "divide-by-sum panel: one token gets a negative weight while the row still sums to one. "
    f"Then try “{PRESETS['near-zero']}”, and other query tokens. Picking a tensor also picks "
    "the query whose row shows it best; the readout names it."
)
PRESET_LABELS = {label: name for name, label in PRESETS.items()}
HINT = "Red bars are weights no probability could be: below 0 or above 1."


class State(NamedTuple):
    """The tensor preset (its name in ``PRESETS``) and the query token."""

    preset: str
    query: str


DEFAULT = State("book", TOKENS[1])
CONTROLS = (
    Choice("preset", "Tensor", PRESET_LABELS, style="labelled"),
    Choice("query", "Query token", list(TOKENS), style="menu"),
)


def _row(state: State) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The query's scores, divided by their sum, and through softmax."""
    s = query_scores(preset_inputs(state.preset), TOKENS.index(state.query))
    return s, sum_normalise(s), softmax(s)


def readouts(state: State) -> list[tuple[str, str, str]]:
    """The scores, both normalisations and what each adds up to."""
    s, by_sum, soft = _row(state)
    picked = TOKENS.index(state.query) == preset_query(state.preset)
    return [
        ("query", "query token", state.query + (" (the tensor's pick)" if picked else "")),
        ("scores", f"scores ω for {state.query}", vec(s)),
        ("denominator", "Σω, the divide-by-sum denominator", num(row_sums(s))),
        ("by_sum", "ω / Σω", vec(by_sum)),
        ("by_sum_total", "ω / Σω adds up to", num(row_sums(by_sum), 3)),
        ("softmax", "softmax(ω)", vec(soft)),
        ("softmax_total", "softmax(ω) adds up to", num(row_sums(soft), 3)),
    ]


def message(state: State) -> str:
    """The weights no probability could be, named, or nothing when there are none."""
    s, by_sum, _ = _row(state)
    bad = improper_weights(by_sum)
    return _flag_text(by_sum, bad, row_sums(s)) if bad.any() else ""


def react(state: State, key: str) -> State:
    """Each preset comes with the query whose row shows what it is for: picking a tensor
    picks that query too (the reader can pick another after it)."""
    if key == "tensor":
        return state._replace(query=TOKENS[preset_query(state.preset)])
    return state


def _columns(s, by_sum, soft, bad, i) -> dict:
    """One row per token, read by both panels."""
    n = len(TOKENS)
    return {
        "label": list(TOKENS),
        "score": s.tolist(),
        "by_sum": by_sum.tolist(),
        "softmax": soft.tolist(),
        "color": [FLAG if bad[j] else INK for j in range(n)],
        "soft_color": [INK] * n,
        **outline([j == i for j in range(n)]),
        "by_sum_text": [num(v) for v in by_sum],
        "softmax_text": [num(v) for v in soft],
    }


def _bars_columns(state: State) -> dict:
    """Both panels' bars for the state, improper weights flagged and the query outlined."""
    s, by_sum, soft = _row(state)
    return _columns(s, by_sum, soft, improper_weights(by_sum), TOKENS.index(state.query))


def _flag_text(by_sum: np.ndarray, bad: np.ndarray, denominator: float) -> str:
    """Name each weight no probability could be, and say why it happened."""
    named = ", ".join(f"{TOKENS[j]} {num(by_sum[j])}" for j in np.flatnonzero(bad))
    return (
        f"Dividing by the sum ({num(denominator)}) gives weights outside 0 to 1: {named}. "
        "They still add up to 1; softmax's never leave 0 to 1."
    )


def draw(state: State) -> Drawing:
    """Both panels' bars, the readout, and the weights no probability could be, named."""
    bars = _bars_columns(state)
    return {
        "bars": {"data": bars},
        "readout": html(readout_html(readouts(state))),
        "message": html(message_html(message(state))),
    }
