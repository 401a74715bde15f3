"""Why FlashAttention is fast: the numbers attention moves through a GPU's main memory (post 3).

A GPU computes only on numbers held on the chip, in a small, fast SRAM; everything else lives
in its large, slower high-bandwidth memory (HBM) and must be read in and written back out.
Dao et al. 2022 (FlashAttention, arXiv:2205.14135) give the A100's figures (Figure 1; section
2.1: 192 KB of SRAM on each of 108 streaming multiprocessors) and count, for one head's forward
pass, what two ways of computing attention move between the two (their Theorem 2 gives the
orders, Θ(Td + T^2) against Θ(T^2 d^2 / M)). This module counts the numbers exactly, for the
two algorithms as the paper writes them, and runs both with every load and store counted, so
the tests can check the counts against a run:

    Algorithm 0, standard: S = QK^T written to HBM; S read, P = softmax(S) written; P and V
    read, O = PV written.
        reads  Q, K, S, P, V   = 2T^2 + 3Td
        writes S, P, O         = 2T^2 + Td

    Algorithm 1, FlashAttention, with an SRAM of M numbers: blocks of B_c = ceil(M / 4d) keys
    and B_r = min(B_c, d) queries, so that a block of each of Q, K, V and O fits at once.
    O, ℓ, m are set in HBM (Td + 2T); each of the T_c = ceil(T / B_c) key blocks is read once
    (K, V: 2Td in all) and, for it, every query block's Q, O, ℓ, m are read (2Td + 2T) and
    O, ℓ, m written back (Td + 2T):
        reads  K, V once, then Q, O, ℓ, m per key block    = 2Td + T_c (2Td + 2T)
        writes O, ℓ, m at the start, then per key block     = Td + 2T + T_c (Td + 2T)

The scores are divided by sqrt(d) as everywhere in this series (the paper's Algorithm 1 leaves
the scale out; its Algorithm 2 has it). Shapes: Q, K, V (T, d).

    from attention.hbm import flash_traffic, standard_traffic
    standard_traffic(1024, 64).total  # 4,456,448 numbers, 4T^2 + 4Td
    flash_traffic(1024, 64, 98_304).total  # 800,768: three passes over Q and O
"""

import math
from collections import Counter
from typing import NamedTuple

import numpy as np

from attention._checks import check_matrix, check_positive_int
from attention.basics import softmax
from attention.online import fold_tile, tile_bounds, tile_scores


class Level(NamedTuple):
    """One level of memory: bandwidth in bytes a second, size in bytes (at least, if
    ``more``)."""

    name: str
    bandwidth: float
    size: float
    more: bool = False


# The memory hierarchy of the paper's Figure 1 (an A100), fastest first.
HIERARCHY = (
    Level("SRAM", 19e12, 20e6),  # on the chip
    Level("HBM", 1.5e12, 40e9),  # the GPU's own memory
    Level("CPU DRAM", 12.8e9, 1e12, more=True),  # the host's: "> 1 TB"
)
HBM_BANDWIDTH = HIERARCHY[1].bandwidth
# Section 2.1: 192 KB of SRAM on each of the A100's 108 streaming multiprocessors.
SM_SRAM_BYTES = 192 * 1024
SM_COUNT = 108
# The paper's example lengths (section 2.2: "for GPT2, N = 1024 and d = 64").
EXAMPLE_T = 1024
EXAMPLE_D = 64
BYTES_PER_NUMBER = 2  # 16-bit numbers, as the paper's kernels use
# Figure 2 (left), measured on an A100: GPT-2 medium's attention, forward and backward,
# standard against FlashAttention, at these sizes.
MEASURED_SIZES = {"length": 1024, "head width": 64, "heads": 16, "batch": 64}
MEASURED = {
    "GFLOPs": (66.6, 75.2),
    "HBM reads and writes, GB": (40.3, 4.4),
    "runtime, ms": (41.7, 7.3),
}


class Traffic(NamedTuple):
    """Numbers read from HBM and written to it, by matrix ("Q", "K", "S", "ell", ...)."""

    reads: dict[str, int]
    writes: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.reads.values()) + sum(self.writes.values())


def sram_numbers(sram_bytes: int, bytes_per_number: int = BYTES_PER_NUMBER) -> int:
    """How many numbers an SRAM of ``sram_bytes`` holds: M in the paper. -> int"""
    sram_bytes = check_positive_int(sram_bytes, "sram_bytes")
    return sram_bytes // check_positive_int(bytes_per_number, "bytes_per_number")


def block_sizes(d: int, M: int) -> tuple[int, int]:
    """Algorithm 1's blocks for head width d and an SRAM of M numbers. -> (B_r, B_c)

    B_c = ceil(M / 4d) keys and B_r = min(B_c, d) queries: a block each of Q, K, V and O.
    """
    d, M = check_positive_int(d, "d"), check_positive_int(M, "M")
    if M < 4 * d:
        raise ValueError(
            f"an SRAM of {M} numbers cannot hold one row each of Q, K, V and O at d = {d}; "
            f"give it at least 4d = {4 * d} numbers"
        )
    B_c = math.ceil(M / (4 * d))
    return min(B_c, d), B_c


def key_blocks(T: int, d: int, M: int) -> int:
    """T_c, the number of key blocks, and so of passes Algorithm 1 makes over Q and O."""
    return math.ceil(check_positive_int(T, "T") / block_sizes(d, M)[1])


def standard_traffic(T: int, d: int) -> Traffic:
    """Algorithm 0's reads and writes for one head of T tokens and width d: 4T^2 + 4Td."""
    T, d = check_positive_int(T, "T"), check_positive_int(d, "d")
    return Traffic(
        reads={"Q": T * d, "K": T * d, "S": T * T, "P": T * T, "V": T * d},
        writes={"S": T * T, "P": T * T, "O": T * d},
    )


