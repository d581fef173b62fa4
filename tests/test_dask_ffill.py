"""simdscan.dask.ffill, lazily: against simdscan.ffill on the computed array, bit for bit.

Every floating and complex dtype, both directions, limits None / 1 / 2 / large, chunks of 1, uneven and empty chunks,
2-D and 3-D along and across the axis, axis=None flattened; NaN runs that span several chunks (the run's count carries
across them for ``limit``), lines all NaN, NaNs with payloads and signs; resets as NumPy and Dask arrays of every
accepted dtype, at chunk starts, just after them and at chunk ends; integer and bool inputs returned as they are;
masked chunks; laziness; simdscan's errors. Also the regressions of the scans' carries across empty chunks
(nancummax / nancummin exclusive, sums of -0.0) and of axis=None over empty chunks.
"""

import dask
import dask.array as da
import numpy as np
import pytest

import simdscan
import simdscan.dask as sdask
from dask_compare import TaskCounter, as_form
from data import seed_of
from reference import FLOAT_DTYPES, INT_DTYPES

NAN = np.nan
FILLED = FLOAT_DTYPES  # the dtypes that hold NaN
FILLED_IDS = [d.name for d in FILLED]
DIRECTIONS = ("increasing", "decreasing")
LIMITS = (None, 1, 2, 1000)
PATTERNS = ("none", "sparse", "dense", "starts", "after", "ends")
#: how a reset is handed over: (NumPy or Dask, its dtype)
FORMS = (("numpy", bool), ("dask", bool), ("numpy", np.float32), ("dask", np.float64), ("numpy", np.int8),
         ("dask", np.uint8))

# (shape, chunks, axis): chunks of 1, uneven with empty ones, one chunk, 2-D along and across, 3-D, flattened
CASES = [
    ((17,), 1, 0),
    ((17,), ((3, 0, 5, 1, 0, 8),), 0),
    ((17,), ((0, 17, 0),), -1),
    ((6, 11), ((2, 1, 3), (4, 0, 7)), 0),
    ((6, 11), ((2, 1, 3), (4, 0, 7)), 1),
    ((4, 3, 10), (2, 3, (1, 4, 0, 5)), 2),
    ((5, 7), (2, 3), None),
    ((5, 7), ((2, 0, 3), (4, 0, 3)), None),
]


def _case_id(case):
    return f"{case[0]}-{case[1]}-axis{case[2]}".replace(" ", "")


def bits(x):
    """The bits of ``x``'s elements (a complex one's parts) as unsigned integers."""
    x = np.ascontiguousarray(x)
    parts = 2 if x.dtype.kind == "c" else 1
    return x.view(f"u{x.itemsize // parts}")


def assert_same(got, want, where):
    """Same type, dtype, shape, values and bits (a NaN left unfilled keeps its own bits on both sides)."""
    assert isinstance(got, np.ndarray), f"{where}: returned {type(got)!r}"
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype}, simdscan gives {want.dtype}"
    assert got.shape == want.shape, f"{where}: shape {got.shape}, simdscan gives {want.shape}"
    np.testing.assert_array_equal(got, want, err_msg=where, strict=True)
    if want.dtype.kind in "fc":
        np.testing.assert_array_equal(bits(got), bits(want), err_msg=f"{where} (bits)")


def nans(dtype, count, rng):
    """``count`` NaNs of ``dtype`` with assorted signs and payloads (a complex one NaN in either part or both)."""
    dt = np.dtype(dtype)
    real = np.dtype(dt.char.lower())
    info = np.finfo(real)
    uint = np.dtype(f"u{real.itemsize}")
    exponent = ((1 << info.nexp) - 1) << info.nmant
    sign = rng.integers(0, 2, count).astype(uint) << uint.type(8 * real.itemsize - 1)
    payload = rng.integers(1, 1 << min(info.nmant, 20), count).astype(uint)
    parts = (sign | uint.type(exponent) | payload).view(real)
    if dt.kind == "f":
        return parts
    other = rng.integers(-4, 5, count).astype(real)
    kind = rng.integers(0, 3, count)
    out = np.empty(count, dt)
    out.real = np.where(kind != 1, parts, other)
    out.imag = np.where(kind != 0, parts[::-1], other)
    return out


