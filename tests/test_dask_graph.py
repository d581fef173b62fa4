"""simdscan.dask's graph: nothing computed until asked, output chunks equal input chunks, the inputs it takes,
and simdscan's exceptions raised while the graph is built."""

import subprocess
import sys

import dask.array as da
import numpy as np
import pytest
from numpy.exceptions import AxisError

import simdscan
import simdscan.dask as sdask
from dask_compare import EMPTY_CHUNK_CASES, EMPTY_CHUNK_IDS, DIRECTIONS, TaskCounter, compare, dask_op, layer_names
from data import seed_of
from ops import INDEXED, SCANS
from params import func
from reference import OPS

SCAN_NAMES = [s.name for s in SCANS]


@pytest.mark.parametrize("op", OPS)
def test_lazy_nothing_computed_until_asked(op):
    calls = []

    def produce(block, block_info=None):
        calls.append(block_info[None]["chunk-location"])
        return block

    a = np.arange(1.0, 61.0).reshape(6, 10)
    x = da.from_array(a, chunks=(2, 3)).map_blocks(produce, dtype=a.dtype, meta=np.empty((0, 0)))
    with TaskCounter() as counter:
        results = [
            dask_op(op)(x, axis, direction=direction, exclusive=exclusive)
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
    compare(got, op, a, 0, "increasing", False)


def test_output_chunks_equal_input_chunks():
    chunks = ((3, 1, 4, 0, 2), (5, 5, 1), (2, 2))
    x = da.ones(tuple(sum(c) for c in chunks), chunks=chunks, dtype=np.int32)
    for op in OPS:
        for axis in (0, 1, 2, -1, -2, -3):
            for direction in DIRECTIONS:
                r = dask_op(op)(x, axis, direction=direction, exclusive=True)
                assert r.chunks == chunks
                assert r.numblocks == x.numblocks
                assert not any("rechunk" in name for name in layer_names(r))


@pytest.mark.parametrize("shape, chunks", EMPTY_CHUNK_CASES, ids=EMPTY_CHUNK_IDS)
def test_empty_chunks_beside_an_axis_of_length_1(shape, chunks):
    """Every scan (with indices where it has them; increasing inclusive, decreasing exclusive), cumulative_sum /
    cumulative_prod and ffill, plain, with reset= (NumPy and Dask) and labels= (Dask, in the data's chunks), along
    each axis of arrays whose chunks hold empty pieces such as (0, 1) on an axis of length 1: simdscan's values on the
    whole array (halves and NaN: every partial result exact; logcumsumexp within 1e-13), in the input's chunks."""
    rng = np.random.default_rng(seed_of("empty chunks", shape, chunks))
    a = rng.integers(-4, 5, size=shape) / 2.0
    a[rng.random(shape) < 0.2] = np.nan
    reset = rng.random(shape) < 0.3
    labels = rng.integers(0, 3, size=shape)
    x = da.from_array(a, chunks=chunks)
    segments = [{}, {"reset": reset}, {"reset": da.from_array(reset, chunks=chunks)},
                {"labels": da.from_array(labels, chunks=chunks)}]
    for axis in range(len(shape)):
        for segment in segments:
            given = {k: np.asarray(v) for k, v in segment.items()}
            calls = [(name, {"direction": d, "exclusive": d == "decreasing", **extra}) for name in SCAN_NAMES
                     for d in DIRECTIONS for extra in ([{}, {"return_indices": True}] if name in INDEXED else [{}])]
            calls += [(name, {"direction": d}) for name in ("cumulative_sum", "cumulative_prod") for d in DIRECTIONS]
            calls += [("ffill", {"direction": d, "limit": limit}) for d in DIRECTIONS for limit in (None, 1)]
            for name, kw in calls:
                where = f"{name}(chunks={chunks}, axis={axis}, {kw}, {sorted(segment)})"
                lazy = getattr(sdask, name)(x, axis=axis, **kw, **segment)
                want = getattr(simdscan, name)(a, axis=axis, **kw, **given)
                for part, wanted in zip(lazy, want) if isinstance(want, tuple) else ((lazy, want),):
                    assert part.chunks == x.chunks, f"{where}: chunks {part.chunks}"
                    got = part.compute(scheduler="sync")
                    if name == "logcumsumexp":
                        np.testing.assert_allclose(got, wanted, rtol=1e-13, err_msg=where)
                    else:
                        np.testing.assert_array_equal(got, wanted, err_msg=where)


def test_numpy_input_is_wrapped():
    a = np.arange(10)
    r = sdask.cumsum(a, direction="decreasing")
    assert isinstance(r, da.Array)
    np.testing.assert_array_equal(r.compute(), simdscan.cumsum(a, direction="decreasing"))


def test_zero_d_input():
    x = da.from_array(np.array(4.0))
    for axis in (None, 0, -1):
        for op in OPS:
            r = dask_op(op)(x, axis, exclusive=True)
            want = func(op)(np.array(4.0), axis, exclusive=True)
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
        func(op)(a, *args, **kw)
    with pytest.raises(eager.type) as lazy:
        dask_op(op)(da.from_array(a, chunks=2), *args, **kw)
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
        dask_op(op)(da.from_array(np.array(1.0)), 1)

