"""What a figure draws for a state, as plain data: ``Drawing`` maps each of the figure's
named models (its handles: ``"bars"`` a data source, ``"bars.x_range"`` a plot's range,
``"readout"`` an HTML pane) to the properties it gives them. The build sets them on the Bokeh
models it made; the reader's worker sends them to the page, which sets them on the same
models there. The helpers below make the values several figures share.
"""

from collections.abc import Sequence
from html import escape
from typing import Any

import numpy as np

# handle -> {property: value}; an HTML pane's property is "object", its HTML.
Drawing = dict[str, dict[str, Any]]

ACCENT = "#c2410c"  # the highlighted token / cell
INK = "#334155"
MUTED = "#94a3b8"
# One colour per token, the same in every panel of a figure (colour-blind-safe, Okabe-Ito).
TOKEN_COLORS = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00")
FLAG = "#b91c1c"  # a weight no probability could be
HIGHLIGHT = "#1d4ed8"  # an outline that stands out on the orange heatmap
EMPTY = "#f1f5f9"  # a cell not computed yet


def html(text: str) -> dict[str, str]:
    """An HTML pane's properties: it shows ``text``."""
    return {"object": text}


def luminance(color: str) -> float:
    """WCAG's relative luminance of a "#rrggbb" colour, 0 (black) to 1 (white)."""
    channels = [int(color[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG's contrast ratio of two "#rrggbb" colours, 1 to 21."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def text_on(fill: str) -> str:
    """White or black, whichever reads better on ``fill`` (static/scheme.js keeps the ratio
    of any two colours in the dark scheme, so the choice holds there too)."""
    return "#ffffff" if contrast("#ffffff", fill) >= contrast("#000000", fill) else "#000000"


def readout_html(items: Sequence[tuple[str, str, str]]) -> str:
    """Readout rows as a definition list; each value is tagged ``data-readout=KEY`` for tests."""
    rows = "".join(
        f'<div><dt>{escape(label)}</dt><dd data-readout="{key}">{escape(value)}</dd></div>'
        for key, label, value in items
    )
    return f'<dl class="readout">{rows}</dl>'


def readout_table_html(
    corner: str, columns: Sequence[str], rows: Sequence[tuple[str, Sequence[tuple[str, str]]]]
) -> str:
    """Readouts that compare several things by the same quantities, as a table: one row per
    thing (its name, then ``(key, value)`` per column), one column per quantity. Each value is
    tagged ``data-readout=KEY``, as ``readout_html``'s are; the table scrolls in its own box
    on a narrow screen."""
    head = "".join(f'<th scope="col">{escape(c)}</th>' for c in (corner, *columns))
    body = "".join(
        f'<tr><th scope="row">{escape(name)}</th>'
        + "".join(f'<td data-readout="{key}">{escape(value)}</td>' for key, value in cells)
        + "</tr>"
        for name, cells in rows
    )
    return (
        f'<div class="readout-table" role="region" tabindex="0" aria-label="{escape(corner)}">'
        f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
    )


def readouts_tabled(
    items: Sequence[tuple[str, str, str]],
    corner: str,
    columns: Sequence[str],
    rows: Sequence[tuple[str, Sequence[str]]],
) -> str:
    """Readouts with some of them as a table: each of ``rows`` is a row's name and the keys of
    its cells, one per column; the items the table does not show follow as a list."""
    values = {key: text for key, _, text in items}
    table = readout_table_html(
        corner, columns, [(name, [(key, values[key]) for key in keys]) for name, keys in rows]
    )
    tabled = {key for _, keys in rows for key in keys}
    return table + readout_html([item for item in items if item[0] not in tabled])


def message_html(text: str = "", kind: str = "warning") -> str:
    """A message shown on the figure (empty string hides it)."""
    if not text:
        return ""
    return f'<p class="fig-message fig-message-{kind}" role="alert">{escape(text)}</p>'


# Where a heatmap's cells take white text: from this share of the colour scale on (the 196th of
# the palette's 256 colours, pale to dark; layoutkit.plots.HEAT), black below it. Either way the
# text has AA contrast with its cell, 4.6:1 at worst, which a test checks colour by colour.
WHITE_TEXT_FROM = 196 / 256


def heatmap_data(
    values: np.ndarray,
    text: Sequence[str],
    edge: Sequence[str] | None = None,
    edge_width: Sequence[float] | None = None,
    bold: Sequence[bool] | None = None,
    low: float | None = None,
    high: float | None = None,
) -> dict:
    """The source columns for a (rows, cols) grid of ``values``, row-major like ``text``.

    NaN cells are drawn blank. ``low``/``high`` are the colour scale's ends, used here only to
    choose each cell's text colour: black on the paler part of the scale, white on the darker.
    """
    n_rows, n_cols = values.shape
    flat = values.ravel()
    finite = flat[np.isfinite(flat)]
    lo = low if low is not None else (float(finite.min()) if finite.size else 0.0)
    hi = high if high is not None else (float(finite.max()) if finite.size else 1.0)
    span = hi - lo if hi > lo else 1.0
    dark = np.isfinite(flat) & ((flat - lo) / span >= WHITE_TEXT_FROM)
    n = n_rows * n_cols
    return {
        "x": np.tile(np.arange(n_cols) + 0.5, n_rows),
        "y": np.repeat(n_rows - 0.5 - np.arange(n_rows), n_cols),
        "value": flat.astype(np.float64),
        "text": list(text),
        "text_color": ["#ffffff" if d else "#000000" for d in dark],
        "font_style": ["bold" if b else "normal" for b in (bold or [False] * n)],
        "edge": list(edge or ["#ffffff"] * n),
        "edge_width": list(edge_width or [1.0] * n),
    }


def outline(picked: Sequence[bool]) -> dict[str, list]:
    """The ``edge`` and ``edge_width`` columns of bars or cells: the picked ones outlined."""
    return {
        "edge": [ACCENT if p else "#ffffff" for p in picked],
        "edge_width": [3.0 if p else 1.0 for p in picked],
    }


def stack_bounds(parts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each part's bar segment starts and ends when parts are stacked column by column.

    parts: (n, k) -> bottom (n, k), top (n, k). Positive parts stack upward from 0 and negative
    parts downward, so segments never overlap and the two stacks' ends add up to the total.
    """
    pos = np.where(parts > 0.0, parts, 0.0)
    neg = np.where(parts < 0.0, parts, 0.0)
    pos_top, neg_top = np.cumsum(pos, axis=0), np.cumsum(neg, axis=0)
    top = np.where(parts >= 0.0, pos_top, neg_top)
    return top - parts, top


def same_column(old, new) -> bool:
    """Whether a source column is unchanged (NaN equals NaN; any doubt counts as changed)."""
    if len(old) != len(new):
        return False
    a, b = np.asarray(old), np.asarray(new)
    if a.dtype.kind in "fiub" and b.dtype.kind in "fiub":
        return bool(np.array_equal(a, b, equal_nan=True))
    return list(old) == list(new)
