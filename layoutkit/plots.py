"""Plot builders several figures share: bar charts, a labelled heatmap, notes, stacking.

Each builder makes a Bokeh figure once and returns it with the ColumnDataSource the figure's
draw function refills (with ``refill``). Nothing here computes attention; that all comes
from ``attention/``.
"""

import json
from collections.abc import Mapping, Sequence

import numpy as np
import panel as pn
from bokeh.models import (
    BasicTicker,
    ColumnDataSource,
    FixedTicker,
    HoverTool,
    LinearColorMapper,
    Range1d,
)
from bokeh.palettes import Oranges256
from bokeh.plotting import figure

from figurekit.drawing import (  # noqa: F401 (the figures not yet declared import them here)
    ACCENT,
    EMPTY,
    FLAG,
    HIGHLIGHT,
    INK,
    MUTED,
    TOKEN_COLORS,
    heatmap_data,
    outline,
    same_column,
    stack_bounds,
)
from layoutkit.frame import PANE_CSS, PLOT_STYLE
from layoutkit.widgets import buttons

HEAT = tuple(reversed(Oranges256))  # light for small values, dark for large
MIN_PLOT_WIDTH = 260  # narrower than this, the plots wrap onto their own rows

LABEL_CSS = """
.fig-label { font: 0.8rem/1.2 system-ui, sans-serif; color: var(--ink, #1f2937); }
"""

NOTE_CSS = """
.fig-note { margin: 0.25rem 0; font: 0.8rem/1.45 system-ui, sans-serif;
  color: var(--ink-soft, #374151); }
.fig-note b { color: var(--ink, #1f2937); }
"""


# A plot's data, for the table that stands in for it with a screen reader: a tag on the Bokeh
# figure (a plain string, so the pre-render and the live figure carry the same one) that
# static/plot-tables.js reads to draw the table beside the figure and redraw it as the source
# changes.
DATA_TAG = "data-table:"
# How a column's numbers print, by the rules of formatting/ (plot-tables.js has them in JS):
# "num" num(), "int" integer(), "mag" magnitude_text(); "text" as it is.
FORMATS = ("text", "num", "int", "mag")


def _tag_data(p: figure, source: ColumnDataSource, spec: dict) -> None:
    """Tag plot ``p`` with ``spec``: which of its renderers' source holds the table's data."""
    at = next((i for i, r in enumerate(p.renderers) if r.data_source is source), None)
    if at is None:
        raise ValueError(f"plot {p.title.text!r} draws nothing from the table's source")
    text = json.dumps({"renderer": at, **spec}, ensure_ascii=False, separators=(",", ":"))
    p.tags = [t for t in p.tags if not str(t).startswith(DATA_TAG)] + [DATA_TAG + text]


def data_table(
    p: figure,
    source: ColumnDataSource,
    columns: Sequence[tuple[str, str, str]],
    rows: Sequence[str] | None = None,
    row_header: str = "",
    empty: str = "",
) -> None:
    """Declare plot ``p``'s data: one table row per row of ``source``.

    ``columns`` are (source column, header, format) with a format of ``FORMATS``; the first
    column heads each row, unless ``rows`` gives the rows' names (under ``row_header``).
    ``empty`` is what the table says while the source has no rows (a plot of a measurement
    not yet taken); without it a plot always has data.
    """
    for _, _, fmt in columns:
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r}; one of {FORMATS}")
    spec: dict = {"columns": [list(c) for c in columns]}
    if empty:
        spec["empty"] = empty
    if rows is not None:
        spec["rows"], spec["row_header"] = list(rows), row_header
    _tag_data(p, source, spec)


