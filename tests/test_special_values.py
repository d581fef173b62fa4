"""Arithmetic at the edges of each dtype: float16 accumulating in float32, integer wrap-around, signed zeros,
NaN and inf."""

import numpy as np
import pytest

import simdscan
from data import seed_of
from params import func, variants
from reference import FLOAT_DTYPES, INT_DTYPES, OPS, check_scan

pytestmark = pytest.mark.kernels  # the outcome depends on the ISA tier and the xsimd version: CI runs these per tier

REAL_FLOATS = [d for d in FLOAT_DTYPES if d.kind == "f"]


# --------------------------------------------------------------------------
# float16 accumulates in float32
# --------------------------------------------------------------------------
def test_float16_4096_ones():
    a = np.ones(4096, np.float16)
    assert np.cumsum(a)[-1] == 2048  # NumPy stalls (why the contract asks for float32)
    r = simdscan.cumsum(a)
    assert r.dtype == np.float16
    assert r[-1] == 4096
    np.testing.assert_array_equal(r, np.arange(1, 4097).astype(np.float16), strict=True)


def test_float16_accumulation_variants():
    a = np.ones(10000, np.float16)
    r = simdscan.cumsum(a, direction="decreasing")
    assert r[0] == 10000 and r.dtype == np.float16
    np.testing.assert_array_equal(r, np.arange(10000, 0, -1).astype(np.float16), strict=True)
    b = a.copy()
    simdscan.cumsum(b, out=b)
    assert b[-1] == 10000
    two_d = np.ones((3, 5000), np.float16)
    np.testing.assert_array_equal(simdscan.cumsum(two_d, 1)[:, -1], np.full(3, 5000, np.float16))
    np.testing.assert_array_equal(simdscan.cumsum(two_d.T, 0)[-1], np.full(3, 5000, np.float16))
    # dtype=float16 from float64 input: cast, then accumulated in float32
    assert simdscan.cumsum(np.ones(4096), dtype=np.float16)[-1] == 4096


@pytest.mark.parametrize("op", OPS)
def test_float16_long_lines_within_float32_bound(op):
    """The float32-accumulation bound is far tighter than what a float16
    accumulator achieves on long lines."""
    rng = np.random.default_rng(seed_of("f16long", op))
    if op == "cumsum":
        a = rng.uniform(0.0, 1.0, 20000).astype(np.float16)
    else:
        a = np.exp2(rng.uniform(-0.02, 0.02, 20000)).astype(np.float16)
    for direction, dec, exclusive in variants():
        check_scan(func(op)(a, direction=direction, exclusive=exclusive), op, a, None, dec, exclusive)


# --------------------------------------------------------------------------
# integer wrap-around
# --------------------------------------------------------------------------
WRAP_CASES = [
    # (op, dtype, input, expected)
    ("cumsum", np.int8, [100, 100, 100], [100, -56, 44]),
    ("cumsum", np.int8, [-128, -1, -1], [-128, 127, 126]),
    ("cumsum", np.uint8, [200, 100, 1], [200, 44, 45]),
    ("cumsum", np.int16, [30000, 30000], [30000, -5536]),
    ("cumsum", np.uint16, [65535, 2], [65535, 1]),
    ("cumsum", np.int32, [2**31 - 1, 1, 1], [2**31 - 1, -(2**31), -(2**31) + 1]),
    ("cumsum", np.uint32, [2**32 - 1, 5], [2**32 - 1, 4]),
    ("cumsum", np.int64, [2**62, 2**62, 2**62], [2**62, -(2**63), -(2**62)]),
    ("cumsum", np.int64, [2**63 - 1, 1], [2**63 - 1, -(2**63)]),
    ("cumsum", np.int64, [-(2**63), -1], [-(2**63), 2**63 - 1]),
    ("cumsum", np.uint64, [2**63, 2**63, 1], [2**63, 0, 1]),
    ("cumsum", np.uint64, [2**64 - 1, 2**64 - 1], [2**64 - 1, 2**64 - 2]),
    ("cumprod", np.uint8, [3, 3, 3, 3, 3, 3], [3, 9, 27, 81, 243, 217]),
    ("cumprod", np.uint8, [16, 16, 2], [16, 0, 0]),
    ("cumprod", np.int8, [-128, -1], [-128, -128]),
    ("cumprod", np.int8, [64, 2, 2], [64, -128, 0]),
    ("cumprod", np.int16, [256, 256, 3], [256, 0, 0]),
    ("cumprod", np.int16, [-32768, -1], [-32768, -32768]),
    ("cumprod", np.int32, [65536, 65536, 3], [65536, 0, 0]),
    ("cumprod", np.int32, [-(2**31), -1], [-(2**31), -(2**31)]),
    ("cumprod", np.int32, [46341, 46341], [46341, -2147479015]),
    ("cumprod", np.uint32, [2**16 + 1, 2**16 + 1], [2**16 + 1, 2**17 + 1]),
    ("cumprod", np.int64, [2**32, 2**31, 2], [2**32, -(2**63), 0]),
    ("cumprod", np.int64, [-(2**63), -1], [-(2**63), -(2**63)]),
    ("cumprod", np.int64, [3037000500, 3037000500], [3037000500, -9223372036709301616]),
    ("cumprod", np.uint64, [2**32 + 1, 2**32 + 1], [2**32 + 1, 2**33 + 1]),
]


