"""Why divide by sqrt(d_k): sampled dot products and the softmax Jacobian (post 2, 02).

For every key width on the slider, ``attention.scaling.dk_sweep`` draws a few hundred
queries against six keys, with and without the divisor; the figure shows the spread of the
raw dot products against the sqrt(d_k) line, the median (bars) and mean (dashed) of the
Jacobian's largest entry, and one draw's softmax row. The runs for one seed are computed once
and kept, so moving the slider only re-reads them; Resample draws a new seed.
"""

from typing import NamedTuple

from attention.scaling import (
    N_DRAWS,
    N_KEYS,
    SWEEP_D_KS,
    SWEEP_SEED,
    DkStats,
    post_sweep,
)
from figurekit.controls import Choice, Clicks
from figurekit.drawing import ACCENT, Drawing, html, readout_html
from formatting import integer, peak_text, percent, std_text

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
KEYS = [f"k{j + 1}" for j in range(N_KEYS)]


class State(NamedTuple):
    """The figure's controls: key width, whether the scores are divided, the sweep's seed."""

    d_k: int = DEFAULT_D_K
    scaled: bool = False
    seed: int = SWEEP_SEED


DEFAULT = State()
CONTROLS = (
    Choice("d_k", "Key width d_k", list(SWEEP_D_KS), style="slider"),
    Choice("scaled", "Divide the scores by", DIVISORS, style="buttons"),
    Clicks("seed", "Resample", first=SWEEP_SEED),
)


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


def explain(err: ValueError) -> str:
    """A setting outside the sweep, as the figure says it."""
    return f"Cannot run the experiment: {err}"


def draw(state: State) -> Drawing:
    """The spread of every width with the state's marked, the Jacobian bars, one softmax row."""
    stats, table = experiment(state), post_sweep(state.seed)
    return {
        "points": {
            "data": {
                "d_k": list(SWEEP_D_KS),
                "raw": [table[(d, False)].dot_std for d in SWEEP_D_KS],
                "scaled": [table[(d, True)].input_std for d in SWEEP_D_KS],
            }
        },
        "here": {"data": {"d_k": [stats.d_k], "raw": [stats.dot_std]}},
        "cursor": {"data": {"label": [str(stats.d_k)], "y": [4.0]}},
        "bars": {"data": _bars(state)},
        "row": {"data": {"key": list(KEYS), "weight": stats.weights[0].tolist()}},
        "readout": html(readout_html(readouts(state))),
    }
