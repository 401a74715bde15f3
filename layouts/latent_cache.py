"""The latent-cache figure's layout: latent width, groups, context, the tiny layer's latent
width and Resample; DeepSeek-V2's cache four ways and the tiny layer's gaps."""

import panel as pn
from bokeh.models import ColumnDataSource, FactorRange, Range1d, Span

from attention.cost import CARD_GIB, card_bytes
from attention.latent import KINDS, LATENT_WIDTHS, TINY_D, TINY_HEAD_DIM, TINY_HEADS, TINY_T
from attention.models import DEEPSEEK_V2
from figurekit.drawing import INK, MUTED
from figurekit.figure import Figure
from figures.latent_cache import BYTES_FLOOR, EPS, GAP_FLOOR
from formatting import sci
from layoutkit.frame import frame, pane
from layoutkit.plots import data_table, note, plot, stacked
from layoutkit.wiring import widget, wire

# How each control looks, by control key.
LOOK = {"gqa-groups": {"width": 110}}


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
    p.yaxis.axis_label = f"bytes for T tokens (dashed: {CARD_GIB} GiB)"
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


def layout(figure: Figure) -> pn.viewable.Viewable:
    """Latent width, groups, context, the tiny layer's latent and Resample; two plots."""
    widgets = {
        key: widget(c, c.get(figure.state), **LOOK.get(key, {}))[0]
        for key, c in figure.controls.items()
    }
    cache = ColumnDataSource({"label": [], "bytes": [], "text": [], "color": []})
    gaps = ColumnDataSource({"label": [], "gap": [], "text": [], "color": []})
    plots = [_cache_plot(cache), _gap_plot(gaps)]
    readout, message = pane(), pane()
    about = note(
        f"Bytes at {DEEPSEEK_V2.bytes_per_value} per number (bfloat16). MLA caches d_c + "
        f"{DEEPSEEK_V2.rope_head_dim} numbers per token and layer: the latent and the shared "
        f"rotary key. The tiny layer has {TINY_HEADS} heads of width {TINY_HEAD_DIM}; ε = "
        f"{sci(EPS, 1)} is float64's spacing at 1."
    )
    handles = {"cache": cache, "gaps": gaps, "readout": readout, "message": message}
    wire(figure, widgets, {}, handles)
    return frame(list(widgets.values()), plots, stacked(readout, about), message)
