"""Why divide by sqrt(d_k): sampled dot products and the softmax Jacobian (post 2, 02).

For every key width on the slider, ``attention.scaling.dk_sweep`` draws a few hundred
queries against six keys, with and without the divisor; the figure shows the spread of the
raw dot products against the sqrt(d_k) line, the median (bars) and mean (dashed) of the
Jacobian's largest entry, and one draw's softmax row. The runs for one seed are computed once
and kept, so moving the slider only re-reads them; Resample draws a new seed.
"""

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource, FactorRange, Range1d
from bokeh.transform import dodge

from attention.scaling import (
    LIVE_THRESHOLD,
    N_DRAWS,
    N_KEYS,
    SWEEP_D_KS,
    SWEEP_SEED,
    DkStats,
    post_sweep,
)
from figures.frame import ACCENT, INK, MUTED, frame, pane, readout_html, recompute
from figures.plots import data_table, note, plot, refill, stacked
from figures.tryit import drawn
from figures.widgets import ChoiceSlider, Resample, buttons
from formatting import integer, peak_text, percent, sci, std_text

TITLE = "Divide by √d_k, or watch the gradient die"
CAPTION = (
    "Drag the key width d_k out past a thousand with the divisor set to 1: the dot products "
    "spread like √d_k, one weight takes everything, and the median Jacobian entry falls off "
    "a cliff while its mean (dashed) does not. Set the divisor back to √d_k and the bars "
    "flatten. Resample draws new vectors."
)
DEFAULT_D_K = 64
DIVISORS = {"√d_k": True, "1 (no divisor)": False}
FLOOR = 1e-24  # bottom of the log axis: below every median the slider can reach
SCALED_COLOR, RAW_COLOR = "#0072b2", "#d55e00"


def _spread_plot(points: ColumnDataSource, line: ColumnDataSource, here: ColumnDataSource):
    p = plot("Spread of the dot products q·k", height=260, x_axis_type="log", y_axis_type="log")
    p.line(x="d_k", y="sqrt", source=line, color=MUTED, line_width=2, legend_label="√d_k")
    p.scatter(x="d_k", y="raw", source=points, size=6, color=RAW_COLOR, legend_label="std of q·k")
    p.scatter(
        x="d_k",
        y="scaled",
        source=points,
        size=6,
        color=SCALED_COLOR,
        marker="square",
        legend_label="std of q·k / √d_k",
    )
    p.scatter(x="d_k", y="raw", source=here, size=14, fill_alpha=0, line_color=ACCENT, line_width=2)
    p.x_range = Range1d(1.4, SWEEP_D_KS[-1] * 1.4)
    p.y_range = Range1d(0.5, np.sqrt(SWEEP_D_KS[-1]) * 2)
    p.xaxis.axis_label = "d_k"
    p.yaxis.axis_label = "standard deviation"
    data_table(
        p,
        points,
        [
            ("d_k", "d_k", "int"),
            ("raw", "std of q·k", "mag"),
            ("scaled", "std of q·k / √d_k", "mag"),
        ],
    )
    _legend_above(p)
    return p


def _legend_above(p) -> None:
    """Move the plot's legend above it, in one row, so it never covers the data."""
    legend = p.legend[0]
    legend.orientation = "horizontal"
    legend.label_text_font_size = "11px"
    legend.padding, legend.spacing, legend.margin = 2, 8, 0
    p.add_layout(legend, "above")


def _peak_plot(bars: ColumnDataSource, cursor: ColumnDataSource):
    labels = [str(d) for d in SWEEP_D_KS]
    p = plot(
        "Jacobian peak: median bars, mean dashed",
        height=260,
        x_range=FactorRange(*labels),
        y_axis_type="log",
    )
    for offset, column, color, name in (
        (-0.2, "raw", RAW_COLOR, "divisor 1"),
        (0.2, "scaled", SCALED_COLOR, "divisor √d_k"),
    ):
        p.vbar(
            x=dodge("label", offset, range=p.x_range),
            top=column,
            bottom=FLOOR,
            width=0.38,
            source=bars,
            fill_color=color,
            line_color=f"{column}_edge",
            line_width=2,
            fill_alpha=f"{column}_alpha",
            legend_label=name,
        )
        p.line(
            x=dodge("label", offset, range=p.x_range),
            y=f"{column}_mean",
            source=bars,
            color=color,
            line_dash="dashed",
            line_width=2,
        )
    p.scatter(x="label", y="y", source=cursor, marker="inverted_triangle", size=12, color=ACCENT)
    p.y_range = Range1d(FLOOR, 30.0)
    p.xaxis.axis_label = "d_k"
    p.xaxis.major_label_orientation = 0.8
    p.xgrid.visible = False
    data_table(
        p,
        bars,
        [
            ("label", "d_k", "text"),
            ("raw", "median peak, divisor 1", "mag"),
            ("raw_mean", "mean peak, divisor 1", "mag"),
            ("scaled", "median peak, divisor √d_k", "mag"),
            ("scaled_mean", "mean peak, divisor √d_k", "mag"),
        ],
    )
    _legend_above(p)
    return p


def _row_plot(row: ColumnDataSource):
    keys = [f"k{j + 1}" for j in range(N_KEYS)]
    p = plot("One draw's softmax weights", height=260, x_range=keys, y_range=Range1d(0, 1.05))
    p.vbar(x="key", top="weight", width=0.7, color=INK, source=row)
    p.xgrid.visible = False
    p.yaxis.axis_label = "weight"
    data_table(p, row, [("key", "key", "text"), ("weight", "softmax weight", "num")])
    return p


