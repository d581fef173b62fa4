"""Inputs in unusual memory: huge strides, more than 2**31 elements, read-only, broadcast, byte-swapped,
unaligned and odd-strided arrays; inputs left untouched and contiguous ones not copied."""

import tracemalloc

import numpy as np
import pytest

import simdscan
from data import make_data, seed_of
from params import func, variants
from reference import OPS, SUPPORTED_DTYPES, assert_unchanged, check_scan, check_values, expected, snapshot

pytestmark = pytest.mark.kernels  # the outcome depends on the ISA tier and the xsimd version: CI runs these per tier


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
                for direction, dec, exclusive in variants():
                    r = func(op)(view, direction=direction, exclusive=exclusive)
                    check_scan(r, op, view, None, dec, exclusive)
        # 2-D: huge stride on the outer axis, unit stride on the inner one
        w = np.lib.stride_tricks.as_strided(mm, shape=(n, 3), strides=(8 * step, 8))
        w[...] = np.arange(1, 3 * n + 1).reshape(n, 3) % 4 + 1
        for axis in (0, 1, -1):
            for op in OPS:
                for direction, dec, exclusive in variants():
                    check_scan(func(op)(w, axis, direction=direction, exclusive=exclusive),
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
        r = func(op)(a, axis, direction="decreasing", exclusive=True)
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
            for direction, dec, exclusive in variants():
                r = func(op)(a, axis, direction=direction, exclusive=exclusive)
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
            for direction, dec, exclusive in variants():
                r = func(op)(a, axis, direction=direction, exclusive=exclusive)
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
            for direction, dec, exclusive in variants():
                r = func(op)(a, axis, direction=direction, exclusive=exclusive)
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
        for direction, dec, exclusive in variants():
            check_scan(func(op)(a, axis, direction=direction, exclusive=exclusive), op, a, axis, dec, exclusive)
            out = _unaligned((a.size,) if axis is None else a.shape, dtype)
            assert func(op)(a, axis, direction=direction, exclusive=exclusive, out=out) is out
            check_scan(out, op, a, axis, dec, exclusive)
            b = _unaligned(a.shape, dtype, base)
            func(op)(b, axis if axis is not None else 1, direction=direction, exclusive=exclusive, out=b)
            check_values(b, expected(op, base, axis if axis is not None else 1, dec, exclusive))


@pytest.mark.parametrize("op", OPS)
def test_strides_not_a_multiple_of_the_itemsize(op):
    """A field of a packed structured array: 9-byte strides, misaligned."""
    rec = np.zeros(101, dtype=[("tag", "u1"), ("x", "f8")])
    rec["x"] = make_data(np.random.default_rng(9), (101,), np.float64, op)
    a = rec["x"]
    assert a.strides == (9,)
    for direction, dec, exclusive in variants():
        check_scan(func(op)(a, direction=direction, exclusive=exclusive), op, a, None, dec, exclusive)
    rec2 = np.zeros(101, dtype=[("tag", "u1"), ("y", "i4")])
    rec2["y"] = np.arange(101) % 7 - 3
    b = rec2["y"]
    for direction, dec, exclusive in variants():
        check_scan(func(op)(b, direction=direction, exclusive=exclusive), op, b, None, dec, exclusive)
        copy = b.copy()
        assert func(op)(b, direction=direction, exclusive=exclusive, out=b) is b
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

