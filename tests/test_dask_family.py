"""simdscan.dask's scan family: cummax / cummin (with indices), nancummax / nancummin, nancumsum / nancumprod and
logcumsumexp, chunk by chunk with carries, against the NumPy-level simdscan function on the computed array.

Tolerances. Exact (``assert_array_equal``, NaN equal to NaN): integers, bool, the extrema and their indices, and
nancumsum / nancumprod of exactly representable data (halves for sums, +-0.5 / 1 / 2 for products: every
partial sum or product is exact in any order; float16 accumulates in float32 and is rounded once, as on the
whole array). logcumsumexp: float16 / float32 within the whole array's accuracy, LOGCUMSUMEXP_RTOL * (1 + |want|)
plus an ulp of the result (Dask's chunks and carries are kept in float64, the whole array is scanned in float32);
float64 within ``(nb + 1) * 4 * eps * (1 + |want|)`` for nb chunks along the axis (one more rounding of
logaddexp per chunk boundary). nancumsum of random
float64: within ``2 * n * eps * nancumsum(|x|)``, the recursive-summation bound of either order.

Like tests/test_dask.py this module imports Dask at module level: runs without Dask ignore it by name.
"""

import dask
import dask.array as da
import numpy as np
import pytest
from dask.callbacks import Callback
from numpy.exceptions import AxisError

import simdscan
import simdscan.dask as sdask
from data import seed_of
from dask_compare import check_close
from family_reference import assert_same_bits, check_logcumsumexp, extremum_indices
from ops import FAMILY, INDEXED, SCANS
DIRECTIONS = ["increasing", "decreasing"]
# "nan32" / "nan64": float32 / float64 with about one NaN in four
DTYPES = ["int8", "uint16", "int64", "bool", "float16", "float32", "float64", "nan32", "nan64"]

# (shape, chunks): along the axis, across it, 1-element chunks, uneven and empty chunks, one chunk
CASES = [
    ((21,), 4),
    ((21,), ((2, 0, 11, 1, 0, 7),)),
    ((7,), 1),
    ((0,), 4),
    ((21,), 21),
    ((8, 13), ((1, 0, 7), (12, 1))),
    ((8, 13), (3, 5)),
    ((3, 5, 9), (2, 3, 4)),
    ((), ()),
]


def _case_id(case):
    return f"{case[0]}-{case[1]}".replace(" ", "")


def make(rng, shape, dtype, name):
    """Small values with many ties; floats exactly representable for sums and products, NaN for "nanXX"."""
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype[0] in "iu":
        return rng.integers(0 if dtype[0] == "u" else -3, 4, size=shape).astype(dtype)
    real = {"nan32": "float32", "nan64": "float64"}.get(dtype, dtype)
    if name == "nancumprod":
        a = rng.choice([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0], size=shape)
    elif name == "logcumsumexp":
        a = rng.uniform(-3.0, 3.0, size=shape)
    else:
        a = rng.integers(-6, 7, size=shape) / 2.0
    if dtype.startswith("nan"):
        a = np.where(rng.random(shape) < 0.25, np.nan, a)
    return np.asarray(a, dtype=real)


def axes_of(ndim):
    return list(range(ndim)) + ([-1] if ndim else [0, -1]) + [None]


def variants(name):
    """The extra keywords each call is made with: with and without indices for cummax / cummin."""
    return [{}, {"return_indices": True}] if name in INDEXED else [{}]


def chunks_along(x, axis):
    return 1 if axis is None else x.numblocks[axis % x.ndim] if x.ndim else 1


def scan_length(a, axis):
    return a.size if axis is None or a.ndim == 0 else a.shape[axis]


