"""The recurrences' runner reads operands stored otherwise than as the type it computes in (float16, byte-swapped,
integers and bool, a float32 b beside a float64 a) where they lie, converted a chunk or a band of rows at a time, and
writes float16 and byte-swapped outputs the same way.

The reference is the same call on the operands converted by NumPy first (``astype`` to the computing dtype, native),
its result rounded by ``astype`` to the result dtype: the conversion is the only difference, so the bits must agree,
on every layout (1-D past the 32768-element chunks, strided, reversed, an outer axis whose rows run in bands, a
Fortran-ordered batch), for every thread count, with ``out`` of either byte order, strided, and in place. And with
``out=`` given, no call allocates a full-size array in Python (tracemalloc).
"""

import tracemalloc

import numpy as np
import pytest

import simdscan
from data import seed_of
from family_reference import assert_same_bits

pytestmark = pytest.mark.kernels

N = 70_001  # past two 32768-element chunks
TN = (2_100, 67)  # an outer axis: bands of rows (490 a band of 67 float64 columns), columns in no whole vector

# (name, stored dtype of b, of a (None: a Python scalar), the result dtype)
STORED = [
    ("float16", "float16", None, "float16"),
    ("float16 b, float16 a", "float16", "float16", "float16"),
    ("swapped float64", ">f8", ">f8", "float64"),
    ("swapped float32", ">f4", None, "float32"),
    ("swapped complex128", ">c16", ">c16", "complex128"),
    ("int16 b", "int16", None, "float64"),
    ("bool b, uint8 a", "bool", "uint8", "float64"),
    ("float32 b, float64 a", "float32", "float64", "float64"),
    ("int64 b, swapped float32 a", "int64", ">f4", "float64"),
]

LAYOUTS = ["1-D", "1-D strided", "1-D reversed", "rows", "rows reversed", "Fortran lines", "Fortran rows"]


def _data(rng, shape, dtype, nan=False):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(0, 100, shape).astype(dtype)
    x = rng.standard_normal(shape) * 4
    if dtype.kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    if nan:
        x[rng.random(shape) < 0.3] = np.nan
    return x.astype(dtype)


def _coefficients(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":  # (0 and 1: a reset where 0)
        return (rng.random(shape) < 0.95).astype(dtype)
    return rng.uniform(0.5, 1.0, shape).astype(dtype)


def _laid_out(x, layout):
    """``x`` (of the layout's logical shape) as the layout lays it, with the axis the recurrence runs along."""
    if layout == "1-D":
        return x, -1
    if layout == "1-D strided":
        wide = np.empty(x.size * 3, x.dtype)
        wide[::3] = x
        return wide[::3], -1
    if layout == "1-D reversed":
        return np.ascontiguousarray(x[::-1])[::-1], -1
    if layout == "rows":
        return x, 0
    if layout == "rows reversed":
        return np.ascontiguousarray(x[::-1])[::-1], 0
    if layout == "Fortran lines":
        return np.asfortranarray(x), 0  # (each line contiguous)
    return np.asfortranarray(x.T), 1  # (lines along the last axis, side by side in memory: rows)


def _shape(layout):
    return (N,) if layout.startswith("1-D") else TN


def _computing(dtype):
    return np.dtype(np.float32) if np.dtype(dtype) == np.float16 else np.dtype(dtype)


def _native(x):
    return x.astype(x.dtype.newbyteorder("="))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name, b_dtype, a_dtype, result", STORED, ids=[s[0] for s in STORED])
def test_linear_recurrence_stored(name, b_dtype, a_dtype, result, layout, rng):
    b, axis = _laid_out(_data(rng, _shape(layout), b_dtype), layout)
    a = 0.9 if a_dtype is None else _laid_out(_coefficients(rng, _shape(layout), a_dtype), layout)[0]
    shape = b.shape
    reset = rng.random(shape) < 0.002
    compute = _computing(result)
    a_ref = np.asarray(a, compute) if a_dtype is None else a.astype(compute)
    for kw in ({}, {"reset": reset, "exclusive": True}, {"direction": "decreasing", "reset": reset}):
        where = f"{name} {layout} {kw.get('direction', '')} reset={'reset' in kw}"
        want = simdscan.linear_recurrence(a_ref, b.astype(compute), axis, **kw).astype(result)
        got = simdscan.linear_recurrence(a, b, axis, **kw)
        assert_same_bits(got, want, where)
        swapped = np.empty(shape, np.dtype(result).newbyteorder())
        assert simdscan.linear_recurrence(a, b, axis, out=swapped, **kw) is swapped
        assert_same_bits(_native(swapped), want, f"{where} swapped out")
        stepped = np.empty(shape[:-1] + (shape[-1] * 2,), result)[..., ::2]
        simdscan.linear_recurrence(a, b, axis, out=stepped, **kw)
        assert_same_bits(stepped.copy(), want, f"{where} out[..., ::2]")


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float16", ">f8", ">f4", "int32", "bool"])
@pytest.mark.parametrize("adjust, ignore_na", [(True, False), (False, False), (True, True), (False, True)])
def test_ewm_mean_stored(dtype, adjust, ignore_na, layout, rng):
    x, axis = _laid_out(_data(rng, _shape(layout), dtype, nan=True), layout)
    shape = x.shape
    result = np.dtype(np.float64) if x.dtype.kind in "biu" else x.dtype.newbyteorder("=")
    where = f"{dtype} {layout} adjust={adjust} ignore_na={ignore_na}"
    want = simdscan.ewm_mean(x.astype(_computing(result)), axis, alpha=0.05, adjust=adjust,
                             ignore_na=ignore_na).astype(result)
    assert_same_bits(simdscan.ewm_mean(x, axis, alpha=0.05, adjust=adjust, ignore_na=ignore_na), want, where)
    swapped = np.empty(shape, result.newbyteorder())
    simdscan.ewm_mean(x, axis, alpha=0.05, adjust=adjust, ignore_na=ignore_na, out=swapped)
    assert_same_bits(_native(swapped), want, f"{where} swapped out")


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [">f8", ">f4", ">f2", ">c8"])
@pytest.mark.parametrize("limit", [2, 40])
def test_limited_fill_swapped(dtype, limit, layout, rng):
    x, axis = _laid_out(_data(rng, _shape(layout), dtype, nan=True), layout)
    reset = rng.random(x.shape) < 0.01
    for kw in ({}, {"reset": reset}, {"reset": reset, "direction": "decreasing"}):
        where = f"{dtype} {layout} limit={limit} {kw.get('direction', '')} reset={'reset' in kw}"
        want = simdscan.ffill(_native(x), axis, limit=limit, **kw)
        assert_same_bits(simdscan.ffill(x, axis, limit=limit, **kw), want, where)
        in_place = x.copy()
        assert simdscan.ffill(in_place, axis, limit=limit, out=in_place, **kw) is in_place
        assert_same_bits(_native(in_place), want, f"{where} in place")


