"""Drive a figure in CPython: find its controls by label, read its readouts and messages.

A figure module that declares its state and drawing (figurekit/figure.py) is driven as the
reader's worker drives it, without Panel (``driven``); a figure that still builds itself with
Panel is driven through its layout's widgets.
"""

import html
import re
from types import ModuleType

import panel as pn

import figures
from figurekit.controls import Control
from figurekit.drawing import Drawing
from figurekit.figure import Figure

_READOUT = re.compile(r'<(?:dd|td) data-readout="([^"]+)">(.*?)</(?:dd|td)>', re.S)
_MESSAGE = re.compile(r'<p class="fig-message[^"]*"[^>]*>(.*?)</p>', re.S)


class Driven:
    """A figure as its worker runs it: what each of its handles shows, drawing by drawing."""

    def __init__(self, mod: ModuleType) -> None:
        self.figure = Figure(figures.figure_id(mod), mod)
        self.shown: Drawing = {}
        self.take(self.figure.draw())

    def take(self, drawing: Drawing) -> None:
        for handle, props in drawing.items():
            now = self.shown.setdefault(handle, {})
            for prop, value in props.items():
                if prop == "data" and "data" in now:
                    now["data"] = {**now["data"], **value}
                else:
                    now[prop] = value


class Knob:
    """One control of a driven figure, set as a widget is (``value``; ``clicks`` for a button)."""

    def __init__(self, driven: Driven, key: str, control: Control) -> None:
        self.driven, self.key, self.control, self.name = driven, key, control, control.name

    @property
    def value(self):
        return self.control.get(self.driven.figure.state)

    @value.setter
    def value(self, value) -> None:
        self.driven.take(self.driven.figure.change(self.key, value))

    @property
    def clicks(self) -> int:
        return self.value - self.control.first

    @clicks.setter
    def clicks(self, clicks: int) -> None:
        self.value = self.control.first + clicks


class Press:
    """An action button of a driven figure: each added click presses it."""

    def __init__(self, driven: Driven, key: str, name: str) -> None:
        self.driven, self.key, self.name, self._clicks = driven, key, name, 0

    @property
    def clicks(self) -> int:
        return self._clicks

    @clicks.setter
    def clicks(self, clicks: int) -> None:
        for _ in range(clicks - self._clicks):
            self.driven.take(self.driven.figure.act(self.key))
        self._clicks = clicks


def driven(mod: ModuleType) -> Driven:
    """Figure module ``mod`` drawn at its defaults, ready to be driven."""
    return Driven(mod)


def driven_to(mod: ModuleType, values: dict) -> Driven:
    """Figure module ``mod`` driven as a reader would: each control, by its label, set to its
    value in ``values``, in order."""
    view = driven(mod)
    controls = widgets(view)
    for name, value in values.items():
        controls[name].value = value
    return view


def widgets(view) -> dict:
    """Every control of the figure, by its label (``name``)."""
    if isinstance(view, Driven):
        found: dict = {c.name: Knob(view, k, c) for k, c in view.figure.controls.items()}
        found |= {a.name: Press(view, k, a.name) for k, a in view.figure.actions.items()}
        return found
    return {w.name: w for w in view.select(pn.widgets.Widget)}


def _html(view) -> str:
    if isinstance(view, Driven):
        return "".join(str(p.get("object", "")) for p in view.shown.values())
    return "".join(str(p.object) for p in view.select(pn.pane.HTML))


def readouts(view) -> dict[str, str]:
    """Every ``data-readout`` value shown, by key."""
    return readouts_in(_html(view))


NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def rounding_keys(figure_id: str) -> frozenset[str]:
    """The readouts a figure declares as printing float64 rounding itself (its ROUNDING)."""
    return getattr(figures.module(figure_id), "ROUNDING", frozenset())


def agree(figure_id: str, page: dict[str, str], python: dict[str, str]) -> None:
    """The page's readouts are CPython's: exactly, or to 1e-9 where rounding is printed (the
    maths library of the reader's Python rounds the last digits its own way)."""
    rounding = rounding_keys(figure_id)
    assert page.keys() == python.keys()
    exact = {k: v for k, v in page.items() if k not in rounding}
    assert exact == {k: v for k, v in python.items() if k not in rounding}
    for key in rounding & page.keys():
        ours, theirs = NUMBER.findall(page[key]), NUMBER.findall(python[key])
        assert len(ours) == len(theirs), (key, page[key], python[key])
        assert all(abs(float(a) - float(b)) <= 1e-9 for a, b in zip(ours, theirs, strict=True)), key


def same_but_rounding(figure_id: str, page_html: str, python_html: str) -> bool:
    """Whether two drawings of a figure's HTML pane differ only where ``agree`` allows."""
    rounding = rounding_keys(figure_id)

    def skeleton(text: str) -> str:
        return _READOUT.sub(
            lambda m: m.group(0) if m.group(1) not in rounding else m.group(1), text
        )

    if skeleton(page_html) != skeleton(python_html):
        return False
    try:
        agree(figure_id, readouts_in(page_html), readouts_in(python_html))
    except AssertionError:
        return False
    return True


def readouts_in(text: str) -> dict[str, str]:
    """Every ``data-readout`` value in one pane's HTML, by key."""
    return {k: html.unescape(v) for k, v in _READOUT.findall(text)}


def messages(view) -> list[str]:
    """The messages the figure currently shows (empty when all is well)."""
    return [html.unescape(m) for m in _MESSAGE.findall(_html(view))]
