"""Self-attention with trainable weights: three projections, scaled scores (section 3.4).

Each token is projected three times before anything is compared:

    Q = X W_q,  K = X W_k,  V = X W_v
    scores = Q K^T,  weights = softmax_row(scores / sqrt(d_k)),  context = weights V
    X: (T, d_in),  W: (d_in, d_out),  Q, K, V: (T, d_out),  scores, weights: (T, T)

``scores`` always means the raw Q K^T (the book's ``attn_scores``); the division by sqrt(d_k)
happens on the way into the softmax, where d_k is the key width ``K.shape[-1]``.

The three modes of the projection figure show why two different matrices are needed:

- ``"none"``: no projection, scores = X X^T (post 1), symmetric by construction;
- ``"tied"``: W_k = W_q, scores = (X W_q)(X W_q)^T, a Gram matrix again, still symmetric;
- ``"separate"``: scores = (X W_q)(X W_k)^T, which is not symmetric.

In every mode the weights divide by sqrt(d_out) = sqrt(W_q.shape[1]), also in ``"none"`` where
X has d_in columns: that is the convention behind the post's readouts (weight error 0.0634 in
``"none"``). The weights are never symmetric, whatever the mode, because each row is
normalised by its own denominator.
"""

import numpy as np

from attention._checks import (
    check_array,
    check_matrix,
    check_positive_int,
    checked_matmul,
    refuse_overflow,
)
from attention.basics import softmax

MODES: tuple[str, ...] = ("none", "tied", "separate")


def project(X: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Map every token through one weight matrix.

    X: (T, d_in) or (b, T, d_in), W: (d_in, d_out) -> (T, d_out) or (b, T, d_out)

    The book's ``nn.Linear(d_in, d_out)`` computes the same thing as ``X @ layer.weight.T``:
    its stored weight is this W transposed.
    """
    X = check_array(X, "X", (2, 3))
    W = check_matrix(W, "W")
    if X.shape[-1] != W.shape[0]:
        raise ValueError(f"X has {X.shape[-1]} features but W expects {W.shape[0]} rows (d_in)")
    return checked_matmul(X, W, "the projection")


def qkv(
    X: np.ndarray, W_query: np.ndarray, W_key: np.ndarray, W_value: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Queries, keys and values. X: ([b,] T, d_in), W_*: (d_in, d_out) -> three ([b,] T, d_out)

    W_value may have a different width d_v from the query/key width d_k.
    """
    Q, K, V = project(X, W_query), project(X, W_key), project(X, W_value)
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"W_query and W_key need one width d_k, got {Q.shape[-1]}, {K.shape[-1]}")
    return Q, K, V


def scaled_scores(Q: np.ndarray, K: np.ndarray) -> np.ndarray:
    """Q K^T / sqrt(d_k), what the softmax receives, d_k = K.shape[-1].

    Q: (..., T_q, d_k), K: (..., T_k, d_k) -> (..., T_q, T_k), with up to two leading axes.
    """
    Q = check_array(Q, "Q", (2, 3, 4))
    K = check_array(K, "K", (2, 3, 4))
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q and K need one width d_k, got {Q.shape[-1]} and {K.shape[-1]}")
    d_k = K.shape[-1]
    return checked_matmul(Q, np.swapaxes(K, -1, -2), "the scores") / np.sqrt(d_k)


def self_attention(
    X: np.ndarray, W_query: np.ndarray, W_key: np.ndarray, W_value: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """SelfAttention_v1/v2's forward pass with every stage returned.

    X: (T, d_in), W_*: (d_in, d_out) -> scores (T, T) = Q K^T, weights (T, T), context (T, d_v)
    """
    Q, K, V = qkv(check_matrix(X, "X"), W_query, W_key, W_value)
    scores = checked_matmul(Q, K.T, "the scores")
    weights = softmax(scores / np.sqrt(K.shape[-1]))
    return scores, weights, checked_matmul(weights, V, "the context")


def _check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    return mode


def mode_scores(X: np.ndarray, mode: str, W_query: np.ndarray, W_key: np.ndarray) -> np.ndarray:
    """Raw scores in one of the three modes. X: (T, d_in), W_*: (d_in, d_out) -> (T, T)

    "none": X X^T (the matrices are ignored); "tied": (X W_q)(X W_q)^T; "separate":
    (X W_q)(X W_k)^T. Only "separate" can give ``symmetry_error(scores) > 0``.
    """
    mode = _check_mode(mode)
    X = check_matrix(X, "X")
    Q, K, _ = qkv(X, W_query, W_key, W_query)  # validates both matrices in every mode
    if mode == "none":
        Q = K = X
    elif mode == "tied":
        K = Q
    return checked_matmul(Q, K.T, "the scores")


def mode_weights(X: np.ndarray, mode: str, W_query: np.ndarray, W_key: np.ndarray) -> np.ndarray:
    """softmax_row(mode_scores / sqrt(d_out)), d_out = W_query.shape[1] in every mode. -> (T, T)"""
    scores = mode_scores(X, mode, W_query, W_key)
    d_out = np.shape(W_query)[1]
    return softmax(scores / np.sqrt(d_out))


def score_row_sums(scores: np.ndarray) -> np.ndarray:
    """Each row's total score; different totals are why softmax weights are not symmetric.

    scores: (T, T) -> (T,)
    """
    return np.sum(check_matrix(scores, "scores"), axis=1)


def softmax_denominators(scores: np.ndarray, d_k: int) -> np.ndarray:
    """Each row's softmax denominator D_i = sum_j exp(scores_ij / sqrt(d_k)). (T, T) -> (T,)

    Weight a_ij is exp(scores_ij / sqrt(d_k)) / D_i, so for symmetric scores
    a_ij / a_ji = D_j / D_i: rows with different denominators cannot give symmetric weights.
    """
    scores = check_matrix(scores, "scores")
    with np.errstate(over="ignore"):
        D = np.sum(np.exp(scores / np.sqrt(check_positive_int(d_k, "d_k"))), axis=1)
    return refuse_overflow(D, "a softmax denominator", "the scores")


def asymmetry(M: np.ndarray) -> np.ndarray:
    """M - M^T: entry (i, j) is how much more i gives j than j gives i. (T, T) -> (T, T)"""
    M = check_matrix(M, "M")
    if M.shape[0] != M.shape[1]:
        raise ValueError(f"M must be square, got shape {M.shape}")
    return M - M.T


def most_asymmetric_pair(M: np.ndarray) -> tuple[int, int]:
    """The pair (i, j), i < j, with the largest |M_ij - M_ji|; the first such pair on ties.

    M: (T, T) -> (i, j); (0, 0) when M is symmetric (a 1 x 1 matrix included): no pair differs.
    """
    gap = np.abs(np.triu(asymmetry(M), k=1))
    i, j = np.unravel_index(np.argmax(gap), gap.shape)
    return int(i), int(j)
