"""The number formats the prose and the figures share."""

import math

import numpy as np
import pytest

from formatting import (
    ARRAY_PRINT,
    DECIMALS,
    bytes_text,
    decimal_text,
    duration_text,
    integer,
    magnitude_text,
    num,
    peak_text,
    percent,
    power_of_ten,
    sci,
    seconds_text,
    vec,
    words,
)


@pytest.mark.parametrize(
    ("x", "digits", "text"),
    [
        (0.44186, 4, "0.4419"),
        (2, 2, "2.00"),
        (np.float64(-1.5), 1, "-1.5"),
        (-0.00001, 4, "0.0000"),  # no negative zero
        (-0.1, 0, "0"),
        (-0.6, 0, "-1"),
        (math.nan, 4, "NaN"),
        (np.nan, 2, "NaN"),
        (math.inf, 4, "∞"),
        (-np.inf, 4, "−∞"),
        (5.5e200, 4, "5.500e+200"),  # not 201 digits of fixed point
        (-1e12, 4, "-1.000e+12"),
        (999_999_999_999.0, 1, "999999999999.0"),
    ],
)
def test_num(x, digits, text):
    assert num(x, digits) == text


@pytest.mark.parametrize("digits", [0, 1, 2, 3, 4, 6])
@pytest.mark.parametrize("share", [0.0, 1e-9, 0.1, 0.49])
def test_num_never_prints_negative_zero(share, digits):
    # -share of the last printed digit rounds to zero, whatever the number of digits
    x = -share * 10.0**-digits
    assert num(x, digits) == f"{0.0:.{digits}f}"


def test_the_other_formats():
    assert vec(np.array([0.4419, 0.6515, 0.5683])) == "[0.4419, 0.6515, 0.5683]"
    assert integer(805306368) == "805,306,368"
    assert sci(4.8e-14) == "4.8e-14"
    assert percent(0.073) == "7.3%"


def test_words_joins_names_as_prose():
    assert words(["starts"]) == "starts"
    assert words(["journey", "starts"]) == "journey and starts"
    assert words(iter(["Your", "journey", "starts"])) == "Your, journey and starts"


def test_bytes_and_seconds():
    assert bytes_text(2) == "2 bytes"
    assert bytes_text(2 * 2**20) == "2 MiB"
    assert bytes_text(2_194_830_951_552) == "2.00 TiB"
    assert seconds_text(104_657.7) == "104,658"
    assert seconds_text(0.1) == "0.10"
    assert seconds_text(9.5e-8) == "9.5e-8"


def test_peak_text_prints_like_the_post():
    assert [peak_text(x) for x in (0.2204, 0.0221, 0.00634, 3.1e-6, 4.8e-14)] == [
        "0.220",
        "0.022",
        "0.0063",
        "3.1e-6",
        "4.8e-14",
    ]


# --- the page's one rule for magnitudes, at its boundaries ------------------------------------


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (0.25, "0.2500"),
        (1.0, "1.0000"),
        (-0.5, "-0.5000"),
        (1e-3, "0.0010"),  # the smallest plain magnitude keeps two significant digits
        (9.8e-4, "9.8e-4"),  # one below it would print 0.0010 and hide a digit
        (-9.8e-4, "-9.8e-4"),
        (9999.0, "9999.0000"),  # the largest plain ones print eight significant digits
        (1e4, "1.0e+4"),
        (6.2e-61, "6.2e-61"),
        (0.0, "0"),  # exact zero needs no exponent
        (math.inf, "∞"),
        (math.nan, "NaN"),
    ],
)
def test_magnitude_text_boundaries(x, text):
    assert magnitude_text(x) == text


@pytest.mark.parametrize("x", [1e-3, 0.0123, 0.25, 0.9, 1.0, 42.5, 9999.0])
def test_ordinary_magnitudes_print_as_the_prose_prints(x):
    assert magnitude_text(x) == num(x) and "e" not in magnitude_text(x)


@pytest.mark.parametrize(("exponent", "text"), [(math.log10(0.25), "0.2500"), (0.0, "1.0000")])
def test_power_of_ten_follows_the_rule_from_the_exponent(exponent, text):
    assert power_of_ten(exponent) == text
    assert power_of_ten(exponent, value=10**exponent) == text


def test_numpy_prints_arrays_by_the_same_rule():
    a = np.array([0.9544, 1.495, 1.0, 0.074, 1e-17])
    with np.printoptions(**ARRAY_PRINT):
        printed = str(a)
    assert printed == "[" + " ".join(num(v) for v in a) + "]"
    assert ARRAY_PRINT["precision"] == DECIMALS


@pytest.mark.parametrize(
    "x, unit, text",
    [
        (19e12, "B/s", "19 TB/s"),
        (1.5e12, "B/s", "1.5 TB/s"),
        (12.8e9, "B/s", "12.8 GB/s"),
        (20e6, "B", "20 MB"),
        (999.6, "B", "1 kB"),  # rounded before the prefix is picked
        (123_456, "B", "123 kB"),
        (512, "B", "512 B"),
    ],
)
def test_decimal_text_prints_a_datasheets_units(x, unit, text):
    assert decimal_text(x, unit) == text


@pytest.mark.parametrize(
    "seconds, text", [(5.94e-6, "5.9 µs"), (0.0612, "61.2 ms"), (2.349, "2.35 s"), (1e-3, "1.0 ms")]
)
def test_duration_text_picks_the_unit_that_reads_best(seconds, text):
    assert duration_text(seconds) == text
