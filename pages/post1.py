"""Post 1: attention with no trainable weights. Every number the prose quotes.

Each value is computed by ``attention/`` and formatted with ``formatting``, so the prose and
the figures print the same digits. The only numbers given rather than computed are dates.
"""

import numpy as np

from attention.analysis import (
    SCALE_EXAMPLE,
    context_shift,
    cosine_scores,
    dynamic_range,
    entropy_bits,
    entropy_fraction,
    entropy_gap_bits,
    flat_weights,
    largest_per_row,
    max_entropy_bits,
    mean_entropy_bits,
    mean_pairwise_distance,
    nearest_input,
    norms,
    rows_won_by,
    runner_up_per_row,
    scale_token,
    spread_ratio,
    winning_margin,
)
from attention.basics import (
    attend,
    loop_scores,
    matmul_scores,
    max_abs_difference,
    query_scores,
    row_sums,
    score_dot_products,
    score_multiplies,
    scores,
    softmax,
    sum_normalise,
    symmetry_error,
)
from attention.basics import (
    context as context_vectors,
)
from attention.cost import embedding_params
from attention.depth import (
    EXAMPLE_LAYERS,
    EXAMPLE_T,
    attention_depth,
    recurrent_depth,
    sigmoid_slope,
)
from attention.fixtures import (
    CH2_BATCH_SHAPE,
    GPT2_CONTEXT,
    GPT2_EMBED,
    GPT2_VOCAB,
    TOKENS,
    book_inputs,
    preset_inputs,
    preset_query,
)
from formatting import integer, num, percent, sci, vec, words
from pages import placed_figures

SLUG = "attention-without-weights"
TEMPLATE = "post1.html"
PUBLISHED = "2026-11-29"  # the day its template was first committed
TITLE = "Attention with no parameters at all"
SUMMARY = (
    "Six tokens, three numbers each, and the three steps of self-attention: what they "
    "compute, why softmax, and how little the mechanism does without trainable weights."
)

# Dates are history, not results: Bahdanau, Cho and Bengio's attention for translation, the
# transformer paper, and the year after which later posts pick up attention's variants.
BAHDANAU_YEAR = 2014
TRANSFORMER_YEAR = 2017
VARIANTS_AFTER = 2019

# Section 01's two worked examples of backpropagation through time: (layers, sequence length).
SMALL_RNN = (2, 10)
LARGE_RNN = (EXAMPLE_LAYERS, EXAMPLE_T)  # the figure starts there

# The one figure that computes nothing from the book's tensor (it counts, and says so); the
# lede counts the others out of every figure the template places.
COUNTING_FIGURE = "depth"


def preview() -> dict:
    """This post's link card (sitebuild/preview.py): the weights figure "magnitude" shows
    before a control moves, softmax of the book's dot-product scores."""
    return {
        "figure": "magnitude",
        "matrix": attend(book_inputs())[1],
        "labels": TOKENS,
        "caption": "Attention weights of the book's six tokens: row = query, column = key",
        "alt": 'A 6 by 6 heatmap of the attention weights among the tokens of "Your journey '
        'starts with one step", darker where a query attends more to a key.',
    }


_COUNTS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


def _count(k: int, of: int | None = None) -> str:
    """A small count in words, out of a total when given: 'five of the six', 'all six'."""
    if of is None:
        return _COUNTS[k]
    return f"all {_COUNTS[of]}" if k == of else f"{_COUNTS[k]} of the {_COUNTS[of]}"


def _tokens(indices) -> str:
    """Tokens by index, joined for prose: 'journey and starts'."""
    return words(TOKENS[int(i)] for i in indices)


def _chapter_2() -> dict:
    """The lede: the tensor chapter 2 ends with, and its token table's size."""
    rows, length, width = CH2_BATCH_SHAPE
    return {
        "ch2_rows": _count(rows),
        "ch2_length": _count(length),
        "ch2_shape": "[" + ", ".join(str(n) for n in CH2_BATCH_SHAPE) + "]",
        "ch2_vocab": integer(GPT2_VOCAB),
        "ch2_width": width,
        "ch2_table_params": integer(embedding_params(GPT2_VOCAB, width)),
    }


