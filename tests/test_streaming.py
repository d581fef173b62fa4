"""Scans that read and write 8 MiB or more together (params.TESTS_STREAMING_THRESHOLD, on every CPU), their output
not their input, store it past the caches (non-temporal stores, scan.hpp's streaming_threshold): float scans put
each aligned vector together from two computed ones, the others store the elements before the first aligned vector as
usual. Each path that streams (a long line, rows, an outer axis), with `out` at several offsets from a vector
boundary, both directions and thread counts, against the NumPy reference and bit for bit against the same scan in
place (which does not stream)."""

import numpy as np
import pytest

import simdscan
from compare import assert_bit_identical
from data import scan_data, seed_of
from family_reference import check_extremum_pair
from params import TESTS_STREAMING_THRESHOLD
from reference import check_scan

# the outcome depends on the ISA tier and the xsimd version: CI runs these per tier
pytestmark = [pytest.mark.kernels, pytest.mark.usefixtures("restore_thread_count")]

STREAMED_BYTES = TESTS_STREAMING_THRESHOLD  # the output's bytes alone reach it
ROW = 4099  # elements per row of the 2-D layouts: no row starts on a vector boundary after the first
LAYOUTS = ["line", "rows", "outer"]  # a 1-D line's chunks, rows scanned along axis 1, a scan along axis 0


