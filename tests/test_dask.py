"""simdscan.dask: lazy scans of Dask arrays, chunk by chunk, with carries between chunks.

Every result is compared with simdscan on the computed (NumPy) array: integers exactly, floating-point
types within the rounding-error bound of tests/reference.py (the chunked scan adds in another order, so
bit-equality is not promised). Fast tests run on Dask's local schedulers; one slow test runs on a real
``dask.distributed.LocalCluster`` of worker processes, on an array larger than a worker's memory limit.
"""

import subprocess
import sys
import time

import dask
import dask.array as da
import numpy as np
import pytest
from dask.callbacks import Callback
from numpy.exceptions import AxisError

import simdscan
import simdscan.dask as sdask
from data import make_data, seed_of, spread_values
from exact_sums import check_compensated
from reference import DEFAULT_INT, OPS, check_scan

DTYPES = ["float32", "float64", "int8", "int64", "uint16", "complex64", "float16", "bool"]
DIRECTIONS = ["increasing", "decreasing"]

# (shape, chunks): along the axis, across it, both, one chunk, uneven, empty chunks, 1-element chunks
CASES = [
    ((23,), 5),
    ((23,), ((3, 0, 10, 1, 9),)),
    ((6,), 1),
    ((23,), 23),
    ((0,), 4),
    ((9, 14), (4, 5)),
    ((9, 14), (9, 5)),
    ((9, 14), (2, 14)),
    ((9, 14), ((1, 0, 8), (13, 1))),
    ((0, 7), (3, 2)),
    ((4, 0), (1, 3)),
    ((3, 4, 10), (2, 3, 4)),
    ((), ()),
]


def _case_id(case):
    shape, chunks = case
    return f"{shape}-{chunks}".replace(" ", "")


def _dask_op(op):
    return getattr(sdask, op)


def _eager_op(op):
    return getattr(simdscan, op)


def _axes(ndim):
    return list(range(ndim)) + ([-1] if ndim else [0, -1]) + [None]


def _compare(got, op, a, axis, direction, exclusive, dtype=None):
    """``got`` (computed) against simdscan on the whole array, and against the oracle's bound."""
    want = _eager_op(op)(a, axis, direction=direction, exclusive=exclusive, dtype=dtype)
    where = (
        f"simdscan.dask.{op}(shape={a.shape}, dtype={a.dtype}, axis={axis}, direction={direction}, "
        f"exclusive={exclusive}, dtype={dtype})"
    )
    assert isinstance(got, np.ndarray), where
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype}, simdscan gives {want.dtype}"
    assert got.shape == want.shape, f"{where}: shape {got.shape}, simdscan gives {want.shape}"
    if want.dtype.kind in "iub":
        np.testing.assert_array_equal(got, want, err_msg=where)
    check_scan(got, op, a, axis, direction == "decreasing", exclusive, dtype, msg=where)


def _layer_names(x):
    return list(x.__dask_graph__().layers)


# --------------------------------------------------------------------------
# the matrix: dtypes x chunkings x axes x directions x exclusive x op
# --------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=_case_id)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_matches_simdscan(op, dtype, case):
    shape, chunks = case
    rng = np.random.default_rng(seed_of(op, dtype, case))
    a = make_data(rng, shape, dtype, op)
    x = da.from_array(a, chunks=chunks)
    calls = []
    for axis in _axes(a.ndim):
        for direction in DIRECTIONS:
            for exclusive in (False, True):
                r = _dask_op(op)(x, axis, direction=direction, exclusive=exclusive)
                assert isinstance(r, da.Array)
                if axis is not None and a.ndim:  # (axis=None: ravel may rechunk)
                    assert r.chunks == x.chunks  # never rechunked
                    assert not any("rechunk" in name for name in _layer_names(r))
                calls.append(((axis, direction, exclusive), r))
    results = dask.compute(*[r for _, r in calls], scheduler="sync")
    for ((axis, direction, exclusive), r), got in zip(calls, results):
        assert r.dtype == got.dtype and r.shape == got.shape
        _compare(got, op, a, axis, direction, exclusive)


