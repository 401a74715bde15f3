"""What each token keeps, post 3's sections 01, 02, 03, 05 and 10: the key/value cache, shared
key/value heads, what a decode step reads, interleaved local and global layers, and the latent
cache.
"""

import numpy as np

from attention import decode as dc
from attention import grouped as gq
from attention import interleaved as il
from attention.cost import CARD_GIB, card_bytes
from attention.fixtures import TOKENS, book_inputs
from attention.heads import multihead_split
from attention.kv_cache import book_generation, kv_cache_bytes, largest_difference, total_work
from attention.latent import GQA_GROUPS, cache_comparison, equivalent_groups, tiny_gaps
from attention.models import (
    DEEPSEEK_V2,
    GEMMA2_9B,
    GEMMA3_12B,
    GPT2_SMALL,
    LLAMA2_7B,
    LLAMA2_70B,
    LLAMA3_8B,
    MISTRAL_7B,
)
from attention.torch_rng import BOOK_D_IN, BOOK_D_OUT
from formatting import bytes_text, integer, noise_text, num, percent, words

BATCH = 32  # conversations served at once, for the cache of a batch
LG_MID = 2**15  # a length between Gemma 3's window and its context


def _kv_cache() -> dict:
    """Section 01: generation with and without the cache, and the cache's size."""
    without, with_cache = book_generation()
    batch_bytes = kv_cache_bytes(LLAMA2_7B, LLAMA2_7B.context, BATCH)
    return {
        "book_tokens": integer(len(TOKENS)),
        "book_d_in": integer(BOOK_D_IN),
        "book_d_k": integer(BOOK_D_OUT),
        "last_step_without": integer(sum(without[-1].work.values())),
        "last_step_with": integer(sum(with_cache[-1].work.values())),
        "total_without": integer(total_work(without)),
        "total_with": integer(total_work(with_cache)),
        "largest_difference": noise_text(largest_difference(without, with_cache)),
        "gpt2_name": GPT2_SMALL.name,
        "gpt2_per_token": bytes_text(kv_cache_bytes(GPT2_SMALL, 1)),
        "gpt2_context": integer(GPT2_SMALL.context),
        "gpt2_over_context": bytes_text(kv_cache_bytes(GPT2_SMALL, GPT2_SMALL.context)),
        "llama2_layers": integer(LLAMA2_7B.layers),
        "llama2_kv_heads": integer(LLAMA2_7B.kv_heads),
        "llama2_head_dim": integer(LLAMA2_7B.head_dim),
        "llama2_bytes": integer(LLAMA2_7B.bytes_per_value),
        "llama2_per_token_bytes": integer(kv_cache_bytes(LLAMA2_7B, 1)),
        "llama2_per_token": bytes_text(kv_cache_bytes(LLAMA2_7B, 1)),
        "llama2_context": integer(LLAMA2_7B.context),
        "llama2_over_context": bytes_text(kv_cache_bytes(LLAMA2_7B, LLAMA2_7B.context)),
        "batch": integer(BATCH),
        "llama2_batch": bytes_text(batch_bytes),
        "llama2_batch_of_card": percent(batch_bytes / card_bytes(CARD_GIB), 0),
        "card_gib": integer(CARD_GIB),
    }


def grouped_toy_difference() -> float:
    """The grouped-heads figure's default check: grouped-query attention on the book's tokens
    against multi-head attention whose K/V weights repeat across each group."""
    heads, kv_heads = gq.TOY.heads, gq.TOY.kv_heads
    W_q, W_k, W_v = gq.toy_weights(heads, kv_heads)
    X = book_inputs()
    shared = gq.grouped_query_attention(X, W_q, W_k, W_v, heads, kv_heads)
    copied = multihead_split(
        X, W_q, gq.repeat_kv(W_k, heads, kv_heads), gq.repeat_kv(W_v, heads, kv_heads), heads
    )
    return float(np.max(np.abs(shared - copied)))


def _grouped() -> dict:
    """Section 02: what sharing K/V heads saves, for the published configurations."""
    l7, l70, m = LLAMA2_7B, LLAMA2_70B, MISTRAL_7B
    return {
        "toy_heads": integer(gq.TOY.heads),
        "toy_allowed": words([str(g) for g in gq.allowed_kv_heads(gq.TOY.heads)]),
        "toy_difference": noise_text(grouped_toy_difference()),
        "llama70_heads": integer(l70.heads),
        "llama70_kv_heads": integer(l70.kv_heads),
        "llama70_group": integer(gq.group_size(l70.heads, l70.kv_heads)),
        "llama70_cache_token": bytes_text(gq.cache_bytes_per_token(l70)),
        "llama70_mha_cache_token": bytes_text(gq.cache_bytes_per_token(l70, l70.heads)),
        "llama70_ratio": percent(gq.cache_ratio(l70.heads, l70.kv_heads)),
        "llama70_context": integer(l70.context),
        "llama70_cache_context": bytes_text(gq.cache_bytes(l70, l70.context)),
        "llama70_mha_cache_context": bytes_text(gq.cache_bytes(l70, l70.context, l70.heads)),
        "mistral_heads": integer(m.heads),
        "mistral_kv_heads": integer(m.kv_heads),
        "mistral_cache_token": bytes_text(gq.cache_bytes_per_token(m)),
        "mistral_ratio": percent(gq.cache_bytes_per_token(m) / gq.cache_bytes_per_token(l7)),
    }


