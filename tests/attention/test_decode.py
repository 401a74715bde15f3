"""Decoding's bytes and the speed they allow (attention/decode.py): the weights counted from
the configurations agree with PyTorch modules of the same shapes and with the released
checkpoints' counts; a step reads the weights once and every sequence's cache; the bound is
the batch over bytes / bandwidth."""

import pytest
from torch import nn

from attention import decode
from attention.kv_cache import kv_cache_bytes
from attention.models import GPT2_SMALL, LLAMA2_7B, LLAMA2_70B, LLAMA3_8B, MISTRAL_7B

DECODERS = (LLAMA2_7B, MISTRAL_7B, LLAMA3_8B, LLAMA2_70B)
# The exact parameter counts of the released checkpoints' weights (their model pages round
# them to 6.74B, 7.24B, 8.03B and 69B).
RELEASED = {
    LLAMA2_7B.name: 6_738_415_616,
    MISTRAL_7B.name: 7_241_732_096,
    LLAMA3_8B.name: 8_030_261_248,
    LLAMA2_70B.name: 68_976_648_192,
}


class LlamaShapes(nn.Module):
    """A Llama-style decoder's weights, shapes only (on PyTorch's meta device)."""

    def __init__(self, m) -> None:
        super().__init__()
        d, q, kv = m.d_model, m.heads * m.head_dim, m.kv_heads * m.head_dim
        linear = {"bias": False, "device": "meta"}
        self.embed = nn.Embedding(m.vocab, d, device="meta")
        self.layers = nn.ModuleList(
            nn.ModuleDict(
                {
                    "q": nn.Linear(d, q, **linear),
                    "k": nn.Linear(d, kv, **linear),
                    "v": nn.Linear(d, kv, **linear),
                    "o": nn.Linear(q, d, **linear),
                    "gate": nn.Linear(d, m.ffn, **linear),
                    "up": nn.Linear(d, m.ffn, **linear),
                    "down": nn.Linear(m.ffn, d, **linear),
                    "norm1": nn.RMSNorm(d, device="meta"),
                    "norm2": nn.RMSNorm(d, device="meta"),
                }
            )
            for _ in range(m.layers)
        )
        self.norm = nn.RMSNorm(d, device="meta")
        self.head = nn.Linear(d, m.vocab, **linear)


def torch_count(model) -> int:
    return sum(p.numel() for p in LlamaShapes(model).parameters())


@pytest.mark.parametrize("model", DECODERS, ids=lambda m: m.name)
def test_the_weights_are_counted_as_pytorch_and_the_release_count_them(model):
    assert decode.parameters(model) == torch_count(model) == RELEASED[model.name]
    assert decode.weight_bytes(model) == 2 * RELEASED[model.name]


def test_multi_head_adds_the_key_and_value_projections_it_would_need():
    mha = decode.as_multi_head(MISTRAL_7B)
    assert mha.kv_heads == mha.heads == MISTRAL_7B.heads
    extra = 2 * MISTRAL_7B.layers * MISTRAL_7B.d_model * (32 - 8) * MISTRAL_7B.head_dim
    assert (
        decode.parameters(mha) - decode.parameters(MISTRAL_7B)
        == extra
        == torch_count(mha) - torch_count(MISTRAL_7B)
    )


def test_a_step_reads_the_weights_once_and_every_sequences_cache():
    for batch in (1, 16):
        assert decode.step_bytes(LLAMA3_8B, 4096, batch) == decode.weight_bytes(
            LLAMA3_8B
        ) + kv_cache_bytes(LLAMA3_8B, 4096, batch)
    rate = decode.tokens_per_second(LLAMA3_8B, 4096, 16)
    assert rate == pytest.approx(16 * 3.35e12 / decode.step_bytes(LLAMA3_8B, 4096, 16))
    # Twice the batch: more tokens per second (the weights are shared), never twice as many.
    assert rate < decode.tokens_per_second(LLAMA3_8B, 4096, 32) < 2 * rate


def test_a_window_caps_the_cache_a_step_reads():
    w = MISTRAL_7B.window
    assert decode.cache_read(MISTRAL_7B, 10 * w) == w
    assert decode.step_bytes(MISTRAL_7B, 10 * w, 4) == decode.step_bytes(MISTRAL_7B, w, 4)
    assert decode.cache_read(LLAMA3_8B, 10 * w) == 10 * w
    assert decode.cache_outweighs(MISTRAL_7B, 16) is None  # 16 windows weigh less


def test_the_caches_outweigh_the_weights_from_the_first_length_that_makes_them():
    t = decode.cache_outweighs(LLAMA3_8B, 16)
    weights = decode.weight_bytes(LLAMA3_8B)
    assert kv_cache_bytes(LLAMA3_8B, t, 16) > weights >= kv_cache_bytes(LLAMA3_8B, t - 1, 16)
    assert decode.cache_share(LLAMA3_8B, t, 16) > 0.5 >= decode.cache_share(LLAMA3_8B, t - 1, 16)


def test_bad_calls_say_how_to_fix_them():
    with pytest.raises(ValueError, match="Llama-style"):
        decode.parameters(GPT2_SMALL)
    with pytest.raises(ValueError, match="batch"):
        decode.step_bytes(LLAMA2_7B, 10, batch=0)
    with pytest.raises(ValueError, match="bandwidth"):
        decode.tokens_per_second(LLAMA2_7B, 10, bandwidth=0)
    with pytest.raises(ValueError, match="tokens"):
        decode.cache_read(LLAMA2_7B, 0)