def make(rng, shape, dtype, axis):
    """Numbers (eighths, signed zeros, infinities) with NaN at a random density, runs of NaN spanning several
    chunks along the axis, and one line all NaN."""
    dt = np.dtype(dtype)
    a = (rng.integers(-40, 41, shape) / 8).astype(dt)
    if a.size == 0:
        return a
    special = rng.random(shape) < 0.1
    a[special] = rng.choice(np.array([-0.0, 0.0, np.inf, -np.inf]), int(special.sum()))
    missing = rng.random(shape) < rng.choice([0.2, 0.5, 0.8])
    lines = missing.reshape(1, -1) if axis is None else np.moveaxis(missing, axis, -1)
    n = lines.shape[-1]
    for k in np.ndindex(lines.shape[:-1]):
        start = rng.integers(0, n)
        lines[k][start:start + rng.integers(1, n + 1)] = True  # a long run, over chunk boundaries
    lines[next(np.ndindex(lines.shape[:-1]))] = True
    a[missing] = nans(dt, int(missing.sum()), rng)
    return a


def chunk_starts(x, axis):
    """The chunk starts along the walked axis (of the flattened array for axis=None), but the first."""
    chunks = x.ravel().chunks[0] if axis is None else x.chunks[axis]
    return np.cumsum(chunks)[:-1]


def make_reset(pattern, rng, shape, starts, axis):
    """A bool reset for an input of ``shape`` (broadcast along the axis for the chunk-boundary patterns)."""
    if pattern == "none":
        return None
    if pattern in ("sparse", "dense"):
        return rng.random(shape) < (0.1 if pattern == "sparse" else 0.5)
    n = int(np.prod(shape)) if axis is None else shape[axis]
    places = starts + {"starts": 0, "after": 1, "ends": -1}[pattern]
    line = np.zeros(n, dtype=bool)
    line[places[(places >= 0) & (places < n)]] = True
    if axis is None:
        return line.reshape(shape)
    ax = axis % len(shape)
    return line.reshape([-1 if k == ax else 1 for k in range(len(shape))])


def computed(result):
    # (unoptimized: optimizing these small graphs costs more than running them)
    return dask.compute(result, scheduler="sync", optimize_graph=False)[0]


def run(a, chunks, axis, where, reset=None, form=FORMS[0], **kw):
    """simdscan.dask.ffill of ``a`` in ``chunks`` against simdscan.ffill of ``a``, the reset handed over in ``form``."""
    x = da.from_array(a, chunks=chunks)
    lazy = sdask.ffill(x, axis, reset=None if reset is None else as_form(reset, form), **kw)
    assert isinstance(lazy, da.Array), where
    if axis is not None and a.ndim:
        assert lazy.chunks == x.chunks, f"{where}: chunks {lazy.chunks}"
    want = simdscan.ffill(a, axis, reset=reset, **kw)
    assert_same(computed(lazy), want, f"{where}, reset as {form}")


# --------------------------------------------------------------------------
# the matrix: every dtype and chunking, both directions, every limit, reset patterns and forms by turns
# --------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=_case_id)
@pytest.mark.parametrize("dtype", FILLED, ids=FILLED_IDS)
def test_matches_simdscan(dtype, case):
    shape, chunks, axis = case
    rng = np.random.default_rng(seed_of("dask ffill", dtype.name, case))
    a = make(rng, shape, dtype, axis)
    starts = chunk_starts(da.from_array(a, chunks=chunks), axis)
    step = CASES.index(case) + FILLED.index(dtype)
    for direction in DIRECTIONS:
        for limit in LIMITS:
            for _ in range(2):
                pattern, form = PATTERNS[step % len(PATTERNS)], FORMS[step % len(FORMS)]
                step += 1
                r = make_reset(pattern, rng, shape, starts, axis)
                where = f"ffill({dtype}, chunks={chunks}, axis={axis}, {direction}, limit={limit}, reset {pattern})"
                run(a, chunks, axis, where, r, form, direction=direction, limit=limit)


