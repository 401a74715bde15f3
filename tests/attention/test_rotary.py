"""rotary: post 3's rotary position embeddings, against PyTorch written from the paper."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import rotary
from attention.models import LLAMA2_7B, LLAMA3_8B
from tests.strategies import examples, ndarrays_of_shape

BASES = (LLAMA2_7B.rope_base, LLAMA3_8B.rope_base)


# --- the oracle: RoFormer's formula in torch ---------------------------------------------------


def torch_frequencies(d: int, base: float) -> torch.Tensor:
    """RoFormer section 3.2.2: theta_i = base^(-2(i-1)/d), i = 1 .. d/2."""
    i = torch.arange(1, d // 2 + 1, dtype=torch.float64)
    return torch.tensor(base, dtype=torch.float64) ** (-2.0 * (i - 1) / d)


def torch_rotate_complex(x: np.ndarray, positions, base: float) -> np.ndarray:
    """The paper's section 3.2.1 in complex form: each pair (x_{2i-1}, x_{2i}) as one complex
    number, multiplied by e^{i m theta_i}. (T, d), (T,) -> (T, d)"""
    X = torch.tensor(x, dtype=torch.float64)
    pairs = torch.view_as_complex(X.reshape(X.shape[0], -1, 2).contiguous())  # (T, d/2)
    m = torch.tensor(np.asarray(positions, dtype=np.float64))
    phase = torch.polar(
        torch.ones_like(pairs.real), torch.outer(m, torch_frequencies(x.shape[1], base))
    )
    return torch.view_as_real(pairs * phase).reshape(X.shape).numpy()


def torch_rotation_matrix(d: int, m: float, base: float) -> torch.Tensor:
    """The paper's block-diagonal rotation matrix R^d_{Theta,m} (section 3.2.2). -> (d, d)"""
    R = torch.zeros(d, d, dtype=torch.float64)
    for j, theta in enumerate(torch_frequencies(d, base)):
        c, s = torch.cos(m * theta), torch.sin(m * theta)
        R[2 * j : 2 * j + 2, 2 * j : 2 * j + 2] = torch.stack(
            [torch.stack([c, -s]), torch.stack([s, c])]
        )
    return R


# --- frequencies --------------------------------------------------------------------------------


