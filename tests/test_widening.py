"""dtype= to a type that holds every input value exactly (uint8 to int32, int16 to float64, float32 to float64, ...):
the core reads the input as it is and converts it on the way (row by row in a summed-area table, else into the
result before scanning it in place), where other dtypes are cast by NumPy's astype first. Either way the result must
be the bits of the scan of ``x.astype(dtype)``, and integers NumPy's own.
"""

import itertools
import tracemalloc
import warnings

import numpy as np
import pytest

import simdscan
from data import seed_of
from family_reference import assert_same_bits

# the outcome depends on the ISA tier (each tier converts with its own vectors): CI runs these per tier
pytestmark = [pytest.mark.kernels, pytest.mark.usefixtures("restore_thread_count")]

# (input dtype, result dtypes it widens to exactly)
WIDENINGS = [
    ("bool", ["int16", "uint32", "int64", "float32", "float64"]),
    ("uint8", ["uint16", "int32", "int64", "float32", "float64"]),
    ("int8", ["int16", "int32", "int64", "float32", "float64"]),
    ("uint16", ["uint32", "int32", "uint64", "float32", "float64"]),
    ("int16", ["int32", "int64", "float32", "float64"]),
    ("uint32", ["int64", "uint64", "float64"]),
    ("int32", ["int64", "float64"]),
    ("float32", ["float64"]),
]
PAIRS = [(source, result) for source, results in WIDENINGS for result in results]
# Casts that lose values or change kind: left to astype, with the same outcome.
CASTS = [("int64", "float64"), ("float64", "float32"), ("uint8", "int8"), ("int32", "float32"), ("float16", "float64"),
         ("complex64", "complex128"), ("int64", "int32")]


def values(rng, shape, dtype):
    """Values spanning the dtype's range (bools as bytes other than 0 and 1 too, as views of other bytes hold)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 256, size=shape, dtype=np.uint8).view(np.bool_)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return (rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, size=shape)).astype(dtype)


def layouts(x):
    """The 2-D input x as the scans meet it: contiguous, transposed, reversed, strided, and an unaligned copy."""
    unaligned = np.empty(x.nbytes + 1, dtype=np.uint8)[1:].view(x.dtype).reshape(x.shape)
    unaligned[...] = x
    return {"contiguous": x, "transposed": x.T, "reversed": x[::-1, ::-2], "strided": x[::2, ::3],
            "unaligned": unaligned}


@pytest.mark.parametrize("source, result", PAIRS)
def test_one_axis_is_the_scan_of_the_cast(source, result):
    rng = np.random.default_rng(seed_of("widening one axis", source, result))
    for layout, x in layouts(values(rng, (37, 301), source)).items():
        cast = x.astype(result)
        for axis, direction, exclusive in itertools.product((None, 0, 1), ("increasing", "decreasing"), (False, True)):
            where = f"{layout} axis={axis} {direction} exclusive={exclusive}"
            with np.errstate(all="ignore"):
                got = simdscan.cumsum(x, axis, direction=direction, exclusive=exclusive, dtype=result)
                want = simdscan.cumsum(cast, axis, direction=direction, exclusive=exclusive)
            assert_same_bits(got, want, where)
        if np.dtype(result).kind in "iu":  # integers: NumPy's, which wrap the same way
            np.testing.assert_array_equal(simdscan.cumsum(x, 1, dtype=result), np.cumsum(x, 1, dtype=result))
            np.testing.assert_array_equal(simdscan.cumprod(x, 0, dtype=result), np.cumprod(x, 0, dtype=result))


@pytest.mark.parametrize("source, result", PAIRS)
def test_summed_area_table_is_the_two_scans_of_the_cast(source, result):
    rng = np.random.default_rng(seed_of("widening summed area", source, result))
    # rows past a vector and a conversion block (256 elements), with ragged tails; a batch of images
    for shape in ((7, 130), (9, 1000), (3, 4, 300)):
        x = values(rng, shape, source)
        cast = x.astype(result)
        axes_pairs = [(0, 1), (1, 0)] if len(shape) == 2 else [(1, 2), (2, 1)]
        directions_pairs = list(itertools.product(("increasing", "decreasing"), repeat=2))
        flag_pairs = list(itertools.product((False, True), repeat=2))
        for axes, directions, exclusives in itertools.product(axes_pairs, directions_pairs, flag_pairs):
            where = f"{shape} {axes} {directions} exclusive={exclusives}"
            with np.errstate(all="ignore"):
                got = simdscan.cumsum(x, axes, direction=directions, exclusive=exclusives, dtype=result)
                want = simdscan.cumsum(cast, axes, direction=directions, exclusive=exclusives)
            assert_same_bits(got, want, where)
        if np.dtype(result).kind in "iu":
            a, b = axes_pairs[0]
            np.testing.assert_array_equal(simdscan.cumsum(x, (a, b), dtype=result),
                                          np.cumsum(np.cumsum(x, a, dtype=result), b, dtype=result))


@pytest.mark.parametrize("sdepth", ["int32", "float32", "float64"])
def test_cv2_integral_layout(sdepth):
    """cv2.integral's (H + 1, W + 1) table, its first row and column left as they were, on 1 and 3 threads."""
    rng = np.random.default_rng(seed_of("widening cv2", sdepth))
    image = rng.integers(0, 256, size=(201, 317), dtype=np.uint8)
    want = np.cumsum(np.cumsum(image, 0, dtype=np.float64), 1).astype(sdepth)  # exact: below 2**24 in all
    for threads in (1, 3):
        simdscan.set_num_threads(threads)
        table = np.full((202, 318), 7, dtype=sdepth)
        got = simdscan.cumsum(image, axis=(0, 1), dtype=sdepth, out=table[1:, 1:])
        assert got.base is table
        np.testing.assert_array_equal(table[1:, 1:], want)
        assert (table[0] == 7).all() and (table[:, 0] == 7).all()