def test_by_hand():
    """A run of NaNs over several chunks: filled all the way, or as far as the limit counts from the number."""
    a = np.array([1.0, NAN, NAN, NAN, NAN, NAN, NAN, 2.0, NAN, NAN])
    for chunks in (1, 2, 3, ((1, 0, 4, 0, 2, 3),)):
        x = da.from_array(a, chunks=chunks)
        got = sdask.ffill(x).compute()
        np.testing.assert_array_equal(got, [1, 1, 1, 1, 1, 1, 1, 2, 2, 2])
        got = sdask.ffill(x, limit=4).compute()
        np.testing.assert_array_equal(got, [1, 1, 1, 1, 1, NAN, NAN, 2, 2, 2])
        got = sdask.ffill(x, direction="decreasing", limit=2).compute()
        np.testing.assert_array_equal(got, [1, NAN, NAN, NAN, NAN, 2, 2, 2, NAN, NAN])
        got = sdask.ffill(x, reset=np.isin(np.arange(10), [3, 9])).compute()
        np.testing.assert_array_equal(got, [1, 1, 1, NAN, NAN, NAN, NAN, 2, 2, NAN])
        # a reset cuts just before its own index, so a backward fill reaches the reset and stops there
        got = sdask.ffill(x, direction="decreasing", reset=da.from_array(np.arange(10) == 3, chunks=4)).compute()
        np.testing.assert_array_equal(got, [1, NAN, NAN, 2, 2, 2, 2, 2, NAN, NAN])


@pytest.mark.parametrize("dtype", ["float64", "float16", "complex64"])
def test_long_runs_across_many_chunks(dtype):
    """Lines whose NaN runs are longer than many chunks of 1 to 7, limits around the run lengths: the count carried
    across every chunk of a run."""
    rng = np.random.default_rng(seed_of("dask ffill runs", dtype))
    n = 300
    a = (rng.integers(-40, 41, (3, n)) / 8).astype(dtype)
    gaps = rng.random((3, n)) < 0.85
    a[gaps] = nans(dtype, int(gaps.sum()), rng)
    sizes = rng.integers(0, 8, n)
    sizes = [int(c) for c in sizes[np.cumsum(sizes) <= n]]
    chunks = ((1, 2), tuple(sizes) + (n - sum(sizes),))
    r = rng.random((3, n)) < 0.01
    for direction in DIRECTIONS:
        for limit in (None, 3, 20):
            for reset in (None, r):
                where = f"{dtype} {direction} limit={limit} reset={reset is not None}"
                run(a, chunks, 1, where, reset, FORMS[1], direction=direction, limit=limit)


@pytest.mark.parametrize("dtype", FILLED, ids=FILLED_IDS)
def test_all_nan_and_no_nan(dtype):
    rng = np.random.default_rng(seed_of("dask ffill extremes", dtype.name))
    for a in (nans(dtype, 12, rng).reshape(3, 4), (rng.integers(-9, 9, (3, 4)) / 4).astype(dtype)):
        for axis in (0, 1, None):
            for direction in DIRECTIONS:
                for limit in (None, 1):
                    run(a, 1, axis, f"{dtype} axis={axis} {direction} limit={limit}", direction=direction,
                        limit=limit)


def test_empty_and_0d():
    cases = [(np.zeros(0), 4, 0), (np.zeros((0, 3)), (2, 2), 0), (np.full((3, 0), NAN), (2, 2), 1),
             (np.zeros((0, 3)), 2, None), (np.array(NAN), (), None), (np.array(-0.0), (), 0),
             (np.array(NAN, np.float16), (), -1)]
    for a, chunks, axis in cases:
        for direction in DIRECTIONS:
            for limit in (None, 2):
                where = f"shape={a.shape} axis={axis} {direction} limit={limit}"
                run(a, chunks, axis, where, direction=direction, limit=limit)
                run(a, chunks, axis, where, np.ones(a.shape, bool), FORMS[1], direction=direction, limit=limit)


