"""simdscan.dask's ``labels=`` (grouped scans and fills), lazily: every scan and ffill, chunked along and across the
axis, against the NumPy-level function with the same labels on the computed array.

Each element's result is the scan of its line's elements with the same label walked up to it, so a group's running
value is carried across every chunk boundary, past chunks that do not hold it: one label, all distinct, few, labels
that appear only in every other chunk along the axis, and huge ones (2**63 - 1, uint64 past int64's range), in both
directions, inclusive and exclusive, with indices; labels as NumPy arrays and Dask arrays in chunks of their own,
int8, int64 and uint64, broadcast along the axis or across it. Exact: integers, bool, the extrema and their indices,
ffill (bit for bit), and sums and products of exactly representable floats (halves; +-0.5, 1 and 2), whose every
partial result is exact in any order; logcumsumexp within test_dask_family's tolerance and random float64 within a
rounding bound of simdscan's. Also: ffill's ``limit`` counted across chunks, laziness, and simdscan's errors (a Dask
labels array's values are checked as it is computed).
"""

import dask
import dask.array as da
import numpy as np
import pytest

import simdscan
import simdscan.dask as sdask
from dask_compare import TaskCounter, check_close
from data import seed_of
from ops import SCANS
from reference import FLOAT_DTYPES
from test_dask_ffill import assert_same, bits
from test_dask_ffill import make as make_gappy

DIRECTIONS = ("increasing", "decreasing")
#: each scan, and cummax / cummin once more with return_indices
VARIANTS = [(s.name, {}) for s in SCANS] + [(s.name, {"return_indices": True}) for s in SCANS if s.indices]
VARIANT_IDS = [name + ("-indices" if extra else "") for name, extra in VARIANTS]
CUMULATIVE = ("cumulative_sum", "cumulative_prod")
# "nan64": float64 with NaN here and there
DTYPES = ("int8", "bool", "float32", "nan64")
PATTERNS = ("one", "distinct", "few", "alternate", "huge", "line")
#: how the labels are handed over: (NumPy or Dask, their dtype); "huge" labels take int64 or uint64 whatever the form
FORMS = (("numpy", np.int64), ("dask", np.int64), ("numpy", np.int8), ("dask", np.uint64), ("numpy", np.uint64),
         ("dask", np.int8))
HUGE = (np.array([2**63 - 1, 2**62, 7, 2**63 - 2]), np.array([2**64 - 1, 2**63, 0, 2**63 - 1], dtype=np.uint64))

