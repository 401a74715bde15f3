"""Multi-head latent attention (DeepSeek-V2): cache a small latent, rebuild keys and values.

A key/value cache holds, for every past token and every layer, what attention needs of that
token again: with H heads of head_dim numbers, a key and a value per head, 2 H head_dim
numbers. Multi-head latent attention (DeepSeek-AI 2024, arXiv:2405.04434, section 2.1)
caches instead one latent vector of d_c numbers per token, and rebuilds every head's key and
value from it with two up-projections (equations 9-11, written here as the series writes
projections, row vectors times (d_in, d_out) matrices):

    C = X @ W_dkv      (T, d) @ (d, d_c)              -> (T, d_c)       the cache
    K = C @ W_uk       (T, d_c) @ (d_c, H head_dim)   -> (T, H head_dim)
    V = C @ W_uv       (T, d_c) @ (d_c, H d_v)        -> (T, H d_v)

The rebuilt keys need never be formed. Head i's score is q_i . (c_j W_uk_i) =
(q_i W_uk_i^T) . c_j, so W_uk folds into the query projection and the query meets the
latent directly; likewise sum_j a_ij (c_j W_uv_i) W_o_i = (sum_j a_ij c_j) (W_uv_i W_o_i), so
W_uv folds into the output projection (the paper: "W^UK can be absorbed into W^Q, and W^UV
into W^O"). ``attention_rebuilt`` and ``attention_absorbed`` compute the same output both
ways; they differ by rounding. The scores are still divided by sqrt(head_dim), the width of
the keys that were never built, not by sqrt(d_c).

Rotary position embeddings rotate keys by their position, which would sit between W_q and
W_uk and stop the fold; DeepSeek-V2 therefore adds a separate rotary key of d_h^R numbers per
token, shared by all heads, and caches it beside the latent: (d_c + d_h^R) numbers per token
and layer (section 2.1.3). The functions here compute the compressed part, without the rotary
one; ``cache_elements_per_token`` counts both, as the paper's Table 1 does.
"""

import functools
import numbers
from typing import NamedTuple

import numpy as np

from attention._checks import check_matrix, check_positive_int, checked_matmul, refuse_overflow
from attention.basics import softmax
from attention.heads import head_dim as split_width
from attention.models import DEEPSEEK_V2, LatentModel

# The kinds of the paper's Table 1, in its order, with the names the series prints.
KINDS: dict[str, str] = {
    "mha": "MHA",
    "gqa": "GQA",
    "mqa": "MQA",
    "mla": "MLA",
}
# The comparison's grouped-query control: 8 key/value groups, as the paper's ablation of
# dense 7B models uses (Appendix D.1, Table 8) and Llama 2 70B and Llama 3 8B ship.
GQA_GROUPS = 8

# The small random example whose two routes the figure compares: six tokens of width 8, two
# heads of width 4, output width 8; the latent width d_c runs over LATENT_WIDTHS.
TINY_T = 6
TINY_D = 8
TINY_HEADS = 2
TINY_HEAD_DIM = 4
LATENT_WIDTHS: tuple[int, ...] = tuple(range(2, 9))


class LatentWeights(NamedTuple):
    """One layer's matrices, (d_in, d_out) as the series writes them. H heads, d_c latent."""

    W_q: np.ndarray  # (d, H head_dim): queries, as in ordinary attention
    W_dkv: np.ndarray  # (d, d_c): down-projection to the cached latent
    W_uk: np.ndarray  # (d_c, H head_dim): up-projection to every head's key
    W_uv: np.ndarray  # (d_c, H d_v): up-projection to every head's value
    W_o: np.ndarray  # (H d_v, d_out): the output projection


class Absorbed(NamedTuple):
    """The folded matrices, one per head: queries meet the latent, the latent meets the output."""

    W_qc: np.ndarray  # (H, d, d_c): W_q_i @ W_uk_i^T
    W_co: np.ndarray  # (H, d_c, d_out): W_uv_i @ W_o_i


def _as_weights(weights) -> LatentWeights:
    """Five finite matrices, in LatentWeights' order."""
    if len(weights) != len(LatentWeights._fields):
        raise ValueError(
            f"weights must be the five matrices {', '.join(LatentWeights._fields)}, "
            f"got {len(weights)}"
        )
    return LatentWeights(
        *(check_matrix(m, n) for m, n in zip(weights, LatentWeights._fields, strict=True))
    )


