"""A figure's controls, declared: which field of its ``State`` each one sets, what it offers,
and how its value reads in a link to the figure's view.

The build draws each control as a widget (``layoutkit/widgets.py``); a link writes its value
as text and reads it back (``text`` and ``parse``). Each control gets a short key, its name
slugified ("Context length T" -> ``context-length-t``); a value reads as itself for a number,
as its option's label slugified (or its number) for a choice, ``true``/``false`` for a switch,
as typed for a text box. ``parse`` refuses, with ``BadLink`` saying why, any text the control
could not hold.
"""

import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

# The longest piece of a bad value quoted in a note: a note is one line, whatever the link.
QUOTED = 40


class BadLink(ValueError):
    """A parameter that names no control, or a value its control cannot take."""


def slug(text: str) -> str:
    """``'Your x₁'`` -> ``'your-x1'``: lower case, runs of other characters one hyphen."""
    text = unicodedata.normalize("NFKC", text).lower().replace("'", "").replace("’", "")
    return re.sub(r"\W+", "-", text).strip("-")


def quoted(text: str) -> str:
    """``text`` as a note quotes it: on one line, cut to ``QUOTED`` characters."""
    text = " ".join(text.split())
    return repr(text if len(text) <= QUOTED else text[: QUOTED - 1] + "…")


def _fmt(x: float) -> str:
    """A number as short as it reads: 4096, 0.25, 1e-05."""
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(float(x))


def same(a, b) -> bool:
    """Equal, with NaN equal to NaN (a number box may hold one)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def _number(text: str, key: str, kind: type):
    try:
        return kind(text)
    except ValueError:
        raise BadLink(f"{quoted(text)} is not {'an integer' if kind is int else 'a number'} "
                      f"for '{key}'") from None  # fmt: skip


def _in_bounds(value, start, end, text: str, key: str):
    low = -math.inf if start is None else start
    high = math.inf if end is None else end
    if not low <= value <= high:
        raise BadLink(f"{quoted(text)} is outside {_fmt(low)} to {_fmt(high)} for '{key}'")
    return value


@dataclass(frozen=True)
class Control:
    """One control: the ``State`` field it sets (``at``: the place inside a field that is a
    grid of tuples) and its name as the reader sees it. How it looks is the layout's
    (``layoutkit.wiring.widget``)."""

    field: str
    name: str
    at: tuple[int, ...] = field(default=(), kw_only=True)

    @property
    def key(self) -> str:
        """The control's key in a link."""
        return slug(self.name)

    def get(self, state: tuple):
        """The control's value in ``state``."""
        value = getattr(state, self.field)
        for i in self.at:
            value = value[i]
        return value

    def put(self, state: tuple, value) -> tuple:
        """``state`` with this control's value replaced."""

        def replaced(inner, at):
            if not at:
                return value
            i = at[0]
            return (*inner[:i], replaced(inner[i], at[1:]), *inner[i + 1 :])

        return state._replace(**{self.field: replaced(getattr(state, self.field), self.at)})

    def text(self, value) -> str:
        """``value`` as it reads in a link."""
        return str(value)

    def parse(self, text: str):
        """The value ``text`` names; ``BadLink`` saying why when the control cannot take it."""
        return text


@dataclass(frozen=True)
class Text(Control):
    """A text box: the value is the text as typed."""


@dataclass(frozen=True)
class Switch(Control):
    """An on/off button."""

    def text(self, value) -> str:
        return "true" if value else "false"

    def parse(self, text: str) -> bool:
        if text not in ("true", "false"):
            raise BadLink(f"{quoted(text)} is not true or false for '{self.key}'")
        return text == "true"


