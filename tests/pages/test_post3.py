"""Post 3's page: its numbers are the core's at the published sizes, checked against each
paper's own statement where it gives one, and every one is printed on the page.

The published facts (heads, layers, widths, windows, bases) are typed here from the sources
attention/models.py names; everything derived from them is recomputed here from the formula
the paper gives, independently of the core's functions.
"""

import html as html_lib
import math
import re

import pytest

from attention import gpt
from attention.models import DEEPSEEK_V2, LLAMA2_7B, LLAMA2_70B, MISTRAL_7B, MODELS
from formatting import sci
from pages import placed_figures, post3
from pages.references import WORKS
from tests.pages.render import render, snippet_outputs

N = post3.context()
FIGURES = [
    "kv-cache",
    "grouped-heads",
    "decode",
    "sliding-window",
    "local-global",
    "rotary",
    "rope-scaling",
    "online-softmax",
    "memory-traffic",
    "latent-cache",
    "generation",
]


def kib(n_bytes: int) -> float:
    return n_bytes / 1024


@pytest.fixture(scope="module")
def html() -> str:
    return render(post3)


def _text(html: str) -> str:
    body = re.sub(r"<script\b.*?</script>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", html_lib.unescape(re.sub(r"<[^>]+>", " ", body)))


def test_the_sections_place_their_figures_in_order():
    assert placed_figures(post3.TEMPLATE) == FIGURES


def test_the_cache_per_token_is_the_papers_formula():
    # Shazeer 2019 / every config: 2 (K and V) x layers x K/V heads x head width x bytes.
    assert N["llama2_per_token_bytes"] == f"{2 * 32 * 32 * 128 * 2:,}"  # 524,288
    assert N["llama2_per_token"] == "512 KiB"
    assert N["llama2_over_context"] == "2 GiB"  # 512 KiB x 4,096 tokens
    assert N["gpt2_per_token"] == f"{kib(2 * 12 * 12 * 64 * 4):.0f} KiB"  # float32
    assert N["llama70_cache_token"] == f"{kib(2 * 80 * 8 * 128 * 2):.0f} KiB"  # 8 K/V heads


def test_decoding_reads_the_weights_once_and_each_sequences_cache():
    # Mistral 7B (its config: 32 layers of 4,096 wide, 32 query and 8 K/V heads of 128, a
    # feed-forward of 14,336, 32,000 tokens), counted independently of the core.
    d, ffn, vocab, layers = 4096, 14336, 32000, 32
    params = 2 * vocab * d + layers * (2 * d * d + 2 * d * 8 * 128 + 3 * d * ffn + 2 * d) + d
    assert N["decode_params"] == f"{params:,}"
    cache = 2 * layers * 8 * 128 * 2 * 4096  # one sequence, 4,096 tokens, 16-bit
    assert N["decode_cache_one"] == "512 MiB" == f"{cache // 2**20} MiB"
    step = 2 * params + 16 * cache
    assert N["decode_rate_batch"] == f"{round(16 * 3.35e12 / step):,}"
    assert N["decode_time_one"] == f"{(2 * params + cache) / 3.35e12 * 1e3:.2f}"
    assert N["decode_bandwidth"] == "3.35"  # the H100 SXM datasheet's TB/s


def test_the_cache_is_exact_and_cheaper_per_step():
    assert N["largest_difference"] == "0"  # the same floats, not close ones
    without, with_cache = (int(N[k].replace(",", "")) for k in ("total_without", "total_with"))
    assert with_cache < without


def test_grouped_heads_shrink_the_cache_by_g_over_h():
    assert N["llama70_ratio"] == f"{100 * LLAMA2_70B.kv_heads / LLAMA2_70B.heads:.1f}%"
    assert N["llama70_group"] == "8"
    assert N["mistral_ratio"] == f"{100 * MISTRAL_7B.kv_heads / LLAMA2_7B.kv_heads:.1f}%"
    assert N["toy_allowed"] == "1, 2, 4 and 8"
    assert N["toy_difference"] == "0"


