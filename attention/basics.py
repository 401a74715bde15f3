"""Parameter-free self-attention: scores, weights, context vectors."""

import numpy as np


def softmax(scores: np.ndarray, axis: int = -1) -> np.ndarray:
    """Exponentiate and normalise along ``axis``. (..., T) -> (..., T)

    The row maximum is subtracted first, so any finite input gives finite weights
    (exp of the largest entry is exp(0) = 1). Entries equal to -inf get weight 0.
    """
    scores = np.asarray(scores, dtype=np.float64)
    shifted = scores - np.max(scores, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)
