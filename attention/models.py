"""Published configurations of real decoder-only models: the sizes the last post computes with.

Each number is copied from the model's released configuration (or, where the release gives
none, its paper), named in ``source``; the context length, where the configuration's
``max_position_embeddings`` is not the length the model was trained on, from the paper named in
``context_source``. Sizes use the series' notation: ``heads`` query heads,
``kv_heads`` key/value heads, ``head_dim`` the width of one head, ``d_model`` the embedding
width, ``context`` the longest sequence the model was trained on, ``bytes_per_value`` the
precision its weights were released in (GPT-2: float32; the rest: bfloat16 or float16).

    from attention.models import LLAMA2_7B
    LLAMA2_7B.kv_heads  # 32: ordinary multi-head attention
"""

from collections.abc import Sequence
from typing import NamedTuple

from attention.fixtures import GPT2_CONTEXT, GPT2_EMBED
from attention.heads import GPT2_HEADS


class Model(NamedTuple):
    """One model's attention layout, as its published configuration gives it."""

    name: str
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    d_model: int
    context: int
    bytes_per_value: int
    source: str
    window: int | None = None  # sliding-window attention: how many tokens back each sees
    # With a window: how many sliding-window ("local") layers come before each full ("global")
    # one, the pattern repeating from the first layer; None: every layer slides.
    local_per_global: int | None = None
    rope_base: float | None = None  # rotary embeddings: the base of the frequencies
    context_source: str | None = None  # where ``context`` comes from, if not ``source``
    # A Llama-style decoder's feed-forward width (intermediate_size: three matrices of
    # d_model x ffn) and vocabulary, for counting its weights (attention.decode); None for
    # GPT-2, whose blocks are built otherwise.
    ffn: int | None = None
    vocab: int | None = None


class LatentModel(NamedTuple):
    """Multi-head latent attention (DeepSeek-V2): what each token's cache holds, per layer.

    Keys and values are rebuilt from a compressed latent of ``kv_latent`` numbers per token;
    a decoupled rotary key of ``rope_head_dim`` numbers, shared by all heads, is cached beside
    it. ``head_dim`` is each head's non-rotary query/key width, ``v_head_dim`` its value width.
    """

    name: str
    layers: int
    heads: int
    head_dim: int
    rope_head_dim: int
    v_head_dim: int
    kv_latent: int
    q_latent: int
    d_model: int
    context: int
    bytes_per_value: int
    source: str
    context_source: str | None = None  # where ``context`` comes from, if not ``source``


GPT2_SMALL = Model(
    name="GPT-2 (124M)",
    layers=12,
    heads=GPT2_HEADS,
    kv_heads=GPT2_HEADS,
    head_dim=GPT2_EMBED // GPT2_HEADS,
    d_model=GPT2_EMBED,
    context=GPT2_CONTEXT,
    bytes_per_value=4,
    source="https://huggingface.co/openai-community/gpt2/blob/main/config.json",
)
LLAMA2_7B = Model(
    name="Llama 2 7B",
    layers=32,
    heads=32,
    kv_heads=32,
    head_dim=128,
    d_model=4096,
    context=4096,
    bytes_per_value=2,
    source="https://huggingface.co/meta-llama/Llama-2-7b-hf/blob/main/config.json",
    rope_base=10000.0,
    ffn=11008,
    vocab=32000,
)
LLAMA2_70B = Model(
    name="Llama 2 70B",
    layers=80,
    heads=64,
    kv_heads=8,
    head_dim=128,
    d_model=8192,
    context=4096,
    bytes_per_value=2,
    source="https://huggingface.co/meta-llama/Llama-2-70b-hf/blob/main/config.json",
    rope_base=10000.0,
    ffn=28672,
    vocab=32000,
)
MISTRAL_7B = Model(
    name="Mistral 7B",
    layers=32,
    heads=32,
    kv_heads=8,
    head_dim=128,
    d_model=4096,
    context=8192,  # the paper's Table 1 (context_len); the configuration allows 32,768
    bytes_per_value=2,
    source="https://huggingface.co/mistralai/Mistral-7B-v0.1/blob/main/config.json",
    window=4096,
    rope_base=10000.0,
    context_source="https://arxiv.org/abs/2310.06825",
    ffn=14336,
    vocab=32000,
)
LLAMA3_8B = Model(
    name="Llama 3 8B",
    layers=32,
    heads=32,
    kv_heads=8,
    head_dim=128,
    d_model=4096,
    context=8192,
    bytes_per_value=2,
    source="https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json",
    rope_base=500000.0,
    ffn=14336,
    vocab=128256,
)
DEEPSEEK_V2 = LatentModel(
    name="DeepSeek-V2",
    layers=60,
    heads=128,
    head_dim=128,
    rope_head_dim=64,
    v_head_dim=128,
    kv_latent=512,
    q_latent=1536,
    d_model=5120,
    # 128K tokens, the paper's context window; the configuration's 163,840 positions are YaRN's
    # factor of 40 over the 4,096 it was pre-trained on.
    context=131072,
    bytes_per_value=2,
    source="https://huggingface.co/deepseek-ai/DeepSeek-V2/blob/main/config.json",
    context_source="https://arxiv.org/abs/2405.04434",
)

# Two models that interleave sliding-window layers with full ones. Gemma 2 alternates them,
# from a sliding one (its paper, section 2, arXiv:2408.00118); Gemma 3 has five sliding layers
# for every full one and a context of 128K tokens (its paper, section 2, arXiv:2503.19786).
GEMMA2_9B = Model(
    name="Gemma 2 9B",
    layers=42,
    heads=16,
    kv_heads=8,
    head_dim=256,
    d_model=3584,
    context=8192,
    bytes_per_value=2,
    source="https://huggingface.co/google/gemma-2-9b-it/blob/main/config.json",
    window=4096,
    local_per_global=1,
    rope_base=10000.0,
)
GEMMA3_12B = Model(
    name="Gemma 3 12B",
    layers=48,
    heads=16,
    kv_heads=8,
    head_dim=256,
    d_model=3840,
    context=131072,
    bytes_per_value=2,
    source="https://huggingface.co/google/gemma-3-12b-it/blob/main/config.json",
    window=1024,
    local_per_global=5,
    context_source="https://arxiv.org/abs/2503.19786",
)
INTERLEAVED: tuple[Model, ...] = (GEMMA2_9B, GEMMA3_12B)

# The models with ordinary (or grouped) key/value heads, smallest first.
MODELS: tuple[Model, ...] = (GPT2_SMALL, LLAMA2_7B, MISTRAL_7B, LLAMA3_8B, LLAMA2_70B)


def by_name(name: str, among: Sequence = MODELS):
    """The model called ``name``, one of ``among`` (MODELS unless given: any of this
    module's models, or anything else with a ``name``)."""
    for model in among:
        if model.name == name:
            return model
    known = ", ".join(m.name for m in among)
    raise ValueError(f"no model named {name!r}; known: {known}")
