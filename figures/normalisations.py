"""Why not divide by the sum: the obvious normalisation beside softmax, for one query.

Presets edit the book's tensor so that dividing by the sum breaks: a negative weight, then a
denominator so close to zero that one weight explodes. Weights no probability could be are
drawn in red and named on the figure.
"""

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource, Span

from attention.basics import improper_weights, query_scores, row_sums, softmax, sum_normalise
from attention.fixtures import PRESETS, TOKENS, preset_inputs, preset_query
from figures.frame import ACCENT, INK, frame, message_html, pane, readout_html, recompute
from figures.plots import FLAG, bar_chart, choice, note, refill
from formatting import num, vec

TITLE = "Divide by the sum, or softmax"
CAPTION = (
    f"The same six scores normalised two ways. Pick “{PRESETS['negative']}” and read the "
    "divide-by-sum panel: one token gets a negative weight while the row still sums to one. "
    f"Then try “{PRESETS['near-zero']}”, and other query tokens."
)
PRESET_LABELS = {label: name for name, label in PRESETS.items()}


def _columns(s, by_sum, soft, bad, i) -> dict:
    """One row per token, read by both panels."""
    n = len(TOKENS)
    return {
        "label": list(TOKENS),
        "score": s.tolist(),
        "by_sum": by_sum.tolist(),
        "softmax": soft.tolist(),
        "color": [FLAG if bad[j] else INK for j in range(n)],
        "soft_color": [INK] * n,
        "edge": [ACCENT if j == i else "#ffffff" for j in range(n)],
        "edge_width": [3.0 if j == i else 1.0 for j in range(n)],
        "by_sum_text": [num(v) for v in by_sum],
        "softmax_text": [num(v) for v in soft],
    }


def _flag_text(by_sum: np.ndarray, bad: np.ndarray, denominator: float) -> str:
    """Name each weight no probability could be, and say why it happened."""
    named = ", ".join(f"{TOKENS[j]} {num(by_sum[j])}" for j in np.flatnonzero(bad))
    return (
        f"Dividing by the sum ({num(denominator)}) gives weights outside 0 to 1: {named}. "
        "They still add up to 1; softmax's never leave 0 to 1."
    )


def view() -> pn.viewable.Viewable:
    """The figure: preset and query pickers, two bar charts, scores and both weight rows."""
    preset, preset_control = choice(
        "Tensor", list(PRESET_LABELS), PRESETS["book"], orientation="vertical", width=280
    )
    query = pn.widgets.Select(name="Query token", options=list(TOKENS), value=TOKENS[1], width=160)
    zeros = np.zeros(len(TOKENS))
    source = ColumnDataSource(_columns(zeros, zeros, zeros, zeros.astype(bool), 1))
    tips = [("token", "@label"), ("score ω", "@score{0.0000}")]
    by_sum_plot = bar_chart(
        "ω / Σω  (divide by the sum)",
        source,
        TOKENS,
        "by_sum",
        "weight",
        tooltips=[*tips, ("ω / Σω", "@by_sum_text")],
    )
    softmax_plot = bar_chart(
        "softmax(ω)",
        source,
        TOKENS,
        "softmax",
        "weight",
        color="soft_color",
        tooltips=[*tips, ("softmax", "@softmax_text")],
    )
    for p in (by_sum_plot, softmax_plot):
        p.add_layout(Span(location=0, dimension="width", line_color="#64748b", line_width=1))

    readout, message = pane(), pane()
    hint = note("Red bars are weights no probability could be: below 0 or above 1.")

    def draw() -> str:
        X = preset_inputs(PRESET_LABELS[preset.value])
        i = TOKENS.index(query.value)
        s = query_scores(X, i)
        denominator = row_sums(s)
        by_sum = sum_normalise(s)
        soft = softmax(s)
        bad = improper_weights(by_sum)
        refill(source, _columns(s, by_sum, soft, bad, i))
        readout.object = readout_html(
            [
                ("scores", f"scores ω for {query.value}", vec(s)),
                ("denominator", "Σω, the divide-by-sum denominator", num(denominator)),
                ("by_sum", "ω / Σω", vec(by_sum)),
                ("by_sum_total", "ω / Σω adds up to", num(row_sums(by_sum), 3)),
                ("softmax", "softmax(ω)", vec(soft)),
                ("softmax_total", "softmax(ω) adds up to", num(row_sums(soft), 3)),
            ]
        )
        return message_html(_flag_text(by_sum, bad, denominator) if bad.any() else "")

    redraw = recompute((), message, draw)
    switching = {"preset": False}

    def on_query(*_events) -> None:
        if not switching["preset"]:  # a preset sets its query, then draws once
            redraw()

    def on_preset(event) -> None:
        # Each preset comes with the query whose row shows what it is for.
        switching["preset"] = True
        query.value = TOKENS[preset_query(PRESET_LABELS[event.new])]
        switching["preset"] = False
        redraw()

    preset.param.watch(on_preset, "value")
    query.param.watch(on_query, "value")
    return frame(
        [preset_control, query], [by_sum_plot, softmax_plot], readout, pn.Column(message, hint)
    )
