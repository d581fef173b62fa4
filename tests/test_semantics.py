"""Semantics of the contract beyond the sweep: dtype rules, float16
accumulation, integer wrap-around, signed zeros, NaN/inf, 0-d and empty
inputs, huge strides, more than 2**31 elements, read-only and broadcast
inputs, no copies of contiguous inputs, concurrent calls, and the small API
surface (Direction, isa, __version__)."""

import concurrent.futures
import inspect
import tracemalloc

import numpy as np
import pytest

import simdscan
from data import make_data, seed_of
from reference import (
    DEFAULT_INT,
    FLOAT_DTYPES,
    INT_DTYPES,
    OPS,
    SUPPORTED_DTYPES,
    assert_unchanged,
    check_scan,
    expected,
    check_values,
    snapshot,
)
from params import DIRECTIONS

pytestmark = pytest.mark.kernels  # the outcome depends on the ISA tier and the xsimd version: CI runs these per tier

REAL_FLOATS = [d for d in FLOAT_DTYPES if d.kind == "f"]


def _f(op):
    return getattr(simdscan, op)


def _all_variants():
    for direction, dec in DIRECTIONS[:2]:
        for exclusive in (False, True):
            yield direction, dec, exclusive


# --------------------------------------------------------------------------
# API surface
# --------------------------------------------------------------------------
def test_version_is_a_nonempty_string():
    assert isinstance(simdscan.__version__, str) and simdscan.__version__.strip()


def test_build_names_its_xsimd_version_and_source(capsys):
    from simdscan import __main__, _core

    version = tuple(int(part) for part in _core.xsimd_version.split("."))
    assert len(version) == 3 and version >= (8, 1, 0)
    assert _core.xsimd_source in ("installed", "pythran", "directory")  # CMakeLists.txt: SIMDSCAN_XSIMD
    assert __main__.info() == 0
    assert f"xsimd           {_core.xsimd_version} ({_core.xsimd_source})\n" in capsys.readouterr().out


def test_isa_returns_a_nonempty_string():
    isa = simdscan.isa()
    assert isinstance(isa, str) and isa.strip()
    assert simdscan.isa() == isa  # stable


def test_direction_members():
    inc, dec = simdscan.Direction.INCREASING, simdscan.Direction.DECREASING
    assert isinstance(inc, simdscan.Direction)
    assert isinstance(dec, simdscan.Direction)
    assert inc != dec
    assert inc == simdscan.Direction.INCREASING
    assert inc.name == "INCREASING" and dec.name == "DECREASING"


@pytest.mark.parametrize("op", OPS)
def test_direction_members_are_accepted_and_equal_to_strings(op):
    a = np.array([[2, 1, 3, 5], [3, 8, 7, 3]], dtype=np.int32)
    for member, text in ((simdscan.Direction.INCREASING, "increasing"),
                         (simdscan.Direction.DECREASING, "decreasing")):
        for exclusive in (False, True):
            x = _f(op)(a, 1, direction=member, exclusive=exclusive)
            y = _f(op)(a, 1, direction=text, exclusive=exclusive)
            np.testing.assert_array_equal(x, y, strict=True)
    # the default is increasing
    np.testing.assert_array_equal(_f(op)(a, 1), _f(op)(a, 1, direction="increasing"), strict=True)


@pytest.mark.parametrize("op", OPS)
def test_argument_names(op):
    """The exact API: a and axis by name too; defaults as documented."""
    a = np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(_f(op)(a=a, axis=0), _f(op)(a, 0), strict=True)
    got = _f(op)(a=a, axis=None, direction="increasing", exclusive=False, dtype=None, out=None)
    check_scan(got, op, a)


def test_signature_when_introspectable():
    """If the functions expose a signature, it is the documented one."""
    for op in OPS:
        try:
            sig = inspect.signature(getattr(simdscan, op))
        except (TypeError, ValueError):
            continue  # builtins without text signature: covered by test_argument_names
        params = list(sig.parameters.values())
        keywords = ["direction", "exclusive", "dtype", "out"] + (["compensated"] if op == "cumsum" else [])
        assert [p.name for p in params] == ["a", "axis", *keywords]
        assert [p.kind for p in params[2:]] == [inspect.Parameter.KEYWORD_ONLY] * len(keywords)


