"""Number formatting shared by the prose and the figures, so both print the same digits."""

import math
from collections.abc import Iterable

import numpy as np

# The page's one rule for a float: DECIMALS decimals, in the prose, the figures' readouts and
# what a page's code prints; a magnitude too small or too large for that to read well
# (fewer than two significant digits, or more than eight) prints in scientific notation.
DECIMALS = 4
PLAIN_FROM, PLAIN_BELOW = 1e-3, 1e4  # the magnitudes printed as plain decimals
# numpy's print options for the same rule, so that a printed array shows the prose's digits.
ARRAY_PRINT = {"precision": DECIMALS, "floatmode": "fixed", "suppress": True}


def num(x: float, digits: int = DECIMALS) -> str:
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


def vec(values: Iterable[float], digits: int = DECIMALS) -> str:
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


def magnitude_text(x: float, digits: int = 1) -> str:
    """A magnitude by the page's rule: plain decimals where they read (0.2500, 1.0000),
    scientific notation only for tiny or huge values (9.8e-4, 6.2e-61); exact zero as 0.

    ``digits`` is the mantissa's decimals in scientific notation, as for ``sci``.
    """
    x = float(x)
    if x == 0.0:
        return "0"
    if math.isfinite(x) and not PLAIN_FROM <= abs(x) < PLAIN_BELOW:
        return sci(x, digits)
    return num(x)


def power_of_ten(exponent: float, digits: int = 1, value: float | None = None) -> str:
    """10 ** exponent by the rule of ``magnitude_text``, from the exponent, so that it cannot
    underflow: -0.602 -> ``0.2500``; -60.206 -> ``6.2e-61``; -2048.0 -> ``1.0e-2048``.

    Pass the computed ``value`` too and it is printed exactly when float64 holds it, so that
    a value on a boundary or a tie prints as ``magnitude_text`` prints it.
    """
    if value is not None and float(value) >= np.finfo(np.float64).tiny:
        return magnitude_text(value, digits)
    e = float(exponent)
    if not np.isfinite(e):
        return num(e)
    if math.log10(PLAIN_FROM) <= e < math.log10(PLAIN_BELOW):
        return magnitude_text(10**e, digits)
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


# --- Quantities the prose and a figure's readout both print ------------------------------------
# Each is here, not in its figure, so that a page quotes a number in the figure's own digits
# without importing the figure.

BYTE_UNITS = ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB")


def error_text(x: float) -> str:
    """A symmetry error: '0 (exact)' when it is exactly zero, four decimals otherwise."""
    return "0 (exact)" if x == 0.0 else num(x)


def noise_text(x: float) -> str:
    """A difference: exact zero as 0, rounding noise in scientific notation, else 4 decimals."""
    if x == 0.0:
        return "0"
    return sci(x, 1) if abs(x) < 1e-4 else num(x, 4)


def std_text(x: float) -> str:
    """A standard deviation to about four figures: 7.921, 63.9."""
    return num(x, 3) if x < 10 else num(x, 1)


def peak_text(x: float) -> str:
    """A Jacobian entry as the post prints them: 0.220, 0.022, 0.0063, 3.1e-6, 4.8e-14."""
    if x >= 0.01:
        return num(x, 3)
    if x >= 0.001:
        return num(x, 4)
    return sci(x, 1)


def root_text(x: float) -> str:
    """A square root: whole numbers as integers (8), others to one decimal (27.7)."""
    return integer(round(x)) if float(x).is_integer() else num(x, 1)


def shape_text(shape: tuple[int, ...]) -> str:
    """(2, 6, 4) -> '[2, 6, 4]', as torch prints a size."""
    return "[" + ", ".join(str(s) for s in shape) + "]"


def bytes_text(n_bytes: int) -> str:
    """Bytes in binary units: '2 MiB' when exact, '2.00 TiB' otherwise, '512 bytes' below 1 KiB."""
    k = min(max(0, (int(n_bytes).bit_length() - 1) // 10), len(BYTE_UNITS) - 1)
    whole, rest = divmod(int(n_bytes), 1024**k)
    if rest == 0:
        return f"{integer(whole)} {BYTE_UNITS[k]}"
    return f"{num(n_bytes / 1024**k, 2)} {BYTE_UNITS[k]}"


def seconds_text(seconds: float) -> str:
    """Whole seconds with separators from 100 s up; small times in scientific notation."""
    if seconds >= 100:
        return integer(round(seconds))
    return num(seconds, 2) if seconds >= 0.01 else sci(seconds, 1)


def hours_text(hours: float) -> str:
    """Hours to two decimals (29.07); tiny ones in scientific notation."""
    return num(hours, 2) if hours >= 0.01 else sci(hours, 1)


def decimal_text(x: float, unit: str) -> str:
    """A size or a rate in decimal units, as datasheets print them: ``19 TB/s``, ``12.8 GB/s``,
    ``20 MB``; three significant digits at most, trailing zeros dropped."""
    x = float(f"{float(x):.3g}")  # round first: 999.6 B is 1 kB
    prefixes = ("", "k", "M", "G", "T", "P")
    k = min(max(0, math.floor(math.log10(abs(x)) / 3) if x else 0), len(prefixes) - 1)
    return f"{x / 1000**k:.3g} {prefixes[k]}{unit}"


def duration_text(seconds: float) -> str:
    """A short time in the unit that reads best: ``5.9 µs``, ``61.2 ms``, ``2.35 s``."""
    if seconds < 1e-3:
        return f"{num(seconds * 1e6, 1)} µs"
    return f"{num(seconds * 1e3, 1)} ms" if seconds < 1 else f"{num(seconds, 2)} s"


def ratio_text(ratio: float) -> str:
    """Cards' worth of memory: 25.55; a sliver of one card in scientific notation."""
    return num(ratio, 2) if ratio >= 0.01 else sci(ratio, 1)
