"""Pointing explains: the HTML the section 3.3 figures are drawn in (their pane and its styles
are layoutkit/pointing.py's).

A figure here is one HTML pane. Elements that explain themselves carry ``data-explain=KEY``
and ``tabindex="0"``, except in a grid (``grid``, ``grid_cell``), where one cell is the Tab
stop and the arrow keys move it; the explanation for KEY waits in a
``<template data-explanation=KEY>``; ``data-lights`` on the pointed element names the marks
to light, and every element whose ``data-marks`` shares one is lit. The site's static script
(static/explain.js) does the swapping on hover, tap and keyboard focus, from the light DOM,
so it needs no Python and keeps working when the figure goes live. The pane is drawn with one
element already pointed at, so even without the script the figure shows an explanation.
"""

from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import NamedTuple

from formatting import num

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
    """A dot product written out: one ``a × b = ab`` line per term, then the sum. The table
    only lines the terms up (role presentation): it is read line by line, as the sum is."""
    rows = "".join(
        f"<tr><td>{num(a, 2)}</td><td>×</td><td>{num(b, 2)}</td><td>=</td><td>{num(p)}</td></tr>"
        for a, b, p in zip(left, right, products, strict=True)
    )
    total_row = f'<tr class="s33-sum"><td colspan="4">sum</td><td>{num(total)}</td></tr>'
    line = " + ".join(num(p) for p in products) + f" = {num(total)}"
    return (
        f'<table class="s33-terms" role="presentation">{rows}{total_row}</table>'
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
