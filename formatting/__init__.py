"""Number formatting shared by the prose and the figures, so both print the same digits."""

import math
from collections.abc import Iterable

import numpy as np


def num(x: float, digits: int = 4) -> str:
    """A float with a fixed number of decimals; non-finite values spelled out."""
    x = float(x)
    if math.isnan(x):  # math, not numpy: a figure formats hundreds of numbers per change
        return "NaN"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if abs(x) >= 1e12:  # fixed point would print up to 309 digits
        return sci(x, 3)
    text = f"{x:.{digits}f}"
    # -0.00001 rounds to "-0.0000" (and -0.1 to "-0" at 0 digits): print zero without a sign
    return text[1:] if text == f"{-0.0:.{digits}f}" else text


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


def power_of_ten(exponent: float, digits: int = 1, value: float | None = None) -> str:
    """10 ** exponent in the style of ``sci``, from the exponent, so it cannot underflow.

    -60.206 -> ``6.2e-61`` (what ``sci(0.25 ** 100)`` prints); -2048.0 -> ``1.0e-2048``.
    Pass the computed ``value`` too and it is printed exactly when float64 holds it, so a
    tie such as 0.125 rounds as ``sci`` rounds it.
    """
    if value is not None and float(value) >= np.finfo(np.float64).tiny:
        return sci(value, digits)
    e = float(exponent)
    if not np.isfinite(e):
        return num(e)
    k = int(np.floor(e))
    mantissa = f"{10 ** (e - k):.{digits}f}"
    if float(mantissa) >= 10.0:  # 9.96 rounds up to 10.0: carry into the exponent
        k += 1
        mantissa = f"{10 ** (e - k):.{digits}f}"
    return f"{mantissa}e{'+' if k >= 0 else '-'}{abs(k)}"


def words(names: Iterable[str]) -> str:
    """Names joined for prose: ``journey and starts``, ``Your, journey and starts``."""
    names = list(names)
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]
