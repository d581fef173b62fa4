"""Shapes aimed at particular kernel paths: the packed short-row kernel (rows of 2..64 elements stored back to
back), the outer-axis path (bit-identical to NumPy's own order), and lines crossing the 256 KiB chunk size; and the
runner each of reference.PATHS' layouts takes (the core's private hook _core._last_path)."""

from __future__ import annotations

import numpy as np
import pytest

import simdscan
from data import make_data
from reference import PATHS, check_scan

pytestmark = pytest.mark.kernels  # the outcome depends on the ISA tier and the xsimd version: CI runs these per tier

INTEGER_AND_FLOAT = ["int8", "uint16", "int32", "uint64", "float32", "float64"]

# The runner each catalogued layout aims at (reference.PATHS), for a plain sum and for a running maximum with indices.
RUNNERS = {
    "line-chunked": ("direct_lines", "indexed_lines"), "line-strided": ("lines_buffered", "indexed_lines"),
    "line-byteswapped": ("lines_buffered", "indexed_lines"), "rows-packed": ("direct_rows", "indexed_lines"),
    "rows-pairs": ("direct_rows", "indexed_lines"), "rows-odd": ("direct_rows", "indexed_lines"),
    "outer": ("outer_combined", "indexed_rows"), "outer-fortran": ("outer_combined", "indexed_rows"),
    "outer-strided": ("outer_staged", "indexed_rows"), "outer-byteswapped": ("outer_staged", "indexed_rows"),
    "middle-axis": ("direct_rows", "indexed_lines"), "long": ("direct_lines", "indexed_lines"),
    "rows8": ("direct_rows", "indexed_lines"), "rows37": ("direct_rows", "indexed_lines"),
    "strided": ("lines_buffered", "indexed_lines"), "byteswapped": ("lines_buffered", "indexed_lines"),
}


# (Not the threaded layouts: past the streaming threshold the outer path keeps its running states aside.)
@pytest.mark.parametrize("path", [p for purpose in ("exact", "kernels") for p in PATHS[purpose]],
                         ids=lambda p: p.name)
def test_catalogued_layouts_take_the_runner_they_aim_at(path):
    a, axis = path.build(lambda shape: np.ones(shape, np.float32))
    plain, indexed = RUNNERS[path.name]
    simdscan.cumsum(a, axis)
    assert simdscan._core._last_path() == plain
    simdscan.cummax(a, axis, return_indices=True)
    assert simdscan._core._last_path() == indexed
    simdscan.cumsum(a, axis, compensated=True)  # running states kept aside: the outer path's carry row
    assert simdscan._core._last_path() == plain.replace("outer_combined", "outer_carried")


def test_summed_area_tables_take_one_pass():
    image = np.ones((300, 257), np.uint8)
    for axes in ((0, 1), (1, 0)):
        np.testing.assert_array_equal(simdscan.cumsum(image, axis=axes, dtype=np.int32),
                                      np.cumsum(np.cumsum(image, 0, dtype=np.int32), 1))
        assert simdscan._core._last_path() == "two_axes"


@pytest.mark.parametrize("dtype", INTEGER_AND_FLOAT)
@pytest.mark.parametrize("row", [2, 4, 8, 16, 32, 64, 3, 12])
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_packed_short_rows(dtype, row, op):
    # 1001 rows: whole vectors of rows plus a remainder of rows left to the per-row path.
    rng = np.random.default_rng(row)
    a = make_data(rng, (1001, row), np.dtype(dtype), op)
    for decreasing in (False, True):
        for exclusive in (False, True):
            got = getattr(simdscan, op)(
                a, axis=1, direction="decreasing" if decreasing else "increasing", exclusive=exclusive
            )
            check_scan(got, op, a, axis=1, decreasing=decreasing, exclusive=exclusive)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(300, 1000), (64, 4096), (5, 3, 70)])
def test_outer_axis_is_bit_identical_to_numpy(dtype, shape):
    # Along an outer axis each output row is the previous output row plus the input row, NumPy's exact order.
    rng = np.random.default_rng(7)
    a = rng.standard_normal(shape).astype(dtype)
    assert simdscan.cumsum(a, axis=0).tobytes() == np.cumsum(a, axis=0).tobytes()
    assert simdscan.cumprod(a, axis=0).tobytes() == np.cumprod(a, axis=0).tobytes()
    flipped = np.flip(np.cumsum(np.flip(a, 0), axis=0), 0)
    assert simdscan.cumsum(a, axis=0, direction="decreasing").tobytes() == flipped.tobytes()


