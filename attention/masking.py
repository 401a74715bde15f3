"""Causal masking: a query at position i may only attend to keys j <= i (section 3.5).

Two routes to the same weights, as in the book:

- naive (mask after the softmax): softmax the full scaled score matrix, zero the future,
  divide each row by its remaining sum;
- efficient (mask before the softmax): set the future scores to -inf, then softmax once.

They agree up to rounding because the full-row denominator of the first softmax cancels in
the renormalisation: both equal the softmax over the visible prefix,

    weights_ij = exp(w_ij) [j <= i] / sum_{l <= i} exp(w_il),   w = scores / sqrt(d_k).

Setting the future scores to 0 instead of -inf does *not* hide them: exp(0) = 1 is a real
share of the row (``zero_mask_weights``, ``leaked_weight``).

``scores`` is always the raw Q K^T, (T, T) or with leading batch/head axes (..., T, T); the
division by sqrt(d_k) happens inside each function, as in the book's classes. A keep-mask is
boolean, True where a query may look. A row with nothing to look at has no softmax: such rows
raise ValueError rather than yield NaN (the causal mask never produces one, since every token
sees itself).
"""

import numpy as np

from attention._checks import check_array, check_positive_int
from attention.basics import softmax
from attention.fixtures import book_inputs
from attention.projections import mode_scores
from attention.torch_rng import weights_section_3_5

# Post 2, section 03: the counterexample that a zero score is not a zero weight.
COUNTEREXAMPLE_SCORES: tuple[float, ...] = (1.0, 2.0, 3.0, 0.0, 0.0)


def causal_mask(T: int) -> np.ndarray:
    """Keep-mask of a causal model: True on and below the diagonal. -> (T, T) bool"""
    T = check_positive_int(T, "T")
    return np.tril(np.ones((T, T), dtype=bool))


def _check_scores(scores: np.ndarray, name: str = "scores") -> np.ndarray:
    scores = check_array(scores, name, (2, 3, 4))
    if scores.shape[-1] != scores.shape[-2]:
        raise ValueError(f"{name} must be square in the last two axes, got {scores.shape}")
    return scores


def _keep_mask(mask: np.ndarray | None, T: int) -> np.ndarray:
    """The causal mask by default; a custom (T, T) keep-mask must leave every row something."""
    if mask is None:
        return causal_mask(T)
    mask = np.asarray(mask)
    if mask.dtype != bool or mask.shape != (T, T):
        raise ValueError(f"mask must be a ({T}, {T}) boolean array, got {mask.dtype} {mask.shape}")
    empty = np.flatnonzero(~mask.any(axis=1))
    if empty.size:
        raise ValueError(
            f"mask hides every key from row(s) {empty.tolist()}: a softmax over no entries is "
            "undefined (0/0), so those rows have no attention weights"
        )
    return mask


def _scale(scores: np.ndarray, d_k: int) -> np.ndarray:
    return scores / np.sqrt(check_positive_int(d_k, "d_k"))


def masked_after_softmax(
    scores: np.ndarray, d_k: int, mask: np.ndarray | None = None
) -> np.ndarray:
    """Naive route: softmax(scores / sqrt(d_k)), zero the masked entries, renormalise each row.

    scores: (..., T, T) -> (..., T, T). Raises ValueError if a row's visible weights sum to
    less than the smallest normal float64 after the first softmax (future scores hundreds of
    units above the visible ones): they have underflowed to 0 or to subnormals with few
    significant bits, and renormalising would be 0/0 or would blow their rounding up into
    wrong weights. ``masked_before_softmax`` has no such failure.
    """
    scores = _check_scores(scores)
    keep = _keep_mask(mask, scores.shape[-1])
    kept = softmax(_scale(scores, d_k)) * keep
    row_sums = np.sum(kept, axis=-1, keepdims=True)
    # At or above ``tiny`` a subnormal's absolute error (2^-1074) becomes at most 2^-52 after
    # the division: rounding noise. Below it, the division magnifies underflow into the result.
    lost = row_sums[..., 0] < np.finfo(np.float64).tiny
    if np.any(lost):
        rows = sorted({int(i) for i in np.nonzero(lost)[-1]})
        raise ValueError(
            f"the visible weights of row(s) {rows} underflowed in the first softmax (their sum "
            f"is below {np.finfo(np.float64).tiny:.1e}, the smallest normal float64), so the "
            "masked-after-softmax route lost those rows: renormalising them would give wrong "
            "weights. Mask before the softmax (masked_before_softmax) instead"
        )
    return kept / row_sums


