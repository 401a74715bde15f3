"""attention.analysis against post 1 section 06 ('What it actually did')."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from attention.analysis import (
    attends_to_itself,
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
    pairwise_distances,
    plane_coordinates,
    rows_won_by,
    runner_up_per_row,
    scale_token,
    spread_ratio,
    winning_margin,
)
from attention.basics import attend, context, softmax
from attention.fixtures import TOKENS, book_inputs
from tests.strategies import examples

YOUR, JOURNEY, STARTS, WITH, ONE = (
    TOKENS.index(t) for t in ("Your", "journey", "starts", "with", "one")
)


def assert_printed(actual, printed, decimals=4):
    """``actual`` rounds to exactly the numbers a document printed."""
    np.testing.assert_array_equal(np.round(np.asarray(actual), decimals), np.asarray(printed))


@pytest.fixture
def book():
    """The book's embeddings with their scores, weights and context vectors."""
    X = book_inputs()
    omega, alpha, Z = attend(X)
    return X, omega, alpha, Z


# --- dynamic range -------------------------------------------------------------------------


def test_dynamic_range(book):
    """'The largest weight anywhere ... is 0.2379 and the smallest is 0.0988, against the 0.1667
    a flat average would put in every cell ... a factor of 2.408'."""
    _, _, alpha, _ = book
    assert_printed(alpha.max(), 0.2379)
    assert_printed(alpha.min(), 0.0988)
    assert_printed(flat_weights(6), np.full((6, 6), 0.1667))
    assert_printed(dynamic_range(alpha), 2.408, decimals=3)


# --- entropy -------------------------------------------------------------------------------


def test_flat_six_way_choice():
    """'A flat six-way choice costs log2 6 = 2.585 bits'."""
    assert_printed(max_entropy_bits(6), 2.585, decimals=3)
    assert entropy_bits(flat_weights(6)) == pytest.approx(np.full(6, max_entropy_bits(6)))


def test_row_entropies(book):
    """'The six rows here cost 2.549, 2.519, 2.521, 2.560, 2.564 and 2.534 bits'."""
    _, _, alpha, _ = book
    assert_printed(entropy_bits(alpha), [2.549, 2.519, 2.521, 2.560, 2.564, 2.534], decimals=3)


def test_entropy_share_of_maximum(book):
    """'Every one of them is between 97.4% and 99.2% of maximum entropy'."""
    _, _, alpha, _ = book
    share = entropy_fraction(alpha)
    assert_printed(100 * share.min(), 97.4, decimals=1)
    assert_printed(100 * share.max(), 99.2, decimals=1)


def test_largest_gap_to_the_ceiling(book):
    """'the largest gap to the ceiling anywhere in the matrix is 0.066 bits'."""
    _, _, alpha, _ = book
    assert_printed(entropy_gap_bits(alpha).max(), 0.066, decimals=3)


# --- flat weights and spread ---------------------------------------------------------------


def test_context_shift_under_flat_weights(book):
    """'Replace the mechanism entirely with "average all six inputs equally" and no context
    vector moves more than 0.080'."""
    X, _, alpha, Z = book
    shift = context_shift(alpha, X)
    assert shift.shape == (6,)
    assert_printed(shift.max(), 0.080, decimals=3)
    # The notes' contrast: the largest single coordinate change would be 0.068.
    flat_Z = context(flat_weights(6), X)
    np.testing.assert_allclose(flat_Z, np.broadcast_to(X.mean(axis=0), (6, 3)), atol=1e-15)
    assert_printed(np.abs(Z - flat_Z).max(), 0.068, decimals=3)
    assert np.all(context_shift(flat_weights(6), X) < 1e-15)


def test_inputs_and_contexts_spread(book):
    """'The six input embeddings sit 0.6576 apart on average. The six context vectors sit
    0.0482 apart, 7.3% of the spread they came from'."""
    X, _, _, Z = book
    assert_printed(mean_pairwise_distance(X), 0.6576)
    assert_printed(mean_pairwise_distance(Z), 0.0482)
    assert_printed(100 * spread_ratio(Z, X), 7.3, decimals=1)