def test_thread_count_does_not_change_a_bit():
    rng = np.random.default_rng(seed_of("widening threads"))
    x = values(rng, (6, 200, 700), "uint16")
    for axes in ((1, 2), (2, 1), 2, None):
        simdscan.set_num_threads(1)
        want = simdscan.cumsum(x, axes, direction="decreasing", dtype=np.float32)
        for threads in (2, 3, 8):
            simdscan.set_num_threads(threads)
            got = simdscan.cumsum(x, axes, direction="decreasing", dtype=np.float32)
            assert_same_bits(got, want, f"{axes} {threads}")


def test_a_summed_area_table_makes_no_copy_of_its_input():
    """The point of reading the input as it is: a 4 MB uint8 image into an int32 table allocates no cast copy
    (16 MB), nor any array the size of the image."""
    image = np.random.default_rng(seed_of("widening copies")).integers(0, 256, (2048, 2048), dtype=np.uint8)
    table = np.empty((2048, 2048), dtype=np.int32)
    tracemalloc.start()
    try:
        simdscan.cumsum(image, axis=(0, 1), dtype=np.int32, out=table)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < image.nbytes // 4, peak
    np.testing.assert_array_equal(table, np.cumsum(np.cumsum(image, 0, dtype=np.int32), 1))


@pytest.mark.parametrize("source, result", CASTS)
def test_other_casts_go_through_astype_alike(source, result):
    rng = np.random.default_rng(seed_of("widening casts", source, result))
    x = values(rng, (20, 300), source)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)  # complex to real: astype's own warning
        cast = x.astype(result)
        for axis in (None, 0, (0, 1)):
            assert_same_bits(simdscan.cumsum(x, axis, dtype=result), simdscan.cumsum(cast, axis), f"axis={axis}")


def test_an_out_overlapping_the_input_reads_the_input_first():
    """out of the wider type over the same bytes as the input: the result is still the scan of the input as it was."""
    buffer = np.zeros(4096, dtype=np.uint8)
    x = buffer[:1024]
    x[...] = np.arange(1024) % 251
    want = np.cumsum(x.copy(), dtype=np.int32)
    out = buffer.view(np.int32)
    assert simdscan.cumsum(x, dtype=np.int32, out=out) is out
    np.testing.assert_array_equal(out, want)


def test_other_operators_and_names():
    rng = np.random.default_rng(seed_of("widening operators"))
    small = rng.integers(-20, 20, size=(50, 70), dtype=np.int16)
    # log-sum-exp of integers in float64, as numpy.logaddexp computes them
    assert_same_bits(simdscan.logcumsumexp(small, axis=1), simdscan.logcumsumexp(small.astype(np.float64), axis=1),
                     "logcumsumexp")
    # the Array API names promote bool and small integers to the default integer
    mask = rng.random(5000) < 0.3
    np.testing.assert_array_equal(simdscan.cumulative_sum(mask), np.cumulative_sum(mask))
    np.testing.assert_array_equal(simdscan.cumulative_sum(small, axis=0), np.cumulative_sum(small, axis=0))
    np.testing.assert_array_equal(simdscan.nancumsum(small, axis=1, dtype=np.float64),
                                  np.nancumsum(small, axis=1, dtype=np.float64))


def test_byte_swapped_input_or_out():
    """Either in the other byte order: the cast is astype's, and the values the same."""
    x = np.arange(1000, dtype=np.uint16) * 7
    want = np.cumsum(x, dtype=np.int64)
    np.testing.assert_array_equal(simdscan.cumsum(x.astype(">u2"), dtype=np.int64), want)
    out = np.empty(1000, dtype=">i8")
    assert simdscan.cumsum(x, dtype=np.int64, out=out) is out
    np.testing.assert_array_equal(out, want)
