"""The running example of chapter 3: six tokens embedded in three dimensions."""

import numpy as np

TOKENS: tuple[str, ...] = ("Your", "journey", "starts", "with", "one", "step")

# (T, d) = (6, 3): the tensor printed at the start of the chapter.
_BOOK = (
    (0.43, 0.15, 0.89),  # Your
    (0.55, 0.87, 0.66),  # journey
    (0.57, 0.85, 0.64),  # starts
    (0.22, 0.58, 0.33),  # with
    (0.77, 0.25, 0.10),  # one
    (0.05, 0.80, 0.55),  # step
)


def book_inputs() -> np.ndarray:
    """A fresh copy of the book's embeddings. -> (6, 3) float64"""
    return np.array(_BOOK, dtype=np.float64)
