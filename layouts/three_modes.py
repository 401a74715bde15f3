"""The three-modes figure's layout: mode buttons, two token pickers, the score and weight
grids."""

import panel as pn

from attention.fixtures import TOKENS
from figurekit.figure import Figure
from figures.three_modes import SCORE_TITLES, WEIGHT_SET
from layoutkit.frame import frame, pane
from layoutkit.plots import heatmap, note, stacked
from layoutkit.wiring import widget, wire


def layout(figure: Figure) -> pn.viewable.Viewable:
    """Mode buttons, two token pickers; the score and weight grids, the errors."""
    widgets = {key: widget(c, c.get(figure.state))[0] for key, c in figure.controls.items()}
    score_plot, score_src, score_map = heatmap(SCORE_TITLES["none"], TOKENS, TOKENS)
    weight_plot, weight_src, weight_map = heatmap(
        "weights A = softmax(Ω / √d_out), row by row", TOKENS, TOKENS
    )
    weight_plot.xaxis.axis_label = "key (gets weight)"
    weight_plot.yaxis.axis_label = "query (gives weight)"
    score_plot.yaxis.axis_label = "query"
    score_plot.xaxis.axis_label = "key"
    readout, message = pane(), pane()
    weight_set = note(f"<b>Weights:</b> {WEIGHT_SET}, generated in numpy.")
    handles = {
        "scores": score_src,
        "scores.mapper": score_map,
        "scores.title": score_plot.title,
        "weights": weight_src,
        "weights.mapper": weight_map,
        "readout": readout,
        "message": message,
    }
    wire(figure, widgets, {}, handles)
    return frame(
        list(widgets.values()), [score_plot, weight_plot], stacked(readout, weight_set), message
    )
