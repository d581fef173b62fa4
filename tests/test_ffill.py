"""simdscan.ffill: each NaN takes the last number before it in the walk (``direction="decreasing"``: the first number
after it, pandas' bfill); at most ``limit`` NaNs of each run after a number are filled (pandas' limit), NaNs before any
number of their segment stay NaN, and a fill never crosses the start of a ``reset=`` segment. Filled values are the
bits of the number they copy. Integer and bool arrays come back as they are.

Checked against a loop over every line (``line_sources``: the walk, segment by segment, counting the NaNs of each
run) and, on inputs large enough for the thread pool, against its loop-free twin (``fast_sources``), which a property
test holds to the loop; every dtype, direction, limit, NaN density, reset pattern, layout of the input and of out, in
place, 0-d and empty inputs, masked arrays, 1/2/4 threads, and the errors (the input, reset and out untouched).
"""

import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import simdscan
from data import seed_of
from family_reference import assert_same_bits
from params import DIRECTIONS, all_axes, scattered_outs, stepped_reversed_out
from reference import FLOAT_DTYPES, INT_DTYPES, LAYOUTS, apply_layout, assert_unchanged, native, snapshot
from segment_reference import as_lines, reset_lines, result_shape, segment_bounds

pytestmark = pytest.mark.kernels  # the outcome depends on the ISA tier and the xsimd version: CI runs these per tier

NAN = np.nan
FILLED = FLOAT_DTYPES  # float16/32/64, complex64/128: the dtypes that hold NaN
UNFILLED = INT_DTYPES + [np.dtype(bool)]
FILLED_IDS = [d.name for d in FILLED]
UNFILLED_IDS = [d.name for d in UNFILLED]
LIMITS = [None, 1, 2, 1000]
WRITABLE_LAYOUTS = [layout for layout in LAYOUTS if layout not in ("broadcast", "readonly")]


def ffill(a, axis=None, decreasing=False, **kw):
    return simdscan.ffill(a, axis, direction="decreasing" if decreasing else "increasing", **kw)


# --------------------------------------------------------------------------
# the reference
# --------------------------------------------------------------------------
def line_sources(missing, flags, decreasing, limit):
    """For one line (``missing``: a list of bools, ``flags`` its resets): ``(src, leading)``, the index each element
    takes its value from (its own where it is not filled) and the NaNs before any number of their segment in the
    walk. The walk goes segment by segment, the last number seen and the length of the current run of NaNs after it
    in hand."""
    n = len(missing)
    src = np.arange(n, dtype=np.intp)
    leading = np.zeros(n, bool)
    for start, stop in segment_bounds(flags):
        last, run = None, 0
        for i in range(stop - 1, start - 1, -1) if decreasing else range(start, stop):
            if not missing[i]:
                last, run = i, 0
            elif last is None:
                leading[i] = True
            else:
                run += 1
                if limit is None or run <= limit:
                    src[i] = last
    return src, leading


def _reverse_cummin(x):
    return np.minimum.accumulate(x[:, ::-1], axis=1)[:, ::-1]


def fast_sources(missing, flags, decreasing, limit):
    """``line_sources`` for every row of the 2-D ``missing`` and ``flags`` at once, without a loop: the nearest number
    before (after) each element, kept where it lies within the element's segment (after the segment's start, before
    the next one's), and within ``limit`` of it."""
    n = missing.shape[1]
    if n == 0:
        return np.zeros(missing.shape, np.intp), np.zeros(missing.shape, bool)
    pos = np.broadcast_to(np.arange(n, dtype=np.intp), missing.shape)
    if decreasing:
        starts = np.where(flags, pos, n)
        stop = np.concatenate([_reverse_cummin(starts)[:, 1:], np.full((len(starts), 1), n, np.intp)], axis=1)
        nearest = _reverse_cummin(np.where(missing, n, pos))
        inside = nearest < stop
        distance = nearest - pos
    else:
        start = np.maximum.accumulate(np.where(flags, pos, 0), axis=1)
        nearest = np.maximum.accumulate(np.where(missing, -1, pos), axis=1)
        inside = nearest >= start
        distance = pos - nearest
    filled = missing & inside & (True if limit is None else distance <= limit)
    return np.where(filled, nearest, pos), missing & ~inside


def reference(a, axis=None, decreasing=False, limit=None, reset=None, fast=False):
    """``(want, leading)`` for ``ffill(a, axis, ...)``, as lines (segment_reference.as_lines' layout): the expected
    values, in a's dtype, and where the NaNs before any number of their segment stand."""
    a = np.asarray(a)
    lines = as_lines(a, axis)
    flags = reset_lines(False if reset is None else reset, a.shape, axis)
    missing = np.isnan(lines) if lines.dtype.kind in "fc" else np.zeros(lines.shape, bool)
    if fast:
        src, leading = fast_sources(missing, flags, decreasing, limit)
    else:
        src = np.empty(lines.shape, np.intp)
        leading = np.zeros(lines.shape, bool)
        for k in range(lines.shape[0]):
            src[k], leading[k] = line_sources(missing[k].tolist(), flags[k], decreasing, limit)
    return np.take_along_axis(lines, src, axis=1), leading


def bits(x):
    """The bits of ``x``'s elements (a complex one's two parts) as unsigned integers, shape x.shape + (parts,)."""
    x = np.ascontiguousarray(x, dtype=native(x.dtype))
    parts = 2 if x.dtype.kind == "c" else 1
    return x.view(f"u{x.itemsize // parts}").reshape(x.shape + (parts,))


def assert_same_fill(got, want, leading, where):
    """``got`` (lines) holds ``want``'s values, NaN where NaN is, and, bit for bit, the number each element copies or
    the element's own bits; a NaN before any number of its segment is checked as NaN only."""
    np.testing.assert_array_equal(got, want, err_msg=where)
    if want.dtype.kind not in "fc":
        return
    differ = (bits(got) != bits(want)).any(axis=-1) & ~leading
    if differ.any():
        first = tuple(int(i) for i in np.argwhere(differ)[0])
        raise AssertionError(f"{where}: {int(differ.sum())} elements differ in their bits, first at line {first[0]} "
                             f"index {first[1]}: got {got[first]!r} ({bits(got)[first]}), expected {want[first]!r} "
                             f"({bits(want)[first]})")