@pytest.mark.parametrize("call", ["linear_recurrence", "ewm_mean", "ffill"])
@pytest.mark.parametrize("dtype", ["float16", ">f8"])
def test_stored_in_place_and_threads(call, dtype, restore_thread_count):
    """In place and on 1 to 4 threads (a long line's chunks split among them; the rows' tiles): the same bits."""
    rng = np.random.default_rng(seed_of("stored threads", call, dtype))
    run = {"linear_recurrence": lambda x, axis, **kw: simdscan.linear_recurrence(0.99, x, axis, **kw),
           "ewm_mean": lambda x, axis, **kw: simdscan.ewm_mean(x, axis, alpha=0.01, **kw),
           "ffill": lambda x, axis, **kw: simdscan.ffill(x, axis, limit=3, **kw)}[call]
    for shape, axis in (((300_001,), -1), ((4_000, 150), 0)):
        x = _data(rng, shape, dtype, nan=True)
        simdscan.set_num_threads(1)
        want = run(x, axis)
        for threads in (2, 3, 4):
            simdscan.set_num_threads(threads)
            assert_same_bits(run(x, axis), want, f"{call} {dtype} {shape} on {threads} threads")
        in_place = x.copy()
        assert run(in_place, axis, out=in_place) is in_place
        assert_same_bits(_native(in_place), _native(want), f"{call} {dtype} {shape} in place")


@pytest.mark.parametrize("dtype", ["float16", ">f8", "int32"])
def test_stored_out_allocates_nothing_full_size(dtype):
    """With out= given, converting the operands allocates no full-size array in Python."""
    rng = np.random.default_rng(seed_of("stored tracemalloc", dtype))
    x = _data(rng, (400_000,), dtype)
    result = np.dtype(np.float64) if x.dtype.kind in "biu" else x.dtype
    a = _coefficients(rng, x.shape, result.newbyteorder(">"))
    out = np.empty(x.shape, result)
    rows, rows_out = x.reshape(4_000, 100), out.reshape(4_000, 100)
    calls = [lambda: simdscan.linear_recurrence(a, x, out=out),
             lambda: simdscan.linear_recurrence(0.9, rows, 0, out=rows_out),
             lambda: simdscan.ewm_mean(x, alpha=0.1, adjust=False, out=out),
             lambda: simdscan.ewm_mean(rows, 0, alpha=0.1, out=rows_out)]
    if x.dtype.kind == "f":
        calls.append(lambda: simdscan.ffill(x, limit=3, out=out))
    for call in calls:
        call()  # (outside the trace: nothing lazily imported or cached counted)
        tracemalloc.start()
        try:
            call()
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < out.nbytes // 4, f"{peak} bytes allocated for an out of {out.nbytes}"


def test_stored_operands_that_do_not_cast():
    """A complex b or a with a real result dtype raises TypeError, nothing written."""
    b = np.ones(10, np.complex128)
    out = np.zeros(10)
    with pytest.raises(TypeError):
        simdscan.linear_recurrence(0.5, b, dtype=np.float64, out=out)
    with pytest.raises(TypeError):
        simdscan.linear_recurrence(np.full(10, 0.5 + 0j), np.ones(10), dtype=np.float64, out=out)
    assert not out.any()


@pytest.mark.parametrize("call", ["linear_recurrence", "ewm_mean", "ffill"])
def test_swapped_outputs_streamed(call):
    """A byte-swapped out large enough to stream past the caches (conftest's threshold), at every element offset within
    a cache line: the bits of the native result."""
    rng = np.random.default_rng(seed_of("swapped streamed", call))
    run = {"linear_recurrence": lambda x, **kw: simdscan.linear_recurrence(0.99, x, **kw),
           "ewm_mean": lambda x, **kw: simdscan.ewm_mean(x, alpha=0.01, **kw),
           "ffill": lambda x, **kw: simdscan.ffill(x, limit=3, **kw)}[call]
    x = _data(rng, (600_001,), "float64", nan=True)
    want = run(x)
    for offset in range(8):
        out = np.empty(x.size + 8, ">f8")[offset:offset + x.size]
        assert run(x, out=out) is out
        assert_same_bits(_native(out), want, f"{call} swapped out at element {offset}")
