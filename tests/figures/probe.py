"""Drive a figure's view in CPython: find its widgets by label, read its readouts and messages."""

import html
import re

import panel as pn

_READOUT = re.compile(r'<dd data-readout="([^"]+)">(.*?)</dd>', re.S)
_MESSAGE = re.compile(r'<p class="fig-message[^"]*"[^>]*>(.*?)</p>', re.S)


def widgets(view: pn.viewable.Viewable) -> dict[str, pn.widgets.Widget]:
    """Every widget in the figure, by its label (``name``)."""
    return {w.name: w for w in view.select(pn.widgets.Widget)}


def _html(view: pn.viewable.Viewable) -> str:
    return "".join(str(p.object) for p in view.select(pn.pane.HTML))


def readouts(view: pn.viewable.Viewable) -> dict[str, str]:
    """Every ``data-readout`` value shown, by key."""
    return {k: html.unescape(v) for k, v in _READOUT.findall(_html(view))}


def messages(view: pn.viewable.Viewable) -> list[str]:
    """The messages the figure currently shows (empty when all is well)."""
    return [html.unescape(m) for m in _MESSAGE.findall(_html(view))]
