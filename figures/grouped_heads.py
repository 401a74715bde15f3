"""Query heads sharing fewer key/value heads: multi-query and grouped-query attention (post 3, 2).

The top row is the H query heads, each stripe coloured by the K/V head it reads; the bottom
row is the K/V heads, each as wide as its group. A box sets the number of K/V heads (a
divisor of H: anything else is refused with the divisors listed); a layout picker loads the
toy on the book's six tokens or the published head layout of a real model. The bars give the
cache per token at every allowed K/V count, the chosen one outlined. The readout counts the
K/V projections' parameters and the cache, and runs grouped-query attention against ordinary
multi-head attention whose K/V weights are copies across each group, on the book's tokens at
this layout (head_dim 2): their largest difference.
"""

from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource, FixedTicker, Range1d

from attention.fixtures import book_inputs
from attention.grouped import (
    REAL_MODELS,
    TOY,
    allowed_kv_heads,
    cache_bytes,
    cache_bytes_per_token,
    cache_ratio,
    group_size,
    grouped_query_attention,
    kind,
    kv_head_of,
    model_params,
    repeat_kv,
    toy_weights,
)
from attention.heads import multihead_split
from attention.models import Model
from figures.frame import ACCENT, INK, MUTED, frame, pane, readout_html, recompute
from figures.plots import TOKEN_COLORS, bar_chart, data_table, note, outline, plot, refill, stacked
from figures.tryit import drawn
from figures.widgets import Presets, button
from formatting import bytes_text, integer, noise_text, percent

TITLE = "Query heads sharing key/value heads"
CAPTION = (
    "Set the number of K/V heads: 1 is multi-query attention, one key head and one value head "
    "read by every query head; as many as the query heads is ordinary multi-head attention. "
    "Try a number that does not divide the head count, then pick Llama 2 70B to see how much "
    "cache its 8 K/V heads save. The output equals multi-head attention with copied K/V weights."
)
LAYOUTS: tuple[Model, ...] = (TOY, *REAL_MODELS)
KV_COLORS = (*TOKEN_COLORS, INK, MUTED)  # one per K/V head, cycling past eight
LABELLED = 16  # above this many stripes, the stripes go unlabelled


def layout_label(model: Model) -> str:
    """The picker's text for a layout: 'Llama 2 70B: 64 query heads'."""
    return f"{model.name}: {model.heads} query heads"


def by_name(name: str) -> Model:
    """The layout called ``name`` (the toy or one of the real models)."""
    for model in LAYOUTS:
        if model.name == name:
            return model
    raise ValueError(f"no head layout named {name!r}")


class State(NamedTuple):
    """The controls: the head layout (a model's name) and the K/V heads box (None if empty)."""

    model: str = TOY.name
    kv_heads: int | None = TOY.kv_heads


DEFAULT = State()


def checked(state: State) -> tuple[Model, int]:
    """The layout and K/V count; ValueError saying what the box needs."""
    model = by_name(state.model)
    if state.kv_heads is None or state.kv_heads < 1:
        raise ValueError(
            f"K/V heads needs a whole number of at least 1: one of "
            f"{allowed_kv_heads(model.heads)} for {model.name}'s {model.heads} query heads."
        )
    kv = int(state.kv_heads)
    group_size(model.heads, kv)  # refuses a non-divisor, listing the divisors
    return model, kv


@lru_cache(maxsize=32)
def difference(heads: int, kv_heads: int) -> float:
    """Largest |GQA - MHA with copied K/V weights| on the book's tokens, head_dim 2."""
    X = book_inputs()
    W_q, W_k, W_v = toy_weights(heads, kv_heads)
    shared = grouped_query_attention(X, W_q, W_k, W_v, heads, kv_heads)
    copied = multihead_split(
        X, W_q, repeat_kv(W_k, heads, kv_heads), repeat_kv(W_v, heads, kv_heads), heads
    )
    return float(np.max(np.abs(shared - copied)))