def _check_weights(X: np.ndarray, W: LatentWeights, heads: int) -> tuple[np.ndarray, LatentWeights]:
    """X and the five matrices checked against each other; ValueErrors name the mismatch."""
    X = check_matrix(X, "X")
    heads = check_positive_int(heads, "heads")
    mats = _as_weights(W)
    d, d_c = X.shape[1], mats.W_dkv.shape[1]
    for name in ("W_q", "W_dkv"):
        if getattr(mats, name).shape[0] != d:
            raise ValueError(
                f"{name} has {getattr(mats, name).shape[0]} rows but X has d = {d} columns"
            )
    for name in ("W_uk", "W_uv"):
        if getattr(mats, name).shape[0] != d_c:
            raise ValueError(
                f"{name} has {getattr(mats, name).shape[0]} rows but the latent has "
                f"d_c = {d_c} (the columns of W_dkv)"
            )
    if mats.W_q.shape[1] != mats.W_uk.shape[1]:
        raise ValueError(
            f"W_q and W_uk need one width (queries meet keys), got {mats.W_q.shape[1]} "
            f"and {mats.W_uk.shape[1]}"
        )
    split_width(mats.W_uk.shape[1], heads)  # each head takes an equal block of key columns
    split_width(mats.W_uv.shape[1], heads)
    if mats.W_o.shape[0] != mats.W_uv.shape[1]:
        raise ValueError(
            f"W_o has {mats.W_o.shape[0]} rows but the values are {mats.W_uv.shape[1]} wide "
            "(the columns of W_uv)"
        )
    return X, mats


