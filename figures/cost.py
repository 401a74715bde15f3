"""What T squared costs: one head's score matrix in bytes, cards and hours (post 2, 06).

The context length moves on a log scale from one token to GPT-4.1's window. Memory is an
exact integer; the card count is the exact ratio and its ceiling; the time is scaled
quadratically from 0.1 s per token at 1,024 tokens.
"""

from collections.abc import Callable
from typing import NamedTuple

import panel as pn
from bokeh.models import ColumnDataSource, Span

from attention.basics import score_dot_products
from attention.cost import (
    CARD_GIB,
    GPT41_CONTEXT,
    REF_SECONDS,
    REF_TOKENS,
    card_bytes,
    cards_needed,
    scaled_time,
    score_matrix_bytes,
)
from figures.frame import ACCENT, INK, MUTED, frame, pane, readout_html, recompute
from figures.plots import data_table, note, plot, refill, stacked
from figures.tryit import drawn
from figures.widgets import ChoiceSlider, buttons
from formatting import bytes_text, hours_text, integer, num, ratio_text, seconds_text

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


def _log_plot(
    title: str, curve: ColumnDataSource, here: ColumnDataSource, y_label: str, y_format: str
):
    p = plot(title, height=260, x_axis_type="log", y_axis_type="log")
    p.line(x="n", y="y", source=curve, color=MUTED, line_width=2)
    p.scatter(x="n", y="y", source=here, size=11, color=ACCENT)
    p.xaxis.axis_label = "context length T (tokens)"
    p.yaxis.axis_label = y_label
    data_table(p, curve, [("n", "context length T", "int"), ("y", y_label, y_format)])
    return p


def _plots() -> tuple[list, Callable[[State], None]]:
    """Memory and time against T on log axes, and the function that marks a state on them."""
    memory_curve = ColumnDataSource({"n": [], "y": []})
    memory_here = ColumnDataSource({"n": [], "y": []})
    time_curve = ColumnDataSource({"n": list(LENGTHS), "y": [scaled_time(n)[0] for n in LENGTHS]})
    time_here = ColumnDataSource({"n": [], "y": []})
    memory_plot = _log_plot("one head's score matrix", memory_curve, memory_here, "bytes", "int")
    card_line = Span(
        dimension="width", location=card_bytes(CARD_GIB), line_dash="dashed", line_color=INK
    )
    memory_plot.add_layout(card_line)
    time_plot = _log_plot(
        f"time per token, {num(REF_SECONDS, 1)} s at {integer(REF_TOKENS)} tokens",
        time_curve,
        time_here,
        "seconds",
        "mag",
    )

    def show(state: State) -> None:
        curve = [score_matrix_bytes(m, state.per_score) for m in LENGTHS]
        refill(memory_curve, {"n": list(LENGTHS), "y": curve})
        refill(memory_here, {"n": [state.n], "y": [score_matrix_bytes(state.n, state.per_score)]})
        refill(time_here, {"n": [state.n], "y": [scaled_time(state.n)[0]]})
        card_line.location = card_bytes(state.card_gib)

    return [memory_plot, time_plot], show


def view() -> pn.viewable.Viewable:
    """The figure: length slider, bytes per score, card size; memory and time against n."""
    length = ChoiceSlider(
        name="Context length T",
        options={length_label(n): n for n in LENGTHS},
        value=DEFAULT.n,
    )
    width = buttons("Bytes per score", BYTES_PER_SCORE, DEFAULT.per_score)
    card = pn.widgets.Select(name="Card memory", options=CARD_SIZES, value=DEFAULT.card_gib)
    plots, show = _plots()
    readout, message = pane(), pane()
    about = note(
        "The dashed line is one card. Exact integers: bytes and whole cards; the ratio and the "
        "time are rounded for display."
    )

    def draw() -> None:
        state = State(int(length.value), int(width.value), int(card.value))
        show(state)
        readout.object = readout_html(readouts(drawn(state)))

    recompute((length, width, card), message, draw)
    return frame([length, width, card], plots, stacked(readout, about), message)
