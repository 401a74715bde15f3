"""Dropout on the causal weights: one pass, and a run of thousands (post 2, section 04).

The weights are section 3.5's causal matrix (seed 789, ``SelfAttention_v2(3, 2)``). One pass
shows a row dying outright; the run counts how often rows 1 and 2 die and averages the row
sums, which land on 1 with the 1/(1 - p) factor and on 1 - p without it. Both are drawn from
a fixed seed, so the numbers are reproducible; Resample moves to the next seed.
"""

from functools import lru_cache
from typing import NamedTuple

import numpy as np

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
from figurekit.controls import Choice, Clicks, Slider, Switch
from figurekit.drawing import Drawing, heatmap_data, html, message_html, readout_html
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
ROWS = [f"row {i + 1}" for i in range(len(TOKENS))]


class State(NamedTuple):
    """The figure's controls: the rate, the survivor scaling, passes in the run, the seed."""

    p: float = BOOK_RATE
    scaled: bool = True
    draws: int = RUN_DRAWS
    seed: int = RUN_SEED


DEFAULT = State()
CONTROLS = (
    Slider("p", "Dropout rate p", start=0.0, end=1.0, step=0.05),
    Switch("scaled", "Scale survivors by 1/(1 − p)"),
    Choice("draws", "Passes in the run", DRAWS, style="menu"),
    Clicks("seed", "Resample", first=RUN_SEED),
)


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


def draw(state: State) -> Drawing:
    """One pass as a heatmap, dead rows and row sums against expectation, the readout."""
    single, stats, deaths, expected = experiment(state)
    high = max(float(np.max(single)), 1.0)
    text = [num(w, 2) for w in single.ravel()]
    observed, mean_sums = stats.dead_share.tolist(), row_sums(stats.mean_weights).tolist()
    return {
        "pass.mapper": {"low": 0.0, "high": high},
        "pass": {"data": heatmap_data(single, text, low=0.0, high=high)},
        "dead": {"data": {"row": list(ROWS), "observed": observed, "expected": deaths.tolist()}},
        "sums": {
            "data": {"row": list(ROWS), "observed": mean_sums, "expected": [expected] * len(ROWS)}
        },
        "readout": html(readout_html(readouts(state))),
        "message": html(message_html(message(state), "info")),
    }