def streamed_input(layout, dtype, op):
    itemsize = np.dtype(dtype).itemsize
    elements = STREAMED_BYTES // itemsize + 77
    shape = (elements,) if layout == "line" else (-(-elements // ROW), ROW)
    rng = np.random.default_rng(seed_of("streaming", layout, dtype, op))
    return scan_data(rng, shape, dtype, "cumsum" if op == "cummax" else op), 1 if layout == "rows" else 0


def placed_out(shape, dtype, offset):
    """An out of ``shape`` that starts ``offset`` elements into a fresh buffer of 7s (64 to spare after it), and the
    check that a call wrote nothing outside it."""
    size = int(np.prod(shape))
    buffer = np.full(size + offset + 64, 7, dtype=dtype)

    def wrote_only_out(where):
        outside = np.concatenate([buffer[:offset], buffer[offset + size :]])
        assert np.all(outside == 7), f"{where}: wrote outside out"

    return buffer[offset : offset + size].reshape(shape), wrote_only_out


def scan_into(op, a, out, axis, decreasing, exclusive, compensated):
    kwargs = {"compensated": True} if compensated else {}
    direction = "decreasing" if decreasing else "increasing"
    return getattr(simdscan, op)(a, axis=axis, direction=direction, exclusive=exclusive, out=out, **kwargs)


def check_extremum(got, a, axis, decreasing, exclusive):
    flip = (lambda v: np.flip(v, axis)) if decreasing else (lambda v: v)
    running = flip(np.maximum.accumulate(flip(a), axis=axis))
    if exclusive:
        lowest = -np.inf if a.dtype.kind == "f" else np.iinfo(a.dtype).min
        identity = np.full_like(np.take(a, [0], axis=axis), lowest)
        running = flip(np.concatenate([identity, np.take(flip(running), range(a.shape[axis] - 1), axis=axis)], axis))
    np.testing.assert_array_equal(got, running)


@pytest.mark.parametrize("offset", [0, 5])  # elements from the start of a fresh buffer
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize(
    ("op", "dtype", "compensated"),
    [
        ("cumsum", "int8", False),
        ("cumsum", "float32", False),
        ("cumsum", "float64", False),
        ("cumprod", "uint64", False),
        ("cumsum", "float32", True),  # float64 lanes stored narrowed
        ("cumsum", "float64", True),
        ("cummax", "float32", False),
        ("cummax", "int16", False),
    ],
)
def test_streamed_outputs(op, dtype, compensated, layout, offset):
    a, axis = streamed_input(layout, dtype, op)
    # One thread, and three (two run a streamed line as one, as one does); each direction and exclusive mode once.
    for threads in (1, 3):
        simdscan.set_num_threads(threads)
        for decreasing, exclusive in ((False, False), (True, True)):
            where = f"{op} {dtype} {layout} out+{offset} threads={threads} dec={decreasing} excl={exclusive}"
            out, wrote_only_out = placed_out(a.shape, a.dtype, offset)
            got = scan_into(op, a, out, axis, decreasing, exclusive, compensated)
            assert got is out, where
            wrote_only_out(where)
            if op == "cummax":
                check_extremum(got, a, axis, decreasing, exclusive)
            else:
                check_scan(got, op, a, axis=axis, decreasing=decreasing, exclusive=exclusive, msg=where)
            in_place = a.copy()
            scan_into(op, in_place, in_place, axis, decreasing, exclusive, compensated)
            assert_bit_identical(got, in_place, where)


# A running extremum's values and the positions that supplied them, streamed each from its own first aligned place:
# out and the indices at different offsets from a vector boundary.
@pytest.mark.parametrize(("values_offset", "indices_offset"), [(0, 0), (5, 3)])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize(("op", "dtype"), [("cummax", "float32"), ("cummin", "int16")])
def test_streamed_indices(op, dtype, layout, values_offset, indices_offset):
    a, axis = streamed_input(layout, dtype, "cumsum")  # small integers: many ties, the latest of which supplies
    if a.dtype.kind == "f":
        a.reshape(-1)[[a.size // 3, a.size // 3 + 1, a.size - 2]] = np.nan
    for threads in (1, 3):
        simdscan.set_num_threads(threads)
        for decreasing, exclusive in ((False, False), (True, True)):
            where = (f"{op} {dtype} {layout} out+{values_offset} indices+{indices_offset} threads={threads} "
                     f"dec={decreasing} excl={exclusive}")
            values, values_only = placed_out(a.shape, a.dtype, values_offset)
            indices, indices_only = placed_out(a.shape, np.intp, indices_offset)
            out = (values, indices)
            direction = "decreasing" if decreasing else "increasing"
            got = getattr(simdscan, op)(a, axis=axis, direction=direction, exclusive=exclusive, out=out,
                                        return_indices=True)
            assert got[0] is out[0] and got[1] is out[1], where
            values_only(where)
            indices_only(where)
            check_extremum_pair(got, op, a, axis, decreasing, exclusive, where, fast=True)


# Inputs staged block by block (a narrower type widened with dtype=, byte-swapped, strided) into a packed native out:
# the kernel writes out itself, streamed past this size, with the bits of the scan of a plain copy in place.
@pytest.mark.parametrize("offset", [0, 5])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize(
    ("source", "result"),
    [("uint8", "int64"), ("int16", "float32"), ("uint32", "float64"), (">f4", "float32"), ("float64[::2]", "float64")],
)
def test_staged_inputs_into_streamed_outputs(source, result, layout, offset):
    plain, axis = streamed_input(layout, result, "cumsum")
    if source.endswith("[::2]"):
        a = np.repeat(plain, 2, axis=axis)[(slice(None),) * axis + (slice(None, None, 2),)]
        assert not a.flags.c_contiguous and np.array_equal(a, plain)
    elif np.dtype(source).itemsize < np.dtype(result).itemsize:
        a = plain.astype(source)
        plain = a.astype(result)
    else:
        a = plain.astype(source)
    for threads in (1, 3):
        simdscan.set_num_threads(threads)
        for decreasing, exclusive in ((False, False), (True, True)):
            where = f"{source} to {result} {layout} out+{offset} threads={threads} dec={decreasing} excl={exclusive}"
            out, wrote_only_out = placed_out(a.shape, result, offset)
            direction = "decreasing" if decreasing else "increasing"
            got = simdscan.cumsum(a, axis=axis, direction=direction, exclusive=exclusive, dtype=result, out=out)
            assert got is out, where
            wrote_only_out(where)
            in_place = plain.copy()
            scan_into("cumsum", in_place, in_place, axis, decreasing, exclusive, False)
            assert_bit_identical(got, in_place, where)


# Byte-swapped outputs this large are streamed as their bytes are reversed out of the staging buffer: the bits of the
# native scan in place, in the other byte order, and nothing written outside out.
@pytest.mark.parametrize("offset", [0, 5])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize(
    ("dtype", "swapped_input"), [("float32", True), ("float64", False), ("int16", True), ("uint64", True)]
)
def test_byteswapped_streamed_outputs(dtype, swapped_input, layout, offset):
    plain, axis = streamed_input(layout, dtype, "cumsum")
    a = plain.astype(plain.dtype.newbyteorder()) if swapped_input else plain
    for threads in (1, 3):
        simdscan.set_num_threads(threads)
        for decreasing, exclusive in ((False, False), (True, True)):
            where = f"{dtype} swapped in={swapped_input} {layout} out+{offset} threads={threads} dec={decreasing}"
            out, wrote_only_out = placed_out(a.shape, np.dtype(dtype).newbyteorder(), offset)
            direction = "decreasing" if decreasing else "increasing"
            got = simdscan.cumsum(a, axis=axis, direction=direction, exclusive=exclusive, out=out)
            assert got is out, where
            wrote_only_out(where)
            in_place = plain.copy()
            scan_into("cumsum", in_place, in_place, axis, decreasing, exclusive, False)
            assert_bit_identical(got.astype(dtype), in_place, where)


# Linear recurrences this large stream their outputs as well, realigned in registers: the bits of the same recurrence
# in place (not streamed), on one thread and on several (a long line's chunks in parallel), with segments that make
# vectors go element by element between streamed ones.
@pytest.mark.parametrize("offset", [0, 5])
@pytest.mark.parametrize("layout", ["line", "rows"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_streamed_recurrences(dtype, layout, offset):
    b, axis = streamed_input(layout, dtype, "cumsum")
    rng = np.random.default_rng(seed_of("streamed recurrences", layout, dtype))
    coefficients = rng.uniform(-1, 1, b.shape).astype(dtype)
    reset = rng.random(b.shape) < 1e-4
    for threads in (1, 4):
        simdscan.set_num_threads(threads)
        for a, decreasing, exclusive in ((coefficients, False, False), (0.999, True, True)):
            where = f"{dtype} {layout} out+{offset} threads={threads} a={np.shape(a)} dec={decreasing}"
            direction = "decreasing" if decreasing else "increasing"
            out, wrote_only_out = placed_out(b.shape, dtype, offset)
            got = simdscan.linear_recurrence(a, b, axis, direction=direction, exclusive=exclusive, reset=reset,
                                             out=out)
            assert got is out, where
            wrote_only_out(where)
            in_place = b.copy()
            simdscan.linear_recurrence(a, in_place, axis, direction=direction, exclusive=exclusive, reset=reset,
                                       out=in_place)
            assert_bit_identical(got, in_place, where)


# Exponentially weighted means this large stream theirs too: the bits of the same mean in place, with runs of NaN
# long enough (ignore_na=False) to make vectors go element by element between streamed ones.
@pytest.mark.parametrize("offset", [0, 5])
@pytest.mark.parametrize("layout", ["line", "rows"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_streamed_weighted_means(dtype, layout, offset):
    x, axis = streamed_input(layout, dtype, "cumsum")
    gaps = np.random.default_rng(seed_of("streamed means", layout, dtype)).integers(0, x.size, 40)
    for run in (40, 3000):
        x.reshape(-1)[(gaps[:, None] + np.arange(run)) % x.size] = np.nan
    for threads in (1, 3):
        simdscan.set_num_threads(threads)
        for ignore_na in (False, True):
            where = f"{dtype} {layout} out+{offset} threads={threads} ignore_na={ignore_na}"
            out, wrote_only_out = placed_out(x.shape, dtype, offset)
            got = simdscan.ewm_mean(x, axis, alpha=0.01, ignore_na=ignore_na, out=out)
            assert got is out, where
            wrote_only_out(where)
            in_place = x.copy()
            simdscan.ewm_mean(in_place, axis, alpha=0.01, ignore_na=ignore_na, out=in_place)
            assert_bit_identical(got, in_place, where)
