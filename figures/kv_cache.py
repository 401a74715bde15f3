"""The key/value cache: the same outputs for a fraction of the work, paid for in bytes (post 3, 1).

The book's six tokens go through section 3.5's causal head (seed 789, d_in = 3, d_k = d_v = 2)
one at a time, as a decoder generates them. Without the cache every step projects and attends
over the whole prefix again; with it each step projects one token, appends one key and one
value row, and attends with one query. The bars count both routes' multiplications per step,
the grid shows which rows of Q, K and V a step computes and which it reads from the cache, and
the readout prints both outputs and their largest difference: 0, the same floats. Below, the
cache of a real model: bytes per token and at a chosen length, at the model's precision.
"""

from typing import NamedTuple

import numpy as np

from attention.fixtures import TOKENS
from attention.kv_cache import book_generation, kv_cache_bytes, total_work
from attention.models import LLAMA2_7B, MODELS, by_name
from figurekit.controls import Choice, Slider, Switch
from figurekit.drawing import (
    ACCENT,
    MUTED,
    Drawing,
    heatmap_data,
    html,
    message_html,
    readout_html,
)
from formatting import bytes_text, integer, noise_text, vec

TITLE = "The key/value cache"
CAPTION = (
    "Step through the six tokens with the cache on and off: without it every step recomputes "
    "every earlier key and value, and the bars grow with the square of the step; with it one "
    "new row each, and the outputs are the same floats. Then pick a model and a length: the "
    "price of the cache is its bytes."
)
T = len(TOKENS)
COLUMNS = ("q", "k", "v")  # the grid's columns: rows of Q, K and V
# Context lengths: powers of two from one token to 128 Ki tokens.
LENGTHS: tuple[int, ...] = tuple(2**k for k in range(18))
NEW, CACHED = 1.0, 0.5  # the grid's two shades; rows not needed are blank
DIGITS = 17  # enough decimals to tell two float64 outputs apart


class State(NamedTuple):
    """The controls: the step reached, whether the cache is on, the model, the cache's length."""

    step: int = 3  # the caption asks the reader to step: start part-way, cache rows visible
    cached: bool = True
    model: str = LLAMA2_7B.name
    tokens: int = LLAMA2_7B.context


DEFAULT = State()
CONTROLS = (
    Slider("step", "Step t", start=1, end=T),
    Switch("cached", "Key/value cache on"),
    Choice("model", "Model", [m.name for m in MODELS], style="menu"),
    Choice("tokens", "Tokens in the cache", {integer(n): n for n in LENGTHS}, style="slider"),
)


def routes(state: State):
    """Both routes' steps at ``state``'s step: (without, with), each a Step."""
    without, with_cache = book_generation()
    return without[state.step - 1], with_cache[state.step - 1]


def readouts(state: State) -> list[tuple[str, str, str]]:
    """The readout rows: the step's work and outputs on both routes, then the model's cache."""
    without, with_cache = book_generation()
    plain, cached = routes(state)
    difference = float(np.max(np.abs(plain.output - cached.output)))
    model = by_name(state.model)
    per_token = kv_cache_bytes(model, 1)
    at_tokens = kv_cache_bytes(model, state.tokens)
    at_context = kv_cache_bytes(model, model.context)
    same = " (identical floats)" if difference == 0.0 else ""
    return [
        ("token", "step t: the newest token", f"{state.step} of {T}: {TOKENS[state.step - 1]}"),
        ("route", "shown", "with the cache" if state.cached else "without the cache"),
        (
            "work-without",
            "multiplications at this step, without",
            integer(sum(plain.work.values())),
        ),
        ("work-with", "multiplications at this step, with", integer(sum(cached.work.values()))),
        ("total-without", f"all {T} steps, without", integer(total_work(list(without)))),
        ("total-with", f"all {T} steps, with", integer(total_work(list(with_cache)))),
        ("output-without", "output at this step, without", vec(plain.output, DIGITS)),
        ("output-with", "output at this step, with", vec(cached.output, DIGITS)),
        ("difference", "largest difference", noise_text(difference) + same),
        ("per-token", f"{model.name}: cache per token", f"{integer(per_token)} bytes"),
        ("per-token-binary", "per token, binary units", bytes_text(per_token)),
        ("at-tokens", f"at {integer(state.tokens)} tokens", bytes_text(at_tokens)),
        (
            "at-context",
            f"over its context, {integer(model.context)} tokens",
            bytes_text(at_context),
        ),
        (
            "formula",
            "2 × layers × kv_heads × head_dim × bytes",
            f"2 × {model.layers} × {model.kv_heads} × {model.head_dim} × {model.bytes_per_value}",
        ),
    ]