@pytest.mark.parametrize("dtype", INT_DTYPES + [np.dtype(bool)], ids=[d.name for d in INT_DTYPES] + ["bool"])
def test_integers_and_bool_come_back_as_they_are(dtype):
    """Nothing to fill: the values, a copy of them, in the input's chunks (flattened for axis=None)."""
    a = (np.arange(24).reshape(4, 6) % 3).astype(dtype)
    x = da.from_array(a, chunks=(3, 4))
    for axis in (0, 1, None):
        for reset in (None, np.eye(4, 6, dtype=bool), da.from_array(np.eye(4, 6), chunks=2)):
            lazy = sdask.ffill(x, axis, direction="decreasing", limit=1, reset=reset)
            flags = reset.compute() if isinstance(reset, da.Array) else reset
            want = simdscan.ffill(a, axis, direction="decreasing", limit=1, reset=flags)
            got = lazy.compute()
            assert_same(got, want, f"{dtype} axis={axis}")
            assert not np.shares_memory(got, a)
            if axis is not None:
                assert lazy.chunks == x.chunks


def test_threaded_scheduler_2d():
    """The default scheduler; many chunks along and across either axis, a Dask reset in chunks of its own."""
    rng = np.random.default_rng(seed_of("dask ffill threaded"))
    a = make(rng, (40, 60), np.float32, 1)
    r = rng.random((40, 60)) < 0.05
    x, rd = da.from_array(a, chunks=(7, 9)), da.from_array(r, chunks=(11, 13))
    for axis in (0, 1):
        for direction in DIRECTIONS:
            for limit in (None, 4):
                got = sdask.ffill(x, axis, direction=direction, limit=limit, reset=rd).compute()
                want = simdscan.ffill(a, axis, direction=direction, limit=limit, reset=r)
                assert_same(got, want, f"axis={axis} {direction} limit={limit}")


def test_numpy_level_ffill_hands_dask_arrays_over():
    a = np.array([[NAN, 1.0, NAN, NAN], [2.0, NAN, NAN, 3.0]])
    x = da.from_array(a, chunks=1)
    r = np.array([0, 0, 1, 0])
    got = simdscan.ffill(x, 1, direction="decreasing", limit=1, reset=r)
    assert isinstance(got, da.Array)
    assert got.name == sdask.ffill(x, 1, direction="decreasing", limit=1, reset=r).name  # the same graph
    assert_same(got.compute(), simdscan.ffill(a, 1, direction="decreasing", limit=1, reset=r), "NumPy level")
    with pytest.raises(TypeError, match="out= takes no Dask array"):
        simdscan.ffill(x, out=np.empty(8))


def test_masked_chunks_count_as_missing():
    """Chunks that are masked arrays, as simdscan.ffill takes one: a masked element is missing, filled through as a
    NaN is, and the result is masked where the input is."""
    rng = np.random.default_rng(seed_of("dask ffill masked"))
    data = make(rng, (6, 25), np.float64, 1)
    m = np.ma.array(data, mask=rng.random(data.shape) < 0.3)
    r = rng.random(data.shape) < 0.1
    x = da.from_array(m, chunks=(4, 3), asarray=False)
    for axis in (0, 1, None):
        for direction in DIRECTIONS:
            for limit in (None, 2):
                for reset in (None, r):
                    got = computed(sdask.ffill(x, axis, direction=direction, limit=limit, reset=reset))
                    want = simdscan.ffill(m, axis, direction=direction, limit=limit, reset=reset)
                    where = f"masked axis={axis} {direction} limit={limit} reset={reset is not None}"
                    assert isinstance(got, np.ma.MaskedArray), where
                    np.testing.assert_array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(want), err_msg=where)
                    assert_same(np.ma.getdata(got), np.ma.getdata(want), where)