def compare(name, a, x, got, axis, direction, exclusive, extra):
    where = f"simdscan.dask.{name}(dtype={a.dtype}, chunks={x.chunks}, axis={axis}, {direction}, " \
            f"exclusive={exclusive}, {extra})"
    if extra and scan_length(a, axis) == 0:
        # simdscan.cummax raises IndexError for the indices of an empty axis (float, or exclusive); Dask: empties
        assert got[0].shape == got[1].shape == (a.shape if axis is not None else (0,))
        assert got[0].dtype == a.dtype and got[1].dtype == np.intp
        return
    want = getattr(simdscan, name)(a, axis, direction=direction, exclusive=exclusive, **extra)
    nb = chunks_along(x, axis)
    if extra:
        assert isinstance(got, tuple) and len(got) == 2, where
        check_close(got[0], want[0], name, nb, where + " values")
        check_close(got[1], want[1], name, nb, where + " indices")
    else:
        check_close(got, want, name, nb, where)


# --------------------------------------------------------------------------
# the matrix: function x dtype x chunking, every axis, direction, exclusive (and indices)
# --------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=_case_id)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", FAMILY)
def test_matches_simdscan(name, dtype, case):
    shape, chunks = case
    a = make(np.random.default_rng(seed_of("family", name, dtype, case)), shape, dtype, name)
    x = da.from_array(a, chunks=chunks)
    calls = []
    for axis in axes_of(a.ndim):
        for direction in DIRECTIONS:
            for exclusive in (False, True):
                for extra in variants(name):
                    r = getattr(sdask, name)(x, axis, direction=direction, exclusive=exclusive, **extra)
                    for part in r if extra else (r,):
                        assert isinstance(part, da.Array)
                        if axis is not None and a.ndim:
                            assert part.chunks == x.chunks  # never rechunked
                    calls.append(((axis, direction, exclusive, extra), r))
    results = dask.compute(*[r for _, r in calls], scheduler="sync")
    for ((axis, direction, exclusive, extra), r), got in zip(calls, results):
        compare(name, a, x, got, axis, direction, exclusive, extra)


@pytest.mark.parametrize("name", FAMILY)
def test_threaded_scheduler_many_chunks(name):
    """The default (threaded) scheduler, 2-D, many chunks along and across the axis, NaN-bearing float64."""
    a = make(np.random.default_rng(seed_of("threaded", name)), (40, 60), "nan64", name)
    x = da.from_array(a, chunks=(3, 7))
    for axis in (0, -1):
        for direction in DIRECTIONS:
            for extra in variants(name):
                r = getattr(sdask, name)(x, axis, direction=direction, exclusive=True, **extra)
                got = dask.compute(*r) if extra else r.compute()
                compare(name, a, x, got, axis, direction, True, extra)


# --------------------------------------------------------------------------
# carries across chunk boundaries: indices, ties, NaN, empty and all-NaN chunks
# --------------------------------------------------------------------------
@pytest.mark.parametrize("name", INDEXED)
@pytest.mark.parametrize("dtype", ["float64", "int8", "bool"])
def test_indices_ties_nan_and_identities_across_chunks(name, dtype):
    """Ties to the later element across boundaries, the first NaN's position, -1 for the exclusive identity,
    and the dtype's extreme values around empty chunks (whose totals stand for no element)."""
    if dtype == "bool":
        data = [[True, False, True, True, False], [False, False, True, False, False]]
    elif dtype == "int8":
        data = [[-128, -128, 5, 5, 127], [127, 127, -128, 3, 3]]
    else:
        data = [[-np.inf, -np.inf, 2.0, 2.0, np.inf], [np.inf, np.inf, np.nan, 1.0, np.nan], [1.0, np.nan, 2.0,
                                                                                               2.0, 2.0]]
    for row in data:
        a = np.array(row, dtype=dtype)
        for chunks in (1, 2, ((1, 0, 2, 0, 0, 2),), ((0, 5, 0),)):
            x = da.from_array(a, chunks=chunks)
            for direction in DIRECTIONS:
                for exclusive in (False, True):
                    got = dask.compute(*getattr(sdask, name)(x, direction=direction, exclusive=exclusive,
                                                             return_indices=True))
                    compare(name, a, x, got, 0, direction, exclusive, {"return_indices": True})


