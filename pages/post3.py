"""Post 3: what modern models changed about attention. Every number the prose quotes.

Each value is computed by ``attention/`` from the published configurations in
``attention.models`` and formatted with ``formatting``, so the prose and the figures print the
same digits. Numbers quoted from a paper in its own words are marked as quotations.
"""

import math

import numpy as np

from attention import decode as dc
from attention import gpt, hbm, online, rotary
from attention import grouped as gq
from attention import interleaved as il
from attention import rope_scaling as rs
from attention.cost import CARD_GIB, GPT41_CONTEXT, card_bytes, score_matrix_bytes
from attention.fixtures import TOKENS, book_inputs
from attention.heads import multihead_split
from attention.kv_cache import book_generation, kv_cache_bytes, largest_difference, total_work
from attention.latent import GQA_GROUPS, cache_comparison, equivalent_groups, tiny_gaps
from attention.masking import book_scores
from attention.models import (
    DEEPSEEK_V2,
    GEMMA2_9B,
    GEMMA3_12B,
    GPT2_SMALL,
    INTERLEAVED,
    LLAMA2_7B,
    LLAMA2_70B,
    LLAMA3_8B,
    MISTRAL_7B,
    MODELS,
)
from attention.torch_rng import BOOK_D_IN, BOOK_D_OUT
from attention.window import (
    causal_scores,
    paper_span,
    reach,
    window_fraction,
    window_mask,
    window_score_bytes,
    window_scores,
)
from formatting import (
    bytes_text,
    decimal_text,
    duration_text,
    integer,
    noise_text,
    num,
    percent,
    sci,
    words,
)

SLUG = "modern-attention"
TEMPLATE = "post3.html"
PUBLISHED = "2026-12-01"  # the day its template was first committed
TITLE = "After 2019: six changes to attention"
SUMMARY = (
    "The key/value cache, shared key and value heads, sliding windows, rotary positions, "
    "FlashAttention's online softmax and DeepSeek-V2's latent cache: what each changes, "
    "computed live in numpy at the sizes of published models."
)
BATCH = 32  # conversations served at once, for the cache of a batch
LONG_TOKENS = 2**15  # 32,768 tokens: where a window of 4,096 starts to pay
LLAMA31_POSITIONS = 131072  # Llama 3.1 8B's max_position_embeddings (its configuration)
LG_MID = 2**15  # a length between Gemma 3's window and its context
PREVIEW_WINDOW = 3  # the band drawn on the link card


def preview() -> dict:
    """This post's link card: the book's scores under a sliding window of three tokens (the
    band figure "sliding-window" draws), everything outside the band minus infinity."""
    scores, _ = book_scores()
    masked = np.where(window_mask(len(TOKENS), PREVIEW_WINDOW), scores, -np.inf)
    return {
        "figure": "sliding-window",
        "matrix": masked,
        "labels": TOKENS,
        "caption": f"A sliding window of {PREVIEW_WINDOW}: a band where the triangle was",
        "alt": 'A 6 by 6 heatmap of attention scores for "Your journey starts with one step": '
        f"only a band of {PREVIEW_WINDOW} cells along the diagonal coloured, the rest −∞.",
    }


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


def _window() -> dict:
    """Section 04: the band's scores against the triangle, and the reach after L layers."""
    m = MISTRAL_7B
    return {
        "mistral_window": integer(m.window),
        "mistral_layers": integer(m.layers),
        "mistral_context": integer(m.context),
        "mistral_fraction": percent(window_fraction(m.context, m.window)),
        "long_tokens": integer(LONG_TOKENS),
        "long_window_scores": integer(window_scores(LONG_TOKENS, m.window)),
        "long_causal_scores": integer(causal_scores(LONG_TOKENS)),
        "long_fraction": percent(window_fraction(LONG_TOKENS, m.window)),
        "long_window_bytes": bytes_text(window_score_bytes(LONG_TOKENS, m.window)),
        "long_full_bytes": bytes_text(score_matrix_bytes(LONG_TOKENS)),
        "gpt41_tokens": integer(GPT41_CONTEXT),
        "gpt41_fraction": percent(window_fraction(GPT41_CONTEXT, m.window)),
        "mistral_span": integer(paper_span(m.window, m.layers)),
        "mistral_step": integer(m.window - 1),
        "mistral_reach": integer(reach(m.window, m.layers)),
    }


