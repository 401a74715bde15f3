"""The key/value cache: the same outputs for a fraction of the work, paid for in bytes (post 3, 1).

The book's six tokens go through section 3.5's causal head (seed 789, d_in = 3, d_k = d_v = 2)
one at a time, as a decoder generates them. Without the cache every step projects and attends
over the whole prefix again; with it each step projects one token, appends one key and one
value row, and attends with one query. The bars count both routes' multiplications per step,
the grid shows which rows of Q, K and V a step computes and which it reads from the cache, and
the readout prints both outputs and their largest difference: 0, the same floats. Below, the
cache of a real model: bytes per token and at a chosen length, at the model's precision.
"""

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource, Legend, LegendItem, Range1d

from attention.fixtures import TOKENS
from attention.kv_cache import STAGES, book_generation, kv_cache_bytes, total_work
from attention.models import LLAMA2_7B, MODELS, by_name
from attention.torch_rng import BOOK_D_IN, BOOK_D_OUT, SEED_3_5
from figures.frame import ACCENT, INK, MUTED, frame, message_html, pane, readout_html, recompute
from figures.plots import data_grid, data_table, heatmap, heatmap_data, note, plot, refill, stacked
from figures.tryit import drawn
from figures.widgets import ChoiceSlider, switch
from formatting import bytes_text, integer, noise_text, vec, words

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
    """One bar per model: its cache at the chosen length, in MiB, the chosen model in accent."""
    n_bytes = [kv_cache_bytes(m, state.tokens) for m in MODELS]
    return {
        "name": [m.name for m in MODELS],
        "mib": [b / 2**20 for b in n_bytes],
        "text": [" " + bytes_text(b) for b in n_bytes],
        "color": [ACCENT if m.name == state.model else MUTED for m in MODELS],
    }


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
            ],
            location="top_left",
            border_line_color=None,
            background_fill_alpha=0.0,
        )
    )
    p.xaxis.ticker = list(range(1, T + 1))
    p.xaxis.major_label_overrides = {t: TOKENS[t - 1] for t in range(1, T + 1)}
    p.xaxis.axis_label = "step t: the newest token"
    p.xgrid.visible = False
    columns = [("without", "without cache", "int"), ("with", "with cache", "int")]
    data_table(p, source, columns, rows=TOKENS, row_header="step t: the newest token")
    return p


def _model_plot(source: ColumnDataSource):
    p = plot("key/value cache", height=280, y_range=[m.name for m in reversed(MODELS)])
    p.hbar(y="name", right="mib", height=0.6, color="color", source=source)
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


def _plots() -> tuple[list, Callable[[State], None]]:
    """The work bars, the rows grid, the models' caches, and the function that refills them."""
    work = ColumnDataSource(work_columns(DEFAULT))
    models = ColumnDataSource(model_columns(DEFAULT))
    work_plot, model_plot = _work_plot(work), _model_plot(models)
    grid_plot, grid_source, _ = heatmap("rows of Q, K, V at this step", TOKENS, COLUMNS)
    # The cells' shades only sort them; their words say what each row is at this step.
    data_grid(grid_plot, grid_source, TOKENS, COLUMNS, "token \\ row of", "text", "text")

    def show(state: State) -> None:
        refill(work, work_columns(state))
        values, text = grid(state)
        refill(grid_source, heatmap_data(values, text, low=0.0, high=1.0))
        route = "with the cache" if state.cached else "without the cache"
        grid_plot.title.text = f"rows of Q, K, V at step {state.step}, {route}"
        columns = model_columns(state)
        refill(models, columns)
        model_plot.x_range.end = 1.45 * max(columns["mib"])  # room for the labels
        model_plot.title.text = f"key/value cache at {integer(state.tokens)} tokens"

    return [work_plot, grid_plot, model_plot], show


def view() -> pn.viewable.Viewable:
    """The figure: step slider, cache switch, model and length; work, rows, bytes."""
    step = pn.widgets.IntSlider(name="Step t", start=1, end=T, value=DEFAULT.step)
    cached = switch("Key/value cache on", DEFAULT.cached)
    model = pn.widgets.Select(
        name="Model", options=[m.name for m in MODELS], value=DEFAULT.model, width=160
    )
    tokens = ChoiceSlider(
        name="Tokens in the cache",
        options={integer(n): n for n in LENGTHS},
        value=DEFAULT.tokens,
    )
    plots, show = _plots()
    readout, message = pane(), pane()
    about = note(
        f"<b>Layer:</b> seed {SEED_3_5}, SelfAttention_v2({BOOK_D_IN}, {BOOK_D_OUT}) "
        "(section 3.5), causal, generated in numpy; each product summed in a fixed order. "
        f"<b>Work:</b> scalar multiplications of {words(STAGES)}. "
        "<b>Bytes:</b> batch 1, at the precision each model was released in."
    )

    def draw() -> str:
        state = State(int(step.value), bool(cached.value), model.value, int(tokens.value))
        show(state)
        readout.object = readout_html(readouts(drawn(state)))
        return message_html(notes(state), "info")

    controls = [step, cached, model, tokens]
    recompute(controls, message, draw)
    return frame(controls, plots, stacked(readout, about), message)
