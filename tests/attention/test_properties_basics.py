"""Properties of parameter-free attention that must hold for any embeddings, not just the book's."""

import numpy as np
import pytest
import torch
from hypothesis import assume, given
from hypothesis import strategies as st

from attention.basics import (
    attend,
    context,
    loop_scores,
    matmul_scores,
    max_abs_difference,
    query_scores,
    scores,
    softmax,
    sum_normalise,
    symmetry_error,
)
from tests.strategies import arrays_T, arrays_TD, arrays_TD_and_perm, arrays_TT, ndarrays_of_shape

EPS = np.finfo(np.float64).eps


@given(arrays_TD())
def test_weights_are_positive_rows_summing_to_one(X):
    """Section 3.3: softmax weights are positive and each query's row sums to 1."""
    _, alpha, _ = attend(X)
    assert np.all(alpha >= 0)
    np.testing.assert_allclose(alpha.sum(axis=-1), 1.0, rtol=0, atol=1e-12)


@given(arrays_TT(), st.data())
def test_softmax_ignores_a_constant_per_row(s, data):
    """Adding the same number to every score in a row leaves that row's weights unchanged."""
    shift = data.draw(ndarrays_of_shape((s.shape[0], 1), lo=-1e3, hi=1e3))
    np.testing.assert_allclose(softmax(s + shift), softmax(s), rtol=1e-9, atol=1e-12)


@given(arrays_TT(lo=-1e300, hi=1e300))
def test_softmax_stays_finite_for_huge_scores(s):
    """Post 1 section 04: e^1000 overflows; subtracting the row maximum keeps weights finite."""
    alpha = softmax(s)
    assert np.all(np.isfinite(alpha))
    assert np.all(alpha >= 0)
    np.testing.assert_allclose(alpha.sum(axis=-1), 1.0, rtol=0, atol=1e-12)
    assert np.all(alpha.max(axis=-1) >= 1 / s.shape[1])


@given(arrays_TT(lo=-50.0, hi=50.0))
def test_softmax_matches_torch(s):
    np.testing.assert_allclose(
        softmax(s, axis=-1), torch.softmax(torch.tensor(s), dim=-1).numpy(), rtol=1e-12, atol=1e-300
    )


@given(arrays_TD())
def test_matches_torch(X):
    """The whole section 3.3 pipeline against PyTorch float64."""
    inputs = torch.tensor(X)
    attn_weights = torch.softmax(inputs @ inputs.T, dim=-1)
    np.testing.assert_allclose(
        attend(X)[2], (attn_weights @ inputs).numpy(), rtol=1e-10, atol=1e-12
    )


@given(arrays_TD_and_perm())
def test_permuting_tokens_permutes_everything(X_perm):
    """No parameters and no positions: reordering the tokens only reorders the outputs."""
    X, perm = X_perm
    omega, alpha, Z = attend(X)
    p_omega, p_alpha, p_Z = attend(X[perm])
    np.testing.assert_allclose(p_omega, omega[np.ix_(perm, perm)], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(p_alpha, alpha[np.ix_(perm, perm)], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(p_Z, Z[perm], rtol=1e-10, atol=1e-12)


@given(arrays_TD())
def test_loop_grid_equals_matmul_grid(X):
    """Post 1 section 05: 'the same 108 multiplications in a different order'.

    Summation order may differ, so the bound is a few roundings of the largest possible term sum.
    """
    bound = 4 * X.shape[1] * EPS * np.max(np.abs(X)) ** 2
    assert max_abs_difference(loop_scores(X), matmul_scores(X)) <= bound


@given(arrays_TD())
def test_scores_are_symmetric(X):
    """Post 1 section 05: 'Omega is exactly symmetric by necessity'."""
    assert symmetry_error(scores(X)) == 0.0


@given(arrays_TD(), st.data())
def test_query_scores_are_rows(X, data):
    i = data.draw(st.integers(0, X.shape[0] - 1))
    np.testing.assert_allclose(query_scores(X, i), scores(X)[i], rtol=1e-12, atol=1e-12)


@given(arrays_TD())
def test_context_vectors_are_convex_combinations(X):
    """Post 1 section 03: a context vector lies inside the hull of the inputs."""
    _, _, Z = attend(X)
    slack = 1e-12 * (1 + np.max(np.abs(X)))
    assert np.all(Z >= X.min(axis=0) - slack)
    assert np.all(Z <= X.max(axis=0) + slack)


@given(arrays_TD(), st.data())
def test_one_query_context_is_a_row_of_all_contexts(X, data):
    i = data.draw(st.integers(0, X.shape[0] - 1))
    z_i = context(softmax(query_scores(X, i)), X)
    np.testing.assert_allclose(z_i, attend(X)[2][i], rtol=1e-10, atol=1e-12)


@given(arrays_T(min_T=2))
def test_sum_normalise_rows_sum_to_one(s):
    """Post 1 section 04: dividing by the sum always sums to 1, even with negative weights."""
    assume(abs(np.sum(s)) > 1e-3)
    np.testing.assert_allclose(np.sum(sum_normalise(s)), 1.0, rtol=0, atol=1e-9)


@given(arrays_T(min_T=2, lo=0.001, hi=2.0))
def test_sum_normalise_of_positive_scores_is_a_distribution(s):
    w = sum_normalise(s)
    assert np.all(w > 0)


@given(arrays_TD(), st.sampled_from([np.nan, np.inf, -np.inf]), st.data())
def test_non_finite_embeddings_raise(X, bad, data):
    i = data.draw(st.integers(0, X.shape[0] - 1))
    j = data.draw(st.integers(0, X.shape[1] - 1))
    X = X.copy()
    X[i, j] = bad
    for stage in (scores, attend, loop_scores):
        with pytest.raises(ValueError):
            stage(X)