def test_the_window_counts_match_mistrals_paper():
    # Jiang et al. 2023: window 4,096, 32 layers, "approximately 131K tokens" (k x W).
    assert N["mistral_span"] == f"{32 * 4096:,}"
    assert N["mistral_reach"] == f"{32 * 4095:,}"  # the window counts the token itself
    T, W = 32768, 4096
    band = sum(min(i + 1, W) for i in range(T))
    assert N["long_window_scores"] == f"{band:,}"
    assert N["long_causal_scores"] == f"{T * (T + 1) // 2:,}"


def test_the_rotary_numbers_follow_the_papers_frequencies():
    # Su et al. 2021: theta_i = base^(-2(i-1)/d); pair 1 turns one radian per token.
    assert N["rope_fastest_wavelength"] == "6.3"  # 2 pi tokens
    assert N["rope_step_llama2"] == f"{10000 ** (2 / 128):.3f}"
    assert N["rope_step_llama3"] == f"{500000 ** (2 / 128):.3f}"
    assert float(N["rope_shift_error"]) < 1e-10  # rounding, not a change of score


def test_the_online_softmax_is_exact_with_one_tile():
    assert N["online_diff_one_tile"] == "0"
    assert float(N["online_diff"]) < 1e-14
    assert N["online_matrix"] == "32 MiB"  # 4,096^2 scores x 2 bytes


def test_the_local_global_caches_follow_the_configurations():
    """Section 05, counted here from each configuration: 8 K/V heads of 256, 16-bit numbers."""
    per = 2 * 8 * 256 * 2
    g3_mixed = per * (40 * 1024 + 8 * 131072)  # 40 local layers keep 1,024 tokens, 8 keep all
    g3_full = per * 48 * 131072
    assert N["lg_per_layer"] == f"{per // 1024} KiB"
    assert N["lg_g3_mixed"] == f"{g3_mixed / 2**30:.2f} GiB"
    assert N["lg_g3_full"] == f"{g3_full // 2**30} GiB"
    assert N["lg_g3_keeps"] == f"{100 * g3_mixed / g3_full:.1f}%"
    g2 = (21 * 4096 + 21 * 8192) / (42 * 8192)  # Gemma 2 9B at 8,192 tokens
    assert N["lg_g2_keeps"] == f"{100 * g2:.1f}%"
    assert N["lg_g3_share_mid"] == f"{100 * 8 * 32768 / (40 * 1024 + 8 * 32768):.1f}%"


def test_the_rope_scaling_follows_the_configurations_and_papers():
    """Section 07, counted here from Llama 3.1 8B's configuration (64 pairs, base 500,000,
    8,192 tokens, factor 8, ramp from 1 to 4 turns) and DeepSeek-V2's (32 pairs, base 10,000,
    4,096 tokens, factor 40)."""
    periods = [2 * math.pi * 500000.0 ** (2 * i / 128) for i in range(64)]
    assert N["rs_never"] == str(sum(8191 < p for p in periods))
    assert N["rs_kept"] == str(sum(p < 8192 / 4 for p in periods))
    assert N["rs_stretched"] == str(sum(p > 8192 for p in periods))
    assert N["rs_first_pi"] == f"{2 * math.pi * 8:.2f}"
    assert N["rs_ds_target"] == "163,840"  # 4,096 x 40, DeepSeek-V2's max_position_embeddings
    assert N["rs_positions"] == "131,072"  # Llama 3.1 8B's max_position_embeddings


