"""cumsum(compensated=True): every output within 2u*sum|x_j| (+ O(m u^2)) of the exact prefix, in every layout.

The reference is exact (Python integers, tests/reference.py); the data spread over 40 binades with random
signs, so that the plain scan's error grows with the length of the axis and the compensated one must not."""

from fractions import Fraction

import numpy as np
import pytest

import simdscan
from data import spread_values
from exact_sums import as_exact_ints, check_compensated, exact_scale
from reference import PATHS, check_scan, directional

pytestmark = pytest.mark.kernels  # the outcome depends on the ISA tier and the xsimd version: CI runs these per tier

FLOATS = [np.float16, np.float32, np.float64, np.complex64, np.complex128]
EXACT_PATHS = PATHS["exact"]


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("direction", ["increasing", "decreasing"])
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("path", EXACT_PATHS, ids=[path.name for path in EXACT_PATHS])
def test_within_compensated_bound(rng, path, dtype, direction, exclusive):
    a, axis = path.build(lambda shape: spread_values(rng, shape, dtype))
    got = simdscan.cumsum(a, axis, direction=direction, exclusive=exclusive, compensated=True)
    assert got.dtype == np.dtype(dtype) and got.shape == path.shape
    check_compensated(got, a, axis, direction == "decreasing", exclusive, msg=path.name)


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("axis", [0, 1])
def test_in_place_and_out(rng, dtype, axis, exclusive):
    base = spread_values(rng, (600, 24), dtype)
    for direction in ("increasing", "decreasing"):
        a = base.copy()
        assert simdscan.cumsum(a, axis, direction=direction, exclusive=exclusive, out=a, compensated=True) is a
        check_compensated(a, base, axis, direction == "decreasing", exclusive, msg="in place")
        out = np.full((24, 600), np.nan, dtype=dtype).T  # a transposed out
        simdscan.cumsum(base, axis, direction=direction, exclusive=exclusive, out=out, compensated=True)
        check_compensated(out, base, axis, direction == "decreasing", exclusive, msg="out=")


def test_plain_scan_misses_the_bound(rng):
    """The data and the bound discriminate: the plain float32 scan of the same line is out of bound."""
    base = spread_values(rng, (150_000,), np.float32)
    with pytest.raises(AssertionError, match="compensated bound"):
        check_compensated(simdscan.cumsum(base), base, 0)


@pytest.mark.usefixtures("restore_thread_count")
@pytest.mark.parametrize("layout", ["line", "strided line", "outer"])
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_threads_give_identical_results(rng, dtype, layout):
    """A line split over threads (chained chunks, scanned on the arrays or through staging's buffer) and rows split
    in slabs: the same bits as one thread."""
    shape = {"line": (400_000,), "strided line": (800_000,), "outer": (500, 1200)}[layout]
    base = spread_values(rng, shape, dtype)
    if layout == "strided line":
        base = base[::2]  # staged, its chunks' local sums kept in a thread's buffer until their base is known
    results = []
    for threads in (1, 2, 3):
        simdscan.set_num_threads(threads)
        for direction in ("increasing", "decreasing"):
            for exclusive in (False, True):
                results.append(simdscan.cumsum(base, 0, direction=direction, exclusive=exclusive, compensated=True))
    for k in range(4, len(results)):
        np.testing.assert_array_equal(results[k], results[k % 4])
    if layout != "outer":
        check_compensated(results[0], base, 0)


