"""The rope-scaling figure's layout: model and method; each rotary pair's period before and
after, with the trained length and the target, and how many times longer each became."""

import panel as pn
from bokeh.models import ColumnDataSource, Range1d, Span

from figurekit.drawing import ACCENT, INK, MUTED
from figurekit.figure import Figure
from figures.rope_scaling import DEFAULT, period_columns, scaling
from layoutkit.frame import frame, pane
from layoutkit.plots import data_table, legend_above, note, plot, stacked
from layoutkit.wiring import widget, wire

# How each control looks, by control key.
LOOK = {"model": {"width": 160}}


def _periods_plot(source: ColumnDataSource, pairs: int):
    p = plot("each pair's period", height=300, y_axis_type="log")
    p.line(x="pair", y="before", source=source, color=MUTED, line_width=2, line_dash="dashed",
           legend_label="as trained")  # fmt: skip
    p.line(x="pair", y="after", source=source, color=ACCENT, line_width=2,
           legend_label="stretched")  # fmt: skip
    legend_above(p)
    p.x_range = Range1d(0.5, pairs + 0.5)
    p.xaxis.axis_label = "pair i"
    p.yaxis.axis_label = "tokens per turn"
    columns = [
        ("pair", "pair i", "int"),
        ("before", "period as trained", "num"),
        ("after", "period stretched", "num"),
    ]
    data_table(p, source, columns)
    return p


def _stretch_plot(source: ColumnDataSource, pairs: int, s: float):
    p = plot("how many times longer", height=220, y_axis_type="log")
    p.scatter(x="pair", y="stretch", source=source, color=INK, size=6)
    p.x_range = Range1d(0.5, pairs + 0.5)
    p.y_range = Range1d(0.8, 1.6 * s)
    p.xaxis.axis_label = "pair i"
    p.yaxis.axis_label = "period after ÷ before"
    data_table(p, source, [("pair", "pair i", "int"), ("stretch", "times longer", "num")])
    return p


def layout(figure: Figure) -> pn.viewable.Viewable:
    """Model, method; the periods with the lengths marked, the stretch of each pair."""
    drawn = {
        key: widget(c, c.get(figure.state), **LOOK.get(key, {}))
        for key, c in figure.controls.items()
    }
    sc = scaling(DEFAULT)
    source = ColumnDataSource(period_columns(DEFAULT))
    pairs = sc.width // 2
    periods_plot = _periods_plot(source, pairs)
    stretch_plot = _stretch_plot(source, pairs, sc.factor)
    trained = Span(dimension="width", location=sc.trained, line_dash="dotted", line_color=INK)
    target = Span(dimension="width", location=sc.trained * sc.factor, line_dash="dashed",
                  line_color=ACCENT)  # fmt: skip
    periods_plot.add_layout(trained)
    periods_plot.add_layout(target)
    readout, message = pane(), pane()
    about = note(
        "<b>Lines across:</b> dotted, the length the model was trained on; dashed, s times it. A "
        "pair above the dotted line made no full turn in training. <b>Own rules:</b> Llama "
        "3.1's is YaRN's ramp over the turns a pair makes within the trained length, from its "
        "low to its high frequency factor; DeepSeek-V2's code ramps over the pair index between "
        "the same ends."
    )
    handles = {
        "periods": source,
        "trained": trained,
        "target": target,
        "periods.x_range": periods_plot.x_range,
        "stretch.x_range": stretch_plot.x_range,
        "stretch.y_range": stretch_plot.y_range,
        "readout": readout,
        "message": message,
    }
    wire(figure, {key: w for key, (w, _) in drawn.items()}, {}, handles)
    placed = [placed for _, placed in drawn.values()]
    return frame(placed, [periods_plot, stretch_plot], stacked(readout, about), message)