def kind_text(heads: int, kv_heads: int) -> str:
    """'grouped-query: 4 query heads per K/V head', and the two ends by their names."""
    name = kind(heads, kv_heads)
    if name == "multi-query":
        return f"multi-query: all {heads} query heads read one K/V head"
    if name == "multi-head":
        return "multi-head: one K/V head per query head"
    return f"grouped-query: {group_size(heads, kv_heads)} query heads per K/V head"


def readouts(state: State) -> list[tuple[str, str, str]]:
    """The readout rows: the grouping, parameters, cache, and the check against multi-head."""
    model, kv = checked(state)
    H = model.heads
    per_token = cache_bytes_per_token(model, kv)
    context = cache_bytes(model, model.context, kv)
    multihead_context = cache_bytes(model, model.context, H)
    precision = f"{model.bytes_per_value}-byte values"
    divisors = ", ".join(map(str, allowed_kv_heads(H)))
    return [
        ("heads", "query heads H / K/V heads", f"{H} / {kv}"),
        ("kind", "which attention this is", kind_text(H, kv)),
        ("allowed", "K/V heads H allows (its divisors)", divisors),
        (
            "kv-params",
            "W_k + W_v parameters, one layer",
            integer(model_params(model, kv).key_value),
        ),
        (
            "kv-params-mha",
            "the same at multi-head (K/V heads = H)",
            integer(model_params(model, H).key_value),
        ),
        (
            "cache",
            f"K/V cache per token, {model.layers} layer(s), {precision}",
            f"{integer(per_token)} bytes",
        ),
        ("ratio", "against multi-head: K/V heads / H", f"{kv}/{H} = {percent(cache_ratio(H, kv))}"),
        (
            "cache-context",
            f"cache at {integer(model.context)} tokens vs multi-head",
            f"{bytes_text(context)} vs {bytes_text(multihead_context)}",
        ),
        (
            "difference",
            "largest |grouped − multi-head with copied K/V|",
            noise_text(difference(H, kv)),
        ),
    ]


def stripes(heads: int, kv_heads: int) -> tuple[dict, dict]:
    """The two rows of stripes: query heads (top) and K/V heads (bottom). -> (quads, labels)"""
    group = group_size(heads, kv_heads)
    owner = kv_head_of(heads, kv_heads).tolist()
    pad = 0.08 if heads <= LABELLED else 0.0
    q_left = [h + pad for h in range(heads)]
    kv_left = [g * group + pad for g in range(kv_heads)]
    quads = {
        "left": q_left + kv_left,
        "right": [h + 1 - pad for h in range(heads)]
        + [(g + 1) * group - pad for g in range(kv_heads)],
        "bottom": [1.25] * heads + [0.0] * kv_heads,
        "top": [2.25] * heads + [1.0] * kv_heads,
        "color": [KV_COLORS[g % len(KV_COLORS)] for g in owner]
        + [KV_COLORS[g % len(KV_COLORS)] for g in range(kv_heads)],
        # Not drawn: the stripes' data table (a screen reader's view of the colours).
        "head": [f"q{h + 1}" for h in range(heads)] + [f"kv{g + 1}" for g in range(kv_heads)],
        "reads": [f"kv{g + 1}" for g in owner] + ["(itself)"] * kv_heads,
    }
    q_text = [f"q{h + 1}" for h in range(heads)] if heads <= LABELLED else []
    kv_text = [f"kv{g + 1}" for g in range(kv_heads)] if kv_heads <= LABELLED else []
    labels = {
        "x": [h + 0.5 for h in range(len(q_text))]
        + [(g + 0.5) * group for g in range(len(kv_text))],
        "y": [1.75] * len(q_text) + [0.5] * len(kv_text),
        "text": q_text + kv_text,
    }
    return quads, labels


def bars(model: Model, kv_heads: int) -> dict:
    """The cache per token at every K/V count the layout allows, the chosen one outlined."""
    counts = allowed_kv_heads(model.heads)
    return {
        "label": [str(g) for g in counts],
        "bytes": [cache_bytes_per_token(model, g) for g in counts],
        "color": [ACCENT if g == kv_heads else MUTED for g in counts],
        **outline([g == kv_heads for g in counts]),
    }