def _figures() -> dict:
    """The lede's and section 06's counts of this page's own figures."""
    placed = placed_figures(TEMPLATE)
    return {
        "figures_on_tensor": _count(len(placed) - 1, len(placed)),
        "counting_figure": _ORDINALS[placed.index(COUNTING_FIGURE)],
        "what_it_did_figures": _count(len(placed_figures(TEMPLATE, "what-it-did"))),
    }


def _depth() -> dict:
    (small_layers, small_T), (large_layers, large_T) = SMALL_RNN, LARGE_RNN
    return {
        "small_layers": integer(small_layers),
        "small_T": integer(small_T),
        "small_depth": integer(recurrent_depth(small_layers, small_T)),
        "large_layers": integer(large_layers),
        "large_T": integer(large_T),
        "large_depth": integer(recurrent_depth(large_layers, large_T)),
        "large_attention": integer(attention_depth(large_layers)),
        "sigmoid_max": num(sigmoid_slope(0.0), 2),
    }


def _three_steps(X: np.ndarray) -> dict:
    journey = TOKENS.index("journey")
    s = query_scores(X, journey)
    w = softmax(s)
    _, _, Z = attend(X)
    T, d = X.shape
    return {
        "T": integer(T),
        "d": integer(d),
        "n_numbers": integer(X.size),
        "journey_scores": vec(s),
        "journey_weights": vec(w),
        "journey_context": vec(Z[journey]),
        "journey_by_sum": vec(sum_normalise(s)),
    }


def _normalisations(X: np.ndarray) -> dict:
    one = TOKENS.index("one")
    bad_X = preset_inputs("negative")
    q = preset_query("negative")
    s = query_scores(bad_X, q)
    by_sum = sum_normalise(s)
    near = query_scores(preset_inputs("near-zero"), preset_query("near-zero"))
    near_by_sum = sum_normalise(near)
    book_scores = scores(X)
    return {
        "n_scores": integer(book_scores.size),
        "all_scores_positive": bool(np.all(book_scores > 0)),
        "one_first": num(X[one, 0], 2),
        "one_first_negative": num(bad_X[one, 0], 2),
        "negative_query": TOKENS[q],
        "negative_score": num(s[one]),
        "negative_denominator": num(row_sums(s)),
        "negative_weight": num(by_sum[one]),
        "negative_softmax": num(softmax(s)[one]),
        "negative_total": num(row_sums(by_sum), 3),
        "near_denominator": num(row_sums(near)),
        "near_weight": num(near_by_sum[preset_query("near-zero")], 0),
    }


def _loop_against_matmul(X: np.ndarray) -> dict:
    """Section 05: how far the figure's loop (products rounded, then added) lands from the
    matmul, in the one format the code's output and the figure's readout print it in."""
    loop, matmul = loop_scores(X), matmul_scores(X)
    differ = loop != matmul
    ulps = np.abs(loop - matmul)[differ] / np.spacing(np.abs(matmul[differ]))
    return {
        "loop_vs_matmul": sci(max_abs_difference(loop, matmul)),
        "loop_cells_differ": integer(int(differ.sum())),
        "loop_ulps": integer(int(ulps.max())) if differ.any() else integer(0),
        "loop_by": "in the last bit" if ulps.max(initial=1) == 1 else "in the last bits",
        "exact_zero": sci(0.0),
    }


def _matrices(X: np.ndarray) -> dict:
    T, d = X.shape
    omega, alpha, _ = attend(X)
    return {
        "n_dot_products": integer(score_dot_products(T)),
        "n_multiplies": integer(score_multiplies(T, d)),
        "score_symmetry": num(symmetry_error(omega), 0),
        "score_symmetry_exact": symmetry_error(omega) == 0.0,
        "weight_symmetry": num(symmetry_error(alpha), 6),
        "gpt2_context": integer(GPT2_CONTEXT),
        "gpt2_embed": integer(GPT2_EMBED),
        "gpt2_multiplies": integer(score_multiplies(GPT2_CONTEXT, GPT2_EMBED)),
    }


