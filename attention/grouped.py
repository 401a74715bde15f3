"""Fewer key/value heads: multi-query and grouped-query attention (post 3, section 2).

Multi-head attention (``heads``) gives each of its H query heads its own key and value head.
Grouped-query attention keeps the H query heads but computes only ``kv_heads`` key/value heads,
and lets each run of H / kv_heads consecutive query heads share one:

    query head h uses K/V head h // (H / kv_heads)

``kv_heads = 1`` is multi-query attention (Shazeer 2019, arXiv:1911.02150): ONE key head and
ONE value head that every query head reads. ``kv_heads = H`` is ordinary multi-head
attention. Anything in between is grouped-query attention (Ainslie et al. 2023,
arXiv:2305.13245); kv_heads must divide H so that every group is the same size.

Shapes (T tokens, d_in input width, H query heads, G = kv_heads, hd = head_dim):

    X (T, d_in); W_q (d_in, H hd); W_k, W_v (d_in, G hd)
    Q = X W_q -> (H, T, hd);  K, V = X W_k, X W_v -> (G, T, hd) -> repeated -> (H, T, hd)
    weights = softmax(Q K^T / sqrt(hd)) (H, T, T);  context (H, T, hd) -> (T, H hd)

Sharing changes what is stored, not what a query head computes: repeating each K/V head's
columns of W_k and W_v once per query head of its group (``repeat_kv``) gives multi-head
weights under which ordinary multi-head attention returns the same output: bit for bit when
the products X W_k and X repeat_kv(W_k) round alike, as they do on the figure's toy (a BLAS
may compute a wider product's columns with another kernel, in another order of sums, which
can move the last bit, no more). What shrinks is the key/value projection (2 d_in G hd
parameters instead of 2 d_in H hd) and the cache a decoder keeps per token: 2 layers G hd
numbers, the 2 for keys and values.
"""

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from attention._checks import check_array, check_matrix, check_positive_int, checked_matmul
from attention.heads import _scores_and_weights, split_heads
from attention.kv_cache import kv_cache_bytes
from attention.models import LLAMA2_7B, LLAMA2_70B, MISTRAL_7B, Model
from attention.torch_rng import linear_weight, stream

# The toy the figure computes on: the book's six tokens (d_in = 3), eight query heads of
# width 2, one layer, float64. Its K/V heads default to 2, so groups of four.
TOY_HEADS = 8
TOY_HEAD_DIM = 2
TOY_SEED = 123
TOY = Model(
    name="Toy: the book's six tokens",
    layers=1,
    heads=TOY_HEADS,
    kv_heads=2,
    head_dim=TOY_HEAD_DIM,
    d_model=3,
    context=6,
    bytes_per_value=8,
    source="the book's 6x3 inputs; nn.Linear(bias=False) weights after torch.manual_seed(123)",
)
# The real layouts the section compares: one without sharing, two with groups of 8 and 4.
REAL_MODELS: tuple[Model, ...] = (LLAMA2_7B, MISTRAL_7B, LLAMA2_70B)


def allowed_kv_heads(heads: int) -> list[int]:
    """The K/V head counts ``heads`` query heads can be grouped over: its divisors. -> list"""
    heads = check_positive_int(heads, "heads")
    return [g for g in range(1, heads + 1) if heads % g == 0]


def group_size(heads: int, kv_heads: int) -> int:
    """Query heads per K/V head, heads / kv_heads; ValueError unless a whole number. -> int"""
    heads = check_positive_int(heads, "heads")
    kv_heads = check_positive_int(kv_heads, "kv_heads")
    if heads % kv_heads:
        raise ValueError(
            f"kv_heads = {kv_heads} does not divide heads = {heads}: every K/V head serves an "
            f"equal group of heads / kv_heads query heads, which must be a whole number. "
            f"With {heads} query heads, kv_heads can be one of {allowed_kv_heads(heads)}"
        )
    return heads // kv_heads


