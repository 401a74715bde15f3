"""Post 2: trainable attention, the causal mask, dropout, heads and cost. Every number it quotes.

Each value is computed by ``attention/`` and formatted with ``formatting``, so the prose and
the figures print the same digits. Monte-Carlo numbers come from the experiments' fixed seeds,
which the figures start from too.
"""

import math

import numpy as np

from attention.analysis import mean_pairwise_distance, nearest_input, spread_ratio
from attention.basics import context as context_vectors
from attention.basics import score_dot_products, scores, softmax, symmetry_error
from attention.cost import (
    CARD_GIB,
    GPT41_CONTEXT,
    REF_SECONDS,
    REF_TOKENS,
    TIB,
    cards_needed,
    feed_forward_params,
    rounded_ratio_time,
    scaled_time,
    score_matrix_bytes,
)
from attention.dropout import (
    BOOK_RATE,
    GPT_RATES,
    RUN_DRAWS,
    RUN_SEED,
    death_probability,
    expected_factor,
    run,
    survivor_scale,
)
from attention.fixtures import GPT2_EMBED, TOKENS, book_inputs
from attention.heads import (
    BOOK_BATCH,
    BOOK_HEADS,
    GPT2_FF_MULTIPLE,
    GPT2_HEADS,
    GPT3_HEADS,
    GPT3_LAYERS,
    head_dim,
    output_shapes,
    param_counts,
    score_divisor,
)
from attention.masking import (
    COUNTEREXAMPLE_SCORES,
    book_causal_weights,
    book_scores,
    efficient_stages,
    leaked_weight,
    mask_difference,
    masked_before_softmax,
    naive_stages,
    zero_mask_weights,
)
from attention.projections import (
    MODES,
    mode_scores,
    mode_weights,
    softmax_denominators,
)
from attention.scaling import LIVE_THRESHOLD, N_DRAWS, N_KEYS, SWEEP_D_KS, SWEEP_SEED, post_sweep
from attention.torch_rng import (
    BOOK_D_IN,
    BOOK_D_OUT,
    SEED_3_4,
    SEED_3_5,
    weights_section_3_4,
)
from formatting import (
    bytes_text,
    error_text,
    hours_text,
    integer,
    noise_text,
    num,
    peak_text,
    percent,
    ratio_text,
    root_text,
    sci,
    seconds_text,
    shape_text,
    std_text,
    vec,
    words,
)

SLUG = "trainable-attention"
TEMPLATE = "post2.html"
PUBLISHED = "2026-11-29"  # the day its template was first committed
TITLE = "Three matrices, and a triangle of minus infinity"
SUMMARY = (
    "Trainable query, key and value matrices, the square-root divisor, the causal mask, "
    "dropout, heads, and what the T-by-T score matrix costs, all computed live."
)

# The key widths section 02 reads off the figure.
PROSE_WIDTHS = (2, 64, 768, 4096)
SPREAD_WIDTHS = (64, 4096)  # where the spread is read against sqrt(d_k)
LIVE_WIDTH = 768  # where the share of live Jacobians is quoted
# Section 06's back-of-envelope estimate rounds the length ratio to a multiple of this.
ROUND_RATIO_TO = 1000


def preview() -> dict:
    """This post's link card (sitebuild/preview.py): section 3.5's masked scores, a stage the
    figure "masking" steps through: the future filled with -inf before the softmax."""
    return {
        "figure": "masking",
        "matrix": dict(efficient_stages(*book_scores()))["masked scores"],
        "labels": TOKENS,
        "caption": "The causal mask: every score above the diagonal is minus infinity",
        "alt": "A 6 by 6 heatmap of section 3.5's attention scores for \"Your journey starts "
        'with one step": the lower triangle coloured, every cell above the diagonal −∞.',
    }


def _post1() -> dict:
    """What the last post ended on: the numbers the introduction recalls."""
    X = book_inputs()
    omega = scores(X)
    Z = context_vectors(softmax(omega), X)
    journey, starts = TOKENS.index("journey"), TOKENS.index("starts")
    nearest = sorted({TOKENS[i] for i in nearest_input(Z, X)})
    return {
        "post1_dot_products": integer(score_dot_products(len(TOKENS))),
        "post1_journey_context": vec(Z[journey]),
        "post1_spread_in": num(mean_pairwise_distance(X)),
        "post1_spread_out": num(mean_pairwise_distance(Z)),
        "post1_spread_ratio": percent(spread_ratio(Z, X)),
        "post1_nearest": words(nearest),
        "journey_starts_score": num(omega[journey, starts]),
    }


