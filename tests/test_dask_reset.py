"""simdscan.dask's ``reset=`` (segmented scans), lazily: every scan, chunked along and across the axis, against the
NumPy-level scan with the same reset on the computed array.

A reset cuts each line into segments, and the chunked scan carries a segment across chunk boundaries up to the next
cut: resets nowhere, everywhere, sparse, dense, at every chunk start, just after it and at every chunk end, in both
directions, inclusive and exclusive, with indices; reset as NumPy arrays (bool, float and integer 0s and 1s, 0-d and
broadcast) and as Dask arrays in chunks of their own. Exact: integers, bool, the extrema and their indices, and sums
and products of exactly representable floats (halves; +-0.5, 1 and 2), whose every partial result is exact in any
order. logcumsumexp within test_dask_family's tolerance; random float64 sums and products within the oracle's bound
(segment_reference.py). Also: laziness, and simdscan's errors (a Dask reset's values are checked as it is computed).
"""

import dask
import dask.array as da
import numpy as np
import pytest

import simdscan
import simdscan.dask as sdask
from dask_compare import TaskCounter, as_form, check_close
from data import seed_of
from ops import SCANS
from segment_reference import check_segmented

DIRECTIONS = ("increasing", "decreasing")
#: each scan, and cummax / cummin once more with return_indices
VARIANTS = [(s.name, {}) for s in SCANS] + [(s.name, {"return_indices": True}) for s in SCANS if s.indices]
VARIANT_IDS = [name + ("-indices" if extra else "") for name, extra in VARIANTS]
CUMULATIVE = ("cumulative_sum", "cumulative_prod")
# "nan64": float64 with NaN here and there
DTYPES = ("int8", "bool", "float32", "nan64")
PATTERNS = ("none", "all", "sparse", "dense", "starts", "after", "ends")
#: how the reset is handed over: (NumPy or Dask, its dtype)
FORMS = (("numpy", bool), ("dask", bool), ("numpy", np.float64), ("dask", np.float32), ("numpy", np.int8),
         ("dask", np.uint8))

# (shape, chunks, axis): chunks of 1, uneven, one chunk, 2-D along either axis, 3-D, flattened
CASES = [
    ((13,), 1, 0),
    ((13,), ((3, 0, 5, 1, 4),), 0),
    ((13,), 13, 0),
    ((6, 9), ((2, 1, 3), (4, 5)), 0),
    ((6, 9), ((2, 1, 3), (4, 5)), -1),
    ((4, 3, 10), (2, 3, (1, 4, 5)), 2),
    ((5, 7), (2, 3), None),
]


def _case_id(case):
    return f"{case[0]}-{case[1]}-axis{case[2]}".replace(" ", "")


def make(rng, shape, dtype, name):
    """Small values with ties; floats whose sums (halves) and products (+-0.5, 1, 2) are exact in any order."""
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype == "int8":
        return rng.integers(-3, 4, size=shape).astype(np.int8)
    if name.endswith("prod"):
        a = rng.choice([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0], size=shape)
    elif name == "logcumsumexp":
        a = rng.uniform(-3.0, 3.0, size=shape)
    else:
        a = rng.integers(-6, 7, size=shape) / 2.0
    if dtype == "nan64":
        a = np.where(rng.random(shape) < 0.25, np.nan, a)
    return a.astype(np.float64 if dtype == "nan64" else dtype)


def chunk_starts(x, axis):
    """The chunk starts along the scanned axis (of the flattened array for axis=None), but the first."""
    chunks = x.ravel().chunks[0] if axis is None else x.chunks[axis]
    return np.cumsum(chunks)[:-1]


def make_reset(pattern, rng, x, axis):
    """A bool reset for ``x`` (a NumPy array of its shape, or one that broadcasts to it)."""
    shape = x.shape
    if pattern == "none":
        return np.array(False)
    if pattern == "all":
        return np.ones(shape, dtype=bool)
    if pattern in ("sparse", "dense"):
        return rng.random(shape) < (0.15 if pattern == "sparse" else 0.6)
    n = x.size if axis is None else shape[axis]
    places = chunk_starts(x, axis) + {"starts": 0, "after": 1, "ends": -1}[pattern]
    line = np.zeros(n, dtype=bool)
    line[places[(places >= 0) & (places < n)]] = True
    if axis is None:
        return line.reshape(shape)
    ax = axis % len(shape)
    # one flag per position along the axis, broadcast over the others
    return line if ax == len(shape) - 1 else line.reshape([-1 if k == ax else 1 for k in range(len(shape))])


