"""The frame every figure shares: controls on top, plots in the middle, a readout below.

The caption and the source view are added around the frame by the page template, so a
figure module only builds its widgets, its plots and one draw function, which ``recompute``
calls whenever a control changes.
"""

import weakref
from collections.abc import Callable, Iterable, Sequence
from html import escape

import panel as pn

PLOT_STYLE = {"toolbar_location": None, "sizing_mode": "stretch_width"}
ACCENT = "#c2410c"  # the highlighted token / cell
INK = "#334155"
MUTED = "#94a3b8"

# Panel renders panes in shadow DOM, so the readout's styles travel with the pane.
PANE_CSS = """
.readout { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr));
  gap: 0.25rem 1rem; margin: 0; font: 0.85rem/1.4 system-ui, sans-serif; }
.readout dt { color: #64748b; font-size: 0.75rem; }
.readout dd { margin: 0; font-family: ui-monospace, "DejaVu Sans Mono", monospace;
  font-variant-numeric: tabular-nums; }
.fig-message { margin: 0.25rem 0; padding: 0.4rem 0.6rem; border-radius: 4px;
  font: 0.85rem/1.4 system-ui, sans-serif; }
.fig-message-warning { background: #fef3c7; color: #78350f; }
.fig-message-info { background: #e0f2fe; color: #0c4a6e; }
"""

# A widget's label kept for screen readers but not drawn (for grids of inputs whose row and
# column headers already say what each one is).
VISUALLY_HIDDEN_LABEL = """
label { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
"""

# Rows that wrap on narrow screens. Bokeh gives a row the summed minimum width of its
# children, which would stop the wrap, so that minimum is lifted. (Panel's FlexBox wraps
# too, but it compiles its template with `new Function`, which the site's CSP forbids.)
WRAP = ":host { flex-wrap: wrap; min-width: 0 !important; }"
NO_MIN_WIDTH = ":host { min-width: 0 !important; }"
# On paper a figure shows its current state; the controls that set it cannot be used there.
# (The page's own stylesheet cannot reach into Bokeh's shadow DOM, so the rule travels here.)
NOT_PRINTED = "@media print { :host(.fig-controls) { display: none !important; } }"


def readout_html(items: Sequence[tuple[str, str, str]]) -> str:
    """Readout rows as a definition list; each value is tagged ``data-readout=KEY`` for tests."""
    rows = "".join(
        f'<div><dt>{escape(label)}</dt><dd data-readout="{key}">{escape(value)}</dd></div>'
        for key, label, value in items
    )
    return f'<dl class="readout">{rows}</dl>'


def message_html(text: str = "", kind: str = "warning") -> str:
    """A message shown on the figure (empty string hides it)."""
    if not text:
        return ""
    return f'<p class="fig-message fig-message-{kind}" role="alert">{escape(text)}</p>'


# Message pane -> the error its figure's last draw raised ("" when it drew). A link to a view
# (figures/viewstate.py) asks, after setting the controls, whether the figure could draw them.
_REFUSED: "weakref.WeakKeyDictionary[pn.pane.HTML, str]" = weakref.WeakKeyDictionary()


def refusal(message: pn.pane.HTML) -> str:
    """Why the figure showing ``message`` could not draw its current state, or ''."""
    return _REFUSED.get(message, "")


def pane() -> pn.pane.HTML:
    """An HTML pane for readouts and messages, styled by the site's stylesheet."""
    return pn.pane.HTML("", sizing_mode="stretch_width", margin=(4, 8), stylesheets=[PANE_CSS])


def recompute(
    widgets: Iterable[pn.widgets.Widget],
    message: pn.pane.HTML,
    draw: Callable[[], str | None],
    explain: Callable[[ValueError], str] = str,
) -> Callable[..., None]:
    """Call ``draw()`` now and whenever one of ``widgets`` changes value; return that redraw.

    Every figure needs the same wiring, so it is written once: the core raises ``ValueError``
    for a state it cannot compute, and the figure shows the error as its warning message
    (worded by ``explain``) instead of raising; a ``draw`` that computes before it writes
    leaves its last drawing on screen. A state that draws shows the message HTML ``draw``
    returns (a note such as an info message), or none. The returned redraw is for controls
    that change no value, such as buttons.
    """

    def redraw(*_events) -> None:
        try:
            note = draw()
        except ValueError as err:
            _REFUSED[message] = explain(err)
            message.object = message_html(explain(err))
            return
        _REFUSED[message] = ""
        message.object = note or ""

    for widget in widgets:
        widget.param.watch(redraw, "value")
    redraw()
    return redraw


def frame(
    controls: Sequence[pn.viewable.Viewable],
    views: Sequence[pn.viewable.Viewable],
    readout: pn.pane.HTML,
    message: pn.pane.HTML,
) -> pn.Column:
    """Lay a figure out: controls, views side by side (wrapping on narrow screens), readout."""
    return pn.Column(
        pn.Row(
            *controls,
            sizing_mode="stretch_width",
            css_classes=["fig-controls"],
            stylesheets=[WRAP, NOT_PRINTED],
        ),
        message,
        pn.Row(*views, sizing_mode="stretch_width", stylesheets=[WRAP]),
        readout,
        sizing_mode="stretch_width",
        stylesheets=[NO_MIN_WIDTH],
    )