def test_mean_pairwise_distance_uses_the_fifteen_pairs():
    """'apart on average': the mean over the 15 unordered pairs."""
    X = book_inputs()
    pairs = [np.linalg.norm(X[i] - X[j]) for i in range(6) for j in range(i + 1, 6)]
    assert len(pairs) == 15
    assert mean_pairwise_distance(X) == pytest.approx(np.mean(pairs), rel=1e-14)
    D = pairwise_distances(X)
    np.testing.assert_allclose(D, D.T)
    assert np.all(np.diag(D) == 0)


def test_every_context_is_nearest_to_starts(book):
    """'a nearest-neighbour lookup puts all six of them closest to the same input embedding,
    starts'."""
    X, _, _, Z = book
    np.testing.assert_array_equal(nearest_input(Z, X), np.full(6, STARTS))


# --- length, not meaning --------------------------------------------------------------------


def test_diagonal_of_scores_is_squared_length(book):
    """'The diagonal of Omega is ||x_i||^2, the squared length of each embedding'."""
    X, omega, _, _ = book
    np.testing.assert_allclose(np.diag(omega), norms(X) ** 2, rtol=1e-15)


def test_journey_and_starts_are_longest():
    """'journey and starts have the two longest vectors ... at norms 1.2227 and 1.2071'."""
    n = norms(book_inputs())
    assert set(np.argsort(n)[-2:]) == {JOURNEY, STARTS}
    assert_printed(n[[JOURNEY, STARTS]], [1.2227, 1.2071])


def test_largest_weight_goes_to_the_long_vectors(book):
    """'in five of the six rows the largest weight goes to one of them. Row 1 is the only
    exception, and it wins by putting its largest weight on itself, beating journey by 0.0093'."""
    _, _, alpha, _ = book
    top = largest_per_row(alpha)
    assert np.sum(np.isin(top, [JOURNEY, STARTS])) == 5
    assert top[YOUR] == YOUR
    assert runner_up_per_row(alpha)[YOUR] == JOURNEY
    assert_printed(winning_margin(alpha)[YOUR], 0.0093)


def test_scaling_with_by_three_takes_every_row():
    """'Take with, the shortest vector at norm 0.7026, scale it by three, and its column becomes
    the largest weight in all six rows, including a weight of 0.687 on itself'."""
    X = book_inputs()
    n = norms(X)
    assert np.argmin(n) == WITH
    assert_printed(n[WITH], 0.7026)
    scaled = scale_token(X, WITH, 3.0)
    np.testing.assert_array_equal(X, book_inputs())  # a new array, the input untouched
    np.testing.assert_allclose(scaled[WITH], 3 * X[WITH])
    _, alpha, _ = attend(scaled)
    np.testing.assert_array_equal(largest_per_row(alpha), np.full(6, WITH))
    assert_printed(alpha[WITH, WITH], 0.687, decimals=3)


# --- cosine similarity ---------------------------------------------------------------------


def test_cosine_flattens_five_rows(book):
    """'on the untouched tensor the distributions get flatter in five of the six rows, and the
    mean row entropy rises from 2.5413 bits to 2.5673 ... Row 5 is the one exception, falling
    from 2.5642 to 2.5577'."""
    X, _, alpha, _ = book
    dot_h = entropy_bits(alpha)
    cos_h = entropy_bits(softmax(cosine_scores(X)))
    assert_printed(dot_h.mean(), 2.5413)
    assert_printed(cos_h.mean(), 2.5673)
    flatter = cos_h > dot_h
    assert flatter.sum() == 5 and not flatter[ONE]
    assert_printed([dot_h[ONE], cos_h[ONE]], [2.5642, 2.5577])
    assert_printed(max_entropy_bits(6), 2.5850)  # 'against the same 2.5850 ceiling'
    assert cos_h.max() < max_entropy_bits(6)