@pytest.mark.parametrize("dtype", ["float32", "complex128", "int16", "float16"])
@pytest.mark.parametrize("length", [65536 - 1, 65536, 65536 + 1, 3 * 65536 + 17])
def test_lines_across_chunk_boundaries(dtype, length):
    rng = np.random.default_rng(length)
    a = make_data(rng, (length,), np.dtype(dtype), "cumsum")
    for decreasing in (False, True):
        got = simdscan.cumsum(a, direction="decreasing" if decreasing else "increasing", exclusive=decreasing)
        check_scan(got, "cumsum", a, decreasing=decreasing, exclusive=decreasing)


@pytest.mark.parametrize("layout", ["byte-swapped", "strided"])
@pytest.mark.parametrize("width", [1023, 2500])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_staged_outer_rows_wider_than_a_staging_block(layout, width, dtype):
    # The staged outer path scans each row in segments of one staging block (1024 elements), each segment with
    # its own running states: rows of 2500 end in a partial segment, and a compensated state keeps two arrays.
    rng = np.random.default_rng(width)
    native = (rng.standard_normal((40, width)) + (1j if dtype == "complex128" else 0)).astype(dtype)
    native[3, ::7] = -0.0
    if layout == "byte-swapped":
        staged = native.astype(native.dtype.newbyteorder())
    else:
        staged = np.repeat(native, 2, axis=1)[:, ::2]
    for options in ({}, {"exclusive": True}, {"direction": "decreasing"}, {"compensated": True}):
        expected = simdscan.cumsum(native, axis=0, **options)
        if not options:
            assert expected.tobytes() == np.cumsum(native, axis=0).tobytes()
        assert np.asarray(simdscan.cumsum(staged, axis=0, **options), dtype).tobytes() == expected.tobytes()
        out = np.full(staged.shape, np.nan, staged.dtype)
        simdscan.cumsum(staged, axis=0, out=out, **options)
        assert out.astype(dtype).tobytes() == expected.tobytes()


def test_staged_outer_float16_rows_wider_than_a_staging_block():
    # float16 runs the outer axis in float32 and rounds each output: NumPy's order in float32, then one rounding.
    a = np.random.default_rng(3).standard_normal((50, 2500)).astype(np.float16)
    expected = np.cumsum(a.astype(np.float32), axis=0).astype(np.float16)
    assert simdscan.cumsum(a, axis=0).tobytes() == expected.tobytes()
    assert simdscan.cumsum(a[:, ::-1], axis=0).tobytes() == expected[:, ::-1].tobytes()


@pytest.mark.parametrize("op, flags", [("cumsum", {}), ("cumprod", {}), ("cumsum", {"compensated": True})],
                         ids=["cumsum", "cumprod", "cumsum-compensated"])
@pytest.mark.parametrize("length", [15, 1000, 2048 + 7, 2 * 65536 + 33])
def test_packed_float16_lines_match_staged_ones(op, flags, length):
    # A packed float16 line converts in registers; a strided one goes through staging's buffer: the same float32
    # (compensated: float64) arithmetic, so the same bits (lines over 65536 elements cross a chunk).
    rng = np.random.default_rng(length)
    packed = make_data(rng, (3, length), np.dtype(np.float16), op)
    strided = np.repeat(packed, 2, axis=1)[:, ::2]
    for mode in ({}, {"exclusive": True}, {"direction": "decreasing"}, {"direction": "decreasing", "exclusive": True}):
        options = {**mode, **flags}
        expected = getattr(simdscan, op)(strided, axis=1, **options)
        check_scan(expected, op, packed, axis=1, decreasing="direction" in options, exclusive="exclusive" in options)
        assert getattr(simdscan, op)(packed, axis=1, **options).tobytes() == expected.tobytes()
        assert getattr(simdscan, op)(packed[:, ::-1], axis=1, **options).tobytes() == getattr(simdscan, op)(
            strided[:, ::-1], axis=1, **options
        ).tobytes()
        in_place = packed.copy()
        getattr(simdscan, op)(in_place, axis=1, out=in_place, **options)
        assert in_place.tobytes() == expected.tobytes()
