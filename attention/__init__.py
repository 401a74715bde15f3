"""Self-attention in float64 numpy: every number the explainer shows.

Each module is one stage of the story, written as small pure functions over arrays:

- ``fixtures``: the book's six tokens and their 6x3 embeddings, plus presets.
- ``basics``: scores, softmax, context vectors (section 3.3 of the book).
"""