# --------------------------------------------------------------------------
# dtype rules
# --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [d for d in SUPPORTED_DTYPES if d != np.bool_], ids=str)
@pytest.mark.parametrize("op", OPS)
def test_dtype_none_keeps_input_dtype(op, dtype):
    a = np.array([1, 2, 3, 1], dtype=dtype)
    for axis in (None, 0):
        r = _f(op)(a, axis)
        assert r.dtype == dtype, (r.dtype, dtype)
        check_scan(r, op, a, axis)


@pytest.mark.parametrize("op", OPS)
def test_bool_input_gives_default_integer(op):
    a = np.array([True, True, False, True, True])
    assert DEFAULT_INT == np.cumsum(a).dtype
    r = _f(op)(a)
    assert r.dtype == DEFAULT_INT
    want = [1, 2, 2, 3, 4] if op == "cumsum" else [1, 1, 0, 0, 0]
    np.testing.assert_array_equal(r, np.array(want, DEFAULT_INT), strict=True)
    for direction, dec, exclusive in _all_variants():
        check_scan(_f(op)(a, 0, direction=direction, exclusive=exclusive), op, a, 0, dec, exclusive)


def test_bool_sum_counts_past_255():
    a = np.ones(1000, dtype=bool)
    r = simdscan.cumsum(a)
    assert r.dtype == DEFAULT_INT and r[-1] == 1000


def test_int8_stays_int8_and_wraps():
    r = simdscan.cumsum(np.array([100, 100, 100], dtype=np.int8))
    assert r.dtype == np.int8
    np.testing.assert_array_equal(r, np.array([100, -56, 44], np.int8), strict=True)


DTYPE_CASTS = [
    # (input, dtype argument)
    (np.array([100, 100, 100, -7], np.int8), np.int32),
    (np.array([100, 100, 100, -7], np.int8), "int16"),
    (np.array([200, 100, 3], np.uint8), np.int8),  # astype wraps 200 -> -56
    (np.array([1.7, 2.2, -1.5, 9.9]), np.int32),  # astype truncates
    (np.array([1.1, 0.7, 1.3] * 50), np.float32),
    (np.array([1.1, 0.7, 1.3] * 50), "float16"),
    (np.array([3, 5, -2, 7], np.int64), np.float64),
    (np.array([3, 5, -2, 7], np.int64), np.dtype("float16")),
    (np.array([1.5, 2.5, -1.0], np.float32), np.complex64),
    (np.array([1.5, 2.5, -1.0], np.float32), "f8"),
    (np.array([True, False, True]), np.float32),
    (np.array([True, False, True]), np.uint8),
    (np.array([1, 2, 3], np.int32), np.int32),  # same dtype
    (np.array([65535, 2, 3], np.uint16), np.uint64),
    ([1, 2, 3], np.complex128),
]


@pytest.mark.parametrize("a, dtype", DTYPE_CASTS, ids=[f"{np.asarray(a).dtype}-to-{np.dtype(d)}" for a, d in DTYPE_CASTS])
@pytest.mark.parametrize("op", OPS)
def test_dtype_argument_casts_then_scans(op, a, dtype):
    a_snap = snapshot(a)
    for direction, dec, exclusive in _all_variants():
        r = _f(op)(a, 0, direction=direction, exclusive=exclusive, dtype=dtype)
        assert r.dtype == np.dtype(dtype)
        check_scan(r, op, a, 0, dec, exclusive, dtype=dtype)
    assert_unchanged(a, a_snap)


def test_dtype_argument_explicit_values():
    np.testing.assert_array_equal(
        simdscan.cumsum(np.array([100, 100, 100], np.int8), dtype=np.int32),
        np.array([100, 200, 300], np.int32), strict=True)
    np.testing.assert_array_equal(
        simdscan.cumsum(np.array([1.7, 2.2, -1.5]), dtype=np.int32),
        np.array([1, 3, 2], np.int32), strict=True)
    np.testing.assert_array_equal(
        simdscan.cumprod(np.array([200, 2], np.uint8), dtype=np.int8),
        np.array([-56, -112], np.int8), strict=True)