@pytest.mark.parametrize("op", OPS)
def test_threaded_scheduler_many_chunks(op):
    """The default (threaded) scheduler, 2-D, many chunks along the axis and across it."""
    rng = np.random.default_rng(seed_of("threaded", op))
    a = make_data(rng, (40, 100), np.float64, op, line=100)
    x = da.from_array(a, chunks=(7, 9))
    for axis in (0, 1, -1):
        for direction in DIRECTIONS:
            for exclusive in (False, True):
                r = _dask_op(op)(x, axis, direction=direction, exclusive=exclusive)
                assert r.chunks == x.chunks
                _compare(r.compute(), op, a, axis, direction, exclusive)


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("exclusive", [False, True])
def test_long_chain_of_chunks_int_exact(direction, exclusive):
    """300 chunks of 3 along the axis: a long carry chain; int64 exact."""
    a = np.random.default_rng(5).integers(-(2**40), 2**40, size=(900, 3))
    x = da.from_array(a, chunks=(3, 2))
    for op in OPS:
        got = _dask_op(op)(x, 0, direction=direction, exclusive=exclusive).compute()
        np.testing.assert_array_equal(
            got, _eager_op(op)(a, 0, direction=direction, exclusive=exclusive)
        )


# --------------------------------------------------------------------------
# dtypes: casting, wrapping, float16
# --------------------------------------------------------------------------
DTYPE_ARG_CASES = [
    ("int8", "float32"),
    ("float64", "float16"),
    ("float32", "int16"),
    ("bool", None),
    ("bool", "uint8"),
    ("int64", "int8"),
    ("uint16", "complex64"),
    ("float16", "float64"),
]


@pytest.mark.parametrize("in_dtype, dtype", DTYPE_ARG_CASES, ids=[f"{i}-to-{o}" for i, o in DTYPE_ARG_CASES])
@pytest.mark.parametrize("op", OPS)
def test_dtype_argument(op, in_dtype, dtype):
    rng = np.random.default_rng(seed_of("dtype", op, in_dtype, dtype))
    a = make_data(rng, (11, 13), in_dtype, op)
    x = da.from_array(a, chunks=(3, 4))
    for axis in (0, 1, None):
        for direction in DIRECTIONS:
            for exclusive in (False, True):
                r = _dask_op(op)(x, axis, direction=direction, exclusive=exclusive, dtype=dtype)
                got = r.compute()
                assert r.dtype == got.dtype
                _compare(got, op, a, axis, direction, exclusive, dtype)


def test_bool_gives_default_integer():
    x = da.from_array(np.ones(10, dtype=bool), chunks=3)
    r = sdask.cumsum(x)
    assert r.dtype == DEFAULT_INT
    np.testing.assert_array_equal(r.compute(), np.arange(1, 11))


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64", "uint64"])
@pytest.mark.parametrize("op", OPS)
def test_integers_wrap_exactly(op, dtype):
    """Full-range integers wrap many times, across chunk boundaries: still bit-exact."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed_of("wrap", op, dtype))
    a = rng.integers(info.min, info.max, size=(37, 60), dtype=dtype, endpoint=True)
    if op == "cumprod":
        a |= 1  # odd factors: products wrap without collapsing to 0
    x = da.from_array(a, chunks=(5, 7))
    for axis in (0, 1, None):
        for direction in DIRECTIONS:
            for exclusive in (False, True):
                r = _dask_op(op)(x, axis, direction=direction, exclusive=exclusive)
                got = r.compute(scheduler="sync")
                want = _eager_op(op)(a, axis, direction=direction, exclusive=exclusive)
                assert got.dtype == want.dtype == np.dtype(dtype)
                np.testing.assert_array_equal(got, want)


def test_int8_wraps_as_documented():
    x = da.from_array(np.array([100, 100, 100], dtype=np.int8), chunks=1)
    got = sdask.cumsum(x).compute()
    assert got.dtype == np.int8
    np.testing.assert_array_equal(got, [100, -56, 44])


def test_float16_accumulates_in_float32():
    """4096 float16 ones in 41 chunks sum to 4096 (NumPy's float16 running total stalls at 2048)."""
    x = da.ones(4096, dtype=np.float16, chunks=100)
    got = sdask.cumsum(x).compute()
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, np.arange(1, 4097).astype(np.float16))
    np.testing.assert_array_equal(got, simdscan.cumsum(np.ones(4096, dtype=np.float16)))
    got = sdask.cumsum(x, direction="decreasing", exclusive=True).compute()
    np.testing.assert_array_equal(got, np.arange(4095, -1, -1).astype(np.float16))
    np.testing.assert_array_equal(
        got, simdscan.cumsum(np.ones(4096, dtype=np.float16), direction="decreasing", exclusive=True)
    )