def _nearest(X: np.ndarray, Z: np.ndarray) -> dict:
    """Section 06: the context vectors huddle around the flat average (the figure's caption),
    yet their nearest input is not the average's. Which input each is nearest, and how far."""
    T = X.shape[0]
    average = context_vectors(flat_weights(T), X)[0]
    (near,) = set(nearest_input(Z, X).tolist())  # the prose: all six give the same answer
    flat = int(nearest_input(average[None, :], X)[0])
    to_near = np.linalg.norm(Z - X[near], axis=1)
    return {
        "nearest": TOKENS[near],
        "flat_nearest": TOKENS[flat],
        "flat_nearest_distance": num(np.linalg.norm(average - X[flat])),
        "flat_to_nearest": num(np.linalg.norm(average - X[near])),
        "near_closest": num(to_near.min()),
        "near_farthest": num(to_near.max()),
        # the prose: softmax moves every context vector nearer that input than the average is
        "pulled_towards_nearest": bool(np.all(to_near < np.linalg.norm(average - X[near]))),
    }


def _what_it_did(X: np.ndarray) -> dict:
    T = X.shape[0]
    _, alpha, Z = attend(X)
    h = entropy_bits(alpha)
    share = entropy_fraction(alpha)
    n = norms(X)
    longest = np.argsort(n)[::-1][:2]
    shortest = int(np.argmin(n))
    top = largest_per_row(alpha)
    (first,) = np.flatnonzero(~np.isin(top, longest))  # the prose: "the only other winner"
    cos_alpha = softmax(cosine_scores(X))
    cos_h = entropy_bits(cos_alpha)
    flatter = cos_h > h
    (exception,) = np.flatnonzero(~flatter)
    scaled_alpha = attend(scale_token(X, shortest, SCALE_EXAMPLE))[1]
    return {
        "max_weight": num(alpha.max()),
        "min_weight": num(alpha.min()),
        "flat_weight": num(flat_weights(T)[0, 0]),
        "dynamic_range": num(dynamic_range(alpha), 3),
        "ceiling": num(max_entropy_bits(T), 3),
        "ceiling4": num(max_entropy_bits(T), 4),
        "row_entropies": [num(v, 3) for v in h],
        "min_share": percent(share.min()),
        "max_share": percent(share.max()),
        "max_gap": num(entropy_gap_bits(alpha).max(), 3),
        "max_shift": num(context_shift(alpha, X).max(), 3),
        "spread_inputs": num(mean_pairwise_distance(X)),
        "spread_context": num(mean_pairwise_distance(Z)),
        "spread_ratio": percent(spread_ratio(Z, X)),
        **_nearest(X, Z),
        "longest": _tokens(longest),
        "longest_norms": [num(v) for v in n[longest]],
        "rows_to_longest": _count(int(np.isin(top, longest).sum()), T),
        "first_row": _ORDINALS[first],
        "first_token": TOKENS[first],
        "first_top": TOKENS[int(top[first])],
        "first_runner_up": TOKENS[int(runner_up_per_row(alpha)[first])],
        "first_margin": num(winning_margin(alpha)[first]),
        "shortest": TOKENS[shortest],
        "shortest_norm": num(n[shortest]),
        "scale_example": _count(int(SCALE_EXAMPLE)),
        "scaled_wins": _count(rows_won_by(scaled_alpha, shortest), T),
        "scaled_self": num(scaled_alpha[shortest, shortest], 3),
        "mean_entropy_dot": num(mean_entropy_bits(alpha)),
        "mean_entropy_cos": num(mean_entropy_bits(cos_alpha)),
        "rows_flatter": _count(int(flatter.sum()), T),
        "exception_row": _ORDINALS[int(exception)],
        "exception_token": TOKENS[int(exception)],
        "exception_dot": num(h[exception]),
        "exception_cos": num(cos_h[exception]),
    }


def context() -> dict:
    X = book_inputs()
    return {
        "bahdanau_year": BAHDANAU_YEAR,
        "transformer_year": TRANSFORMER_YEAR,
        "variants_after": VARIANTS_AFTER,
        "journey_row": TOKENS.index("journey"),  # numpy's row: the series counts from one
        **_chapter_2(),
        **_figures(),
        **_depth(),
        **_three_steps(X),
        **_normalisations(X),
        **_matrices(X),
        **_loop_against_matmul(X),
        **_what_it_did(X),
    }