@pytest.mark.parametrize("op", OPS)
def test_lists_and_scalars(op):
    cases = [
        [1, 2, 3],
        [1.5, 2.0, -1.0],
        [[1, 2], [3, 4]],
        ((1, 2), (3, 4)),
        [True, False, True],
        [1 + 2j, 3 - 1j],
        5,
        2.5,
        True,
        1 + 1j,
        np.float32(2.5),
        np.int8(100),
        np.uint16(7),
    ]
    for a in cases:
        for axis in (None, 0, -1):
            r = _f(op)(a, axis)
            check_scan(r, op, a, axis, msg=f"{op}({a!r}, axis={axis})")
    r = simdscan.cumsum([[1, 2], [3, 4]], 1)
    np.testing.assert_array_equal(r, np.array([[1, 3], [3, 7]]), strict=True)


@pytest.mark.parametrize("value", [np.float64(3.5), np.array(2, np.int8), np.array(-3, np.int64),
                                   np.float32(-0.5), np.array(True), np.complex64(1 - 2j), 7, 0.25],
                         ids=lambda v: f"{type(v).__name__}")
@pytest.mark.parametrize("op", OPS)
def test_0d_behaves_as_shape_1_like_numpy(op, value):
    npf = np.cumsum if op == "cumsum" else np.cumprod
    for axis in (None, 0, -1):
        r = _f(op)(value, axis)
        want = npf(value, axis=axis)
        assert r.shape == want.shape == (1,)
        assert r[0] == want[0]
        check_scan(r, op, value, axis)
        for direction, dec, exclusive in _all_variants():
            r = _f(op)(value, axis, direction=direction, exclusive=exclusive)
            check_scan(r, op, value, axis, dec, exclusive)
            if exclusive:
                assert r[0] == (0 if op == "cumsum" else 1)


def test_0d_axis_1_is_axis_error_like_numpy():
    from numpy.exceptions import AxisError

    with pytest.raises(AxisError):
        np.cumsum(np.float64(3), axis=1)
    with pytest.raises(AxisError):
        simdscan.cumsum(np.float64(3), axis=1)


@pytest.mark.parametrize("op", OPS)
def test_axis_none_flattens_in_c_order(op):
    base = np.arange(1, 25, dtype=np.int64).reshape(2, 3, 4) % 5 + 1
    for a in (base, np.asfortranarray(base), base.transpose(2, 0, 1),
              base[::-1, :, ::-2], np.ascontiguousarray(base.T).T):
        r = _f(op)(a)
        assert r.ndim == 1 and r.shape == (a.size,)
        npf = np.cumsum if op == "cumsum" else np.cumprod
        np.testing.assert_array_equal(r, npf(a.ravel(order="C")), strict=True)
        r = _f(op)(a, None, direction="decreasing", exclusive=True)
        check_scan(r, op, a, None, True, True)