def _modes() -> dict:
    """Section 01: the three modes on section 3.4's weights."""
    X = book_inputs()
    W_query, W_key, _ = weights_section_3_4()
    journey, starts = TOKENS.index("journey"), TOKENS.index("starts")
    out: dict = {}
    for mode in MODES:
        omega = mode_scores(X, mode, W_query, W_key)
        weights = mode_weights(X, mode, W_query, W_key)
        out[f"score_error_{mode}"] = error_text(symmetry_error(omega))
        out[f"weight_error_{mode}"] = error_text(symmetry_error(weights))
    plain = mode_weights(X, "none", W_query, W_key)
    omega = mode_scores(X, "none", W_query, W_key)
    D = softmax_denominators(omega, W_query.shape[1])
    out.update(
        {
            "journey_denominator": num(D[journey], 2),
            "starts_denominator": num(D[starts], 2),
            "journey_to_starts": num(plain[journey, starts]),
            "starts_to_journey": num(plain[starts, journey]),
            "root_d_out": num(math.sqrt(W_query.shape[1])),
        }
    )
    return out


def _divisor() -> dict:
    """Section 02: the d_k experiment at the figure's default seed."""
    runs = post_sweep(SWEEP_SEED)
    out: dict = {
        "draws": integer(N_DRAWS),
        "n_keys": N_KEYS,
        "seed": SWEEP_SEED,
        "fold": integer(PROSE_WIDTHS[-1] // PROSE_WIDTHS[0]),
        "live_threshold": sci(LIVE_THRESHOLD, 0),
    }
    raw = {d_k: runs[(d_k, False)] for d_k in PROSE_WIDTHS}
    for d_k in PROSE_WIDTHS:
        out[f"dk_{d_k}"] = integer(d_k)
        out[f"dk_{d_k}_tex"] = integer(d_k).replace(",", "{,}")  # inside $...$: no space
        out[f"median_{d_k}"] = peak_text(raw[d_k].median_peak)
    for d_k in SPREAD_WIDTHS:
        out[f"std_{d_k}"] = std_text(raw[d_k].dot_std)
        out[f"root_{d_k}"] = root_text(raw[d_k].expected_std)
    low, high = PROSE_WIDTHS[0], PROSE_WIDTHS[-1]
    out[f"mean_{low}"] = peak_text(raw[low].mean_peak)
    out[f"mean_{high}"] = peak_text(raw[high].mean_peak)
    out[f"live_{LIVE_WIDTH}"] = percent(raw[LIVE_WIDTH].live_share, 0)
    scaled = [runs[(d, True)].median_peak for d in SWEEP_D_KS]
    out["scaled_low"], out["scaled_high"] = num(min(scaled), 2), num(max(scaled), 2)
    out["max_width"] = integer(SWEEP_D_KS[-1])
    return out


def _masking() -> dict:
    """Section 03 on section 3.5's weights."""
    omega, d_k = book_scores()
    final = masked_before_softmax(omega, d_k)
    naive = dict(naive_stages(omega, d_k))
    return {
        "counter_in": vec(COUNTEREXAMPLE_SCORES, 1),
        "counter_out": vec(softmax(np.array(COUNTEREXAMPLE_SCORES))),
        "naive_first": num(naive["weights"][0, 0]),
        "efficient_first": num(omega[0, 0]),
        "max_difference": noise_text(float(np.max(np.abs(mask_difference(omega, d_k))))),
        "row1": num(final[0, 0]),
        "row2": vec(final[1, :2]),
        "row3": vec(final[2, :3]),
        "leak": num(leaked_weight(zero_mask_weights(omega, d_k))[0]),
    }


def _dropout() -> dict:
    """Section 04: the figure's default run (its seed and number of passes)."""
    weights = book_causal_weights()
    seed, n = RUN_SEED, RUN_DRAWS
    scaled = run(weights, BOOK_RATE, n, seed, scale=True)
    unscaled = run(weights, BOOK_RATE, n, seed, scale=False)
    factor = survivor_scale(BOOK_RATE)
    return {
        "rate": num(BOOK_RATE, 1),
        "survivor": integer(factor) if factor.is_integer() else num(factor, 2),
        "one_minus_rate": num(expected_factor(BOOK_RATE, scale=False), 1),
        "dropout_draws": integer(n),
        "dead_row1": percent(scaled.dead_share[0]),
        "dead_row2": percent(scaled.dead_share[1]),
        "expected_row1": percent(death_probability(weights, BOOK_RATE)[0], 0),
        "expected_row2": percent(death_probability(weights, BOOK_RATE)[1], 0),
        "mean_sum_scaled": num(scaled.mean_row_sum, 3),
        "mean_sum_unscaled": num(unscaled.mean_row_sum, 3),
        "gpt_rates": " or ".join(num(r, 1) for r in GPT_RATES),
    }


def _heads() -> dict:
    """Section 05: the book's toy and GPT-2 small."""
    wrapper, split = output_shapes(BOOK_BATCH, len(TOKENS), BOOK_D_OUT, BOOK_HEADS)
    return {
        "gpt3_layers": GPT3_LAYERS,
        "gpt3_heads": GPT3_HEADS,
        "gpt2_width": integer(GPT2_EMBED),
        "gpt2_heads": GPT2_HEADS,
        "gpt2_head_dim": head_dim(GPT2_EMBED, GPT2_HEADS),
        "gpt2_divisor": root_text(score_divisor(GPT2_EMBED, GPT2_HEADS)),
        "gpt2_wrong_divisor": root_text(score_divisor(GPT2_EMBED, 1)),
        "book_heads": BOOK_HEADS,
        "book_head_dim": head_dim(BOOK_D_OUT, BOOK_HEADS),
        "wrapper_shape": shape_text(wrapper),
        "split_shape": shape_text(split),
    }


def _cost() -> dict:
    """Section 06: one head at 1,024 tokens and at GPT-4.1's window."""
    small = score_matrix_bytes(REF_TOKENS)
    window = score_matrix_bytes(GPT41_CONTEXT)
    ratio, cards = cards_needed(window)
    seconds, hours = scaled_time(GPT41_CONTEXT)
    rounded_ratio, _, rounded_hours = rounded_ratio_time(GPT41_CONTEXT, to=ROUND_RATIO_TO)
    return {
        "ref_tokens": integer(REF_TOKENS),
        "ref_seconds": num(REF_SECONDS, 1),
        "small_bytes": bytes_text(small),
        "window_tokens": integer(GPT41_CONTEXT),
        "window_bytes": integer(window),
        "window_tib": integer(round(window / TIB)),
        "card_gib": CARD_GIB,
        "his_cards": integer(math.floor(ratio)),
        "cards": integer(cards),
        "card_ratio": ratio_text(ratio),
        "cards_decimal": integer(math.ceil(window / (CARD_GIB * 10**9))),  # the datasheet's GB
        "rounded_ratio": integer(rounded_ratio),
        "his_hours": integer(round(rounded_hours)),
        "seconds": seconds_text(seconds),
        "hours": hours_text(hours),
    }


def _next() -> dict:
    """Section 07: GPT-2 small's block, attention against feed-forward."""
    counts = param_counts(GPT2_EMBED, GPT2_EMBED, GPT2_HEADS, qkv_bias=False)  # as the book
    return {
        "block_attention": integer(counts.split + counts.out_proj),
        "block_feed_forward": integer(
            feed_forward_params(GPT2_EMBED, GPT2_FF_MULTIPLE * GPT2_EMBED)
        ),
    }


def context() -> dict:
    return {
        "d_in": BOOK_D_IN,
        "d_out": BOOK_D_OUT,
        "n_tokens": len(TOKENS),
        "seed_3_4": SEED_3_4,
        "seed_3_5": SEED_3_5,
        "weight_draws": integer(3 * BOOK_D_IN * BOOK_D_OUT),  # three matrices of numbers
        **_post1(),
        **_modes(),
        **_divisor(),
        **_masking(),
        **_dropout(),
        **_heads(),
        **_cost(),
        **_next(),
    }
