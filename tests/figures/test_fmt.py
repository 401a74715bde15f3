"""The number formats the prose and the figures share."""

import math

import numpy as np
import pytest

from figures.fmt import integer, num, percent, sci, vec


@pytest.mark.parametrize(
    ("x", "digits", "text"),
    [
        (0.44186, 4, "0.4419"),
        (2, 2, "2.00"),
        (np.float64(-1.5), 1, "-1.5"),
        (-0.00001, 4, "0.0000"),  # no negative zero
        (math.nan, 4, "NaN"),
        (np.nan, 2, "NaN"),
        (math.inf, 4, "∞"),
        (-np.inf, 4, "−∞"),
    ],
)
def test_num(x, digits, text):
    assert num(x, digits) == text


def test_the_other_formats():
    assert vec(np.array([0.4419, 0.6515, 0.5683])) == "[0.4419, 0.6515, 0.5683]"
    assert integer(805306368) == "805,306,368"
    assert sci(4.8e-14) == "4.8e-14"
    assert percent(0.073) == "7.3%"