@pytest.mark.parametrize("op, dtype, values, want", WRAP_CASES,
                         ids=[f"{c[0]}-{np.dtype(c[1])}-{i}" for i, c in enumerate(WRAP_CASES)])
def test_integer_wrap_explicit(op, dtype, values, want):
    a = np.array(values, dtype=dtype)
    r = func(op)(a)
    assert r.dtype == dtype
    np.testing.assert_array_equal(r, np.array(want, dtype=dtype), strict=True)
    # and the oracle agrees (it wraps in the same dtype)
    check_scan(r, op, a)
    # the decreasing scan of the reversed input is the reversed result
    rr = func(op)(a[::-1].copy(), direction="decreasing")
    np.testing.assert_array_equal(rr[::-1], np.array(want, dtype=dtype), strict=True)


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=str)
@pytest.mark.parametrize("op", OPS)
def test_integer_wrap_random_full_range(op, dtype):
    """Full-range random integers, long lines (SIMD bodies) and 2-D along
    both axes, every direction/exclusive: exact modulo 2**bits."""
    rng = np.random.default_rng(seed_of("wrap", op, dtype.name))
    info = np.iinfo(dtype)
    a1 = rng.integers(info.min, info.max, size=1003, dtype=dtype, endpoint=True)
    if op == "cumprod":  # keep products from collapsing to 0 at once: odd values
        a1 |= np.array(1, dtype)
    a2 = rng.integers(info.min, info.max, size=(67, 45), dtype=dtype, endpoint=True)
    for a, axes in ((a1, (0, None)), (a2, (0, 1, None)), (a2.T, (0, 1)), (a2[::-2, 3:], (0, 1))):
        for axis in axes:
            for direction, dec, exclusive in variants():
                r = func(op)(a, axis, direction=direction, exclusive=exclusive)
                assert r.dtype == dtype
                check_scan(r, op, a, axis, dec, exclusive)


# --------------------------------------------------------------------------
# signed zeros
# --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", REAL_FLOATS, ids=str)
def test_negative_zero_prefix_stays_negative(dtype):
    for n in (1, 2, 3, 17, 100, 1000):
        a = np.full(n, -0.0, dtype=dtype)
        for direction in ("increasing", "decreasing"):
            r = simdscan.cumsum(a, direction=direction)
            assert r.dtype == dtype
            assert np.all(r == 0) and np.all(np.signbit(r)), (n, direction, r)
    r = simdscan.cumsum(np.array([[-0.0, -0.0], [-0.0, -0.0]], dtype=dtype), 0)
    assert np.all(np.signbit(r))
    r = simdscan.cumsum(np.full((5, 40), -0.0, dtype=dtype), 0)
    assert np.all(np.signbit(r))


@pytest.mark.parametrize("dtype", REAL_FLOATS, ids=str)
def test_negative_zero_exclusive(dtype):
    """Exclusive: the first element is the identity (0, either sign); every
    later element has a prefix made of -0.0 only, so it is -0.0."""
    for n in (2, 3, 40):
        a = np.full(n, -0.0, dtype=dtype)
        r = simdscan.cumsum(a, exclusive=True)
        assert np.all(r == 0)
        assert np.all(np.signbit(r[1:])), r
        r = simdscan.cumsum(a, direction="decreasing", exclusive=True)
        assert np.all(r == 0)
        assert np.all(np.signbit(r[:-1])), r


