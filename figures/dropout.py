"""Dropout on the causal weights: one pass, and a run of thousands (post 2, section 04).

The weights are section 3.5's causal matrix (seed 789, ``SelfAttention_v2(3, 2)``). One pass
shows a row dying outright; the run counts how often rows 1 and 2 die and averages the row
sums, which land on 1 with the 1/(1 - p) factor and on 1 - p without it. Both are drawn from
a fixed seed, so the numbers are reproducible; Resample moves to the next seed.
"""

from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource, Range1d

from attention.basics import row_sums
from attention.dropout import (
    BOOK_RATE,
    RUN_DRAWS,
    RUN_SEED,
    DropoutStats,
    death_probability,
    expected_factor,
    one_pass,
    run,
    survivor_scale,
)
from attention.fixtures import TOKENS
from attention.masking import book_causal_weights
from attention.torch_rng import BOOK_D_IN, BOOK_D_OUT, SEED_3_5
from figures.frame import ACCENT, INK, frame, message_html, pane, readout_html, recompute
from figures.plots import data_table, heatmap, heatmap_data, note, plot, refill, stacked
from figures.tryit import drawn
from figures.widgets import Resample, switch
from formatting import integer, num, percent, vec

TITLE = "The row that sums to zero"
CAPTION = (
    "Set the rate p, resample the single pass a few times, and read the run of thousands "
    f"below it: at p = {BOOK_RATE} the first row dies on half the passes, the second on a "
    "quarter. "
    "Switch the scaling off and the average row sum drops from 1 to 1 − p."
)
WEIGHT_SET = f"seed {SEED_3_5}, SelfAttention_v2({BOOK_D_IN}, {BOOK_D_OUT}) (section 3.5)"
DRAWS = {"1,000": 1_000, "10,000": 10_000, "20,000": 20_000}


def _row_plot(title: str, source: ColumnDataSource, y_label: str, top: float):
    rows = [f"row {i + 1}" for i in range(len(TOKENS))]
    p = plot(title, height=250, x_range=rows, y_range=Range1d(0, top))
    p.vbar(x="row", top="observed", width=0.7, color=INK, source=source, legend_label="this run")
    p.scatter(
        x="row",
        y="expected",
        size=11,
        marker="dash",
        line_width=3,
        color=ACCENT,
        source=source,
        legend_label="expected",
    )
    p.xgrid.visible = False
    p.yaxis.axis_label = y_label
    data_table(
        p,
        source,
        [
            ("row", "row", "text"),
            ("observed", f"{y_label}, this run", "num"),
            ("expected", f"{y_label}, expected", "num"),
        ],
    )
    # One line across the top, above the tallest bar a row can have (1), so it hides none.
    p.legend.location = "top_center"
    p.legend.orientation = "horizontal"
    p.legend.label_text_font_size = "11px"
    return p


class State(NamedTuple):
    """The figure's controls: the rate, the survivor scaling, passes in the run, the seed."""

    p: float = BOOK_RATE
    scaled: bool = True
    draws: int = RUN_DRAWS
    seed: int = RUN_SEED


DEFAULT = State()


class Outcome(NamedTuple):
    """What one state draws: a single pass, the run's statistics and what theory expects."""

    single: np.ndarray  # one pass over the weights, (T, T)
    stats: DropoutStats  # the run of ``draws`` passes
    deaths: np.ndarray  # each row's probability of dying, (T,)
    expected: float  # the expected mean row sum


@lru_cache(maxsize=1)
def weights() -> np.ndarray:
    """Section 3.5's causal weights, the matrix every pass drops from. -> (T, T)"""
    return book_causal_weights()


@lru_cache(maxsize=1)
def experiment(state: State) -> Outcome:
    """The pass and the run at ``state``, computed once for the plots and the readouts."""
    W = weights()
    return Outcome(
        one_pass(W, state.p, state.seed, state.scaled),
        run(W, state.p, state.draws, state.seed, state.scaled),
        death_probability(W, state.p),
        expected_factor(state.p, state.scaled),
    )