def test_the_memory_traffic_is_the_papers_algorithms_counted():
    """Section 07, counted here from Algorithms 0 and 1 as the FlashAttention paper writes
    them, at T = 1,024 and d = 64 with 192 KB of 16-bit numbers as M."""
    T, d, M = 1024, 64, 192 * 1024 // 2
    B_c = -(-M // (4 * d))
    T_c = -(-T // B_c)
    standard = 2 * T * T + 3 * T * d + 2 * T * T + T * d  # reads, then writes
    flash = 2 * T * d + T_c * (2 * T * d + 2 * T) + (T * d + 2 * T) * (1 + T_c)
    assert (N["hbm_B_c"], N["hbm_B_r"], N["hbm_T_c"]) == ("384", "64", "3")
    assert N["hbm_standard"] == f"{2 * standard / 2**20:.2f} MiB"
    assert N["hbm_flash"] == f"{2 * flash / 2**20:.2f} MiB"
    assert N["hbm_ratio"] == f"{standard / flash:.1f}"
    assert N["hbm_scores_share"] == f"{100 * 4 * T * T / standard:.1f}%"
    # Figure 1's levels, and Figure 2's measurement, as the paper prints them.
    assert [(r["name"], r["rate"], r["size"]) for r in N["hierarchy"]] == [
        ("SRAM", "19 TB/s", "20 MB"),
        ("HBM", "1.5 TB/s", "40 GB"),
        ("CPU DRAM", "12.8 GB/s", "more than 1 TB"),
    ]
    assert (N["hbm_gb"], N["hbm_ms"]) == (["40.3", "4.4"], ["41.7", "7.3"])


def test_the_latent_cache_is_deepseeks_table_1():
    ds = DEEPSEEK_V2
    assert N["latent_mla_layer"] == f"{512 + 64:,}"  # (d_c + d_h^R) per token and layer
    assert N["latent_mha_layer"] == f"{2 * 128 * 128:,}"  # 2 n_h d_h
    assert N["latent_equiv_groups"] == "2.25"  # "GQA with only 2.25 groups"
    assert (ds.kv_latent, ds.rope_head_dim, ds.heads, ds.head_dim, ds.layers) == (
        512,
        64,
        128,
        128,
        60,
    )


def test_the_generation_counts_chapter_4s_model_at_a_small_size():
    """Section 11, counted here from the model's shapes: per layer 12 t d^2 for the four
    projections and the feed-forward of width 4d, 2 t T d for the scores and the weighted sum;
    t d V for the logits. The prompt is the book's sentence, 33 characters; 32 new tokens."""
    d, L, V, prompt, n = 64, 4, 95, 33, 32

    def work(t: int, T: int) -> int:
        return L * (12 * t * d * d + 2 * t * T * d) + t * d * V

    without = sum(work(T, T) for T in range(prompt, prompt + n))
    cached = work(prompt, prompt) + sum(work(1, T) for T in range(prompt + 1, prompt + n))
    assert N["gpt_work_uncached"] == f"{without:,}" and N["gpt_work_cached"] == f"{cached:,}"
    assert N["gpt_work_ratio"] == f"{without / cached:.1f}"
    assert N["gpt_prompt_share"] == f"{100 * work(prompt, prompt) / cached:.0f}%"
    embeddings = V * d + 256 * d
    block = 4 * d * d + d + 8 * d * d + 4 * d + d + 4 * d  # attention, feed-forward, 2 norms
    assert N["gpt_params"] == f"{embeddings + L * block + 2 * d + d * V:,}"
    # Chapter 4 prints 163,009,536 parameters for its 124M config, 124,412,160 with the output
    # layer tied; the bonus README's table: 27 and 144 tokens per second, 200 new tokens.
    assert (N["gpt_book_params"], N["gpt_book_tied"]) == ("163,009,536", "124,412,160")
    assert (N["gpt_bonus_without"], N["gpt_bonus_with"], N["gpt_bonus_tokens"]) == (
        "27",
        "144",
        "200",
    )
    # The bonus material's run, counted the same way at the book's 124M sizes: 200 tokens after
    # a 4-token prompt (its script's "Hello, I am").
    d, L, V, prompt, n = 768, 12, 50_257, 4, 200
    without = sum(work(T, T) for T in range(prompt, prompt + n))
    cached = work(prompt, prompt) + sum(work(1, T) for T in range(prompt + 1, prompt + n))
    assert N["gpt_bonus_work_ratio"] == f"{without / cached:.0f}" == "102"
    assert (N["gpt_bonus_prompt"], N["gpt_bonus_ratio"]) == ("4", f"{144 / 27:.1f}")


def test_every_number_in_the_context_is_printed(html):
    text = _text(html)
    missing = [k for k, v in N.items() if isinstance(v, str) and v not in text]
    assert missing == []


def test_every_model_in_the_table_links_its_source(html):
    for row in N["models"]:
        assert f'<a href="{row["source"]}">{row["name"]}</a>' in html


# Each linked configuration's limit on positions (max_position_embeddings; GPT-2's n_positions),
# typed from the file the table links.
CONFIG_POSITIONS = {
    "GPT-2 (124M)": 1024,
    "Llama 2 7B": 4096,
    "Llama 2 70B": 4096,
    "Mistral 7B": 32768,
    "Llama 3 8B": 8192,
    "DeepSeek-V2": 163840,
}


def test_a_context_is_its_configurations_or_links_the_paper_it_comes_from(html):
    cited = {work.url for work in WORKS.values()}
    for model in (*MODELS, DEEPSEEK_V2):
        row = next(row for row in N["models"] if row["name"] == model.name)
        if model.context == CONFIG_POSITIONS[model.name]:
            assert model.context_source is None, model.name
            continue
        assert model.context_source in cited, f"{model.name}: its context cites no paper"
        assert f'<a href="{model.context_source}"' in html
        assert re.search(rf'href="{re.escape(model.context_source)}"[^>]*>{row["context"]}<', html)


def test_the_post_cites_every_paper_the_issue_names(html):
    for key in (
        "shazeer2019",
        "ainslie2023",
        "beltagy2020",
        "jiang2023",
        "su2021",
        "milakov2018",
        "dao2022",
        "deepseek2024",
        "mistral2023code",
        "raschka2025kvcache",
    ):
        assert f'id="ref-{key}"' in html, WORKS[key].title


def test_code_prints_the_proses_digits(html):
    """The code's output quotes the prose's figures in the prose's digits; the rotary scores
    print in full, marked so, since their last digits are the point."""
    outputs = snippet_outputs(html)
    assert outputs[0] == (
        f"True\n{N['total_without']} {N['total_with']}\n"
        f"{N['llama2_per_token']} {N['llama2_over_context']}"
    )
    assert outputs[1].endswith(f"{N['llama70_cache_token']}\n{N['llama70_mha_cache_token']}")
    assert outputs[2].splitlines() == [
        N["decode_weights"],
        N["decode_step_batch"],
        N["decode_rate_batch"].replace(",", ""),
    ]
    assert outputs[4].splitlines() == [
        f"({N['lg_g3_local']}, {N['lg_g3_global']})",
        N["lg_g3_mixed"],
        N["lg_g3_full"],
    ]
    here, moved, gap = outputs[5].splitlines()
    assert here.startswith(N["rope_score"]) and moved.startswith(N["rope_score"])
    assert gap == sci(float(moved) - float(here), 1)
    kept, interpolated, first = outputs[6].splitlines()  # section 07
    assert kept == f"Changes(kept={N['rs_kept']}, stretched={N['rs_stretched']}, " + (
        f"blended={N['rs_blended']})"
    )
    assert interpolated == f"Changes(kept=0, stretched={N['rs_pairs']}, blended=0)"
    assert first == N["rs_first"]
    # Section 09's runs: 12 tokens of width 4, M = 64 numbers, so blocks of 4 and 3 passes.
    standard, tiled = (int(x) for x in outputs[7].splitlines()[0].split())
    assert (standard, tiled) == (4 * 144 + 4 * 48, 3 * 48 + 24 + 3 * (3 * 48 + 48))
    assert outputs[7].splitlines()[2] == "True"
    # Section 11: the same text with the cache and without, the core's greedy continuation.
    written, same = outputs[8].splitlines()
    weights, prompt = gpt.init(gpt.SMALL), gpt.encode(N["gpt_prompt"])
    assert written == gpt.decode(gpt.generate(weights, prompt, 32, cached=False))
    assert same == "True"
    snippets = re.findall(r'<div class="snippet"[^>]*>(.*?)</div>', html, flags=re.S)
    (rotary,) = [re.sub(r"<[^>]+>", "", s) for s in snippets if "example_query_key" in s]
    assert "# full precision" in rotary