def _decode() -> dict:
    """Section 03: the bytes a decode step reads, and the tokens per second they allow."""
    m, tokens, batch = MISTRAL_7B, dc.EXAMPLE_TOKENS, dc.EXAMPLE_BATCH
    mha = dc.as_multi_head(m)
    one, many = dc.step_bytes(m, tokens), dc.step_bytes(m, tokens, batch)
    rate = dc.tokens_per_second(m, tokens, batch)
    return {
        "decode_model": m.name,
        "decode_bandwidth": num(dc.H100_SXM_BANDWIDTH / 1e12, 2),
        "decode_params": integer(dc.parameters(m)),
        "decode_weights": bytes_text(dc.weight_bytes(m)),
        "decode_tokens": integer(tokens),
        "decode_cache_one": bytes_text(kv_cache_bytes(m, tokens)),
        "decode_step_one": bytes_text(one),
        "decode_time_one": num(one / dc.H100_SXM_BANDWIDTH * 1e3, 2),
        "decode_rate_one": integer(round(dc.tokens_per_second(m, tokens))),
        "decode_batch": integer(batch),
        "decode_step_batch": bytes_text(many),
        "decode_cache_share": percent(dc.cache_share(m, tokens, batch)),
        "decode_rate_batch": integer(round(rate)),
        "decode_rate_each": num(rate / batch, 1),
        "decode_kv": integer(m.kv_heads),
        "decode_mha_kv": integer(mha.kv_heads),
        "decode_mha_step": bytes_text(dc.step_bytes(mha, tokens, batch)),
        "decode_mha_rate": integer(round(dc.tokens_per_second(mha, tokens, batch))),
        "decode_mha_cache_share": percent(dc.cache_share(mha, tokens, batch)),
        "decode_70_weights": bytes_text(dc.weight_bytes(LLAMA2_70B)),
        "decode_llama3": LLAMA3_8B.name,
        "decode_llama3_outweighs": integer(dc.cache_outweighs(LLAMA3_8B, batch)),
    }


def _local_global() -> dict:
    """Section 05: Gemma 2's and Gemma 3's mixes of local and global layers, and their caches."""
    g2, g3 = GEMMA2_9B, GEMMA3_12B
    g3_local, g3_global = il.layer_counts(g3)
    long = g3.context

    def keeps(m, T):
        return percent(il.cache_bytes(m, T) / il.cache_bytes(m, T, every_layer_global=True))

    return {
        "lg_g2_window": integer(g2.window),
        "lg_g2_context": integer(g2.context),
        "lg_g2_layers": integer(g2.layers),
        "lg_g2_keeps": keeps(g2, g2.context),
        "lg_g3_window": integer(g3.window),
        "lg_g3_context": integer(long),
        "lg_g3_pattern": integer(g3.local_per_global),
        "lg_g3_local": integer(g3_local),
        "lg_g3_global": integer(g3_global),
        "lg_g3_kv": integer(g3.kv_heads),
        "lg_g3_head": integer(g3.head_dim),
        "lg_per_layer": bytes_text(il.cache_bytes(g3, 1) // g3.layers),
        "lg_g3_mixed": bytes_text(il.cache_bytes(g3, long)),
        "lg_g3_full": bytes_text(il.cache_bytes(g3, long, every_layer_global=True)),
        "lg_g3_keeps": keeps(g3, long),
        "lg_mid": integer(LG_MID),
        "lg_g3_share_mid": percent(il.global_share(g3, LG_MID)),
        "lg_g3_share_long": percent(il.global_share(g3, long)),
        "lg_g3_global_fraction": f"1 in {integer(g3.local_per_global + 1)}",
    }


def _latent() -> dict:
    """Section 10: DeepSeek-V2's cache as MHA, GQA, MQA and its latent attention."""
    ds = DEEPSEEK_V2
    rows = {row.kind: row for row in cache_comparison()}
    return {
        "latent_dc": integer(ds.kv_latent),
        "latent_rope": integer(ds.rope_head_dim),
        "latent_heads": integer(ds.heads),
        "latent_head_dim": integer(ds.head_dim),
        "latent_layers": integer(ds.layers),
        "latent_context": integer(ds.context),
        "latent_mla_layer": integer(rows["mla"].per_layer),
        "latent_mha_layer": integer(rows["mha"].per_layer),
        "latent_mla_token": bytes_text(rows["mla"].token_bytes),
        "latent_mha_token": bytes_text(rows["mha"].token_bytes),
        "latent_mla_context": bytes_text(rows["mla"].context_bytes),
        "latent_mha_context": bytes_text(rows["mha"].context_bytes),
        "latent_gqa_context": bytes_text(rows["gqa"].context_bytes),
        "latent_mqa_context": bytes_text(rows["mqa"].context_bytes),
        "latent_gqa_groups": integer(GQA_GROUPS),
        "latent_mha_over_mla": integer(round(1 / rows["mla"].of_mha)),
        "latent_equiv_groups": num(equivalent_groups(ds), 2),
        "latent_tiny_gap": noise_text(max(tiny_gaps(0))),
        "latent_qk_dim": integer(ds.head_dim + ds.rope_head_dim),
        "latent_all_keys": integer(ds.heads * ds.head_dim),
    }


def context() -> dict:
    return {
        **_kv_cache(),
        **_grouped(),
        **_decode(),
        **_local_global(),
        **_latent(),
    }
