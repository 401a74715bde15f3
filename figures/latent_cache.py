"""Compressing the cache: DeepSeek-V2's latent against MHA, GQA and MQA (post 3, section 6).

Left, the key/value cache of DeepSeek-V2's 60 layers over T tokens if its attention were MHA,
GQA with a chosen number of groups, MQA, or what it is, MLA with a latent of d_c numbers plus
a 64-number rotary key per token and layer (the paper's Table 1, in bytes of bfloat16). Right,
a small random layer computed both ways, from rebuilt keys and values and with W_uk and W_uv
folded into the query and output projections: the largest difference, per latent width.
"""

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource, FactorRange, Range1d, Span

from attention.cost import CARD_GIB, card_bytes
from attention.latent import (
    GQA_GROUPS,
    KINDS,
    LATENT_WIDTHS,
    TINY_D,
    TINY_HEAD_DIM,
    TINY_HEADS,
    TINY_T,
    cache_comparison,
    equivalent_groups,
    tiny_gaps,
)
from attention.models import DEEPSEEK_V2
from figures.frame import ACCENT, INK, MUTED, frame, pane, readout_html, recompute
from figures.plots import TOKEN_COLORS, data_table, note, plot, refill, stacked
from figures.tryit import drawn
from figures.widgets import ChoiceSlider, Resample
from formatting import bytes_text, integer, noise_text, num, percent, sci

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


def tiny_gap(state: State) -> float:
    """The tiny example's largest |rebuilt - absorbed| at the state's latent width."""
    return tiny_gaps(state.seed)[LATENT_WIDTHS.index(state.tiny_latent)]


def readouts(state: State) -> list[tuple[str, str, str]]:
    """Per kind: numbers per token and layer, bytes per token, over the context, share of MHA."""
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


def _cache_plot(source: ColumnDataSource):
    p = plot(
        f"{DEEPSEEK_V2.name}'s cache, {DEEPSEEK_V2.layers} layers (log scale)",
        height=280,
        x_range=FactorRange(*KINDS.values()),
        y_axis_type="log",
    )
    p.vbar(x="label", top="bytes", bottom=BYTES_FLOOR, width=0.7, color="color", source=source)
    p.text(
        x="label",
        y="bytes",
        text="text",
        source=source,
        text_align="center",
        text_baseline="bottom",
        text_font_size="11px",
        text_color=INK,
        y_offset=-2,
    )
    card = Span(dimension="width", location=card_bytes(CARD_GIB), line_dash="dashed")
    card.line_color = INK
    p.add_layout(card)
    p.y_range = Range1d(BYTES_FLOOR, 8e12)
    p.xgrid.visible = False
    p.yaxis.axis_label = f"bytes over T tokens (dashed: one {CARD_GIB} GiB card)"
    data_table(p, source, [("label", "cache", "text"), ("text", "bytes over T tokens", "text")])
    return p


def _gap_plot(source: ColumnDataSource):
    p = plot(
        f"Tiny layer (T = {TINY_T}, d = {TINY_D}): rebuilt vs absorbed",
        height=280,
        x_range=FactorRange(*(str(d_c) for d_c in LATENT_WIDTHS)),
        y_axis_type="log",
    )
    p.vbar(x="label", top="gap", bottom=GAP_FLOOR, width=0.7, color="color", source=source)
    eps = Span(dimension="width", location=EPS, line_dash="dashed")
    eps.line_color = MUTED
    p.add_layout(eps)
    p.y_range = Range1d(GAP_FLOOR, 1e-12)
    p.xgrid.visible = False
    p.xaxis.axis_label = "latent width d_c"
    p.yaxis.axis_label = "largest |difference| (dashed: ε)"
    columns = [("label", "latent width d_c", "text"), ("text", "largest |difference|", "text")]
    data_table(p, source, columns)
    return p


def _plots() -> tuple[list, Callable[[State], None]]:
    cache = ColumnDataSource(_cache_columns(DEFAULT))
    gaps = ColumnDataSource(_gap_columns(DEFAULT))

    def show(state: State) -> None:
        refill(cache, _cache_columns(state))
        refill(gaps, _gap_columns(state))

    return [_cache_plot(cache), _gap_plot(gaps)], show


def view() -> pn.viewable.Viewable:
    """The figure: latent width, groups, context, the tiny layer's latent and seed; two plots."""
    latent = ChoiceSlider(name="Latent width d_c", options=list(LATENTS), value=DEFAULT.latent)
    groups = pn.widgets.Select(
        name="GQA groups", options={str(g): g for g in GROUPS}, value=DEFAULT.groups, width=110
    )
    context = ChoiceSlider(
        name="Context length T",
        options={length_label(n): n for n in LENGTHS},
        value=DEFAULT.context,
    )
    tiny = pn.widgets.IntSlider(
        name="Tiny layer's d_c",
        start=LATENT_WIDTHS[0],
        end=LATENT_WIDTHS[-1],
        value=DEFAULT.tiny_latent,
    )
    resample = Resample(FIRST_SEED)
    plots, show = _plots()
    readout, message = pane(), pane()
    about = note(
        f"Bytes at {DEEPSEEK_V2.bytes_per_value} per number (bfloat16). MLA caches d_c + "
        f"{DEEPSEEK_V2.rope_head_dim} numbers per token and layer: the latent and the shared "
        f"rotary key. The tiny layer has {TINY_HEADS} heads of width {TINY_HEAD_DIM}; ε = "
        f"{sci(EPS, 1)} is float64's spacing at 1."
    )

    def draw() -> None:
        state = State(
            int(latent.value), int(groups.value), int(context.value), int(tiny.value), resample.seed
        )
        show(state)
        readout.object = readout_html(readouts(drawn(state)))

    redraw = recompute((latent, groups, context, tiny), message, draw)
    resample.redraws(redraw)
    controls = [latent, groups, context, tiny, resample.button]
    return frame(controls, plots, stacked(readout, about), message)