@pytest.mark.parametrize("name", ["nancummax", "nancummin", "nancumsum", "nancumprod"])
def test_all_nan_and_empty_chunks_do_not_poison_carries(name):
    a = np.array([np.nan, np.nan, np.nan, 4.0, np.nan, np.nan, -1.0, np.nan, np.nan, np.nan])
    for chunks in (((3, 0, 1, 2, 0, 1, 3),), ((2, 0, 0, 1, 4, 3),), 1, 3):
        x = da.from_array(a, chunks=chunks)
        for direction in DIRECTIONS:
            for exclusive in (False, True):
                got = getattr(sdask, name)(x, direction=direction, exclusive=exclusive).compute()
                compare(name, a, x, got, 0, direction, exclusive, {})


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("name", ["cummax", "cummin", "nancummax", "nancummin"])
def test_signed_zero_ties_take_the_later_elements_bits(name, dtype):
    """A tie of +0 and -0 across a chunk boundary goes to the later element in the walk, as in simdscan on the whole
    array (bit for bit), and each value has the bits of the element that supplies it: the latest in the walk to equal
    the running extremum (NumPy's loop, family_reference.extremum_indices; for the NaN-skipping scans with NaN as the
    identity), which with return_indices is the element its index names. (The carries were combined by NumPy's
    maximum / minimum, which keep float16's earlier operand of a tie, and fmax / fmin, which keep any dtype's.)"""
    rng = np.random.default_rng(seed_of("signed zero ties", name, dtype))
    base = "cummax" if name.endswith("max") else "cummin"
    skips_nan = name.startswith("nan")
    lines = rng.choice([0.0, -0.0, 0.0, -0.0, -1.0, np.nan] if base == "cummax" else [0.0, -0.0, 1.0, np.nan],
                       size=(6, 12))
    lines[0] = [0.0, -0.0, 0.0, -0.0, 0.0, -0.0, -0.0, 0.0, 0.0, np.nan, -0.0, 0.0]
    bits = {"float16": np.uint16, "float32": np.uint32, "float64": np.uint64}[dtype]
    for a, chunks_list, axes in ((lines[0].astype(dtype), (1, 2, 5, ((1, 0, 4, 0, 7),)), (0,)),
                                 (lines.astype(dtype), ((1, 2), ((2, 0, 3, 1), 4), ((3, 3), (1, 6, 5))), (0, 1))):
        # the supplier's reference: NaN as the identity where it is skipped (a NaN supplier: no value yet)
        as_identity = np.where(np.isnan(a), -np.inf if base == "cummax" else np.inf, a) if skips_nan else a
        for chunks in chunks_list:
            x = da.from_array(a, chunks=chunks)
            for axis in axes:
                for direction in DIRECTIONS:
                    for exclusive in (False, True):
                        where = f"{name}({dtype}, chunks={x.chunks}, axis={axis}, {direction}, exclusive={exclusive})"
                        kw = dict(direction=direction, exclusive=exclusive)
                        suppliers = extremum_indices(base, as_identity, axis, direction == "decreasing", exclusive)
                        supplied = np.take_along_axis(a, np.maximum(suppliers, 0), axis=axis)
                        known = (suppliers >= 0) & ~np.isnan(supplied)
                        for extra in variants(name):
                            got = getattr(sdask, name)(x, axis, **kw, **extra)
                            got = dask.compute(*got) if extra else got.compute()
                            want = getattr(simdscan, name)(a, axis, **kw, **extra)
                            values = got[0] if extra else got
                            assert_same_bits(values, want[0] if extra else want, where + f" {extra}")
                            np.testing.assert_array_equal(values[known].view(bits), supplied[known].view(bits),
                                                          err_msg=where + f" {extra}: the supplier's bits")
                            if extra:
                                np.testing.assert_array_equal(got[1], suppliers, err_msg=where + " indices")


