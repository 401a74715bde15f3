"""What n squared costs: memory and time of the full score matrix (post 2, section 06).

A product of an (n, d_in) and a (d_in, d_k) matrix is n * d_k dot products of length d_in, so
its cost is the three sizes multiplied. The projections are therefore linear in n, while
Q K^T, (n, d_k)(d_k, n), and the weighted sum A V are quadratic: one head materialises n * n
scores. Batches and heads multiply the bill linearly; the causal mask discards just under
half of it, which leaves it O(n^2).
"""

import math

from attention._checks import check_positive_int

GIB = 2**30
TIB = 2**40

# The section's worked example: GPT-4.1's context window, an 80 GiB card (an H100), and a
# reference speed of 0.1 s per token at a 1,024-token context.
GPT41_CONTEXT = 1_047_576
CARD_GIB = 80
REF_TOKENS = 1024
REF_SECONDS = 0.1


def matmul_multiplies(rows: int, inner: int, cols: int) -> int:
    """Scalar multiplications in a (rows, inner) @ (inner, cols) product: rows * inner * cols."""
    sizes = ((rows, "rows"), (inner, "inner"), (cols, "cols"))
    rows, inner, cols = (check_positive_int(v, name) for v, name in sizes)
    return rows * inner * cols


def attention_multiplies(n: int, d_in: int, d_k: int, d_v: int) -> dict[str, int]:
    """Multiplications of one head, step by step. -> {step: count}, exact ints

    Q, K: n d_in d_k each; V: n d_in d_v; scores Q K^T: n^2 d_k; context A V: n^2 d_v.
    """
    return {
        "queries": matmul_multiplies(n, d_in, d_k),
        "keys": matmul_multiplies(n, d_in, d_k),
        "values": matmul_multiplies(n, d_in, d_v),
        "scores": matmul_multiplies(n, d_k, n),
        "context": matmul_multiplies(n, n, d_v),
    }


def score_matrix_bytes(n: int, bytes_per_score: int = 2, heads: int = 1) -> int:
    """Memory for the full n x n score matrices of ``heads`` heads. -> exact int bytes

    Two bytes a score (16-bit floats) by default: 1024 tokens give 2 MiB for one head.
    """
    n = check_positive_int(n, "n")
    bytes_per_score = check_positive_int(bytes_per_score, "bytes_per_score")
    heads = check_positive_int(heads, "heads")
    return n * n * bytes_per_score * heads


def card_bytes(card_gib: int = CARD_GIB) -> int:
    """One card's memory in bytes: ``card_gib`` binary gigabytes. -> exact int"""
    return check_positive_int(card_gib, "card_gib") * GIB


def cards_needed(n_bytes: int, card_gib: int = CARD_GIB) -> tuple[float, int]:
    """How many cards of ``card_gib`` GiB the bytes fill. -> (exact ratio, whole cards to buy)

    The second number rounds up: a fraction of a card cannot be bought.
    """
    n_bytes = check_positive_int(n_bytes, "n_bytes")
    card = card_bytes(card_gib)
    return n_bytes / card, -(-n_bytes // card)


def scaled_time(
    n: int, ref_tokens: int = REF_TOKENS, ref_seconds: float = REF_SECONDS
) -> tuple[float, float]:
    """Time per token at n tokens, scaled quadratically from ref_seconds at ref_tokens.

    -> (seconds, hours) = ref_seconds * (n / ref_tokens)^2 and the same in hours
    """
    n = check_positive_int(n, "n")
    ref_tokens = check_positive_int(ref_tokens, "ref_tokens")
    if isinstance(ref_seconds, bool) or not isinstance(ref_seconds, int | float):
        raise ValueError(f"ref_seconds must be a number, got {ref_seconds!r}")
    if not (math.isfinite(ref_seconds) and ref_seconds > 0):
        raise ValueError(f"ref_seconds must be positive and finite, got {ref_seconds}")
    seconds = ref_seconds * (n * n) / (ref_tokens * ref_tokens)  # exact ints until the division
    return seconds, seconds / 3600


def rounded_ratio_time(
    n: int, ref_tokens: int = REF_TOKENS, ref_seconds: float = REF_SECONDS, to: int = 1000
) -> tuple[int, float, float]:
    """The back-of-envelope version: the length ratio n / ref_tokens rounded to a multiple of
    ``to`` before squaring. -> (rounded ratio, seconds, hours)

    GPT-4.1's 1,047,576 tokens over 1,024 is 1,023.02, which rounds to 1,000: 0.1 s x 1000^2
    = 100,000 s, about 28 hours, against 29.07 unrounded.
    """
    n = check_positive_int(n, "n")
    ref_tokens = check_positive_int(ref_tokens, "ref_tokens")
    to = check_positive_int(to, "to")
    ratio = max(to, round(n / ref_tokens / to) * to)  # never round down to nothing
    seconds, hours = scaled_time(ratio, 1, ref_seconds)
    return ratio, seconds, hours


def embedding_params(vocab: int, width: int) -> int:
    """Parameters of a token embedding table: one row of ``width`` numbers per token id."""
    return check_positive_int(vocab, "vocab") * check_positive_int(width, "width")


def feed_forward_params(d_model: int, d_hidden: int) -> int:
    """Parameters of a transformer block's feed-forward: two linear layers with biases.

    (d_model -> d_hidden -> d_model) -> d_model d_hidden + d_hidden + d_hidden d_model + d_model
    """
    d_model = check_positive_int(d_model, "d_model")
    d_hidden = check_positive_int(d_hidden, "d_hidden")
    return 2 * d_model * d_hidden + d_hidden + d_model