def masked_before_softmax(
    scores: np.ndarray, d_k: int, mask: np.ndarray | None = None
) -> np.ndarray:
    """Efficient route: masked scores set to -inf, then softmax(scores / sqrt(d_k)) once.

    scores: (..., T, T) -> (..., T, T); masked entries are exactly 0, each row sums to 1.
    """
    scores = _check_scores(scores)
    keep = _keep_mask(mask, scores.shape[-1])
    return softmax(_scale(np.where(keep, scores, -np.inf), d_k))


def naive_stages(scores: np.ndarray, d_k: int) -> list[tuple[str, np.ndarray]]:
    """The naive route step by step, for a figure to walk through. (T, T) -> [(name, (T, T))]

    scores -> weights (softmax of the scaled scores) -> keep mask (1 on and below the
    diagonal) -> masked weights -> renormalised weights.
    """
    scores = _check_scores(scores)
    keep = causal_mask(scores.shape[-1])
    weights = softmax(_scale(scores, d_k))
    masked = weights * keep
    return [
        ("scores", scores),
        ("weights", weights),
        ("keep mask", keep.astype(np.float64)),
        ("masked weights", masked),
        ("renormalised weights", masked_after_softmax(scores, d_k)),
    ]


def efficient_stages(scores: np.ndarray, d_k: int) -> list[tuple[str, np.ndarray]]:
    """The efficient route step by step. (T, T) -> [(name, (T, T))]

    scores -> future mask (1 strictly above the diagonal) -> masked scores (-inf in the
    future) -> weights (softmax of the masked scores / sqrt(d_k)).
    """
    scores = _check_scores(scores)
    future = ~causal_mask(scores.shape[-1])
    masked = np.where(future, -np.inf, scores)
    return [
        ("scores", scores),
        ("future mask", future.astype(np.float64)),
        ("masked scores", masked),
        ("weights", softmax(_scale(masked, d_k))),
    ]


def zero_mask_stages(scores: np.ndarray, d_k: int) -> list[tuple[str, np.ndarray]]:
    """The efficient route with the wrong fill: 0 instead of -inf. (T, T) -> [(name, (T, T))]

    Same steps and names as ``efficient_stages``; the last stage is ``zero_mask_weights``.
    """
    scores = _check_scores(scores)
    future = ~causal_mask(scores.shape[-1])
    return [
        ("scores", scores),
        ("future mask", future.astype(np.float64)),
        ("masked scores", np.where(future, 0.0, scores)),
        ("weights", zero_mask_weights(scores, d_k)),
    ]


def mask_difference(scores: np.ndarray, d_k: int) -> np.ndarray:
    """Naive minus efficient weights, the figure's difference grid: rounding noise only.

    scores: (..., T, T) -> (..., T, T)
    """
    return masked_after_softmax(scores, d_k) - masked_before_softmax(scores, d_k)


def zero_mask_weights(scores: np.ndarray, d_k: int) -> np.ndarray:
    """The wrong mask: future scores set to 0 (not -inf) before the division and softmax.

    scores: (..., T, T) -> (..., T, T); rows sum to 1 but the future keeps real weight.
    """
    scores = _check_scores(scores)
    return softmax(_scale(np.where(causal_mask(scores.shape[-1]), scores, 0.0), d_k))


def zero_mask_difference(scores: np.ndarray, d_k: int) -> np.ndarray:
    """Naive (correct) weights minus the zero-filled route's: the leak, cell by cell.

    scores: (..., T, T) -> (..., T, T); negative above the diagonal, where the future took weight.
    """
    return masked_after_softmax(scores, d_k) - zero_mask_weights(scores, d_k)


def leaked_weight(weights: np.ndarray) -> np.ndarray:
    """Each query's total weight on keys after it (strictly above the diagonal).

    weights: (..., T, T) -> (..., T); all zeros for a correct causal mask.
    """
    weights = _check_scores(weights, "weights")
    future = ~causal_mask(weights.shape[-1])
    return np.sum(weights * future, axis=-1)


def book_scores() -> tuple[np.ndarray, int]:
    """The scores the book masks in section 3.5, and their d_k. -> ((6, 6), 2)

    Q K^T on the book's six tokens with sa_v2's query and key weights (seed 789).
    """
    W_query, W_key, _ = weights_section_3_5()
    return mode_scores(book_inputs(), "separate", W_query, W_key), W_key.shape[1]


def book_causal_weights() -> np.ndarray:
    """Section 3.5's causal attention weights on the book's six tokens. -> (6, 6)"""
    return masked_before_softmax(*book_scores())