def test_logcumsumexp_special_values_and_large_magnitudes():
    rows = [
        [1e4, 1e4, -1e4, 3e3, 1e4 + 1],
        [-np.inf, -np.inf, 0.0, -np.inf, 1.0],
        [0.0, np.inf, 1.0, -np.inf, 2.0],
        [1.0, 2.0, np.nan, 3.0, 4.0],
    ]
    for row in rows:
        for dtype in ("float16", "float32", "float64"):
            a = np.array(row, dtype=dtype)
            for chunks in (1, 2, ((2, 0, 3),)):
                x = da.from_array(a, chunks=chunks)
                for direction in DIRECTIONS:
                    for exclusive in (False, True):
                        got = sdask.logcumsumexp(x, direction=direction, exclusive=exclusive).compute()
                        compare("logcumsumexp", a, x, got, 0, direction, exclusive, {})


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_logcumsumexp_narrow_floats_carried_in_float64(dtype):
    """4000 random values in 37 chunks: within the stated accuracy of the extended-precision reference, and of the
    whole-array result."""
    a = np.random.default_rng(seed_of("lcse", dtype)).normal(size=4000).astype(dtype)
    x = da.from_array(a, chunks=111)
    for direction in DIRECTIONS:
        got = sdask.logcumsumexp(x, direction=direction).compute()
        check_logcumsumexp(got, a, 0, direction == "decreasing", msg=f"{dtype} {direction}")
        compare("logcumsumexp", a, x, got, 0, direction, False, {})


def test_logcumsumexp_float64_random_and_integers():
    rng = np.random.default_rng(seed_of("lcse64"))
    a = rng.normal(scale=10.0, size=(3000, 2))
    x = da.from_array(a, chunks=(97, 1))
    for direction in DIRECTIONS:
        for exclusive in (False, True):
            got = sdask.logcumsumexp(x, 0, direction=direction, exclusive=exclusive).compute()
            compare("logcumsumexp", a, x, got, 0, direction, exclusive, {})
    ints = da.from_array(rng.integers(-50, 50, size=100, dtype=np.int16), chunks=7)
    r = sdask.logcumsumexp(ints, exclusive=True)
    assert r.dtype == np.float64
    compare("logcumsumexp", ints.compute(), ints, r.compute(), None, "increasing", True, {})


@pytest.mark.parametrize("compensated", [False, True])
def test_nancumsum_random_float64_within_bound(compensated):
    rng = np.random.default_rng(seed_of("nancumsum64", compensated))
    a = np.where(rng.random(5000) < 0.1, np.nan, rng.normal(size=5000))
    x = da.from_array(a, chunks=((1000, 1, 2000, 0, 1999),))
    for direction in DIRECTIONS:
        for exclusive in (False, True):
            flags = dict(direction=direction, exclusive=exclusive, compensated=compensated)
            got = sdask.nancumsum(x, **flags).compute()
            want = simdscan.nancumsum(a, **flags)
            bound = 2 * a.size * np.finfo(np.float64).eps * simdscan.nancumsum(np.abs(a), direction=direction)
            assert got.dtype == want.dtype and np.all(np.abs(got - want) <= bound)


@pytest.mark.parametrize("name", ["nancumsum", "nancumprod", "logcumsumexp"])
def test_dtype_argument(name):
    a = make(np.random.default_rng(seed_of("dtype", name)), (11, 13), "int8", name)
    x = da.from_array(a, chunks=(3, 4))
    for dtype in ("float16", "float32", "float64") + (("int32",) if name != "logcumsumexp" else ()):
        for axis in (0, None):
            for direction in DIRECTIONS:
                r = getattr(sdask, name)(x, axis, direction=direction, exclusive=True, dtype=dtype)
                want = getattr(simdscan, name)(a, axis, direction=direction, exclusive=True, dtype=dtype)
                assert r.dtype == want.dtype
                check_close(r.compute(), want, name, chunks_along(x, axis), f"{name} dtype={dtype}")


