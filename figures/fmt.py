"""Number formatting shared by the prose and the figures, so both print the same digits."""

from collections.abc import Iterable

import numpy as np


def num(x: float, digits: int = 4) -> str:
    """A float with a fixed number of decimals; non-finite values spelled out."""
    x = float(x)
    if np.isnan(x):
        return "NaN"
    if np.isinf(x):
        return "∞" if x > 0 else "−∞"
    text = f"{x:.{digits}f}"
    return "0." + "0" * digits if text == "-0." + "0" * digits else text


def vec(values: Iterable[float], digits: int = 4) -> str:
    """A vector as the book prints it: ``[0.4419, 0.6515, 0.5683]``."""
    return "[" + ", ".join(num(v, digits) for v in values) + "]"


def integer(n: int) -> str:
    """An exact integer with thousands separators: ``805,306,368``."""
    return f"{int(n):,}"


def sci(x: float, digits: int = 1) -> str:
    """Scientific notation for tiny or huge values: ``4.8e-14``."""
    return f"{float(x):.{digits}e}".replace("e-0", "e-").replace("e+0", "e+")


def percent(x: float, digits: int = 1) -> str:
    """A fraction as a percentage: 0.073 -> ``7.3%``."""
    return f"{100 * float(x):.{digits}f}%"
