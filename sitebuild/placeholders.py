"""The room a figure takes before it is drawn. A page draws a figure as the reader nears it
(static/page/drawing.js); until then its slot is a placeholder as tall as what the drawing
adds at the reader's width (the plots and controls, and the "Data" disclosure after them), so
that nothing moves when it is drawn, even after a jump down the page.

The heights are measured in Chromium at a ladder of screen widths (``python -m harness.heights``
writes HEIGHTS; a browser test fails when a figure's drawing and the table part). Between two
measured widths a slot takes the height measured at the narrower one.
"""

import json
from pathlib import Path

HEIGHTS = Path(__file__).with_name("figure_heights.json")


def load() -> dict:
    """{"widths": [px, ...], "heights": {figure id: [px at each width]}}."""
    return json.loads(HEIGHTS.read_text())


def css(figure_ids: list[str], table: dict | None = None) -> str:
    """The page's placeholder rules: each slot not drawn yet at its figure's height, by width.
    A figure the table lacks keeps the stylesheet's small placeholder (the heights test says
    which to measure)."""
    table = table or load()
    widths, heights = table["widths"], table["heights"]
    rules: list[str] = []
    for i, width in enumerate(widths):
        lines = [
            f"figure:not([data-drawn]) > #fig-{fid} {{ height: {heights[fid][i]}px; }}"
            for fid in figure_ids
            if fid in heights and (i == 0 or heights[fid][i] != heights[fid][i - 1])
        ]
        if not lines:
            continue
        body = "\n".join(lines)
        rules.append(body if i == 0 else f"@media (min-width: {width}px) {{\n{body}\n}}")
    return "\n".join(rules)