# --------------------------------------------------------------------------
# laziness, processes, errors at graph-build time
# --------------------------------------------------------------------------
def test_lazy_until_computed():
    x = da.from_array(np.arange(60.0).reshape(6, 10), chunks=(2, 3))
    ran = []
    with Callback(pretask=lambda key, dsk, state: ran.append(key)):
        for name in FAMILY:
            for extra in variants(name):
                getattr(sdask, name)(x, 1, direction="decreasing", exclusive=True, **extra)
        assert ran == []
        sdask.cummin(x, 1).compute(scheduler="sync")
        assert ran  # (the callback does see tasks)


def test_process_scheduler_pickles_every_task():
    a = make(np.random.default_rng(7), (12, 5), "nan64", "cummax")
    x = da.from_array(a, chunks=(5, 2))
    results = [sdask.cummax(x, 0, direction="decreasing", return_indices=True), sdask.nancumsum(x, 0),
               sdask.logcumsumexp(x, 0, exclusive=True), sdask.nancummin(x, 0)]
    got = dask.compute(*results, scheduler="processes", num_workers=2)
    compare("cummax", a, x, got[0], 0, "decreasing", False, {"return_indices": True})
    compare("nancumsum", a, x, got[1], 0, "increasing", False, {})
    compare("logcumsumexp", a, x, got[2], 0, "increasing", True, {})
    compare("nancummin", a, x, got[3], 0, "increasing", False, {})


def _same_error(name, a, *args, **kw):
    with pytest.raises(Exception) as eager:
        getattr(simdscan, name)(a, *args, **kw)
    with pytest.raises(eager.type) as lazy:
        getattr(sdask, name)(da.from_array(a, chunks=2), *args, **kw)
    assert str(lazy.value) == str(eager.value)
    return lazy.value


@pytest.mark.parametrize("name", FAMILY)
def test_errors_match_simdscan(name):
    a = np.ones((3, 4))
    for extra in variants(name):
        assert isinstance(_same_error(name, a, 2, **extra), AxisError)
        assert isinstance(_same_error(name, a, -3, **extra), AxisError)
        assert isinstance(_same_error(name, a, 0, direction="up", **extra), ValueError)
        assert isinstance(_same_error(name, a, 0, direction=None, **extra), TypeError)
        assert isinstance(_same_error(name, a, 1.0, **extra), TypeError)
        assert isinstance(_same_error(name, a.astype("datetime64[s]"), 0, **extra), TypeError)
    if name in ("nancumsum", "nancumprod", "logcumsumexp"):
        assert isinstance(_same_error(name, a, 0, dtype=object), TypeError)
    if name not in ("nancumsum", "nancumprod"):  # (no order, no log: complex numbers are refused)
        assert isinstance(_same_error(name, a.astype(np.complex64), 0), TypeError)
    with pytest.raises(TypeError):
        getattr(sdask, name)(da.from_array(a), 0, out=None)  # no out= in Dask


@pytest.mark.parametrize("name", [s.name for s in SCANS])
@pytest.mark.parametrize(
    ("axis", "direction", "exclusive"),
    [((0, 1), "increasing", False), ((2, 0), ("decreasing", "increasing"), (True, False)),
     ((1, 2, 0), "decreasing", (False, True, False)), ((-1,), "increasing", True)],
)
def test_several_axes_match_simdscan(name, axis, direction, exclusive):
    # Each axis in turn, as simdscan scans a tuple axis: int32 exactly (sums and products wrap alike in any order),
    # float64 data with NaN within a few ulps (chunks add and multiply in another order).
    rng = np.random.default_rng(seed_of("dask axes", name, axis))
    ints = rng.integers(-3, 4, size=(6, 5, 7)).astype(np.int32)
    floats = rng.integers(-3, 4, size=(6, 5, 7)) / 2.0
    floats[rng.random(floats.shape) < 0.2] = np.nan
    for a in ([] if name == "logcumsumexp" else [ints]) + [floats]:
        want = getattr(simdscan, name)(a, axis=axis, direction=direction, exclusive=exclusive)
        lazy = getattr(sdask, name)(da.from_array(a, chunks=(4, 2, 3)), axis=axis, direction=direction,
                                    exclusive=exclusive)
        got = lazy.compute()
        where = f"{name} {a.dtype} axis={axis} direction={direction} exclusive={exclusive}"
        assert got.dtype == want.dtype and got.shape == want.shape, where
        if a.dtype.kind == "i" or name not in ("cumsum", "cumprod", "nancumprod", "logcumsumexp"):
            np.testing.assert_array_equal(got, want, err_msg=where)
        else:
            np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13, err_msg=where)


