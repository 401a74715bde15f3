"""The running example of chapter 3: six tokens embedded in three dimensions, plus presets.

The presets are edits of the book's tensor that the figures offer as buttons. Each keeps the
book's two-decimal coordinates, so every score is an exact four-decimal number and the
quantities the text quotes come out exactly at four decimals.
"""

import numpy as np

TOKENS: tuple[str, ...] = ("Your", "journey", "starts", "with", "one", "step")

# Two facts about the smallest GPT-2 that chapter 3 quotes: its context length and embedding size.
GPT2_CONTEXT = 1024
GPT2_EMBED = 768
# Where chapter 2 left off: GPT-2's BPE vocabulary, and the shape of its example batch
# (8 rows of 4 token ids, each embedded in 256 numbers).
GPT2_VOCAB = 50_257
CH2_BATCH_SHAPE = (8, 4, 256)

# (T, d) = (6, 3): the tensor printed at the start of the chapter.
_BOOK = (
    (0.43, 0.15, 0.89),  # Your
    (0.55, 0.87, 0.66),  # journey
    (0.57, 0.85, 0.64),  # starts
    (0.22, 0.58, 0.33),  # with
    (0.77, 0.25, 0.10),  # one
    (0.05, 0.80, 0.55),  # step
)

# "negative": the sign of one's first coordinate flipped. Every book coordinate is positive, so
# every book score is too; this single flip makes Your . one negative, and dividing Your's
# scores by their sum then hands `one` a negative weight.
_NEGATIVE_EDITS = {(4, 0): -0.77}

# "near-zero": `one` is turned to point away from the other five, [0.46, 0.22, -0.80]. Its score
# against itself is its squared length, 0.2116 + 0.0484 + 0.64 = 0.9 exactly. Its scores against
# the others are all negative, because its -0.80 meets their large third coordinates; moving
# step's first coordinate from 0.05 to 0.08 makes those five negatives add up to exactly -0.89.
# The row then sums to 0.9 - 0.89 = 0.01, and dividing by that sum gives `one` a weight of
# 0.9 / 0.01 = 90 on itself (and every other token a large negative weight). The two edits were
# found by searching two-decimal coordinates for the smallest change from the book's tensor
# that produces a self-score of 0.9 over a row sum of 0.01.
_NEAR_ZERO_EDITS = {(4, 0): 0.46, (4, 1): 0.22, (4, 2): -0.80, (5, 0): 0.08}

PRESETS: dict[str, str] = {
    "book": "The book's tensor",
    "negative": "one's first coordinate made negative",
    "near-zero": "Scores that almost cancel",
}

_EDITS = {"book": {}, "negative": _NEGATIVE_EDITS, "near-zero": _NEAR_ZERO_EDITS}

# The query row (index into TOKENS) whose weights show what each preset is for.
_QUERY = {"book": 1, "negative": 0, "near-zero": 4}


def book_inputs() -> np.ndarray:
    """A fresh copy of the book's embeddings. -> (6, 3) float64"""
    return np.array(_BOOK, dtype=np.float64)


def _check_preset(name: str) -> str:
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}")
    return name


def preset_inputs(name: str) -> np.ndarray:
    """A fresh copy of the named preset's embeddings. name -> (6, 3) float64"""
    X = book_inputs()
    for (row, col), value in _EDITS[_check_preset(name)].items():
        X[row, col] = value
    return X


def preset_query(name: str) -> int:
    """The row of TOKENS to select as the query when showing the named preset."""
    return _QUERY[_check_preset(name)]
