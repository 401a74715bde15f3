"""Which scores are computed, and where, post 3's sections 04, 08 and 09: the sliding window, the
online softmax and FlashAttention's memory traffic.
"""

import math

from attention import hbm, online
from attention.cost import GPT41_CONTEXT, score_matrix_bytes
from attention.models import LLAMA2_7B, MISTRAL_7B
from attention.window import (
    causal_scores,
    paper_span,
    reach,
    window_fraction,
    window_score_bytes,
    window_scores,
)
from formatting import bytes_text, decimal_text, duration_text, integer, noise_text, num, percent

LONG_TOKENS = 2**15  # 32,768 tokens: where a window of 4,096 starts to pay


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


def context() -> dict:
    return {
        **_window(),
        **_online(),
        **_memory(),
    }
