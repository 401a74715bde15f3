"""The score-matrix figure's layout: a scores/weights switch over the inputs and the 6x6
matrix (layoutkit/pointing.py)."""

import panel as pn

from figurekit.figure import Figure
from layoutkit.pointing import pointing_frame
from layoutkit.wiring import widget


def layout(figure: Figure) -> pn.viewable.Viewable:
    """A row of radio boxes over the pointing picture, the readout below."""
    (control,) = figure.controls.values()
    show, _ = widget(control, control.get(figure.state), inline=True)
    return pointing_frame(figure, show)
