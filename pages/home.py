"""The index page: the posts in reading order."""

from attention.basics import attend
from attention.fixtures import TOKENS, book_inputs

SLUG = ""
TEMPLATE = "index.html"
TITLE = "Attention, explained live"
SUMMARY = "Self-attention from chapter 3 of Build a Large Language Model (From Scratch)."


def context() -> dict:
    return {}


def preview() -> dict:
    """The site's link card (sitebuild/preview.py), which the pages that are no post show too:
    the attention weights of the book's sentence, as post 1's figure "magnitude" shows them."""
    return {
        "figure": "magnitude",
        "matrix": attend(book_inputs())[1],
        "labels": TOKENS,
        "caption": "Attention weights of the book's six tokens",
        "alt": "The site's name beside a 6 by 6 heatmap of the attention weights among the "
        'tokens of "Your journey starts with one step".',
    }
