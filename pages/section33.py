"""Section 3.3 of the book, by hand: one query step by step, then all queries at once."""

from attention.basics import attend, dot_terms, query_scores, row_sums, softmax, sum_normalise
from attention.basics import context as context_vector
from attention.fixtures import GPT2_EMBED, TOKENS, book_inputs
from formatting import integer, num, vec

SLUG = "section-3-3"
TEMPLATE = "section33.html"
PUBLISHED = "2026-11-29"  # the day its template was first committed
TITLE = "Section 3.3 by hand: self-attention with nothing trained"
SUMMARY = (
    "The book's section 3.3 worked through in numpy: one query's scores, weights and context "
    "vector step by step, then every query at once: two matrix products and a softmax. Point "
    "at any cell of the figures to see where its number comes from."
)
QUERY = "journey"  # the book's running query, the second token


def preview() -> dict:
    """This page's link card (sitebuild/preview.py): the matrix of figure "score-matrix",
    every token's dot product with every other."""
    return {
        "figure": "score-matrix",
        "matrix": attend(book_inputs())[0],
        "labels": TOKENS,
        "caption": "All 36 scores at once: inputs @ inputs.T",
        "alt": 'A 6 by 6 heatmap of the dot-product scores among the tokens of "Your journey '
        "starts with one step\", darker where two tokens' vectors agree more.",
    }


def context() -> dict:
    X = book_inputs()
    T, d = X.shape
    q = TOKENS.index(QUERY)
    s = query_scores(X, q)
    terms, total = dot_terms(X[q], X[0])
    w = softmax(s)
    _, _, Z = attend(X)
    return {
        "T": integer(T),
        "d": integer(d),
        "gpt2_embed": integer(GPT2_EMBED),
        "query": QUERY,
        "q": integer(q + 1),  # the book counts tokens from 1
        "first": TOKENS[0],
        "worked_factors": " + ".join(
            f"{num(a, 2)} · {num(b, 2)}" for a, b in zip(X[q], X[0], strict=True)
        ),
        "worked_products": " + ".join(num(t) for t in terms),
        "worked_sum": num(total),
        "scores": vec(s),
        "score_sum": num(row_sums(s)),
        "by_sum": vec(sum_normalise(s)),
        "weights": vec(w),
        "z": vec(context_vector(w, X)),
        "z_row": vec(Z[q]),
        "contexts": [vec(row) for row in Z],
    }