def chunks_along(x, axis):
    if x.ndim == 0 or x.size == 0:
        return 1
    return x.ravel().numblocks[0] if axis is None else x.numblocks[axis]


def check(got, want, name, nb, where):
    """Exact but for logcumsumexp: within test_dask_family's bound (one rounding of logaddexp a chunk boundary in
    float64; float16 / float32 carried in float64 and rounded once, as on the whole array)."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == 2, f"{where}: returned {type(got)!r}"
        check(got[0], want[0], name, nb, where + " (values)")
        check(got[1], want[1], "indices", nb, where + " (indices)")
        return
    assert isinstance(got, np.ndarray), f"{where}: returned {type(got)!r}"
    check_close(got, want, name, nb, where)


def computed(result):
    # (unoptimized: Dask's graph optimization costs more than these small graphs take to run; other tests optimize)
    parts = result if isinstance(result, tuple) else (result,)
    got = dask.compute(*parts, scheduler="sync", optimize_graph=False)
    return got if isinstance(result, tuple) else got[0]


def run(name, a, chunks, axis, r, form, where, **kw):
    """simdscan.dask.<name> of ``a`` in ``chunks`` with the reset ``r`` handed over in ``form``, computed, against
    simdscan.<name> of ``a`` with ``r``."""
    x = da.from_array(a, chunks=chunks)
    lazy = getattr(sdask, name)(x, axis=axis, reset=as_form(r, form), **kw)
    for part in lazy if isinstance(lazy, tuple) else (lazy,):
        assert isinstance(part, da.Array), where
        if axis is not None and a.ndim and not kw.get("include_initial"):
            assert part.chunks == x.chunks, f"{where}: chunks {part.chunks}"  # the data's chunks, whatever reset's
    want = getattr(simdscan, name)(a, axis=axis, reset=r, **kw)
    check(computed(lazy), want, name, chunks_along(x, axis), f"{where}, reset as {form}")


# --------------------------------------------------------------------------
# the matrix: every scan x chunking, both directions, inclusive and exclusive, every reset pattern
# --------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=_case_id)
@pytest.mark.parametrize("name, extra", VARIANTS, ids=VARIANT_IDS)
def test_matches_simdscan(name, extra, case):
    shape, chunks, axis = case
    rng = np.random.default_rng(seed_of("dask reset", name, extra, case))
    data = {dtype: make(rng, shape, dtype, name) for dtype in DTYPES}
    x = da.from_array(data["int8"], chunks=chunks)
    step = CASES.index(case)
    for direction in DIRECTIONS:
        for pattern in PATTERNS:
            # inclusive and exclusive, dtypes and forms by turns: the cases between them take every combination
            exclusive = bool(step % 2)
            dtype, form = DTYPES[step % len(DTYPES)], FORMS[step % len(FORMS)]
            step += 1
            r = make_reset(pattern, rng, x, axis)
            where = f"simdscan.dask.{name}({dtype}, chunks={x.chunks}, axis={axis}, {direction}, " \
                    f"exclusive={exclusive}, {extra}, reset {pattern})"
            run(name, data[dtype], chunks, axis, r, form, where, direction=direction, exclusive=exclusive, **extra)


@pytest.mark.parametrize("name", CUMULATIVE)
@pytest.mark.parametrize("case", [c for c in CASES if c[2] is not None], ids=_case_id)
def test_cumulative_matches_simdscan(name, case):
    """cumulative_sum / cumulative_prod: widened integers, bool (counts, and dtype=bool's logical or / and),
    include_initial (one identity a line, as without reset)."""
    shape, chunks, axis = case
    rng = np.random.default_rng(seed_of("dask reset cumulative", name, case))
    kinds = [("int8", {}), ("bool", {}), ("bool", {"dtype": bool}), ("float32", {"dtype": np.float64})]
    data = {dtype: make(rng, shape, dtype, name) for dtype, _ in kinds}
    x = da.from_array(data["int8"], chunks=chunks)
    step = 0
    for direction in DIRECTIONS:
        for include_initial in (False, True):
            for pattern in PATTERNS:
                (dtype, kw), form = kinds[step % len(kinds)], FORMS[step % len(FORMS)]
                step += 1
                r = make_reset(pattern, rng, x, axis)
                where = f"simdscan.dask.{name}({dtype}, {kw}, chunks={x.chunks}, axis={axis}, {direction}, " \
                        f"include_initial={include_initial}, reset {pattern})"
                run(name, data[dtype], chunks, axis, r, form, where, direction=direction,
                    include_initial=include_initial, **kw)


@pytest.mark.parametrize("name, extra", VARIANTS, ids=VARIANT_IDS)
def test_empty_and_0d(name, extra):
    """Empty axes and empty lines (any reset values: an empty input reads none), and 0-d inputs scanned as (1,), their
    reset bool or 0/1 numbers along any axis."""
    cases = [(np.zeros(0), 4, 0, np.array([2.0])), (np.zeros((0, 3)), (2, 2), 0, np.array([[2]])),
             (np.ones((3, 0)), (2, 2), 1, np.zeros((3, 1), dtype=bool)), (np.zeros((0, 3)), 2, None, [[True]]),
             (np.array(1.5), (), None, True), (np.array(-2.0), (), 0, np.array(False)),
             (np.array(1.5), (), 0, 1), (np.array(-2.0), (), -1, np.int8(0)), (np.array(3.0), (), 0, np.array(1.0))]
    for i, (a, chunks, axis, r) in enumerate(cases):
        for direction in DIRECTIONS:
            for exclusive in (False, True):
                form = FORMS[(i + exclusive) % 2]  # NumPy and Dask bool by turns
                where = f"{name}(shape={a.shape}, axis={axis}, {direction}, exclusive={exclusive}, {extra})"
                run(name, a, chunks, axis, r, form, where, direction=direction, exclusive=exclusive, **extra)


# --------------------------------------------------------------------------
# carries across chunk boundaries: signed zeros, NaN, float16, random floats
# --------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["cumsum", "nancumsum", "cumprod"])
def test_negative_zero_kept(name):
    """A segment of -0.0 sums to -0.0 whatever the chunk boundaries, as simdscan's (no +0.0 carried into it)."""
    a = np.full(9, -0.0)
    rng = np.random.default_rng(seed_of("dask reset -0", name))
    for chunks in (1, 2, ((3, 0, 2, 4),)):
        for r in (np.zeros(9, dtype=bool), rng.random(9) < 0.4, np.arange(9) % 2 == 0, np.arange(9) % 3 == 1):
            for direction in DIRECTIONS:
                for exclusive in (False, True):
                    kw = dict(axis=0, direction=direction, exclusive=exclusive, reset=r)
                    got = getattr(sdask, name)(da.from_array(a, chunks=chunks), **kw).compute(scheduler="sync")
                    want = getattr(simdscan, name)(a, **kw)
                    where = f"{name} chunks={chunks} reset={r.astype(int)} {direction} exclusive={exclusive}"
                    np.testing.assert_array_equal(got, want, err_msg=where)
                    np.testing.assert_array_equal(np.signbit(got), np.signbit(want), err_msg=where)


@pytest.mark.parametrize("name, extra", VARIANTS, ids=VARIANT_IDS)
def test_nan_and_infinities_within_segments(name, extra):
    """NaN propagates (or is skipped) within its segment only; all-NaN segments and chunks, infinities, and the
    exclusive identity where a segment starts at a chunk boundary."""
    a = np.array([np.nan, 1.0, np.nan, np.nan, np.inf, 2.0, np.nan, -np.inf, np.nan, np.nan, 3.0, np.nan])
    resets = [np.zeros(12, dtype=bool), np.isin(np.arange(12), [2, 6, 8]), np.isin(np.arange(12), [3, 4, 10]),
              np.isin(np.arange(12), [1, 7, 9, 11])]
    for chunks in (1, ((3, 0, 1, 4, 4),), ((6, 6),)):
        for r in resets:
            for direction in DIRECTIONS:
                for exclusive in (False, True):
                    where = f"{name} chunks={chunks} reset={r.astype(int)} {direction} exclusive={exclusive}"
                    run(name, a, chunks, 0, r, FORMS[0], where, direction=direction, exclusive=exclusive, **extra)


def test_float16_sums_in_float32():
    """float16 is accumulated in float32 across chunks and segments, and rounded once, as simdscan does."""
    a = np.ones(3000, dtype=np.float16)
    r = np.zeros(3000, dtype=bool)
    r[[700, 2100]] = True  # segments of 700, 1400 and 900: beyond 1024, float16's own running total would stall
    for direction in DIRECTIONS:
        for exclusive in (False, True):
            got = sdask.cumsum(da.from_array(a, chunks=97), reset=r, direction=direction, exclusive=exclusive)
            want = simdscan.cumsum(a, reset=r, direction=direction, exclusive=exclusive)
            np.testing.assert_array_equal(got.compute(), want)


@pytest.mark.parametrize("name", ["cumsum", "nancumsum", "cumprod", "logcumsumexp"])
def test_random_float64_within_the_oracles_bound(name):
    """Random float64 (NaN for nancumsum), 40 chunks of uneven sizes, sparse resets: every segment within the
    NumPy oracle's rounding-error bound, and close to simdscan's."""
    rng = np.random.default_rng(seed_of("dask reset random", name))
    n = 4000
    a = rng.uniform(0.5, 1.5, n) if name == "cumprod" else rng.normal(size=n)
    if name == "nancumsum":
        a[rng.random(n) < 0.1] = np.nan
    r = rng.random(n) < 0.002
    chunks = (tuple(int(c) for c in np.diff(np.r_[0, np.sort(rng.choice(np.arange(1, n), 39, replace=False)), n])),)
    for direction in DIRECTIONS:
        for exclusive in (False, True):
            for compensated in (False, True) if name.endswith("cumsum") else (False,):
                kw = dict(direction=direction, exclusive=exclusive, **({"compensated": True} if compensated else {}))
                got = getattr(sdask, name)(da.from_array(a, chunks=chunks), reset=r, **kw).compute()
                where = f"{name} {direction} exclusive={exclusive} compensated={compensated}"
                check_segmented(got, name, a, r, 0, direction == "decreasing", exclusive, where=where)
                want = getattr(simdscan, name)(a, reset=r, **kw)
                np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-11, err_msg=where)