# --------------------------------------------------------------------------
# special values: -0.0, NaN, inf
# --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("chunks", [1, 2, 3])
def test_negative_zero_prefix_stays_negative(dtype, chunks):
    a = np.full(7, -0.0, dtype=dtype)
    x = da.from_array(a, chunks=chunks)
    for direction in DIRECTIONS:
        for exclusive in (False, True):
            for op in OPS:
                got = _dask_op(op)(x, direction=direction, exclusive=exclusive).compute()
                want = _eager_op(op)(a, direction=direction, exclusive=exclusive)
                np.testing.assert_array_equal(got, want)
                np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("op", OPS)
def test_nan_and_inf_propagate_like_simdscan(op):
    a = np.array([1.0, 2.0, np.inf, 3.0, 0.5, -np.inf, 4.0, np.nan, 2.0, 1.0, 0.0, 5.0])
    b = np.array([1.0, 2.0, 3.0, -4.0, np.inf, 2.0, 1.0, 0.5, 2.0, 3.0, 1.0, 2.0])
    for data in (a, b):
        x = da.from_array(data, chunks=((2, 3, 1, 4, 2),))
        for direction in DIRECTIONS:
            for exclusive in (False, True):
                got = _dask_op(op)(x, direction=direction, exclusive=exclusive).compute()
                want = _eager_op(op)(data, direction=direction, exclusive=exclusive)
                np.testing.assert_array_equal(got, want)  # NaN == NaN here, inf exactly


# --------------------------------------------------------------------------
# laziness, chunks, inputs
# --------------------------------------------------------------------------
class _TaskCounter(Callback):
    def __init__(self):
        super().__init__()
        self.tasks = 0

    def _pretask(self, key, dsk, state):
        self.tasks += 1


@pytest.mark.parametrize("op", OPS)
def test_lazy_nothing_computed_until_asked(op):
    calls = []

    def produce(block, block_info=None):
        calls.append(block_info[None]["chunk-location"])
        return block

    a = np.arange(1.0, 61.0).reshape(6, 10)
    x = da.from_array(a, chunks=(2, 3)).map_blocks(produce, dtype=a.dtype, meta=np.empty((0, 0)))
    with _TaskCounter() as counter:
        results = [
            _dask_op(op)(x, axis, direction=direction, exclusive=exclusive)
            for axis in (0, 1, None)
            for direction in DIRECTIONS
            for exclusive in (False, True)
        ]
        assert counter.tasks == 0
    assert calls == []
    assert all(isinstance(r, da.Array) for r in results)
    # computing one result reads every input chunk once
    got = results[0].compute(scheduler="sync")
    assert sorted(calls) == sorted((i, j) for i in range(3) for j in range(4))
    _compare(got, op, a, 0, "increasing", False)


def test_output_chunks_equal_input_chunks():
    chunks = ((3, 1, 4, 0, 2), (5, 5, 1), (2, 2))
    x = da.ones(tuple(sum(c) for c in chunks), chunks=chunks, dtype=np.int32)
    for op in OPS:
        for axis in (0, 1, 2, -1, -2, -3):
            for direction in DIRECTIONS:
                r = _dask_op(op)(x, axis, direction=direction, exclusive=True)
                assert r.chunks == chunks
                assert r.numblocks == x.numblocks
                assert not any("rechunk" in name for name in _layer_names(r))


def test_numpy_input_is_wrapped():
    a = np.arange(10)
    r = sdask.cumsum(a, direction="decreasing")
    assert isinstance(r, da.Array)
    np.testing.assert_array_equal(r.compute(), simdscan.cumsum(a, direction="decreasing"))


def test_zero_d_input():
    x = da.from_array(np.array(4.0))
    for axis in (None, 0, -1):
        for op in OPS:
            r = _dask_op(op)(x, axis, exclusive=True)
            want = _eager_op(op)(np.array(4.0), axis, exclusive=True)
            assert r.shape == want.shape == (1,)
            np.testing.assert_array_equal(r.compute(), want)


def test_direction_enum_accepted():
    a = np.arange(1, 9)
    x = da.from_array(a, chunks=3)
    for d in simdscan.Direction:
        np.testing.assert_array_equal(
            sdask.cumprod(x, direction=d, exclusive=True).compute(),
            simdscan.cumprod(a, direction=d, exclusive=True),
        )


def test_unknown_chunk_sizes_rejected():
    x = da.from_array(np.arange(10), chunks=3)
    y = x[x > 4]  # unknown chunk sizes
    with pytest.raises(ValueError, match="compute_chunk_sizes"):
        sdask.cumsum(y, 0)
    np.testing.assert_array_equal(sdask.cumsum(y.compute_chunk_sizes(), 0).compute(), np.cumsum(np.arange(5, 10)))


