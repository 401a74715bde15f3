"""Pointing explains: the HTML the section 3.3 figures are drawn in.

A figure here is one HTML pane. Elements that explain themselves carry ``data-explain=KEY``
and ``tabindex="0"``, except in a grid (``grid``, ``grid_cell``), where one cell is the Tab
stop and the arrow keys move it; the explanation for KEY waits in a
``<template data-explanation=KEY>``; ``data-lights`` on the pointed element names the marks
to light, and every element whose ``data-marks`` shares one is lit. The site's static script
(static/explain.js) does the swapping on hover, tap and keyboard focus, from the light DOM,
so it needs no Python and keeps working when the figure goes live. The pane is drawn with one
element already pointed at, so even without the script the figure shows an explanation.
"""

from collections.abc import Callable, Iterable, Mapping, Sequence
from html import escape
from typing import Any, NamedTuple

import panel as pn

from figures.frame import frame, pane, readout_html, recompute
from figures.widgets import token_picker
from formatting import num

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

# Where a table's column and row headers meet, the empty cell heads nothing, so it is a data
# cell: an empty header cell would give a screen reader a header without a name.
CORNER = "<td></td>"

_SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
_SUP = str.maketrans("0123456789()", "⁰¹²³⁴⁵⁶⁷⁸⁹⁽⁾")


def sub(text: object) -> str:
    """Digits as subscripts: ``sub(21)`` -> ``₂₁``."""
    return str(text).translate(_SUB)


def token_vector(k: int, letter: str = "x") -> str:
    """The book's name for token k's vector (counting from 1): ``x⁽²⁾``, or ``z⁽²⁾``."""
    return letter + f"({k})".translate(_SUP)


class Pointed(NamedTuple):
    """What the figure shows before anyone points: one key and the marks it lights."""

    key: str
    lights: frozenset[str]


def element(
    tag: str,
    content: str,
    state: Pointed,
    *,
    key: str | None = None,
    lights: Iterable[str] = (),
    marks: Iterable[str] = (),
    attrs: Mapping[str, str] | None = None,
    stop: bool = True,
) -> str:
    """One element of a figure: pointable when ``key`` is given, lightable when ``marks`` are.

    ``content`` is HTML (escape text before passing it); ``attrs`` are escaped here. A
    pointable element is a Tab stop unless ``stop`` is false (a grid's other cells).
    """
    marks = tuple(marks)
    attributes = dict(attrs or {})
    classes = [attributes.pop("class")] if "class" in attributes else []
    if key is not None:
        attributes |= {
            "tabindex": "0" if stop else "-1",
            "data-explain": key,
            "data-lights": " ".join(lights),
        }
        if key == state.key:
            classes.append("is-pointed")
    if marks:
        attributes["data-marks"] = " ".join(marks)
        if state.lights.intersection(marks):
            classes.append("is-lit")
    if classes:
        attributes["class"] = " ".join(classes)
    text = "".join(f' {name}="{escape(value)}"' for name, value in attributes.items())
    return f"<{tag}{text}>{content}</{tag}>"


def grid(label: str, rows: str) -> str:
    """A table of pointable cells as an ARIA grid: one Tab stop, arrow keys between its cells
    (static/explain.js), and a screen reader that hands those keys to the page."""
    return f'<table role="grid" aria-label="{escape(label)}">{rows}</table>'


def grid_cell(
    value: str,
    state: Pointed,
    *,
    key: str,
    row: str,
    column: str,
    lights: Iterable[str] = (),
    marks: Iterable[str] = (),
    attrs: Mapping[str, str] | None = None,
) -> str:
    """A pointable cell of a ``grid``, showing the text ``value``.

    Its name says what it means ("row journey, column starts: 1.4754"), from the same text
    it shows, since the headers alone do not read out as one phrase. Only the pointed cell
    is a Tab stop: the grid is drawn with one, and the script moves it.
    """
    return element(
        "td",
        escape(value),
        state,
        key=key,
        lights=lights,
        marks=marks,
        attrs={**(attrs or {}), "aria-label": f"row {row}, column {column}: {value}"},
        stop=key == state.key,
    )


def terms_table(left: Sequence[float], right: Sequence[float], products, total: float) -> str:
    """A dot product written out: one ``a × b = ab`` line per term, then the sum."""
    rows = "".join(
        f"<tr><td>{num(a, 2)}</td><td>×</td><td>{num(b, 2)}</td><td>=</td><td>{num(p)}</td></tr>"
        for a, b, p in zip(left, right, products, strict=True)
    )
    total_row = f'<tr class="s33-sum"><td colspan="4">sum</td><td>{num(total)}</td></tr>'
    line = " + ".join(num(p) for p in products) + f" = {num(total)}"
    return (
        f'<table class="s33-terms">{rows}{total_row}</table>'
        f'<p class="s33-line" data-sum-line>{escape(line)}</p>'
    )


def scope(body: str, explanations: Mapping[str, str], state: Pointed, label: str) -> str:
    """Wrap a figure's body with its explanations and the box that shows the pointed one."""
    templates = "".join(
        f'<template data-explanation="{escape(key)}">{html}</template>'
        for key, html in explanations.items()
    )
    return (
        f'<div class="s33" data-explain-scope>{body}'
        f'<p class="s33-hint">{escape(label)}</p>'
        f'<div class="s33-out" data-explain-out data-showing="{escape(state.key)}" '
        f'aria-live="polite">{explanations[state.key]}</div>{templates}</div>'
    )


def explain_pane() -> pn.pane.HTML:
    """The HTML pane a pointing figure draws into."""
    return pn.pane.HTML("", sizing_mode="stretch_width", margin=(4, 8), stylesheets=[EXPLAIN_CSS])


def token_control(name: str) -> pn.widgets.Select:
    """A picker of the book's six tokens, at a Select's own width (wider than token_picker's)."""
    return token_picker(name, width=300)


def pointing_figure(
    control: pn.widgets.Widget,
    picture: Callable[[Any], str],
    readouts: Callable[[Any], Sequence[tuple[str, str, str]]],
) -> pn.Column:
    """A section 3.3 figure: one control over one pointing picture, with a readout below.

    ``picture`` (the pane's HTML) and ``readouts`` (the rows for ``readout_html``) are pure
    functions of the control's value, so the four figures differ only in those and the control.
    """
    shown = explain_pane()
    readout, message = pane(), pane()

    def draw() -> None:
        shown.object = picture(control.value)
        readout.object = readout_html(readouts(control.value))

    recompute([control], message, draw)
    return frame([control], [shown], readout, message)
