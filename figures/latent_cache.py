"""Compressing the cache: DeepSeek-V2's latent against MHA, GQA and MQA (post 3, section 6).

Left, the key/value cache of DeepSeek-V2's 60 layers over T tokens if its attention were MHA,
GQA with a chosen number of groups, MQA, or what it is, MLA with a latent of d_c numbers plus
a 64-number rotary key per token and layer (the paper's Table 1, in bytes of bfloat16). Right,
a small random layer computed both ways, from rebuilt keys and values and with W_uk and W_uv
folded into the query and output projections: the largest difference, per latent width.
"""

from typing import NamedTuple

import numpy as np

from attention.latent import (
    GQA_GROUPS,
    KINDS,
    LATENT_WIDTHS,
    cache_comparison,
    equivalent_groups,
    tiny_gaps,
)
from attention.models import DEEPSEEK_V2
from figurekit import drawing
from figurekit.controls import Choice, Clicks, Slider
from figurekit.drawing import ACCENT, INK, MUTED, TOKEN_COLORS, Drawing, html
from formatting import bytes_text, integer, noise_text, num, percent

TITLE = "What one token leaves in the cache"
CAPTION = (
    "DeepSeek-V2's cache at its own sizes, as MHA, GQA, MQA and its latent attention (MLA). "
    "Widen or narrow the latent d_c, change the GQA groups, shorten the context. On the right, "
    "a tiny random layer computed from rebuilt keys and values and in the absorbed form: move "
    "its latent width or resample, and the two differ only by rounding."
)
LATENTS: tuple[int, ...] = (128, 256, 512, 1024)
GROUPS: tuple[int, ...] = tuple(g for g in (2, 4, 8, 16, 32, 64) if DEEPSEEK_V2.heads % g == 0)
LENGTHS: tuple[int, ...] = tuple(2**k for k in range(10, 18))  # 1,024 to 131,072 tokens
FIRST_SEED = 0
EPS = float(np.finfo(np.float64).eps)
BYTES_FLOOR = 1e7  # the left plot's axis starts here, below every bar the controls can reach
GAP_FLOOR = 1e-18  # the right plot's axis: a gap of exactly 0 draws no bar
KIND_COLORS = dict(zip(KINDS, (MUTED, TOKEN_COLORS[4], TOKEN_COLORS[1], ACCENT), strict=True))


def length_label(n: int) -> str:
    """A slider stop: '4,096', and the model's window named."""
    return f"{integer(n)} (128K)" if n == DEEPSEEK_V2.context else integer(n)


# Readouts that print float64 rounding itself: their last digits depend on the maths library
# that computed them, so the build's CPython and the reader's browser may print different ones.
ROUNDING = frozenset({"gap"})


class State(NamedTuple):
    """The controls: DeepSeek-V2's latent width, GQA groups, context; the tiny example's."""

    latent: int = DEEPSEEK_V2.kv_latent
    groups: int = GQA_GROUPS
    context: int = DEEPSEEK_V2.context
    tiny_latent: int = 4
    seed: int = FIRST_SEED


DEFAULT = State()
CONTROLS = (
    Choice("latent", "Latent width d_c", list(LATENTS), style="slider"),
    Choice("groups", "GQA groups", {str(g): g for g in GROUPS}),
    Choice("context", "Context length T", {length_label(n): n for n in LENGTHS}, style="slider"),
    Slider("tiny_latent", "Tiny layer's d_c", start=LATENT_WIDTHS[0], end=LATENT_WIDTHS[-1]),
    Clicks("seed", "Resample", first=FIRST_SEED),
)


def tiny_gap(state: State) -> float:
    """The tiny example's largest |rebuilt - absorbed| at the state's latent width."""
    return tiny_gaps(state.seed)[LATENT_WIDTHS.index(state.tiny_latent)]


# The quantities the readout's table compares for each kind of cache, by key suffix.
QUANTITIES = ("layer", "token", "context", "ratio")


def readouts(state: State) -> list[tuple[str, str, str]]:
    """Per kind: numbers per token and layer, bytes per token, over the context, share of MHA;
    then what MLA equals and the tiny layer's gap."""
    rows = cache_comparison(DEEPSEEK_V2, state.groups, state.latent, state.context)
    layers, tokens = DEEPSEEK_V2.layers, integer(state.context)
    items = []
    for row in rows:
        items += [
            (
                f"{row.kind}-layer",
                f"{row.label}: numbers per token, one layer",
                integer(row.per_layer),
            ),
            (
                f"{row.kind}-token",
                f"{row.label}: bytes per token, {layers} layers",
                bytes_text(row.token_bytes),
            ),
            (
                f"{row.kind}-context",
                f"{row.label}: bytes for {tokens} tokens",
                bytes_text(row.context_bytes),
            ),
            (f"{row.kind}-ratio", f"{row.label}: share of MHA's cache", percent(row.of_mha, 2)),
        ]
    same = equivalent_groups(DEEPSEEK_V2._replace(kv_latent=state.latent))
    items += [
        ("groups-equal", "MLA's cache equals GQA with", f"{num(same, 2)} groups"),
        (
            "gap",
            f"tiny layer, d_c = {state.tiny_latent}: largest |rebuilt − absorbed|",
            noise_text(tiny_gap(state)),
        ),
        ("seed", "tiny layer's seed", integer(state.seed)),
    ]
    return items


def readout(state: State) -> str:
    """The readouts as the reader sees them: the caches compared in a table, kind by
    quantity, then the rest as a list."""
    rows = cache_comparison(DEEPSEEK_V2, state.groups, state.latent, state.context)
    columns = [
        "numbers per token and layer",
        f"bytes per token, {DEEPSEEK_V2.layers} layers",
        f"bytes for {integer(state.context)} tokens",
        "share of MHA's",
    ]
    cells = [(row.label, [f"{row.kind}-{q}" for q in QUANTITIES]) for row in rows]
    return drawing.readouts_tabled(readouts(state), "cache", columns, cells)


def _cache_columns(state: State) -> dict:
    rows = cache_comparison(DEEPSEEK_V2, state.groups, state.latent, state.context)
    return {
        "label": [KINDS[row.kind] for row in rows],
        "bytes": [float(row.context_bytes) for row in rows],
        "text": [bytes_text(row.context_bytes) for row in rows],
        "color": [KIND_COLORS[row.kind] for row in rows],
    }


def _gap_columns(state: State) -> dict:
    gaps = tiny_gaps(state.seed)
    return {
        "label": [str(d_c) for d_c in LATENT_WIDTHS],
        "gap": [max(g, GAP_FLOOR) for g in gaps],
        "text": [noise_text(g) for g in gaps],
        "color": [ACCENT if d_c == state.tiny_latent else INK for d_c in LATENT_WIDTHS],
    }


def draw(state: State) -> Drawing:
    """DeepSeek-V2's cache four ways, the tiny layer's gap per latent width, the readout."""
    cache, gaps = _cache_columns(state), _gap_columns(state)
    return {
        "cache": {"data": cache},
        "gaps": {"data": gaps},
        "readout": html(readout(state)),
    }
