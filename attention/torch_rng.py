"""PyTorch's CPU random numbers, reproduced bit-for-bit in numpy.

Chapter 3 of the book draws its weights from ``torch.manual_seed``. To show the same numbers
without PyTorch we rebuild the three pieces involved:

- the generator: ``torch.manual_seed(s)`` leaves a 32-bit Mersenne Twister (MT19937) in the
  same state as ``numpy.random.RandomState(s)``, so numpy's ``MT19937`` bit generator, given that
  state, yields the same stream of 32-bit draws;
- ``torch.rand`` in float32: one 32-bit draw per element, in row-major order, keeping the low 24
  bits: ``(u & 0xFFFFFF) * 2**-24``;
- ``uniform_(a, b)``, which ``nn.Linear`` uses for its initial weights: ``x * (b - a) + a`` in
  float32 with a single rounding (a fused multiply-add), ``x`` being the ``torch.rand`` value.

A stream is a numpy ``MT19937`` object: every call below consumes draws from it, exactly as
successive torch calls consume the global generator after one ``manual_seed``. Values are
float32-exact but returned as float64, the dtype of the rest of the package.

Section 3.4 of the book uses seed 123 and ``torch.rand(3, 2)`` three times; section 3.5 uses
seed 789 and ``SelfAttention_v2(3, 2)``, i.e. three ``nn.Linear(3, 2, bias=False)``.
"""

import math

import numpy as np

from attention._checks import check_positive_int

_MANTISSA_MASK = np.uint64(0xFFFFFF)  # float32 carries 24 significant bits
_SEED_LIMIT = 2**32

# The book's two weight sets: the seed set before each, and the (d_in, d_out) of every matrix.
SEED_3_4 = 123  # section 3.4: three torch.rand(3, 2)
SEED_3_5 = 789  # section 3.5 onwards: SelfAttention_v2(3, 2), three nn.Linear(3, 2, bias=False)
BOOK_D_IN = 3
BOOK_D_OUT = 2


def stream(seed: int) -> np.random.MT19937:
    """A fresh MT19937 in the state ``torch.manual_seed(seed)`` leaves behind.

    ``seed`` is an int in [0, 2**32). -> numpy bit generator; calls below advance it.
    """
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise ValueError(f"seed must be an int, got {type(seed).__name__}")
    if not 0 <= seed < _SEED_LIMIT:
        raise ValueError(f"seed must lie in [0, 2**32), got {seed}")
    # RandomState applies the classic MT19937 init_genrand seeding, which torch uses too;
    # copy that state into a bit generator that exposes the raw 32-bit outputs.
    _, key, pos, *_ = np.random.RandomState(int(seed)).get_state(legacy=True)
    generator = np.random.MT19937()
    generator.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}
    return generator


def mt19937_draws(generator: np.random.MT19937, n: int) -> np.ndarray:
    """The next ``n`` raw 32-bit outputs of the stream. -> (n,) uint32"""
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 0:
        raise ValueError(f"n must be a non-negative int, got {n!r}")
    return generator.random_raw(int(n)).astype(np.uint32)


def _shape(shape: tuple[int, ...] | int) -> tuple[int, ...]:
    shape = (shape,) if isinstance(shape, int | np.integer) else tuple(shape)
    if any(isinstance(s, bool) or not isinstance(s, int | np.integer) or s < 0 for s in shape):
        raise ValueError(f"shape must be non-negative ints, got {shape}")
    return tuple(int(s) for s in shape)


def _unit_float32(generator: np.random.MT19937, shape: tuple[int, ...]) -> np.ndarray:
    """torch.rand's float32 values in [0, 1). -> shape, float32"""
    draws = generator.random_raw(math.prod(shape))
    # Both factors are exact in float32: a 24-bit integer times a power of two.
    return ((draws & _MANTISSA_MASK).astype(np.float32) * np.float32(2.0**-24)).reshape(shape)


def rand(generator: np.random.MT19937, shape: tuple[int, ...] | int) -> np.ndarray:
    """``torch.rand(*shape)`` after the stream's seed. -> shape, float64 (float32-exact)"""
    return _unit_float32(generator, _shape(shape)).astype(np.float64)


