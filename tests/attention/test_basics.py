"""attention.basics against every number post 1 (sections 03-05) and the section 3.3 page print.

Expected values are the documents' printed numbers; each test names the passage it checks.
"""

import numpy as np
import pytest
import torch

from attention.basics import (
    agreeing_cells,
    attend,
    context,
    contributions,
    dot_terms,
    filled_difference,
    improper_weights,
    loop_scores,
    loop_scores_steps,
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
from attention.fixtures import GPT2_CONTEXT, GPT2_EMBED, book_inputs, preset_inputs, preset_query

JOURNEY = 1


def assert_printed(actual, printed, decimals=4):
    """``actual`` rounds to exactly the numbers a document printed."""
    np.testing.assert_array_equal(np.round(np.asarray(actual), decimals), np.asarray(printed))


# --- section 3.3.1, step 1 / post 1 section 03: scores -------------------------------------


def test_worked_dot_product_term_by_term():
    """3.3 page: '0.55·0.43 + 0.87·0.15 + 0.66·0.89 = 0.2365 + 0.1305 + 0.5874 = 0.9544'."""
    X = book_inputs()
    terms, total = dot_terms(X[JOURNEY], X[0])
    assert_printed(terms, [0.2365, 0.1305, 0.5874])
    assert_printed(total, 0.9544)


def test_journey_scores():
    """3.3 page and post 1 section 03: 'the scores are [0.9544, 1.4950, 1.4754, 0.8434, ...]'."""
    omega_2 = query_scores(book_inputs(), JOURNEY)
    assert_printed(omega_2, [0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865])


def test_query_scores_is_a_row_of_the_score_matrix():
    """Post 1 section 05: 'One query is one row of a matrix'."""
    X = book_inputs()
    for i in range(X.shape[0]):
        np.testing.assert_allclose(query_scores(X, i), scores(X)[i], rtol=0, atol=1e-15)


# --- step 2 / section 04: normalising ------------------------------------------------------


def test_divide_by_sum_weights():
    """Post 1 section 04 / 3.3 page: 'Divide each score by the sum ... [0.1455, 0.2278, ...]'."""
    w = sum_normalise(query_scores(book_inputs(), JOURNEY))
    assert_printed(w, [0.1455, 0.2278, 0.2249, 0.1285, 0.1077, 0.1656])
    assert np.sum(w) == pytest.approx(1.0, abs=1e-15)


def test_softmax_journey_weights():
    """3.3 page: softmax_naive and torch.softmax both print [0.1385, 0.2379, 0.2333, ...]."""
    omega_2 = query_scores(book_inputs(), JOURNEY)
    printed = [0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581]
    naive = np.exp(omega_2) / np.sum(np.exp(omega_2))  # the book's softmax_naive
    assert_printed(softmax(omega_2), printed)
    assert_printed(naive, printed)
    assert_printed(torch.softmax(torch.tensor(omega_2), dim=0).numpy(), printed)


def test_naive_softmax_overflows_where_the_stable_one_does_not():
    """Post 1 section 04: 'e^1000 overflows to infinity and the quotient of two infinities comes
    back as NaN'; subtracting the largest score first avoids it."""
    s = np.array([1000.0, 1000.0, 0.0])
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(s)
        naive = e / np.sum(e)
    assert np.isinf(e).any() and np.isnan(naive).any()
    np.testing.assert_allclose(softmax(s), [0.5, 0.5, 0.0], rtol=0, atol=1e-300)


def test_journey_context_vector():
    """3.3 page and post 1 section 03: 'the context vector is [0.4419, 0.6515, 0.5683]'."""
    X = book_inputs()
    z_2 = context(softmax(query_scores(X, JOURNEY)), X)
    assert z_2.shape == (3,)
    assert_printed(z_2, [0.4419, 0.6515, 0.5683])


def test_context_is_the_weighted_sum_loop():
    """3.3 page step 3: 'Multiply each input vector by its attention weight, then add'."""
    X = book_inputs()
    alpha_2 = softmax(query_scores(X, JOURNEY))
    z_loop = np.zeros(3)
    for a, x in zip(alpha_2, X, strict=True):
        z_loop += a * x
    np.testing.assert_allclose(context(alpha_2, X), z_loop, rtol=0, atol=1e-15)


# --- section 3.3.2 / post 1 section 05: all queries at once --------------------------------


def test_all_context_vectors():
    """3.3 page: 'print(all_context_vecs)' shows a 6x3 tensor starting [0.4421, 0.5931, 0.5790]."""
    _, _, Z = attend(book_inputs())
    printed = [
        [0.4421, 0.5931, 0.5790],
        [0.4419, 0.6515, 0.5683],
        [0.4431, 0.6496, 0.5671],
        [0.4304, 0.6298, 0.5510],
        [0.4671, 0.5910, 0.5266],
        [0.4177, 0.6503, 0.5645],
    ]
    assert_printed(Z, printed)


def test_row_two_matches_the_hand_computed_vector():
    """Post 1 section 05: 'row 2 of that last result is ... identical to the hand-computed'."""
    X = book_inputs()
    _, _, Z = attend(X)
    z_2 = context(softmax(query_scores(X, JOURNEY)), X)
    np.testing.assert_allclose(Z[JOURNEY], z_2, rtol=0, atol=1e-15)


def test_attend_shapes_and_stages():
    """Post 1 section 05: 'X : (T, d), Omega, A : (T, T), Z : (T, d)'."""
    X = book_inputs()
    omega, alpha, Z = attend(X)
    assert omega.shape == alpha.shape == (6, 6)
    assert Z.shape == (6, 3)
    np.testing.assert_array_equal(omega, scores(X))
    np.testing.assert_array_equal(alpha, softmax(omega, axis=-1))


def test_loop_fills_the_same_grid_as_matmul():
    """Post 1 section 05: 'the grid it fills is exactly inputs @ inputs.T ... to the last digit'.

    Same products, summed in a possibly different order: equal to the printed digits, and to
    within a few units of rounding in float64.
    """
    X = book_inputs()
    loop, mat = loop_scores(X), matmul_scores(X)
    assert not np.any(np.isnan(loop))
    assert max_abs_difference(loop, mat) <= 4 * np.finfo(np.float64).eps
    np.testing.assert_array_equal(np.round(loop, 4), np.round(mat, 4))


def test_loop_order_and_counts():
    """Post 1 section 05: '36 iterations in total' and 'the same 108 multiplications'."""
    X = book_inputs()
    steps = loop_scores_steps(X)
    assert len(steps) == 36 == score_dot_products(6)
    assert sum(len(terms) for _, _, terms, _ in steps) == 108 == score_multiplies(6, 3)
    assert [(i, j) for i, j, _, _ in steps] == [(i, j) for i in range(6) for j in range(6)]
    for i, j, terms, value in steps:
        np.testing.assert_array_equal(terms, X[i] * X[j])
        assert value == np.sum(terms)


def test_partial_loop_leaves_unvisited_cells_blank():
    """Post 1 section 05: 'Step the loop one cell at a time'."""
    X = book_inputs()
    full = loop_scores(X)
    for k in (0, 1, 7, 35, 36):
        grid = loop_scores(X, steps=k)
        filled = ~np.isnan(grid)
        assert filled.sum() == k
        assert filled.ravel()[:k].all()  # the first k cells in row-major order
        np.testing.assert_array_equal(grid[filled], full[filled])
    np.testing.assert_array_equal(loop_scores(X, steps=100), full)


def test_scores_are_exactly_symmetric():
    """Post 1 section 05: 'the largest difference between omega_ij and omega_ji ... is 0'."""
    assert symmetry_error(scores(book_inputs())) == 0.0


def test_weights_are_not_symmetric():
    """Post 1 section 05: 'the largest gap between alpha_ij and alpha_ji is 0.087657'."""
    _, alpha, _ = attend(book_inputs())
    assert_printed(symmetry_error(alpha), 0.087657, decimals=6)


def test_gpt2_score_matrix_cost():
    """Post 1 section 05: 'one layer's score matrix alone is 805,306,368 multiply-accumulates'."""
    assert (GPT2_CONTEXT, GPT2_EMBED) == (1024, 768)
    assert score_multiplies(GPT2_CONTEXT, GPT2_EMBED) == 805_306_368
    assert isinstance(score_multiplies(GPT2_CONTEXT, GPT2_EMBED), int)


def test_cost_is_quadratic_in_T():
    """Post 1 section 05: 'the count is T^2 d, quadratic in the sequence length'."""
    assert score_multiplies(12, 3) == 4 * score_multiplies(6, 3)
    assert score_multiplies(6, 6) == 2 * score_multiplies(6, 3)


# --- section 03 claims about the mechanism -------------------------------------------------


def test_one_coordinate_moves_every_row():
    """Post 1 section 03: 'dragging one coordinate of one token moves every row of the matrix'."""
    X = book_inputs()
    _, alpha, _ = attend(X)
    X[4, 0] += 0.1
    _, moved, _ = attend(X)
    assert np.all(np.max(np.abs(moved - alpha), axis=1) > 1e-4)


def test_context_vectors_inside_the_hull():
    """Post 1 section 03: 'a context vector is always a point strictly inside the hull'."""
    X = book_inputs()
    _, alpha, Z = attend(X)
    assert np.all(alpha > 0)
    assert np.all(Z > X.min(axis=0)) and np.all(Z < X.max(axis=0))


# --- PyTorch as an independent oracle -------------------------------------------------------


def torch_attention(X: np.ndarray):
    """Section 3.3's three lines, in PyTorch float64."""
    inputs = torch.tensor(X, dtype=torch.float64)
    attn_scores = inputs @ inputs.T
    attn_weights = torch.softmax(attn_scores, dim=-1)
    return attn_scores.numpy(), attn_weights.numpy(), (attn_weights @ inputs).numpy()


def test_matches_torch_on_the_book_tensor():
    """3.3 page: 'attn_scores = inputs @ inputs.T; torch.softmax(..., dim=1); ... @ inputs'."""
    for ours, theirs in zip(attend(book_inputs()), torch_attention(book_inputs()), strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-14, atol=1e-15)


def test_book_float32_prints_agree_with_float64():
    """3.3 page prints come from float32 torch; float64 rounds to the same four decimals."""
    inputs = torch.tensor(book_inputs(), dtype=torch.float32)
    z32 = (torch.softmax(inputs @ inputs.T, dim=1) @ inputs).numpy().astype(np.float64)
    np.testing.assert_array_equal(np.round(z32, 4), np.round(attend(book_inputs())[2], 4))


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize(("T", "d"), [(1, 1), (6, 3), (17, 5), (64, 16)])
def test_matches_torch_on_random_inputs(seed, T, d):
    """The core agrees with PyTorch on random embeddings of several shapes."""
    X = np.random.default_rng(seed).normal(size=(T, d))
    for ours, theirs in zip(attend(X), torch_attention(X), strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-13)


def test_softmax_matches_torch_on_extreme_scores():
    """Large finite scores (the overflow the book warns about) agree with torch.softmax."""
    s = np.array([[1000.0, 999.0, -1000.0], [-1e300, 1e300, 0.0], [3.0, 3.0, 3.0]])
    np.testing.assert_allclose(softmax(s), torch.softmax(torch.tensor(s), dim=-1).numpy())


# --- bad input -----------------------------------------------------------------------------

BAD_EMBEDDINGS = [
    pytest.param(np.ones(3), id="1-D"),
    pytest.param(np.ones((2, 3, 3)), id="3-D"),
    pytest.param(np.ones((0, 3)), id="no tokens"),
    pytest.param(np.ones((3, 0)), id="no features"),
    pytest.param(np.array([[1.0, np.nan]]), id="NaN"),
    pytest.param(np.array([[1.0, np.inf]]), id="inf"),
    pytest.param([["a", "b"]], id="not numbers"),
]


@pytest.mark.parametrize("X", BAD_EMBEDDINGS)
@pytest.mark.parametrize("stage", [scores, attend, matmul_scores, loop_scores, loop_scores_steps])
def test_bad_embeddings_raise(stage, X):
    with pytest.raises(ValueError):
        stage(X)


def test_overflowing_scores_raise():
    """Finite embeddings whose dot products overflow must not become inf or NaN weights."""
    X = np.full((2, 2), 1e200)
    for stage in (scores, attend, lambda X: query_scores(X, 0)):
        with pytest.raises(ValueError, match="overflow"):
            stage(X)


@pytest.mark.parametrize("i", [-1, 6, 1.0, True])
def test_query_index_out_of_range(i):
    with pytest.raises(ValueError):
        query_scores(book_inputs(), i)


def test_sum_normalise_refuses_a_zero_sum_but_allows_negatives():
    """Post 1 section 04: negative scores give negative weights; only a zero sum is undefined."""
    w = sum_normalise(np.array([2.0, -1.0]))
    np.testing.assert_array_equal(w, [2.0, -1.0])
    with pytest.raises(ValueError, match="sums to 0"):
        sum_normalise(np.array([[1.0, 2.0], [1.0, -1.0]]))
    with pytest.raises(ValueError):
        sum_normalise(np.array([1.0, np.nan]))


def test_context_shape_mismatch():
    with pytest.raises(ValueError, match="columns"):
        context(np.full(5, 0.2), book_inputs())
    with pytest.raises(ValueError):
        context(np.full((2, 2, 6), 1 / 6), book_inputs())


def test_dot_terms_length_mismatch():
    with pytest.raises(ValueError):
        dot_terms(np.ones(2), np.ones(3))


@pytest.mark.parametrize("steps", [-1, 2.5, "3", True])
def test_loop_scores_bad_steps(steps):
    with pytest.raises(ValueError):
        loop_scores(book_inputs(), steps=steps)


def test_comparisons_check_their_inputs():
    with pytest.raises(ValueError):
        max_abs_difference(np.ones((2, 2)), np.ones((2, 3)))
    with pytest.raises(ValueError):
        max_abs_difference(np.ones(2), np.array([1.0, np.nan]))
    with pytest.raises(ValueError, match="square"):
        symmetry_error(np.ones((2, 3)))


@pytest.mark.parametrize(("T", "d"), [(0, 3), (6, 0), (6.0, 3), (True, 3), (-1, 3)])
def test_cost_bad_sizes(T, d):
    with pytest.raises(ValueError):
        score_multiplies(T, d)


def test_softmax_refuses_rows_it_cannot_normalise():
    """A NaN score, a +inf score or a fully masked row would give NaN weights."""
    with pytest.raises(ValueError, match="NaN"):
        softmax(np.array([1.0, np.nan]))
    with pytest.raises(ValueError, match=r"\+inf"):
        softmax(np.array([1.0, np.inf]))
    with pytest.raises(ValueError, match="entirely -inf"):
        softmax(np.array([[0.0, -np.inf], [-np.inf, -np.inf]]))
    assert softmax(np.array([0.0, -np.inf])).tolist() == [1.0, 0.0]


# --- helpers the figures draw from ----------------------------------------------------------


def test_contributions_add_up_to_the_context_vector():
    """Post 1 section 03: the context vector is the weighted sum, one term per token."""
    X = book_inputs()
    w = softmax(query_scores(X, JOURNEY))
    parts = contributions(w, X)
    assert parts.shape == (6, 3)
    np.testing.assert_array_equal(parts[2], w[2] * X[2])
    np.testing.assert_allclose(parts.sum(axis=0), context(w, X), rtol=0, atol=1e-15)
    assert_printed(parts.sum(axis=0), [0.4419, 0.6515, 0.5683])


def test_contributions_check_shapes():
    with pytest.raises(ValueError, match="entries"):
        contributions(np.full(5, 0.2), book_inputs())
    with pytest.raises(ValueError):
        contributions(np.full((6, 6), 1 / 6), book_inputs())


def test_improper_weights_flags_what_sum_normalising_produces():
    """Post 1 section 04: divide-by-sum hands out a negative weight and a weight of 90."""
    S = scores(preset_inputs("negative"))
    w = sum_normalise(S[preset_query("negative")])
    np.testing.assert_array_equal(improper_weights(w), w < 0)
    assert improper_weights(w).sum() == 1
    near = sum_normalise(scores(preset_inputs("near-zero"))[preset_query("near-zero")])
    assert improper_weights(near).all()  # 90 on itself, large negatives on the rest
    assert not improper_weights(softmax(S)).any()
    assert improper_weights(np.array([0.0, 1.0])).tolist() == [False, False]


def test_filled_difference_compares_only_the_filled_cells():
    """Post 1 section 05: the loop's cells equal the matmul's, to float64 rounding."""
    X = book_inputs()
    full = matmul_scores(X)
    for k in (1, 7, 36):
        assert filled_difference(loop_scores(X, k), full) <= 4 * np.finfo(np.float64).eps
    bumped = loop_scores(X, 2)
    bumped[0, 1] += 0.5
    assert filled_difference(bumped, full) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="nothing to compare"):
        filled_difference(loop_scores(X, 0), full)
    with pytest.raises(ValueError, match="shapes"):
        filled_difference(loop_scores(X, 3), full[:5])
    with pytest.raises(ValueError, match="infinity"):
        filled_difference(np.full((6, 6), np.inf), full)


