"""A figure's view as URL parameters: what "Link to this view" writes and a link restores.

``track`` is given each figure's layout when the page's document is built (``layoutkit.document``)
and remembers its controls and their defaults. Each control gets a short key, its name
slugified ("Context length T" -> ``context-length-t``), and each value a readable text: a
number as itself, a choice as its option's label slugified (or its number), a switch as
``true``/``false``, a text box as typed. ``encode`` gives the controls that differ from the
defaults; ``apply`` checks every parameter before it sets any, so a link with one bad value
opens the figure at its defaults with a one-line note instead of half a view or an error.

The page prefixes each key with the figure's id in the URL (``?cost.context-length-t=4096``);
this module sees one figure's keys without the prefix.
"""

import math
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import panel as pn
from panel.widgets.select import SingleSelectBase

from figures.frame import refusal
from figures.widgets import CLICKS_ARE_STATE as _COUNTED
from figures.widgets import ChoiceSlider

# The longest piece of a bad value quoted in a note: a note is one line, whatever the link.
QUOTED = 40


class BadLink(ValueError):
    """A parameter that names no control, or a value its control cannot take."""


def slug(text: str) -> str:
    """``'Your x₁'`` -> ``'your-x1'``: lower case, runs of other characters one hyphen."""
    text = unicodedata.normalize("NFKC", text).lower().replace("'", "").replace("’", "")
    return re.sub(r"\W+", "-", text).strip("-")


def _quoted(text: str) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= QUOTED else text[: QUOTED - 1] + "…")


def _clause(sentence: str) -> str:
    """A figure's message as part of a note: 'Every x needs a value.' -> 'every x needs a value'."""
    return sentence[:1].lower() + sentence[1:].rstrip(".")


def _one_of(texts: list[str]) -> str:
    """'one of a, b, c', or for a long list its ends: a note stays one short line."""
    if len(texts) <= 6:
        return f"one of {', '.join(texts)}"
    return f"one of its {len(texts)} values from {texts[0]} to {texts[-1]}"


def _number(text: str, key: str, kind: type):
    try:
        value = kind(text)
    except ValueError:
        raise BadLink(f"{_quoted(text)} is not {'an integer' if kind is int else 'a number'} "
                      f"for '{key}'") from None  # fmt: skip
    return value


def _fmt(x: float) -> str:
    """A number as short as it reads: 4096, 0.25, 1e-05."""
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(float(x))


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


@dataclass(eq=False)
class Control:
    """One control of a figure: its key, widget and default, and how its value reads as text."""

    key: str
    widget: pn.widgets.Widget
    default: object

    @property
    def attr(self) -> str:
        return "clicks" if self.widget in _COUNTED else "value"

    @property
    def value(self):
        return getattr(self.widget, self.attr)

    def set(self, value) -> None:
        setattr(self.widget, self.attr, value)

    # -- choices: Select, RadioButtonGroup, RadioBoxGroup, ChoiceSlider

    def _options(self) -> dict[str, object]:
        """Each option's text in a URL -> its value."""
        options = self.widget.options
        pairs = options.items() if isinstance(options, dict) else ((str(v), v) for v in options)
        numeric = (int, float)
        return {
            _fmt(v) if isinstance(v, numeric) and not isinstance(v, bool) else slug(label): v
            for label, v in pairs
        }

    def text(self, value) -> str:
        """``value`` as it reads in a URL."""
        w = self.widget
        if self.attr == "clicks":
            return str(value)
        if isinstance(w, (SingleSelectBase, ChoiceSlider)):
            return next(t for t, v in self._options().items() if _same(v, value))
        if isinstance(w, (pn.widgets.Toggle, pn.widgets.Checkbox)):
            return "true" if value else "false"
        if isinstance(w, (pn.widgets.IntSlider, pn.widgets.IntInput)):
            return "" if value is None else str(int(value))
        if isinstance(w, pn.widgets.FloatSlider):
            return format(value, ".12g")  # the slider's arithmetic leaves noise past its steps
        if isinstance(w, pn.widgets.FloatInput):
            return "" if value is None else _fmt(value)
        return str(value)

    def parse(self, text: str):
        """The value ``text`` names; ``BadLink`` saying why when the control cannot take it."""
        w, key = self.widget, self.key
        if self.attr == "clicks":
            clicks = _number(text, key, int)
            if clicks < 0:
                raise BadLink(f"'{key}' cannot be clicked {clicks} times")
            return clicks
        if isinstance(w, (SingleSelectBase, ChoiceSlider)):
            options = self._options()
            if slug(text) in options or text in options:
                return options.get(text, options.get(slug(text)))
            raise BadLink(f"{_quoted(text)} is not {_one_of(list(options))} for '{key}'")
        if isinstance(w, (pn.widgets.Toggle, pn.widgets.Checkbox)):
            if text not in ("true", "false"):
                raise BadLink(f"{_quoted(text)} is not true or false for '{key}'")
            return text == "true"
        if isinstance(w, (pn.widgets.IntSlider, pn.widgets.FloatSlider)):
            return self._on_slider(_number(text, key, type(w.start)), text)
        if isinstance(w, (pn.widgets.IntInput, pn.widgets.FloatInput)):
            if text == "":
                return None  # an emptied box: the figure says whether it can draw that
            kind = int if isinstance(w, pn.widgets.IntInput) else float
            return self._in_bounds(_number(text, key, kind), w.start, w.end, text)
        return text

    def _in_bounds(self, value, start, end, text: str):
        low = -math.inf if start is None else start
        high = math.inf if end is None else end
        if not low <= value <= high:
            raise BadLink(
                f"{_quoted(text)} is outside {_fmt(low)} to {_fmt(high)} for '{self.key}'"
            )
        return value

    def _on_slider(self, value, text: str):
        w = self.widget
        value = self._in_bounds(value, w.start, w.end, text)
        steps = (value - w.start) / w.step
        if abs(steps - round(steps)) > 1e-9:
            raise BadLink(f"{_quoted(text)} is not a step of {_fmt(w.step)} from "
                          f"{_fmt(w.start)} for '{self.key}'")  # fmt: skip
        return value


