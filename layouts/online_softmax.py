"""The online-softmax figure's layout: query row, tile size, the tile stepper, causal, T; the
scores by tile, the running maximum and sum, the partial output against the full one."""

import panel as pn
from bokeh.models import ColumnDataSource, FixedTicker, Span

from attention.online import EXAMPLE_T
from figurekit.drawing import ACCENT, MUTED
from figurekit.figure import Figure
from figures.online_softmax import ABOUT, EXAMPLE, FULL_COLOR, SEEN_COLOR
from layoutkit.frame import frame, pane
from layoutkit.plots import data_table, legend_above, note, plot, stacked
from layoutkit.wiring import action_button, widget, wire


def _scores_plot(bars: ColumnDataSource, cuts: ColumnDataSource, m_line: Span):
    p = plot("scores of the tiles seen, s_j = q · k_j / √d_k", height=250)
    p.vbar(x="x", top="score", width=0.75, color="color", fill_alpha="alpha",
           line_alpha="alpha", source=bars)  # fmt: skip
    p.segment(x0="x", x1="x", y0=-3.5, y1=3.5, source=cuts, line_color=MUTED,
              line_dash="dotted")  # fmt: skip
    p.add_layout(m_line)
    p.xaxis.ticker = FixedTicker(ticks=list(range(1, EXAMPLE_T + 1)))
    p.xaxis.axis_label = "key j"
    p.xgrid.visible = False
    columns = [("x", "key j", "int"), ("score", "score s_j", "num"), ("tile", "tile", "text")]
    data_table(p, bars, columns)
    return p


def _running_plot(m_src: ColumnDataSource, ell_src: ColumnDataSource, m_full: Span,
                  ell_full: Span):  # fmt: skip
    p = plot("running maximum m and sum ℓ after each tile", height=250)
    for src, color, label in ((m_src, ACCENT, "m"), (ell_src, SEEN_COLOR, "ℓ")):
        p.line(x="x", y="y", source=src, color=color, line_width=2, legend_label=label)
        p.scatter(x="x", y="y", source=src, color=color, size=8)
    p.add_layout(m_full)
    p.add_layout(ell_full)
    p.xaxis.axis_label = "tiles seen"
    p.xaxis.ticker = FixedTicker(ticks=list(range(1, EXAMPLE_T + 1)))
    legend_above(p)
    columns = [("x", "tiles seen", "int"), ("y", "running maximum m", "num")]
    data_table(p, m_src, [*columns, ("ell", "running sum ℓ", "num")])
    return p


def _output_plot(o_src: ColumnDataSource, full_src: ColumnDataSource):
    p = plot("partial output o against the full output", height=250)
    p.vbar(x="x", top="y", width=0.34, source=o_src, color=ACCENT, legend_label="partial o")
    p.vbar(x="x", top="y", width=0.34, source=full_src, color=FULL_COLOR,
           legend_label="full softmax")  # fmt: skip
    p.xaxis.ticker = FixedTicker(ticks=list(range(1, EXAMPLE[2].shape[1] + 1)))
    p.xaxis.axis_label = "component of the output"
    p.xgrid.visible = False
    legend_above(p)
    columns = [("y", "partial output o", "num"), ("full", "full softmax output", "num")]
    data_table(p, o_src, [("c", "component", "int"), *columns])
    return p


def layout(figure: Figure) -> pn.viewable.Viewable:
    """Query, tile size, the tile stepper, causal, T; scores, running state, output."""
    widgets = {key: widget(c, c.get(figure.state))[0] for key, c in figure.controls.items()}
    actions = {key: action_button(a) for key, a in figure.actions.items()}
    bars = ColumnDataSource({"x": [], "score": [], "color": [], "alpha": [], "tile": []})
    cuts = ColumnDataSource({"x": []})
    m_line = Span(dimension="width", line_dash="dashed", line_color=ACCENT, line_width=2)
    p_scores = _scores_plot(bars, cuts, m_line)
    m_src = ColumnDataSource({"x": [], "y": [], "ell": []})
    ell_src = ColumnDataSource({"x": [], "y": []})
    m_full = Span(dimension="width", line_dash="dashed", line_color=ACCENT)
    ell_full = Span(dimension="width", line_dash="dashed", line_color=SEEN_COLOR)
    p_run = _running_plot(m_src, ell_src, m_full, ell_full)
    o_src = ColumnDataSource({"x": [], "y": [], "c": [], "full": []})
    full_src = ColumnDataSource({"x": [], "y": []})
    p_out = _output_plot(o_src, full_src)
    readout, message = pane(), pane()
    handles = {
        "bars": bars,
        "cuts": cuts,
        "m_line": m_line,
        "m": m_src,
        "ell": ell_src,
        "m_full": m_full,
        "ell_full": ell_full,
        "partial": o_src,
        "full": full_src,
        "readout": readout,
        "message": message,
        "tiles_seen": widgets["tiles-seen"],
    }
    wire(figure, widgets, actions, handles)
    query, tile, tiles, causal, length = widgets.values()
    return frame(
        [query, tile, tiles, *actions.values(), causal, length],
        [p_scores, p_run, p_out],
        stacked(readout, note(ABOUT)),
        message,
    )