def data_grid(
    p: figure,
    source: ColumnDataSource,
    rows: Sequence[str],
    cols: Sequence[str],
    corner: str,
    field: str = "value",
    fmt: str = "num",
) -> None:
    """Declare plot ``p``'s data as a grid: ``field`` holds the cells row by row, printed by
    ``fmt`` (a NaN cell, drawn blank, is blank in the table too)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; one of {FORMATS}")
    spec = {"grid": field, "format": fmt, "rows": list(rows), "cols": list(cols), "corner": corner}
    _tag_data(p, source, spec)


def note(html: str = "") -> pn.pane.HTML:
    """A standing explanation on the figure (not a warning: the probe's messages ignore it)."""
    return pn.pane.HTML(
        f'<p class="fig-note">{html}</p>' if html else "",
        sizing_mode="stretch_width",
        margin=(0, 8),
        stylesheets=[PANE_CSS, NOTE_CSS],
    )


def stacked(*panes: pn.viewable.Viewable) -> pn.Column:
    """Panes one under another across the figure's width (a readout and its notes)."""
    return pn.Column(*panes, sizing_mode="stretch_width")


def choice(
    name: str, options: Sequence[str], value: str, **kwargs
) -> tuple[pn.widgets.RadioButtonGroup, pn.Column]:
    """A row of buttons picking one option, with its name shown above it like a widget label.

    Returns the widget (to watch) and the labelled layout (to place among the controls).
    """
    kwargs.setdefault("button_type", "primary")
    kwargs.setdefault("button_style", "outline")
    group = buttons(
        name, options if isinstance(options, Mapping) else list(options), value, **kwargs
    )
    label = pn.pane.HTML(
        f'<span class="fig-label">{name}</span>', margin=(0, 10), stylesheets=[LABEL_CSS]
    )
    return group, pn.Column(label, group, margin=0)


def plot(title: str, height: int = 240, **kwargs) -> figure:
    """An empty figure in the site's style: no toolbar, no drag, wraps on a phone."""
    kwargs.setdefault("tools", "")
    p = figure(
        title=title,
        height=height,
        min_width=MIN_PLOT_WIDTH,
        styles={"flex": f"1 1 {MIN_PLOT_WIDTH + 20}px"},  # side by side when there is room
        **PLOT_STYLE,
        **kwargs,
    )
    p.title.text_font_size = "12px"
    p.title.text_color = INK
    p.outline_line_color = None
    return p


# BokehJS draws a legend's labels as HTML in the legend's shadow root, where the colour
# mapping of static/scheme.js (for canvases) does not reach: the labels take the page's text
# colour, which follows the scheme, through an inherited custom property.
LEGEND_CSS = ".bk-label { color: var(--ink-soft) !important; }"


def legend_above(p: figure) -> None:
    """Move the plot's legend above its data, in one row: it never covers a bar or a line, at
    any width, and has no box of its own to stand out in the dark scheme."""
    legend = p.legend[0]
    legend.orientation = "horizontal"
    legend.label_text_font_size = "11px"
    legend.label_text_color = INK  # on a canvas: the plot saved as an image
    legend.stylesheets = [LEGEND_CSS]
    legend.padding, legend.spacing, legend.margin = 2, 8, 0
    legend.background_fill_alpha, legend.border_line_color = 0.0, None
    p.add_layout(legend, "above")


def two_lines(
    title: str,
    lines: ColumnDataSource,
    point: ColumnDataSource,
    x: tuple[str, str],
    solid: tuple[str, str],
    dashed: tuple[str, str],
    y_label: str,
    point_y: str,
    formats: tuple[str, str] = ("int", "num"),
    empty: str = "",
    log: bool = True,
) -> figure:
    """Two quantities against one, on log axes (linear ones if not ``log``): ``solid`` (the
    case shown, accented) and ``dashed`` (what it is compared with), each a (column, label);
    ``point`` marks the chosen x on its line (columns x[0] and ``point_y``); the plot declares
    its data table (saying ``empty`` while there is no data: see ``data_table``)."""
    (x_key, x_label), (solid_key, solid_label), (dashed_key, dashed_label) = x, solid, dashed
    axes = "log" if log else "linear"
    p = plot(title, height=300, x_axis_type=axes, y_axis_type=axes)
    p.line(x=x_key, y=solid_key, source=lines, color=ACCENT, line_width=2, legend_label=solid_label)
    p.line(x=x_key, y=dashed_key, source=lines, color=MUTED, line_width=2, line_dash="dashed",
           legend_label=dashed_label)  # fmt: skip
    p.scatter(x=x_key, y=point_y, source=point, color=INK, size=9)
    legend_above(p)
    p.xaxis.axis_label, p.yaxis.axis_label = x_label, y_label
    x_format, y_format = formats
    columns = [
        (x_key, x_label, x_format),
        (solid_key, solid_label, y_format),
        (dashed_key, dashed_label, y_format),
    ]
    data_table(p, lines, columns, empty=empty)
    return p


def labelled_bars(
    title: str, source: ColumnDataSource, parts: Sequence[str], x: tuple[str, str], what: str,
    height: int = 180,
) -> figure:  # fmt: skip
    """Horizontal bars, one per part (top to bottom as listed), each labelled at its end with
    the source's "text"; ``x`` is the (column, axis label) of their length. The figure sets
    the plot's x_range end as the data grows, leaving room for the labels."""
    x_key, x_label = x
    p = plot(title, height=height, y_range=list(reversed(parts)))
    p.hbar(y="part", right=x_key, height=0.6, color="color", source=source)
    p.text(x=x_key, y="part", text="text", source=source, text_baseline="middle",
           text_font_size="11px", text_color=INK)  # fmt: skip
    p.x_range = Range1d(0, 1)
    p.xaxis.axis_label = x_label
    p.ygrid.visible = False
    data_table(p, source, [("part", what, "text"), ("text", "bytes", "text")])
    return p


def bar_chart(
    title: str,
    source: ColumnDataSource,
    labels: Sequence[str],
    value: str,
    y_label: str,
    color: str = "color",
    tooltips: list[tuple[str, str]] | None = None,
    height: int = 240,
    x_label: str = "token",
    value_format: str = "num",
) -> figure:
    """Vertical bars of column ``value`` over categorical ``labels``, coloured by ``color``.

    Bars are tappable: with a source shared between charts, tapping one token selects it in
    all of them (Bokeh links selections through the source, in the browser alone). Its data
    table has a row per bar: the bar's ``label`` (headed ``x_label``) and its value.
    """
    p = plot(title, height, x_range=list(labels), tools="tap")
    bars = p.vbar(
        x="label",
        top=value,
        width=0.7,
        fill_color=color,
        line_color="edge",
        line_width="edge_width",
        nonselection_fill_alpha=0.25,
        nonselection_line_alpha=0.25,
        source=source,
    )
    p.xgrid.visible = False
    p.yaxis.axis_label = y_label
    p.add_tools(HoverTool(renderers=[bars], tooltips=tooltips or [(value, f"@{value}{{0.0000}}")]))
    data_table(p, source, [("label", x_label, "text"), (value, y_label, value_format)])
    return p


def heatmap(
    title: str,
    rows: Sequence[str],
    cols: Sequence[str],
    height: int = 300,
    low: float = 0.0,
    high: float = 1.0,
    corner: str = "query \\ key",
) -> tuple[figure, ColumnDataSource, LinearColorMapper]:
    """A grid of labelled cells, row 0 at the top, coloured from ``low`` (pale) to ``high``.

    Fill the source with ``heatmap_data`` (passing the same ``low`` and ``high``). Its data
    table is the grid of values, ``corner`` naming what the rows and the columns are.

    Cells sit on numeric coordinates (column j spans [j, j+1]) so that annotations such as a
    highlighted column can be placed with plain numbers; the ticks carry the token names.
    """
    n_rows, n_cols = len(rows), len(cols)
    mapper = LinearColorMapper(palette=list(HEAT), low=low, high=high, nan_color=EMPTY)
    source = ColumnDataSource(
        heatmap_data(np.full((n_rows, n_cols), np.nan), [""] * n_rows * n_cols)
    )
    p = plot(
        title,
        height,
        x_range=Range1d(0, n_cols),
        y_range=Range1d(0, n_rows),
        x_axis_location="above",
    )
    p.rect(
        x="x",
        y="y",
        width=1,
        height=1,
        fill_color={"field": "value", "transform": mapper},
        line_color="edge",
        line_width="edge_width",
        source=source,
    )
    p.text(
        x="x",
        y="y",
        text="text",
        text_color="text_color",
        text_font_style="font_style",
        text_align="center",
        text_baseline="middle",
        text_font_size="11px",
        source=source,
    )
    centres = [k + 0.5 for k in range(max(n_rows, n_cols))]
    p.xaxis.ticker = FixedTicker(ticks=centres[:n_cols])
    p.xaxis.major_label_overrides = {c: name for c, name in zip(centres, cols, strict=False)}
    p.yaxis.ticker = FixedTicker(ticks=centres[:n_rows])
    p.yaxis.major_label_overrides = {n_rows - 0.5 - i: name for i, name in enumerate(rows)}
    p.grid.visible = False
    p.axis.axis_line_color = None
    p.axis.major_tick_line_color = None
    data_grid(p, source, rows, cols, corner)
    return p, source, mapper


def labelled_points(p: figure, source: ColumnDataSource, x: str, y: str, color: str) -> None:
    """Markers at columns ``x``, ``y`` of ``source``, each with its ``text`` beside it.

    The source's ``dx`` and ``align`` columns place each label, so a figure can move a label
    to the marker's other side where it would run off the plot.
    """
    p.scatter(x=x, y=y, source=source, size=9, color=color)
    p.text(
        x=x,
        y=y,
        text="text",
        source=source,
        x_offset="dx",
        text_align="align",
        text_baseline="middle",
        text_font_size="11px",
    )


def integer_ticker() -> BasicTicker:
    """Ticks on whole numbers only (for an axis of exponents)."""
    return BasicTicker(min_interval=1, desired_num_ticks=6)
