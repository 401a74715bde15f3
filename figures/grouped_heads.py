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

from functools import lru_cache
from typing import NamedTuple

import numpy as np

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
from figurekit.controls import Action, Choice, Number
from figurekit.drawing import (
    ACCENT,
    INK,
    MUTED,
    TOKEN_COLORS,
    Drawing,
    html,
    outline,
    readout_html,
    text_on,
)
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
PICKER = Choice("model", "Head layout", {layout_label(m): m.name for m in LAYOUTS}, style="menu")
CONTROLS = (
    PICKER,
    # No start/end on the box: the browser would clamp an entry without a word; draw() says
    # which values the layout allows.
    Number("kv_heads", "K/V heads", whole=True),
)
# The two ends: one K/V head for every query head, or one per query head.
ACTIONS = (
    Action("Multi-query: 1 K/V head", lambda state: state._replace(kv_heads=1)),
    Action(
        "Multi-head: H K/V heads",
        lambda state: state._replace(kv_heads=by_name(state.model).heads),
    ),
)


def react(state: State, key: str) -> State:
    """A picked layout loads its published K/V count; the box sets only itself."""
    if key == PICKER.key:
        return state._replace(kv_heads=by_name(state.model).kv_heads)
    return state


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
    fills = quads["color"][: len(q_text)] + quads["color"][heads : heads + len(kv_text)]
    labels = {
        "x": [h + 0.5 for h in range(len(q_text))]
        + [(g + 0.5) * group for g in range(len(kv_text))],
        "y": [1.75] * len(q_text) + [0.5] * len(kv_text),
        "text": q_text + kv_text,
        "color": [text_on(fill) for fill in fills],
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


def draw(state: State) -> Drawing:
    """The stripes and the cache bars of the state's layout, and the readout; a K/V count the
    layout does not allow raises, saying which it does."""
    rows = readouts(state)  # computes (or refuses) before anything is drawn
    model, kv = checked(state)
    quads, labels = stripes(model.heads, kv)
    data = bars(model, kv)
    return {
        "quads": {"data": quads},
        "labels": {"data": labels},
        "stripes.x_range": {"end": model.heads},
        "cache.x_range": {"factors": data["label"]},
        "cache": {"data": data},
        "readout": html(readout_html(rows)),
    }