def kv_head_of(heads: int, kv_heads: int) -> np.ndarray:
    """Which K/V head each query head reads: h // (heads / kv_heads). -> (heads,) int"""
    return np.arange(check_positive_int(heads, "heads")) // group_size(heads, kv_heads)


def kind(heads: int, kv_heads: int) -> str:
    """'multi-query' (one K/V head), 'multi-head' (one per query head) or 'grouped-query'."""
    group = group_size(heads, kv_heads)
    if kv_heads == 1:
        return "multi-query"
    return "multi-head" if group == 1 else "grouped-query"


def _check_widths(
    d_in: int, W_q: np.ndarray, W_k: np.ndarray, W_v: np.ndarray, heads: int, kv_heads: int
) -> int:
    """head_dim from W_q's width; ValueError naming the matrix whose shape does not fit."""
    group_size(heads, kv_heads)
    for W, name in ((W_q, "W_q"), (W_k, "W_k"), (W_v, "W_v")):
        if W.shape[0] != d_in:
            raise ValueError(f"{name} has {W.shape[0]} rows but the inputs have d_in = {d_in}")
    if W_q.shape[1] % heads:
        raise ValueError(
            f"W_q has {W_q.shape[1]} columns, which {heads} query heads cannot share equally: "
            f"it must be (d_in, heads * head_dim)"
        )
    hd = W_q.shape[1] // heads
    for W, name in ((W_k, "W_k"), (W_v, "W_v")):
        if W.shape[1] != kv_heads * hd:
            raise ValueError(
                f"{name} must be (d_in, kv_heads * head_dim) = ({d_in}, {kv_heads * hd}) "
                f"for {kv_heads} K/V heads of width {hd}, got {W.shape}"
            )
    return hd


def repeat_kv(W: np.ndarray, heads: int, kv_heads: int) -> np.ndarray:
    """Each K/V head's block of columns, repeated once per query head of its group.

    W: (d_in, kv_heads * hd) -> (d_in, heads * hd): the multi-head W_k or W_v whose head h is
    a copy of K/V head h // (heads / kv_heads). Like torch's ``repeat_interleave`` on heads.
    """
    W = check_matrix(W, "W")
    group = group_size(heads, kv_heads)
    if W.shape[1] % kv_heads:
        raise ValueError(f"W has {W.shape[1]} columns, not kv_heads * head_dim for {kv_heads}")
    d_in, hd = W.shape[0], W.shape[1] // kv_heads
    return np.repeat(W.reshape(d_in, kv_heads, hd), group, axis=1).reshape(d_in, heads * hd)


def grouped_query_attention(
    X: np.ndarray,
    W_q: np.ndarray,
    W_k: np.ndarray,
    W_v: np.ndarray,
    heads: int,
    kv_heads: int,
    causal: bool = True,
) -> np.ndarray:
    """H query heads over kv_heads shared K/V heads, contexts concatenated (no out_proj).

    X: ([b,] T, d_in); W_q: (d_in, heads * hd); W_k, W_v: (d_in, kv_heads * hd)
    -> ([b,] T, heads * hd). Query head h reads K/V head h // (heads / kv_heads); scores are
    divided by sqrt(hd). kv_heads = heads is ``heads.multihead_split`` without W_out.
    """
    batch = check_array(X, "X", (2, 3))
    batch = batch[None] if batch.ndim == 2 else batch
    W_q, W_k, W_v = (check_matrix(W, n) for W, n in ((W_q, "W_q"), (W_k, "W_k"), (W_v, "W_v")))
    _check_widths(batch.shape[-1], W_q, W_k, W_v, heads, kv_heads)
    group = group_size(heads, kv_heads)
    queries = split_heads(checked_matmul(batch, W_q, "the projection"), heads)  # (b, H, T, hd)
    keys = split_heads(checked_matmul(batch, W_k, "the projection"), kv_heads)  # (b, G, T, hd)
    values = split_heads(checked_matmul(batch, W_v, "the projection"), kv_heads)
    keys = np.repeat(keys, group, axis=1)  # (b, H, T, hd): head h gets K/V head h // group
    values = np.repeat(values, group, axis=1)
    _, weights = _scores_and_weights(queries, keys, causal)  # (b, H, T, T)
    context = checked_matmul(weights, values, "the context")  # (b, H, T, hd)
    merged = context.transpose(0, 2, 1, 3).reshape(*context.shape[::2], -1)  # (b, T, H hd)
    return merged[0] if np.ndim(X) == 2 else merged