def test_threaded_scheduler_2d():
    """The default scheduler, 2-D, many chunks along and across the axis, a Dask reset of other chunks."""
    rng = np.random.default_rng(seed_of("dask reset threaded"))
    a = make(rng, (40, 60), "nan64", "cumsum")
    r = rng.random((40, 60)) < 0.1
    x, rd = da.from_array(a, chunks=(7, 9)), da.from_array(r, chunks=(11, 13))
    for axis in (0, 1):
        for direction in DIRECTIONS:
            for name, extra in (("nancumsum", {}), ("cummax", {"return_indices": True}), ("nancummin", {})):
                lazy = getattr(sdask, name)(x, axis, direction=direction, exclusive=True, reset=rd, **extra)
                got = dask.compute(*lazy) if extra else lazy.compute()
                want = getattr(simdscan, name)(a, axis, direction=direction, exclusive=True, reset=r, **extra)
                check(got, want, name, x.numblocks[axis], f"{name} axis={axis} {direction}")


def test_numpy_level_functions_hand_dask_arrays_over():
    a = np.arange(1, 11, dtype=np.int32)
    r = np.array([0, 0, 1, 0, 0, 0, 1, 1, 0, 0])
    x = da.from_array(a, chunks=3)
    got = simdscan.cumsum(x, reset=da.from_array(r, chunks=4), direction="decreasing")
    assert isinstance(got, da.Array)
    np.testing.assert_array_equal(got.compute(), simdscan.cumsum(a, reset=r, direction="decreasing"))
    values, indices = simdscan.cummin(x, reset=r, exclusive=True, return_indices=True)
    want = simdscan.cummin(a, reset=r, exclusive=True, return_indices=True)
    np.testing.assert_array_equal(values.compute(), want[0])
    np.testing.assert_array_equal(indices.compute(), want[1])
    got = simdscan.cumulative_sum(x, reset=r, include_initial=True)
    np.testing.assert_array_equal(got.compute(), simdscan.cumulative_sum(a, reset=r, include_initial=True))