def _control_widgets(layout: pn.viewable.Viewable) -> Iterable[pn.widgets.Widget]:
    """The widgets that hold the view, in the layout's order (a preset picker before what it
    sets). Action buttons and unnamed parts of composite widgets hold none."""
    for w in layout.select(pn.widgets.Widget):
        if isinstance(w, pn.widgets.StaticText) or not w.name:
            continue
        if isinstance(w, pn.widgets.Button) and w not in _COUNTED:
            continue
        yield w


def _check_kind(figure_id: str, w: pn.widgets.Widget) -> None:
    kinds = (
        SingleSelectBase,
        ChoiceSlider,
        pn.widgets.Toggle,
        pn.widgets.Checkbox,
        pn.widgets.IntSlider,
        pn.widgets.FloatSlider,
        pn.widgets.IntInput,
        pn.widgets.FloatInput,
        pn.widgets.TextInput,
        pn.widgets.Button,
    )
    if not isinstance(w, kinds):
        raise ValueError(
            f"figure {figure_id!r}: a link cannot hold {type(w).__name__} {w.name!r}; teach "
            "figures/viewstate.py's Control how its value reads as text"
        )


class View:
    """A figure's controls, remembered with their defaults when the figure is built."""

    def __init__(self, figure_id: str, layout: pn.viewable.Viewable) -> None:
        self.figure_id = figure_id
        self.layout = layout
        self.controls: dict[str, Control] = {}
        for w in _control_widgets(layout):
            _check_kind(figure_id, w)
            control = Control(slug(w.name), w, None)
            control.default = control.value
            if other := self.controls.get(control.key):
                raise ValueError(
                    f"figure {figure_id!r}: controls {other.widget.name!r} and {w.name!r} both "
                    f"link as '{control.key}'; rename one so that each has its own URL key"
                )
            self.controls[control.key] = control

    def encode(self) -> dict[str, str]:
        """The controls that differ from their defaults, as URL key -> text."""
        return {
            key: c.text(c.value)
            for key, c in self.controls.items()
            if not _same(c.value, c.default)
        }

    def apply(self, params: Mapping[str, str]) -> str:
        """Show the view ``params`` describe, or the defaults and a one-line note saying why not.

        Every parameter is checked before any control is set, and the figure itself has the
        last word (a state it refuses to draw is a bad link too).
        """
        try:
            self._set(self._parse(params))
            if why := self._refused():
                raise BadLink(f"the figure cannot show it: {_clause(why)}")
        except Exception as err:  # whatever a link holds, the reader gets a figure
            self.reset()
            why = err if isinstance(err, BadLink) else f"{type(err).__name__}: {err}"
            return f"This link's view could not be restored ({why}); showing the defaults."
        return ""

    def reset(self) -> None:
        """Back to the figure's defaults."""
        self._set({key: c.default for key, c in self.controls.items()})

    def _parse(self, params: Mapping[str, str]) -> dict[str, object]:
        wanted = {key: c.default for key, c in self.controls.items()}
        for key, text in params.items():
            if key not in self.controls:
                raise BadLink(f"no control {_quoted(key)} on this figure")
            wanted[key] = self.controls[key].parse(text)
        return wanted

    def _set(self, wanted: Mapping[str, object]) -> None:
        # Every control is set, in the layout's order, so that a preset picker (set first)
        # cannot leave its own choices where the link names others. A second pass puts back
        # what a figure's own callbacks moved during the first.
        for _ in range(2):
            for key, value in wanted.items():
                control = self.controls[key]
                if not _same(control.value, value):
                    control.set(value)
        moved = [k for k, v in wanted.items() if not _same(self.controls[k].value, v)]
        if moved:
            raise BadLink(f"the figure does not keep '{moved[0]}' at that value")

    def _refused(self) -> str:
        """What the figure said it cannot draw in its current state, or ''."""
        for pane in self.layout.select(pn.pane.HTML):
            if why := refusal(pane):
                return why
        return ""


# Figure id -> its view, for the page's document (the worker holds one document per page).
_VIEWS: dict[str, View] = {}


def track(figure_id: str, layout: pn.viewable.Viewable) -> View:
    """Remember figure ``figure_id``'s controls and their current values as its defaults."""
    _VIEWS[figure_id] = View(figure_id, layout)
    return _VIEWS[figure_id]


def view(figure_id: str) -> View:
    """The tracked view of ``figure_id``."""
    if figure_id not in _VIEWS:
        raise ValueError(f"no figure {figure_id!r} on this page (tracked: {', '.join(_VIEWS)})")
    return _VIEWS[figure_id]