def _stripe_plot(quads: ColumnDataSource, labels: ColumnDataSource):
    p = plot("query heads (top), coloured by the K/V head they read (bottom)", height=220)
    p.x_range, p.y_range = Range1d(0, TOY.heads), Range1d(-0.1, 2.35)
    p.quad(left="left", right="right", bottom="bottom", top="top", color="color", source=quads)
    p.text(
        x="x",
        y="y",
        text="text",
        source=labels,
        text_align="center",
        text_baseline="middle",
        text_font_size="10px",
        text_color="#ffffff",
    )
    p.yaxis.ticker = FixedTicker(ticks=[0.5, 1.75])
    p.yaxis.major_label_overrides = {0.5: "K/V heads", 1.75: "query heads"}
    p.xaxis.axis_label = "query head"
    data_table(p, quads, [("head", "head", "text"), ("reads", "K/V head it reads", "text")])
    p.xaxis.visible = False
    p.grid.visible = False
    p.axis.axis_line_color = None
    p.axis.major_tick_line_color = None
    return p


def _plots() -> tuple[list, Callable[[Model, int], None]]:
    """The stripes and the cache bars, and the function that draws a layout on them."""
    quads = ColumnDataSource({"left": [], "right": [], "bottom": [], "top": [], "color": []})
    labels = ColumnDataSource({"x": [], "y": [], "text": []})
    stripe_plot = _stripe_plot(quads, labels)
    start = bars(TOY, TOY.kv_heads)
    cache = ColumnDataSource(start)
    cache_plot = bar_chart(
        "K/V cache per token, at each allowed number of K/V heads",
        cache,
        start["label"],
        "bytes",
        "bytes per token",
        tooltips=[("K/V heads", "@label"), ("bytes per token", "@bytes{0,0}")],
        x_label="K/V heads",
        value_format="int",
    )
    cache_plot.xaxis.axis_label = "K/V heads"

    def show(model: Model, kv: int) -> None:
        q, text = stripes(model.heads, kv)
        refill(quads, q)
        refill(labels, text)
        stripe_plot.x_range.end = model.heads
        data = bars(model, kv)
        if list(cache_plot.x_range.factors) != data["label"]:
            cache_plot.x_range.factors = data["label"]
        refill(cache, data)

    return [stripe_plot, cache_plot], show


def view() -> pn.viewable.Viewable:
    """The figure: layout picker, K/V heads box, two ends; stripes, cache bars, readout."""
    layout = pn.widgets.Select(
        name="Head layout",
        options={layout_label(m): m.name for m in LAYOUTS},
        value=DEFAULT.model,
        width=260,
    )
    # No start/end on the box: the browser would clamp an entry without a word; draw() says
    # which values the layout allows.
    kv_box = pn.widgets.IntInput(name="K/V heads", value=DEFAULT.kv_heads, width=110)
    one = button("Multi-query: 1 K/V head")
    every = button("Multi-head: H K/V heads")
    plots, show = _plots()
    readout, message = pane(), pane()
    about = note(
        "Each query head keeps its own W_q columns; only keys and values are shared, so only "
        "they shrink. The difference is computed live on the book's six tokens, head_dim 2."
    )

    def draw() -> None:
        state = State(layout.value, kv_box.value)
        rows = readouts(drawn(state))  # computes (or refuses) before anything is drawn
        show(*checked(state))
        readout.object = readout_html(rows)

    # A picked layout loads its published K/V count and draws once; the box draws on its own.
    box = Presets((kv_box,), recompute((), message, draw))
    layout.param.watch(lambda event: box.load(by_name(event.new).kv_heads), "value")
    one.on_click(lambda _event: box.load(1))
    every.on_click(lambda _event: box.load(by_name(layout.value).heads))
    return frame([layout, kv_box, one, every], plots, stacked(readout, about), message)