@pytest.mark.parametrize("base", BASES)
@pytest.mark.parametrize("d", [2, 8, 64, LLAMA3_8B.head_dim])
def test_frequencies_are_the_papers(d, base):
    ours = rotary.frequencies(d, base)
    assert ours.shape == (d // 2,)
    np.testing.assert_allclose(ours, torch_frequencies(d, base).numpy(), rtol=1e-15, atol=0)
    assert ours[0] == 1.0  # the first pair turns one radian per token whatever the base
    assert np.all(np.diff(ours) < 0)


def test_the_slowest_pair_is_base_to_the_minus_one_plus_two_over_d():
    # theta_{d/2} = base^(-2(d/2 - 1)/d) = base^(-1 + 2/d)
    d = LLAMA3_8B.head_dim
    for base in BASES:
        assert math.isclose(rotary.frequencies(d, base)[-1], base ** (-1 + 2 / d), rel_tol=1e-14)


def test_wavelengths_are_two_pi_over_theta():
    w = rotary.wavelengths(128, LLAMA3_8B.rope_base)
    np.testing.assert_allclose(w, 2 * np.pi / torch_frequencies(128, LLAMA3_8B.rope_base).numpy())
    assert w[0] == 2 * np.pi


def test_a_larger_base_slows_every_pair_but_the_first():
    slow, fast = (
        rotary.frequencies(128, LLAMA3_8B.rope_base),
        rotary.frequencies(128, LLAMA2_7B.rope_base),
    )
    assert slow[0] == fast[0]
    assert np.all(slow[1:] < fast[1:])


def test_full_turns_within_counts_pairs_whose_angle_reaches_two_pi():
    for base in BASES:
        for context in (1, 2, 7, 4096, 8192):
            theta = torch_frequencies(128, base).numpy()
            want = sum(1 for t in theta if (context - 1) * t >= 2 * math.pi)
            assert rotary.full_turns_within(128, context, base) == want
    # Pair 1 turns 1 radian per token: a full turn needs position 7 (> 2 pi), so 8 positions.
    assert rotary.full_turns_within(128, 7) == 0
    assert rotary.full_turns_within(128, 8) >= 1


# --- rotate against torch ----------------------------------------------------------------------


@settings(max_examples=examples(60), deadline=None)
@given(
    data=st.data(),
    T=st.integers(1, 6),
    half=st.integers(1, 8),
    base=st.sampled_from(BASES),
)
def test_rotate_matches_complex_multiplication(data, T, half, base):
    X = data.draw(ndarrays_of_shape((T, 2 * half)))
    positions = data.draw(st.lists(st.integers(0, 10_000), min_size=T, max_size=T))
    ours = rotary.rotate(X, positions, base)
    np.testing.assert_allclose(ours, torch_rotate_complex(X, positions, base), rtol=0, atol=1e-13)


@pytest.mark.parametrize("m", [0, 1, 5, 4095])
def test_rotate_matches_the_rotation_matrix(m):
    q, _ = rotary.example_query_key(16)
    R = torch_rotation_matrix(16, float(m), LLAMA2_7B.rope_base)
    want = (R @ torch.tensor(q)).numpy()
    np.testing.assert_allclose(rotary.rotate(q, m), want, rtol=0, atol=1e-13)


def test_position_zero_is_the_identity():
    X = np.arange(12.0).reshape(2, 6)
    assert np.array_equal(rotary.rotate(X, [0, 0]), X)


def test_a_single_vector_and_its_row_agree():
    q, _ = rotary.example_query_key(8)
    assert np.array_equal(rotary.rotate(q, 3), rotary.rotate(q[None, :], [3])[0])


def test_pairs_are_interleaved_not_halves():
    # Only coordinates 0 and 1 set: interleaved pairs rotate them together, within the plane.
    x = np.zeros(8)
    x[0] = 1.0
    y = rotary.rotate(x, 1)
    assert y[0] == math.cos(1.0) and y[1] == math.sin(1.0)
    assert np.all(y[2:] == 0)


NORM_FLOOR = 1e-150


def test_a_pair_too_small_to_square_keeps_its_norm_within_the_floor():
    x = np.array([1.0, 5.06260645e-158, 5.06260645e-158, 5.06260645e-158])
    y = rotary.rotate(x, 1)
    small_y, small_x = np.linalg.norm(rotary.pair(y, 2)), np.linalg.norm(rotary.pair(x, 2))
    assert not math.isclose(small_y, small_x, rel_tol=1e-14)  # the squares lost their bits
    assert math.isclose(small_y, small_x, rel_tol=1e-14, abs_tol=NORM_FLOOR)


@settings(max_examples=examples(60), deadline=None)
@given(data=st.data(), half=st.integers(1, 8), m=st.integers(0, 100_000))
def test_norms_are_preserved(data, half, m):
    x = data.draw(ndarrays_of_shape((2 * half,)))
    y = rotary.rotate(x, m)
    # np.linalg.norm sums squares: below about 1e-154 a square is subnormal and keeps few bits,
    # so norms that small agree only to an absolute NORM_FLOOR (seen: 7.1596067077e-158 and
    # 7.1596067112e-158 for one rotated pair).
    assert math.isclose(np.linalg.norm(y), np.linalg.norm(x), rel_tol=1e-14, abs_tol=NORM_FLOOR)
    # ... and pair by pair: each pair keeps its own length
    for i in range(1, half + 1):
        assert math.isclose(
            np.linalg.norm(rotary.pair(y, i)),
            np.linalg.norm(rotary.pair(x, i)),
            rel_tol=1e-14,
            abs_tol=NORM_FLOOR,
        )


# --- scores depend on the offset only ---------------------------------------------------------


def test_rotary_scores_match_torch():
    rng = np.random.default_rng(7)
    Q, K = rng.standard_normal((5, 16)), rng.standard_normal((4, 16))
    pq, pk = [0, 3, 9, 27, 81], [1, 2, 1000, 4095]
    want = (
        torch_rotate_complex(Q, pq, LLAMA3_8B.rope_base)
        @ torch_rotate_complex(K, pk, LLAMA3_8B.rope_base).T
    )
    ours = rotary.rotary_scores(Q, K, pq, pk, LLAMA3_8B.rope_base)
    assert ours.shape == (5, 4)
    np.testing.assert_allclose(ours, want, rtol=0, atol=1e-12)


def test_the_score_is_q_against_the_key_rotated_by_the_offset():
    # RoFormer section 3.2.2: (R_m q) . (R_n k) = q . R_{n-m} k
    q, k = rotary.example_query_key(32)
    for m, n in [(5, 2), (2, 5), (100, 0), (4000, 3999)]:
        R = torch_rotation_matrix(32, float(n - m), LLAMA2_7B.rope_base).numpy()
        assert math.isclose(rotary.score(q, k, m, n), q @ R @ k, rel_tol=0, abs_tol=1e-12)


@settings(max_examples=examples(60), deadline=None)
@given(
    data=st.data(),
    half=st.integers(1, 8),
    m=st.integers(0, 4096),
    n=st.integers(0, 4096),
    s=st.integers(0, 4096),
    base=st.sampled_from(BASES),
)
def test_moving_both_positions_changes_the_score_by_rounding_alone(data, half, m, n, s, base):
    q = data.draw(ndarrays_of_shape((2 * half,)))
    k = data.draw(ndarrays_of_shape((2 * half,)))
    moved = rotary.score(q, k, m + s, n + s, base) - rotary.score(q, k, m, n, base)
    # Bound: the angles' rounding grows with the position, |angle| * eps, times |q_i| |k_i|.
    pair_norms = np.hypot(q[0::2], q[1::2]) * np.hypot(k[0::2], k[1::2])
    scale = np.sum(pair_norms) * (m + n + 2 * s + 8)
    # Below the normal range, products round to a multiple of the smallest subnormal.
    floor = 8 * np.finfo(np.float64).smallest_subnormal
    assert abs(moved) <= 1e-15 * scale + floor


def test_shift_error_is_the_largest_score_change():
    q, k = rotary.example_query_key(128)
    shifts = np.arange(0, 50)
    each = [abs(rotary.score(q, k, 5 + s, 2 + s) - rotary.score(q, k, 5, 2)) for s in shifts]
    assert rotary.shift_error(q, k, 5, 2, shifts) == max(each)
    np.testing.assert_allclose(
        rotary.shifted_scores(q, k, 5, 2, shifts),
        [rotary.score(q, k, 5 + s, 2 + s) for s in shifts],
        rtol=0,
        atol=0,
    )
    assert rotary.shift_error(q, k, 5, 2, [0]) == 0.0


def test_the_float_error_grows_with_the_shift_but_stays_tiny():
    q, k = rotary.example_query_key(128)
    near = rotary.shift_error(q, k, 5, 2, np.arange(1, 64))
    far = rotary.shift_error(q, k, 5, 2, np.arange(LLAMA3_8B.context - 64, LLAMA3_8B.context))
    assert 0 < near < far < 1e-10 * abs(rotary.score(q, k, 5, 2))


def test_without_rotation_the_offset_does_not_matter_and_with_it_does():
    q, k = rotary.example_query_key(64)
    assert rotary.score(q, k, 0, 0) == pytest.approx(q @ k, abs=1e-12)
    assert abs(rotary.score(q, k, 7, 0) - rotary.score(q, k, 0, 0)) > 1e-3


# --- small helpers ------------------------------------------------------------------------------


def test_pair_counts_from_one():
    x = np.arange(8.0)
    assert list(rotary.pair(x, 1)) == [0.0, 1.0]
    assert list(rotary.pair(x, 4)) == [6.0, 7.0]


def test_angle_between_is_signed_and_wrapped():
    assert rotary.angle_between([0, 1], [1, 0]) == pytest.approx(math.pi / 2)
    assert rotary.angle_between([1, 0], [0, 1]) == pytest.approx(-math.pi / 2)
    assert rotary.angle_between([1, -1e-9], [-1, 1e-9]) == pytest.approx(math.pi, abs=1e-8) or (
        rotary.angle_between([1, -1e-9], [-1, 1e-9]) == pytest.approx(-math.pi, abs=1e-8)
    )
    # rotating both by the same angle keeps the angle between them
    u, v = np.array([0.3, -1.2]), np.array([2.0, 0.5])
    c, s = math.cos(2.5), math.sin(2.5)
    R = np.array([[c, -s], [s, c]])
    assert rotary.angle_between(R @ u, R @ v) == pytest.approx(
        rotary.angle_between(u, v), abs=1e-14
    )


def test_example_query_key_is_seeded():
    a, b = rotary.example_query_key(16, seed=3)
    c, d = rotary.example_query_key(16, seed=3)
    assert np.array_equal(a, c) and np.array_equal(b, d) and not np.array_equal(a, b)


# --- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: rotary.frequencies(7), "must be even"),
        (lambda: rotary.frequencies(0), "at least 1"),
        (lambda: rotary.frequencies(8, 1.0), "above 1"),
        (lambda: rotary.frequencies(8, math.nan), "above 1"),
        (lambda: rotary.frequencies(8, "10000"), "must be a number"),
        (lambda: rotary.rotate(np.ones((2, 3)), [0, 1]), "must be even"),
        (lambda: rotary.rotate(np.ones((2, 4)), [0]), "one position per row"),
        (lambda: rotary.rotate(np.ones(4), [0, 1]), "one position"),
        (lambda: rotary.rotate(np.ones(4), math.nan), "NaN"),
        (
            lambda: rotary.rotary_scores(np.ones((2, 4)), np.ones((2, 6)), [0, 1], [0, 1]),
            "same width",
        ),
        (
            lambda: rotary.rotary_scores(np.full((1, 2), 1e200), np.full((1, 2), 1e200), [0], [0]),
            "overflowed",
        ),
        (lambda: rotary.pair(np.ones(8), 5), "from 1 to 4"),
        (lambda: rotary.pair(np.ones(8), 0), "from 1 to 4"),
        (lambda: rotary.angle_between([1, 0, 0], [1, 0]), "2-D points"),
        (lambda: rotary.full_turns_within(128, 0), "at least 1"),
        (lambda: rotary.shifted_scores(np.ones(4), np.ones(6), 0, 0, [0]), "same width"),
    ],
)
def test_bad_input_says_how_to_fix_it(call, words):
    with pytest.raises(ValueError, match=words):
        call()