class ProjectionParams(NamedTuple):
    """Parameters of one attention layer's projections (no biases, as in Llama and Mistral)."""

    query: int  # d_in x heads hd
    key_value: int  # W_k and W_v together: 2 x d_in x kv_heads hd
    output: int  # heads hd x d_in, back to the model's width
    total: int


def projection_params(d_in: int, heads: int, kv_heads: int, head_dim: int) -> ProjectionParams:
    """Count one layer's W_q, W_k + W_v and W_o at these sizes. -> ProjectionParams, exact ints"""
    d_in = check_positive_int(d_in, "d_in")
    head_dim = check_positive_int(head_dim, "head_dim")
    group_size(heads, kv_heads)
    query = d_in * heads * head_dim
    key_value = 2 * d_in * kv_heads * head_dim
    output = heads * head_dim * d_in
    return ProjectionParams(query, key_value, output, query + key_value + output)


def model_params(model: Model, kv_heads: int | None = None) -> ProjectionParams:
    """``projection_params`` of one layer of ``model``, with its own or another K/V count."""
    kv = model.kv_heads if kv_heads is None else kv_heads
    return projection_params(model.d_model, model.heads, kv, model.head_dim)


def cache_bytes_per_token(model: Model, kv_heads: int | None = None) -> int:
    """What a decoder caches per token, all layers: 2 x layers x kv_heads x head_dim x bytes.

    The 2 is one key and one value vector per K/V head. ``kv_heads`` defaults to the model's
    published count; pass another divisor of model.heads to ask what it would have cached.
    """
    kv = model.kv_heads if kv_heads is None else kv_heads
    group_size(model.heads, kv)
    return kv_cache_bytes(model._replace(kv_heads=kv), tokens=1)


def cache_bytes(model: Model, tokens: int, kv_heads: int | None = None) -> int:
    """The K/V cache of one sequence of ``tokens`` tokens, all layers. -> exact int bytes"""
    return check_positive_int(tokens, "tokens") * cache_bytes_per_token(model, kv_heads)


def cache_ratio(heads: int, kv_heads: int) -> float:
    """The cache (and K/V parameters) against ordinary multi-head attention: kv_heads / heads."""
    group_size(heads, kv_heads)
    return kv_heads / heads


@lru_cache(maxsize=4)
def _seeded_state(seed: int) -> dict:
    """The MT19937 state ``torch.manual_seed(seed)`` leaves (a copy is handed out each time)."""
    return stream(seed).state


def toy_weights(
    heads: int, kv_heads: int, head_dim: int = TOY_HEAD_DIM, d_in: int = 3, seed: int = TOY_SEED
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """W_q, W_k, W_v as three ``nn.Linear(d_in, ·, bias=False)`` draw them after manual_seed.

    -> (d_in, heads hd), (d_in, kv_heads hd), (d_in, kv_heads hd), in that order of drawing.
    """
    group_size(heads, kv_heads)
    head_dim = check_positive_int(head_dim, "head_dim")
    generator = np.random.MT19937()
    generator.state = _seeded_state(seed)  # seeding costs milliseconds; copying the state not
    W_q = linear_weight(generator, d_in, heads * head_dim).T
    W_k = linear_weight(generator, d_in, kv_heads * head_dim).T
    W_v = linear_weight(generator, d_in, kv_heads * head_dim).T
    return W_q, W_k, W_v