@pytest.mark.parametrize("op", OPS)
def test_many_dimensions(op):
    """Any ndim NumPy allows, beyond DirectML's 8."""
    for ndim in (9, 10, 16):
        shape = tuple(2 if k % 3 == 0 else 1 for k in range(ndim))
        a = make_data(np.random.default_rng(ndim), shape, np.int32, op)
        for axis in (None, 0, ndim - 1, -ndim, ndim // 2):
            for direction, dec, exclusive in _all_variants():
                r = _f(op)(a, axis, direction=direction, exclusive=exclusive)
                check_scan(r, op, a, axis, dec, exclusive)


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
    for direction, dec, exclusive in _all_variants():
        check_scan(_f(op)(a, direction=direction, exclusive=exclusive), op, a, None, dec, exclusive)


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
    r = _f(op)(a)
    assert r.dtype == dtype
    np.testing.assert_array_equal(r, np.array(want, dtype=dtype), strict=True)
    # and the oracle agrees (it wraps in the same dtype)
    check_scan(r, op, a)
    # the decreasing scan of the reversed input is the reversed result
    rr = _f(op)(a[::-1].copy(), direction="decreasing")
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
            for direction, dec, exclusive in _all_variants():
                r = _f(op)(a, axis, direction=direction, exclusive=exclusive)
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
        for direction, dec, exclusive in _all_variants():
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
        for direction, dec, exclusive in _all_variants():
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
        for direction, dec, exclusive in _all_variants():
            check_scan(_f(op)(a, axis, direction=direction, exclusive=exclusive), op, a, axis, dec, exclusive)


def test_float16_overflow_is_inf():
    """float32 accumulation: 120000 rounds to inf in float16, and so does
    the exact 119999 of the next output."""
    a = np.array([60000.0, 60000.0, -1.0], dtype=np.float16)
    r = simdscan.cumsum(a)
    assert r.dtype == np.float16
    assert r[0] == 60000 and r[1] == inf and r[2] == inf


# --------------------------------------------------------------------------
# empty
# --------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0), (2, 0, 4), (0, 0), (1, 0, 1)], ids=str)
@pytest.mark.parametrize("dtype", ["float16", "float64", "complex64", "int8", "uint64", "bool"])
@pytest.mark.parametrize("op", OPS)
def test_empty(op, dtype, shape):
    a = np.zeros(shape, dtype=dtype)
    want_dtype = DEFAULT_INT if dtype == "bool" else np.dtype(dtype)
    for axis in [None] + list(range(len(shape))) + [-1]:
        for direction, dec, exclusive in _all_variants():
            r = _f(op)(a, axis, direction=direction, exclusive=exclusive)
            assert r.dtype == want_dtype
            assert r.shape == ((0,) if axis is None else shape)
            check_scan(r, op, a, axis, dec, exclusive)


# --------------------------------------------------------------------------
# huge strides and more than 2**31 elements
# --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.int64, np.float64], ids=str)
def test_huge_strides(tmp_path, dtype):
    """Byte strides beyond 2**32 (positive and negative), via a sparse file."""
    step = 2**29 + 1  # elements: 8 * step = 2**32 + 8 bytes
    n = 5
    path = tmp_path / "sparse.bin"
    mm = np.memmap(path, dtype=dtype, mode="w+", shape=((n - 1) * step + 3,))
    path.unlink()  # the mapping stays valid; nothing of ~17 GB (sparse) is left behind
    try:
        v = mm[::step]
        assert v.strides[0] == 2**32 + 8 and v.shape == (n,)
        v[:] = [1, 2, 3, -4, 5]
        for view in (v, v[::-1]):
            for op in OPS:
                for direction, dec, exclusive in _all_variants():
                    r = _f(op)(view, direction=direction, exclusive=exclusive)
                    check_scan(r, op, view, None, dec, exclusive)
        # 2-D: huge stride on the outer axis, unit stride on the inner one
        w = np.lib.stride_tricks.as_strided(mm, shape=(n, 3), strides=(8 * step, 8))
        w[...] = np.arange(1, 3 * n + 1).reshape(n, 3) % 4 + 1
        for axis in (0, 1, -1):
            for op in OPS:
                for direction, dec, exclusive in _all_variants():
                    check_scan(_f(op)(w, axis, direction=direction, exclusive=exclusive),
                               op, w, axis, dec, exclusive)
        # huge-stride out, and in place
        out = mm[1::step]  # shares no element with v
        assert out.shape == (n,) and out.strides[0] == 2**32 + 8
        assert simdscan.cumsum(v, out=out) is out
        check_scan(out, "cumsum", v)
        copy = v.copy()
        assert simdscan.cumsum(v, out=v) is v
        check_values(v, expected("cumsum", copy))
    finally:
        del mm


@pytest.mark.slow
def test_more_than_2_31_elements():
    """A broadcast (zero-stride) input of 2**31 + 100 elements."""
    n = 2**31 + 100
    a = np.broadcast_to(np.uint8(1), (n,))
    out = np.empty(n, dtype=np.uint8)
    r = simdscan.cumsum(a, out=out)
    assert r is out
    idx = np.concatenate([np.arange(0, n, 1_000_003), np.arange(2**31 - 300, n)])
    np.testing.assert_array_equal(out[idx], ((idx + 1) % 256).astype(np.uint8))
    simdscan.cumsum(a, direction="decreasing", exclusive=True, out=out)
    np.testing.assert_array_equal(out[idx], ((n - 1 - idx) % 256).astype(np.uint8))
    del out, r


# --------------------------------------------------------------------------
# read-only, broadcast, no copies, input untouched
# --------------------------------------------------------------------------
@pytest.mark.parametrize("op", OPS)
def test_read_only_input(op):
    a = np.arange(1.0, 9.0).reshape(2, 4)
    a.flags.writeable = False
    snap = snapshot(a)
    for axis in (None, 0, 1):
        r = _f(op)(a, axis, direction="decreasing", exclusive=True)
        check_scan(r, op, a, axis, True, True)
        assert r.flags.writeable
        assert not np.shares_memory(r, a)
    assert_unchanged(a, snap)


@pytest.mark.parametrize("op", OPS)
def test_broadcast_inputs(op):
    cases = [
        np.broadcast_to(np.arange(1, 4, dtype=np.int32), (4, 3)),
        np.broadcast_to(np.arange(1, 5, dtype=np.float64)[:, None], (4, 6)),
        np.broadcast_to(np.float32(1.0625), (1000,)),
        np.broadcast_to(np.int64(3), (7, 9)),
        np.broadcast_to(np.array([1 + 1j, 2 - 1j], np.complex64), (50, 2)),
    ]
    for a in cases:
        snap = snapshot(a)
        for axis in [None] + list(range(a.ndim)):
            for direction, dec, exclusive in _all_variants():
                r = _f(op)(a, axis, direction=direction, exclusive=exclusive)
                check_scan(r, op, a, axis, dec, exclusive)
                assert r.flags.writeable
        assert_unchanged(a, snap)
    r = simdscan.cumsum(np.broadcast_to(np.int64(2), (1000,)))
    np.testing.assert_array_equal(r, 2 * np.arange(1, 1001), strict=True)


@pytest.mark.parametrize("op", OPS)
def test_input_never_modified_and_result_is_new(op):
    for dtype in ("float32", "int16", "complex128", "uint8", "float16"):
        a = make_data(np.random.default_rng(1), (4, 33), np.dtype(dtype), op)
        snap = snapshot(a)
        for axis in (None, 0, 1):
            for direction, dec, exclusive in _all_variants():
                r = _f(op)(a, axis, direction=direction, exclusive=exclusive)
                assert r is not a and not np.shares_memory(r, a)
        assert_unchanged(a, snap)


@pytest.mark.parametrize("op", OPS)
def test_non_native_byte_order(op):
    for dt in (">i4", ">f8", ">u2", ">c8", ">f2", ">i8"):
        dt = np.dtype(dt)
        if dt.isnative:  # big-endian host: use the other order
            dt = dt.newbyteorder("S")
        a = np.array([[2, 1, 3, 5], [3, 8, 7, 3]]).astype(dt)
        assert not a.dtype.isnative
        for axis in (None, 0, 1):
            for direction, dec, exclusive in _all_variants():
                r = _f(op)(a, axis, direction=direction, exclusive=exclusive)
                check_scan(r, op, a, axis, dec, exclusive)
    r = simdscan.cumsum(np.array([1, 2, 3], dtype=">i4").astype(np.dtype("i4").newbyteorder("S")))
    np.testing.assert_array_equal(r.astype(np.int32), [1, 3, 6])


def _unaligned(shape, dtype, fill=None):
    """An array whose data pointer is 1 byte off any natural alignment."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    raw = np.zeros(n * dtype.itemsize + 1, dtype=np.uint8)
    a = raw[1:].view(dtype).reshape(shape)
    if fill is not None:
        a[...] = fill
    return a


@pytest.mark.parametrize("dtype", [d for d in SUPPORTED_DTYPES if d.itemsize > 1], ids=str)
@pytest.mark.parametrize("op", OPS)
def test_unaligned_input_and_out(op, dtype):
    """Misaligned data (allowed by NumPy) in input, out, and in place."""
    base = make_data(np.random.default_rng(seed_of("unaligned", op, dtype.name)), (5, 67), dtype, op)
    a = _unaligned(base.shape, dtype, base)
    assert not a.flags.aligned
    for axis in (None, 0, 1):
        for direction, dec, exclusive in _all_variants():
            check_scan(_f(op)(a, axis, direction=direction, exclusive=exclusive), op, a, axis, dec, exclusive)
            out = _unaligned((a.size,) if axis is None else a.shape, dtype)
            assert _f(op)(a, axis, direction=direction, exclusive=exclusive, out=out) is out
            check_scan(out, op, a, axis, dec, exclusive)
            b = _unaligned(a.shape, dtype, base)
            _f(op)(b, axis if axis is not None else 1, direction=direction, exclusive=exclusive, out=b)
            check_values(b, expected(op, base, axis if axis is not None else 1, dec, exclusive))


@pytest.mark.parametrize("op", OPS)
def test_strides_not_a_multiple_of_the_itemsize(op):
    """A field of a packed structured array: 9-byte strides, misaligned."""
    rec = np.zeros(101, dtype=[("tag", "u1"), ("x", "f8")])
    rec["x"] = make_data(np.random.default_rng(9), (101,), np.float64, op)
    a = rec["x"]
    assert a.strides == (9,)
    for direction, dec, exclusive in _all_variants():
        check_scan(_f(op)(a, direction=direction, exclusive=exclusive), op, a, None, dec, exclusive)
    rec2 = np.zeros(101, dtype=[("tag", "u1"), ("y", "i4")])
    rec2["y"] = np.arange(101) % 7 - 3
    b = rec2["y"]
    for direction, dec, exclusive in _all_variants():
        check_scan(_f(op)(b, direction=direction, exclusive=exclusive), op, b, None, dec, exclusive)
        copy = b.copy()
        assert _f(op)(b, direction=direction, exclusive=exclusive, out=b) is b
        check_values(b, expected(op, copy, None, dec, exclusive))
        b[...] = copy
    assert np.all(rec2["tag"] == 0) and np.all(rec["tag"] == 0)


def _peak_traced_bytes(fn):
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_contiguous_input_is_not_copied(dtype):
    """NumPy reports its buffer allocations to tracemalloc: scanning a
    contiguous 32 MB input into a preallocated out must not allocate
    anything near the input's size."""
    a = np.ones(8_000_000 // np.dtype(dtype).itemsize * 4, dtype=dtype)
    out = np.empty_like(a)
    limit = a.nbytes // 4
    peak = _peak_traced_bytes(lambda: simdscan.cumsum(a, out=out))
    assert peak < limit, f"{peak} bytes allocated for a {a.nbytes}-byte input"
    np.testing.assert_array_equal(out[-3:], np.arange(a.size - 2, a.size + 1).astype(dtype))
    a2 = a.reshape(1000, -1)
    out2 = np.empty_like(a2)
    peak = _peak_traced_bytes(lambda: simdscan.cumsum(a2, 0, out=out2))
    assert peak < limit, f"{peak} bytes allocated for a {a.nbytes}-byte input (axis 0)"
    assert out2[-1, 0] == 1000
    peak = _peak_traced_bytes(lambda: simdscan.cumsum(a, out=a))
    assert peak < limit, f"{peak} bytes allocated for an in-place scan"


# --------------------------------------------------------------------------
# concurrency
# --------------------------------------------------------------------------
def test_concurrent_calls_from_threads():
    n = 100_000
    shared = (np.arange(n, dtype=np.int64) * 7919) % 13 - 6
    shared.flags.writeable = False
    shared_f = shared.astype(np.float64)  # small integers: float sums are exact
    shared_f.flags.writeable = False
    refs = {
        (dec, exc): expected("cumsum", shared, None, dec, exc).value
        for dec in (False, True) for exc in (False, True)
    }

    def work(k):
        rng = np.random.default_rng(k)
        private = rng.integers(-5, 6, size=n).astype(np.int32)
        private_ref = np.cumsum(private, dtype=np.int32)
        buf = np.empty(n, np.int32)
        for i in range(50):
            dec, exc = bool(i % 2), bool((i // 2) % 2)
            direction = "decreasing" if dec else "increasing"
            r = simdscan.cumsum(shared, direction=direction, exclusive=exc)
            if not np.array_equal(r, refs[(dec, exc)]):
                return f"thread {k} call {i}: shared int64 result wrong"
            rf = simdscan.cumsum(shared_f, direction=direction, exclusive=exc)
            if not np.array_equal(rf, refs[(dec, exc)].astype(np.float64)):
                return f"thread {k} call {i}: shared float64 result wrong"
            simdscan.cumsum(private, out=buf)
            if not np.array_equal(buf, private_ref):
                return f"thread {k} call {i}: private out= result wrong"
            p = private.copy()
            simdscan.cumsum(p, out=p)
            if not np.array_equal(p, private_ref):
                return f"thread {k} call {i}: private in-place result wrong"
            q = simdscan.cumprod(np.abs(private[:64]) % 2 + 1, exclusive=exc)
            if not np.array_equal(q, expected("cumprod", np.abs(private[:64]) % 2 + 1, None, False, exc).value):
                return f"thread {k} call {i}: cumprod result wrong"
        return None

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(work, range(8)))
    assert results == [None] * 8, [r for r in results if r]
    assert np.array_equal(shared, (np.arange(n, dtype=np.int64) * 7919) % 13 - 6)
