"""The loop-matmul figure's layout: a step slider and a matmul switch over two 6x6 score
grids."""

import panel as pn

from attention.fixtures import TOKENS
from figurekit.figure import Figure
from figures.loop_matmul import HIGH, HINT
from layoutkit.frame import frame, pane
from layoutkit.plots import heatmap, note
from layoutkit.wiring import widget, wire


def layout(figure: Figure) -> pn.viewable.Viewable:
    """A step slider and a matmul switch over the loop's grid and the matmul's."""
    widgets = {key: widget(c, c.get(figure.state))[0] for key, c in figure.controls.items()}
    loop_plot, loop_src, _ = heatmap(
        "for i … for j …: ω[i, j] = x_i · x_j", TOKENS, TOKENS, high=HIGH, corner="i \\ j"
    )
    mat_plot, mat_src, _ = heatmap("X @ X.T", TOKENS, TOKENS, high=HIGH, corner="i \\ j")
    readout, message = pane(), pane()
    hint = note(HINT)
    handles = {"loop": loop_src, "matmul": mat_src, "readout": readout, "message": message}
    wire(figure, widgets, {}, handles)
    return frame(list(widgets.values()), [loop_plot, mat_plot], readout, pn.Column(message, hint))