def test_import_simdscan_does_not_import_dask():
    code = (
        "import sys, simdscan, numpy; simdscan.cumsum(numpy.ones(3)); "
        "bad = sorted(m for m in sys.modules if m == 'dask' or m.startswith(('dask.', 'distributed')));"
        "assert not bad, bad"
    )
    proc = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


# --------------------------------------------------------------------------
# errors: the exceptions of simdscan, raised while building the graph
# --------------------------------------------------------------------------
def _same_error(op, a, *args, **kw):
    with pytest.raises(Exception) as eager:
        _eager_op(op)(a, *args, **kw)
    with pytest.raises(eager.type) as lazy:
        _dask_op(op)(da.from_array(a, chunks=2), *args, **kw)
    assert str(lazy.value) == str(eager.value)
    return lazy.value


@pytest.mark.parametrize("op", OPS)
def test_errors_match_simdscan(op):
    a = np.ones((3, 4))
    assert isinstance(_same_error(op, a, 2), AxisError)
    assert isinstance(_same_error(op, a, -3), AxisError)
    assert isinstance(_same_error(op, np.ones(3), 1), AxisError)
    assert isinstance(_same_error(op, a, 0, direction="up"), ValueError)
    assert isinstance(_same_error(op, a, 0, direction="INCREASING"), ValueError)
    assert isinstance(_same_error(op, a, 0, direction=1), TypeError)
    assert isinstance(_same_error(op, a, 0, direction=None), TypeError)
    assert isinstance(_same_error(op, a, 1.0), TypeError)
    assert isinstance(_same_error(op, a, 0, dtype=object), TypeError)
    assert isinstance(_same_error(op, a.astype("datetime64[s]"), 0), TypeError)
    with pytest.raises(AxisError):
        _dask_op(op)(da.from_array(np.array(1.0)), 1)


