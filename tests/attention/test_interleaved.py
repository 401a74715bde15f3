"""interleaved: the cache of models that mix sliding-window and full layers (post 3), checked
against a generation that keeps each layer's cache as the layer needs it, and the models'
layouts against their configurations and papers."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import interleaved as il
from attention.models import GEMMA2_9B, GEMMA3_12B, LLAMA2_7B, MISTRAL_7B, Model
from tests.strategies import examples


def generated_cache(kinds: tuple[str, ...], tokens: int, W: int) -> int:
    """Generate ``tokens`` tokens one at a time, each layer appending the new token's key and
    value to its cache and a local layer dropping what its window no longer reaches: the
    token-layers held at the end."""
    caches: list[list[int]] = [[] for _ in kinds]
    for t in range(tokens):
        for kind, cache in zip(kinds, caches, strict=True):
            cache.append(t)
            if kind == il.LOCAL:
                del cache[:-W]  # the window counts the token itself: W keys at most
    return sum(len(cache) for cache in caches)


def toy(layers: int, k: int | None, W: int | None) -> Model:
    return Model("toy", layers, 2, 2, 4, 8, 64, 2, "", window=W, local_per_global=k)


@settings(max_examples=examples(100), deadline=None)
@given(
    layers=st.integers(1, 14),
    k=st.none() | st.integers(1, 6),
    W=st.integers(1, 9),
    tokens=st.integers(1, 30),
)
def test_the_count_is_what_a_generation_keeps(layers, k, W, tokens):
    model = toy(layers, k, W)
    assert il.cached_tokens(model, tokens) == generated_cache(il.layer_kinds(model), tokens, W)
    assert il.cached_tokens(model, tokens, every_layer_global=True) == layers * tokens


def test_the_patterns_are_the_configurations():
    """Gemma 2: a sliding layer at every even index (from the first); Gemma 3: sliding unless
    (i + 1) is a multiple of its sliding_window_pattern, 6."""
    assert il.layer_kinds(GEMMA2_9B) == tuple(
        il.LOCAL if i % 2 == 0 else il.GLOBAL for i in range(42)
    )
    assert il.layer_kinds(GEMMA3_12B) == tuple(
        il.GLOBAL if (i + 1) % 6 == 0 else il.LOCAL for i in range(48)
    )
    assert il.layer_counts(GEMMA2_9B) == (21, 21)
    assert il.layer_counts(GEMMA3_12B) == (40, 8)
    assert il.layer_counts(MISTRAL_7B) == (32, 0)  # every layer slides
    assert il.layer_counts(LLAMA2_7B) == (0, 32)


def test_the_models_are_their_configurations():
    # Gemma 2 9B: its config.json and its paper's Table 1 (sliding window 4096, global 8192).
    g2 = GEMMA2_9B
    assert (g2.layers, g2.heads, g2.kv_heads, g2.head_dim, g2.d_model) == (42, 16, 8, 256, 3584)
    assert (g2.window, g2.context) == (4096, 8192)
    # Gemma 3 12B: its config.json's text_config (sliding_window 1024, pattern 6) and 128K.
    g3 = GEMMA3_12B
    assert (g3.layers, g3.heads, g3.kv_heads, g3.head_dim, g3.d_model) == (48, 16, 8, 256, 3840)
    assert (g3.window, g3.local_per_global + 1, g3.context) == (1024, 6, 128 * 1024)


def test_the_bytes_at_full_context():
    per_token_layer = 2 * 8 * 256 * 2  # K and V, 8 heads of 256, 16 bits: both models
    assert il.cache_bytes(GEMMA3_12B, 131072) == per_token_layer * (40 * 1024 + 8 * 131072)
    assert il.cache_bytes(GEMMA2_9B, 8192, every_layer_global=True) == per_token_layer * 42 * 8192
    assert il.global_share(GEMMA2_9B, 8192) == pytest.approx(2 / 3)


def test_a_wrong_call_says_how_to_fix_it():
    with pytest.raises(ValueError, match="tokens"):
        il.cached_tokens(GEMMA2_9B, 0)
    with pytest.raises(ValueError, match="local_per_global"):
        il.layer_kinds(toy(4, 0, 2))
