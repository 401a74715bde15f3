"""The sliding-window figure's layout: T, W and L sliders; the mask, the layers needed, the
scores against T."""

import panel as pn
from bokeh.models import ColumnDataSource, HoverTool, LinearColorMapper, Range1d
from bokeh.plotting import figure

from figurekit.drawing import ACCENT, EMPTY, HIGHLIGHT, INK, MUTED
from figurekit.figure import Figure
from figures.sliding_window import DEFAULT, cells, cost_lines
from layoutkit.frame import frame, pane
from layoutkit.plots import HEAT, data_table, integer_ticker, legend_above, note, plot, stacked
from layoutkit.wiring import widget, wire


def _grid_plot(
    title: str, source: ColumnDataSource, field: str, mapper, column: tuple[str, str]
) -> figure:
    """Cells of a T x T grid at integer positions, query i down the side (row 1 on top)."""
    p = plot(title, height=300, x_axis_location="above")
    p.x_range = Range1d(0.5, DEFAULT.T + 0.5)
    p.y_range = Range1d(DEFAULT.T + 0.5, 0.5)
    fill = {"field": field, "transform": mapper}
    grid = p.rect(x="x", y="y", width=1, height=1, fill_color=fill, line_color=None, source=source)
    p.xaxis.axis_label = "key position j"
    p.yaxis.axis_label = "query position i"
    p.xaxis.ticker = integer_ticker()
    p.yaxis.ticker = integer_ticker()
    p.grid.visible = False
    tips = [("query i", "@y"), ("key j", "@x"), ("layers needed", "@needed{0}")]
    p.add_tools(HoverTool(renderers=[grid], tooltips=tips))
    cell = [("y", "query i", "int"), ("x", "key j", "int")]
    data_table(p, source, [*cell, (*column, "int")])
    return p


def layout(figure: Figure) -> pn.viewable.Viewable:
    """T, W and L sliders; the mask, the layers needed, the scores against T."""
    widgets = {key: widget(c, c.get(figure.state))[0] for key, c in figure.controls.items()}
    source = ColumnDataSource(cells(DEFAULT))
    band = LinearColorMapper(palette=[EMPTY, ACCENT], low=0, high=1)
    mask_plot = _grid_plot("the mask", source, "band", band, ("band", "kept (1) or masked (0)"))
    layers = LinearColorMapper(palette=list(HEAT), low=0, high=1, nan_color=EMPTY)
    reach_plot = _grid_plot("layers needed", source, "shade", layers, ("needed", "layers needed"))
    last_row = ColumnDataSource({"x": [], "y": [], "w": []})
    reach_plot.rect(
        x="x", y="y", width="w", height=1, source=last_row, fill_color=None,
        line_color=HIGHLIGHT, line_width=2,
    )  # fmt: skip

    lines = ColumnDataSource(cost_lines(DEFAULT))
    here = ColumnDataSource({"n": [], "y": [], "color": []})
    cost_plot = plot("scores one head computes", height=300, x_axis_type="log", y_axis_type="log")
    cost_plot.line(x="n", y="full", source=lines, color=MUTED, line_width=2, line_dash="dashed",
                   legend_label="full T² (post 2)")  # fmt: skip
    cost_plot.line(x="n", y="causal", source=lines, color=INK, line_width=2,
                   legend_label="causal T(T+1)/2")  # fmt: skip
    cost_plot.line(x="n", y="window", source=lines, color=ACCENT, line_width=2,
                   legend_label="band, window W")  # fmt: skip
    cost_plot.scatter(x="n", y="y", source=here, color="color", size=9)
    legend_above(cost_plot)
    cost_plot.xaxis.axis_label = "tokens T"
    cost_plot.yaxis.axis_label = "scores"
    columns = [("n", "tokens T", "int"), ("y", "scores", "int")]
    matrices = ["band, window W", "causal", "full"]
    data_table(cost_plot, here, columns, rows=matrices, row_header="matrix")

    readout = pane()
    message = pane()
    about = note(
        "Each query keeps its last W keys, itself included; with W ≥ T the band is the whole "
        "causal triangle. The outlined row is the last token. Counts are exact integers."
    )
    handles = {
        "mask.x_range": mask_plot.x_range,
        "mask.y_range": mask_plot.y_range,
        "mask.title": mask_plot.title,
        "reach.x_range": reach_plot.x_range,
        "reach.y_range": reach_plot.y_range,
        "reach.title": reach_plot.title,
        "reach.mapper": layers,
        "cells": source,
        "last-row": last_row,
        "lines": lines,
        "here": here,
        "readout": readout,
        "message": message,
    }
    wire(figure, widgets, {}, handles)
    return frame(
        list(widgets.values()), [mask_plot, reach_plot, cost_plot], stacked(readout, about), message
    )