# --------------------------------------------------------------------------
# a real cluster: worker processes, an array larger than a worker's memory limit
# --------------------------------------------------------------------------
@pytest.mark.slow
def test_local_cluster_larger_than_worker_memory():
    """Two worker processes of 200 MB each scan a 400 MB int64 array (and a 200 MB 2-D one): it can only
    work if chunks stream through the carry chain instead of being held. The results are checked on the
    workers against closed forms, chunk by chunk, so that nothing large reaches the client."""
    from dask.distributed import Client, LocalCluster

    # Everything below that runs on the workers is a nested function, which cloudpickle sends by value
    # (the workers cannot import this test module).
    def prefix_of_mod7(n):
        """sum_{t=0}^{n} (t % 7) for an int64 array n >= -1 (closed form, no scan)."""
        q, r = np.divmod(n + 1, 7)
        q *= 21
        r *= r - 1
        r //= 2
        q += r
        return q

    piece = 1 << 16  # the checks work in pieces, to stay far below the workers' memory limit

    def mismatches_1d(block, decreasing, exclusive, total, block_info=None):
        """x[i] = i % 7: increasing inclusive out[i] = S(i); decreasing exclusive out[i] = S(n-1) - S(i)."""
        lo = block_info[0]["array-location"][0][0]
        bad = 0
        for p in range(0, len(block), piece):
            want = prefix_of_mod7(np.arange(lo + p, lo + min(p + piece, len(block)), dtype=np.int64))
            if decreasing:
                assert exclusive
                np.subtract(total, want, out=want)
            bad += np.count_nonzero(block[p : p + piece] != want)
        return np.array([bad])

    def mismatches_2d(block, rows, block_info=None):
        """y[i, j] = (i + j) % 7 scanned along axis 0, decreasing, inclusive:
        out[i, j] = sum_{t=i}^{rows-1} (t + j) % 7 = S(rows - 1 + j) - S(i + j - 1)."""
        (r0, r1), (c0, c1) = block_info[0]["array-location"]
        j = np.arange(c0, c1, dtype=np.int64)
        top = prefix_of_mod7(rows - 1 + j)
        bad = 0
        step = max(1, piece // max(1, c1 - c0))
        for p in range(r0, r1, step):
            i = np.arange(p, min(p + step, r1), dtype=np.int64)[:, None]
            want = top - prefix_of_mod7(i + j - 1)
            bad += np.count_nonzero(block[p - r0 : p - r0 + len(i)] != want)
        return np.array([[bad]])

    # int64: 400 MB in 200 chunks of 2 MB; each worker may use 200 MB, of which its own code and libraries
    # take about 90 MB: small chunks leave headroom below the pause (80%) and restart (95%) thresholds.
    n, chunk = 50_000_000, 250_000
    rows, cols = 10_000, 2_500  # int64: 200 MB in 20 x 5 chunks
    start = time.perf_counter()
    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        memory_limit="200MB",
        dashboard_address=":0",  # any free port: never collide with another cluster
    ) as cluster, Client(cluster) as client:
        workers = set(client.scheduler_info()["workers"])
        assert len(workers) == 2

        def done(collection):
            """The computed result, or TimeoutError: dead workers must fail the test, not hang CI."""
            return client.compute(collection).result(timeout=300)

        # --- 1-D, chunked along the axis: x[i] = i % 7, made chunk by chunk on the workers
        x = da.arange(n, chunks=chunk, dtype=np.int64) % 7
        total = int(prefix_of_mod7(np.array(n - 1)))
        for direction, exclusive in (("increasing", False), ("decreasing", True)):
            r = sdask.cumsum(x, 0, direction=direction, exclusive=exclusive)
            assert r.chunks == x.chunks
            bad = r.map_blocks(
                mismatches_1d,
                direction == "decreasing",
                exclusive,
                total,
                chunks=((1,) * r.numblocks[0],),
                dtype=np.int64,
            ).sum()
            assert done(bad) == 0, (direction, exclusive)

        # --- 2-D, chunked along and across the axis: y[i, j] = (i + j) % 7, scanned along axis 0
        y = (
            da.arange(rows, chunks=500, dtype=np.int64)[:, None]
            + da.arange(cols, chunks=500, dtype=np.int64)[None, :]
        ) % 7
        r = sdask.cumsum(y, 0, direction="decreasing")
        assert r.chunks == y.chunks and r.numblocks == (20, 5)
        nb = r.numblocks
        bad = r.map_blocks(mismatches_2d, rows, chunks=((1,) * nb[0], (1,) * nb[1]), dtype=np.int64)
        assert done(bad.sum()) == 0

        # --- products and floats through the workers, small enough to check against simdscan here
        rng = np.random.default_rng(3)
        a = make_data(rng, (300, 40), np.float64, "cumprod", line=300)
        got = sdask.cumprod(da.from_array(a, chunks=(37, 16)), 0, direction="decreasing", exclusive=True)
        check_scan(done(got), "cumprod", a, 0, True, True)

        # no worker was lost (a nanny restarts a worker that outgrows its memory limit)
        assert set(client.scheduler_info()["workers"]) == workers
    elapsed = time.perf_counter() - start
    print(f"LocalCluster test: {elapsed:.1f} s")


@pytest.mark.parametrize("dtype", ["float16", "float32", "complex64", "float64", "complex128"])
@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("exclusive", [False, True])
def test_compensated(dtype, direction, exclusive):
    """float16/32 and complex64 chunks and carries in a wider type: simdscan's own bound, on every output.
    float64 and complex128: one more rounding of the carry per chunk boundary (the documented bound)."""
    rng = np.random.default_rng(seed_of("compensated", dtype, direction, exclusive))
    a = spread_values(rng, (6000, 3), dtype)
    x = da.from_array(a, chunks=((1000, 1500, 500, 3000), 2))
    got = sdask.cumsum(x, 0, direction=direction, exclusive=exclusive, compensated=True).compute(scheduler="sync")
    assert got.dtype == np.dtype(dtype)
    if dtype in ("float16", "float32", "complex64"):
        check_compensated(got, a, 0, direction == "decreasing", exclusive)
    else:
        # Against the exact prefix with the documented (2 + chunks) * u * sum|x| bound: 4 chunks along the axis.
        whole = simdscan.cumsum(a, 0, direction=direction, exclusive=exclusive, compensated=True)
        check_compensated(whole, a, 0, direction == "decreasing", exclusive)
        scale = np.abs(a.real) + np.abs(a.imag) if a.dtype.kind == "c" else np.abs(a)
        bound = (2 + 4) * 2.0**-53 * simdscan.cumsum(scale, 0, direction=direction)
        assert np.all(np.abs(got - whole) <= 2 * bound)


def test_compensated_tenths():
    tenths = da.full(10**6, 0.1, dtype=np.float32, chunks=70_001)
    assert sdask.cumsum(tenths, compensated=True).compute()[-1] == np.float32(1e5)
    assert sdask.cumsum(tenths).compute()[-1] != np.float32(1e5)