# --------------------------------------------------------------------------
# laziness
# --------------------------------------------------------------------------
def test_lazy_nothing_computed_until_asked():
    """Neither the data nor a Dask reset is computed while the graph is built, whatever the reset's dtype (a
    float one's values are checked as it is computed)."""
    calls = []

    def produce(block, block_info=None):
        calls.append(block_info[None]["chunk-location"])
        return block

    a = np.arange(1.0, 61.0).reshape(6, 10)
    r = np.zeros((6, 10), dtype=bool)
    r[::2, 1::3] = True
    x = da.from_array(a, chunks=(2, 3)).map_blocks(produce, dtype=a.dtype, meta=np.empty((0, 0)))
    resets = [r, r.astype(np.float32), r[0], da.from_array(r, chunks=(3, 4)).map_blocks(produce, dtype=bool),
              da.from_array(r.astype(np.float64), chunks=(4, 5)).map_blocks(produce, dtype=np.float64)]
    with TaskCounter() as counter:
        results = []
        for name, extra in VARIANTS:
            for reset in resets:
                for axis in (0, 1, None):
                    results.append(getattr(sdask, name)(x, axis, direction="decreasing", exclusive=True,
                                                        reset=reset, **extra))
        for name in CUMULATIVE:
            results.extend(getattr(sdask, name)(x, axis=1, include_initial=True, reset=reset) for reset in resets)
        assert counter.tasks == 0
    assert calls == []
    got = results[3 * 3 + 1].compute(scheduler="sync")  # cumsum along 1, the lazy bool reset: every chunk once
    assert len(calls) == 12 + 6
    np.testing.assert_array_equal(got, simdscan.cumsum(a, 1, direction="decreasing", exclusive=True, reset=r))


