"""attention.depth against post 1 section 01 ('One vector, and everything after it')."""

import numpy as np
import pytest

from attention.depth import (
    attention_depth,
    decay,
    log10_decay,
    recurrent_depth,
    sigmoid_slope,
)


def test_two_layers_ten_inputs():
    """Section 01: 'a two-layer network a sequence of ten inputs ... through 20 layers'."""
    assert recurrent_depth(2, 10) == 20


def test_five_layers_hundred_tokens():
    """Section 01: 'a five-layer network on a hundred-token sequence ... goes through 500' and
    'At five layers and a hundred steps the comparison is 500 against 5'."""
    assert recurrent_depth(5, 100) == 500
    assert attention_depth(5) == 5
    assert isinstance(recurrent_depth(5, 100), int) and isinstance(attention_depth(5), int)


def test_recurrent_depth_is_a_line_in_T_and_attention_is_flat():
    """Section 01: 'The recurrent depth is a straight line in T ... The attention depth is flat'."""
    depths = [recurrent_depth(3, T) for T in range(1, 50)]
    assert np.all(np.diff(depths) == 3)
    assert recurrent_depth(3, 1) == attention_depth(3)


def test_exact_for_huge_inputs():
    """Exact integers, not floats, even past 2**53."""
    assert recurrent_depth(2**40, 2**40 + 1) == 2**80 + 2**40


def test_sigmoid_slope_is_at_most_a_quarter():
    """Section 01: 'for a sigmoid that factor is at most 0.25'."""
    assert sigmoid_slope(0.0) == 0.25
    x = np.linspace(-50, 50, 100_001)
    slopes = sigmoid_slope(x)
    assert slopes.shape == x.shape
    assert np.max(slopes) == 0.25 and np.all(slopes >= 0) and np.all(slopes <= 0.25)
    assert np.isfinite(sigmoid_slope(1e308)) and sigmoid_slope(-1e308) == 0.0


def test_decay_is_factor_to_the_T():
    """Section 01: 'a number you set raised to the power of the sequence length'."""
    assert decay(0.25, 1) == 0.25
    assert decay(0.25, 3) == 0.25**3
    T = np.arange(1, 101)
    np.testing.assert_allclose(decay(0.5, T), 0.5**T, rtol=1e-15)
    assert decay(1.0, 10**6) == 1.0
    assert decay(np.nextafter(0.0, 1.0), 1) > 0.0  # the smallest positive factor is allowed


def test_log10_decay_survives_where_decay_underflows():
    """The curve must be drawable on a log axis at any T."""
    assert decay(0.25, 1000) == 0.0  # underflow: why the log version exists
    assert log10_decay(0.25, 1000) == pytest.approx(1000 * np.log10(0.25), rel=1e-15)
    assert np.isfinite(log10_decay(0.25, 10**30))
    T = np.arange(1, 200)
    np.testing.assert_allclose(10.0 ** log10_decay(0.7, T), decay(0.7, T), rtol=1e-12)


@pytest.mark.parametrize("layers", [0, -1, 2.0, True, None])
def test_bad_layers(layers):
    with pytest.raises(ValueError):
        recurrent_depth(layers, 10)
    with pytest.raises(ValueError):
        attention_depth(layers)


@pytest.mark.parametrize("T", [0, -5, 2.5, True, np.array([1, 0]), np.array([1.0, 2.0])])
def test_bad_lengths(T):
    with pytest.raises(ValueError):
        decay(0.25, T)
    with pytest.raises(ValueError):
        log10_decay(0.25, T)


@pytest.mark.parametrize("factor", [0.0, -0.25, np.inf, np.nan, "0.25", True])
def test_bad_factor(factor):
    with pytest.raises(ValueError):
        decay(factor, 10)
    with pytest.raises(ValueError):
        log10_decay(factor, 10)


@pytest.mark.parametrize("factor", [np.nextafter(1.0, 2.0), 1.5, 2.0, 1e308])
def test_factor_above_one_is_refused(factor):
    # A factor above 1 grows instead of decaying: decay(2.0, 2000) was inf with a RuntimeWarning.
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        decay(factor, 2000)
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        log10_decay(factor, 2000)