# (shape, chunks, axis): chunks of 1, uneven with an empty one, one chunk, 2-D along either axis, 3-D, flattened
CASES = [
    ((13,), 1, 0),
    ((13,), ((3, 0, 5, 1, 4),), 0),
    ((13,), 13, 0),
    ((6, 9), ((2, 1, 3), (4, 5)), 0),
    ((6, 9), ((2, 1, 3), (4, 5)), -1),
    ((4, 3, 10), (2, 3, (1, 4, 0, 5)), 2),
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


def walked_chunk(x, axis):
    """Each element's chunk index along the walked axis (of the flattened array for axis=None), in ``x``'s shape."""
    chunks = x.ravel().chunks[0] if axis is None else x.chunks[axis]
    index = np.repeat(np.arange(len(chunks)), chunks)
    if axis is None:
        return index.reshape(x.shape)
    ax = axis % x.ndim
    return np.broadcast_to(index.reshape([-1 if k == ax else 1 for k in range(x.ndim)]), x.shape)


def make_labels(pattern, rng, x, axis, step=0):
    """Labels for ``x`` (of its shape, or one that broadcasts to it), values >= 0 below 100 but for "huge"."""
    shape = x.shape
    if pattern == "one":
        return np.array(3) if step % 2 else np.full(shape, 5)
    if pattern == "distinct":  # every element a group of its own (a permutation: no order to lean on)
        return rng.permutation(max(x.size, 1))[: x.size].reshape(shape) + 1
    if pattern == "few":
        return rng.integers(0, 3, shape)
    if pattern == "alternate":  # groups 0-2 in even chunks along the walk, 3-5 in odd ones: carried past chunks
        return rng.integers(0, 3, shape) + 3 * (walked_chunk(x, axis) % 2)
    if pattern == "huge":
        values = HUGE[step % 2]
        return values[rng.integers(0, len(values), shape)]
    # "line": one label per position along the axis (broadcast across the other axes) or across it
    if axis is None or len(shape) < 2:
        return rng.integers(0, 4, shape[-1:] if shape else ())
    ax = axis % len(shape)
    if step % 2:
        return rng.integers(0, 4, shape[ax]).reshape([-1 if k == ax else 1 for k in range(len(shape))])
    other = [k for k in range(len(shape)) if k != ax][0]
    return rng.integers(0, 4, shape[other]).reshape([-1 if k == other else 1 for k in range(len(shape))])


def as_form(labels, form):
    """``labels`` in the form (kind, dtype): a NumPy array, or a Dask one in two chunks a dimension; huge labels keep
    their own dtype."""
    kind, dtype = form
    labels = np.asarray(labels)
    values = labels if labels.dtype == np.uint64 or labels.max(initial=0) > 127 else labels.astype(dtype)
    if kind == "numpy":
        return values
    return da.from_array(values, chunks=tuple(max(1, -(-n // 2)) for n in values.shape))


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


def run(name, a, chunks, axis, labels, form, where, **kw):
    """simdscan.dask.<name> of ``a`` in ``chunks`` with ``labels`` handed over in ``form``, computed, against
    simdscan.<name> of ``a`` with the same labels."""
    x = da.from_array(a, chunks=chunks)
    given = as_form(labels, form)
    lazy = getattr(sdask, name)(x, axis=axis, labels=given, **kw)
    for part in lazy if isinstance(lazy, tuple) else (lazy,):
        assert isinstance(part, da.Array), where
        if axis is not None and a.ndim and not kw.get("include_initial"):
            assert part.chunks == x.chunks, f"{where}: chunks {part.chunks}"  # the data's chunks, whatever the labels'
    want = getattr(simdscan, name)(a, axis=axis, labels=np.asarray(given), **kw)
    check(computed(lazy), want, name, chunks_along(x, axis), f"{where}, labels as {form}")


# --------------------------------------------------------------------------
# the matrix: every scan x chunking, both directions, inclusive and exclusive, every label pattern
# --------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=_case_id)
@pytest.mark.parametrize("name, extra", VARIANTS, ids=VARIANT_IDS)
def test_matches_simdscan(name, extra, case):
    shape, chunks, axis = case
    rng = np.random.default_rng(seed_of("dask labels", name, extra, case))
    data = {dtype: make(rng, shape, dtype, name) for dtype in DTYPES}
    x = da.from_array(data["int8"], chunks=chunks)
    step = CASES.index(case)
    for direction in DIRECTIONS:
        for pattern in PATTERNS:
            # inclusive and exclusive, dtypes and forms by turns: the cases between them take every combination
            exclusive = bool(step % 2)
            dtype, form = DTYPES[step % len(DTYPES)], FORMS[step % len(FORMS)]
            step += 1
            labels = make_labels(pattern, rng, x, axis, step)
            where = f"simdscan.dask.{name}({dtype}, chunks={x.chunks}, axis={axis}, {direction}, " \
                    f"exclusive={exclusive}, {extra}, labels {pattern})"
            run(name, data[dtype], chunks, axis, labels, form, where, direction=direction, exclusive=exclusive,
                **extra)


@pytest.mark.parametrize("name", CUMULATIVE)
@pytest.mark.parametrize("case", [c for c in CASES if c[2] is not None], ids=_case_id)
def test_cumulative_matches_simdscan(name, case):
    """cumulative_sum / cumulative_prod: widened integers, bool (counts, and dtype=bool's logical or / and),
    include_initial (one identity a line, as without labels)."""
    shape, chunks, axis = case
    rng = np.random.default_rng(seed_of("dask labels cumulative", name, case))
    kinds = [("int8", {}), ("bool", {}), ("bool", {"dtype": bool}), ("float32", {"dtype": np.float64})]
    data = {dtype: make(rng, shape, dtype, name) for dtype, _ in kinds}
    x = da.from_array(data["int8"], chunks=chunks)
    step = 0
    for direction in DIRECTIONS:
        for include_initial in (False, True):
            for pattern in ("few", "alternate", "huge"):
                (dtype, kw), form = kinds[step % len(kinds)], FORMS[step % len(FORMS)]
                step += 1
                labels = make_labels(pattern, rng, x, axis, step)
                where = f"simdscan.dask.{name}({dtype}, {kw}, chunks={x.chunks}, axis={axis}, {direction}, " \
                        f"include_initial={include_initial}, labels {pattern})"
                run(name, data[dtype], chunks, axis, labels, form, where, direction=direction,
                    include_initial=include_initial, **kw)


@pytest.mark.parametrize("name, extra", VARIANTS, ids=VARIANT_IDS)
def test_empty_and_0d(name, extra):
    """Empty axes and empty lines, and 0-d inputs scanned as (1,)."""
    cases = [(np.zeros(0), 4, 0, np.array([2])), (np.zeros((0, 3)), (2, 2), 0, np.array([[2, 0, 1]])),
             (np.ones((3, 0)), (2, 2), 1, np.zeros((3, 1), dtype=np.uint8)), (np.zeros((0, 3)), 2, None, [[7]]),
             (np.array(1.5), (), None, 4), (np.array(-2.0), (), 0, np.array(2**63 - 1))]
    for i, (a, chunks, axis, labels) in enumerate(cases):
        for direction in DIRECTIONS:
            for exclusive in (False, True):
                form = FORMS[(i + exclusive) % 2]  # NumPy and Dask by turns
                where = f"{name}(shape={a.shape}, axis={axis}, {direction}, exclusive={exclusive}, {extra})"
                run(name, a, chunks, axis, labels, form, where, direction=direction, exclusive=exclusive, **extra)


# --------------------------------------------------------------------------
# carries across chunk boundaries: signed zeros, NaN, float16, random floats
# --------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["cumsum", "nancumsum", "cumprod"])
def test_negative_zero_kept(name):
    """A group of -0.0 sums to -0.0 whatever the chunk boundaries, as simdscan's (no +0.0 carried into it)."""
    a = np.full(9, -0.0)
    rng = np.random.default_rng(seed_of("dask labels -0", name))
    for chunks in (1, 2, ((3, 0, 2, 4),)):
        for labels in (np.zeros(9, dtype=int), rng.integers(0, 3, 9), np.arange(9) % 2, np.arange(9)):
            for direction in DIRECTIONS:
                for exclusive in (False, True):
                    kw = dict(axis=0, direction=direction, exclusive=exclusive, labels=labels)
                    got = getattr(sdask, name)(da.from_array(a, chunks=chunks), **kw).compute(scheduler="sync")
                    want = getattr(simdscan, name)(a, **kw)
                    where = f"{name} chunks={chunks} labels={labels} {direction} exclusive={exclusive}"
                    np.testing.assert_array_equal(got, want, err_msg=where)
                    np.testing.assert_array_equal(np.signbit(got), np.signbit(want), err_msg=where)


@pytest.mark.parametrize("name, extra", VARIANTS, ids=VARIANT_IDS)
def test_nan_and_infinities_within_groups(name, extra):
    """NaN propagates (or is skipped) within its group only, across chunks; all-NaN groups and chunks, infinities,
    and the exclusive identity of a group whose first element opens a chunk."""
    a = np.array([np.nan, 1.0, np.nan, np.nan, np.inf, 2.0, np.nan, -np.inf, np.nan, np.nan, 3.0, np.nan])
    groups = [np.zeros(12, dtype=int), np.arange(12) % 2, np.array([0, 1, 1, 2, 0, 2, 1, 0, 3, 3, 0, 1]),
              np.array([5, 5, 5, 0, 0, 0, 5, 5, 5, 0, 0, 0])]
    for chunks in (1, ((3, 0, 1, 4, 4),), ((6, 6),)):
        for labels in groups:
            for direction in DIRECTIONS:
                for exclusive in (False, True):
                    where = f"{name} chunks={chunks} labels={labels} {direction} exclusive={exclusive}"
                    run(name, a, chunks, 0, labels, FORMS[0], where, direction=direction, exclusive=exclusive,
                        **extra)


def test_float16_sums_in_float32():
    """float16 is accumulated in float32 across chunks within each group, and rounded once, as simdscan does."""
    a = np.ones(3000, dtype=np.float16)
    labels = (np.arange(3000) // 700) % 2  # two groups of 1500: beyond 1024, float16's own running total would stall
    for direction in DIRECTIONS:
        for exclusive in (False, True):
            got = sdask.cumsum(da.from_array(a, chunks=97), labels=labels, direction=direction, exclusive=exclusive)
            want = simdscan.cumsum(a, labels=labels, direction=direction, exclusive=exclusive)
            np.testing.assert_array_equal(got.compute(), want)


@pytest.mark.parametrize("name", ["cumsum", "nancumsum", "cumprod", "logcumsumexp"])
def test_random_float64_close_to_simdscan(name):
    """Random float64 (NaN for nancumsum), 40 chunks of uneven sizes, a few groups and many: close to simdscan's on
    the whole array (the carries add each group's chunk totals in another order)."""
    rng = np.random.default_rng(seed_of("dask labels random", name))
    n = 4000
    a = rng.uniform(0.5, 1.5, n) if name == "cumprod" else rng.normal(size=n)
    if name == "nancumsum":
        a[rng.random(n) < 0.1] = np.nan
    chunks = (tuple(int(c) for c in np.diff(np.r_[0, np.sort(rng.choice(np.arange(1, n), 39, replace=False)), n])),)
    for labels in (rng.integers(0, 4, n), rng.integers(0, 400, n)):
        for direction in DIRECTIONS:
            for exclusive in (False, True):
                for compensated in (False, True) if name.endswith("cumsum") else (False,):
                    kw = dict(direction=direction, exclusive=exclusive, labels=labels,
                              **({"compensated": True} if compensated else {}))
                    got = getattr(sdask, name)(da.from_array(a, chunks=chunks), **kw).compute()
                    want = getattr(simdscan, name)(a, **kw)
                    where = f"{name} {direction} exclusive={exclusive} compensated={compensated}"
                    np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-11, err_msg=where)


def test_many_groups_over_many_chunks():
    """A thousand groups over 60 chunks of a 2-D array, each group in a few chunks far apart: integer sums and
    maxima with indices exact, the carry holding every group a line has met."""
    rng = np.random.default_rng(seed_of("dask labels many"))
    a = rng.integers(-1000, 1000, (3, 3000)).astype(np.int32)
    labels = rng.integers(0, 1000, (3, 3000)) * (2**40 + 1)
    x = da.from_array(a, chunks=(2, 50))
    for direction in DIRECTIONS:
        got = sdask.cumsum(x, 1, direction=direction, labels=labels).compute()
        np.testing.assert_array_equal(got, simdscan.cumsum(a, 1, direction=direction, labels=labels))
        got = dask.compute(*sdask.cummax(x, 1, direction=direction, exclusive=True, labels=labels,
                                         return_indices=True))
        want = simdscan.cummax(a, 1, direction=direction, exclusive=True, labels=labels, return_indices=True)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])


def test_threaded_scheduler_2d():
    """The default scheduler, 2-D, many chunks along and across the axis, a Dask labels array of other chunks."""
    rng = np.random.default_rng(seed_of("dask labels threaded"))
    a = make(rng, (40, 60), "nan64", "cumsum")
    labels = rng.integers(0, 5, (40, 60)).astype(np.uint16)
    x, ld = da.from_array(a, chunks=(7, 9)), da.from_array(labels, chunks=(11, 13))
    for axis in (0, 1):
        for direction in DIRECTIONS:
            for name, extra in (("nancumsum", {}), ("cummax", {"return_indices": True}), ("nancummin", {})):
                lazy = getattr(sdask, name)(x, axis, direction=direction, exclusive=True, labels=ld, **extra)
                got = dask.compute(*lazy) if extra else lazy.compute()
                want = getattr(simdscan, name)(a, axis, direction=direction, exclusive=True, labels=labels, **extra)
                check(got, want, name, x.numblocks[axis], f"{name} axis={axis} {direction}")
            got = sdask.ffill(x, axis, direction=direction, limit=2, labels=ld).compute()
            assert_same(got, simdscan.ffill(a, axis, direction=direction, limit=2, labels=labels), f"ffill {axis}")


def test_numpy_level_functions_hand_dask_arrays_over():
    a = np.arange(1, 11, dtype=np.int32)
    labels = np.array([0, 1, 1, 0, 2, 0, 1, 1, 2, 0])
    x = da.from_array(a, chunks=3)
    got = simdscan.cumsum(x, labels=da.from_array(labels, chunks=4), direction="decreasing")
    assert isinstance(got, da.Array)
    np.testing.assert_array_equal(got.compute(), simdscan.cumsum(a, labels=labels, direction="decreasing"))
    values, indices = simdscan.cummin(x, labels=labels, exclusive=True, return_indices=True)
    want = simdscan.cummin(a, labels=labels, exclusive=True, return_indices=True)
    np.testing.assert_array_equal(values.compute(), want[0])
    np.testing.assert_array_equal(indices.compute(), want[1])
    got = simdscan.cumulative_sum(x, labels=labels, include_initial=True)
    np.testing.assert_array_equal(got.compute(), simdscan.cumulative_sum(a, labels=labels, include_initial=True))
    f = np.where(a % 3 == 0, np.nan, a.astype(float))
    got = simdscan.ffill(da.from_array(f, chunks=3), labels=labels, limit=1)
    assert isinstance(got, da.Array)
    assert_same(got.compute(), simdscan.ffill(f, labels=labels, limit=1), "ffill")


def test_masked_chunks():
    """Chunks that are masked arrays, as the NumPy-level functions take one: a masked element enters its group's scan
    as the identity (ffill: as a NaN), and the result is masked where the input is, across chunks."""
    rng = np.random.default_rng(seed_of("dask labels masked"))
    data = make(rng, (4, 25), "nan64", "cumsum")
    m = np.ma.array(data, mask=rng.random(data.shape) < 0.3)
    labels = rng.integers(0, 3, data.shape)
    x = da.from_array(m, chunks=(3, 4), asarray=False)
    for name in ("cumsum", "nancummax", "nancumsum", "ffill"):
        for direction in DIRECTIONS:
            for exclusive in (False, True) if name != "ffill" else (False,):
                kw = dict(direction=direction, labels=labels, **({} if name == "ffill" else {"exclusive": exclusive}))
                got = computed(getattr(sdask, name)(x, 1, **kw))
                want = getattr(simdscan, name)(m, 1, **kw)
                where = f"masked {name} {direction} exclusive={exclusive}"
                assert isinstance(got, np.ma.MaskedArray), where
                np.testing.assert_array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(want), err_msg=where)
                np.testing.assert_array_equal(np.ma.getdata(got), np.ma.getdata(want), err_msg=where)


# --------------------------------------------------------------------------
# ffill
# --------------------------------------------------------------------------
FFILL_CASES = CASES + [((17,), ((0, 17, 0),), -1), ((5, 7), ((2, 0, 3), (4, 0, 3)), None)]


def quiet(a):
    """``a`` with float16 NaNs quiet (simdscan.ffill quiets a float16 signalling NaN it passes on; test_nan_bits)."""
    if a.dtype == np.float16:
        a = a.copy()
        a.view(np.uint16)[np.isnan(a)] |= 0x200
    return a


@pytest.mark.parametrize("case", FFILL_CASES, ids=_case_id)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=[d.name for d in FLOAT_DTYPES])
def test_ffill_matches_simdscan(dtype, case):
    """Bit for bit, NaN payloads and signs included; limits 1, 2, 3 and none, the count of a group's NaNs carried
    across the chunks (and past those without the group)."""
    shape, chunks, axis = case
    rng = np.random.default_rng(seed_of("dask labels ffill", dtype.name, case))
    a = quiet(make_gappy(rng, shape, dtype, axis))
    x = da.from_array(a, chunks=chunks)
    step = FFILL_CASES.index(case) + FLOAT_DTYPES.index(dtype)
    for direction in DIRECTIONS:
        for limit in (None, 1, 2, 3):
            pattern, form = PATTERNS[step % len(PATTERNS)], FORMS[step % len(FORMS)]
            step += 1
            # (uint64 labels past int64's range with a limit: test_ffill_limit_uint64_labels)
            labels = make_labels(pattern, rng, x, axis, step - (pattern == "huge" and limit is not None and step % 2))
            where = f"ffill({dtype}, chunks={chunks}, axis={axis}, {direction}, limit={limit}, labels {pattern})"
            lazy = sdask.ffill(x, axis, direction=direction, limit=limit, labels=as_form(labels, form))
            if axis is not None and a.ndim:
                assert lazy.chunks == x.chunks, where
            want = simdscan.ffill(a, axis, direction=direction, limit=limit, labels=labels)
            assert_same(computed(lazy), want, f"{where}, labels as {form}")


def test_ffill_by_hand():
    """Two groups interleaved over chunks of 3: each NaN from its own group's last number, the limit counting the
    group's NaNs only, across chunk boundaries."""
    nan = np.nan
    a = np.array([1.0, nan, 2.0, nan, nan, nan, nan, nan, 3.0, nan])
    labels = np.array([0, 0, 1, 0, 1, 1, 0, 2, 1, 0])
    for chunks in (1, 3, ((2, 0, 5, 3),)):
        x = da.from_array(a, chunks=chunks)
        np.testing.assert_array_equal(sdask.ffill(x, labels=labels).compute(), [1, 1, 2, 1, 2, 2, 1, nan, 3, 1])
        np.testing.assert_array_equal(sdask.ffill(x, labels=labels, limit=2).compute(),
                                      [1, 1, 2, 1, 2, 2, nan, nan, 3, nan])
        np.testing.assert_array_equal(sdask.ffill(x, labels=labels, direction="decreasing", limit=1).compute(),
                                      [1, nan, 2, nan, nan, 3, nan, nan, 3, nan])


@pytest.mark.parametrize("dtype", ["float64", "float16", "complex64"])
def test_ffill_long_runs_across_many_chunks(dtype):
    """Groups whose NaN runs are longer than many chunks of 0 to 7, limits around the run lengths: each group's
    count carried across every chunk of its run."""
    rng = np.random.default_rng(seed_of("dask labels ffill runs", dtype))
    n = 300
    a = (rng.integers(-40, 41, (3, n)) / 8).astype(dtype)
    a[rng.random((3, n)) < 0.9] = np.nan
    sizes = rng.integers(0, 8, n)
    sizes = [int(c) for c in sizes[np.cumsum(sizes) <= n]]
    x = da.from_array(a, chunks=((1, 2), tuple(sizes) + (n - sum(sizes),)))
    for labels in (rng.integers(0, 3, (3, n)), rng.integers(0, 3, n)):
        for direction in DIRECTIONS:
            for limit in (None, 3, 7, 20):
                got = computed(sdask.ffill(x, 1, direction=direction, limit=limit, labels=labels))
                want = simdscan.ffill(a, 1, direction=direction, limit=limit, labels=labels)
                assert_same(got, want, f"{dtype} {direction} limit={limit} labels {labels.shape}")


@pytest.mark.parametrize("direction", ["increasing", "decreasing"])
def test_ffill_nan_bits(direction):
    """float16 signalling NaNs that stay unfilled: those beyond the limit keep their bits, the others come back as
    simdscan's fill gives them (quieted), as on the whole axis."""
    a = np.zeros(6, dtype=np.float16)
    a.view(np.uint16)[:] = [0x7D01, 0x3C00, 0x7D02, 0x7D03, 0x4000, 0x7D04]
    a = a if direction == "increasing" else a[::-1].copy()
    labels = np.array([0, 1, 0, 1, 2, 0])
    labels = labels if direction == "increasing" else labels[::-1].copy()
    for chunks in (1, 2, 3):
        for limit in (1, 2):
            got = computed(sdask.ffill(da.from_array(a, chunks=chunks), direction=direction, limit=limit,
                                       labels=labels))
            want = simdscan.ffill(a, direction=direction, limit=limit, labels=labels)
            np.testing.assert_array_equal(bits(got), bits(want), err_msg=f"chunks={chunks} limit={limit}")


def test_ffill_limit_uint64_labels():
    """uint64 labels past int64's range with a limit, filled as any other labels."""
    a = np.array([1.0, np.nan, 2.0, np.nan, np.nan, np.nan])
    labels = np.array([2**64 - 1, 2**64 - 1, 2**63, 2**63, 2**64 - 1, 2**63], dtype=np.uint64)
    for chunks in (1, 2, 6):
        for direction in DIRECTIONS:
            got = computed(sdask.ffill(da.from_array(a, chunks=chunks), direction=direction, limit=1, labels=labels))
            assert_same(got, simdscan.ffill(a, direction=direction, limit=1, labels=labels), f"chunks={chunks}")


def test_ffill_integers_come_back_as_they_are():
    """Nothing to fill: a copy, a Dask labels array's values still checked as it is computed."""
    a = np.arange(24).reshape(4, 6) % 5
    x = da.from_array(a, chunks=(3, 4))
    for labels in (np.eye(4, 6, dtype=np.int16), da.from_array(np.eye(4, 6, dtype=np.uint8), chunks=2)):
        got = sdask.ffill(x, 1, labels=labels).compute()
        np.testing.assert_array_equal(got, a)
        assert not np.shares_memory(got, a)
    with pytest.raises(ValueError, match="labels must be >= 0"):
        sdask.ffill(x, 1, labels=da.from_array(-np.eye(4, 6, dtype=np.int8), chunks=2)).compute()


# --------------------------------------------------------------------------
# laziness
# --------------------------------------------------------------------------
def test_lazy_nothing_computed_until_asked():
    """Neither the data nor a Dask labels array is computed while the graph is built, whatever the labels' dtype
    (their values are checked as they are computed); computed, each chunk of the labels once."""
    calls = []

    def produce(block, block_info=None):
        calls.append(block_info[None]["chunk-location"])
        return block

    a = np.arange(1.0, 61.0).reshape(6, 10)
    a[a % 7 == 0] = np.nan
    labels = np.arange(60).reshape(6, 10) % 4
    x = da.from_array(a, chunks=(2, 3)).map_blocks(produce, dtype=a.dtype, meta=np.empty((0, 0)))
    forms = [labels, labels.astype(np.uint8), labels[0],
             da.from_array(labels, chunks=(3, 4)).map_blocks(produce, dtype=labels.dtype),
             da.from_array(labels.astype(np.uint64), chunks=(4, 5)).map_blocks(produce, dtype=np.uint64)]
    with TaskCounter() as counter:
        results = []
        for name, extra in VARIANTS:
            for given in forms:
                for axis in (0, 1, None):
                    results.append(getattr(sdask, name)(x, axis, direction="decreasing", exclusive=True,
                                                        labels=given, **extra))
        for name in CUMULATIVE:
            results.extend(getattr(sdask, name)(x, axis=1, include_initial=True, labels=given) for given in forms)
        results.extend(sdask.ffill(x, axis, limit=2, labels=given) for given in forms for axis in (0, 1, None))
        assert counter.tasks == 0
    assert calls == []
    got = results[3 * 3 + 1].compute(scheduler="sync")  # cumsum along 1, the lazy labels: every chunk once
    assert len(calls) == 12 + 6
    np.testing.assert_array_equal(got, simdscan.cumsum(a, 1, direction="decreasing", exclusive=True, labels=labels))


# --------------------------------------------------------------------------
# errors: simdscan's, while the graph is built (a Dask labels array's values: when it is computed)
# --------------------------------------------------------------------------
def _same_error(name, a, labels, lazy_labels=None, **kw):
    with pytest.raises(Exception) as eager:
        getattr(simdscan, name)(a, labels=labels, **kw)
    with pytest.raises(eager.type) as lazy:
        getattr(sdask, name)(da.from_array(a, chunks=2), labels=labels if lazy_labels is None else lazy_labels,
                             **kw)
    assert str(lazy.value) == str(eager.value), (name, kw)
    return lazy.value


@pytest.mark.parametrize("name", [s.name for s in SCANS] + list(CUMULATIVE) + ["ffill"])
def test_errors_match_simdscan(name):
    a = np.ones((3, 4))
    for labels in ([[0, -2, 0, 0]], np.full((3, 4), -1, dtype=np.int8)):
        assert isinstance(_same_error(name, a, labels, axis=1), ValueError)
    for dtype in (bool, np.float64, np.float32, np.complex64, "U1", object, "datetime64[s]"):
        labels = np.zeros((3, 4), dtype=dtype)
        assert isinstance(_same_error(name, a, labels, axis=1), TypeError)
        assert isinstance(_same_error(name, a, labels, da.from_array(labels, chunks=2), axis=1), TypeError)
    for shape in ((3,), (2, 4), (1, 3, 4), (4, 1, 1)):
        labels = np.zeros(shape, dtype=int)
        assert isinstance(_same_error(name, a, labels, axis=1), ValueError)
        assert isinstance(_same_error(name, a, labels, da.from_array(labels, chunks=2), axis=1), ValueError)
    for reset in (np.zeros(4, dtype=bool), da.zeros(4, dtype=bool, chunks=2)):
        assert "not both" in str(_same_error(name, a, np.zeros(4, dtype=int), axis=1, reset=reset))
    if name not in CUMULATIVE + ("ffill",):
        for axis in ((0, 1), (1,)):
            assert "single axis" in str(_same_error(name, a, np.zeros((3, 4), dtype=int), axis=axis))
        # simdscan checks labels before the axis: the labels' error comes first, lazily too
        assert isinstance(_same_error(name, a, [-1, 0, 0, 0], axis=5), ValueError)


@pytest.mark.parametrize("name", [s.name for s in SCANS] + list(CUMULATIVE) + ["ffill"])
def test_dask_labels_values_checked_when_computed(name):
    a = np.ones((3, 4))
    for dtype in (np.int8, np.int64):
        labels = np.zeros((3, 4), dtype=dtype)
        labels[1, 2] = -3
        lazy = getattr(sdask, name)(da.from_array(a, chunks=2), axis=1, labels=da.from_array(labels, chunks=2))
        with pytest.raises(ValueError, match=r"labels must be >= 0 \(found -3\)"):
            dask.compute(lazy, scheduler="sync")


def test_unknown_labels_chunk_sizes_rejected():
    labels = da.from_array(np.arange(10), chunks=3)
    for name in ("cumsum", "ffill"):
        with pytest.raises(ValueError, match="compute_chunk_sizes"):
            getattr(sdask, name)(da.ones(5, chunks=2), labels=labels[labels > 4])
