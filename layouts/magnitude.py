"""The magnitude figure's layout: token, scale and similarity controls over the 6x6 weight
heatmap, the scaled token's column outlined."""

import panel as pn
from bokeh.models import BoxAnnotation

from attention.fixtures import TOKENS
from figurekit.drawing import HIGHLIGHT
from figurekit.figure import Figure
from figures.magnitude import HINT, T
from layoutkit.frame import frame, pane
from layoutkit.plots import heatmap, note
from layoutkit.wiring import widget, wire

LOOK = {"token": {"width": 160}}  # the token picker is narrow: every token is short


def _column_outline() -> BoxAnnotation:
    """The outline the scaled token's column gets (placed by setting its left and right)."""
    return BoxAnnotation(
        bottom=0,
        top=T,
        fill_alpha=0.0,
        line_color=HIGHLIGHT,
        line_alpha=1.0,
        line_width=4,
        level="overlay",
    )


def layout(figure: Figure) -> pn.viewable.Viewable:
    """Token, scale and similarity controls over the 6x6 weight heatmap."""
    drawn = {
        key: widget(c, c.get(figure.state), **LOOK.get(c.field, {}))
        for key, c in figure.controls.items()
    }
    plot, source, _ = heatmap("Weights α: row = query, column = key", TOKENS, TOKENS, 320)
    column = _column_outline()
    plot.add_layout(column)
    readout, message = pane(), pane()
    hint = note(HINT)
    handles = {"heat": source, "column": column, "readout": readout, "message": message}
    wire(figure, {key: w for key, (w, _) in drawn.items()}, {}, handles)
    placed = [placed for _, placed in drawn.values()]
    return frame(placed, [plot], readout, pn.Column(message, hint))
