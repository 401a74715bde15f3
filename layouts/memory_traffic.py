"""The memory-traffic figure's layout: length, head width and SRAM; the HBM traffic of both
algorithms against the length, and what each moves at the chosen length."""

import panel as pn
from bokeh.models import ColumnDataSource

from attention.hbm import HIERARCHY
from figurekit.figure import Figure
from figures.memory_traffic import DEFAULT, PARTS, line_columns, part_columns, point_columns
from formatting import decimal_text
from layoutkit.frame import frame, pane
from layoutkit.plots import labelled_bars, note, stacked, two_lines
from layoutkit.wiring import widget, wire


def layout(figure: Figure) -> pn.viewable.Viewable:
    """Length, width, SRAM; the traffic against the length, the parts at this length."""
    drawn = {key: widget(c, c.get(figure.state)) for key, c in figure.controls.items()}
    lines = ColumnDataSource(line_columns(DEFAULT))
    point = ColumnDataSource(point_columns(DEFAULT))
    parts = ColumnDataSource(part_columns(DEFAULT))
    line_plot = two_lines(
        "HBM traffic, one head",
        lines,
        point,
        x=("tokens", "tokens T"),
        solid=("flash", "FlashAttention (Algorithm 1)"),
        dashed=("standard", "standard (Algorithm 0)"),
        y_label="bytes read and written",
        point_y="bytes",
        formats=("int", "int"),
    )
    parts_plot = labelled_bars(
        "what each moves at this T", parts, PARTS, ("mib", "MiB"), "moved", height=220
    )
    readout, message = pane(), pane()
    sram, hbm = HIERARCHY[:2]
    about = note(
        f"<b>Memory:</b> an A100 as the FlashAttention paper's Figure 1 gives it: SRAM "
        f"{decimal_text(sram.bandwidth, 'B/s')} ({decimal_text(sram.size, 'B')} in all), HBM "
        f"{decimal_text(hbm.bandwidth, 'B/s')} ({decimal_text(hbm.size, 'B')}). "
        "<b>Counted:</b> every number one head's forward pass loads from HBM or stores to it, "
        "16 bits each, for the paper's Algorithms 0 and 1; blocks of "
        "B<sub>c</sub> = ⌈M/4d⌉ keys and B<sub>r</sub> = min(B<sub>c</sub>, d) queries. "
        "<b>Time:</b> bytes over the HBM bandwidth, a floor; the arithmetic is left out."
    )
    handles = {
        "lines": lines,
        "point": point,
        "lines.title": line_plot.title,
        "parts": parts,
        "parts.x_range": parts_plot.x_range,
        "readout": readout,
        "message": message,
    }
    wire(figure, {key: w for key, (w, _) in drawn.items()}, {}, handles)
    placed = [placed for _, placed in drawn.values()]
    return frame(placed, [line_plot, parts_plot], stacked(readout, about), message)