def notes(state: State) -> str:
    """What the chosen length means for the chosen model, or nothing."""
    model = by_name(state.model)
    said = []
    if state.tokens > model.context:
        said.append(
            f"{integer(state.tokens)} tokens is past the {integer(model.context)} {model.name} "
            "was trained on: the bytes are the formula's."
        )
    if model.window is not None and state.tokens > model.window:
        cap = bytes_text(kv_cache_bytes(model, model.window))
        said.append(
            f"Each layer of {model.name} attends to the last {integer(model.window)} tokens "
            f"only, so it can drop older rows: its cache need not grow past {cap}."
        )
    return " ".join(said)


def grid(state: State) -> tuple[np.ndarray, list[str]]:
    """Rows of Q, K, V at the step: computed anew, read from the cache, or not needed. (T, 3)"""
    plain, cached = routes(state)
    step = cached if state.cached else plain
    values = np.full((T, len(COLUMNS)), np.nan)
    for col, stage in enumerate(("queries", "keys", "values")):
        if stage != "queries" and state.cached:
            values[: state.step, col] = CACHED  # keys and values of earlier tokens: stored
        values[list(step.computed[stage]), col] = NEW
    text = ["new" if v == NEW else "cache" if v == CACHED else "" for v in values.ravel()]
    return values, text


def work_columns(state: State) -> dict:
    """The bars: each step's multiplications on both routes, the shown route solid."""
    without, with_cache = book_generation()
    steps = np.arange(1, T + 1)
    current = [t == state.step for t in steps]
    return {
        "x_without": (steps - 0.19).tolist(),
        "x_with": (steps + 0.19).tolist(),
        "without": [sum(s.work.values()) for s in without],
        "with": [sum(s.work.values()) for s in with_cache],
        "alpha_without": [0.35 if state.cached else 1.0] * T,
        "alpha_with": [1.0 if state.cached else 0.35] * T,
        "edge_alpha": [1.0 if c else 0.0 for c in current],  # the step shown, outlined
    }


def model_columns(state: State) -> dict:
    """One bar per model: its cache at the chosen length, in MiB, the chosen model in accent; a
    length past a model's context is marked on its bar (faint) and in its label."""
    n_bytes = [kv_cache_bytes(m, state.tokens) for m in MODELS]
    past = [state.tokens > m.context for m in MODELS]
    return {
        "name": [m.name for m in MODELS],
        "mib": [b / 2**20 for b in n_bytes],
        "text": [
            f" {bytes_text(b)}, past its context" if p else f" {bytes_text(b)}"
            for b, p in zip(n_bytes, past, strict=True)
        ],
        "color": [ACCENT if m.name == state.model else MUTED for m in MODELS],
        "alpha": [0.35 if p else 1.0 for p in past],
    }


def draw(state: State) -> Drawing:
    """The work bars, the rows grid, the models' caches, the readout and the length's note."""
    values, text = grid(state)
    route = "with the cache" if state.cached else "without the cache"
    columns = model_columns(state)
    rows = readouts(state)
    return {
        "work": {"data": work_columns(state)},
        "grid": {"data": heatmap_data(values, text, low=0.0, high=1.0)},
        "grid.title": {"text": f"rows of Q, K, V at step {state.step}, {route}"},
        "models": {"data": columns},
        "models.x_range": {"end": 1.8 * max(columns["mib"])},  # room for the labels
        "models.title": {"text": f"key/value cache at {integer(state.tokens)} tokens"},
        "readout": html(readout_html(rows)),
        "message": html(message_html(notes(state), "info")),
    }