def latent_kv(
    X: np.ndarray, W_dkv: np.ndarray, W_uk: np.ndarray, W_uv: np.ndarray, heads: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cached latent and the keys and values rebuilt from it (equations 9-11).

    X: (T, d), W_dkv: (d, d_c), W_uk: (d_c, H head_dim), W_uv: (d_c, H d_v)
    -> C (T, d_c), K (T, H head_dim), V (T, H d_v)
    """
    X = check_matrix(X, "X")
    W_dkv, W_uk, W_uv = (
        check_matrix(m, n) for m, n in ((W_dkv, "W_dkv"), (W_uk, "W_uk"), (W_uv, "W_uv"))
    )
    if W_dkv.shape[0] != X.shape[1]:
        raise ValueError(f"W_dkv has {W_dkv.shape[0]} rows but X has d = {X.shape[1]} columns")
    for W, name in ((W_uk, "W_uk"), (W_uv, "W_uv")):
        if W.shape[0] != W_dkv.shape[1]:
            raise ValueError(
                f"{name} has {W.shape[0]} rows but the latent has d_c = {W_dkv.shape[1]}"
            )
        split_width(W.shape[1], check_positive_int(heads, "heads"))
    C = checked_matmul(X, W_dkv, "the latent")
    return C, checked_matmul(C, W_uk, "the keys"), checked_matmul(C, W_uv, "the values")


def _heads(M: np.ndarray, heads: int) -> np.ndarray:
    """(T, H w) -> (H, T, w): each head's block of columns."""
    T, width = M.shape
    return M.reshape(T, heads, width // heads).transpose(1, 0, 2)


def _weights(scores: np.ndarray, d_k: int, causal: bool) -> np.ndarray:
    """softmax(scores / sqrt(d_k)), the future hidden if causal. (H, T, T) -> (H, T, T)"""
    if not isinstance(causal, bool | np.bool_):
        raise ValueError(f"causal must be True or False, got {causal!r}")
    if causal:
        T = scores.shape[-1]
        scores = np.where(np.tri(T, dtype=bool), scores, -np.inf)
    return softmax(scores / np.sqrt(d_k))


def _rebuilt(X: np.ndarray, W: LatentWeights, heads: int, causal: bool) -> np.ndarray:
    """attention_rebuilt on checked inputs; overflow is refused once, at the end."""
    with np.errstate(over="ignore", invalid="ignore"):
        C = X @ W.W_dkv  # (T, d_c): all the cache holds
        Q, K, V = _heads(X @ W.W_q, heads), _heads(C @ W.W_uk, heads), _heads(C @ W.W_uv, heads)
        scores = refuse_overflow(Q @ K.transpose(0, 2, 1), "the scores")  # (H, T, T)
        context = _weights(scores, Q.shape[-1], causal) @ V  # (H, T, d_v)
        merged = context.transpose(1, 0, 2).reshape(X.shape[0], -1)  # (T, H d_v)
        return refuse_overflow(merged @ W.W_o, "the output")


def _absorbed(X: np.ndarray, W: LatentWeights, heads: int, causal: bool) -> np.ndarray:
    """attention_absorbed on checked inputs; overflow is refused once, at the end."""
    with np.errstate(over="ignore", invalid="ignore"):
        W_qc, W_co = _fold(W, heads)
        C = X @ W.W_dkv  # (T, d_c): all the cache holds
        scores = refuse_overflow((X @ W_qc) @ C.T, "the scores")  # (H, T, d_c) @ (d_c, T)
        mixed = _weights(scores, W.W_uk.shape[1] // heads, causal) @ C  # (H, T, d_c)
        return refuse_overflow((mixed @ W_co).sum(axis=0), "the output")


def _fold(W: LatentWeights, heads: int) -> Absorbed:
    """absorb on checked matrices."""
    d, d_c, d_out = W.W_q.shape[0], W.W_dkv.shape[1], W.W_o.shape[1]
    W_q = W.W_q.reshape(d, heads, -1).transpose(1, 0, 2)  # (H, d, head_dim)
    W_uk = W.W_uk.reshape(d_c, heads, -1).transpose(1, 0, 2)  # (H, d_c, head_dim)
    W_uv = W.W_uv.reshape(d_c, heads, -1).transpose(1, 0, 2)  # (H, d_c, d_v)
    W_o = W.W_o.reshape(heads, -1, d_out)  # (H, d_v, d_out)
    with np.errstate(over="ignore", invalid="ignore"):
        return Absorbed(
            refuse_overflow(W_q @ W_uk.transpose(0, 2, 1), "W_q W_uk^T"),
            refuse_overflow(W_uv @ W_o, "W_uv W_o"),
        )


def attention_rebuilt(
    X: np.ndarray, weights: LatentWeights, heads: int, causal: bool = True
) -> np.ndarray:
    """The naive route: rebuild K and V from the latent, then ordinary multi-head attention.

    X: (T, d) -> (T, d_out) = concat_i(softmax(Q_i K_i^T / sqrt(head_dim)) V_i) @ W_o
    """
    X, W = _check_weights(X, weights, heads)
    return _rebuilt(X, W, heads, causal)


def absorb(weights: LatentWeights, heads: int) -> Absorbed:
    """Fold W_uk into the queries and W_uv into the output, head by head.

    -> W_qc (H, d, d_c) with W_qc_i = W_q_i @ W_uk_i^T, W_co (H, d_c, d_out) with
    W_co_i = W_uv_i @ W_o_i, where _i is head i's block of columns (of W_q, W_uk, W_uv) or of
    rows (of W_o).
    """
    W = _as_weights(weights)
    _check_weights(np.zeros((1, W.W_q.shape[0])), W, heads)
    return _fold(W, heads)


def attention_absorbed(
    X: np.ndarray, weights: LatentWeights, heads: int, causal: bool = True
) -> np.ndarray:
    """The absorbed route: no key or value is built; every head reads the latent C itself.

    X: (T, d) -> (T, d_out) = sum_i softmax((X W_qc_i) C^T / sqrt(head_dim)) C W_co_i
    """
    X, W = _check_weights(X, weights, heads)
    return _absorbed(X, W, heads, causal)


def tiny_weights(d_c: int, seed: int = 0) -> tuple[np.ndarray, LatentWeights]:
    """The figure's small random layer: X (6, 8), two heads of width 4, latent width d_c.

    Entries are standard normal divided by sqrt(fan-in), so every product stays near unit
    size. -> X (TINY_T, TINY_D), LatentWeights
    """
    d_c = check_positive_int(d_c, "d_c")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0, got {seed!r}")
    rng = np.random.default_rng(int(seed))
    width = TINY_HEADS * TINY_HEAD_DIM

    def draw(rows: int, cols: int) -> np.ndarray:
        return rng.standard_normal((rows, cols)) / np.sqrt(rows)

    X = rng.standard_normal((TINY_T, TINY_D))
    W = LatentWeights(
        W_q=draw(TINY_D, width),
        W_dkv=draw(TINY_D, d_c),
        W_uk=draw(d_c, width),
        W_uv=draw(d_c, width),
        W_o=draw(width, TINY_D),
    )
    return X, W


def absorption_gap(X: np.ndarray, weights: LatentWeights, heads: int, causal: bool = True) -> float:
    """Largest |rebuilt - absorbed| over the output: rounding only. (T, d) -> float"""
    X, W = _check_weights(X, weights, heads)
    rebuilt, absorbed = _rebuilt(X, W, heads, causal), _absorbed(X, W, heads, causal)
    return float(np.max(np.abs(rebuilt - absorbed)))


@functools.lru_cache(maxsize=32, typed=True)
def tiny_gaps(seed: int = 0) -> tuple[float, ...]:
    """The tiny example's gap at every latent width of LATENT_WIDTHS, in that order.

    Remembered per seed: a figure redraws often, and the gaps change only with the sample.
    -> (len(LATENT_WIDTHS),) floats
    """
    return tuple(absorption_gap(*tiny_weights(d_c, seed), TINY_HEADS) for d_c in LATENT_WIDTHS)


# --- the cache: the paper's Table 1 ------------------------------------------------------------


def cache_elements_per_token(
    kind: str,
    head_dim: int,
    layers: int = 1,
    heads: int | None = None,
    groups: int | None = None,
    kv_latent: int | None = None,
    rope_head_dim: int | None = None,
) -> int:
    """Numbers cached per token, over ``layers`` layers (1: per layer), as Table 1 counts them.

    mha: 2 heads head_dim l; gqa: 2 groups head_dim l; mqa: 2 head_dim l;
    mla: (kv_latent + rope_head_dim) l. Each kind takes exactly the sizes its formula uses
    (gqa also takes ``heads``, to check that the groups divide them). -> exact int
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    head_dim = check_positive_int(head_dim, "head_dim")
    layers = check_positive_int(layers, "layers")
    given = {
        "heads": heads,
        "groups": groups,
        "kv_latent": kv_latent,
        "rope_head_dim": rope_head_dim,
    }
    needs = {
        "mha": ("heads",),
        "gqa": ("groups",),
        "mqa": (),
        "mla": ("kv_latent", "rope_head_dim"),
    }[kind]
    optional = ("heads",) if kind == "gqa" else ()
    missing = [name for name in needs if given[name] is None]
    if missing:
        raise ValueError(f"{kind} needs {', '.join(missing)}: its cache is counted from them")
    extra = [n for n, v in given.items() if v is not None and n not in needs + optional]
    if extra:
        raise ValueError(f"{kind} does not use {', '.join(extra)}; leave it out of the call")
    sizes = {
        name: check_positive_int(given[name], name)
        for name in needs + optional
        if given[name] is not None
    }
    if kind == "mha":
        per_layer = 2 * sizes["heads"] * head_dim
    elif kind == "gqa":
        if "heads" in sizes and sizes["heads"] % sizes["groups"]:
            raise ValueError(
                f"{sizes['groups']} groups cannot split {sizes['heads']} heads evenly; "
                "pick a divisor of the heads"
            )
        per_layer = 2 * sizes["groups"] * head_dim
    elif kind == "mqa":
        per_layer = 2 * head_dim
    else:
        per_layer = sizes["kv_latent"] + sizes["rope_head_dim"]
    return per_layer * layers


def equivalent_groups(model: LatentModel = DEEPSEEK_V2) -> float:
    """The GQA group count whose cache equals MLA's: (d_c + d_h^R) / (2 head_dim). -> float

    DeepSeek-V2: 576 / 256 = 2.25, the paper's "GQA with only 2.25 groups".
    """
    return (model.kv_latent + model.rope_head_dim) / (2 * model.head_dim)


class CacheRow(NamedTuple):
    """One attention kind's cache at a model's sizes: elements, bytes, share of MHA."""

    kind: str  # a key of KINDS
    label: str  # 'MHA', 'GQA (8 groups)', ...
    per_layer: int  # numbers per token in one layer
    per_token: int  # numbers per token over all layers
    token_bytes: int  # bytes per token over all layers
    context_bytes: int  # bytes for ``context`` tokens over all layers
    of_mha: float  # this kind's cache / MHA's


def cache_comparison(
    model: LatentModel = DEEPSEEK_V2,
    groups: int = GQA_GROUPS,
    kv_latent: int | None = None,
    context: int | None = None,
) -> list[CacheRow]:
    """The cache of ``model`` as MHA, GQA with ``groups`` groups, MQA and MLA, in that order.

    MLA uses ``kv_latent`` (default: the model's d_c); ``context`` defaults to the model's
    context window; bytes use the model's bytes per value. -> 4 CacheRows
    """
    latent = model.kv_latent if kv_latent is None else check_positive_int(kv_latent, "kv_latent")
    tokens = model.context if context is None else check_positive_int(context, "context")
    groups = check_positive_int(groups, "groups")
    sizes = {
        "mha": {"heads": model.heads},
        "gqa": {"groups": groups, "heads": model.heads},
        "mqa": {},
        "mla": {"kv_latent": latent, "rope_head_dim": model.rope_head_dim},
    }
    labels = {"gqa": f"GQA ({groups} groups)"}
    mha = cache_elements_per_token("mha", model.head_dim, heads=model.heads)
    rows = []
    for kind, extra in sizes.items():
        per_layer = cache_elements_per_token(kind, model.head_dim, **extra)
        per_token = per_layer * model.layers
        token_bytes = per_token * model.bytes_per_value
        rows.append(
            CacheRow(
                kind=kind,
                label=labels.get(kind, KINDS[kind]),
                per_layer=per_layer,
                per_token=per_token,
                token_bytes=token_bytes,
                context_bytes=token_bytes * tokens,
                of_mha=per_layer / mha,
            )
        )
    return rows