def check_fill(got, a, axis=None, decreasing=False, limit=None, reset=None, where="", fast=False):
    """Full check of ``ffill(a, axis, direction, limit=limit, reset=reset)``: an ndarray of the result's shape and of
    a's dtype (native order), and the reference's values and bits."""
    a = np.asarray(a)
    where = where or f"ffill dtype={a.dtype} shape={a.shape} axis={axis} decreasing={decreasing} limit={limit}"
    assert type(got) is np.ndarray, f"{where}: returned {type(got)!r}"
    assert got.shape == result_shape(a, axis), f"{where}: shape {got.shape}, expected {result_shape(a, axis)}"
    assert native(got.dtype) == native(a.dtype), f"{where}: dtype {got.dtype}, expected {a.dtype}"
    want, leading = reference(a, axis, decreasing, limit, reset, fast)
    assert_same_fill(as_lines(got, axis), want, leading, where)


def values(rng, shape, dtype, density=0.0):
    """Distinct-looking numbers (eighths in [-125, 125], exact in float16) with a few -0.0, 0.0 and infinities, and
    NaN with probability ``density``; a complex NaN is NaN in its real part, its imaginary part or both."""
    dt = np.dtype(dtype)

    def part():
        v = rng.integers(-999, 1000, shape) / 8
        special = rng.random(shape) < 0.05
        v[special] = rng.choice(np.array([-0.0, 0.0, np.inf, -np.inf]), int(special.sum()))
        return v

    if dt.kind == "c":
        x = np.empty(shape, np.complex128)
        x.real, x.imag = part(), part()
    else:
        x = part()
    nan = rng.random(shape) < density
    if dt.kind == "c":
        kind = rng.integers(0, 3, shape)
        x.real[nan & (kind != 1)] = NAN
        x.imag[nan & (kind != 0)] = NAN
    else:
        x[nan] = NAN
    return x.astype(dt)


def with_nan_runs(x, axis, rng, longest=4):
    """``x`` with a run of 0 to ``longest`` NaNs at the start and at the end of every line along ``axis`` (C-order
    flattened for None), and one line all NaN."""
    x = x.copy()
    lines = x.reshape(1, -1) if axis is None else np.moveaxis(x, axis, -1)  # views of x's lines
    n = lines.shape[-1]
    for k in np.ndindex(lines.shape[:-1]):
        lines[k][:rng.integers(0, longest + 1)] = NAN
        lines[k][n - rng.integers(0, longest + 1):] = NAN
    lines[next(np.ndindex(lines.shape[:-1]))] = NAN
    return x


def resets(rng, shape, density):
    return rng.random(shape) < density


# --------------------------------------------------------------------------
# by hand
# --------------------------------------------------------------------------
_X = [NAN, 1.0, NAN, NAN, 2.0, NAN]
BY_HAND = [
    # (input, keywords, expected)
    (_X, {}, [NAN, 1, 1, 1, 2, 2]),
    (_X, {"direction": "decreasing"}, [1, 1, 2, 2, 2, NAN]),
    (_X, {"limit": 1}, [NAN, 1, 1, NAN, 2, 2]),
    (_X, {"limit": 1, "direction": "decreasing"}, [1, 1, NAN, 2, 2, NAN]),
    (_X, {"reset": [0, 0, 0, 1, 0, 0]}, [NAN, 1, 1, NAN, 2, 2]),
    # a reset at index i begins a segment at i in index order, whatever the direction
    (_X, {"reset": [0, 0, 0, 1, 0, 0], "direction": "decreasing"}, [1, 1, NAN, 2, 2, NAN]),
    (_X, {"reset": [0, 0, 1, 0, 0, 0], "direction": "decreasing"}, [1, 1, 2, 2, 2, NAN]),
    (_X, {"reset": [0, 0, 0, 0, 1, 0]}, [NAN, 1, 1, 1, 2, 2]),  # at a number: nothing to cut
    (_X, {"reset": [0, 0, 0, 0, 1, 0], "direction": "decreasing"}, [1, 1, NAN, NAN, 2, NAN]),
    (_X, {"reset": 1}, _X),  # every element its own segment: nothing filled
    ([1, NAN, NAN, NAN, NAN, 5, NAN, NAN], {"limit": 2}, [1, 1, 1, NAN, NAN, 5, 5, 5]),
    ([1, NAN, NAN, NAN, NAN, 5, NAN, NAN], {"limit": 3, "direction": "decreasing"}, [1, NAN, 5, 5, 5, 5, NAN, NAN]),
    ([1, NAN, NAN, NAN, NAN, 5, NAN, NAN], {"limit": 2, "reset": [0, 0, 1, 0, 0, 0, 0, 1]},
     [1, 1, NAN, NAN, NAN, 5, 5, NAN]),
    ([NAN, NAN, NAN], {}, [NAN, NAN, NAN]),
    ([NAN, NAN, NAN], {"direction": "decreasing", "limit": 1}, [NAN, NAN, NAN]),
    ([3.0, -1.0, 4.0], {"limit": 1}, [3, -1, 4]),
    ([np.inf, NAN, -np.inf, NAN], {}, [np.inf, np.inf, -np.inf, -np.inf]),
    ([np.inf, NAN, -np.inf, NAN], {"direction": "decreasing"}, [np.inf, -np.inf, -np.inf, NAN]),
    ([NAN], {}, [NAN]),
    ([7.0], {"direction": "decreasing"}, [7]),
]


@pytest.mark.parametrize("x, kw, want", BY_HAND, ids=[f"case{k}" for k in range(len(BY_HAND))])
@pytest.mark.parametrize("dtype", FILLED, ids=FILLED_IDS)
def test_by_hand(x, kw, want, dtype):
    a = np.array(x, dtype=dtype)
    got = simdscan.ffill(a, **kw)
    want = np.array(want, dtype=dtype)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want, strict=True)
    check_fill(got, a, None, kw.get("direction") == "decreasing", kw.get("limit"), kw.get("reset"))


def test_2d_by_hand():
    a = np.array([[1.0, NAN, 3.0], [NAN, 2.0, NAN], [NAN, NAN, 9.0]])
    np.testing.assert_array_equal(simdscan.ffill(a, 0), [[1, NAN, 3], [1, 2, 3], [1, 2, 9]])
    np.testing.assert_array_equal(simdscan.ffill(a, 1), [[1, 1, 3], [NAN, 2, 2], [NAN, NAN, 9]])
    np.testing.assert_array_equal(simdscan.ffill(a, -1, direction="decreasing"), [[1, 3, 3], [2, 2, NAN], [9, 9, 9]])
    np.testing.assert_array_equal(simdscan.ffill(a, 0, direction="decreasing"),
                                  [[1, 2, 3], [NAN, 2, 9], [NAN, NAN, 9]])
    # axis=None: the C-order flattened array, 1-D
    np.testing.assert_array_equal(simdscan.ffill(a), [1, 1, 3, 3, 2, 2, 2, 2, 9])
    np.testing.assert_array_equal(simdscan.ffill(np.asfortranarray(a), limit=1), [1, 1, 3, 3, 2, 2, NAN, NAN, 9])
    # a reset broadcast along the rows: the third column begins a segment in every row
    np.testing.assert_array_equal(simdscan.ffill(a, 1, reset=[0, 0, 1]), [[1, 1, 3], [NAN, 2, NAN], [NAN, NAN, 9]])