# --------------------------------------------------------------------------
# errors: simdscan's, while the graph is built (a Dask reset's values: when it is computed)
# --------------------------------------------------------------------------
def _same_error(name, a, reset, lazy_reset=None, **kw):
    with pytest.raises(Exception) as eager:
        getattr(simdscan, name)(a, reset=reset, **kw)
    with pytest.raises(eager.type) as lazy:
        getattr(sdask, name)(da.from_array(a, chunks=2), reset=reset if lazy_reset is None else lazy_reset, **kw)
    assert str(lazy.value) == str(eager.value), (name, kw)
    return lazy.value


@pytest.mark.parametrize("name", [s.name for s in SCANS] + list(CUMULATIVE))
def test_errors_match_simdscan(name):
    a = np.ones((3, 4))
    for reset in ([[0, 2, 0, 0]], np.array([0.0, 0.5, 1.0, 1.0]), [0, 1, np.nan, 0], np.full((3, 4), -1)):
        assert isinstance(_same_error(name, a, reset, axis=1), ValueError)
    for dtype in (np.complex64, "U1", object, "datetime64[s]"):
        reset = np.zeros((3, 4), dtype=dtype)
        assert isinstance(_same_error(name, a, reset, axis=1), TypeError)
        assert isinstance(_same_error(name, a, reset, da.from_array(reset, chunks=2), axis=1), TypeError)
    for shape in ((3,), (2, 4), (1, 3, 4), (4, 1, 1)):
        reset = np.zeros(shape, dtype=bool)
        assert isinstance(_same_error(name, a, reset, axis=1), ValueError)
        assert isinstance(_same_error(name, a, reset, da.from_array(reset, chunks=2), axis=1), ValueError)
    if name not in CUMULATIVE:
        for axis in ((0, 1), (1,)):
            assert "single axis" in str(_same_error(name, a, np.zeros((3, 4), dtype=bool), axis=axis))
        # simdscan checks reset before the axis: the reset's error comes first, lazily too
        assert isinstance(_same_error(name, a, [2, 0, 0, 0], axis=5), ValueError)
    # an empty input reads no flag: no error (a Dask reset's values are not even computed)
    empty = np.ones((0, 4))
    for reset in ([2, 0, 0, 0], da.from_array(np.array([2, 0, 0, 0]), chunks=2)):
        got = getattr(sdask, name)(empty, axis=0, reset=reset).compute()
        np.testing.assert_array_equal(got, getattr(simdscan, name)(empty, axis=0, reset=[0, 0, 0, 0]))


@pytest.mark.parametrize("name", [s.name for s in SCANS] + list(CUMULATIVE))
def test_dask_reset_values_checked_when_computed(name):
    a = np.ones((3, 4))
    for bad in (2.0, np.nan, -1.0):
        reset = np.zeros((3, 4))
        reset[1, 2] = bad
        lazy = getattr(sdask, name)(da.from_array(a, chunks=2), axis=1, reset=da.from_array(reset, chunks=2))
        with pytest.raises(ValueError, match="reset holds values other than 0 and 1"):
            dask.compute(lazy, scheduler="sync")


def test_unknown_reset_chunk_sizes_rejected():
    r = da.from_array(np.arange(10), chunks=3)
    with pytest.raises(ValueError, match="compute_chunk_sizes"):
        sdask.cumsum(da.ones(5, chunks=2), reset=r[r > 4] > 7)
