"""One query's softmax weights over the book's six tokens: the figure to copy for a new one.

Copy this file to ``figures/my_figure.py`` and ``docs/layout_template.py`` to
``layouts/my_figure.py``, register the figure in ``figures/__init__.py``'s ``REGISTRY`` and
place it with ``{{ figure("my-figure") }}`` (README, "Add a figure"); its tests start from
``docs/figure_test_template.py``. It lives outside ``figures/`` so that the browser runtime
does not ship it; tests/figures/test_figure_template.py builds it as a registered figure, so
it keeps working as the scaffolding changes.

A figure module is what the reader's browser runs: numpy, the core and ``figurekit`` only. It
declares the figure's state and controls, and draws a state as the properties of the models
its layout names.
"""

from typing import NamedTuple

import numpy as np

from attention.basics import query_scores, row_sums, softmax  # the numbers: from the core
from attention.fixtures import TOKENS, book_inputs
from figurekit.controls import Choice  # Slider, Number, Text, Switch, Clicks, Action
from figurekit.drawing import INK, Drawing, html, outline, readout_html
from formatting import num, vec  # the digits the prose prints too

TITLE = "One query's weights"
CAPTION = "Pick a query token: its scores against every token go through softmax."


class State(NamedTuple):
    """The controls' values: everything the figure shows is a function of them."""

    query: str = "journey"


DEFAULT = State()
# One control per field the reader sets; its name, slugified, is its key in a link to a view.
CONTROLS = (Choice("query", "Query token", list(TOKENS), style="menu"),)


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


def draw(state: State) -> Drawing:
    """What each of the layout's models shows in ``state``: the bars (one per token, the query
    outlined) and the readout. A state the core refuses raises ValueError: the figure keeps
    its last drawing and shows why."""
    return {
        "bars": {
            "data": {
                "label": list(TOKENS),
                "weight": weights(state).tolist(),
                "color": [INK] * len(TOKENS),
                **outline([token == state.query for token in TOKENS]),
            }
        },
        "readout": html(readout_html(readouts(state))),
    }
