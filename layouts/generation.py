"""The generation figure's layout: prompt, N and the button that times the writing; the work
counted each way, the time each token took, the two texts, the readout."""

import panel as pn
from bokeh.models import ColumnDataSource, Range1d

from attention.gpt import SMALL
from figurekit.figure import Figure
from figures.generation import DEFAULT, PRESS, time_columns, time_point, work_columns, work_point
from layoutkit.frame import frame, pane
from layoutkit.plots import note, stacked, two_lines
from layoutkit.wiring import action_button, widget, wire

# How each control looks, by control key.
LOOK = {"prompt": {"width": 280}}


def layout(figure: Figure) -> pn.viewable.Viewable:
    """Prompt, N, Write and time; work and time against the token written; texts, readout."""
    drawn = {
        key: widget(c, c.get(figure.state), **LOOK.get(key, {}))
        for key, c in figure.controls.items()
    }
    actions = {key: action_button(a) for key, a in figure.actions.items()}
    counted = work_columns(DEFAULT)
    work, work_at = ColumnDataSource(counted), ColumnDataSource(work_point(counted))
    none = time_columns(None)
    times, time_at = ColumnDataSource(none), ColumnDataSource(time_point(none))
    lines = {
        "x": ("token", "token written k"),
        "solid": ("cached", "with the cache"),
        "dashed": ("uncached", "without"),
    }
    work_plot = two_lines(
        "multiplications so far", work, work_at, **lines, y_label="millions of multiplications",
        point_y="work", log=False,
    )  # fmt: skip
    time_plot = two_lines(
        "time per token", times, time_at, **lines, y_label="milliseconds", point_y="ms",
        empty=f"Not measured yet: {PRESS}.", log=False,
    )  # fmt: skip
    work_plot.x_range.start = work_plot.y_range.start = 0  # from nothing written, nothing done
    # Set by the figure: an empty plot keeps its axes until the times come.
    time_plot.x_range, time_plot.y_range = Range1d(0, DEFAULT.tokens + 1), Range1d(0, 1)
    text, readout, message = pane(), pane(), pane()
    about = note(
        f"<b>The model:</b> chapter 4's GPT at a small size ({SMALL.layers} layers, "
        f"{SMALL.heads} heads, d = {SMALL.width}, {SMALL.context} positions), untrained, its "
        "weights drawn with a fixed seed as PyTorch's defaults draw them; a token is one "
        "printable character. It writes greedily: the most likely next token, every step. "
        "<b>Timed:</b> by your browser's clock, in the page's Python worker, float64 numpy. "
        "The first token with the cache includes running the whole prompt."
    )
    handles = {
        "work": work,
        "work.point": work_at,
        "times": times,
        "times.point": time_at,
        "times.title": time_plot.title,
        "times.x_range": time_plot.x_range,
        "times.y_range": time_plot.y_range,
        "text": text,
        "readout": readout,
        "message": message,
    }
    wire(figure, {key: w for key, (w, _) in drawn.items()}, actions, handles)
    placed = [placed for _, placed in drawn.values()]
    return frame(
        [*placed, *actions.values()], [work_plot, time_plot], stacked(text, readout, about), message
    )