class State(NamedTuple):
    """The figure's controls: key width, whether the scores are divided, the sweep's seed."""

    d_k: int = DEFAULT_D_K
    scaled: bool = False
    seed: int = SWEEP_SEED


DEFAULT = State()


def experiment(state: State) -> DkStats:
    """The sweep's statistics at ``state``; ValueError for a setting outside the sweep."""
    try:
        return post_sweep(state.seed)[(state.d_k, state.scaled)]
    except KeyError as err:  # shown like any refusal
        raise ValueError(str(err)) from None


def readouts(state: State) -> list[tuple[str, str, str]]:
    """The readout rows for ``state``: the spread, the Jacobian's peak, the seed."""
    stats = experiment(state)
    divided_by = f"√{stats.d_k} = {std_text(stats.expected_std)}" if stats.scaled else "1"
    return [
        ("divisor", "scores divided by", divided_by),
        ("dot-std", "std of q·k (sampled)", std_text(stats.dot_std)),
        ("sqrt-dk", "√d_k", std_text(stats.expected_std)),
        ("median-peak", "median largest Jacobian entry", peak_text(stats.median_peak)),
        ("mean-peak", "mean largest Jacobian entry", peak_text(stats.mean_peak)),
        ("live-share", "draws with a live Jacobian", percent(stats.live_share)),
        ("seed", "seed · draws", f"{state.seed} · {integer(N_DRAWS)}"),
    ]


def _bars(state: State) -> dict:
    """The Jacobian chart's columns: every width's median and mean, the chosen one outlined."""
    table = post_sweep(state.seed)
    raw = [table[(d, False)] for d in SWEEP_D_KS]
    scaled = [table[(d, True)] for d in SWEEP_D_KS]
    plain = ["#ffffff"] * len(SWEEP_D_KS)
    edge = [ACCENT if d == state.d_k else "#ffffff" for d in SWEEP_D_KS]
    on, off = [1.0] * len(SWEEP_D_KS), [0.35] * len(SWEEP_D_KS)
    return {
        "label": [str(d) for d in SWEEP_D_KS],
        "raw": [max(s.median_peak, FLOOR) for s in raw],
        "scaled": [max(s.median_peak, FLOOR) for s in scaled],
        "raw_mean": [s.mean_peak for s in raw],
        "scaled_mean": [s.mean_peak for s in scaled],
        "raw_edge": plain if state.scaled else edge,
        "scaled_edge": edge if state.scaled else plain,
        "raw_alpha": off if state.scaled else on,
        "scaled_alpha": on if state.scaled else off,
    }


def _plots() -> tuple[list, Callable[[State], None]]:
    """The spread, the Jacobian bars and one softmax row, and the function that draws a state."""
    points = ColumnDataSource({"d_k": [], "raw": [], "scaled": []})
    line = ColumnDataSource({"d_k": list(SWEEP_D_KS), "sqrt": np.sqrt(SWEEP_D_KS).tolist()})
    here = ColumnDataSource({"d_k": [], "raw": []})
    bars = ColumnDataSource(
        {"label": [], "raw": [], "scaled": [], "raw_mean": [], "scaled_mean": []}
    )
    row = ColumnDataSource({"key": [], "weight": []})
    cursor = ColumnDataSource({"label": [], "y": []})
    plots = [_spread_plot(points, line, here), _peak_plot(bars, cursor), _row_plot(row)]

    def show(state: State) -> None:
        stats, table = experiment(state), post_sweep(state.seed)
        refill(
            points,
            {
                "d_k": list(SWEEP_D_KS),
                "raw": [table[(d, False)].dot_std for d in SWEEP_D_KS],
                "scaled": [table[(d, True)].input_std for d in SWEEP_D_KS],
            },
        )
        refill(here, {"d_k": [stats.d_k], "raw": [stats.dot_std]})
        refill(cursor, {"label": [str(stats.d_k)], "y": [4.0]})
        refill(bars, _bars(state))
        keys = [f"k{j + 1}" for j in range(N_KEYS)]
        refill(row, {"key": keys, "weight": stats.weights[0].tolist()})

    return plots, show


def view() -> pn.viewable.Viewable:
    """The figure: d_k slider, divisor switch, resample; spread, Jacobian bars, one row."""
    d_k = ChoiceSlider(name="Key width d_k", options=list(SWEEP_D_KS), value=DEFAULT.d_k)
    divisor = buttons("Divide the scores by", DIVISORS, DEFAULT.scaled)
    resample = Resample(DEFAULT.seed)
    plots, show = _plots()
    readout, message = pane(), pane()
    about = note(
        f"Each d_k: {N_DRAWS} draws of one query against {N_KEYS} keys, entries N(0, 1). "
        f"A Jacobian counts as live when its largest entry exceeds {sci(LIVE_THRESHOLD, 0)}."
    )

    def draw() -> None:
        state = State(int(d_k.value), bool(divisor.value), resample.seed)
        show(state)
        readout.object = readout_html(readouts(drawn(state)))

    redraw = recompute(
        (d_k, divisor), message, draw, explain=lambda err: f"Cannot run the experiment: {err}"
    )
    resample.redraws(redraw)
    return frame([d_k, divisor, resample.button], plots, stacked(readout, about), message)
