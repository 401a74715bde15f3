"""online: the tiled softmax of post 3 against the full one, numpy and PyTorch."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import online as on
from attention.basics import softmax
from attention.cost import score_matrix_bytes
from tests.strategies import examples, qkv_and

Q, K, V = on.example()
T = on.EXAMPLE_T


def torch_sdpa(Q, K, V, causal=False) -> np.ndarray:
    """PyTorch's fused attention in float64: the oracle."""
    q, k, v = (torch.tensor(a, dtype=torch.float64) for a in (Q, K, V))
    with torch.no_grad():
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal).numpy()


def torch_manual(Q, K, V, causal=False) -> np.ndarray:
    """softmax(Q K^T / sqrt(d_k)) V written out in torch, the mask as -inf."""
    q, k, v = (torch.tensor(a, dtype=torch.float64) for a in (Q, K, V))
    s = q @ k.T / math.sqrt(k.shape[-1])
    if causal:
        s = s.masked_fill(torch.triu(torch.ones_like(s, dtype=torch.bool), diagonal=1), -torch.inf)
    return (torch.softmax(s, dim=-1) @ v).numpy()


# Inputs of T tokens, d_k = d_v = d, and a tile size, all small.
qkv_and_tile = qkv_and(lambda T, d: st.integers(1, T + 2))


def rounding_bound(V: np.ndarray, tiles: int) -> float:
    """A few float64 steps at max |V| per tile folded in: the tolerance of a rounding error."""
    return 8 * tiles * float(np.spacing(np.max(np.abs(V)) or 1.0))


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("tile", [1, 2, 3, 5, 12, 20])
def test_all_rows_match_torch(tile, causal):
    out, _ = on.online_attention(Q, K, V, tile, causal=causal)
    for oracle in (torch_sdpa, torch_manual):
        want = oracle(Q, K, V, causal)
        assert on.max_difference(out, want) <= rounding_bound(V, T)


@settings(max_examples=examples(150), deadline=None)
@given(qkv_and_tile, st.booleans())
def test_tiled_equals_torch_up_to_rounding(data, causal):
    Qh, Kh, Vh, tile = data
    out, steps = on.online_attention(Qh, Kh, Vh, tile, causal=causal)
    want = torch_sdpa(Qh, Kh, Vh, causal)
    assert on.max_difference(out, want) <= rounding_bound(Vh, len(steps))
    assert len(steps) == on.visited_tiles(Qh.shape[0], tile, causal)


@settings(max_examples=examples(150), deadline=None)
@given(qkv_and_tile)
def test_one_row_within_a_few_ulps_of_the_full_softmax(data):
    Qh, Kh, Vh, tile = data
    i = Qh.shape[0] - 1
    out, steps = on.online_row(Qh[i], Kh, Vh, tile)
    diff = on.max_difference(out, on.full_row(Qh[i], Kh, Vh))
    if not np.any(Vh):
        assert diff == 0.0  # averages of zeros are exactly zero
    else:
        assert on.ulps(diff, Vh) <= 4 * len(steps)


@settings(max_examples=examples(150), deadline=None)
@given(qkv_and_tile)
def test_one_tile_holding_every_key_is_the_full_computation_bit_for_bit(data):
    Qh, Kh, Vh, _ = data
    n = Kh.shape[0]
    for tile in (n, n + 1):
        out, steps = on.online_row(Qh[0], Kh, Vh, tile)
        assert len(steps) == 1
        assert np.array_equal(out, on.full_row(Qh[0], Kh, Vh))
        assert (steps[0].m, steps[0].ell) == on.row_normalizer(Qh[0], Kh)
        all_rows, _ = on.online_attention(Qh, Kh, Vh, max(tile, Qh.shape[0]))
        assert np.array_equal(all_rows, on.full_attention(Qh, Kh, Vh))


def test_the_example_row_is_not_exact_with_small_tiles():
    """The honest part: several tiles round differently from one softmax, by a few ulps."""
    diffs = [
        on.max_difference(on.online_row(Q[i], K, V, 3)[0], on.full_row(Q[i], K, V))
        for i in range(T)
    ]
    assert max(diffs) > 0.0
    assert max(on.ulps(d, V) for d in diffs) <= 4 * len(on.tile_bounds(T, 3))


