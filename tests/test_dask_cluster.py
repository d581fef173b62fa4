"""simdscan.dask on a real dask.distributed.LocalCluster of worker processes, on an array larger than a worker's
memory limit (slow)."""

import time

import dask.array as da
import numpy as np
import pytest

import simdscan.dask as sdask
from data import make_data
from reference import check_scan


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