BLOCK = 512  # compensated_blocks.hpp: float64 lines are scanned a block of this many doubles at a time
CHUNK = 262144  # bytes of a line's chunk: later chunks carry a base


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("direction", ["increasing", "decreasing"])
@pytest.mark.parametrize("doubles", [BLOCK - 2, BLOCK, BLOCK + 2, 7 * BLOCK + 94, 2 * CHUNK // 8 + 3 * BLOCK + 6])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128], ids=lambda d: np.dtype(d).name)
def test_blocks_within_bound_and_as_staged(rng, dtype, doubles, direction, exclusive):
    """float64 and complex128 (its parts' two sums interleaved) lines of whole blocks (each lane scanning a sub-chunk
    from a start the first pass sums), the vectors after the last block, and lines over two chunks: within the
    bound; the same line strided, scanned through staging's buffer (blocks of 1024 elements), gives the same bits."""
    length = doubles * 8 // np.dtype(dtype).itemsize
    x = spread_values(rng, (length,), dtype)
    got = simdscan.cumsum(x, direction=direction, exclusive=exclusive, compensated=True)
    check_compensated(got, x, 0, direction == "decreasing", exclusive)
    strided = np.repeat(x, 2)[::2]
    staged = simdscan.cumsum(strided, direction=direction, exclusive=exclusive, compensated=True)
    assert staged.tobytes() == got.tobytes()


def test_tenths_add_up():
    """The issue's example: NumPy's float32 sum of 10**7 tenths ends at 1087937; compensated, at 1e6."""
    tenths = np.full(10**7, 0.1, dtype=np.float32)
    assert simdscan.cumsum(tenths, compensated=True)[-1] == np.float32(1e6)
    assert simdscan.cumsum(tenths, direction="decreasing", compensated=True)[0] == np.float32(1e6)
    assert simdscan.cumsum(tenths)[-1] != np.float32(1e6)


def test_ones_do_not_stall():
    """2**25 float32 ones: a plain float32 running sum stalls at 2**24; the compensated one counts on."""
    ones = np.ones(2**25, dtype=np.float32)
    r = simdscan.cumsum(ones, compensated=True)
    assert r[-1] == np.float32(2**25)
    np.testing.assert_array_equal(r[::4097], np.arange(1, 2**25 + 1, 4097, dtype=np.float64).astype(np.float32))


@pytest.mark.usefixtures("restore_thread_count")
@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("direction", ["increasing", "decreasing"])
def test_float32_lines_longer_than_a_chunk_round_once(direction, threads):
    """float32 chunks keep their local sums in double precision: every output of a line over many chunks is the
    double-precision prefix rounded once, within u * S of the exact S (uniform [0, 1) values, so S = sum|x|), plus the
    double sum's own error; with the local sum rounded to float32 too, outputs reached 1.2 u."""
    x = np.random.default_rng(11).random(10**6, dtype=np.float32)
    simdscan.set_num_threads(threads)
    got = simdscan.cumsum(x, direction=direction, compensated=True)
    exact = directional(np.cumsum, x, 0, direction == "decreasing", False, 0, dtype=np.longdouble)
    relative_error = np.abs(got.astype(np.longdouble) - exact) / exact
    assert np.max(relative_error) <= 2.0**-24 + x.size * 2.0**-52, np.max(relative_error) / 2.0**-24


@pytest.mark.slow
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_hundred_times_more_accurate_than_numpy(dtype):
    """10**7 random values: the worst output error is at least 100x smaller than NumPy's (exact reference)."""
    x = np.random.default_rng(7).standard_normal(10**7).astype(dtype)
    got = simdscan.cumsum(x, compensated=True)
    ref = np.cumsum(x)
    low = exact_scale((x, got, ref))  # one scale for all: 2**low is below the least bit of every value involved
    worst_got = worst_ref = carry = 0
    for start in range(0, x.size, 10**6):  # exact prefixes in slices, to bound the memory of Python ints
        part = np.concatenate([v[start : start + 10**6] for v in (x, got, ref)])
        xs, gs, rs = np.split(as_exact_ints(part, low), 3)
        exact = np.cumsum(np.concatenate([[carry], xs]))[1:]
        carry = exact[-1]
        worst_got = max(worst_got, np.max(np.abs(gs - exact)))
        worst_ref = max(worst_ref, np.max(np.abs(rs - exact)))
    assert worst_got * 100 <= worst_ref, (worst_got / worst_ref)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_special_values(dtype):
    """-0.0, inf and NaN inputs: every dtype gives the plain scan's results, which no order of the additions
    changes. Running totals past the range: float16, float32 and complex64 accumulate in double precision, so a
    total that passes float32's range and comes back is exact, as NumPy's float64 scan rounded once; float64 and
    complex128 give inf or NaN where one of an output's additions overflowed (which additions those are depends on
    the order, as in any vectorized sum: NumPy's sequential order gives inf from the first overflow on), and the
    exact sum everywhere else. Lines of whole blocks too (compensated_blocks.hpp), where an infinity, a NaN or a
    first-pass sum that overflows hands the rest of the line to the scan across the lanes: +-big alternating, whose
    prefixes are all in range, stays exact."""
    real = np.dtype(dtype).type(0).real.dtype
    big = np.finfo(real).max
    order_free = (
        [-0.0] * 37,
        [-0.0] * 1100,
        [1.0, np.inf, 2.0] * 13,
        [1.0, np.inf, -np.inf, 1.0] * 9,
        [1.0, np.nan, 2.0] * 13,
        [1.0] * 1000 + [np.inf] + [2.0] * 300,
        [1.0] * 1000 + [np.nan] + [2.0] * 300,
    )
    overflowing = (
        [big, big, -big, -big / 2] * 9,  # partial sums exact in double precision
        [-big, -big, big / 4] * 13,
        [big, big, -big, -big / 2] * 280,
    )
    lines = [(line, "order-free") for line in order_free] + [(line, "overflowing") for line in overflowing]
    lines.append(([big, -big] * 600, "in range"))
    wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
    for line, kind in lines:
        a = np.array(line, dtype=dtype)
        for direction in ("increasing", "decreasing"):
            decreasing = direction == "decreasing"
            for exclusive in (False, True):
                got = simdscan.cumsum(a, direction=direction, exclusive=exclusive, compensated=True)
                if kind == "order-free":
                    want = simdscan.cumsum(a, direction=direction, exclusive=exclusive)
                elif real != np.float64:  # NumPy's scan in double precision, rounded once
                    with np.errstate(all="ignore"):
                        want = directional(np.cumsum, a.astype(wide), 0, decreasing, exclusive, 0).astype(dtype)
                else:
                    fractions = np.array([Fraction(v) for v in line], dtype=object)
                    exact = directional(np.cumsum, fractions, 0, decreasing, exclusive, Fraction(0))
                    finite = np.isfinite(got)
                    assert finite[-1 if decreasing else 0], got  # one term, or none
                    in_range = [abs(e) <= Fraction(big) for e in exact]
                    assert not np.any(finite & ~np.array(in_range)), got
                    assert kind == "overflowing" or np.all(finite), got
                    want = np.array([float(e) if f else g for e, f, g in zip(exact, finite, got.real)], dtype=dtype)
                np.testing.assert_array_equal(got, want)
                assert np.array_equal(np.signbit(got.real), np.signbit(want.real)), (line[:4], got[:4], want[:4])


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "int64", "uint64", "bool"])
def test_integers_unchanged(rng, dtype):
    a = rng.integers(0, 100, size=(50, 70)).astype(dtype)
    for axis in (0, 1, None):
        got = simdscan.cumsum(a, axis, compensated=True)
        np.testing.assert_array_equal(got, simdscan.cumsum(a, axis))
        check_scan(got, "cumsum", a, axis)


def test_dtype_argument_compensates_in_the_result_dtype(rng):
    a = rng.integers(-1000, 1000, size=5000)
    got = simdscan.cumsum(a / 7, dtype=np.float32, compensated=True)
    check_compensated(got, (a / 7).astype(np.float32), 0)


def test_cumprod_has_no_compensated_flag():
    with pytest.raises(TypeError):
        simdscan.cumprod(np.ones(3), compensated=True)  # type: ignore[call-arg]


def test_flag_truthiness_and_errors():
    a = np.array([0.1] * 10, dtype=np.float32)
    np.testing.assert_array_equal(simdscan.cumsum(a, compensated=np.bool_(True)), simdscan.cumsum(a, compensated=1))

    class Unanswerable:
        def __bool__(self):
            raise RuntimeError("no truth here")

    out = np.full(10, 7.0, dtype=np.float32)
    with pytest.raises(RuntimeError, match="no truth"):
        simdscan.cumsum(a, out=out, compensated=Unanswerable())
    assert np.all(out == 7.0)