def test_complex_nan_in_either_part():
    nan_re, nan_im = complex(NAN, 1.0), complex(1.0, NAN)
    for dtype in ("complex64", "complex128"):
        a = np.array([2 - 1j, nan_re, nan_im, complex(NAN, NAN), 3j, nan_im], dtype=dtype)
        np.testing.assert_array_equal(simdscan.ffill(a), np.array([2 - 1j, 2 - 1j, 2 - 1j, 2 - 1j, 3j, 3j], dtype))
        got = simdscan.ffill(a, direction="decreasing")
        np.testing.assert_array_equal(got[:5], np.array([2 - 1j, 3j, 3j, 3j, 3j], dtype))
        assert np.isnan(got[5])
        got = simdscan.ffill(a, limit=2)
        np.testing.assert_array_equal(got[:3], np.array([2 - 1j, 2 - 1j, 2 - 1j], dtype))
        assert_same_bits(got[3:4], a[3:4], f"{dtype}: the NaN past the limit keeps its bits")
        check_fill(got, a, limit=2)


@pytest.mark.parametrize("dtype", FILLED, ids=FILLED_IDS)
def test_filled_values_keep_their_bits(dtype):
    """-0.0, the smallest subnormal and the largest number are copied bit for bit, and a NaN past the limit (payload,
    sign, signalling or quiet) keeps its own bits."""
    dt = np.dtype(dtype)
    real = np.dtype(dt.char.lower())  # the dtype of a complex one's parts
    uint = np.dtype(f"u{real.itemsize}")
    info = np.finfo(real)
    quiet = 1 << (info.nmant - 1)

    def nan_bits(sign, payload):
        return (sign << (8 * real.itemsize - 1)) | (((1 << info.nexp) - 1) << info.nmant) | payload

    nans = [nan_bits(0, quiet | 5), nan_bits(1, 3), nan_bits(1, quiet), nan_bits(0, 1)]
    numbers = np.array([-0.0, info.smallest_subnormal, info.max, -info.max], real).view(uint).tolist()
    # [n0, nan, nan, nan, n1, nan, n2, nan, nan, nan, n3]: limit 2 keeps the third NaN of each run after a number
    line_bits = np.array([numbers[0], nans[0], nans[1], nans[2], numbers[1], nans[3], numbers[2], nans[1], nans[3],
                          nans[0], numbers[3]], uint)
    line = line_bits.view(real)
    if dt.kind == "c":
        a = np.empty(line.size, dt)
        a.real = line
        a.imag = np.roll(line, 4)  # NaNs and numbers in the other part too
    else:
        a = line.astype(dt)
    for decreasing in (False, True):
        for limit in (None, 1, 2):
            check_fill(ffill(a, None, decreasing, limit=limit), a, None, decreasing, limit)
    if dt.kind == "f":
        want = np.array([numbers[0], numbers[0], numbers[0], nans[2], numbers[1], numbers[1], numbers[2], numbers[2],
                         numbers[2], nans[0], numbers[3]], uint)
        np.testing.assert_array_equal(ffill(a, limit=2).view(uint), want)
        want = np.array([numbers[0], numbers[1], numbers[1], numbers[1], numbers[1], numbers[2], numbers[2],
                         numbers[3], numbers[3], numbers[3], numbers[3]], uint)
        np.testing.assert_array_equal(ffill(a, None, True).view(uint), want)


# --------------------------------------------------------------------------
# dtypes, directions, limits, NaN densities, runs at the ends of lines
# --------------------------------------------------------------------------
@pytest.mark.parametrize("density", [0.0, 0.1, 0.9, 1.0], ids=["no-nan", "nan10", "nan90", "all-nan"])
@pytest.mark.parametrize("limit", LIMITS)
@pytest.mark.parametrize("dtype", FILLED, ids=FILLED_IDS)
def test_matches_the_loop(dtype, limit, density):
    """Every axis argument and direction (strings and Direction), in 2-D."""
    rng = np.random.default_rng(seed_of("loop", dtype.name, limit, density))
    a = values(rng, (6, 37), dtype, density)
    snap = snapshot(a)
    for direction, decreasing in DIRECTIONS:
        for axis in all_axes(a.ndim):
            got = simdscan.ffill(a, axis, direction=direction, limit=limit)
            check_fill(got, a, axis, decreasing, limit, where=f"axis={axis} direction={direction!r} limit={limit}")
        if density == 0.0:  # nothing to fill: the input's bits, a new array
            got = simdscan.ffill(a, 1, direction=direction, limit=limit)
            assert_same_bits(got, a, "no NaN")
            assert not np.shares_memory(got, a)
    assert_unchanged(a, snap)


@pytest.mark.parametrize("limit", LIMITS)
@pytest.mark.parametrize("decreasing", [False, True], ids=["inc", "dec"])
@pytest.mark.parametrize("dtype", FILLED, ids=FILLED_IDS)
def test_runs_at_the_starts_and_ends_of_lines(dtype, decreasing, limit):
    """NaN runs of 0 to 4 at both ends of every line, a line all NaN, and NaNs inside; in 3-D along every axis."""
    rng = np.random.default_rng(seed_of("ends", dtype.name, decreasing, limit))
    base = values(rng, (5, 4, 23), dtype, 0.3)
    for axis in all_axes(base.ndim):
        a = with_nan_runs(base, axis, rng)
        check_fill(ffill(a, axis, decreasing, limit=limit), a, axis, decreasing, limit)


