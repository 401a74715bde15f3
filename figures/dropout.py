"""Dropout on the causal weights: one pass, and a run of thousands (post 2, section 04).

The weights are section 3.5's causal matrix (seed 789, ``SelfAttention_v2(3, 2)``). One pass
shows a row dying outright; the run counts how often rows 1 and 2 die and averages the row
sums, which land on 1 with the 1/(1 - p) factor and on 1 - p without it. Both are drawn from
a fixed seed, so the numbers are reproducible; Resample moves to the next seed.
"""

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource, Range1d

from attention.basics import row_sums
from attention.dropout import (
    BOOK_RATE,
    RUN_DRAWS,
    RUN_SEED,
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
from figures.plots import heatmap, heatmap_data, note, plot, refill
from figures.widgets import button, switch
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
    # One line across the top, above the tallest bar a row can have (1), so it hides none.
    p.legend.location = "top_center"
    p.legend.orientation = "horizontal"
    p.legend.label_text_font_size = "11px"
    return p


def view() -> pn.viewable.Viewable:
    """The figure: rate, scaling, run length, resample; one pass, dead rows, row sums."""
    weights = book_causal_weights()
    rate = pn.widgets.FloatSlider(
        name="Dropout rate p", start=0.0, end=1.0, step=0.05, value=BOOK_RATE
    )
    scale = switch("Scale survivors by 1/(1 − p)", True)
    draws = pn.widgets.Select(name="Passes in the run", options=DRAWS, value=RUN_DRAWS)
    resample = button("Resample")
    seed = {"value": RUN_SEED}
    pass_plot, pass_src, pass_map = heatmap("one training pass", TOKENS, TOKENS)
    dead = ColumnDataSource({"row": [], "observed": [], "expected": []})
    sums = ColumnDataSource({"row": [], "observed": [], "expected": []})
    dead_plot = _row_plot("share of passes in which the row is all zero", dead, "share", 1.3)
    sum_plot = _row_plot("mean row sum over the run", sums, "row sum", 1.6)
    readout, message = pane(), pane()
    weight_set = note(
        f"<b>Weights:</b> the causal matrix of {WEIGHT_SET}, generated in numpy. "
        "Row i has i live weights, so it dies with probability p to the power i."
    )

    def draw() -> str | None:
        p, scaled, n = float(rate.value), bool(scale.value), int(draws.value)
        single = one_pass(weights, p, seed["value"], scaled)
        stats = run(weights, p, n, seed["value"], scaled)
        deaths = death_probability(weights, p)
        expected = expected_factor(p, scaled)
        try:
            factor = f"× {num(survivor_scale(p), 2)}" if scaled else "off (× 1)"
        except ValueError:
            factor = "none: nothing survives"
        high = max(float(np.max(single)), 1.0)
        pass_map.low, pass_map.high = 0.0, high
        refill(
            pass_src, heatmap_data(single, [num(w, 2) for w in single.ravel()], low=0.0, high=high)
        )
        rows = [f"row {i + 1}" for i in range(len(TOKENS))]
        refill(
            dead,
            {
                "row": rows,
                "observed": stats.dead_share.tolist(),
                "expected": deaths.tolist(),
            },
        )
        refill(
            sums,
            {
                "row": rows,
                "observed": row_sums(stats.mean_weights).tolist(),
                "expected": [expected] * len(rows),
            },
        )
        readout.object = readout_html(
            [
                ("factor", "survivors multiplied by", factor),
                ("pass-row-sums", "this pass: row sums", vec(row_sums(single), 3)),
                ("row-1-dead", "row 1 all zero in", percent(stats.dead_share[0])),
                ("row-2-dead", "row 2 all zero in", percent(stats.dead_share[1])),
                (
                    "expected-dead",
                    "expected: p and p²",
                    f"{percent(deaths[0])} and {percent(deaths[1])}",
                ),
                ("mean-row-sum", "mean row sum over the run", num(stats.mean_row_sum, 3)),
                ("expected-row-sum", "expected mean row sum", num(expected, 3)),
                ("run", "seed · passes", f"{seed['value']} · {integer(n)}"),
            ]
        )
        if p == 1.0:
            return message_html(
                "At p = 1 every weight is dropped: every row is dead on every pass, and there "
                "is no survivor for the 1/(1 − p) factor to scale.",
                "info",
            )
        if p == 0.0:
            return message_html(
                "At p = 0 nothing is dropped: every pass is the weight matrix itself.", "info"
            )
        return None

    redraw = recompute((rate, scale, draws), message, draw)

    def new_seed(_event) -> None:
        seed["value"] += 1
        redraw()

    resample.on_click(new_seed)
    return frame(
        [rate, scale, draws, resample],
        [pass_plot, dead_plot, sum_plot],
        pn.Column(readout, weight_set, sizing_mode="stretch_width"),
        message,
    )
