"""What a call returns, by dtype and shape: dtype=None and dtype= casts, bool, lists, scalars and 0-d
inputs, axis=None, many dimensions and empty arrays."""

import numpy as np
import pytest

import simdscan
from data import make_data
from params import func, variants
from reference import DEFAULT_INT, OPS, SUPPORTED_DTYPES, assert_unchanged, check_scan, snapshot

pytestmark = pytest.mark.kernels  # the outcome depends on the ISA tier and the xsimd version: CI runs these per tier


@pytest.mark.parametrize("dtype", [d for d in SUPPORTED_DTYPES if d != np.bool_], ids=str)
@pytest.mark.parametrize("op", OPS)
def test_dtype_none_keeps_input_dtype(op, dtype):
    a = np.array([1, 2, 3, 1], dtype=dtype)
    for axis in (None, 0):
        r = func(op)(a, axis)
        assert r.dtype == dtype, (r.dtype, dtype)
        check_scan(r, op, a, axis)


@pytest.mark.parametrize("op", OPS)
def test_bool_input_gives_default_integer(op):
    a = np.array([True, True, False, True, True])
    assert DEFAULT_INT == np.cumsum(a).dtype
    r = func(op)(a)
    assert r.dtype == DEFAULT_INT
    want = [1, 2, 2, 3, 4] if op == "cumsum" else [1, 1, 0, 0, 0]
    np.testing.assert_array_equal(r, np.array(want, DEFAULT_INT), strict=True)
    for direction, dec, exclusive in variants():
        check_scan(func(op)(a, 0, direction=direction, exclusive=exclusive), op, a, 0, dec, exclusive)


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
    for direction, dec, exclusive in variants():
        r = func(op)(a, 0, direction=direction, exclusive=exclusive, dtype=dtype)
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
            r = func(op)(a, axis)
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
        r = func(op)(value, axis)
        want = npf(value, axis=axis)
        assert r.shape == want.shape == (1,)
        assert r[0] == want[0]
        check_scan(r, op, value, axis)
        for direction, dec, exclusive in variants():
            r = func(op)(value, axis, direction=direction, exclusive=exclusive)
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
        r = func(op)(a)
        assert r.ndim == 1 and r.shape == (a.size,)
        npf = np.cumsum if op == "cumsum" else np.cumprod
        np.testing.assert_array_equal(r, npf(a.ravel(order="C")), strict=True)
        r = func(op)(a, None, direction="decreasing", exclusive=True)
        check_scan(r, op, a, None, True, True)


@pytest.mark.parametrize("op", OPS)
def test_many_dimensions(op):
    """Any ndim NumPy allows, beyond DirectML's 8."""
    for ndim in (9, 10, 16):
        shape = tuple(2 if k % 3 == 0 else 1 for k in range(ndim))
        a = make_data(np.random.default_rng(ndim), shape, np.int32, op)
        for axis in (None, 0, ndim - 1, -ndim, ndim // 2):
            for direction, dec, exclusive in variants():
                r = func(op)(a, axis, direction=direction, exclusive=exclusive)
                check_scan(r, op, a, axis, dec, exclusive)


# --------------------------------------------------------------------------
# empty arrays
# --------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0), (2, 0, 4), (0, 0), (1, 0, 1)], ids=str)
@pytest.mark.parametrize("dtype", ["float16", "float64", "complex64", "int8", "uint64", "bool"])
@pytest.mark.parametrize("op", OPS)
def test_empty(op, dtype, shape):
    a = np.zeros(shape, dtype=dtype)
    want_dtype = DEFAULT_INT if dtype == "bool" else np.dtype(dtype)
    for axis in [None] + list(range(len(shape))) + [-1]:
        for direction, dec, exclusive in variants():
            r = func(op)(a, axis, direction=direction, exclusive=exclusive)
            assert r.dtype == want_dtype
            assert r.shape == ((0,) if axis is None else shape)
            check_scan(r, op, a, axis, dec, exclusive)

