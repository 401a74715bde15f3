"""Widgets the layouts share: buttons whose focus shows, a switch whose state shows, a slider
over chosen values, a token picker.

The slider picks one of a few values (key widths, context lengths) and shows the chosen one.

Panel's DiscreteSlider draws its value in a separate text model, which a JavaScript link
rewrites as the handle moves; every rewrite makes Bokeh lay out the whole figure again, on
the page's main thread, while the reader waits for the figure.
Bokeh's own CategoricalSlider shows the value in its title, as every other slider does.
"""

from typing import ClassVar

import panel as pn
import param
from bokeh.models import CategoricalSlider

from attention.fixtures import TOKENS

# Panel's buttons show keyboard focus as a faint 1px dotted grey line.
FOCUS_CSS = """
.bk-btn:focus-visible { outline: 2px solid light-dark(#1d4ed8, #93c5fd); outline-offset: 2px; }
"""

# Panel draws an on and an off Toggle in the same solid colour; off is an outline here.
SWITCH_CSS = """
:host(.solid) .bk-btn.bk-btn-primary:not(.bk-active) {
  background-color: transparent; color: var(--primary-color);
  border: 1px solid var(--primary-color);
}
"""


def switch(name: str, value: bool, **kwargs) -> pn.widgets.Toggle:
    """An on/off button: filled while on, outlined while off."""
    return pn.widgets.Toggle(
        name=name,
        value=value,
        button_type="primary",
        stylesheets=[SWITCH_CSS, FOCUS_CSS],
        **kwargs,
    )


# A row of buttons wraps on a phone rather than pushing the page sideways.
WRAP_BUTTONS = ".bk-btn-group { flex-wrap: wrap; }"


# Bokeh draws no name for a row of buttons: a tag on its model carries the widget's name.
NAME_TAG = "name:"


def buttons(name: str, options, value, **kwargs) -> pn.widgets.RadioButtonGroup:
    """A row of buttons picking one of ``options`` (labels, or label -> value), focus shown.

    Bare: no name is drawn above it. ``plots.choice`` adds one; post 2's groups go without,
    since every pane adds to the page's memory snapshot and post 2's first load sits at the
    byte budget (tests/site/test_budget_browser.py), so their options name themselves.
    """
    return pn.widgets.RadioButtonGroup(
        name=name,
        options=options,
        value=value,
        stylesheets=[FOCUS_CSS, WRAP_BUTTONS],
        tags=[f"{NAME_TAG}{name}"],  # the group's name for a screen reader (static/a11y.js)
        **kwargs,
    )


def button(name: str, **kwargs) -> pn.widgets.Button:
    """A push button (Resample, a preset) whose keyboard focus can be seen."""
    return pn.widgets.Button(name=name, button_type="default", stylesheets=[FOCUS_CSS], **kwargs)


class ChoiceSlider(pn.widgets.Widget):
    """Pick one of ``options`` (a list of values, or a dict of label -> value) by sliding.

    ``value`` is the chosen value itself; the page sees its label (``str(value)`` for a list).
    """

    options = param.ClassSelector(
        class_=(list, dict), default=[], constant=True, doc="The values, in order."
    )
    # Refuses anything but an option once __init__ has given it the objects.
    value = param.Selector(
        objects=[], check_on_set=True, allow_None=True, doc="The chosen value: one of the options."
    )

    # BokehJS's slider tooltip looks the label up by the handle's position as a float, which
    # lands a hair off an index at some positions and reads "undefined"; the title shows the
    # chosen label, so the tooltip is off.
    tooltips = param.Boolean(default=False, constant=True, doc="Whether the handle has a tooltip.")

    _widget_type: ClassVar[type] = CategoricalSlider
    _rename: ClassVar[dict[str, str]] = {"name": "title", "options": "categories"}

    def __init__(self, **params) -> None:
        value = params.pop("value", None)
        super().__init__(**params)
        self.param.value.objects = self.values
        self.param.value.allow_None = False
        self.value = self.values[0] if value is None else value

    @property
    def labels(self) -> list[str]:
        if isinstance(self.options, dict):
            return list(self.options)
        return [str(v) for v in self.options]

    @property
    def values(self) -> list:
        return list(self.options.values()) if isinstance(self.options, dict) else list(self.options)

    def _process_param_change(self, params: dict) -> dict:
        params = super()._process_param_change(params)
        if "categories" in params:
            params["categories"] = self.labels
        if "value" in params:
            params["value"] = self.labels[self.values.index(params["value"])]
        return params

    def _process_property_change(self, msg: dict) -> dict:
        msg = super()._process_property_change(msg)
        if "value" in msg:
            msg["value"] = self.values[self.labels.index(msg["value"])]
        return msg


def token_picker(name: str = "Query token", value: str = TOKENS[1], **kwargs) -> pn.widgets.Select:
    """A drop-down of the book's six tokens, narrow by default since every token is short."""
    kwargs.setdefault("width", 160)
    return pn.widgets.Select(name=name, options=list(TOKENS), value=value, **kwargs)
