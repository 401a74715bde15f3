"""One query's softmax weights over the book's six tokens: the figure to copy for a new one.

Copy this file to ``figures/my_figure.py``, register it in ``figures/__init__.py``'s
``REGISTRY`` and place it with ``{{ figure("my-figure") }}`` (README, "Add a figure"); its tests
start from ``docs/figure_test_template.py``. It lives outside ``figures/`` so that the browser
runtime does not ship it; tests/figures/test_figure_template.py builds it as a registered
figure, so it keeps working as the scaffolding changes.
"""

from typing import NamedTuple

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource

from attention.basics import query_scores, row_sums, softmax  # the numbers: from the core
from attention.fixtures import TOKENS, book_inputs
from figures.frame import INK, frame, pane, readout_html, recompute
from figures.plots import bar_chart, outline, refill
from figures.tryit import drawn
from figures.widgets import token_picker  # shared controls: Presets, Resample, switch, ...
from formatting import num, vec  # the digits the prose prints too

TITLE = "One query's weights"
CAPTION = "Pick a query token: its scores against every token go through softmax."


class State(NamedTuple):
    """The controls' values: everything the figure shows is a function of them."""

    query: str


def weights(state: State) -> np.ndarray:
    """The query's softmax weights over the six tokens."""
    return softmax(query_scores(book_inputs(), TOKENS.index(state.query)))


def readouts(state: State) -> list[tuple[str, str, str]]:
    """(key, label, text) rows: a pure function of the state, tested without Panel."""
    w = weights(state)
    return [
        ("weights", f"softmax weights for {state.query}", vec(w)),
        ("total", "they add up to", num(row_sums(w), 3)),
    ]


def _columns(state: State) -> dict:
    """The bars: one per token, the query outlined."""
    return {
        "label": list(TOKENS),
        "weight": weights(state).tolist(),
        "color": [INK] * len(TOKENS),
        **outline([token == state.query for token in TOKENS]),
    }


def view() -> pn.viewable.Viewable:
    """The figure: a query picker, one bar chart, the readout."""
    query = token_picker()
    source = ColumnDataSource(_columns(State(query.value)))
    chart = bar_chart("softmax weights", source, TOKENS, "weight", "weight")
    readout, message = pane(), pane()

    def draw() -> None:
        state = State(query.value)
        refill(source, _columns(state))
        readout.object = readout_html(readouts(drawn(state)))

    # Draws now and on every change; a ValueError from the core becomes the figure's message.
    recompute([query], message, draw)
    return frame([query], [chart], readout, message)
