"""Decoding is reading: the bytes one generated token costs, and the speed they allow (post 3).

A model that generates runs one step per new token: each sequence of the batch adds one token,
every weight of every layer takes part, and each new query reads its sequence's whole cache.
So each step reads all the weights once, shared by the batch, and every sequence's cache. At
the batch sizes that fit, the arithmetic on those numbers is quick next to moving them from
the accelerator's memory (Shazeer, "Fast Transformer Decoding", 2019), so bytes over the
memory's bandwidth is a floor under a step's time, and the batch over that time a ceiling on
tokens per second:

    bytes per step     = weights + batch x cache(tokens)
    tokens per second <= batch x bandwidth / bytes per step

A model whose layers attend within a sliding window reads at most ``window`` tokens of cache
(``Model.window``; Mistral's code keeps a rolling cache of that many). The weights are counted
from the configuration of a Llama-style decoder (Llama 2 and 3, Mistral): an embedding and a
separate output layer of vocab x d_model each; per layer the query and output projections
(d_model x H head_dim each), the key and value projections (d_model x G head_dim each), a
gated feed-forward of three d_model x ffn matrices, and two RMSNorm weights of d_model; one
more RMSNorm at the end; no biases.

    from attention.decode import tokens_per_second
    from attention.models import LLAMA2_7B
    tokens_per_second(LLAMA2_7B, tokens=4096)  # about 214 on an H100 SXM, one sequence
"""

from attention._checks import check_positive_int
from attention.kv_cache import kv_cache_bytes
from attention.models import Model

# Bytes per second of an H100 SXM's memory: NVIDIA's H100 Tensor Core GPU datasheet, "GPU
# memory bandwidth: 3.35TB/s" (decimal terabytes).
H100_SXM_BANDWIDTH = 3.35e12
H100_DATASHEET = "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet"
# The post's worked example: Mistral 7B with 4,096 tokens in each of 16 sequences.
EXAMPLE_TOKENS = 4096
EXAMPLE_BATCH = 16


def _llama_style(model: Model) -> Model:
    if not isinstance(model, Model):
        raise ValueError(f"model must be an attention.models.Model, got {type(model).__name__}")
    if model.ffn is None or model.vocab is None:
        raise ValueError(
            f"{model.name} gives no feed-forward width and vocabulary (Model.ffn, Model.vocab): "
            "the weight count here is for Llama-style decoders (Llama 2 and 3, Mistral)"
        )
    return model


def parameters(model: Model) -> int:
    """The weights of a Llama-style decoder, counted from its configuration. -> exact int

    2 vocab d + layers (2 d H head_dim + 2 d G head_dim + 3 d ffn + 2 d) + d
    """
    m = _llama_style(model)
    d = m.d_model
    attention = 2 * d * m.heads * m.head_dim + 2 * d * m.kv_heads * m.head_dim
    per_layer = attention + 3 * d * m.ffn + 2 * d
    return 2 * m.vocab * d + m.layers * per_layer + d


def weight_bytes(model: Model) -> int:
    """The weights' bytes at the precision the model was released in. -> exact int"""
    return parameters(model) * model.bytes_per_value


def cache_read(model: Model, tokens: int) -> int:
    """How many tokens' keys and values a decode step reads after ``tokens`` tokens: all of
    them, or the last ``window`` for a sliding-window model. -> int"""
    tokens = check_positive_int(tokens, "tokens")
    return tokens if model.window is None else min(tokens, model.window)


def step_bytes(model: Model, tokens: int, batch: int = 1) -> int:
    """Bytes one decode step reads: the weights once, and each of ``batch`` sequences' cache
    after ``tokens`` tokens. -> exact int"""
    batch = check_positive_int(batch, "batch")
    return weight_bytes(model) + kv_cache_bytes(model, cache_read(model, tokens), batch)


def cache_share(model: Model, tokens: int, batch: int = 1) -> float:
    """The caches' part of the bytes a decode step reads, 0..1."""
    cache = kv_cache_bytes(model, cache_read(model, tokens), check_positive_int(batch, "batch"))
    return cache / step_bytes(model, tokens, batch)


def tokens_per_second(
    model: Model, tokens: int, batch: int = 1, bandwidth: float = H100_SXM_BANDWIDTH
) -> float:
    """The most tokens per second ``batch`` sequences can be decoded at, after ``tokens``
    tokens each, by memory of ``bandwidth`` bytes per second: batch x bandwidth / step bytes.
    """
    if not bandwidth > 0:
        raise ValueError(f"bandwidth must be positive bytes per second, got {bandwidth!r}")
    return batch * bandwidth / step_bytes(model, tokens, batch)


def cache_outweighs(model: Model, batch: int = 1) -> int | None:
    """The fewest tokens at which ``batch`` sequences' caches, as a step reads them, are more
    bytes than the weights; None if a sliding window keeps them below. -> int or None"""
    batch = check_positive_int(batch, "batch")
    per_token = kv_cache_bytes(model, 1, batch)
    tokens = weight_bytes(model) // per_token + 1
    return tokens if cache_read(model, tokens) == tokens else None


def as_multi_head(model: Model) -> Model:
    """The same model with a key/value head for every query head (G = H): what grouped-query
    attention is measured against."""
    return model._replace(name=f"{model.name}, multi-head", kv_heads=model.heads)
