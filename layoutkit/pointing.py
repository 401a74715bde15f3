"""The frame of a section 3.3 figure: its one control over one pointing picture, an HTML pane
styled here (the picture's HTML is figurekit/pointing.py's), with a readout below.
"""

import panel as pn

from figurekit.figure import Figure
from layoutkit.frame import frame, pane
from layoutkit.wiring import wire

EXPLAIN_CSS = """
.s33 { font: 0.85rem/1.45 system-ui, sans-serif; color: var(--ink, #1f2937); }
.s33-row { display: flex; flex-wrap: wrap; gap: 0.75rem; align-items: flex-start; }
.s33-block { min-width: 0; max-width: 100%; overflow-x: auto; }
.s33-label { margin: 0 0 0.2rem; font-size: 0.75rem; font-weight: 600;
  color: var(--ink-soft, #374151); }
.s33-op { align-self: center; font-size: 1.3rem; line-height: 1; color: var(--muted, #64748b); }
.s33 table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
.s33 td { padding: 0.15rem 0.25rem; text-align: right; white-space: nowrap;
  font: 0.78rem/1.4 ui-monospace, "DejaVu Sans Mono", Menlo, monospace; }
.s33 th { padding: 0.1rem 0.25rem; font-size: 0.72rem; font-weight: 600;
  color: var(--muted, #64748b);
  text-align: right; white-space: nowrap; }
.s33 tr.s33-result td { border-top: 2px solid var(--rule, #cbd5e1); font-weight: 600; }
.s33 [data-explain] { cursor: pointer; border-radius: 3px; }
/* the pointed cell keeps its own colours */
.s33 [data-explain]:not(.is-pointed):hover { background: light-dark(#fde7d6, #4a2a17); }
.s33 [data-explain]:focus { outline: none; }
.s33 [data-explain]:focus-visible { outline: 2px solid var(--accent, #c2410c);
  outline-offset: 1px; }
.s33 .is-lit, .s33 .is-lit td { background: light-dark(#ffedd5, #3b2415); }
.s33 .is-lit th, .s33 th.is-lit { color: var(--ink-soft, #374151); }
/* 5.2:1, the same in both schemes */
.s33 .is-pointed, .s33 tr.is-pointed td { background: #c2410c; color: #fff; }
.s33 .is-pointed th { color: #fff; }
.s33-out { margin-top: 0.6rem; padding: 0.5rem 0.75rem;
  border-left: 3px solid var(--accent, #c2410c);
  background: light-dark(#fff7ed, #2a1d14); min-height: 6.5rem; overflow-x: auto; }
.s33-out p { margin: 0 0 0.3rem; }
.s33-out th { text-align: left; font-weight: 500; color: var(--ink-soft, #374151); }
.s33-out table td { padding: 0 0.3rem; }
.s33-out .s33-sum td { border-top: 1px solid var(--muted, #94a3b8); font-weight: 600; }
.s33-out .s33-line { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, monospace;
  font-size: 0.8rem; overflow-wrap: anywhere; }
.s33-chart { flex: 1 1 15rem; min-width: 0; }
.s33-bar { display: grid; grid-template-columns: 4.2rem 1fr 3.6rem; align-items: center;
  gap: 0.4rem; padding: 0.1rem 0.25rem; }
.s33-bar svg { width: 100%; height: 0.9rem; display: block; }
.s33-bar rect { fill: var(--muted, #94a3b8); }
.s33-bar.is-lit rect { fill: #c2410c; }
.s33-bar.is-pointed rect { fill: #fff; }
.s33-bar .s33-tok { font-size: 0.8rem; }
.s33-bar .s33-val { font: 0.8rem ui-monospace, "DejaVu Sans Mono", Menlo, monospace;
  text-align: right; }
.s33-hint { margin: 0.35rem 0 0; font-size: 0.75rem; color: var(--muted, #64748b); }
.s33-rebuild { display: grid; grid-template-columns: 3.6rem max-content max-content;
  gap: 0 0.5rem; font: 0.78rem/1.5 ui-monospace, "DejaVu Sans Mono", Menlo, monospace;
  white-space: nowrap; }
.s33-rb { display: contents; }
.s33-rb > span:first-child { font: 0.75rem/1.6 system-ui, sans-serif;
  color: var(--ink-soft, #374151); }
.s33-rb-sum > span { border-top: 1px solid var(--muted, #94a3b8); font-weight: 600; }
.s33-out th { white-space: normal; }
@media (max-width: 480px) {
  .s33 td { padding: 0.12rem 0.14rem; font-size: 0.7rem; }
  .s33 th { padding: 0.1rem 0.14rem; font-size: 0.64rem; }
  .s33-out { padding: 0.4rem 0.5rem; }
  .s33-rebuild { grid-template-columns: 3.2rem max-content; }
  .s33-rb-sum > span:nth-child(2) { display: none; }
  .s33-rb > span:last-child { grid-column: 2; }
}
"""

# The token menu at a Select's own width (wider than widgets.token_picker's).
TOKEN_MENU = {"width": 300}


def explain_pane() -> pn.pane.HTML:
    """The HTML pane a pointing figure draws into."""
    return pn.pane.HTML("", sizing_mode="stretch_width", margin=(4, 8), stylesheets=[EXPLAIN_CSS])


def pointing_frame(figure: Figure, control: pn.widgets.Widget) -> pn.Column:
    """``figure``'s one ``control`` over its pointing picture (handle ``"picture"``), with its
    readout below: the four figures differ only in their control and their drawing."""
    (key,) = figure.controls
    shown = explain_pane()
    readout, message = pane(), pane()
    handles = {"picture": shown, "readout": readout, "message": message}
    wire(figure, {key: control}, {}, handles)
    return frame([control], [shown], readout, message)
