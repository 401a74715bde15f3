"""Post 1: attention with no trainable weights. Every number the prose quotes."""

from attention.basics import context as context_vector
from attention.basics import query_scores, softmax
from attention.fixtures import TOKENS, book_inputs
from figures.fmt import vec

SLUG = "attention-without-weights"
TEMPLATE = "post1.html"
TITLE = "Attention with no parameters at all"
SUMMARY = (
    "Six tokens, three numbers each, and the three steps of self-attention: what they "
    "compute, why softmax, and how little the mechanism does without trainable weights."
)


def context() -> dict:
    X = book_inputs()
    journey = TOKENS.index("journey")
    s = query_scores(X, journey)
    w = softmax(s)
    return {
        "journey_scores": vec(s),
        "journey_weights": vec(w),
        "journey_context": vec(context_vector(w, X)),
    }
