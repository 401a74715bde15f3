"""Two routes to causal weights, stepped side by side (post 2, section 03).

Naive: softmax, zero the future, renormalise. Efficient: fill the future with -inf, softmax.
Both run on section 3.5's scores (seed 789, ``SelfAttention_v2(3, 2)``), and the difference
grid shows that they agree to float64 rounding. The mask switch fills the future with 0
instead of -inf, which leaks weight to tokens the query must not see. A free-form row of
scores shows that a zero score is not a zero weight.
"""

import re

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource, Range1d

from attention.basics import softmax
from attention.fixtures import TOKENS
from attention.masking import (
    COUNTEREXAMPLE_SCORES,
    book_scores,
    efficient_stages,
    leaked_weight,
    mask_difference,
    naive_stages,
    zero_mask_difference,
    zero_mask_stages,
)
from attention.torch_rng import BOOK_D_IN, BOOK_D_OUT, SEED_3_5
from figures.frame import ACCENT, INK, frame, message_html, pane, readout_html, recompute
from figures.plots import heatmap, heatmap_data, note, plot, refill
from figures.widgets import buttons
from formatting import noise_text, num, vec

TITLE = "Two ways to hide the future"
CAPTION = (
    "Step both pipelines to the end and read the difference grid: rounding noise only. Then "
    "set the future scores to 0 instead of −∞ and watch the first token hand most of its "
    "attention to tokens it must not see. Edit the row of scores in the text box: a zero score "
    "is not a zero weight."
)
WEIGHT_SET = f"seed {SEED_3_5}, SelfAttention_v2({BOOK_D_IN}, {BOOK_D_OUT}) (section 3.5)"
FILLS = {"−∞ (correct)": "-inf", "0 (wrong)": "zero"}
MAX_SCORES = 12  # entries in the free-form row; more would not fit the bar chart
_SPLIT = re.compile(r"[,\s;]+")


def parse_scores(text: str) -> np.ndarray:
    """'1, 2, 3, 0, 0' -> array([1., 2., 3., 0., 0.]); ValueError saying what is wrong."""
    parts = [p for p in _SPLIT.split(text.strip()) if p]
    if not parts:
        raise ValueError("Type a few scores separated by commas, such as 1, 2, 3, 0, 0.")
    if len(parts) > MAX_SCORES:
        raise ValueError(f"At most {MAX_SCORES} scores fit the chart; you typed {len(parts)}.")
    try:
        return np.array([float(p.replace("−", "-")) for p in parts])
    except ValueError:
        bad = next(p for p in parts if not _is_number(p))
        raise ValueError(f"{bad!r} is not a number; separate the scores with commas.") from None


def _is_number(text: str) -> bool:
    try:
        float(text.replace("−", "-"))
    except ValueError:
        return False
    return True


def grid_text(values: np.ndarray, digits: int = 4) -> list[str]:
    """Cell labels: −∞ spelled out, four decimals otherwise. (T, T) -> T*T strings"""
    return [num(v, digits) for v in values.ravel()]


def _show(source, mapper, values: np.ndarray, text: list[str]) -> None:
    """Fill one heatmap: −∞ cells drawn blank, the colour scale spanning the finite values."""
    finite = np.where(np.isfinite(values), values, np.nan)
    low, high = float(np.nanmin(finite)), float(np.nanmax(finite))
    high = high if high > low else low + 1.0
    mapper.low, mapper.high = low, high
    refill(source, heatmap_data(finite, text, low=low, high=high))


def _counter_plot(bars: ColumnDataSource):
    p = plot("softmax of the row you typed", height=260, x_range=["s1"], y_range=Range1d(0, 1.1))
    p.vbar(x="label", top="weight", width=0.7, color="color", source=bars)
    p.text(
        x="label",
        y="weight",
        text="text",
        source=bars,
        text_align="center",
        y_offset=-4,
        text_font_size="10px",
        text_color=INK,
    )
    p.xgrid.visible = False
    p.yaxis.axis_label = "weight"
    return p


