"""The rotary figure's layout: positions m and n, shift s, pair i, the base; the pair's plane
and every pair's wavelength."""

import panel as pn
from bokeh.models import Arrow, ColumnDataSource, NormalHead, Span

from figurekit.drawing import ACCENT, INK, MUTED
from figurekit.figure import Figure
from figures.rotary import K_COLOR, PAIRS, Q_COLOR, SEED, D
from layoutkit.frame import frame, pane
from layoutkit.plots import data_table, note, plot, stacked
from layoutkit.wiring import widget, wire


def _plane(q_circle, k_circle, arc, arrows):
    """Pair i of the query and the key: their circles, the four arrows, the angle's arc."""
    plane = plot("pair i of the query and the key", height=320, match_aspect=True)
    plane.line(x="x", y="y", source=q_circle, color=Q_COLOR, alpha=0.3, line_dash="dotted")
    plane.line(x="x", y="y", source=k_circle, color=K_COLOR, alpha=0.3, line_dash="dotted")
    plane.arc(x="x", y="y", radius="r", start_angle="start", end_angle="end", source=arc, color=INK)
    head = NormalHead(size=9, fill_color="color", line_color="color")
    plane.add_layout(
        Arrow(
            end=head,
            x_start="x0",
            y_start="y0",
            x_end="x1",
            y_end="y1",
            line_color="color",
            line_dash="dash",
            line_width=2,
            source=arrows,
        )
    )
    plane.text(
        x="x1",
        y="y1",
        text="text",
        source=arrows,
        text_font_size="11px",
        text_color="color",
        x_offset=4,
        y_offset=-4,
    )
    plane.scatter(x=[0.0], y=[0.0], size=4, color=INK)
    plane.xaxis.axis_label = "coordinate 2i − 1"
    plane.yaxis.axis_label = "coordinate 2i"
    columns = [("px", "coordinate 2i − 1", "num"), ("py", "coordinate 2i", "num")]
    data_table(plane, arrows, [("text", "arrow", "text"), *columns])
    return plane


def _waves(chosen, other, here, context_line):
    """Every pair's tokens per full turn at the chosen base and the other, the pair chosen."""
    waves = plot(
        f"tokens per full turn, each of the {PAIRS} pairs (d = {D})", height=320, y_axis_type="log"
    )
    waves.line(x="i", y="w", source=other, color=MUTED, line_width=2)
    waves.line(x="i", y="w", source=chosen, color=INK, line_width=2)
    waves.scatter(x="i", y="w", source=here, size=11, color=ACCENT)
    waves.add_layout(context_line)
    waves.xaxis.axis_label = "pair i"
    waves.yaxis.axis_label = "tokens per turn (log)"
    data_table(waves, chosen, [("i", "pair i", "int"), ("w", "tokens per full turn", "mag")])
    return waves


def layout(figure: Figure) -> pn.viewable.Viewable:
    """Positions m, n, shift s, pair i, the base; the pair's plane, the wavelengths."""
    widgets = {key: widget(c, c.get(figure.state))[0] for key, c in figure.controls.items()}
    q_circle, k_circle = ColumnDataSource({"x": [], "y": []}), ColumnDataSource({"x": [], "y": []})
    arc = ColumnDataSource({"x": [], "y": [], "r": [], "start": [], "end": []})
    arrows = ColumnDataSource(
        {k: [] for k in ("x0", "y0", "x1", "y1", "px", "py", "color", "dash", "text")}
    )
    plane = _plane(q_circle, k_circle, arc, arrows)
    chosen, other = ColumnDataSource({"i": [], "w": []}), ColumnDataSource({"i": [], "w": []})
    here = ColumnDataSource({"i": [], "w": []})
    context_line = Span(dimension="width", location=1.0, line_dash="dashed", line_color=INK)
    waves = _waves(chosen, other, here, context_line)
    readout, message = pane(), pane()
    about = note(
        f"q and k: {D} numbers each, standard normal (numpy, seed {SEED}), standing in for one "
        "head's projected query and key. Scores are chapter 3's unscaled dot products. Solid "
        "arrows: positions m and n; dashed: both moved by s. Each arrow shows its pair's "
        "direction at a length of its own (q outside, k inside), so none hides another; the "
        "plot's data table has the pairs' coordinates. The dashed line on the right is the "
        "model's context length; the muted curve is the other base. The last digits of the "
        "difference can differ between browsers: it is rounding, and sine and cosine round "
        "differently in different maths libraries."
    )
    handles = {
        "q_circle": q_circle,
        "k_circle": k_circle,
        "arrows": arrows,
        "arc": arc,
        "chosen": chosen,
        "other": other,
        "here": here,
        "context": context_line,
        "readout": readout,
        "message": message,
    }
    wire(figure, widgets, {}, handles)
    return frame(list(widgets.values()), [plane, waves], stacked(readout, about), message)
