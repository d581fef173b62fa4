"""Shapes aimed at particular kernel paths: the packed short-row kernel (rows of 2..64 elements stored back to
back), the outer-axis path (bit-identical to NumPy's own order), and lines crossing the 256 KiB chunk size."""

from __future__ import annotations

import numpy as np
import pytest

import simdscan
from data import make_data
from reference import check_scan

pytestmark = pytest.mark.kernels  # the outcome depends on the ISA tier and the xsimd version: CI runs these per tier

INTEGER_AND_FLOAT = ["int8", "uint16", "int32", "uint64", "float32", "float64"]


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