@dataclass(frozen=True)
class Slider(Control):
    """A slider from ``start`` to ``end`` by ``step``; whole numbers when ``start`` is an int."""

    start: float = 0
    end: float = 1
    step: float = 1

    @property
    def whole(self) -> bool:
        return isinstance(self.start, int)

    def text(self, value) -> str:
        if self.whole:
            return str(int(value))
        return format(value, ".12g")  # the slider's arithmetic leaves noise past its steps

    def parse(self, text: str):
        value = _number(text, self.key, int if self.whole else float)
        value = _in_bounds(value, self.start, self.end, text, self.key)
        steps = (value - self.start) / self.step
        if abs(steps - round(steps)) > 1e-9:
            raise BadLink(f"{quoted(text)} is not a step of {_fmt(self.step)} from "
                          f"{_fmt(self.start)} for '{self.key}'")  # fmt: skip
        return value


@dataclass(frozen=True)
class Number(Control):
    """A number box, optionally bounded; an emptied box is ``None``, which the figure refuses
    or takes as it sees fit. ``whole``: integers only."""

    whole: bool = False
    start: float | None = None
    end: float | None = None

    def text(self, value) -> str:
        if value is None:
            return ""
        return str(int(value)) if self.whole else _fmt(value)

    def parse(self, text: str):
        if text == "":
            return None
        value = _number(text, self.key, int if self.whole else float)
        return _in_bounds(value, self.start, self.end, text, self.key)


# How a Choice is drawn: a row of buttons (its name not drawn, "labelled": drawn above it), a
# row of radio boxes, a drop-down menu, or a slider over the options.
STYLES = ("buttons", "labelled", "radio", "menu", "slider")


@dataclass(frozen=True)
class Choice(Control):
    """One of ``options`` (label -> value, or values labelled by ``str``), drawn in one of
    the ``STYLES``."""

    options: Mapping[str, Any] | Sequence = ()
    style: str = "menu"

    def __post_init__(self) -> None:
        if self.style not in STYLES:
            raise ValueError(f"a Choice is drawn as one of {', '.join(STYLES)}, not {self.style!r}")

    @property
    def labels(self) -> list[str]:
        if isinstance(self.options, Mapping):
            return list(self.options)
        return [str(v) for v in self.options]

    @property
    def values(self) -> list:
        if isinstance(self.options, Mapping):
            return list(self.options.values())
        return list(self.options)

    def _texts(self) -> dict[str, Any]:
        """Each option's text in a link -> its value."""
        numeric = (int, float)
        return {
            _fmt(v) if isinstance(v, numeric) and not isinstance(v, bool) else slug(label): v
            for label, v in zip(self.labels, self.values, strict=True)
        }

    def text(self, value) -> str:
        return next(t for t, v in self._texts().items() if same(v, value))

    def parse(self, text: str):
        texts = self._texts()
        if text in texts:
            return texts[text]
        if slug(text) in texts:
            return texts[slug(text)]
        raise BadLink(f"{quoted(text)} is not {_one_of(list(texts))} for '{self.key}'")


@dataclass(frozen=True)
class Clicks(Control):
    """A button whose click count is part of the view: the field is ``first`` plus the clicks
    (Resample: the seed it reached). A link holds the clicks."""

    first: int = 0

    def text(self, value) -> str:
        return str(value - self.first)

    def parse(self, text: str) -> int:
        clicks = _number(text, self.key, int)
        if clicks < 0:
            raise BadLink(f"'{self.key}' cannot be clicked {clicks} times")
        return self.first + clicks


def _one_of(texts: list[str]) -> str:
    """'one of a, b, c', or for a long list its ends: a note stays one short line."""
    if len(texts) <= 6:
        return f"one of {', '.join(texts)}"
    return f"one of its {len(texts)} values from {texts[0]} to {texts[-1]}"


@dataclass(frozen=True)
class Action:
    """A push button that moves the figure to another state (a preset, a step): ``move``
    takes the state shown and gives the next. Not part of a link: the state it reaches is."""

    name: str
    move: Any  # Callable[[State], State]


@dataclass(frozen=True)
class Measure:
    """A push button that measures something on the reader's own machine (how long a
    computation takes there). What it finds depends on the machine, not on the state, so it is
    never pre-rendered nor part of a link: the figure module's ``measure(state)`` gives the
    drawing of the state shown with the measurement in it, and the next change draws the state
    without one."""

    name: str
