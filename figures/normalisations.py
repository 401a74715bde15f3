"""Why not divide by the sum: the obvious normalisation beside softmax, for one query.

Presets edit the book's tensor so that dividing by the sum breaks: a negative weight, then a
denominator so close to zero that one weight explodes. Weights no probability could be are
drawn in red and named on the figure.
"""

from typing import NamedTuple

import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource, Span

from attention.basics import improper_weights, query_scores, row_sums, softmax, sum_normalise
from attention.fixtures import PRESETS, TOKENS, preset_inputs, preset_query
from figures.frame import INK, frame, message_html, pane, readout_html, recompute
from figures.plots import FLAG, bar_chart, choice, note, outline, refill
from figures.tryit import drawn
from figures.widgets import Presets, token_picker
from formatting import num, vec

TITLE = "Divide by the sum, or softmax"
CAPTION = (
    f"The same six scores normalised two ways. Pick “{PRESETS['negative']}” and read the "
    "divide-by-sum panel: one token gets a negative weight while the row still sums to one. "
    f"Then try “{PRESETS['near-zero']}”, and other query tokens. Picking a tensor also picks "
    "the query whose row shows it best; the readout names it."
)
PRESET_LABELS = {label: name for name, label in PRESETS.items()}
HINT = "Red bars are weights no probability could be: below 0 or above 1."


class State(NamedTuple):
    """The tensor preset (its name in ``PRESETS``) and the query token."""

    preset: str
    query: str


def _row(state: State) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The query's scores, divided by their sum, and through softmax."""
    s = query_scores(preset_inputs(state.preset), TOKENS.index(state.query))
    return s, sum_normalise(s), softmax(s)


def readouts(state: State) -> list[tuple[str, str, str]]:
    """The scores, both normalisations and what each adds up to."""
    s, by_sum, soft = _row(state)
    picked = TOKENS.index(state.query) == preset_query(state.preset)
    return [
        ("query", "query token", state.query + (" (the tensor's pick)" if picked else "")),
        ("scores", f"scores ω for {state.query}", vec(s)),
        ("denominator", "Σω, the divide-by-sum denominator", num(row_sums(s))),
        ("by_sum", "ω / Σω", vec(by_sum)),
        ("by_sum_total", "ω / Σω adds up to", num(row_sums(by_sum), 3)),
        ("softmax", "softmax(ω)", vec(soft)),
        ("softmax_total", "softmax(ω) adds up to", num(row_sums(soft), 3)),
    ]


def message(state: State) -> str:
    """The weights no probability could be, named, or nothing when there are none."""
    s, by_sum, _ = _row(state)
    bad = improper_weights(by_sum)
    return _flag_text(by_sum, bad, row_sums(s)) if bad.any() else ""


def _preset_query(label: str) -> tuple[str]:
    """Each preset comes with the query whose row shows what it is for."""
    return (TOKENS[preset_query(PRESET_LABELS[label])],)


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
        **outline([j == i for j in range(n)]),
        "by_sum_text": [num(v) for v in by_sum],
        "softmax_text": [num(v) for v in soft],
    }


def _bars_columns(state: State) -> dict:
    """Both panels' bars for the state, improper weights flagged and the query outlined."""
    s, by_sum, soft = _row(state)
    return _columns(s, by_sum, soft, improper_weights(by_sum), TOKENS.index(state.query))


def _flag_text(by_sum: np.ndarray, bad: np.ndarray, denominator: float) -> str:
    """Name each weight no probability could be, and say why it happened."""
    named = ", ".join(f"{TOKENS[j]} {num(by_sum[j])}" for j in np.flatnonzero(bad))
    return (
        f"Dividing by the sum ({num(denominator)}) gives weights outside 0 to 1: {named}. "
        "They still add up to 1; softmax's never leave 0 to 1."
    )


def _bar_plots(source: ColumnDataSource) -> tuple:
    """The two bar charts, divide-by-sum and softmax, with a line at 0."""
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
    return by_sum_plot, softmax_plot


def view() -> pn.viewable.Viewable:
    """The figure: preset and query pickers, two bar charts, scores and both weight rows."""
    preset, preset_control = choice(
        "Tensor", list(PRESET_LABELS), PRESETS["book"], orientation="vertical", width=280
    )
    query = token_picker()
    zeros = np.zeros(len(TOKENS))
    source = ColumnDataSource(_columns(zeros, zeros, zeros, zeros.astype(bool), 1))
    by_sum_plot, softmax_plot = _bar_plots(source)
    readout, banner = pane(), pane()
    hint = note(HINT)

    def draw() -> str:
        state = State(PRESET_LABELS[preset.value], query.value)
        refill(source, _bars_columns(state))
        readout.object = readout_html(readouts(drawn(state)))
        return message_html(message(state))

    # The preset and the query are watched through Presets, not recompute, so that a preset
    # that also sets its query draws once.
    Presets([query], recompute((), banner, draw)).picked_by(preset, _preset_query)
    return frame(
        [preset_control, query], [by_sum_plot, softmax_plot], readout, pn.Column(banner, hint)
    )