def test_cosine_attends_hardest_to_itself(book):
    """'cosine makes every token attend hardest to itself, because a vector's cosine with
    itself is 1 and nothing can beat it'."""
    X, _, _, _ = book
    cos = cosine_scores(X)
    np.testing.assert_allclose(np.diag(cos), 1.0, rtol=1e-15)
    assert np.all(np.abs(cos) <= 1 + 1e-15)
    np.testing.assert_array_equal(largest_per_row(softmax(cos)), np.arange(6))


def test_cosine_ignores_length():
    """'Divide each score by both norms before the softmax and the magnitude effect is gone'."""
    X = book_inputs()
    np.testing.assert_allclose(cosine_scores(scale_token(X, WITH, 3.0)), cosine_scores(X))


# --- bad input -----------------------------------------------------------------------------


def test_cosine_names_the_zero_token():
    X = scale_token(book_inputs(), WITH, 0.0)
    with pytest.raises(ValueError, match="'with'"):
        cosine_scores(X, TOKENS)
    with pytest.raises(ValueError, match="row 3"):
        cosine_scores(X)


@pytest.mark.parametrize(
    "weights",
    [
        pytest.param(np.array([0.5, 0.6]), id="row sum not 1"),
        pytest.param(np.array([1.5, -0.5]), id="negative"),
        pytest.param(np.array([np.nan, 1.0]), id="NaN"),
        pytest.param(np.ones((1, 1, 1)), id="3-D"),
        pytest.param(np.ones((0,)), id="empty"),
    ],
)
@pytest.mark.parametrize(
    "measure", [entropy_bits, entropy_fraction, entropy_gap_bits, dynamic_range]
)
def test_measures_refuse_non_distributions(measure, weights):
    with pytest.raises(ValueError):
        measure(weights)


def test_dynamic_range_refuses_a_zero_weight():
    with pytest.raises(ValueError, match="unbounded"):
        dynamic_range(np.array([[1.0, 0.0], [0.5, 0.5]]))


def test_entropy_counts_zero_weights_as_zero():
    assert entropy_bits(np.array([1.0, 0.0, 0.0])) == 0.0
    assert entropy_bits(np.array([0.5, 0.5, 0.0])) == 1.0


@pytest.mark.parametrize("T", [0, -1, 2.0, True])
def test_bad_sizes(T):
    with pytest.raises(ValueError):
        flat_weights(T)
    with pytest.raises(ValueError):
        max_entropy_bits(T)


def test_shape_errors():
    X = book_inputs()
    with pytest.raises(ValueError):
        context_shift(flat_weights(5), X)
    with pytest.raises(ValueError):
        context_shift(np.full(6, 1 / 6), X)
    with pytest.raises(ValueError):
        nearest_input(np.ones((2, 2)), X)
    with pytest.raises(ValueError, match="two rows"):
        mean_pairwise_distance(X[:1])
    with pytest.raises(ValueError, match="coincide"):
        spread_ratio(X, np.ones((3, 3)))
    with pytest.raises(ValueError):
        entropy_fraction(np.array([1.0]))
    with pytest.raises(ValueError):
        runner_up_per_row(np.ones((2, 1)))
    with pytest.raises(ValueError):
        winning_margin(np.ones((2, 1)))


@pytest.mark.parametrize(("i", "factor"), [(6, 2.0), (-1, 2.0), (0, np.nan), (0, np.inf), (0, "x")])
def test_scale_token_bad_input(i, factor):
    with pytest.raises(ValueError):
        scale_token(book_inputs(), i, factor)


# --- helpers the figures draw from ----------------------------------------------------------


def test_attends_to_itself_under_cosine_not_under_dot(book):
    """'cosine makes every token attend hardest to itself'; with dot products only Your and
    journey do (journey because it is the longest vector, not because it is itself)."""
    X, _, alpha, _ = book
    assert attends_to_itself(softmax(cosine_scores(X))).all()
    np.testing.assert_array_equal(np.flatnonzero(attends_to_itself(alpha)), [YOUR, JOURNEY])
    with pytest.raises(ValueError, match="square"):
        attends_to_itself(np.full((2, 3), 1 / 3))


