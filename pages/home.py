"""The index page: the posts in reading order."""

SLUG = ""
TEMPLATE = "index.html"
TITLE = "Attention, explained live"
SUMMARY = "Self-attention from chapter 3 of Build a Large Language Model (From Scratch)."


def context() -> dict:
    return {}
