"""The frame every figure shares: controls on top, plots in the middle, a readout below.

The caption and the source view are added around the frame by the page template; a layout
(layouts/) places its widgets, plots and panes in the frame.
"""

from collections.abc import Sequence

import panel as pn

PLOT_STYLE = {"toolbar_location": None, "sizing_mode": "stretch_width"}

# Panel renders panes in shadow DOM, so the readout's styles travel with the pane.
PANE_CSS = """
.readout { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr));
  gap: 0.25rem 1rem; margin: 0; font: 0.85rem/1.4 system-ui, sans-serif; }
.readout dt { color: var(--muted, #64748b); font-size: 0.75rem; }
.readout dd { margin: 0; font-family: ui-monospace, "DejaVu Sans Mono", monospace;
  font-variant-numeric: tabular-nums; }
.readout-table { overflow-x: auto; margin: 0 0 0.5rem; }
.readout-table table { border-collapse: collapse; font: 0.85rem/1.4 system-ui, sans-serif; }
.readout-table th, .readout-table td { padding: 0.15rem 0 0.15rem 0.75rem; text-align: right;
  vertical-align: bottom; border-bottom: 1px solid var(--rule, #e5e7eb); }
.readout-table th:first-child { text-align: left; padding-left: 0; }
.readout-table thead th { color: var(--muted, #64748b); font-size: 0.75rem; font-weight: normal; }
.readout-table td { white-space: nowrap; font-family: ui-monospace, "DejaVu Sans Mono", monospace;
  font-variant-numeric: tabular-nums; }
.generated { margin: 0 0 0.5rem; font: 0.85rem/1.4 system-ui, sans-serif; }
.generated dt { color: var(--muted, #64748b); font-size: 0.75rem; }
.generated dd { margin: 0 0 0.25rem; font-family: ui-monospace, "DejaVu Sans Mono", monospace;
  white-space: pre-wrap; overflow-wrap: anywhere; }
.generated mark { background: light-dark(#ffedd5, #431407); color: inherit;
  border-bottom: 2px solid light-dark(#c2410c, #fb923c); }
.fig-message { margin: 0.25rem 0; padding: 0.4rem 0.6rem; border-radius: 4px;
  font: 0.85rem/1.4 system-ui, sans-serif; }
.fig-message-warning { background: light-dark(#fef3c7, #3a2a06);
  color: light-dark(#78350f, #fde68a); }
.fig-message-info { background: light-dark(#e0f2fe, #0c2d40);
  color: light-dark(#0c4a6e, #bae6fd); }
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
# Bokeh's widgets draw their tracks, handles, menus and plain buttons in fixed light colours
# inside their shadow roots, where the page's stylesheet cannot reach; Panel's own colours
# follow the page (see static/site.css). light-dark() keeps the light look unchanged.
DARK_WIDGETS = """
.noUi-target { background: light-dark(#fafafa, #2a2d34); border-color: light-dark(#d3d3d3, #4b5059);
  box-shadow: none; }
.noUi-handle { background: light-dark(#fff, #d1d5db); border-color: light-dark(#d9d9d9, #6b7280);
  box-shadow: none; }
.noUi-tooltip, .bk-menu { background: light-dark(#fff, #2a2d34); color: light-dark(#000, #e5e7eb);
  border-color: light-dark(#d9d9d9, #4b5059); }
.bk-btn-default, .bk-btn-light { background-color: light-dark(#fff, #2a2d34);
  color: light-dark(#333, #e5e7eb); border-color: light-dark(#ccc, #4b5059); }
:host(.solid) .bk-btn.bk-btn-primary { color: var(--design-primary-text-color, #fff); }
.bk-input-group > .bk-spin-wrapper input { min-height: 48px; }
.bk-input-group > .bk-spin-wrapper > .bk-spin-btn { min-height: 24px; min-width: 24px; }
.fig-input-message { margin: 2px 0 0; font: 0.75rem/1.3 system-ui, sans-serif;
  color: light-dark(#b91c1c, #fca5a5); }
.fig-input-message:empty { display: none; }
input[aria-invalid="true"] { border-color: light-dark(#b91c1c, #fca5a5); }
:host { min-width: 0; max-width: calc(100% - 20px); flex-shrink: 1; }
"""
# The two spin rules: a number box's up and down buttons are stacked halves of its height, so
# the box is 48 px high for each to be a 24 px target (WCAG 2.2's minimum, 2.5.8). The next
# three: what a number box says under it about an entry it cannot take (number-boxes.js). The
# last: a widget Panel sizes at 300 px shrinks to its row, margins included, on a 320 px screen.

# What the reader's system asks for, inside the widgets: no motion when reduced motion is asked
# for (a slider's handle glides to a click, a date menu fades in); in forced colours (Windows'
# contrast themes), which drop backgrounds and box shadows, the chosen button of a row, the filled
# part of a slider and the focus ring keep showing, in system colours.
SYSTEM_PREFERENCES = """
@media (prefers-reduced-motion: reduce) {
  *, ::before, ::after { transition: none !important; animation: none !important; }
}
@media (forced-colors: active) {
  .bk-btn.bk-active { forced-color-adjust: none; background: SelectedItem !important;
    color: SelectedItemText !important; border-color: SelectedItem !important; }
  .noUi-connect { forced-color-adjust: none; background: Highlight !important; }
  :focus-visible { outline: 2px solid Highlight !important; outline-offset: 1px; }
}
"""

# On paper a figure shows its current state; the controls that set it cannot be used there.
# (The page's own stylesheet cannot reach into Bokeh's shadow DOM, so the rule travels here.)
NOT_PRINTED = "@media print { :host(.fig-controls) { display: none !important; } }"


def pane() -> pn.pane.HTML:
    """An HTML pane for readouts and messages, styled by the site's stylesheet."""
    return pn.pane.HTML("", sizing_mode="stretch_width", margin=(4, 8), stylesheets=[PANE_CSS])


def frame(
    controls: Sequence[pn.viewable.Viewable],
    views: Sequence[pn.viewable.Viewable],
    readout: pn.pane.HTML,
    message: pn.pane.HTML,
) -> pn.Column:
    """Lay a figure out: controls, views side by side (wrapping on narrow screens), readout."""
    for control in controls:
        for widget in control.select(pn.widgets.Widget):
            widget.stylesheets = [*widget.stylesheets, DARK_WIDGETS, SYSTEM_PREFERENCES]
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