def test_rows_won_by_the_scaled_token():
    """'scale it by three, and its column becomes the largest weight in all six rows'."""
    X = book_inputs()
    assert rows_won_by(attend(X)[1], WITH) == 0
    assert rows_won_by(attend(scale_token(X, WITH, 3.0))[1], WITH) == 6
    assert rows_won_by(attend(X)[1], JOURNEY) + rows_won_by(attend(X)[1], STARTS) == 5
    with pytest.raises(ValueError):
        rows_won_by(attend(X)[1], 6)


def test_plane_coordinates_keep_distances_within_the_plane(book):
    """A drawing aid: in-plane distances are exact for points of the plane, shorter otherwise."""
    X, _, _, Z = book
    P = plane_coordinates(X, X)
    assert P.shape == (6, 2)
    np.testing.assert_allclose(P.mean(axis=0), 0.0, atol=1e-15)
    flat = plane_coordinates(X.mean(axis=0, keepdims=True), X)
    np.testing.assert_allclose(flat, 0.0, atol=1e-15)  # the flat context sits at the origin
    D_plane = pairwise_distances(plane_coordinates(Z, X))
    assert np.all(D_plane <= pairwise_distances(Z) + 1e-15)
    # a point in the plane keeps its distances exactly
    in_plane = X.mean(axis=0) + 0.3 * (X[1] - X.mean(axis=0))
    assert (
        np.linalg.norm(plane_coordinates(in_plane[None], X))
        <= 0.3 * norms((X[1] - X.mean(axis=0))[None])[0] + 1e-15
    )
    np.testing.assert_array_equal(plane_coordinates(X, X), P)  # deterministic


def test_plane_coordinates_bad_input():
    X = book_inputs()
    with pytest.raises(ValueError, match="features"):
        plane_coordinates(np.ones((2, 2)), X)
    with pytest.raises(ValueError, match="2 features"):
        plane_coordinates(X[:, :1], X[:, :1])


def test_mean_entropy(book):
    """'the mean row entropy rises from 2.5413 bits to 2.5673'."""
    X, _, alpha, _ = book
    assert_printed(mean_entropy_bits(alpha), 2.5413)
    assert_printed(mean_entropy_bits(softmax(cosine_scores(X))), 2.5673)
    with pytest.raises(ValueError):
        mean_entropy_bits(np.full(6, 1 / 6))


def test_runner_up_on_a_tie_is_the_other_tied_column():
    w = np.array([[0.4, 0.4, 0.2], [0.5, 0.5, 0.0], [0.2, 0.3, 0.3], [0.6, 0.2, 0.2]])
    assert largest_per_row(w).tolist() == [0, 0, 1, 0]
    assert runner_up_per_row(w).tolist() == [1, 1, 2, 1]
    assert winning_margin(w).tolist() == [0.0, 0.0, 0.0, pytest.approx(0.4)]


# Few distinct values, so that rows with ties (for first and for second) are common.
tied_weights = st.tuples(st.integers(1, 5), st.integers(2, 6)).flatmap(
    lambda shape: hnp.arrays(np.float64, shape, elements=st.sampled_from([0.0, 0.2, 0.4, 0.5]))
)


@settings(max_examples=examples(200), deadline=None)
@given(tied_weights)
def test_runner_up_is_the_best_of_the_rest(w):
    rows = np.arange(w.shape[0])
    top, second = largest_per_row(w), runner_up_per_row(w)
    assert np.all(second != top)
    assert np.all(w[rows, top] >= w[rows, second])
    rest = w.copy()
    rest[rows, top] = -np.inf
    assert np.array_equal(w[rows, second], rest.max(axis=1))
    assert np.array_equal(winning_margin(w), w[rows, top] - w[rows, second])
