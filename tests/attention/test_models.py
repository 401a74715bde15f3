"""The published configurations hang together: heads tile the embedding, K/V heads divide
the query heads, and GPT-2's numbers are the ones the rest of the series uses."""

import pytest

from attention import models
from attention.fixtures import GPT2_CONTEXT, GPT2_EMBED
from attention.heads import GPT2_HEADS


@pytest.mark.parametrize("model", models.MODELS, ids=lambda m: m.name)
def test_heads_tile_the_embedding_and_kv_heads_divide_them(model):
    assert model.heads * model.head_dim == model.d_model
    assert model.heads % model.kv_heads == 0
    assert model.bytes_per_value in (2, 4)
    assert model.source.startswith("https://")


def test_gpt2_is_the_series_gpt2():
    gpt2 = models.GPT2_SMALL
    assert (gpt2.heads, gpt2.d_model, gpt2.context) == (GPT2_HEADS, GPT2_EMBED, GPT2_CONTEXT)
    assert gpt2.kv_heads == gpt2.heads  # ordinary multi-head attention


def test_grouped_models_share_kv_heads():
    # Llama 2 70B, Mistral 7B and Llama 3 8B use grouped-query attention with 8 K/V heads.
    for model in (models.LLAMA2_70B, models.MISTRAL_7B, models.LLAMA3_8B):
        assert model.kv_heads == 8 < model.heads


def test_deepseek_v2_caches_a_latent_and_a_rotary_key():
    ds = models.DEEPSEEK_V2
    # The paper: the cache per token and layer is (d_c + d_h^R) = 4.5 d_h numbers.
    assert (ds.kv_latent + ds.rope_head_dim) / ds.head_dim == 4.5


def test_an_unknown_name_says_which_are_known():
    with pytest.raises(ValueError, match="known: GPT-2"):
        models.by_name("GPT-5")
    assert models.by_name("Mistral 7B").window == 4096