def _rotary() -> dict:
    """Section 04: the score depends on the offset alone; the pairs' speeds for two bases."""
    q, k = rotary.example_query_key(LLAMA3_8B.head_dim)
    f2 = rotary.frequencies(LLAMA2_7B.head_dim, LLAMA2_7B.rope_base)
    f3 = rotary.frequencies(LLAMA3_8B.head_dim, LLAMA3_8B.rope_base)
    slowest2 = rotary.wavelengths(LLAMA2_7B.head_dim, LLAMA2_7B.rope_base)[-1]
    slowest3 = rotary.wavelengths(LLAMA3_8B.head_dim, LLAMA3_8B.rope_base)[-1]
    return {
        "rope_head_dim": integer(LLAMA3_8B.head_dim),
        "rope_pairs": integer(LLAMA3_8B.head_dim // 2),
        "rope_score": num(rotary.score(q, k, 5, 2), 4),
        "rope_shift_error_near": sci(rotary.shift_error(q, k, 5, 2, np.arange(1, 11)), 1),
        "rope_shifts": integer(LLAMA3_8B.context - 1),
        "rope_shift_error": sci(rotary.shift_error(q, k, 5, 2, np.arange(LLAMA3_8B.context)), 1),
        "rope_fastest_wavelength": num(
            rotary.wavelengths(LLAMA2_7B.head_dim, LLAMA2_7B.rope_base)[0], 1
        ),
        "rope_step_llama2": num(f2[0] / f2[1], 3),
        "rope_step_llama3": num(f3[0] / f3[1], 3),
        "rope_slowest_llama2": integer(round(slowest2)),
        "rope_slowest_llama3": integer(round(slowest3)),
        "rope_base_paper": integer(rotary.ROPE_BASE),
        "rope_base_llama3": integer(LLAMA3_8B.rope_base),
        "llama3_context": integer(LLAMA3_8B.context),
        "rope_turns_llama2": integer(
            rotary.full_turns_within(LLAMA2_7B.head_dim, LLAMA2_7B.context, LLAMA2_7B.rope_base)
        ),
        "rope_turns_llama3": integer(
            rotary.full_turns_within(LLAMA3_8B.head_dim, LLAMA3_8B.context, LLAMA3_8B.rope_base)
        ),
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


def _rope_scaling() -> dict:
    """Section 07: how each way of stretching the rotations treats Llama 3.1 8B's pairs, and
    what DeepSeek-V2's configuration asks for."""
    llama, ds = rs.LLAMA31_8B, rs.DEEPSEEK_V2_ROPE
    before = rs.periods(rotary.frequencies(llama.width, llama.base))
    own, ds_own = rs.changes(llama, "own"), rs.changes(ds, "own")
    return {
        "rs_pairs": integer(llama.width // 2),
        "rs_L": integer(llama.trained),
        "rs_never": integer(rs.never_turned(llama)),
        "rs_s": num(llama.factor, 0),
        "rs_first": num(before[0], 2),
        "rs_first_pi": num(rs.scaled_periods(llama, "interpolation")[0], 2),
        "rs_low": num(llama.alpha, 0),
        "rs_high": num(llama.beta, 0),
        "rs_kept": integer(own.kept),
        "rs_stretched": integer(own.stretched),
        "rs_blended": integer(own.blended),
        "rs_kept_below": integer(round(llama.trained / llama.beta)),
        "rs_positions": integer(LLAMA31_POSITIONS),
        "rs_ds_s": num(ds.factor, 0),
        "rs_ds_L": integer(ds.trained),
        "rs_ds_target": integer(round(ds.trained * ds.factor)),
        "rs_ds_pairs": integer(ds.width // 2),
        "rs_ds_fast": num(ds.beta, 0),
        "rs_ds_slow": num(ds.alpha, 0),
        "rs_ds_kept": integer(ds_own.kept),
        "rs_ds_stretched": integer(ds_own.stretched),
        "rs_ds_blended": integer(ds_own.blended),
    }


def _online() -> dict:
    """Section 08: the figure's walk through the tiles, and the memory the matrix would take."""
    Q, K, V = online.example()
    q = Q[online.EXAMPLE_QUERY]
    out, steps = online.online_row(q, K, V, online.EXAMPLE_TILE)
    maxima = [step.m for step in steps]
    one_tile, _ = online.online_row(q, K, V, online.EXAMPLE_T)
    full = online.full_row(q, K, V)
    model = LLAMA2_7B
    memory = online.memory(model.context, model.head_dim, online.MEMORY_TILE, model.bytes_per_value)
    return {
        "online_T": integer(online.EXAMPLE_T),
        "online_d": integer(online.EXAMPLE_D),
        "online_tile": integer(online.EXAMPLE_TILE),
        "online_tiles": integer(len(steps)),
        "online_m_first": num(maxima[0]),
        "online_tiles_flat": integer(sum(m == maxima[0] for m in maxima)),
        "online_m_last": num(maxima[-1]),
        "online_rescale": num(math.exp(maxima[-2] - maxima[-1])),
        "online_diff": noise_text(online.max_difference(out, full)),
        "online_diff_one_tile": noise_text(online.max_difference(one_tile, full)),
        "online_T_model": integer(model.context),
        "online_model": model.name,
        "online_matrix": bytes_text(memory.scores),
        "online_memory_tile": integer(online.MEMORY_TILE),
        "online_tiled": bytes_text(memory.tiled),
        "online_output": bytes_text(memory.output),
        "online_long_T": integer(GPT41_CONTEXT),
        "online_long_matrix": bytes_text(score_matrix_bytes(GPT41_CONTEXT, model.bytes_per_value)),
        "online_causal_tiles": integer(
            online.visited_tiles(online.EXAMPLE_T, online.EXAMPLE_TILE, causal=True)
        ),
        "online_all_tiles": integer(online.visited_tiles(online.EXAMPLE_T, online.EXAMPLE_TILE)),
    }


def _memory() -> dict:
    """Section 09: what one head moves through HBM, standard against FlashAttention, on the
    FlashAttention paper's A100 (Figure 1) at GPT-2's length and head width."""
    T, d = hbm.EXAMPLE_T, hbm.EXAMPLE_D
    M = hbm.sram_numbers(hbm.SM_SRAM_BYTES)
    B_r, B_c = hbm.block_sizes(d, M)
    standard, flash = hbm.standard_traffic(T, d), hbm.flash_traffic(T, d, M)
    sram, gpu = hbm.HIERARCHY[:2]
    measured = {name: [num(x, 1) for x in pair] for name, pair in hbm.MEASURED.items()}
    return {
        "hierarchy": [
            {
                "name": level.name,
                "rate": decimal_text(level.bandwidth, "B/s"),
                "size": ("more than " if level.more else "") + decimal_text(level.size, "B"),
            }
            for level in hbm.HIERARCHY
        ],
        "hbm_faster": integer(round(sram.bandwidth / gpu.bandwidth)),
        "hbm_larger": integer(round(gpu.size / sram.size)),
        "hbm_sm_kib": integer(hbm.SM_SRAM_BYTES // 1024),
        "hbm_sms": integer(hbm.SM_COUNT),
        "hbm_T": integer(T),
        "hbm_d": integer(d),
        "hbm_standard": bytes_text(standard.total * hbm.BYTES_PER_NUMBER),
        "hbm_scores_share": percent(hbm.score_traffic(T) / standard.total),
        "hbm_M": integer(M),
        "hbm_B_r": integer(B_r),
        "hbm_B_c": integer(B_c),
        "hbm_T_c": integer(hbm.key_blocks(T, d, M)),
        "hbm_flash": bytes_text(flash.total * hbm.BYTES_PER_NUMBER),
        "hbm_ratio": num(standard.total / flash.total, 1),
        "hbm_bandwidth": decimal_text(hbm.HBM_BANDWIDTH, "B/s"),
        "hbm_standard_time": duration_text(hbm.seconds(standard.total)),
        "hbm_flash_time": duration_text(hbm.seconds(flash.total)),
        "hbm_long_64": num(hbm.long_ratio(d, M), 1),
        "hbm_long_128": num(hbm.long_ratio(2 * d, M), 1),
        "hbm_measured_sizes": ", ".join(
            f"{name} {integer(size)}" for name, size in hbm.MEASURED_SIZES.items()
        ),
        "hbm_gflops": measured["GFLOPs"],
        "hbm_gb": measured["HBM reads and writes, GB"],
        "hbm_ms": measured["runtime, ms"],
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


def _generation() -> dict:
    """Section 11: the small GPT, the work each way for the figure's default, and the bonus
    material's measurement."""
    small, prompt, n = gpt.SMALL, len(gpt.encode(gpt.EXAMPLE_PROMPT)), gpt.EXAMPLE_TOKENS
    work = {
        way: sum(gpt.work_per_token(small, prompt, n, way == "cached"))
        for way in ("cached", "uncached")
    }
    rates = gpt.BONUS_TOKENS_PER_SECOND
    return {
        "gpt_book_params": integer(gpt.parameters(gpt.BOOK_124M)),
        "gpt_book_tied": integer(gpt.parameters(gpt.BOOK_124M) - 50_257 * 768),
        "gpt_layers": integer(small.layers),
        "gpt_heads": integer(small.heads),
        "gpt_width": integer(small.width),
        "gpt_context": integer(small.context),
        "gpt_vocab": integer(small.vocab),
        "gpt_params": integer(gpt.parameters(small)),
        "gpt_prompt": gpt.EXAMPLE_PROMPT,
        "gpt_prompt_tokens": integer(prompt),
        "gpt_tokens": integer(n),
        "gpt_work_cached": integer(work["cached"]),
        "gpt_work_uncached": integer(work["uncached"]),
        "gpt_work_ratio": num(work["uncached"] / work["cached"], 1),
        "gpt_bonus_without": integer(rates["without"]),
        "gpt_bonus_with": integer(rates["with"]),
        "gpt_bonus_ratio": num(rates["with"] / rates["without"], 1),
        "gpt_bonus_tokens": integer(gpt.BONUS_NEW_TOKENS),
    }


def _models() -> dict:
    """The table of the models the post computes with, each linked to its source."""
    rows = [
        {
            "name": m.name,
            "source": m.source,
            "layers": integer(m.layers),
            "heads": integer(m.heads),
            "kv_heads": integer(m.kv_heads),
            "head_dim": integer(m.head_dim),
            "context": integer(m.context),
            "context_source": m.context_source,
            "bytes": integer(m.bytes_per_value),
            "ffn": integer(m.ffn) if m.ffn else "",
            "vocab": integer(m.vocab) if m.vocab else "",
        }
        for m in (*MODELS, *INTERLEAVED)
    ]
    ds = DEEPSEEK_V2
    rows.append(
        {
            "name": ds.name,
            "source": ds.source,
            "layers": integer(ds.layers),
            "heads": integer(ds.heads),
            "kv_heads": f"latent of {integer(ds.kv_latent)}",
            "head_dim": integer(ds.head_dim),
            "context": integer(ds.context),
            "context_source": ds.context_source,
            "bytes": integer(ds.bytes_per_value),
            "ffn": "",
            "vocab": "",
        }
    )
    from_papers = [m.name for m in (*MODELS, *INTERLEAVED, DEEPSEEK_V2) if m.context_source]
    return {
        "models": rows,
        "gpt2_layers": integer(GPT2_SMALL.layers),
        "paper_context_models": words(from_papers),
    }


def context() -> dict:
    return {
        **_models(),
        **_kv_cache(),
        **_grouped(),
        **_decode(),
        **_window(),
        **_local_global(),
        **_rotary(),
        **_rope_scaling(),
        **_online(),
        **_memory(),
        **_latent(),
        **_generation(),
    }
