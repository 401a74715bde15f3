"""A figure as the reader drives it: the state its controls hold, and what to redraw when one
of them changes.

A figure module declares, in numpy alone (see ``figures/__init__.py``):

- ``State``, a NamedTuple of everything the reader can set, and ``DEFAULT``, the state the
  page shows first;
- ``CONTROLS``, the ``figurekit.controls.Control`` that sets each field, and optionally
  ``ACTIONS``, buttons that move the state (a preset, a step);
- optionally ``MEASURES``, buttons that time something on the reader's machine, and
  ``measure(state) -> Drawing``, the drawing with that measurement in it;
- ``draw(state) -> Drawing``, what every named model of the figure shows in that state; it
  raises ``ValueError`` for a state it cannot draw, and the figure keeps its last drawing and
  shows why (worded by the module's ``explain(err)`` if it has one);
- optionally ``react(state, key) -> State``: what else changes when the reader sets control
  ``key`` (a preset picker loads its settings), and ``drawable(typed, shown) -> State``
  with ``message(typed) -> str``: the state drawn when part of what the reader typed cannot
  be (the rest is drawn; the message says what is wrong).

``Figure`` runs those the same way at build time and in the reader's worker, and answers each
change with only the properties that changed since it last drew.
"""

from collections.abc import Mapping
from types import ModuleType
from typing import Any

from figurekit.controls import Action, BadLink, Control, Measure, same, slug
from figurekit.drawing import Drawing, html, message_html, same_column

# The handle of a control's own value in a drawing: "control:<key>" -> {"value": value}.
CONTROL = "control:"
MESSAGE = "message"


def _clause(sentence: str) -> str:
    """A figure's message as part of a note: 'Every x needs a value.' -> 'every x needs a value'."""
    return sentence[:1].lower() + sentence[1:].rstrip(".")


def _changed(old: Any, new: Any) -> bool:
    if isinstance(new, Mapping) or isinstance(old, Mapping):
        return True  # a data source's columns are compared one by one, below
    try:
        return not same_column(old, new) if isinstance(new, (list, tuple)) else not same(old, new)
    except (TypeError, ValueError):
        return True


