"""simdscan.dask's values, chunk by chunk with carries between chunks, against simdscan on the computed array.

Integers are compared exactly, floating-point types within the rounding-error bound of tests/reference.py (the
chunked scan adds in another order, so bit-equality is not promised): every dtype, chunking, axis and mode on
Dask's local schedulers, the dtype argument, wrap-around, float16, signed zeros, NaN and inf, compensated sums.
"""

import dask
import dask.array as da
import numpy as np
import pytest

import simdscan
import simdscan.dask as sdask
from dask_compare import DIRECTIONS, compare, dask_op, layer_names
from data import make_data, seed_of, spread_values
from exact_sums import check_compensated
from params import func
from reference import DEFAULT_INT, OPS

DTYPES = ["float32", "float64", "int8", "int64", "uint16", "complex64", "float16", "bool"]

# (shape, chunks): along the axis, across it, both, one chunk, uneven, empty chunks, 1-element chunks
CASES = [
    ((23,), 5),
    ((23,), ((3, 0, 10, 1, 9),)),
    ((6,), 1),
    ((23,), 23),
    ((0,), 4),
    ((9, 14), (4, 5)),
    ((9, 14), (9, 5)),
    ((9, 14), (2, 14)),
    ((9, 14), ((1, 0, 8), (13, 1))),
    ((0, 7), (3, 2)),
    ((4, 0), (1, 3)),
    ((3, 4, 10), (2, 3, 4)),
    ((), ()),
]


def _case_id(case):
    shape, chunks = case
    return f"{shape}-{chunks}".replace(" ", "")


def _axes(ndim):
    return list(range(ndim)) + ([-1] if ndim else [0, -1]) + [None]


# --------------------------------------------------------------------------
# the matrix: dtypes x chunkings x axes x directions x exclusive x op
# --------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=_case_id)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_matches_simdscan(op, dtype, case):
    shape, chunks = case
    rng = np.random.default_rng(seed_of(op, dtype, case))
    a = make_data(rng, shape, dtype, op)
    x = da.from_array(a, chunks=chunks)
    calls = []
    for axis in _axes(a.ndim):
        for direction in DIRECTIONS:
            for exclusive in (False, True):
                r = dask_op(op)(x, axis, direction=direction, exclusive=exclusive)
                assert isinstance(r, da.Array)
                if axis is not None and a.ndim:  # (axis=None: ravel may rechunk)
                    assert r.chunks == x.chunks  # never rechunked
                    assert not any("rechunk" in name for name in layer_names(r))
                calls.append(((axis, direction, exclusive), r))
    results = dask.compute(*[r for _, r in calls], scheduler="sync")
    for ((axis, direction, exclusive), r), got in zip(calls, results):
        assert r.dtype == got.dtype and r.shape == got.shape
        compare(got, op, a, axis, direction, exclusive)


@pytest.mark.parametrize("op", OPS)
def test_threaded_scheduler_many_chunks(op):
    """The default (threaded) scheduler, 2-D, many chunks along the axis and across it."""
    rng = np.random.default_rng(seed_of("threaded", op))
    a = make_data(rng, (40, 100), np.float64, op, line=100)
    x = da.from_array(a, chunks=(7, 9))
    for axis in (0, 1, -1):
        for direction in DIRECTIONS:
            for exclusive in (False, True):
                r = dask_op(op)(x, axis, direction=direction, exclusive=exclusive)
                assert r.chunks == x.chunks
                compare(r.compute(), op, a, axis, direction, exclusive)


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("exclusive", [False, True])
def test_long_chain_of_chunks_int_exact(direction, exclusive):
    """300 chunks of 3 along the axis: a long carry chain; int64 exact."""
    a = np.random.default_rng(5).integers(-(2**40), 2**40, size=(900, 3))
    x = da.from_array(a, chunks=(3, 2))
    for op in OPS:
        got = dask_op(op)(x, 0, direction=direction, exclusive=exclusive).compute()
        np.testing.assert_array_equal(
            got, func(op)(a, 0, direction=direction, exclusive=exclusive)
        )


# --------------------------------------------------------------------------
# dtypes: casting, wrapping, float16
# --------------------------------------------------------------------------
DTYPE_ARG_CASES = [
    ("int8", "float32"),
    ("float64", "float16"),
    ("float32", "int16"),
    ("bool", None),
    ("bool", "uint8"),
    ("int64", "int8"),
    ("uint16", "complex64"),
    ("float16", "float64"),
]


@pytest.mark.parametrize("in_dtype, dtype", DTYPE_ARG_CASES, ids=[f"{i}-to-{o}" for i, o in DTYPE_ARG_CASES])
@pytest.mark.parametrize("op", OPS)
def test_dtype_argument(op, in_dtype, dtype):
    rng = np.random.default_rng(seed_of("dtype", op, in_dtype, dtype))
    a = make_data(rng, (11, 13), in_dtype, op)
    x = da.from_array(a, chunks=(3, 4))
    for axis in (0, 1, None):
        for direction in DIRECTIONS:
            for exclusive in (False, True):
                r = dask_op(op)(x, axis, direction=direction, exclusive=exclusive, dtype=dtype)
                got = r.compute()
                assert r.dtype == got.dtype
                compare(got, op, a, axis, direction, exclusive, dtype)


