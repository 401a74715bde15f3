"""Local and global layers together: the cache of a model that interleaves sliding-window
layers with full ones (post 3).

A sliding-window ("local") layer attends to the last W tokens, the token itself included, so
its cache needs only those; a full ("global") layer attends to every token before it and keeps
them all. Gemma 2 alternates the two; Gemma 3 keeps five local layers for every global one, a
window of 1,024, and reaches 128K tokens (the Gemma 2 and Gemma 3 papers, arXiv:2408.00118
and arXiv:2503.19786, section 2 of each). For a model whose pattern is ``k`` local layers and
then a global one, repeating from the first layer:

    cached tokens(T) = n_local min(T, W) + n_global T           summed over the layers
    cache bytes(T)   = 2 x kv_heads x head_dim x bytes x cached tokens(T)

The global layers' share grows with T: past the window, only they keep growing.

    from attention.interleaved import cache_bytes
    from attention.models import GEMMA3_12B
    cache_bytes(GEMMA3_12B, 131072) / cache_bytes(GEMMA3_12B, 131072, every_layer_global=True)
"""

from attention._checks import check_positive_int
from attention.kv_cache import check_model
from attention.models import Model

LOCAL, GLOBAL = "local", "global"


def layer_kinds(model: Model) -> tuple[str, ...]:
    """Each layer's kind, first to last: "local" (sliding window) or "global" (full).

    No window: every layer is global. A window with no pattern (Mistral 7B): every layer is
    local. A pattern of k: k local layers, then a global one, repeating from layer 0.
    """
    model = check_model(model)
    if model.window is None:
        return (GLOBAL,) * model.layers
    k = model.local_per_global
    if k is None:
        return (LOCAL,) * model.layers
    k = check_positive_int(k, "local_per_global")
    return tuple(GLOBAL if (i + 1) % (k + 1) == 0 else LOCAL for i in range(model.layers))


def layer_counts(model: Model) -> tuple[int, int]:
    """How many layers of each kind. -> (n_local, n_global)"""
    kinds = layer_kinds(model)
    return kinds.count(LOCAL), kinds.count(GLOBAL)


def cached_tokens(model: Model, tokens: int, every_layer_global: bool = False) -> int:
    """Token-layers the cache holds after ``tokens`` tokens: each local layer keeps
    min(T, W), each global layer T. ``every_layer_global`` counts the same model with no
    window, the comparison the papers make."""
    T = check_positive_int(tokens, "tokens")
    if every_layer_global:
        return model.layers * T
    n_local, n_global = layer_counts(model)
    return n_local * min(T, model.window or T) + n_global * T


def cache_bytes(model: Model, tokens: int, every_layer_global: bool = False) -> int:
    """The cache's bytes for one sequence after ``tokens`` tokens, at the model's precision."""
    per_token_layer = 2 * model.kv_heads * model.head_dim * model.bytes_per_value
    return per_token_layer * cached_tokens(model, tokens, every_layer_global)


def global_share(model: Model, tokens: int) -> float:
    """The share of the cache the global layers hold after ``tokens`` tokens."""
    _, n_global = layer_counts(model)
    return n_global * check_positive_int(tokens, "tokens") / cached_tokens(model, tokens)
