"""What the dot product ranks: length. Scale one token and watch its column of the weights.

The heatmap is the whole 6x6 weight matrix; the scaled token's column is outlined and each
row's largest weight is in bold. Switching to cosine scores divides out the lengths.
"""

from typing import NamedTuple

import numpy as np

from attention.analysis import (
    SCALE_EXAMPLE,
    attends_to_itself,
    cosine_scores,
    entropy_bits,
    largest_per_row,
    max_entropy_bits,
    mean_entropy_bits,
    norms,
    rows_won_by,
    scale_token,
)
from attention.basics import scores, softmax
from attention.fixtures import TOKENS, book_inputs
from figurekit.controls import Choice, Slider
from figurekit.drawing import Drawing, heatmap_data, html, readout_html
from formatting import num, vec

TITLE = "Length wins"
SHORTEST = TOKENS[int(np.argmin(norms(book_inputs())))]
CAPTION = (
    f"Pick a token and scale its embedding: made {SCALE_EXAMPLE:g} times longer, the shortest "
    f"vector, {SHORTEST}, takes the largest weight in every row. Then switch to cosine, which "
    "ignores length, and see every token look hardest at itself."
)
DOT, COSINE = "dot product", "cosine"
MAX_SCALE = 10.0
T = len(TOKENS)
HINT = (
    "Colour runs from weight 0 (pale) to 1 (dark). Each row's largest weight is in bold; "
    "the scaled token's column is outlined in blue."
)


class State(NamedTuple):
    """The token to scale, its scale factor, and the similarity the scores use."""

    token: str
    scale: float
    similarity: str


DEFAULT = State(SHORTEST, 1.0, DOT)
CONTROLS = (
    Choice("token", "Token to scale", list(TOKENS), style="menu"),
    Slider("scale", "Scale factor", start=0.0, end=MAX_SCALE, step=0.1),
    Choice("similarity", "Similarity", [DOT, COSINE], style="labelled"),
)


def _scaled(state: State) -> tuple[int, np.ndarray]:
    """The scaled token's index, and the book's inputs with that token scaled."""
    j = TOKENS.index(state.token)
    return j, scale_token(book_inputs(), j, state.scale)


def weights(state: State) -> np.ndarray:
    """The (T, T) weights; raises ``ValueError`` for cosine against a zero vector."""
    _, X = _scaled(state)
    omega = scores(X) if state.similarity == DOT else cosine_scores(X, TOKENS)
    return softmax(omega)


def readouts(state: State) -> list[tuple[str, str, str]]:
    """The scaled token's length and pull, where each row looks hardest, the entropies."""
    j, X = _scaled(state)
    W = weights(state)
    name = state.token
    return [
        ("norm", f"length of {name}", num(norms(X)[j])),
        ("self_weight", f"weight of {name} on itself", num(W[j, j], 3)),
        ("column_wins", f"rows whose largest weight is on {name}", f"{rows_won_by(W, j)} of {T}"),
        (
            "largest",
            "each row's largest weight goes to",
            ", ".join(TOKENS[k] for k in largest_per_row(W)),
        ),
        (
            "self_top",
            "rows that look hardest at themselves",
            f"{int(attends_to_itself(W).sum())} of {T}",
        ),
        ("entropy", "row entropies (bits)", vec(entropy_bits(W), 4)),
        ("mean_entropy", "mean row entropy (bits)", num(mean_entropy_bits(W))),
        ("ceiling", f"ceiling log₂ {T}", num(max_entropy_bits(T))),
    ]


def explain(err: ValueError) -> str:
    """The message for a state the core refuses: a zero vector under cosine."""
    return f"{err}. Pick a scale above 0, or the dot product."


def _heat_columns(state: State) -> dict:
    """The weight heatmap, each row's largest weight in bold."""
    W = weights(state)
    bold = np.zeros_like(W, dtype=bool)
    bold[np.arange(T), largest_per_row(W)] = True
    text = [num(w, 3) for w in W.ravel()]
    return heatmap_data(W, text, bold=bold.ravel().tolist(), low=0, high=1)


def draw(state: State) -> Drawing:
    """The weight heatmap, the scaled token's column outlined, and the readout."""
    heat = _heat_columns(state)
    j = TOKENS.index(state.token)
    return {
        "heat": {"data": heat},
        "column": {"left": j, "right": j + 1},
        "readout": html(readout_html(readouts(state))),
    }
