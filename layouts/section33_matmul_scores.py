"""The matmul-scores figure's layout: a query menu over the query row times the transposed
inputs (layoutkit/pointing.py)."""

import panel as pn

from figurekit.figure import Figure
from layoutkit.pointing import TOKEN_MENU, pointing_frame
from layoutkit.wiring import widget


def layout(figure: Figure) -> pn.viewable.Viewable:
    """The token menu over the pointing picture, the readout below."""
    (control,) = figure.controls.values()
    menu, _ = widget(control, control.get(figure.state), **TOKEN_MENU)
    return pointing_frame(figure, menu)
