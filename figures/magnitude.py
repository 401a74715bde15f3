"""What the dot product ranks: length. Scale one token and watch its column of the weights.

The heatmap is the whole 6x6 weight matrix; the scaled token's column is outlined and each
row's largest weight is in bold. Switching to cosine scores divides out the lengths.
"""

import numpy as np
import panel as pn
from bokeh.models import BoxAnnotation

from attention.analysis import (
    SCALE_EXAMPLE,
    attends_to_itself,
    cosine_scores,
    entropy_bits,
    largest_per_row,
    max_entropy_bits,
    mean_entropy_bits,
    norms,
    rows_won_by,
    scale_token,
)
from attention.basics import scores, softmax
from attention.fixtures import TOKENS, book_inputs
from figures.frame import frame, pane, readout_html, recompute
from figures.plots import HIGHLIGHT, choice, heatmap, heatmap_data, note, refill
from formatting import num, vec

TITLE = "Length wins"
SHORTEST = TOKENS[int(np.argmin(norms(book_inputs())))]
CAPTION = (
    f"Pick a token and scale its embedding: made {SCALE_EXAMPLE:g} times longer, the shortest "
    f"vector, {SHORTEST}, takes the largest weight in every row. Then switch to cosine, which "
    "ignores length, and see every token look hardest at itself."
)
DOT, COSINE = "dot product", "cosine"
MAX_SCALE = 10.0


def view() -> pn.viewable.Viewable:
    """The figure: token, scale and similarity controls over the 6x6 weight heatmap."""
    X0 = book_inputs()
    T = X0.shape[0]
    token = pn.widgets.Select(
        name="Token to scale", options=list(TOKENS), value=SHORTEST, width=160
    )
    scale = pn.widgets.FloatSlider(
        name="Scale factor", start=0.0, end=MAX_SCALE, step=0.1, value=1.0
    )
    similarity, similarity_control = choice("Similarity", [DOT, COSINE], DOT)
    plot, source, _ = heatmap("Weights α: row = query, column = key", TOKENS, TOKENS, 320)
    column = BoxAnnotation(
        bottom=0,
        top=T,
        fill_alpha=0.0,
        line_color=HIGHLIGHT,
        line_alpha=1.0,
        line_width=4,
        level="overlay",
    )
    plot.add_layout(column)
    readout, message = pane(), pane()
    hint = note(
        "Colour runs from weight 0 (pale) to 1 (dark). Each row's largest weight is in bold; "
        "the scaled token's column is outlined in blue."
    )

    def draw() -> None:
        j = TOKENS.index(token.value)
        X = scale_token(X0, j, scale.value)
        omega = scores(X) if similarity.value == DOT else cosine_scores(X, TOKENS)
        weights = softmax(omega)
        top = largest_per_row(weights)
        h = entropy_bits(weights)
        bold = np.zeros_like(weights, dtype=bool)
        bold[np.arange(T), top] = True
        refill(
            source,
            heatmap_data(
                weights,
                [num(w, 3) for w in weights.ravel()],
                bold=bold.ravel().tolist(),
                low=0,
                high=1,
            ),
        )
        column.update(left=j, right=j + 1)
        readout.object = readout_html(
            [
                ("norm", f"length of {token.value}", num(norms(X)[j])),
                ("self_weight", f"weight of {token.value} on itself", num(weights[j, j], 3)),
                (
                    "column_wins",
                    f"rows whose largest weight is on {token.value}",
                    f"{rows_won_by(weights, j)} of {T}",
                ),
                ("largest", "each row's largest weight goes to", ", ".join(TOKENS[k] for k in top)),
                (
                    "self_top",
                    "rows that look hardest at themselves",
                    f"{int(attends_to_itself(weights).sum())} of {T}",
                ),
                ("entropy", "row entropies (bits)", vec(h, 4)),
                ("mean_entropy", "mean row entropy (bits)", num(mean_entropy_bits(weights))),
                ("ceiling", f"ceiling log₂ {T}", num(max_entropy_bits(T))),
            ]
        )

    recompute(
        (token, scale, similarity),
        message,
        draw,
        explain=lambda err: f"{err}. Pick a scale above 0, or the dot product.",
    )
    return frame([token, scale, similarity_control], [plot], readout, pn.Column(message, hint))
