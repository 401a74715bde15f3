"""Input validation shared by the core: bad input raises ValueError, never a silent NaN."""

import numbers

import numpy as np


def check_array(a, name: str, ndim: int | tuple[int, ...], finite: bool = True) -> np.ndarray:
    """Return ``a`` as float64 after checking its rank, size and (optionally) finiteness."""
    allowed = (ndim,) if isinstance(ndim, int) else ndim
    try:
        arr = np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name} must be a numeric array: {err}") from err
    if arr.ndim not in allowed:
        want = " or ".join(f"{n}-D" for n in allowed)
        raise ValueError(f"{name} must be {want}, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty, got shape {arr.shape}")
    if finite and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinity")
    return arr


def check_matrix(X, name: str = "X") -> np.ndarray:
    """A finite, non-empty 2-D float64 array. (T, d) -> (T, d)"""
    return check_array(X, name, 2)


def check_vector(x, name: str = "x") -> np.ndarray:
    """A finite, non-empty 1-D float64 array. (d,) -> (d,)"""
    return check_array(x, name, 1)


def check_square(M, name: str = "M") -> np.ndarray:
    """A finite, non-empty square float64 matrix. (T, T) -> (T, T)"""
    M = check_matrix(M, name)
    if M.shape[0] != M.shape[1]:
        raise ValueError(f"{name} must be square, got shape {M.shape}")
    return M


def check_positive_int(n, name: str) -> int:
    """An integer >= 1 (bools and floats are rejected, so 2.5 layers cannot slip through)."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {n!r}")
    if n < 1:
        raise ValueError(f"{name} must be at least 1, got {n}")
    return int(n)


def check_index(i, size: int, name: str = "i") -> int:
    """A row index in [0, size): negative indices are refused rather than wrapped."""
    if isinstance(i, bool) or not isinstance(i, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {i!r}")
    if not 0 <= i < size:
        raise ValueError(f"{name} must be in [0, {size}), got {i}")
    return int(i)


def check_probability(p, name: str = "p") -> float:
    """A finite number in [0, 1]."""
    if isinstance(p, bool) or not isinstance(p, numbers.Real):
        raise ValueError(f"{name} must be a number, got {p!r}")
    p = float(p)
    if not 0.0 <= p <= 1.0:  # also false for NaN
        raise ValueError(f"{name} must be in [0, 1], got {p}")
    return p


def refuse_overflow(result: np.ndarray, what: str, culprit: str = "the inputs") -> np.ndarray:
    """``result`` unchanged if finite; a ValueError naming ``what`` overflowed if not.

    Finite operands can still give inf (or inf - inf = NaN) once a sum or product passes
    1.8e308; numpy would warn and pass it on, so the core computes such results under
    ``np.errstate`` and reports them here instead.
    """
    if not np.all(np.isfinite(result)):
        raise ValueError(f"{what} overflowed float64; {culprit} are too large")
    return result


def checked_matmul(
    a: np.ndarray, b: np.ndarray, what: str, culprit: str = "the inputs"
) -> np.ndarray:
    """a @ b, refusing a result that overflowed float64. (..., m, k), (..., k, n) -> (..., m, n)"""
    with np.errstate(over="ignore", invalid="ignore"):
        product = a @ b
    return refuse_overflow(product, what, culprit)
