"""The key/value cache figure's layout: step slider, cache switch, model and length; the work
bars, the rows grid, the models' caches."""

import panel as pn
from bokeh.models import ColumnDataSource, Legend, LegendItem, Range1d

from attention.fixtures import TOKENS
from attention.kv_cache import STAGES
from attention.models import MODELS
from attention.torch_rng import BOOK_D_IN, BOOK_D_OUT, SEED_3_5
from figurekit.drawing import ACCENT, INK, MUTED
from figurekit.figure import Figure
from figures.kv_cache import COLUMNS, DEFAULT, T, model_columns, work_columns
from formatting import words
from layoutkit.frame import frame, pane
from layoutkit.plots import data_grid, data_table, heatmap, legend_above, note, plot, stacked
from layoutkit.wiring import widget, wire

# How each control looks, by control key.
LOOK = {"model": {"width": 160}}


def _work_plot(source: ColumnDataSource):
    p = plot("multiplications per step", height=280, x_range=Range1d(0.4, T + 0.6))
    common = {"source": source, "width": 0.36, "line_color": INK, "line_width": 2}
    common["line_alpha"] = "edge_alpha"
    without = p.vbar(
        x="x_without", top="without", color=MUTED, fill_alpha="alpha_without", **common
    )
    with_cache = p.vbar(x="x_with", top="with", color=ACCENT, fill_alpha="alpha_with", **common)
    p.add_layout(
        Legend(
            items=[
                LegendItem(label="without cache", renderers=[without]),
                LegendItem(label="with cache", renderers=[with_cache]),
            ]
        )
    )
    legend_above(p)
    p.xaxis.ticker = list(range(1, T + 1))
    p.xaxis.major_label_overrides = {t: TOKENS[t - 1] for t in range(1, T + 1)}
    p.xaxis.axis_label = "step t: the newest token"
    p.xgrid.visible = False
    columns = [("without", "without cache", "int"), ("with", "with cache", "int")]
    data_table(p, source, columns, rows=TOKENS, row_header="step t: the newest token")
    return p


def _model_plot(source: ColumnDataSource):
    p = plot("key/value cache", height=280, y_range=[m.name for m in reversed(MODELS)])
    p.hbar(y="name", right="mib", height=0.6, color="color", fill_alpha="alpha", source=source)
    p.text(
        x="mib",
        y="name",
        text="text",
        source=source,
        text_baseline="middle",
        text_font_size="11px",
        text_color=INK,
    )
    p.x_range = Range1d(0, 1)
    p.xaxis.axis_label = "MiB"
    data_table(p, source, [("name", "model", "text"), ("text", "key/value cache", "text")])
    p.ygrid.visible = False
    return p


def layout(figure: Figure) -> pn.viewable.Viewable:
    """Step slider, cache switch, model and length; work, rows, bytes."""
    widgets = {
        key: widget(c, c.get(figure.state), **LOOK.get(key, {}))[0]
        for key, c in figure.controls.items()
    }
    work = ColumnDataSource(work_columns(DEFAULT))
    models = ColumnDataSource(model_columns(DEFAULT))
    work_plot, model_plot = _work_plot(work), _model_plot(models)
    grid_plot, grid_source, _ = heatmap("rows of Q, K, V at this step", TOKENS, COLUMNS)
    # The cells' shades only sort them; their words say what each row is at this step.
    data_grid(grid_plot, grid_source, TOKENS, COLUMNS, "token \\ row of", "text", "text")
    readout, message = pane(), pane()
    about = note(
        f"<b>Layer:</b> seed {SEED_3_5}, SelfAttention_v2({BOOK_D_IN}, {BOOK_D_OUT}) "
        "(section 3.5), causal, generated in numpy; each product summed in a fixed order. "
        f"<b>Work:</b> scalar multiplications of {words(STAGES)}. "
        "<b>Bytes:</b> batch 1, at the precision each model was released in."
    )
    handles = {
        "work": work,
        "grid": grid_source,
        "grid.title": grid_plot.title,
        "models": models,
        "models.x_range": model_plot.x_range,
        "models.title": model_plot.title,
        "readout": readout,
        "message": message,
    }
    wire(figure, widgets, {}, handles)
    return frame(
        list(widgets.values()),
        [work_plot, grid_plot, model_plot],
        stacked(readout, about),
        message,
    )