@pytest.mark.parametrize("name", ["cumsum", "cummax", "nancumsum", "logcumsumexp"])
def test_several_axes_errors_match_simdscan(name):
    a = np.ones((3, 4))
    assert isinstance(_same_error(name, a, (0, 0)), ValueError)
    assert isinstance(_same_error(name, a, (0, 2)), AxisError)
    assert isinstance(_same_error(name, a, ()), ValueError)
    assert isinstance(_same_error(name, a, (0, 1), direction=("increasing",)), ValueError)
    if name == "cummax":
        assert isinstance(_same_error(name, a, (0, 1), return_indices=True), ValueError)


# --------------------------------------------------------------------------
# cumulative_sum / cumulative_prod: NumPy 2.1's functions, lazily
# --------------------------------------------------------------------------
def numpy_cumulative(product, a, axis, direction, **kw):
    """np.cumulative_sum / _prod, in the decreasing direction by flipping before and after (the identity then last)."""
    f = np.cumulative_prod if product else np.cumulative_sum
    if direction == "increasing":
        return f(a, axis=axis, **kw)
    flip_axis = 0 if axis is None else axis
    b = np.atleast_1d(a)
    return np.flip(f(np.flip(b, flip_axis), axis=axis, **kw), flip_axis)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64", "bool", "float16", "float32", "float64"])
@pytest.mark.parametrize("product", [False, True], ids=["sum", "prod"])
def test_cumulative_matches_numpy(product, dtype, case):
    shape, chunks = case
    name = "nancumprod" if product else "nancumsum"  # exactly representable data in any order (make)
    a = make(np.random.default_rng(seed_of("cumulative", product, dtype, case)), shape, dtype, name)
    x = da.from_array(a, chunks=chunks)
    f = sdask.cumulative_prod if product else sdask.cumulative_sum
    axes = list(range(a.ndim)) + [-1] if a.ndim > 1 else [None, 0, -1]
    for axis in axes:
        for direction in DIRECTIONS:
            for include_initial in (False, True):
                for kw in ({}, {"dtype": bool} if dtype in ("bool", "int8") else {"dtype": np.float64}):
                    where = f"{f.__name__}({dtype}, chunks={x.chunks}, {axis}, {direction}, {include_initial}, {kw})"
                    got = f(x, axis=axis, direction=direction, include_initial=include_initial, **kw)
                    assert isinstance(got, da.Array), where
                    want = numpy_cumulative(product, a, axis, direction, include_initial=include_initial, **kw)
                    computed = got.compute()
                    assert computed.dtype == want.dtype and computed.shape == want.shape == got.shape, where
                    np.testing.assert_array_equal(computed, want, err_msg=where)


def test_cumulative_errors_match_simdscan():
    a = np.ones((3, 4), dtype=np.int16)
    for function in ("cumulative_sum", "cumulative_prod"):
        for kw, error in (({}, ValueError), ({"axis": 2}, AxisError), ({"axis": (0, 1)}, ValueError),
                          ({"axis": True}, TypeError), ({"axis": 0, "direction": "up"}, ValueError),
                          ({"axis": 0, "dtype": ">f8"}, TypeError), ({"axis": 0, "dtype": object}, TypeError)):
            with pytest.raises(error) as eager:
                getattr(simdscan, function)(a, **kw)
            with pytest.raises(error) as lazy:
                getattr(sdask, function)(da.from_array(a, chunks=2), **kw)
            assert str(lazy.value) == str(eager.value), (function, kw)
        with pytest.raises(TypeError):
            getattr(sdask, function)(da.from_array(a), axis=0, out=None)  # no out= in Dask
