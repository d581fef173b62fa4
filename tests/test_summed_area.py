"""The summed-area table in one pass: cumsum with a tuple axis, one of whose first two axes is contiguous, runs row
by row (the scan of the row and its step along the other axis in one loop, in the order the axes are given), and
must give the bits of the two scans in turn, as two separate calls make them, for every direction, flag, dtype,
layout and thread count. test_axes.py checks the same calls against nested NumPy scans.
"""

import itertools

import numpy as np
import pytest

import simdscan
from data import seed_of
from params import TESTS_STREAMING_THRESHOLD
from reference import directional
from family_reference import assert_same_bits  # -0.0 and NaN payloads count: the infinities leave NaNs

# the outcome depends on the ISA tier and the xsimd version: CI runs these per tier
pytestmark = [pytest.mark.kernels, pytest.mark.usefixtures("restore_thread_count")]

DTYPES = ["float32", "float64", "int32", "uint8", "int64", "uint16", "complex64"]
DIRECTIONS = list(itertools.product(("increasing", "decreasing"), repeat=2))
FLAGS = list(itertools.product((False, True), repeat=2))


def two_calls(x, axes, directions, exclusives, out=None):
    """The scans one after the other, each a call of its own: the first into out (or a new array), the second in
    place on that."""
    first = simdscan.cumsum(x, axes[0], direction=directions[0], exclusive=exclusives[0], out=out)
    return simdscan.cumsum(first, axes[1], direction=directions[1], exclusive=exclusives[1], out=first)


def data(rng, shape, dtype):
    """Small values (floats with -0.0, a spread of magnitudes and infinities, so rounding and signs of zero show)."""
    if np.dtype(dtype).kind in "iu":
        return rng.integers(0, 200, size=shape).astype(dtype)
    x = rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, size=shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    x = x.astype(dtype)
    flat = x.reshape(-1)
    flat[rng.random(flat.size) < 0.02] = -0.0
    if np.dtype(dtype).kind == "f":
        flat[rng.integers(0, flat.size, 3)] = [np.inf, -np.inf, np.inf]
    return x


# Widths past every vector length (64 one-byte lanes) with ragged tails, and the widest a chunk holds in float32.
CASES = [(dtype, shape) for dtype in DTYPES for shape in ((7, 130), (40, 1000))] + [("float32", (3, 65536))]


@pytest.mark.parametrize("axes", [(0, 1), (1, 0)], ids=["rows last", "rows first"])
@pytest.mark.parametrize("dtype, shape", CASES)
def test_one_pass_gives_the_two_scans_bits(dtype, shape, axes):
    rng = np.random.default_rng(seed_of("summed area", dtype, shape))
    x = data(rng, shape, dtype)
    with np.errstate(all="ignore"):  # inf - inf along the table
        for directions in DIRECTIONS:
            for exclusives in FLAGS:
                where = f"{dtype} {shape} {axes} {directions} exclusive={exclusives}"
                got = simdscan.cumsum(x, axes, direction=directions, exclusive=exclusives)
                assert_same_bits(got, two_calls(x, axes, directions, exclusives), where)


def nested_numpy(x, axes, directions, exclusives):
    """NumPy's scans in turn, in int64 (reference.directional: flips for decreasing, 0 shifted in for exclusive)."""
    y = x.astype(np.int64)
    for axis, direction, exclusive in zip(axes, directions, exclusives):
        y = directional(np.cumsum, y, axis, direction == "decreasing", exclusive, 0)
    return y


# uint8 rows are summed two registers at a time in 16-bit lanes: widths about one and two registers of every tier
# (4 to 64 int32 lanes), all 255s (the largest sums a register pair holds) and random bytes.
@pytest.mark.parametrize("axes", [(0, 1), (1, 0)], ids=["rows last", "rows first"])
@pytest.mark.parametrize("result", ["int32", "float64"])
def test_uint8_rows_match_numpy(result, axes):
    rng = np.random.default_rng(seed_of("uint8 rows", result, axes))
    for width in (1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100):
        for x in (np.full((5, width), 255, np.uint8), rng.integers(0, 256, size=(6, width), dtype=np.uint8)):
            for directions in DIRECTIONS:
                for exclusives in FLAGS:
                    got = simdscan.cumsum(x, axes, direction=directions, exclusive=exclusives, dtype=result)
                    want = nested_numpy(x, axes, directions, exclusives).astype(result)
                    np.testing.assert_array_equal(got, want, strict=True,
                                                  err_msg=f"{width} {directions} exclusive={exclusives}")


# Exact sums take the one pass at any width, streamed too: rows narrower than a register pair, two images.
@pytest.mark.parametrize("source, result", [("uint8", "int32"), ("uint8", "float64"), ("int32", "int32")])
def test_streamed_narrow_rows_match_numpy(source, result):
    rng = np.random.default_rng(seed_of("streamed narrow rows", source, result))
    x = rng.integers(0, 256, size=(2, 40000, 33)).astype(source)
    assert 2 * x[0].size * np.dtype(result).itemsize >= TESTS_STREAMING_THRESHOLD
    for directions, exclusives in ((("increasing", "increasing"), (False, False)),
                                   (("decreasing", "decreasing"), (True, True))):
        got = simdscan.cumsum(x, (1, 2), direction=directions, exclusive=exclusives, dtype=result)
        want = nested_numpy(x, (1, 2), directions, exclusives).astype(result)
        np.testing.assert_array_equal(got, want, strict=True, err_msg=f"{directions} exclusive={exclusives}")