def test_bool_gives_default_integer():
    x = da.from_array(np.ones(10, dtype=bool), chunks=3)
    r = sdask.cumsum(x)
    assert r.dtype == DEFAULT_INT
    np.testing.assert_array_equal(r.compute(), np.arange(1, 11))


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64", "uint64"])
@pytest.mark.parametrize("op", OPS)
def test_integers_wrap_exactly(op, dtype):
    """Full-range integers wrap many times, across chunk boundaries: still bit-exact."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed_of("wrap", op, dtype))
    a = rng.integers(info.min, info.max, size=(37, 60), dtype=dtype, endpoint=True)
    if op == "cumprod":
        a |= 1  # odd factors: products wrap without collapsing to 0
    x = da.from_array(a, chunks=(5, 7))
    for axis in (0, 1, None):
        for direction in DIRECTIONS:
            for exclusive in (False, True):
                r = dask_op(op)(x, axis, direction=direction, exclusive=exclusive)
                got = r.compute(scheduler="sync")
                want = func(op)(a, axis, direction=direction, exclusive=exclusive)
                assert got.dtype == want.dtype == np.dtype(dtype)
                np.testing.assert_array_equal(got, want)


def test_int8_wraps_as_documented():
    x = da.from_array(np.array([100, 100, 100], dtype=np.int8), chunks=1)
    got = sdask.cumsum(x).compute()
    assert got.dtype == np.int8
    np.testing.assert_array_equal(got, [100, -56, 44])


def test_float16_accumulates_in_float32():
    """4096 float16 ones in 41 chunks sum to 4096 (NumPy's float16 running total stalls at 2048)."""
    x = da.ones(4096, dtype=np.float16, chunks=100)
    got = sdask.cumsum(x).compute()
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, np.arange(1, 4097).astype(np.float16))
    np.testing.assert_array_equal(got, simdscan.cumsum(np.ones(4096, dtype=np.float16)))
    got = sdask.cumsum(x, direction="decreasing", exclusive=True).compute()
    np.testing.assert_array_equal(got, np.arange(4095, -1, -1).astype(np.float16))
    np.testing.assert_array_equal(
        got, simdscan.cumsum(np.ones(4096, dtype=np.float16), direction="decreasing", exclusive=True)
    )


# --------------------------------------------------------------------------
# special values: -0.0, NaN, inf
# --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("chunks", [1, 2, 3])
def test_negative_zero_prefix_stays_negative(dtype, chunks):
    a = np.full(7, -0.0, dtype=dtype)
    x = da.from_array(a, chunks=chunks)
    for direction in DIRECTIONS:
        for exclusive in (False, True):
            for op in OPS:
                got = dask_op(op)(x, direction=direction, exclusive=exclusive).compute()
                want = func(op)(a, direction=direction, exclusive=exclusive)
                np.testing.assert_array_equal(got, want)
                np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("op", OPS)
def test_nan_and_inf_propagate_like_simdscan(op):
    a = np.array([1.0, 2.0, np.inf, 3.0, 0.5, -np.inf, 4.0, np.nan, 2.0, 1.0, 0.0, 5.0])
    b = np.array([1.0, 2.0, 3.0, -4.0, np.inf, 2.0, 1.0, 0.5, 2.0, 3.0, 1.0, 2.0])
    for data in (a, b):
        x = da.from_array(data, chunks=((2, 3, 1, 4, 2),))
        for direction in DIRECTIONS:
            for exclusive in (False, True):
                got = dask_op(op)(x, direction=direction, exclusive=exclusive).compute()
                want = func(op)(data, direction=direction, exclusive=exclusive)
                np.testing.assert_array_equal(got, want)  # NaN == NaN here, inf exactly


# --------------------------------------------------------------------------
# compensated sums
# --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float16", "float32", "complex64", "float64", "complex128"])
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("exclusive", [False, True])
def test_compensated(dtype, direction, exclusive):
    """float16/32 and complex64 chunks and carries in a wider type: simdscan's own bound, on every output.
    float64 and complex128: one more rounding of the carry per chunk boundary (the documented bound)."""
    rng = np.random.default_rng(seed_of("compensated", dtype, direction, exclusive))
    a = spread_values(rng, (6000, 3), dtype)
    x = da.from_array(a, chunks=((1000, 1500, 500, 3000), 2))
    got = sdask.cumsum(x, 0, direction=direction, exclusive=exclusive, compensated=True).compute(scheduler="sync")
    assert got.dtype == np.dtype(dtype)
    if dtype in ("float16", "float32", "complex64"):
        check_compensated(got, a, 0, direction == "decreasing", exclusive)
    else:
        # Against the exact prefix with the documented (2 + chunks) * u * sum|x| bound: 4 chunks along the axis.
        whole = simdscan.cumsum(a, 0, direction=direction, exclusive=exclusive, compensated=True)
        check_compensated(whole, a, 0, direction == "decreasing", exclusive)
        scale = np.abs(a.real) + np.abs(a.imag) if a.dtype.kind == "c" else np.abs(a)
        bound = (2 + 4) * 2.0**-53 * simdscan.cumsum(scale, 0, direction=direction)
        assert np.all(np.abs(got - whole) <= 2 * bound)


def test_compensated_tenths():
    tenths = da.full(10**6, 0.1, dtype=np.float32, chunks=70_001)
    assert sdask.cumsum(tenths, compensated=True).compute()[-1] == np.float32(1e5)
    assert sdask.cumsum(tenths).compute()[-1] != np.float32(1e5)