def factor_text(state: State) -> str:
    """What the survivors are multiplied by: '× 2.00', 'off (× 1)', or that none survive."""
    if not state.scaled:
        return "off (× 1)"
    try:
        return f"× {num(survivor_scale(state.p), 2)}"
    except ValueError:
        return "none: nothing survives"


def readouts(state: State) -> list[tuple[str, str, str]]:
    """The readout rows for ``state``: this pass's row sums, the run against expectation."""
    single, stats, deaths, expected = experiment(state)
    return [
        ("factor", "survivors multiplied by", factor_text(state)),
        ("pass-row-sums", "this pass: row sums", vec(row_sums(single), 3)),
        ("row-1-dead", "row 1 all zero in", percent(stats.dead_share[0])),
        ("row-2-dead", "row 2 all zero in", percent(stats.dead_share[1])),
        ("expected-dead", "expected: p and p²", f"{percent(deaths[0])} and {percent(deaths[1])}"),
        ("mean-row-sum", "mean row sum over the run", num(stats.mean_row_sum, 3)),
        ("expected-row-sum", "expected mean row sum", num(expected, 3)),
        ("run", "seed · passes", f"{state.seed} · {integer(state.draws)}"),
    ]


def message(state: State) -> str:
    """What the ends of the rate slider mean (an info note), or nothing in between."""
    if state.p == 1.0:
        return (
            "At p = 1 every weight is dropped: every row is dead on every pass, and there "
            "is no survivor for the 1/(1 − p) factor to scale."
        )
    if state.p == 0.0:
        return "At p = 0 nothing is dropped: every pass is the weight matrix itself."
    return ""


def _plots() -> tuple[list, Callable[[State], None]]:
    """One pass as a heatmap, dead rows and row sums as bars, and the function that draws."""
    pass_plot, pass_src, pass_map = heatmap("one training pass", TOKENS, TOKENS)
    dead = ColumnDataSource({"row": [], "observed": [], "expected": []})
    sums = ColumnDataSource({"row": [], "observed": [], "expected": []})
    dead_plot = _row_plot("share of passes in which the row is all zero", dead, "share", 1.3)
    sum_plot = _row_plot("mean row sum over the run", sums, "row sum", 1.6)
    rows = [f"row {i + 1}" for i in range(len(TOKENS))]

    def show(state: State) -> None:
        single, stats, deaths, expected = experiment(state)
        high = max(float(np.max(single)), 1.0)
        pass_map.low, pass_map.high = 0.0, high
        text = [num(w, 2) for w in single.ravel()]
        refill(pass_src, heatmap_data(single, text, low=0.0, high=high))
        observed, mean_sums = stats.dead_share.tolist(), row_sums(stats.mean_weights).tolist()
        refill(dead, {"row": rows, "observed": observed, "expected": deaths.tolist()})
        refill(sums, {"row": rows, "observed": mean_sums, "expected": [expected] * len(rows)})

    return [pass_plot, dead_plot, sum_plot], show


def view() -> pn.viewable.Viewable:
    """The figure: rate, scaling, run length, resample; one pass, dead rows, row sums."""
    rate = pn.widgets.FloatSlider(
        name="Dropout rate p", start=0.0, end=1.0, step=0.05, value=DEFAULT.p
    )
    scale = switch("Scale survivors by 1/(1 − p)", DEFAULT.scaled)
    draws = pn.widgets.Select(name="Passes in the run", options=DRAWS, value=DEFAULT.draws)
    resample = Resample(DEFAULT.seed)
    plots, show = _plots()
    readout, message_pane = pane(), pane()
    weight_set = note(
        f"<b>Weights:</b> the causal matrix of {WEIGHT_SET}, generated in numpy. "
        "Row i has i live weights, so it dies with probability p to the power i."
    )

    def draw() -> str:
        state = State(float(rate.value), bool(scale.value), int(draws.value), resample.seed)
        show(state)
        readout.object = readout_html(readouts(drawn(state)))
        return message_html(message(state), "info")

    resample.redraws(recompute((rate, scale, draws), message_pane, draw))
    return frame(
        [rate, scale, draws, resample.button], plots, stacked(readout, weight_set), message_pane
    )