@pytest.mark.parametrize("length", [1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 129, 1000])
def test_line_lengths_around_vector_widths(length):
    """Lines of every length around the vector widths of each dtype, a single number at every place of a NaN line
    (filling all but its leading side) and random ones."""
    rng = np.random.default_rng(seed_of("lengths", length))
    for dtype in FILLED:
        for place in sorted({0, length // 2, length - 1}):
            a = np.full(length, NAN, dtype)
            a[place] = 1.5
            for decreasing in (False, True):
                for limit in (None, 3):
                    check_fill(ffill(a, None, decreasing, limit=limit), a, None, decreasing, limit)
        a = values(rng, (3, length), dtype, 0.5)
        for decreasing in (False, True):
            for limit in (None, 1):
                check_fill(ffill(a, 1, decreasing, limit=limit), a, 1, decreasing, limit)
                check_fill(ffill(a.T, 0, decreasing, limit=limit), a.T, 0, decreasing, limit)


# --------------------------------------------------------------------------
# reset
# --------------------------------------------------------------------------
def reset_pattern(name, rng, a, axis):
    """Resets for ``a`` scanned along ``axis``, by name."""
    shape = a.shape
    if name == "sparse":
        return resets(rng, shape, 0.05)
    if name == "dense":
        return resets(rng, shape, 0.5)
    if name == "every":
        return np.ones(shape, bool)
    if name == "first":  # at index 0 of every line along the axis: no change
        r = np.zeros(shape, bool)
        if axis is None:
            r.reshape(-1)[0] = True
        else:
            np.moveaxis(r, axis, -1)[..., 0] = True
        return r
    if name == "at-nan":
        return np.isnan(a) & (rng.random(shape) < 0.5)
    if name == "at-number":
        return ~np.isnan(a) & (rng.random(shape) < 0.5)
    if name == "after-number":  # just after a number: its fill is cut right away
        r = np.zeros(shape, bool)
        r[:, 1:] = ~np.isnan(a[:, :-1])
        return r
    if name == "row":  # broadcast along axis 0
        return resets(rng, shape[1:], 0.2).astype(np.float64)
    if name == "column":  # broadcast along axis 1
        return resets(rng, (shape[0], 1), 0.5).astype(np.int8)
    if name == "true":
        return True
    if name == "false":
        return np.float32(0)
    raise AssertionError(name)


RESET_PATTERNS = ["sparse", "dense", "every", "first", "at-nan", "at-number", "after-number", "row", "column", "true",
                  "false"]


@pytest.mark.parametrize("dtype", ["float16", "float64", "complex64"])
@pytest.mark.parametrize("pattern", RESET_PATTERNS)
def test_resets(pattern, dtype):
    rng = np.random.default_rng(seed_of("resets", pattern, dtype))
    a = values(rng, (7, 40), dtype, 0.4)
    for axis, limit in ((None, None), (0, 1), (1, None), (-1, 3), (None, 2), (1, 1)):
        r = reset_pattern(pattern, rng, a, axis)
        snap = snapshot(r)
        for decreasing in (False, True):
            got = ffill(a, axis, decreasing, limit=limit, reset=r)
            check_fill(got, a, axis, decreasing, limit, r, f"reset {pattern} axis={axis} decreasing={decreasing}")
            if pattern in ("first", "false"):  # no segment but the whole line
                np.testing.assert_array_equal(got, ffill(a, axis, decreasing, limit=limit), strict=True)
            if pattern in ("every", "true"):  # every element alone: nothing filled
                np.testing.assert_array_equal(got, a.reshape(-1) if axis is None else a, strict=True)
        assert_unchanged(r, snap, "reset")


@pytest.mark.parametrize("reset_dtype", ["bool", "int8", "uint64", "float16", "float32", "float64"])
def test_reset_dtypes(reset_dtype):
    a = np.array([1.0, NAN, NAN, 2.0, NAN, NAN, NAN])
    r = np.array([0, 0, 1, 0, 0, 1, 0]).astype(reset_dtype)
    np.testing.assert_array_equal(simdscan.ffill(a, reset=r), [1, 1, NAN, 2, 2, NAN, NAN])
    np.testing.assert_array_equal(simdscan.ffill(a, reset=r, direction="decreasing"), [1, NAN, 2, 2, NAN, NAN, NAN])
    np.testing.assert_array_equal(simdscan.ffill(a, reset=r, limit=1), [1, 1, NAN, 2, 2, NAN, NAN])


def test_reset_with_axis_none_is_flattened_in_c_order():
    """axis=None: the reset has a's shape and is flattened as a is (C order, whatever a's layout)."""
    a = np.array([[1.0, NAN, NAN], [NAN, NAN, 4.0]])
    r = np.array([[0, 0, 0], [1, 0, 0]], bool)
    want = [1, 1, 1, NAN, NAN, 4]
    for layout in ("C", "fortran", "reversed"):
        np.testing.assert_array_equal(simdscan.ffill(apply_layout(a, layout), reset=apply_layout(r, layout)), want)
    np.testing.assert_array_equal(simdscan.ffill(a, reset=r, direction="decreasing"), [1, NAN, NAN, 4, 4, 4])
    np.testing.assert_array_equal(simdscan.ffill(a, reset=[0, 0, 1]), [1, 1, NAN, NAN, NAN, 4])


# --------------------------------------------------------------------------
# layouts, out=, in place
# --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FILLED, ids=FILLED_IDS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_input_layouts(layout, dtype):
    rng = np.random.default_rng(seed_of("layouts", layout, dtype.name))
    base = values(rng, (5, 6, 7), dtype, 0.4)
    a = apply_layout(base, layout)
    snap = snapshot(a)
    r = resets(rng, a.shape, 0.1)
    for axis in all_axes(a.ndim):
        for decreasing in (False, True):
            for limit in (None, 2):
                for reset in (None, r):
                    got = ffill(a, axis, decreasing, limit=limit, reset=reset)
                    check_fill(got, a, axis, decreasing, limit, reset,
                               f"{layout} axis={axis} decreasing={decreasing} limit={limit} reset={reset is not None}")
                    assert got.dtype == native(dtype)
    assert_unchanged(a, snap)


def _outs(shape, dtype):
    outs = scattered_outs(shape, dtype)
    outs["fortran"] = np.asfortranarray(np.empty(shape, dtype))
    outs["byteswapped"] = np.empty(shape, np.dtype(dtype).newbyteorder("S"))
    return outs


@pytest.mark.parametrize("limit", [None, 2])
@pytest.mark.parametrize("dtype", FILLED, ids=FILLED_IDS)
def test_out_of_any_layout(dtype, limit):
    rng = np.random.default_rng(seed_of("out", dtype.name, limit))
    a = values(rng, (6, 9), dtype, 0.4)
    r = resets(rng, a.shape, 0.1)
    for axis in (None, 0, 1, -1):
        shape = result_shape(a, axis)
        for name, out in _outs(shape, dtype).items():
            for decreasing in (False, True):
                for reset in (None, r):
                    got = ffill(a, axis, decreasing, limit=limit, reset=reset, out=out)
                    assert got is out, f"{name}: out is not returned"
                    check_fill(np.ascontiguousarray(got, native(dtype)), a, axis, decreasing, limit, reset,
                               f"out={name} axis={axis} decreasing={decreasing}")
        # stepped and reversed inside a buffer: the buffer's other elements stay as they were
        out, buf, outside = stepped_reversed_out(shape, dtype, 7)
        for decreasing in (False, True):
            assert ffill(a, axis, decreasing, limit=limit, out=out) is out
            check_fill(out.copy(), a, axis, decreasing, limit)
            assert (buf[outside] == 7).all(), "out= wrote outside its view"


@pytest.mark.parametrize("dtype", FILLED, ids=FILLED_IDS)
@pytest.mark.parametrize("layout", WRITABLE_LAYOUTS)
def test_in_place(layout, dtype):
    """out=a, a of any writable layout: a is returned, filled (a NaN past the limit keeps its bits though the fill
    overwrites its line)."""
    rng = np.random.default_rng(seed_of("in place", layout, dtype.name))
    base = values(rng, (7, 30), dtype, 0.5)
    r = resets(rng, base.shape, 0.1)
    for axis, limit in ((0, None), (1, 1), (-1, 2), (0, 2), (1, None)):
        for decreasing in (False, True):
            for reset in (None, r):
                a = apply_layout(base, layout)
                assert ffill(a, axis, decreasing, limit=limit, reset=reset, out=a) is a
                check_fill(np.ascontiguousarray(a, native(dtype)), base, axis, decreasing, limit, reset,
                           f"in place {layout} axis={axis} decreasing={decreasing} reset={reset is not None}")
                assert a.dtype == apply_layout(base, layout).dtype
    for limit in (None, 2):
        line = apply_layout(base[limit or 0], layout)  # 1-D: axis=None in place too
        before = line.copy()
        assert simdscan.ffill(line, limit=limit, out=line) is line
        check_fill(np.ascontiguousarray(line, native(dtype)), before, None, False, limit)


def test_in_place_on_reversed_and_strided_views():
    rng = np.random.default_rng(seed_of("views in place"))
    big = values(rng, (40, 50), "float32", 0.5)
    for view in (np.s_[::-1], np.s_[::3, 1::2], np.s_[5:30:2, ::-3]):
        for axis in (0, 1):
            for limit in (None, 2):
                buf = big.copy()
                a = buf[view]
                before = a.copy()
                outside = np.ones(buf.shape, bool)
                outside[view] = False
                assert simdscan.ffill(a, axis, limit=limit, out=a) is a
                check_fill(a.copy(), before, axis, False, limit)
                assert_same_bits(buf[outside], big[outside], "in place wrote outside its view")


# --------------------------------------------------------------------------
# integers and bool: nothing to fill
# --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", UNFILLED, ids=UNFILLED_IDS)
def test_integers_and_bool_come_back_as_they_are(dtype):
    rng = np.random.default_rng(seed_of("integers", dtype.name))
    base = rng.integers(0, 2, (5, 8)).astype(dtype) if dtype == bool else rng.integers(-100, 100, (5, 8)).astype(dtype)
    r = resets(rng, base.shape, 0.3)
    for layout in LAYOUTS:
        a = apply_layout(base, layout)
        snap = snapshot(a)
        for axis in all_axes(a.ndim):
            for direction, _ in DIRECTIONS:
                for limit in (None, 1):
                    for reset in (None, r):
                        got = simdscan.ffill(a, axis, direction=direction, limit=limit, reset=reset)
                        where = f"{dtype} {layout} axis={axis} {direction} limit={limit}"
                        assert type(got) is np.ndarray, where
                        assert native(got.dtype) == dtype and got.shape == result_shape(a, axis), where
                        np.testing.assert_array_equal(got, a.reshape(-1) if axis is None else a, err_msg=where)
                        assert not np.shares_memory(got, a), f"{where}: not a copy"
        assert_unchanged(a, snap)


@pytest.mark.parametrize("dtype", UNFILLED, ids=UNFILLED_IDS)
def test_integers_and_bool_with_out(dtype):
    """out=a: a returned, nothing written; another out: a's values copied into it."""
    base = (np.arange(54) % 7 - 3).astype(dtype).reshape(6, 9)
    for layout in WRITABLE_LAYOUTS:
        a = apply_layout(base, layout)
        snap = snapshot(a)
        for axis in (0, 1, -1):
            for limit in (None, 2):
                assert simdscan.ffill(a, axis, limit=limit, reset=[0, 1] * 4 + [0], out=a) is a
                assert simdscan.ffill(a, axis, direction="decreasing", out=a) is a
        assert_unchanged(a, snap)
        line = apply_layout(base[1], layout)
        snap = snapshot(line)
        assert simdscan.ffill(line, out=line, limit=1) is line
        assert_unchanged(line, snap)
    for axis in (None, 0, 1):
        shape = result_shape(base, axis)
        want = base.reshape(-1) if axis is None else base
        for name, out in _outs(shape, dtype).items():
            for direction in ("increasing", "decreasing"):
                out[...] = 0 if dtype != bool else True
                assert simdscan.ffill(base, axis, direction=direction, out=out) is out, name
                np.testing.assert_array_equal(out, want, err_msg=f"out={name} axis={axis}")
        out, buf, outside = stepped_reversed_out(shape, dtype, 1)
        assert simdscan.ffill(base, axis, limit=3, out=out) is out
        np.testing.assert_array_equal(out, want)
        assert (buf[outside] == 1).all(), "out= wrote outside its view"


# --------------------------------------------------------------------------
# 0-d and empty inputs
# --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FILLED + UNFILLED, ids=FILLED_IDS + UNFILLED_IDS)
def test_0d_and_empty(dtype):
    number = np.array(3, dtype)
    for value in ([number, np.array(NAN, dtype)] if dtype.kind in "fc" else [number]):
        for axis in (None, 0, -1):
            for decreasing in (False, True):
                for limit in (None, 1):
                    for reset in (None, True, 0):
                        got = ffill(value, axis, decreasing, limit=limit, reset=reset)
                        assert got.shape == (1,) and got.dtype == dtype, (axis, got)
                        if np.isnan(value):
                            assert np.isnan(got[0]), got
                        else:
                            assert_same_bits(got, value.reshape(1), f"0-d {value!r} axis={axis}")
    for shape in ((0,), (0, 4), (4, 0), (2, 0, 3)):
        e = np.zeros(shape, dtype)
        for axis in all_axes(e.ndim):
            for decreasing in (False, True):
                for limit in (None, 2):
                    got = ffill(e, axis, decreasing, limit=limit, reset=np.zeros(shape, bool))
                    assert got.shape == result_shape(e, axis) and got.dtype == dtype, (shape, axis)
                    out = np.empty(result_shape(e, axis), dtype)
                    assert ffill(e, axis, decreasing, limit=limit, out=out) is out


# --------------------------------------------------------------------------
# threads: every thread count gives the bits of one
# --------------------------------------------------------------------------
THREAD_CASES = [("line", (300_000,), 0, "float64"), ("line", (300_000,), 0, "float32"),
                ("line", (300_000,), 0, "complex64"), ("line-axis-none", (300_000,), None, "float64"),
                ("rows", (60, 5000), 1, "float64"), ("rows", (60, 5000), 1, "complex64"),
                ("columns", (5000, 60), 0, "float64"), ("columns", (5000, 60), 0, "float32")]


@pytest.mark.threads
@pytest.mark.usefixtures("restore_thread_count")
@pytest.mark.parametrize("name, shape, axis, dtype", THREAD_CASES, ids=[f"{c[0]}-{c[3]}" for c in THREAD_CASES])
def test_thread_count_does_not_change_a_bit(name, shape, axis, dtype):
    """Inputs over 1 MiB, which the thread pool splits: NaN runs long enough to cross chunks (a run of 40 000 along
    the line), sparse and no resets, limits; every thread count gives the reference's bits."""
    rng = np.random.default_rng(seed_of("threads", name, dtype))
    a = values(rng, shape, dtype, 0.3)
    assert a.nbytes >= 1 << 20, "the input must be large enough for the thread pool"
    lines = np.moveaxis(a, 0 if axis is None else axis, -1)
    length = lines.shape[-1]
    lines[..., length // 10:length // 10 + min(40_000, length // 3)] = NAN  # a long run in every line
    lines[..., :3] = NAN
    r = resets(rng, shape, 1e-4)
    np.moveaxis(r, 0 if axis is None else axis, -1)[..., length // 10 + min(40_000, length // 3) // 2] = True
    for decreasing, limit, reset in ((False, None, None), (True, None, r), (False, 3, r), (True, 3, None),
                                     (True, 20_000, r), (False, 20_000, None)):
        simdscan.set_num_threads(1)
        single = ffill(a, axis, decreasing, limit=limit, reset=reset)
        where = f"{name} {dtype} decreasing={decreasing} limit={limit} reset={reset is not None}"
        check_fill(single, a, axis, decreasing, limit, reset, where, fast=True)
        for threads in (2, 4):
            simdscan.set_num_threads(threads)
            got = ffill(a, axis, decreasing, limit=limit, reset=reset)
            assert_same_bits(got, single, f"{where}: {threads} threads vs 1")
        if axis is not None and limit != 20_000:  # in place, threaded
            inplace = a.copy()
            assert ffill(inplace, axis, decreasing, limit=limit, reset=reset, out=inplace) is inplace
            assert_same_bits(inplace, single, f"{where}: in place, 4 threads vs 1")


# --------------------------------------------------------------------------
# errors: the input, reset and out untouched
# --------------------------------------------------------------------------
def _good_out(shape, dt):
    return np.full(shape, 7, dt)


def _read_only(shape, dt):
    out = np.full(shape, 7, dt)
    out.flags.writeable = False
    return out


def _other_dtype(shape, dt):
    return np.full(shape, 7, np.float32 if dt != np.float32 else np.float64)


ERRORS = [
    # (name, keywords (made for a's dtype and the result's shape), error)
    ("limit=0", lambda dt: {"limit": 0}, ValueError),
    ("limit=-1", lambda dt: {"limit": -1}, ValueError),
    ("limit=-100", lambda dt: {"limit": np.int64(-100)}, ValueError),
    ("limit=1.5", lambda dt: {"limit": 1.5}, TypeError),
    ("limit='2'", lambda dt: {"limit": "2"}, TypeError),
    ("limit=2.0", lambda dt: {"limit": np.float64(2.0)}, TypeError),
    ("axis=(0, 1)", lambda dt: {"axis": (0, 1)}, TypeError),
    ("axis=(1,)", lambda dt: {"axis": (1,)}, TypeError),
    ("axis=2", lambda dt: {"axis": 2}, np.exceptions.AxisError),
    ("axis=-3", lambda dt: {"axis": -3}, np.exceptions.AxisError),
    ("reset 2", lambda dt: {"reset": np.array([[0, 2, 0], [1, 0, 0]])}, ValueError),
    ("reset 0.5", lambda dt: {"reset": np.array([0.0, 0.5, 1.0])}, ValueError),
    ("reset NaN", lambda dt: {"reset": np.array([0.0, 0.0, NAN])}, ValueError),
    ("reset 2 scalar", lambda dt: {"reset": 2}, ValueError),
    ("reset complex", lambda dt: {"reset": np.array([0, 1, 0], np.complex64)}, TypeError),
    ("reset str", lambda dt: {"reset": np.array(["0", "1", "0"])}, TypeError),
    ("reset (2,)", lambda dt: {"reset": np.zeros(2, bool)}, ValueError),
    ("reset (3, 3)", lambda dt: {"reset": np.zeros((3, 3), bool)}, ValueError),
    ("reset (6,) axis=None", lambda dt: {"axis": None, "reset": np.zeros(6, bool)}, ValueError),
    ("out shape", lambda dt: {"out": np.full((3, 2), 7, dt)}, ValueError),
    ("out shape axis=None", lambda dt: {"axis": None, "out": np.full((2, 3), 7, dt)}, ValueError),
    ("out dtype", lambda dt: {"out": _other_dtype((2, 3), dt)}, TypeError),
    ("out int64", lambda dt: {"out": np.full((2, 3), 7, np.int64 if dt != np.int64 else np.int32)}, TypeError),
    ("out read-only", lambda dt: {"out": _read_only((2, 3), dt)}, ValueError),
    ("out broadcast", lambda dt: {"out": np.broadcast_to(np.full(3, 7, dt), (2, 3))}, ValueError),
    ("out list", lambda dt: {"out": [[7, 7, 7], [7, 7, 7]]}, TypeError),
    ("out memoryview", lambda dt: {"out": memoryview(np.full((2, 3), 7, dt))}, TypeError),
    ("direction 'up'", lambda dt: {"direction": "up"}, ValueError),
    ("direction 1", lambda dt: {"direction": 1}, TypeError),
]


@pytest.mark.parametrize("dtype", ["float64", "float16", "complex64", "int32", "bool"])
@pytest.mark.parametrize("name, make, error", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_leave_everything_alone(name, make, error, dtype):
    """Each error with everything else valid (a reset and an out given unless the case gives its own; with and
    without a limit), raised before anything is written."""
    dt = np.dtype(dtype)
    a = np.array([[1.0, NAN, 3.0], [NAN, 2.0, NAN]]).astype(dt) if dt.kind in "fc" else \
        np.array([[1, 0, 1], [0, 1, 1]], dt)
    for limit in (None, 2):
        kw = {"axis": 1, "reset": np.array([[0, 0, 1], [0, 1, 0]], bool), "limit": limit}
        kw.update(make(dt))
        shape = a.shape if isinstance(kw["axis"], tuple) else result_shape(a, kw["axis"])
        kw.setdefault("out", _good_out(shape, dt))
        for out in (kw["out"], None):  # and without out, where the case gives none of its own
            if out is None and "out" in make(dt):
                continue
            call = dict(kw, out=out)
            watched = [(x, snapshot(x), what) for x, what in ((a, "input"), (call["reset"], "reset"), (out, "out"))
                       if isinstance(x, np.ndarray)]
            with pytest.raises(error):
                simdscan.ffill(a, **call)
            for x, snap, what in watched:
                assert_unchanged(x, snap, what)


@pytest.mark.parametrize("dtype", ["float32", "int16"])
def test_errors_in_place_leave_a_alone(dtype):
    rng = np.random.default_rng(seed_of("in place errors", dtype))
    a = np.asfortranarray(values(rng, (5, 60), "float32", 0.4).astype(dtype) if dtype == "float32" else
                          rng.integers(-5, 5, (5, 60)).astype(dtype))
    bad = resets(rng, a.shape, 0.3).astype(np.float32)
    bad[4, 59] = 2.0  # the very last element
    snap = snapshot(a)
    for axis in (0, 1):
        for decreasing in (False, True):
            for kw in ({"reset": bad}, {"limit": 0}, {"limit": 1.5, "reset": bad > 0}, {"reset": np.zeros(5)}):
                with pytest.raises((ValueError, TypeError)):
                    ffill(a, axis, decreasing, out=a, **kw)
                assert_unchanged(a, snap)


# --------------------------------------------------------------------------
# masked arrays
# --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "complex128"])
def test_masked_elements_count_as_missing(dtype):
    """A masked element is filled through, as NaN is: the result is masked where a is, and its other values are
    the fill of a's data with the masked elements NaN."""
    rng = np.random.default_rng(seed_of("masked", dtype))
    data = values(rng, (6, 25), dtype, 0.2)
    mask = rng.random(data.shape) < 0.3
    m = np.ma.array(data.copy(), mask=mask.copy())
    holes = data.copy()
    holes[mask] = NAN
    r = resets(rng, data.shape, 0.1)
    for axis in (None, 0, 1):
        result_mask = mask.reshape(-1) if axis is None else mask
        for decreasing in (False, True):
            for limit in (None, 1):
                for reset in (None, r):
                    got = ffill(m, axis, decreasing, limit=limit, reset=reset)
                    where = f"masked {dtype} axis={axis} decreasing={decreasing} limit={limit}"
                    assert isinstance(got, np.ma.MaskedArray), where
                    assert got.dtype == dtype and got.shape == result_shape(data, axis), where
                    np.testing.assert_array_equal(np.ma.getmaskarray(got), result_mask, err_msg=where)
                    want = simdscan_free_fill(holes, axis, decreasing, limit, reset)
                    kept = ~result_mask
                    np.testing.assert_array_equal(np.ma.getdata(got)[kept], want[kept], err_msg=where)
                    assert_same_bits(np.ma.getdata(got)[kept & ~np.isnan(want)], want[kept & ~np.isnan(want)], where)
    # the masked input is left as it was
    assert_same_bits(np.ma.getdata(m), data, "masked input's data")
    np.testing.assert_array_equal(np.ma.getmaskarray(m), mask)


def simdscan_free_fill(a, axis, decreasing, limit, reset):
    """The reference's result in the result's shape."""
    want, _ = reference(a, axis, decreasing, limit, reset)
    if axis is None:
        return want.reshape(-1)
    moved = np.moveaxis(a, axis, -1).shape
    return np.moveaxis(want.reshape(moved), -1, axis)


def test_masked_by_hand():
    m = np.ma.array([1.0, 2.0, NAN, 4.0, 5.0, NAN], mask=[0, 1, 0, 0, 1, 0])
    got = simdscan.ffill(m)
    np.testing.assert_array_equal(got.mask, m.mask)
    np.testing.assert_array_equal(got.compressed(), [1, 1, 4, 4])
    got = simdscan.ffill(m, direction="decreasing")
    np.testing.assert_array_equal(got.mask, m.mask)
    np.testing.assert_array_equal(got.compressed(), [1, 4, 4, NAN])
    got = simdscan.ffill(m, limit=1)  # the masked element and the NaN after it make a run of two
    np.testing.assert_array_equal(got.compressed(), [1, NAN, 4, NAN])
    # no mask: an ordinary fill, still a masked array
    got = simdscan.ffill(np.ma.array([NAN, 1.0, NAN]))
    assert isinstance(got, np.ma.MaskedArray)
    np.testing.assert_array_equal(got.data, [NAN, 1, 1])
    assert not np.ma.getmaskarray(got).any()


@pytest.mark.parametrize("dtype", ["int32", "uint8", "bool"])
def test_masked_integers_keep_their_values(dtype):
    data = (np.arange(12) % 3).astype(dtype).reshape(3, 4)
    mask = np.arange(12).reshape(3, 4) % 5 == 0
    m = np.ma.array(data, mask=mask)
    for axis in (None, 0, 1):
        got = simdscan.ffill(m, axis, limit=1)
        result_mask = mask.reshape(-1) if axis is None else mask
        assert isinstance(got, np.ma.MaskedArray) and got.dtype == dtype
        np.testing.assert_array_equal(np.ma.getmaskarray(got), result_mask)
        wanted = data.reshape(-1) if axis is None else data
        np.testing.assert_array_equal(got.data[~result_mask], wanted[~result_mask])


# --------------------------------------------------------------------------
# pandas
# --------------------------------------------------------------------------
def test_matches_pandas():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed_of("pandas"))
    for dtype in ("float64", "float32"):
        for density in (0.0, 0.1, 0.5, 0.9, 1.0):
            x = values(rng, (500,), dtype, density)
            x[:3] = NAN
            x[-5:] = NAN
            s = pd.Series(x)
            for limit in LIMITS:
                np.testing.assert_array_equal(simdscan.ffill(x, limit=limit), s.ffill(limit=limit).to_numpy(),
                                              err_msg=f"ffill {dtype} {density} {limit}")
                np.testing.assert_array_equal(simdscan.ffill(x, direction="decreasing", limit=limit),
                                              s.bfill(limit=limit).to_numpy(),
                                              err_msg=f"bfill {dtype} {density} {limit}")
    frame = values(rng, (40, 7), "float64", 0.5)
    df = pd.DataFrame(frame)
    np.testing.assert_array_equal(simdscan.ffill(frame, 0, limit=2), df.ffill(limit=2).to_numpy())
    np.testing.assert_array_equal(simdscan.ffill(frame, 1, direction="decreasing"), df.bfill(axis=1).to_numpy())


# --------------------------------------------------------------------------
# properties
# --------------------------------------------------------------------------
def _pool(dt):
    dt = np.dtype(dt)
    reals = [NAN, NAN, NAN, 0.0, -0.0, 1.0, -2.5, np.inf, -np.inf, 3.0]
    if dt.kind == "f":
        return reals
    return reals + [complex(NAN, 1.0), complex(-0.0, NAN), complex(2.0, -0.0), complex(-1.0, 4.0)]


@given(a=st.sampled_from([d.name for d in FILLED]).flatmap(
    lambda dt: hnp.arrays(np.dtype(dt), hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=9),
                          elements=st.sampled_from(_pool(dt)))),
       data=st.data())
def test_any_array_matches_the_loop(a, data):
    """Any small array of NaNs, signed zeros, infinities and numbers, any axis (0-d: None, 0, -1), direction, limit
    and reset (none, full, or broadcast along the axis), returned or written to an out."""
    axis = data.draw(st.sampled_from(all_axes(a.ndim) if a.ndim else [None, 0, -1]), label="axis")
    decreasing = data.draw(st.booleans(), label="decreasing")
    limit = data.draw(st.none() | st.integers(1, 10), label="limit")
    kind = data.draw(st.sampled_from(["none", "full", "along"] if axis is not None and a.ndim else ["none", "full"]))
    reset = None
    if kind == "full":
        reset = data.draw(hnp.arrays(bool, a.shape), label="reset").astype(data.draw(
            st.sampled_from(["bool", "int8", "float32"])))
    elif kind == "along":
        shape = [1] * a.ndim
        shape[axis] = a.shape[axis]
        reset = data.draw(hnp.arrays(bool, tuple(shape)), label="reset")
    use_out = data.draw(st.booleans(), label="out")
    note(f"a={a!r}")
    snap = snapshot(a)
    out = np.full(result_shape(a, axis), 7, a.dtype) if use_out else None
    got = ffill(a, axis, decreasing, limit=limit, reset=reset, out=out)
    if use_out:
        assert got is out
    check_fill(got, a, axis, decreasing, limit, reset)
    assert_unchanged(a, snap)


@given(missing=hnp.arrays(bool, hnp.array_shapes(min_dims=2, max_dims=2, min_side=0, max_side=30)),
       data=st.data())
def test_loop_free_reference_agrees_with_the_loop(missing, data):
    """fast_sources (which the thread tests trust) is line_sources on every row."""
    flags = data.draw(hnp.arrays(bool, missing.shape), label="flags")
    decreasing = data.draw(st.booleans(), label="decreasing")
    limit = data.draw(st.none() | st.integers(1, 8), label="limit")
    src, leading = fast_sources(missing, flags, decreasing, limit)
    for k in range(missing.shape[0]):
        want_src, want_leading = line_sources(missing[k].tolist(), flags[k], decreasing, limit)
        np.testing.assert_array_equal(src[k], want_src)
        np.testing.assert_array_equal(leading[k], want_leading)


@pytest.mark.threads
@pytest.mark.usefixtures("restore_thread_count")
@pytest.mark.parametrize("dtype", FILLED, ids=FILLED_IDS)
@pytest.mark.parametrize("threads", [1, 2, 3, 4])
def test_limit_on_long_lines_and_rows_at_any_thread_count(dtype, threads):
    """The core's fill with a limit: a line longer than several of the runner's chunks (32768 elements), cut among
    the threads (each chunk's own state first, then its outputs), strided, and the rows of a (T, N) batch along axis 0,
    with segments, both directions: the reference's bits, the same at every thread count."""
    rng = np.random.default_rng(seed_of("limit threads", dtype.name))
    line = values(rng, (140_000,), dtype, 0.0)
    # Long runs of NaN (past the limit, across the chunks' edges) among short ones.
    line[np.cumsum(rng.random(line.size) < 0.002) % 2 == 1] = np.nan
    line[rng.random(line.size) < 0.3] = np.nan
    batch = values(rng, (3000, 41), dtype, 0.5)
    simdscan.set_num_threads(threads)
    for a, axis in ((line, 0), (np.repeat(line, 2)[::2], 0), (batch, 0), (batch.T, 1)):
        r = resets(rng, a.shape, 1e-4 if a.ndim == 1 else 0.01)
        for decreasing in (False, True):
            for limit, reset in ((1, None), (5, r), (40_000, None)):
                got = ffill(a, axis, decreasing, limit=limit, reset=reset)
                check_fill(got, a, axis, decreasing, limit, reset,
                           f"threads={threads} shape={a.shape} axis={axis} decreasing={decreasing} "
                           f"limit={limit} reset={reset is not None}")
                # in place: each vector's window of the elements before it is read before they are written
                inplace = a.copy()
                ffill(inplace, axis, decreasing, limit=limit, reset=reset, out=inplace)
                assert_same_bits(inplace, got, f"in place, threads={threads} limit={limit}")
    # the rows with one flag a row for every column (reset broadcast along the columns)
    r = resets(rng, (batch.shape[0], 1), 0.02)
    for decreasing in (False, True):
        check_fill(ffill(batch, 0, decreasing, limit=2, reset=r), batch, 0, decreasing, 2, r, "reset per row")


@pytest.mark.threads
@pytest.mark.usefixtures("restore_thread_count")
@pytest.mark.parametrize("threads", [1, 3])
def test_limit_past_the_vectors_counts(threads):
    """A limit of 2^22 or more (the tiers' lanes count gaps in float32 up to there; beyond, element by element) on a
    line longer than it: the NaN past the limit stay, in both directions."""
    n, limit = (1 << 22) + 300, 1 << 22
    line = np.full(n, np.nan, np.float32)
    line[[5, n - 7]] = [1.5, -2.5]
    simdscan.set_num_threads(threads)
    for decreasing in (False, True):
        got = ffill(line, 0, decreasing, limit=limit)
        check_fill(got, line, 0, decreasing, limit, None, f"threads={threads} decreasing={decreasing}", fast=True)
        assert np.isnan(got).sum() == (n - 13 - limit) + (6 if decreasing else 5)  # past the limit, and leading
