"""Post 3: what modern models changed about attention. Every number the prose quotes.

Each value is computed by ``attention/`` from the published configurations in
``attention.models`` and formatted with ``formatting``, so the prose and the figures print the
same digits. Numbers quoted from a paper in its own words are marked as quotations. They are
computed by subject, a module each: ``caches`` (what each token keeps), ``scores`` (which
scores are computed, and where), ``positions`` (rotations), ``generation`` (the small GPT) and
``models`` (the table of models).
"""

import numpy as np

from attention.fixtures import TOKENS
from attention.masking import book_scores
from attention.window import window_mask
from pages.post3 import caches, generation, models, positions, scores

SLUG = "modern-attention"
TEMPLATE = "post3.html"
PUBLISHED = "2026-12-01"  # the day its template was first committed
TITLE = "After 2019: six changes to attention"
SUMMARY = (
    "The key/value cache, shared key and value heads, sliding windows, rotary positions, "
    "FlashAttention's online softmax and DeepSeek-V2's latent cache: what each changes, "
    "computed live in numpy at the sizes of published models."
)
PREVIEW_WINDOW = 3  # the band drawn on the link card


def preview() -> dict:
    """This post's link card: the book's scores under a sliding window of three tokens (the
    band figure "sliding-window" draws), everything outside the band minus infinity."""
    scores, _ = book_scores()
    masked = np.where(window_mask(len(TOKENS), PREVIEW_WINDOW), scores, -np.inf)
    return {
        "figure": "sliding-window",
        "matrix": masked,
        "labels": TOKENS,
        "caption": f"A sliding window of {PREVIEW_WINDOW}: a band where the triangle was",
        "alt": 'A 6 by 6 heatmap of attention scores for "Your journey starts with one step": '
        f"only a band of {PREVIEW_WINDOW} cells along the diagonal coloured, the rest −∞.",
    }


def context() -> dict:
    return {
        **models.context(),
        **caches.context(),
        **scores.context(),
        **positions.context(),
        **generation.context(),
    }
