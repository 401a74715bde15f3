"""masking: post 2's section 03 ("Masking the future")."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import masking as mk
from attention.basics import softmax
from attention.fixtures import book_inputs
from attention.projections import qkv
from attention.torch_rng import weights_section_3_5
from tests.attention.torch_reference import CausalAttention, run, set_qkv
from tests.strategies import arrays_TT, examples

X = book_inputs()
W_QUERY, W_KEY, W_VALUE = weights_section_3_5()
Q, K, V = qkv(X, W_QUERY, W_KEY, W_VALUE)
SCORES = Q @ K.T  # section 3.5 runs on sa_v2: seed 789
D_K = 2

causal_scores = st.tuples(
    arrays_TT(min_T=1, max_T=8, lo=-20.0, hi=20.0), st.integers(min_value=1, max_value=64)
)


def test_causal_mask_keeps_the_past_and_the_present():
    assert np.array_equal(mk.causal_mask(3), [[1, 0, 0], [1, 1, 0], [1, 1, 1]])
    assert mk.causal_mask(6).dtype == bool


def test_zero_score_is_not_zero_weight():
    # Section 03: "softmax([1.0, 2.0, 3.0, 0.0, 0.0]) is [0.0844, 0.2295, 0.6239, 0.0311, 0.0311]".
    weights = softmax(np.array(mk.COUNTEREXAMPLE_SCORES))
    assert np.round(weights, 4).tolist() == [0.0844, 0.2295, 0.6239, 0.0311, 0.0311]


@pytest.mark.parametrize("route", [mk.masked_after_softmax, mk.masked_before_softmax])
def test_book_rows_for_both_routes(route):
    # Section 03: "Row 1 collapses to 1.0000 ..., row 2 is [0.5517, 0.4483] and row 3 is
    # [0.3800, 0.3097, 0.3103], matching what the book prints for both paths."
    weights = route(SCORES, D_K)
    assert np.round(weights[0, :1], 4).tolist() == [1.0]
    assert np.round(weights[1, :2], 4).tolist() == [0.5517, 0.4483]
    assert np.round(weights[2, :3], 4).tolist() == [0.38, 0.3097, 0.3103]
    assert np.all(weights[np.triu_indices(6, k=1)] == 0.0)


def test_the_two_routes_mask_different_things():
    # Section 03: "the naive path masks post-softmax weights, whose first entry is 0.1921, while
    # the efficient path masks pre-scale scores, whose first entry is 0.2899."
    naive = dict(mk.naive_stages(SCORES, D_K))
    efficient = dict(mk.efficient_stages(SCORES, D_K))
    assert round(naive["weights"][0, 0], 4) == 0.1921
    assert round(efficient["scores"][0, 0], 4) == 0.2899
    assert efficient["masked scores"][0, 0] == efficient["scores"][0, 0]
    assert np.all(np.isneginf(efficient["masked scores"][np.triu_indices(6, k=1)]))


def test_stages_end_where_the_routes_end():
    naive = mk.naive_stages(SCORES, D_K)
    efficient = mk.efficient_stages(SCORES, D_K)
    assert [name for name, _ in naive] == [
        "scores",
        "weights",
        "keep mask",
        "masked weights",
        "renormalised weights",
    ]
    assert [name for name, _ in efficient] == ["scores", "future mask", "masked scores", "weights"]
    assert all(grid.shape == (6, 6) for _, grid in naive + efficient)
    assert np.array_equal(naive[-1][1], mk.masked_after_softmax(SCORES, D_K))
    assert np.array_equal(efficient[-1][1], mk.masked_before_softmax(SCORES, D_K))


def test_difference_grid_is_float64_noise():
    # Section 03: "The largest disagreement anywhere is 5.6e-17"; the note says it depends on
    # operation order, up to about 2.2e-16, so bound it rather than match it.
    difference = mk.mask_difference(SCORES, D_K)
    assert difference.shape == (6, 6)
    assert np.max(np.abs(difference)) <= 4.5e-16


def test_zero_mask_leaks_into_the_future():
    # Section 03: "switch the mask to zero, and the first token hands 0.8029 of its attention
    # to five tokens it is not allowed to see."
    leaked = mk.leaked_weight(mk.zero_mask_weights(SCORES, D_K))
    assert round(leaked[0], 4) == 0.8029
    assert np.all(leaked[:-1] > 0) and leaked[-1] == 0.0  # the last token has no future
    assert np.all(mk.leaked_weight(mk.masked_before_softmax(SCORES, D_K)) == 0.0)


def test_causal_attention_matches_torch():
    # CausalAttention on the book's batch of two copies, weights copied in, dropout 0.
    module = CausalAttention(3, 2, context_length=6, dropout=0.0).double()
    set_qkv(module, W_QUERY, W_KEY, W_VALUE)
    batch = np.stack([X, X])
    expected = run(module, batch)
    context = mk.masked_before_softmax(np.stack([SCORES, SCORES]), D_K) @ V
    assert expected.shape == context.shape == (2, 6, 2)
    assert np.allclose(context, expected, rtol=0, atol=1e-14)


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(1, 6), st.integers(2, 8), st.integers(1, 4), st.randoms(use_true_random=False))
def test_causal_attention_matches_torch_on_random_inputs(d_in, T, d_out, random):
    rng = np.random.default_rng(random.getrandbits(32))
    X_rand = rng.normal(size=(2, T, d_in))
    Ws = [rng.normal(size=(d_in, d_out)) for _ in range(3)]
    module = CausalAttention(d_in, d_out, context_length=T + 3, dropout=0.0).double()
    set_qkv(module, *Ws)
    Q_, K_, V_ = qkv(X_rand, *Ws)
    context = mk.masked_before_softmax(Q_ @ K_.transpose(0, 2, 1), d_out) @ V_
    assert np.allclose(context, run(module, X_rand), rtol=1e-12, atol=1e-12)


@settings(max_examples=examples(100), deadline=None)
@given(causal_scores)
def test_the_two_routes_agree(case):
    scores, d_k = case
    naive = mk.masked_after_softmax(scores, d_k)
    efficient = mk.masked_before_softmax(scores, d_k)
    assert np.max(np.abs(naive - efficient)) <= 1e-12


@settings(max_examples=examples(100), deadline=None)
@given(causal_scores)
def test_causal_weights_are_zero_above_the_diagonal_and_rows_sum_to_one(case):
    scores, d_k = case
    T = scores.shape[0]
    for weights in (mk.masked_after_softmax(scores, d_k), mk.masked_before_softmax(scores, d_k)):
        assert np.all(weights[np.triu_indices(T, k=1)] == 0.0)
        assert np.allclose(weights.sum(axis=1), 1.0, rtol=0, atol=1e-12)
        assert np.all(weights >= 0)


@settings(max_examples=examples(60), deadline=None)
@given(causal_scores)
def test_both_routes_are_the_softmax_over_the_visible_prefix(case):
    # The post's algebra: the full-row denominator cancels, leaving a softmax over j <= i.
    scores, d_k = case
    weights = mk.masked_before_softmax(scores, d_k)
    for i in range(scores.shape[0]):
        prefix = softmax(scores[i, : i + 1] / np.sqrt(d_k))
        assert np.allclose(weights[i, : i + 1], prefix, rtol=0, atol=1e-14)


def test_batched_scores_are_masked_per_matrix():
    batch = np.stack([SCORES, 2 * SCORES, -SCORES])[None]  # (1, 3, 6, 6)
    weights = mk.masked_before_softmax(batch, D_K)
    assert weights.shape == (1, 3, 6, 6)
    assert np.allclose(weights[0, 1], mk.masked_before_softmax(2 * SCORES, D_K), atol=1e-16)
    assert np.max(np.abs(mk.mask_difference(batch, D_K))) <= 1e-15


def test_fully_masked_row_raises_instead_of_nan():
    mask = mk.causal_mask(3)
    mask[1] = False
    for route in (mk.masked_after_softmax, mk.masked_before_softmax):
        with pytest.raises(ValueError, match=r"row\(s\) \[1\]"):
            route(np.zeros((3, 3)), 2, mask=mask)


def test_naive_route_refuses_an_underflowed_row():
    # Row 0 sees only itself, but its future score is 2000 higher: exp(-1000) underflows to 0
    # in the first softmax. The efficient route is unaffected.
    scores = np.array([[0.0, 2000.0], [0.0, 0.0]])
    with pytest.raises(ValueError, match="underflowed"):
        mk.masked_after_softmax(scores, 4)
    assert np.array_equal(mk.masked_before_softmax(scores, 4)[0], [1.0, 0.0])


def test_naive_route_refuses_a_row_lost_to_subnormals():
    # Row 1's future score 745 dominates: its visible weights survive the first softmax only as
    # subnormals, and renormalising those gave [0.3333, 0.6667] instead of [0.2689, 0.7311].
    scores = np.array([[0.0, 0.0, 0.0], [0.0, 1.0, 745.0], [0.0, 0.0, 0.0]])
    visible = softmax(scores[1])[:2]
    assert 0.0 < visible.sum() < np.finfo(np.float64).tiny  # the case really is subnormal
    for route in (mk.masked_after_softmax, mk.mask_difference, mk.zero_mask_difference):
        with pytest.raises(ValueError, match=r"row\(s\) \[1\] underflowed.*masked_before"):
            route(scores, 1)
    with pytest.raises(ValueError, match=r"row\(s\) \[1\]"):
        mk.masked_after_softmax(scores[None, None], 1)  # batched: the row index, not the batch
    expected = softmax(np.array([0.0, 1.0]))
    assert np.allclose(mk.masked_before_softmax(scores, 1)[1, :2], expected, rtol=0, atol=1e-15)


@settings(max_examples=examples(200), deadline=None)
@given(arrays_TT(min_T=2, max_T=6, lo=-5.0, hi=5.0), st.floats(690.0, 760.0), st.data())
def test_naive_route_is_right_or_refuses(scores, gap, data):
    # One future score ``gap`` above its row, around where exp(-gap) turns subnormal (708) and
    # then 0 (745): the naive route either raises or, as the module promises, agrees with the
    # efficient one up to rounding. Never a silently wrong row.
    T = scores.shape[0]
    i = data.draw(st.integers(0, T - 2))
    scores[i, data.draw(st.integers(i + 1, T - 1))] = scores[i].max() + gap
    efficient = mk.masked_before_softmax(scores, 1)
    try:
        naive = mk.masked_after_softmax(scores, 1)
    except ValueError as err:
        assert "underflowed" in str(err)
        return
    assert np.max(np.abs(naive - efficient)) <= 1e-12


def test_custom_mask_is_respected():
    mask = np.array([[True, True], [False, True]])
    weights = mk.masked_before_softmax(np.zeros((2, 2)), 1, mask=mask)
    assert np.array_equal(weights, [[0.5, 0.5], [0.0, 1.0]])


def test_bad_input_raises():
    with pytest.raises(ValueError, match="square"):
        mk.masked_before_softmax(np.zeros((2, 3)), 2)
    with pytest.raises(ValueError, match="NaN"):
        mk.masked_after_softmax(np.array([[0.0, -np.inf], [0.0, 0.0]]), 2)
    with pytest.raises(ValueError, match="d_k"):
        mk.masked_before_softmax(np.zeros((2, 2)), 0)
    with pytest.raises(ValueError, match="mask"):
        mk.masked_before_softmax(np.zeros((2, 2)), 1, mask=np.ones((2, 2)))
    with pytest.raises(ValueError, match="T"):
        mk.causal_mask(0)
    with pytest.raises(ValueError, match="weights"):
        mk.leaked_weight(np.ones((2, 3)))
    with pytest.raises(ValueError, match="empty"):
        mk.zero_mask_weights(np.zeros((0, 0)), 1)


def test_zero_mask_stages_mirror_the_efficient_route():
    # Section 03's switch: the same steps as the efficient route, with 0 where -inf belongs.
    zero = mk.zero_mask_stages(SCORES, D_K)
    efficient = mk.efficient_stages(SCORES, D_K)
    assert [name for name, _ in zero] == [name for name, _ in efficient]
    future = ~mk.causal_mask(6)
    assert np.all(zero[2][1][future] == 0.0)
    assert np.array_equal(zero[2][1][~future], SCORES[~future])
    assert np.array_equal(zero[-1][1], mk.zero_mask_weights(SCORES, D_K))


def test_zero_mask_difference_is_the_leak():
    # Naive minus zero-filled: above the diagonal it is minus what leaked, row by row.
    difference = mk.zero_mask_difference(SCORES, D_K)
    future = ~mk.causal_mask(6)
    leaked = mk.leaked_weight(mk.zero_mask_weights(SCORES, D_K))
    assert np.allclose(-np.sum(difference * future, axis=1), leaked, rtol=0, atol=1e-15)
    assert round(-np.sum(difference[0, 1:]), 4) == 0.8029
    assert np.allclose(np.sum(difference, axis=1), 0.0, atol=1e-15)  # both sets of rows sum to 1


def test_book_scores_are_section_3_5s():
    # Section 3.5 masks sa_v2's scores (seed 789): Q K^T on the six tokens, d_k = 2.
    W_query, W_key, _ = weights_section_3_5()
    X = book_inputs()
    scores, d_k = mk.book_scores()
    assert d_k == 2
    assert np.array_equal(scores, (X @ W_query) @ (X @ W_key).T)