def test_row_sums_give_the_denominator_and_the_total():
    """Post 1 section 04: 'Divide by the row sum of 3.7978 ... still sums to 1.000'."""
    S = scores(preset_inputs("negative"))
    q = preset_query("negative")
    assert_printed(row_sums(S[q]), 3.7978)
    assert_printed(row_sums(sum_normalise(S[q])), 1.0, decimals=12)
    np.testing.assert_allclose(row_sums(S), S.sum(axis=1))
    assert_printed(row_sums(scores(preset_inputs("near-zero"))[preset_query("near-zero")]), 0.01)
    with pytest.raises(ValueError):
        row_sums(np.ones((2, 2, 2)))


def test_agreeing_cells_compare_printed_digits():
    """Post 1 section 05: the loop's grid and the matmul's agree in every printed digit."""
    X = book_inputs()
    full = matmul_scores(X)
    for k in (0, 1, 8, 36):
        assert agreeing_cells(loop_scores(X, k), full) == (k, k)
    off = loop_scores(X, 3)
    off[0, 2] += 1e-3
    assert agreeing_cells(off, full) == (3, 2)
    assert agreeing_cells(off, full, decimals=2) == (3, 3)
    with pytest.raises(ValueError, match="shapes"):
        agreeing_cells(off, full[:2])