def view() -> pn.viewable.Viewable:
    """The figure: step slider, mask switch, score row; naive, efficient, difference, row."""
    scores, d_k = book_scores()  # Q K^T, section 3.5
    naive = naive_stages(scores, d_k)
    routes = {"-inf": efficient_stages(scores, d_k), "zero": zero_mask_stages(scores, d_k)}
    differences = {"-inf": mask_difference(scores, d_k), "zero": zero_mask_difference(scores, d_k)}
    n_steps = len(naive)

    step = pn.widgets.IntSlider(name="Step", start=1, end=n_steps, value=n_steps)
    fill = buttons("Future scores set to", FILLS, "-inf")
    row_text = pn.widgets.TextInput(
        name="Scores to softmax", value=", ".join(num(s, 1) for s in COUNTEREXAMPLE_SCORES)
    )
    naive_plot, naive_src, naive_map = heatmap("naive", TOKENS, TOKENS)
    fast_plot, fast_src, fast_map = heatmap("efficient", TOKENS, TOKENS)
    diff_plot, diff_src, diff_map = heatmap("naive − efficient (final weights)", TOKENS, TOKENS)
    bars = ColumnDataSource({"label": [], "weight": [], "text": [], "color": []})
    counter_plot = _counter_plot(bars)
    readout, message = pane(), pane()
    weight_set = note(f"<b>Weights:</b> {WEIGHT_SET}, generated in numpy; d_k = {d_k}.")

    def draw() -> str | None:
        k = int(step.value) - 1
        route = routes[fill.value]
        naive_name, naive_grid = naive[k]
        fast_name, fast_grid = route[min(k, len(route) - 1)]
        done = " (done)" if k >= len(route) - 1 else ""
        naive_plot.title.text = f"naive · step {k + 1} of {n_steps}: {naive_name}"
        fast_plot.title.text = f"efficient · step {min(k, len(route) - 1) + 1}: {fast_name}{done}"
        _show(naive_src, naive_map, naive_grid, grid_text(naive_grid))
        _show(fast_src, fast_map, fast_grid, grid_text(fast_grid))
        difference = differences[fill.value]
        diff_map.low, diff_map.high = 0.0, max(float(np.max(np.abs(difference))), 1e-300)
        refill(
            diff_src,
            heatmap_data(
                np.abs(difference),
                [noise_text(v) for v in difference.ravel()],
                low=0.0,
                high=diff_map.high,
            ),
        )
        final = route[-1][1]
        items = [
            ("naive-stage", "naive route, this step", naive_name),
            ("efficient-stage", "efficient route, this step", fast_name),
            (
                "max-difference",
                "largest |naive − efficient|",
                noise_text(np.max(np.abs(difference))),
            ),
            ("row-1", "row 1 (efficient route)", vec(final[0])),
            ("row-2", "row 2", vec(final[1])),
            ("row-3", "row 3", vec(final[2])),
            ("leak", f"weight {TOKENS[0]} gives to the future", num(leaked_weight(final)[0])),
        ]
        try:
            row = parse_scores(row_text.value)
            with np.errstate(over="ignore"):  # ±1e308 rows: the gap overflows to a 0 weight
                weights = softmax(row)
        except ValueError as err:  # the grids above are still drawn: only the row is refused
            readout.object = readout_html([*items, ("counterexample", "softmax of your row", "—")])
            return message_html(f"Your row of scores: {err}")
        labels = [f"s{j + 1}" for j in range(len(row))]
        counter_plot.x_range.factors = labels
        refill(
            bars,
            {
                "label": labels,
                "weight": weights.tolist(),
                "text": [num(w, 4) for w in weights],
                "color": [ACCENT if s == 0.0 else INK for s in row],
            },
        )
        readout.object = readout_html(
            [*items, ("counterexample", "softmax of your row", vec(weights))]
        )
        return None

    recompute((step, fill, row_text), message, draw)
    return frame(
        [step, fill, row_text],
        [naive_plot, fast_plot, diff_plot, counter_plot],
        pn.Column(readout, weight_set, sizing_mode="stretch_width"),
        message,
    )