class Figure:
    """Figure ``figure_id`` (its module ``mod``): the state its controls hold, and its drawing."""

    def __init__(self, figure_id: str, mod: ModuleType) -> None:
        self.id, self.mod = figure_id, mod
        self.controls: dict[str, Control] = {}
        for control in mod.CONTROLS:
            if other := self.controls.get(control.key):
                raise ValueError(
                    f"figure {figure_id!r}: controls {other.name!r} and {control.name!r} both "
                    f"link as '{control.key}'; rename one so that each has its own URL key"
                )
            self.controls[control.key] = control
        buttons = (*getattr(mod, "ACTIONS", ()), *getattr(mod, "MEASURES", ()))
        self.actions: dict[str, Action | Measure] = {slug(a.name): a for a in buttons}
        if getattr(mod, "MEASURES", ()) and not hasattr(mod, "measure"):
            raise ValueError(
                f"figure {figure_id!r} declares MEASURES but no measure(state): define what "
                "the figure shows once a measurement is taken"
            )
        self.default = mod.DEFAULT
        self.state = self.shown = mod.DEFAULT  # what the controls hold; what was drawn
        self.refused = ""  # why the state the controls hold could not be drawn, or ''
        self.sent: Drawing = {}  # every handle's properties as last drawn

    # -- what the reader does

    def change(self, key: str, value: Any) -> Drawing:
        """The reader set control ``key`` to ``value``: what changes on the figure."""
        state = self.controls[key].put(self.state, value)
        react = getattr(self.mod, "react", None)
        return self._show(react(state, key) if react else state)

    def act(self, key: str) -> Drawing:
        """The reader pressed action button ``key`` (its name slugified)."""
        action = self.actions[key]
        if isinstance(action, Measure):
            return self._measure(action)
        return self._show(action.move(self.state))

    def reset(self) -> Drawing:
        """Back to the figure's defaults."""
        return self._show(self.default)

    def _measure(self, action: Measure) -> Drawing:
        """The measurement of the state shown; a message instead if the controls hold a state
        the figure refused, or the measurement could not be taken."""
        if self.refused:
            why = f"{action.name} needs a state the figure can draw. {self.refused}"
            return self._since_sent({MESSAGE: html(message_html(why))})
        try:
            drawing = self.mod.measure(self.shown)
        except ValueError as err:
            return self._since_sent({MESSAGE: html(message_html(self._explain(err)))})
        return self._since_sent(drawing | {MESSAGE: html("")})

    # -- links to a view (the page prefixes each key with the figure's id)

    def link(self) -> dict[str, str]:
        """The controls that differ from their defaults, as link key -> text."""
        return {
            key: c.text(c.get(self.state))
            for key, c in self.controls.items()
            if not same(c.get(self.state), c.get(self.default))
        }

    def follow(self, params: Mapping[str, str]) -> tuple[Drawing, str]:
        """Show the view ``params`` describe: what changes, and '' or the one-line note saying
        why the figure shows its defaults instead (every parameter is checked before any is
        used, and a state the figure refuses to draw is a bad link too)."""
        try:
            state = self.default
            for key, text in params.items():
                if key not in self.controls:
                    raise BadLink(f"no control {key!r} on this figure")
                state = self.controls[key].put(state, self.controls[key].parse(text))
            drawing = self._show(state)
            if self.refused:
                raise BadLink(f"the figure cannot show it: {_clause(self.refused)}")
        except Exception as err:  # whatever a link holds, the reader gets a figure
            why = err if isinstance(err, BadLink) else f"{type(err).__name__}: {err}"
            return (
                self.reset(),
                f"This link's view could not be restored ({why}); showing the defaults.",
            )
        return drawing, ""

    # -- drawing

    def draw(self) -> Drawing:
        """Everything the figure shows in its current state (the first drawing)."""
        self.sent = {}
        return self._show(self.state)

    def _show(self, state: tuple) -> Drawing:
        self.state = state
        drawing: Drawing = {
            CONTROL + key: {"value": c.get(state)} for key, c in self.controls.items()
        }
        drawable = getattr(self.mod, "drawable", None)
        target = drawable(state, self.shown) if drawable else state
        try:
            drawing |= self.mod.draw(target)
        except ValueError as err:
            self.refused = self._explain(err)
            drawing[MESSAGE] = html(message_html(self.refused))
        else:
            self.refused, self.shown = "", target
            if drawable:
                drawing[MESSAGE] = html(message_html(self.mod.message(state)))
            drawing.setdefault(MESSAGE, html(""))
        return self._since_sent(drawing)

    def _explain(self, err: ValueError) -> str:
        """Why the figure could not do it, as the figure module words the core's error."""
        return getattr(self.mod, "explain", str)(err)

    def _since_sent(self, drawing: Drawing) -> Drawing:
        """The part of ``drawing`` that differs from what was last drawn; remembers it all."""
        changes: Drawing = {}
        for handle, props in drawing.items():
            before = self.sent.setdefault(handle, {})
            for prop, value in props.items():
                if prop == "data" and isinstance(before.get("data"), Mapping):
                    old = before["data"]
                    if set(old) == set(value):
                        columns = {k: v for k, v in value.items() if _changed_column(old[k], v)}
                        if columns:
                            changes.setdefault(handle, {})["data"] = columns
                            old.update(columns)
                        continue
                if prop not in before or _changed(before[prop], value):
                    changes.setdefault(handle, {})[prop] = value
                    before[prop] = dict(value) if isinstance(value, Mapping) else value
        return changes


def _changed_column(old, new) -> bool:
    try:
        return not same_column(old, new)
    except (TypeError, ValueError):
        return True
