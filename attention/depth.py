"""How far a gradient walks back along the sequence: recurrence against attention.

Backpropagation through time unrolls a recurrent network once per step, so a gradient from the
last position to the first crosses ``layers * T`` layers; attention reaches any position in one
hop per layer. Each crossing multiplies the gradient by a derivative, and a sigmoid's is at most
1/4, which is why the recurrent walk decays like ``factor ** T``.
"""

import math
import numbers

import numpy as np

from attention._checks import check_positive_int

# Post 1's worked example, where the depth figure starts: five layers over a hundred tokens.
EXAMPLE_T, EXAMPLE_LAYERS = 100, 5


def recurrent_depth(layers: int, T: int) -> int:
    """Layers a gradient crosses from the last step back to the first when unrolled in time."""
    return check_positive_int(layers, "layers") * check_positive_int(T, "T")


def attention_depth(layers: int) -> int:
    """The same walk through attention: one hop per layer, whatever the sequence length."""
    return check_positive_int(layers, "layers")


def sigmoid_slope(x: np.ndarray | float) -> np.ndarray | float:
    """The sigmoid's derivative s(x) (1 - s(x)), largest (1/4) at x = 0. (...) -> (...)"""
    s = 0.5 * (1.0 + np.tanh(0.5 * np.asarray(x, dtype=np.float64)))  # overflow-free sigmoid
    slope = s * (1.0 - s)
    return float(slope) if np.ndim(slope) == 0 else slope


def _check_lengths(T) -> np.ndarray:
    """T as a float64 array of sequence lengths, each an integer >= 1."""
    lengths = np.asarray(T)
    python_int = isinstance(T, numbers.Integral) and not isinstance(T, bool)  # may exceed int64
    int_array = lengths.dtype != bool and np.issubdtype(lengths.dtype, np.integer)
    if not (python_int or int_array):
        raise ValueError(f"T must be an integer or an array of integers, got {T!r}")
    if np.any(lengths < 1):
        raise ValueError("every sequence length T must be at least 1")
    return lengths.astype(np.float64)


def _check_factor(factor) -> float:
    """A per-step shrink factor in (0, 1]: the decay this module models, never a growth.

    Above 1, factor ** T overflows to inf for long sequences (2 ** 2000), which the core
    refuses to return.
    """
    if isinstance(factor, bool) or not isinstance(factor, numbers.Real):
        raise ValueError(f"factor must be a number, got {factor!r}")
    factor = float(factor)
    if not 0.0 < factor <= 1.0:  # also false for NaN
        raise ValueError(f"factor must be in (0, 1], a per-step shrink, got {factor}")
    return factor


def decay(factor: float, T: int | np.ndarray) -> float | np.ndarray:
    """A per-step factor in (0, 1] compounded over T steps: factor ** T. T: () or (n,) -> () or (n,)

    Underflows to 0.0 for long sequences and small factors; plot ``log10_decay`` instead.
    """
    factor = _check_factor(factor)
    lengths = _check_lengths(T)
    result = factor**lengths
    return float(result) if result.ndim == 0 else result


def log10_decay(factor: float, T: int | np.ndarray) -> float | np.ndarray:
    """log10(factor ** T) = T log10(factor) <= 0, finite for any T. T: () or (n,) -> () or (n,)"""
    factor = _check_factor(factor)
    lengths = _check_lengths(T)
    result = lengths * math.log10(factor)
    return float(result) if result.ndim == 0 else result
