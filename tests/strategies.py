"""Hypothesis strategies named by the shape they draw: T tokens, d features, B batch, O outputs.

Elements are bounded so that dot products stay far from overflow; tests that probe extreme
values build their own inputs. ``examples`` sizes a property test for the tier it runs in.
"""

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

MAX_T = 8
MAX_D = 6
# Set by tests/conftest.py in the fast tier (``./dev test --fast``), before any test module is
# imported, so that the decorators below it read it.
FAST = False


def examples(n: int) -> int:
    """A property test's example count: ``n`` in the whole suite, a fifth of it (at least 10)
    in the fast tier, which is for the edit loop; CI runs every example."""
    return max(10, n // 5) if FAST else n


def ndarrays_of_shape(shape, lo: float = -2.0, hi: float = 2.0) -> st.SearchStrategy:
    """float64 arrays of a fixed ``shape`` with finite elements in [lo, hi]."""
    elements = st.floats(lo, hi, allow_nan=False, allow_infinity=False, width=64)
    return hnp.arrays(np.float64, shape, elements=elements)


def sizes(lo: int = 1, hi: int = MAX_T) -> st.SearchStrategy:
    """An axis length in [lo, hi]."""
    return st.integers(lo, hi)


@st.composite
def arrays_T(draw, min_T=1, max_T=MAX_T, lo=-2.0, hi=2.0) -> np.ndarray:
    """(T,): one row of scores or weights."""
    return draw(ndarrays_of_shape((draw(sizes(min_T, max_T)),), lo, hi))


@st.composite
def arrays_TD(draw, min_T=1, max_T=MAX_T, min_d=1, max_d=MAX_D, lo=-2.0, hi=2.0) -> np.ndarray:
    """(T, d): token embeddings."""
    shape = (draw(sizes(min_T, max_T)), draw(sizes(min_d, max_d)))
    return draw(ndarrays_of_shape(shape, lo, hi))


@st.composite
def arrays_TT(draw, min_T=1, max_T=MAX_T, lo=-2.0, hi=2.0) -> np.ndarray:
    """(T, T): a square score matrix."""
    T = draw(sizes(min_T, max_T))
    return draw(ndarrays_of_shape((T, T), lo, hi))


@st.composite
def arrays_BTD(draw, max_B=3, min_T=1, max_T=MAX_T, min_d=1, max_d=MAX_D, lo=-2.0, hi=2.0):
    """(B, T, d): a batch of embeddings."""
    shape = (draw(sizes(1, max_B)), draw(sizes(min_T, max_T)), draw(sizes(min_d, max_d)))
    return draw(ndarrays_of_shape(shape, lo, hi))


@st.composite
def arrays_DO(draw, min_d=1, max_d=MAX_D, min_O=1, max_O=MAX_D, lo=-1.0, hi=1.0):
    """(d_in, d_out): a projection matrix."""
    shape = (draw(sizes(min_d, max_d)), draw(sizes(min_O, max_O)))
    return draw(ndarrays_of_shape(shape, lo, hi))


@st.composite
def arrays_TD_and_perm(draw, min_T=1, max_T=MAX_T, min_d=1, max_d=MAX_D):
    """(T, d) embeddings with a permutation of their T rows."""
    X = draw(arrays_TD(min_T=min_T, max_T=max_T, min_d=min_d, max_d=max_d))
    perm = np.array(draw(st.permutations(range(X.shape[0]))), dtype=np.intp)
    return X, perm


def qkv_and(extra, max_T: int = 10, max_d: int = 5) -> st.SearchStrategy:
    """(Q, K, V, x): three (T, d) arrays of entries in [-3, 3] and ``extra(T, d)``'s draw
    (a tile size, an on-chip memory)."""
    return sizes(1, max_T).flatmap(
        lambda T: sizes(1, max_d).flatmap(
            lambda d: st.tuples(
                *(ndarrays_of_shape((T, d), -3.0, 3.0) for _ in range(3)), extra(T, d)
            )
        )
    )