def uniform(
    generator: np.random.MT19937, shape: tuple[int, ...] | int, low: float, high: float
) -> np.ndarray:
    """``torch.empty(*shape).uniform_(low, high)`` in float32. -> shape, float64 (float32-exact)

    The bounds are rounded to float32 first, as torch's kernel does. The product of two
    float32 numbers is exact in float64 and so is adding a float32 bound to it (the sum
    needs at most 48 significant bits), so computing in float64 and rounding once to float32
    gives the fused multiply-add's single rounding exactly.
    """
    shape = _shape(shape)
    if not (math.isfinite(low) and math.isfinite(high)) or not low <= high:
        raise ValueError(f"need finite low <= high, got low={low}, high={high}")
    lo, hi = np.float32(low), np.float32(high)
    width = np.float64(hi - lo)  # a float32 subtraction, as in torch
    x = _unit_float32(generator, shape).astype(np.float64)
    values = (x * width + np.float64(lo)).astype(np.float32)
    # The half-open interval [low, high): a value rounded up onto high is folded back to low.
    values[values == hi] = lo
    return values.astype(np.float64)


def kaiming_bound(fan_in: int) -> float:
    """The bound ``nn.Linear`` hands to ``uniform_``: 1/sqrt(fan_in), computed as torch does.

    ``kaiming_uniform_(w, a=sqrt(5))`` evaluates gain = sqrt(2 / (1 + a**2)), std =
    gain / sqrt(fan_in), bound = sqrt(3) * std in double precision; reproduce those steps so
    the double (later rounded to float32) is the same one torch computes.
    """
    fan_in = check_positive_int(fan_in, "fan_in")
    a = math.sqrt(5.0)
    gain = math.sqrt(2.0 / (1 + a**2))
    return math.sqrt(3.0) * (gain / math.sqrt(fan_in))


def linear_weight(generator: np.random.MT19937, d_in: int, d_out: int) -> np.ndarray:
    """The initial ``weight`` of ``nn.Linear(d_in, d_out)``. -> (d_out, d_in), torch's layout

    nn.Linear computes ``x @ weight.T``, so the matrix that multiplies (T, d_in) inputs on
    the right is this array transposed: (d_in, d_out).
    """
    bound = kaiming_bound(d_in)
    return uniform(generator, (d_out, d_in), -bound, bound)


def linear_bias(generator: np.random.MT19937, d_in: int, d_out: int) -> np.ndarray:
    """The initial ``bias`` of ``nn.Linear(d_in, d_out)``, drawn right after its weight. -> (d_out,)

    torch draws it uniform in [-1/sqrt(d_in), 1/sqrt(d_in)), the bound computed directly in
    double precision this time (not through the kaiming gain).
    """
    d_in = check_positive_int(d_in, "d_in")
    bound = 1 / math.sqrt(d_in)
    return uniform(generator, (d_out,), -bound, bound)


def weights_section_3_4() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Section 3.4's ``W_query, W_key, W_value``: seed 123, ``torch.rand(3, 2)`` three times.

    -> three (d_in, d_out) = (3, 2) arrays, used as ``X @ W``.
    """
    generator = stream(SEED_3_4)
    shape = (BOOK_D_IN, BOOK_D_OUT)
    W_query = rand(generator, shape)
    W_key = rand(generator, shape)
    W_value = rand(generator, shape)
    return W_query, W_key, W_value


def weights_section_3_5() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Section 3.5's weights: seed 789, ``SelfAttention_v2(3, 2)`` (query, key, value order).

    -> three (d_in, d_out) = (3, 2) arrays, the transposes of the (2, 3) nn.Linear weights.
    """
    generator = stream(SEED_3_5)
    W_query = linear_weight(generator, BOOK_D_IN, BOOK_D_OUT).T
    W_key = linear_weight(generator, BOOK_D_IN, BOOK_D_OUT).T
    W_value = linear_weight(generator, BOOK_D_IN, BOOK_D_OUT).T
    return W_query, W_key, W_value