# --------------------------------------------------------------------------
# laziness
# --------------------------------------------------------------------------
def test_lazy_nothing_computed_until_asked():
    """Neither the data nor a Dask reset is computed while the graph is built; computed, each chunk once."""
    calls = []

    def produce(block, block_info=None):
        calls.append(block_info[None]["chunk-location"])
        return block

    a = np.where(np.arange(60).reshape(6, 10) % 4 == 1, 1.0, NAN)
    r = np.zeros((6, 10), dtype=bool)
    r[::2, 1::3] = True
    x = da.from_array(a, chunks=(2, 3)).map_blocks(produce, dtype=a.dtype, meta=np.empty((0, 0)))
    lazy_reset = da.from_array(r.astype(np.float32), chunks=(3, 4)).map_blocks(produce, dtype=np.float32)
    with TaskCounter() as counter:
        results = [sdask.ffill(x, axis, direction=direction, limit=limit, reset=reset)
                   for axis in (0, 1, None) for direction in DIRECTIONS for limit in (None, 2)
                   for reset in (None, r, lazy_reset)]
        results.append(sdask.ffill(x.astype(np.int32), 1, reset=lazy_reset))
        assert counter.tasks == 0
    assert calls == []
    got = results[3 * 2 * 2 + 2].compute(scheduler="sync")  # axis 1, increasing, no limit, the lazy reset
    assert len(calls) == 12 + 6
    assert_same(got, simdscan.ffill(a, 1, reset=r), "lazy")


# --------------------------------------------------------------------------
# errors: simdscan's, while the graph is built (a Dask reset's values: when it is computed)
# --------------------------------------------------------------------------
ERRORS = [
    {"limit": 0}, {"limit": -1}, {"limit": np.int64(-100)}, {"limit": 1.5}, {"limit": "2"},
    {"limit": np.float64(2.0)}, {"axis": (0, 1)}, {"axis": (1,)}, {"axis": 2}, {"axis": -3},
    {"reset": np.array([[0, 2, 0], [1, 0, 0]])}, {"reset": np.array([0.0, 0.5, 1.0])}, {"reset": [0.0, 0.0, NAN]},
    {"reset": 2}, {"reset": np.array([0, 1, 0], np.complex64)}, {"reset": np.array(["0", "1", "0"])},
    {"reset": np.zeros(2, bool)}, {"reset": np.zeros((3, 3), bool)}, {"axis": None, "reset": np.zeros(6, bool)},
    {"direction": "up"}, {"direction": 1},
    # several at once: simdscan's order (axis and limit, then reset, then direction)
    {"axis": 5, "reset": [2, 0, 0]}, {"limit": 0, "reset": [2, 0, 0]}, {"axis": (0, 1), "limit": 0},
    {"axis": (0, 1), "reset": [2, 0, 0]}, {"direction": "up", "reset": [2, 0, 0]}, {"direction": "up", "axis": 5},
]


@pytest.mark.parametrize("dtype", ["float64", "float16", "complex64", "int32", "bool", "object"])
def test_errors_match_simdscan(dtype):
    a = np.array([[1.0, NAN, 3.0], [NAN, 2.0, NAN]]).astype(dtype) if dtype[0] in "fc" else \
        np.array([[1, 0, 1], [0, 1, 1]]).astype(dtype)
    for case in ERRORS:
        kw = dict({"axis": 1}, **case)
        with pytest.raises(Exception) as eager:
            simdscan.ffill(a, **kw)
        with pytest.raises(eager.type) as lazy:
            sdask.ffill(da.from_array(a, chunks=1), **kw)
        assert str(lazy.value) == str(eager.value), (dtype, case)
        reset = kw.get("reset")
        if isinstance(reset, np.ndarray) and (reset.dtype.kind not in "biuf" or reset.shape not in ((3,), (2, 3))):
            with pytest.raises(eager.type) as lazy:  # a Dask reset's dtype and shape: checked at once too
                sdask.ffill(da.from_array(a, chunks=1), **dict(kw, reset=da.from_array(reset, chunks=1)))
            assert str(lazy.value) == str(eager.value), (dtype, case, "Dask reset")