@pytest.mark.parametrize("dtype", REAL_FLOATS, ids=str)
def test_signed_zero_mixed_and_products(dtype):
    r = simdscan.cumsum(np.array([-0.0, 0.0, -0.0], dtype=dtype))
    np.testing.assert_array_equal(np.signbit(r), [True, False, False])
    r = simdscan.cumsum(np.array([-0.0, -0.0], dtype=dtype))
    np.testing.assert_array_equal(np.signbit(r), [True, True])
    r = simdscan.cumprod(np.array([-1.0, 0.0, 5.0], dtype=dtype))
    np.testing.assert_array_equal(r, np.array([-1.0, 0.0, 0.0], dtype))
    np.testing.assert_array_equal(np.signbit(r), [True, True, True])
    r = simdscan.cumprod(np.array([-0.0], dtype=dtype))
    assert np.signbit(r[0])
    r = simdscan.cumprod(np.array([2.0, -0.0, -3.0], dtype=dtype))
    np.testing.assert_array_equal(np.signbit(r), [False, True, False])


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=str)
def test_negative_zero_complex(dtype):
    a = np.full(5, complex(-0.0, -0.0), dtype=dtype)
    r = simdscan.cumsum(a)
    assert np.all(np.signbit(r.real)) and np.all(np.signbit(r.imag)), r


# --------------------------------------------------------------------------
# NaN and inf
# --------------------------------------------------------------------------
nan, inf = np.nan, np.inf
NONFINITE_SUMS = [
    [1.0, nan, 2.0],
    [nan, 1.0, 2.0],
    [1.0, 2.0, nan],
    [inf, 1.0, 2.0],
    [1.0, -inf, 2.0],
    [inf, 1.0, -inf, 3.0],
    [-inf, -inf, 1.0],
    [inf, nan, -inf],
    [1.0, 2.0, 3.0, inf, 4.0, -inf, 5.0, nan, 6.0] * 5,
]
NONFINITE_PRODS = [
    [2.0, nan, 3.0],
    [inf, 2.0, 0.5],
    [inf, 0.0, 1.0],
    [0.0, inf, 1.0],
    [-inf, -1.0, 2.0],
    [2.0, -inf, 3.0],
    [nan, 0.0],
    [1.5, 0.5, inf, 0.0, 2.0, nan, -1.0] * 5,
]


@pytest.mark.parametrize("dtype", REAL_FLOATS + [np.dtype(np.complex64), np.dtype(np.complex128)], ids=str)
def test_nan_inf_sums(dtype):
    for values in NONFINITE_SUMS:
        if dtype.kind == "c":
            a = np.empty(len(values), dtype=dtype)
            a.real = values
            a.imag = values[::-1]
        else:
            a = np.array(values, dtype=dtype)
        for direction, dec, exclusive in variants():
            r = simdscan.cumsum(a, direction=direction, exclusive=exclusive)
            check_scan(r, "cumsum", a, None, dec, exclusive)
    # explicit
    r = simdscan.cumsum(np.array([1.0, nan, 2.0], dtype=dtype))
    assert r[0] == 1 and np.isnan(r[1]) and np.isnan(r[2])
    if dtype.kind == "f":
        r = simdscan.cumsum(np.array([inf, 1.0, -inf], dtype=dtype))
        assert r[0] == inf and r[1] == inf and np.isnan(r[2])


@pytest.mark.parametrize("dtype", REAL_FLOATS, ids=str)
def test_nan_inf_products(dtype):
    for values in NONFINITE_PRODS:
        a = np.array(values, dtype=dtype)
        for direction, dec, exclusive in variants():
            r = simdscan.cumprod(a, direction=direction, exclusive=exclusive)
            check_scan(r, "cumprod", a, None, dec, exclusive)
    r = simdscan.cumprod(np.array([inf, 0.0], dtype=dtype))
    assert r[0] == inf and np.isnan(r[1])
    r = simdscan.cumprod(np.array([-inf, -1.0], dtype=dtype))
    assert r[0] == -inf and r[1] == inf


@pytest.mark.parametrize("dtype", REAL_FLOATS, ids=str)
@pytest.mark.parametrize("op", OPS)
def test_nan_in_long_lines(op, dtype):
    """A NaN in the middle of a long (vectorised) line poisons exactly the
    outputs whose range contains it, along both axes."""
    a = np.ones((5, 300), dtype=dtype)
    a[2, 150] = nan
    a[4, 7] = inf
    for axis in (0, 1, None):
        for direction, dec, exclusive in variants():
            check_scan(func(op)(a, axis, direction=direction, exclusive=exclusive), op, a, axis, dec, exclusive)


def test_float16_overflow_is_inf():
    """float32 accumulation: 120000 rounds to inf in float16, and so does
    the exact 119999 of the next output."""
    a = np.array([60000.0, 60000.0, -1.0], dtype=np.float16)
    r = simdscan.cumsum(a)
    assert r.dtype == np.float16
    assert r[0] == 60000 and r[1] == inf and r[2] == inf