def flash_traffic(T: int, d: int, M: int) -> Traffic:
    """Algorithm 1's reads and writes for one head, with an SRAM of M numbers."""
    T_c = key_blocks(T, d, M)
    return Traffic(
        reads={"K": T * d, "V": T * d, "Q": T_c * T * d, "O": T_c * T * d}
        | {"ell": T_c * T, "m": T_c * T},
        writes={"O": (1 + T_c) * T * d, "ell": (1 + T_c) * T, "m": (1 + T_c) * T},
    )


def flash_once(T: int, d: int) -> int:
    """What Algorithm 1 moves once, whatever the passes: K and V read, and O, ℓ and m set to
    their starting values (its line 2), 3Td + 2T. The rest of ``flash_traffic`` is
    ``flash_per_pass`` for each of the T_c passes."""
    return 3 * check_positive_int(T, "T") * check_positive_int(d, "d") + 2 * T


def flash_per_pass(T: int, d: int) -> int:
    """What one pass over the queries moves: Q, O, ℓ and m read, and O, ℓ and m written back,
    3Td + 4T."""
    return 3 * check_positive_int(T, "T") * check_positive_int(d, "d") + 4 * T


def long_ratio(d: int, M: int) -> float:
    """What standard ÷ FlashAttention traffic tends to as T grows: 4T^2 against
    T_c (3Td + 4T) with T_c -> T / B_c, so 4 B_c / (3d + 4), about M / 3d^2 (Theorem 2's
    orders: the saving needs d^2 many times smaller than M)."""
    return 4 * block_sizes(d, M)[1] / (3 * d + 4)


def score_traffic(T: int) -> int:
    """What Algorithm 0 moves because of S and P alone: each written once and read once."""
    return 4 * check_positive_int(T, "T") ** 2


def seconds(numbers: int, bytes_per_number: int = BYTES_PER_NUMBER) -> float:
    """The least time moving ``numbers`` through HBM takes at Figure 1's bandwidth. -> s"""
    return numbers * bytes_per_number / HBM_BANDWIDTH


class HBM:
    """Matrices in the GPU's main memory that count every number loaded from them or stored
    to them: what a kernel moves between HBM and the chip."""

    def __init__(self, **matrices: np.ndarray):
        self.matrices = {name: np.array(a, dtype=float) for name, a in matrices.items()}
        self.reads: Counter[str] = Counter()
        self.writes: Counter[str] = Counter()

    def load(self, name: str, rows: slice = slice(None)) -> np.ndarray:
        part = self.matrices[name][rows]
        self.reads[name] += part.size
        return part.copy()

    def store(self, name: str, value: np.ndarray, rows: slice = slice(None)) -> None:
        value = np.asarray(value, dtype=float)
        if name not in self.matrices:
            self.matrices[name] = np.empty_like(value)
        self.matrices[name][rows] = value
        self.writes[name] += value.size

    def traffic(self) -> Traffic:
        return Traffic(dict(self.reads), dict(self.writes))


def _check_qkv(Q, K, V) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    Q, K, V = check_matrix(Q, "Q"), check_matrix(K, "K"), check_matrix(V, "V")
    if not Q.shape == K.shape == V.shape:
        raise ValueError(
            f"Q, K and V must have one shape (T, d), as in the paper; got {Q.shape}, "
            f"{K.shape} and {V.shape}"
        )
    return Q, K, V


def standard_attention(Q, K, V) -> tuple[np.ndarray, Traffic]:
    """Algorithm 0, run with its HBM traffic counted. Q, K, V: (T, d) -> O (T, d), traffic"""
    hbm = HBM(**dict(zip("QKV", _check_qkv(Q, K, V), strict=True)))
    hbm.store("S", tile_scores(hbm.load("Q"), hbm.load("K")))
    hbm.store("P", softmax(hbm.load("S")))
    hbm.store("O", hbm.load("P") @ hbm.load("V"))
    return hbm.matrices["O"], hbm.traffic()


def flash_attention(Q, K, V, M: int) -> tuple[np.ndarray, Traffic]:
    """Algorithm 1 with an SRAM of M numbers, run with its HBM traffic counted.

    Q, K, V: (T, d) -> O (T, d), traffic. The outer loop runs over key blocks, the inner over
    query blocks, as the paper's does; each inner step folds one block of scores into that
    query block's running m, ℓ and O (``attention.online.fold_tile``).
    """
    Q, K, V = _check_qkv(Q, K, V)
    (T, d), (B_r, B_c) = Q.shape, block_sizes(Q.shape[1], M)
    hbm = HBM(Q=Q, K=K, V=V)
    hbm.store("O", np.zeros((T, d)))
    hbm.store("ell", np.zeros(T))
    hbm.store("m", np.full(T, -np.inf))
    for a, b in tile_bounds(T, B_c):
        K_j, V_j = hbm.load("K", slice(a, b)), hbm.load("V", slice(a, b))
        for r0, r1 in tile_bounds(T, B_r):
            rows = slice(r0, r1)
            Q_i, O_i = hbm.load("Q", rows), hbm.load("O", rows)
            ell_i, m_i = hbm.load("ell", rows), hbm.load("m", rows)
            m_i, ell_i, O_i = fold_tile(m_i, ell_i, O_i, tile_scores(Q_i, K_j), V_j)
            hbm.store("O", O_i, rows)
            hbm.store("ell", ell_i, rows)
            hbm.store("m", m_i, rows)
    return hbm.matrices["O"], hbm.traffic()