@pytest.mark.parametrize("dtype", ["float32", "int8"])
def test_dask_reset_values_checked_when_computed(dtype):
    a = np.ones((3, 4), dtype=dtype)
    for bad in (2.0, NAN, -1.0):
        reset = np.zeros((3, 4))
        reset[1, 2] = bad
        lazy = sdask.ffill(da.from_array(a, chunks=2), 1, limit=1, reset=da.from_array(reset, chunks=2))
        with pytest.raises(ValueError, match="reset holds values other than 0 and 1"):
            computed(lazy)


def test_unknown_chunk_sizes_rejected():
    x = da.from_array(np.arange(10.0), chunks=3)
    with pytest.raises(ValueError, match="compute_chunk_sizes"):
        sdask.ffill(x[x > 4])
    with pytest.raises(ValueError, match="compute_chunk_sizes"):
        sdask.ffill(da.ones(5, chunks=2), reset=x[x > 4] > 7)


# --------------------------------------------------------------------------
# regressions of the scans: carries across empty chunks, axis=None over empty chunks
# --------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["nancummax", "nancummin"])
def test_nan_extrema_exclusive_after_empty_chunks(name):
    """An empty chunk first in the walk carries nothing: the exclusive identity (-inf / +inf) comes first, not the
    NaN that stands for an empty total."""
    a = np.array([1.0, NAN, 2.0, 0.5])
    for chunks in (((0, 4),), ((0, 0, 2, 2),), ((0, 1, 0, 3),), ((4, 0),), ((2, 2, 0, 0),), ((1, 0, 3),)):
        for direction in DIRECTIONS:
            got = getattr(sdask, name)(da.from_array(a, chunks=chunks), direction=direction, exclusive=True)
            want = getattr(simdscan, name)(a, direction=direction, exclusive=True)
            assert_same(computed(got), want, f"{name} chunks={chunks} {direction}")
    got = computed(sdask.nancummax(da.from_array(np.array([0.0, 1.0, 2.0]), chunks=((0, 3),)), exclusive=True))
    np.testing.assert_array_equal(got, [-np.inf, 0.0, 1.0])


@pytest.mark.parametrize("name", ["cumsum", "nancumsum"])
def test_negative_zero_carried_over_empty_chunks(name):
    """A carry of -0.0 crosses an empty chunk as -0.0 (the empty chunk's +0.0 total is not added to it)."""
    a = np.full(4, -0.0)
    for chunks in (((0, 4),), ((1, 0, 3),), ((2, 0, 0, 2),), ((0, 1, 0, 3, 0),)):
        for direction in DIRECTIONS:
            for exclusive in (False, True):
                kw = dict(direction=direction, exclusive=exclusive)
                got = computed(getattr(sdask, name)(da.from_array(a, chunks=chunks), **kw))
                assert_same(got, getattr(simdscan, name)(a, **kw), f"{name} chunks={chunks} {kw}")


def test_flattening_over_empty_chunks():
    """axis=None over a 2-D chunking with empty chunks (which Dask's ravel cannot reshape), data and reset."""
    a = np.arange(28.0).reshape(4, 7)
    a[a % 3 == 0] = NAN
    r = np.zeros((4, 7), dtype=bool)
    r[1:3, 2] = True
    x = da.from_array(a, chunks=((2, 1, 0, 1), (3, 0, 3, 1)))
    assert_same(computed(sdask.cumsum(x)), simdscan.cumsum(a), "cumsum")
    assert_same(computed(sdask.nancummax(x, reset=r)), simdscan.nancummax(a, reset=r), "nancummax")
    assert_same(computed(sdask.ffill(x, reset=da.from_array(r, chunks=((0, 4), (7,))))),
                simdscan.ffill(a, reset=r), "ffill")
