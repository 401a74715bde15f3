"""Sliding-window attention: a band instead of a triangle (post 3).

Each query looks at the last W tokens, itself included, instead of every token before it:

    keep_ij = (j <= i) and (i - j < W),   so row i keeps keys max(0, i - W + 1) .. i

That is min(i + 1, W) keys in row i: at most W, as Mistral 7B's Figure 1 puts it ("each token
can attend to at most W tokens from the previous layer"), and the mask Mistral's reference
code builds with xFormers' local attention (keys i - W + 1 .. i). With W >= T the band covers
the whole causal triangle and the layer is ordinary causal attention (``masking.causal_mask``).

The cost: sum_i min(i + 1, W) scores, W per row once the window is full, so T W against the
causal T (T + 1) / 2 and the full T^2 (``basics.score_dot_products``, ``cost``): linear in T.

The reach: one layer carries information from j to i only if i - j < W, at most W - 1
positions back. Stacking L layers composes the masks (a boolean matrix product), and position
i can then be influenced by every position back to i - L (W - 1). Mistral 7B states the bound
as "up to k x W tokens" after k layers, 131,072 for its 32 layers of W = 4096 ("approximately
131K"); with the window counted as above, itself included, the exact span is 32 x 4095.

Sources: Beltagy, Peters and Cohan 2020, Longformer (arXiv:2004.05150), section 3.1;
Jiang et al. 2023, Mistral 7B (arXiv:2310.06825), section 2, Figure 1 and Table 1.
"""

import numpy as np

from attention._checks import check_matrix, check_positive_int, checked_matmul
from attention.basics import score_dot_products
from attention.cost import score_matrix_bytes
from attention.masking import causal_mask, masked_before_softmax
from attention.projections import qkv


def window_mask(T: int, W: int) -> np.ndarray:
    """Keep-mask of sliding-window attention: True where j <= i and i - j < W. -> (T, T) bool

    Row i keeps its last min(i + 1, W) keys, itself included; W >= T gives the causal mask.
    """
    T = check_positive_int(T, "T")
    W = check_positive_int(W, "W (the window)")
    i, j = np.indices((T, T))
    return (j <= i) & (i - j < W)


def window_weights(
    X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray, W: int
) -> np.ndarray:
    """Attention weights under the band. X: (T, d_in), W_*: (d_in, d_out) -> (T, T)

    softmax(Q K^T / sqrt(d_k)) over each row's last W keys; exactly 0 outside the band.
    """
    X = check_matrix(X, "X")
    Q, K, _ = qkv(X, W_q, W_k, W_v)
    scores = checked_matmul(Q, K.T, "the scores")
    return masked_before_softmax(scores, K.shape[-1], window_mask(X.shape[0], W))


def window_attention(
    X: np.ndarray, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray, W: int
) -> np.ndarray:
    """Sliding-window self-attention's context vectors. X: (T, d_in), W_*: (d_in, d_out) -> (T, d_v)

    Each token's context is a weighted sum of the values of its last W tokens (itself included).
    """
    X = check_matrix(X, "X")
    _, _, V = qkv(X, W_q, W_k, W_v)
    return checked_matmul(window_weights(X, W_q, W_k, W_v, W), V, "the context")


def window_scores(T: int, W: int) -> int:
    """Scores one head computes under the band: sum over rows of min(i + 1, W). -> exact int

    W (W + 1) / 2 while the window fills, then W per row: T W - W (W - 1) / 2 for W <= T.
    """
    T = check_positive_int(T, "T")
    W = min(check_positive_int(W, "W (the window)"), T)
    return T * W - W * (W - 1) // 2


def causal_scores(T: int) -> int:
    """Scores one head computes under the causal mask, the triangle: T (T + 1) / 2. -> exact int"""
    T = check_positive_int(T, "T")
    return T * (T + 1) // 2


def full_scores(T: int) -> int:
    """Scores of the full T x T matrix, post 2's count: T^2. -> exact int"""
    return score_dot_products(T)


def window_fraction(T: int, W: int) -> float:
    """The band's scores as a share of the causal triangle's. -> in (0, 1]"""
    return window_scores(T, W) / causal_scores(T)


def window_score_bytes(T: int, W: int, bytes_per_score: int = 2, heads: int = 1) -> int:
    """Memory for the band's scores, stored W to a row. -> exact int bytes

    ``cost.score_matrix_bytes`` with the band's count in place of T^2: the same bytes per
    score and heads, checked the same way.
    """
    per_score_and_heads = score_matrix_bytes(1, bytes_per_score, heads)
    return window_scores(T, W) * per_score_and_heads


def reach(W: int, L: int) -> int:
    """How far back information can come after L stacked window layers: L (W - 1) positions.

    Position i can be influenced by positions i - L (W - 1) .. i (and no earlier). -> exact int
    """
    W = check_positive_int(W, "W (the window)")
    L = check_positive_int(L, "L (layers)")
    return L * (W - 1)


def paper_span(W: int, L: int) -> int:
    """Mistral 7B's stated bound, "up to k x W tokens" after k layers: L W. -> exact int

    It counts W positions per layer; with the window of W keys including the token itself,
    the exact reach is ``reach(W, L)`` = L (W - 1), L fewer.
    """
    W = check_positive_int(W, "W (the window)")
    L = check_positive_int(L, "L (layers)")
    return L * W


def influencers(T: int, W: int, L: int) -> int:
    """How many positions can influence the last token after L layers, itself included.

    min(T, L (W - 1) + 1). -> exact int
    """
    T = check_positive_int(T, "T")
    return min(T, reach(W, L) + 1)


def composed_mask(T: int, W: int, L: int) -> np.ndarray:
    """Who can influence whom after L stacked window layers: the mask's L-th boolean power.

    -> (T, T) bool, True where position j's input can reach position i's output through L
    layers (a path i <- k_1 <- ... <- j, each step inside the band). Every token sees itself,
    so paths of fewer hops are included.
    """
    L = check_positive_int(L, "L (layers)")
    step = window_mask(T, W).astype(np.int64)
    reached = step
    for _ in range(L - 1):
        reached = ((reached @ step) > 0).astype(np.int64)  # 0/1 entries: no overflow
    return reached.astype(bool)


def layers_needed(T: int, W: int) -> np.ndarray:
    """The fewest stacked window layers that carry position j to position i. -> (T, T) float64

    1 on the diagonal and in the band; ceil((i - j) / (W - 1)) below it; inf where no number
    of layers does (the future, and every other token when W = 1).
    """
    T = check_positive_int(T, "T")
    W = check_positive_int(W, "W (the window)")
    i, j = np.indices((T, T))
    distance = (i - j).astype(np.float64)
    if W == 1:
        return np.where(distance == 0, 1.0, np.inf)
    needed = np.maximum(1.0, np.ceil(distance / (W - 1)))
    return np.where(causal_mask(T), needed, np.inf)
