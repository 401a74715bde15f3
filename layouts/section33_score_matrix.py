"""The score-matrix figure's layout: a scores/weights switch over the inputs and the 6x6
matrix (layoutkit/pointing.py)."""

import panel as pn

from figurekit.figure import Figure
from layoutkit.pointing import pointing_frame


def layout(figure: Figure) -> pn.viewable.Viewable:
    """A row of radio boxes over the pointing picture, the readout below.

    The kit draws no Choice as radio boxes (layoutkit.wiring.widget), so the switch is built
    here as it always was; its Choice (style "buttons", a row with no name drawn) is what it
    sets and how a link reads it.
    """
    (control,) = figure.controls.values()
    show = pn.widgets.RadioBoxGroup(
        name=control.name,
        options=control.values,
        value=control.get(figure.state),
        inline=True,
    )
    return pointing_frame(figure, show)
