"""A figure's declared controls as Panel widgets, and its drawings set on its Bokeh models.

``widget`` draws a control; ``wire`` shows the figure's first state on its models (what the
build pre-renders) and, while Panel runs the page, answers each widget change with the
figure's drawing of the new state.
"""

import weakref
from collections.abc import Mapping
from typing import NamedTuple

import panel as pn
from bokeh.models import ColumnDataSource

from figurekit.controls import (
    Action,
    Choice,
    Clicks,
    Control,
    Measure,
    Number,
    Slider,
    Switch,
    Text,
)
from figurekit.drawing import Drawing
from figurekit.figure import CONTROL, Figure
from layoutkit.plots import choice
from layoutkit.widgets import ChoiceSlider, button, buttons, switch


def widget(control: Control, value, **look) -> tuple[pn.widgets.Widget, pn.viewable.Viewable]:
    """The widget that draws ``control`` holding ``value`` (``look``: the widget's width,
    margins, styles), and what to place in the layout (the widget, or it under its name)."""
    name = control.name
    if isinstance(control, Slider):
        kind = pn.widgets.IntSlider if control.whole else pn.widgets.FloatSlider
        w = kind(name=name, start=control.start, end=control.end, step=control.step,
                 value=value, **look)  # fmt: skip
    elif isinstance(control, Number):
        kind = pn.widgets.IntInput if control.whole else pn.widgets.FloatInput
        bounds = {
            k: v for k, v in (("start", control.start), ("end", control.end)) if v is not None
        }
        w = kind(name=name, value=value, **bounds, **look)
    elif isinstance(control, Text):
        w = pn.widgets.TextInput(name=name, value=value, **look)
    elif isinstance(control, Switch):
        w = switch(name, value, **look)
    elif isinstance(control, Clicks):
        w = button(name, **look)
        w.clicks = value - control.first
    elif isinstance(control, Choice) and control.style == "labelled":
        w, placed = choice(name, control.options, value, **look)
        return w, placed
    elif isinstance(control, Choice) and control.style == "radio":
        w = pn.widgets.RadioBoxGroup(name=name, options=control.options, value=value, **look)
    elif isinstance(control, Choice) and control.style == "buttons":
        w = buttons(name, control.options, value, **look)
    elif isinstance(control, Choice) and control.style == "slider":
        w = ChoiceSlider(name=name, options=control.options, value=value, **look)
    elif isinstance(control, Choice):
        w = pn.widgets.Select(name=name, options=control.options, value=value, **look)
    else:
        raise ValueError(f"no widget for {type(control).__name__} {name!r}")
    return w, w


def action_button(action: Action, **look) -> pn.widgets.Button:
    """The push button of an action."""
    return button(action.name, **look)


def show(drawing: Drawing, handles: Mapping[str, object]) -> None:
    """Set each handle's properties in ``drawing`` on the model ``handles`` names."""
    for handle, props in drawing.items():
        target = handles[handle]
        for prop, value in props.items():
            if isinstance(target, ColumnDataSource) and prop == "data":
                if set(value) <= set(target.data):
                    target.data.update(value)
                else:
                    target.data = {**target.data, **value}
            else:
                setattr(target, prop, value)


class Wiring(NamedTuple):
    """What a layout wired: its widgets by control key, its action buttons by action key, and
    the models (or Panel panes) its figure's drawings set, by handle."""

    widgets: Mapping[str, pn.widgets.Widget]
    actions: Mapping[str, pn.widgets.Button]
    handles: Mapping[str, object]


_WIRED: "weakref.WeakKeyDictionary[Figure, Wiring]" = weakref.WeakKeyDictionary()


def wiring_of(figure: Figure) -> Wiring:
    """What ``figure``'s layout wired (``wire``)."""
    if figure not in _WIRED:
        raise ValueError(f"figure {figure.id!r}: its layout never called layoutkit.wiring.wire")
    return _WIRED[figure]


def table(figure: Figure, root) -> dict:
    """Which of the page's models is which, for the reader's worker (worker/live.py): each
    handle's model id and kind ("html": a Panel HTML pane, whose ``text`` is its escaped HTML;
    "model" otherwise), each control's model id, the property that holds its value and, for a
    choice, the property's value for each option; each action button's model id, and which of
    them measure (the page shows the figure busy while one does). ``root`` is
    the figure's root model in the page's document."""
    wiring = wiring_of(figure)

    def model_id(obj) -> str:
        if isinstance(obj, pn.viewable.Viewable):  # Panel keeps its models by root
            return obj._models[root.ref["id"]][0].id
        return obj.id

    handles = {
        handle: [model_id(obj), "html" if isinstance(obj, pn.pane.HTML) else "model"]
        for handle, obj in wiring.handles.items()
    }
    controls = {}
    for key, w in wiring.widgets.items():
        control = figure.controls[key]
        if isinstance(control, Clicks):
            controls[key] = {"id": model_id(w), "prop": "clicks"}
            continue
        [(prop, _)] = w._process_param_change({"value": control.get(figure.default)}).items()
        controls[key] = {"id": model_id(w), "prop": prop}
        if isinstance(control, Choice):
            raws = [w._process_param_change({"value": v})[prop] for v in control.values]
            controls[key]["raws"] = raws
    actions = {key: model_id(b) for key, b in wiring.actions.items()}
    measures = [key for key in wiring.actions if isinstance(figure.actions[key], Measure)]
    return {"handles": handles, "controls": controls, "actions": actions, "measures": measures}


def wire(
    figure: Figure,
    widgets: Mapping[str, pn.widgets.Widget],
    actions: Mapping[str, pn.widgets.Button],
    handles: Mapping[str, object],
) -> None:
    """Draw ``figure``'s state on ``handles`` and redraw as the reader changes ``widgets``
    (by control key) or presses ``actions`` (by action key)."""
    _WIRED[figure] = Wiring(widgets, actions, handles)
    busy = [False]  # while a drawing is set, the widgets it moves are not the reader's changes

    def apply(drawing: Drawing) -> None:
        busy[0] = True
        try:
            controls = {}
            for handle in [h for h in drawing if h.startswith(CONTROL)]:
                key = handle[len(CONTROL) :]
                value = drawing.pop(handle)["value"]
                control, w = figure.controls[key], widgets[key]
                if isinstance(control, Clicks):
                    controls[key] = (w, "clicks", value - control.first)
                else:
                    controls[key] = (w, "value", value)
            for w, attr, value in controls.values():
                setattr(w, attr, value)
            show(drawing, handles)
        finally:
            busy[0] = False

    def changed(key: str, control: Control):
        def on_change(event) -> None:
            if busy[0]:
                return
            new = getattr(event.obj, event.name)  # now: a nested change may have moved it since
            value = new + control.first if isinstance(control, Clicks) else new
            apply(figure.change(key, value))

        return on_change

    for key, w in widgets.items():
        control = figure.controls[key]
        w.param.watch(changed(key, control), "clicks" if isinstance(control, Clicks) else "value")
    for key, b in actions.items():
        b.on_click(lambda _event, key=key: apply(figure.act(key)))
    apply(figure.draw())
