"""hbm: the numbers attention moves through a GPU's main memory (post 3), counted two ways.

The closed forms are checked against a run of each algorithm that counts every load and store,
the run's output against PyTorch's attention, and the constants against the FlashAttention
paper (Dao et al. 2022: Figure 1, section 2.1, Algorithm 1, Theorem 2).
"""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from attention import hbm
from tests.strategies import examples, qkv_and


def torch_attention(Q, K, V) -> np.ndarray:
    q, k, v = (torch.tensor(a, dtype=torch.float64) for a in (Q, K, V))
    with torch.no_grad():
        return F.scaled_dot_product_attention(q, k, v).numpy()


# T tokens of width d, and an SRAM of M numbers, from the smallest Algorithm 1 accepts (4d)
# to more than all of Q, K, V and O: every block size, ragged last blocks included.
runs = qkv_and(lambda T, d: st.integers(4 * d, 4 * d * (T + 2)), max_T=12, max_d=4)


@settings(max_examples=examples(150), deadline=None)
@given(runs)
def test_each_run_moves_what_the_closed_forms_count_and_computes_attention(data):
    Q, K, V, M = data
    T, d = Q.shape
    want = torch_attention(Q, K, V)
    out, traffic = hbm.standard_attention(Q, K, V)
    assert traffic == hbm.standard_traffic(T, d)
    np.testing.assert_allclose(out, want, rtol=0, atol=1e-12)
    out, traffic = hbm.flash_attention(Q, K, V, M)
    assert traffic == hbm.flash_traffic(T, d, M)
    np.testing.assert_allclose(out, want, rtol=0, atol=1e-12)


def test_the_totals_are_the_modules_formulas():
    T, d, M = 1000, 64, 98_304
    B_c = math.ceil(M / (4 * d))
    T_c = math.ceil(T / B_c)
    assert hbm.standard_traffic(T, d).total == 4 * T * T + 4 * T * d
    assert hbm.flash_traffic(T, d, M).total == 3 * T * d + 2 * T + T_c * (3 * T * d + 4 * T)
    assert hbm.flash_once(T, d) + T_c * hbm.flash_per_pass(T, d) == hbm.flash_traffic(T, d, M).total
    assert hbm.flash_once(T, d) == 2 * T * d + T * d + 2 * T  # K, V read; O, ℓ, m set
    assert hbm.score_traffic(T) == 4 * T * T


@pytest.mark.parametrize("d, M", [(64, 98_304), (128, 98_304), (256, 8192)])
def test_the_long_ratio_is_where_the_counts_go(d, M):
    T = 2**24
    ratio = hbm.standard_traffic(T, d).total / hbm.flash_traffic(T, d, M).total
    assert ratio == pytest.approx(hbm.long_ratio(d, M), rel=2e-3)
    assert hbm.long_ratio(d, M) == pytest.approx(M / (3 * d * d), rel=0.1)


def test_block_sizes_are_algorithm_ones():
    assert hbm.block_sizes(64, 98_304) == (64, 384)  # B_r = min(B_c, d)
    assert hbm.block_sizes(128, 98_304) == (128, 192)
    assert hbm.block_sizes(64, 1000) == (4, 4)  # ceil(1000 / 256) = 4 < d
    assert hbm.key_blocks(1024, 64, 98_304) == 3


def test_the_paper_example_and_its_orders():
    """The docstring's example, and Theorem 2's orders: standard grows with T^2, FlashAttention
    with T^2 d^2 / M, so doubling M about halves the passes."""
    T, d = hbm.EXAMPLE_T, hbm.EXAMPLE_D
    assert (T, d) == (1024, 64)  # section 2.2: "for GPT2, N = 1024 and d = 64"
    M = hbm.sram_numbers(hbm.SM_SRAM_BYTES)
    assert M == 98_304
    assert hbm.standard_traffic(T, d).total == 4_456_448
    assert hbm.flash_traffic(T, d, M).total == 800_768
    long = 2**17
    ratio = hbm.flash_traffic(long, d, M // 2).total / hbm.flash_traffic(long, d, M).total
    assert 1.9 < ratio < 2.1
    quad = hbm.standard_traffic(2 * long, d).total / hbm.standard_traffic(long, d).total
    assert 3.9 < quad < 4.0


def test_the_constants_are_the_papers():
    levels = hbm.HIERARCHY
    assert [level.bandwidth for level in levels] == [19e12, 1.5e12, 12.8e9]  # Figure 1
    assert [level.size for level in levels] == [20e6, 40e9, 1e12]
    assert [level.more for level in levels] == [False, False, True]  # "> 1 TB"
    assert levels[1].name == "HBM" and hbm.HBM_BANDWIDTH == 1.5e12
    # Section 2.1: 192 KB on each of 108 SMs, which is Figure 1's "20 MB" of SRAM.
    assert hbm.SM_COUNT * hbm.SM_SRAM_BYTES == pytest.approx(20e6, rel=0.07)
    assert hbm.MEASURED["HBM reads and writes, GB"] == (40.3, 4.4)  # Figure 2, left
    assert hbm.MEASURED["GFLOPs"] == (66.6, 75.2) and hbm.MEASURED["runtime, ms"] == (41.7, 7.3)
    assert list(hbm.MEASURED_SIZES.values()) == [1024, 64, 16, 64]
    assert hbm.seconds(750_000_000) == 1e-3  # 1.5 GB at 1.5 TB/s


@pytest.mark.parametrize(
    "call, fix",
    [
        (lambda: hbm.block_sizes(64, 255), "at least 4d = 256"),
        (lambda: hbm.flash_traffic(0, 64, 1000), "T"),
        (lambda: hbm.standard_attention(np.ones((3, 2)), np.ones((3, 2)), np.ones((4, 2))), "T, d"),
        (lambda: hbm.sram_numbers(-1), "sram_bytes"),
    ],
)
def test_a_wrong_call_says_how_to_fix_it(call, fix):
    with pytest.raises(ValueError, match=fix):
        call()
