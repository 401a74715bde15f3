"""What T squared costs: one head's score matrix in bytes, cards and hours (post 2, 06).

The context length moves on a log scale from one token to GPT-4.1's window. Memory is an
exact integer; the card count is the exact ratio and its ceiling; the time is scaled
quadratically from 0.1 s per token at 1,024 tokens.
"""

from typing import NamedTuple

from attention.basics import score_dot_products
from attention.cost import (
    CARD_GIB,
    GPT41_CONTEXT,
    REF_TOKENS,
    card_bytes,
    cards_needed,
    scaled_time,
    score_matrix_bytes,
)
from figurekit.controls import Choice
from figurekit.drawing import Drawing, html, readout_html
from formatting import bytes_text, hours_text, integer, ratio_text, seconds_text

TITLE = "What T squared costs"
CAPTION = (
    "Drag the context length from one token to a million. One head of one layer: at "
    f"{integer(REF_TOKENS)} tokens the score matrix is nothing, at GPT-4.1's window it fills a "
    f"rack of {CARD_GIB} GiB cards, and the time per token grows with the square of the length."
)
# Powers of two up to half a million, then GPT-4.1's window: a log scale with exact stops.
LENGTHS: tuple[int, ...] = (*(2**k for k in range(20)), GPT41_CONTEXT)
# Each option says what it measures: the group has no name above it (see widgets.buttons).
BYTES_PER_SCORE = {
    "1 byte/score (8-bit)": 1,
    "2 bytes/score (16-bit)": 2,
    "4 bytes/score (32-bit)": 4,
}
CARD_SIZES = {"24 GiB": 24, "40 GiB": 40, "80 GiB (H100)": CARD_GIB}


def length_label(n: int) -> str:
    """A slider stop: '1,024', and GPT-4.1's window named."""
    return f"{integer(n)} (GPT-4.1)" if n == GPT41_CONTEXT else integer(n)


class State(NamedTuple):
    """The figure's controls: context length, bytes per score, card memory in GiB."""

    n: int = REF_TOKENS  # the caption's drag starts small, where the score matrix is nothing
    per_score: int = 2
    card_gib: int = CARD_GIB


DEFAULT = State()
CONTROLS = (
    Choice("n", "Context length T", {length_label(n): n for n in LENGTHS}, style="slider"),
    Choice("per_score", "Bytes per score", BYTES_PER_SCORE, style="buttons"),
    Choice("card_gib", "Card memory", CARD_SIZES, style="menu"),
)


def readouts(state: State) -> list[tuple[str, str, str]]:
    """The readout rows for ``state``: the matrix in scores, bytes and cards, and the time."""
    n_bytes = score_matrix_bytes(state.n, state.per_score)
    ratio, cards = cards_needed(n_bytes, state.card_gib)
    seconds, hours = scaled_time(state.n)
    return [
        ("tokens", "context length T", integer(state.n)),
        ("scores", "scores in one head's matrix, T²", integer(score_dot_products(state.n))),
        ("bytes", "bytes", integer(n_bytes)),
        ("bytes-binary", "in binary units", bytes_text(n_bytes)),
        ("card-ratio", f"{state.card_gib} GiB cards, exact ratio", ratio_text(ratio)),
        ("cards", "cards to buy", integer(cards)),
        ("seconds", "seconds per token", seconds_text(seconds)),
        ("hours", "hours per token", hours_text(hours)),
    ]


def draw(state: State) -> Drawing:
    """The memory curve for the state's bytes per score, the state marked on both plots, the
    card's line, the readout."""
    here = score_matrix_bytes(state.n, state.per_score)
    return {
        "memory": {
            "data": {
                "n": list(LENGTHS),
                "y": [score_matrix_bytes(m, state.per_score) for m in LENGTHS],
            }
        },
        "memory.here": {"data": {"n": [state.n], "y": [here]}},
        "time.here": {"data": {"n": [state.n], "y": [scaled_time(state.n)[0]]}},
        "card": {"location": card_bytes(state.card_gib)},
        "readout": html(readout_html(readouts(state))),
    }