@pytest.mark.parametrize("layout", ["cv2 view", "in place", "reversed rows", "batch", "batch, middle axis first",
                                    "batch, rows first", "in place, rows first"])
def test_layouts_and_in_place(layout):
    rng = np.random.default_rng(seed_of("summed area layouts", layout))
    x = rng.integers(-50, 50, size=(5, 60, 300)).astype(np.float32)
    axes = (1, 2)
    if layout == "cv2 view":  # out=integral[1:, 1:] of an (H + 1, W + 1) table
        x = x[0]
        axes = (0, 1)
    elif layout == "reversed rows":
        x = x[:, ::-1, :]
    elif layout == "batch, middle axis first":
        axes = (0, 2)
    elif layout.endswith("rows first"):
        axes = (2, 1)
    for directions in DIRECTIONS:
        for exclusives in FLAGS:
            where = f"{layout} {directions} exclusive={exclusives}"
            want = two_calls(x, axes, directions, exclusives)
            if layout == "cv2 view":
                table = np.full((x.shape[0] + 1, x.shape[1] + 1), 7.0, dtype=np.float32)
                got = simdscan.cumsum(x, axes, direction=directions, exclusive=exclusives, out=table[1:, 1:])
                assert (table[0] == 7).all() and (table[:, 0] == 7).all(), where
            elif layout.startswith("in place"):
                y = x.copy()
                got = simdscan.cumsum(y, axes, direction=directions, exclusive=exclusives, out=y)
                assert got is y, where
            else:
                got = simdscan.cumsum(x, axes, direction=directions, exclusive=exclusives)
            assert_same_bits(got, want, where)
    # integers exactly as NumPy's nested scans
    xi = x.astype(np.int64)
    np.testing.assert_array_equal(simdscan.cumsum(xi, axes), np.cumsum(np.cumsum(xi, axes[0]), axes[1]))


# Tables of 8 MiB or more (params.TESTS_STREAMING_THRESHOLD) stream their rows past the caches, realigned in registers
# where a row's start is not aligned to a vector (the cv2 view's rows start 4 or 8 bytes further on each time); two
# images, one per thread.
@pytest.mark.parametrize("axes", [(1, 2), (2, 1)], ids=["rows last", "rows first"])
@pytest.mark.parametrize("layout", ["new", "cv2 view"])
@pytest.mark.parametrize("source, result", [("float32", "float32"), ("float64", "float64"), ("int32", "int32"),
                                            ("int64", "int64"), ("uint8", "int32"), ("uint8", "float64"),
                                            ("uint16", "float64")])
def test_streamed_tables_give_the_two_scans_bits(source, result, layout, axes):
    rng = np.random.default_rng(seed_of("streamed summed area", source, result))
    shape = (2, 530, 2051) if np.dtype(result).itemsize == 4 else (2, 265, 2051)
    x = data(rng, shape, source)
    assert 2 * x[0].size * np.dtype(result).itemsize >= TESTS_STREAMING_THRESHOLD
    directions_and_flags = [(("increasing", "increasing"), (False, False)),
                            (("decreasing", "increasing"), (True, False)),
                            (("increasing", "decreasing"), (False, True)),
                            (("decreasing", "decreasing"), (True, True))]
    with np.errstate(all="ignore"):  # inf - inf along the table
        for directions, exclusives in directions_and_flags:
            where = f"{source} to {result} {layout} {axes} {directions} exclusive={exclusives}"
            want = two_calls(x.astype(result), axes, directions, exclusives)
            if layout == "cv2 view":
                table = np.full((2, shape[1] + 1, shape[2] + 1), 7, dtype=result)
                got = simdscan.cumsum(x, axes, direction=directions, exclusive=exclusives, dtype=result,
                                      out=table[:, 1:, 1:])
                assert (table[:, 0] == 7).all() and (table[:, :, 0] == 7).all(), where
            else:
                got = simdscan.cumsum(x, axes, direction=directions, exclusive=exclusives, dtype=result)
            assert_same_bits(got, want, where)


def test_thread_count_does_not_change_a_bit():
    rng = np.random.default_rng(seed_of("summed area threads"))
    x = data(rng, (16, 200, 500), "float32")
    for axes in ((1, 2), (2, 1)):
        simdscan.set_num_threads(1)
        want = simdscan.cumsum(x, axes, direction=("decreasing", "increasing"), exclusive=(False, True))
        for threads in (2, 3, 8):
            simdscan.set_num_threads(threads)
            got = simdscan.cumsum(x, axes, direction=("decreasing", "increasing"), exclusive=(False, True))
            assert_same_bits(got, want, f"{axes} {threads} threads")