def test_running_state_is_the_prefix_softmax():
    """After tile k, m and ℓ are the max and softmax sum of the keys seen; o is their average."""
    q = Q[7]
    _, steps = on.online_row(q, K, V, 3)
    s = K @ q / np.sqrt(K.shape[1])
    for step in steps:
        stop = step.keys[1]
        assert step.m == np.max(s[:stop])
        m = np.max(s[:stop])
        assert math.isclose(step.ell, np.sum(np.exp(s[:stop] - m)), rel_tol=1e-14)
        np.testing.assert_allclose(step.o, softmax(s[:stop]) @ V[:stop], rtol=0, atol=1e-15)
    assert [st.keys for st in steps] == on.tile_bounds(T, 3)
    m_full, ell_full = on.row_normalizer(q, K)
    assert steps[-1].m == m_full
    assert math.isclose(steps[-1].ell, ell_full, rel_tol=1e-14)


def test_running_max_never_falls():
    for i in range(T):
        _, steps = on.online_row(Q[i], K, V, 2)
        ms = [st.m for st in steps]
        assert ms == sorted(ms)


@pytest.mark.parametrize("position", [0, 4, 11])
@pytest.mark.parametrize("tile", [1, 3, 5])
def test_causal_row_sees_keys_up_to_its_position(position, tile):
    out, steps = on.online_row(Q[position], K, V, tile, causal=True, position=position)
    assert steps[-1].keys[1] == position + 1
    assert len(steps) == len(on.tile_bounds(position + 1, tile))
    want = torch_sdpa(Q, K, V, causal=True)[position]
    assert on.max_difference(out, want) <= rounding_bound(V, len(steps))


def test_causal_skips_the_tiles_above_the_diagonal():
    _, steps = on.online_attention(Q, K, V, 3, causal=True)
    assert all(st.keys[0] <= st.queries[0] for st in steps)
    n = len(on.tile_bounds(T, 3))
    assert len(steps) == n * (n + 1) // 2 == on.visited_tiles(T, 3, causal=True)
    assert on.visited_tiles(T, 3) == n * n


def test_large_scores_do_not_overflow():
    """exp is only ever taken of a score minus a maximum: scores of 1e3 stay finite."""
    q = np.array([100.0, 0.0])
    Kx = np.array([[10.0, 0.0], [30.0, 0.0], [20.0, 0.0], [0.0, 1.0]])
    Vx = np.eye(4)[:, :2]
    out, _ = on.online_row(q, Kx, Vx, 1)
    assert np.all(np.isfinite(out))
    assert on.max_difference(out, torch_sdpa(q[None], Kx, Vx)[0]) <= rounding_bound(Vx, 4)


def test_memory_counts():
    mem = on.memory(4096, 128, 128, 2)
    assert mem.scores == score_matrix_bytes(4096, 2)
    assert mem.tiled == (2 * 4096 + 128 * 128) * 2
    assert mem.output == 4096 * 128 * 2
    assert on.tiled_extra_elements(5, 8) == 2 * 5 + 5 * 5  # a tile never exceeds T x T
    assert on.output_elements(3, 4) == 12


def test_tile_bounds():
    assert on.tile_bounds(7, 3) == [(0, 3), (3, 6), (6, 7)]
    assert on.tile_bounds(3, 5) == [(0, 3)]


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: on.online_row(Q[0], K, V, 0), "tile must be at least 1"),
        (lambda: on.online_row(Q[0], K, V, 2.5), "tile must be an integer"),
        (lambda: on.online_row(Q[0], K[:, :3], V, 2), "both are d_k"),
        (lambda: on.online_row(Q[0], K, V[:5], 2), "one per token"),
        (lambda: on.online_row(Q[0], K, V, 2, causal=True), "needs its position"),
        (lambda: on.online_row(Q[0], K, V, 2, causal=True, position=12), "position must be in"),
        (lambda: on.online_row(Q, K, V, 2), "one query row"),
        (lambda: on.online_attention(Q[:5], K, V, 2, causal=True), "one row per key"),
        (lambda: on.online_attention(Q, K * np.nan, V, 2), "NaN"),
        (lambda: on.ulps(1e-16, np.zeros((2, 2))), "all zeros"),
        (lambda: on.max_difference(Q, K[:3]), "shapes differ"),
    ],
)
def test_bad_calls_say_how_to_fix_them(call, match):
    with pytest.raises(ValueError, match=match):
        call()
