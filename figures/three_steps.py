"""Three steps, one word: scores, then weights, then the context vector, for one query."""

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource
from bokeh.plotting import figure

from attention.basics import context, query_scores, softmax
from attention.fixtures import TOKENS, book_inputs
from figures.fmt import vec
from figures.frame import (
    ACCENT,
    INK,
    PLOT_STYLE,
    VISUALLY_HIDDEN_LABEL,
    frame,
    message_html,
    pane,
    readout_html,
)

ID = "three-steps"
TITLE = "Three steps, one word"
CAPTION = (
    "Pick a query token and edit any of the eighteen embedding numbers: the scores, the "
    "weights and the context vector recompute. Try making one token's numbers large and "
    "watch it take weight from every other token."
)
DIMS = ("x₁", "x₂", "x₃")


def _bars(title: str, labels: list[str], y_label: str) -> tuple[figure, ColumnDataSource]:
    n = len(labels)
    source = ColumnDataSource({"label": labels, "value": [0.0] * n, "color": [INK] * n})
    plot = figure(title=title, x_range=labels, height=220, y_axis_label=y_label, **PLOT_STYLE)
    plot.vbar(x="label", top="value", width=0.7, color="color", source=source)
    plot.xgrid.visible = False
    return plot, source


def view() -> pn.viewable.Viewable:
    """The figure: query picker, 6x3 embedding grid, three linked bar charts."""
    X0 = book_inputs()
    query = pn.widgets.Select(name="Query token", options=list(TOKENS), value=TOKENS[1])
    cells = [
        [
            pn.widgets.FloatInput(
                name=f"{TOKENS[i]} {DIMS[k]}",
                value=float(X0[i, k]),
                step=0.01,
                width=76,
                stylesheets=[VISUALLY_HIDDEN_LABEL],
            )
            for k in range(3)
        ]
        for i in range(len(TOKENS))
    ]
    grid = pn.GridBox(
        *[item for i, row in enumerate(cells) for item in (pn.pane.HTML(TOKENS[i]), *row)],
        ncols=4,
    )
    score_plot, scores_src = _bars("1 · scores ω", list(TOKENS), "dot product")
    weight_plot, weights_src = _bars("2 · weights α (softmax)", list(TOKENS), "weight")
    context_plot, context_src = _bars("3 · context vector z", list(DIMS), "value")
    readout, message = pane(), pane()

    def update(*_events) -> None:
        values = [[cell.value for cell in row] for row in cells]
        if any(v is None for row in values for v in row):
            message.object = message_html("Every embedding number needs a value.")
            return
        X = np.array(values, dtype=np.float64)
        i = TOKENS.index(query.value)
        try:
            s = query_scores(X, i)
            w = softmax(s)
            z = context(w, X)
        except ValueError as err:
            message.object = message_html(str(err))
            return
        message.object = ""
        colors = [ACCENT if j == i else INK for j in range(len(TOKENS))]
        scores_src.data = {"label": list(TOKENS), "value": s.tolist(), "color": colors}
        weights_src.data = {"label": list(TOKENS), "value": w.tolist(), "color": colors}
        context_src.data = {"label": list(DIMS), "value": z.tolist(), "color": [ACCENT] * 3}
        readout.object = readout_html(
            [
                ("scores", f"ω for {query.value}", vec(s)),
                ("weights", "α = softmax(ω)", vec(w)),
                ("context", f"z for {query.value}", vec(z)),
            ]
        )

    for widget in [query, *[c for row in cells for c in row]]:
        widget.param.watch(update, "value")
    update()
    return frame([query, grid], [score_plot, weight_plot, context_plot], readout, message)
