"""simdscan.dask's ``method=`` (Dask's keyword, accepted), and the result cache, off in a Dask worker process that
runs simdscan's tasks unless the user set its size there."""

import dask.array as da
import numpy as np
import pytest

import simdscan
import simdscan.dask as sdask
from ops import SCANS

FUNCTIONS = [*(s.name for s in SCANS), "cumulative_sum", "cumulative_prod"]


@pytest.mark.parametrize("name", FUNCTIONS)
def test_method_takes_dasks_two_values_and_builds_the_same_graph(name):
    x = da.from_array(np.arange(1.0, 13.0), chunks=5)
    function = getattr(sdask, name)
    default = function(x, axis=0)
    for method in ("sequential", "blelloch"):
        got = function(x, axis=0, method=method)
        assert got.name == default.name
    np.testing.assert_allclose(got.compute(), getattr(simdscan, name)(np.arange(1.0, 13.0), axis=0), rtol=1e-14)
    for wrong in ("parallel", "Blelloch", None, 1):
        with pytest.raises(ValueError, match="method must be 'sequential' or 'blelloch'"):
            function(x, axis=0, method=wrong)


def test_the_result_cache_is_off_in_worker_processes_unless_set():
    from dask.distributed import Client, LocalCluster

    before = simdscan.get_result_cache_size()
    assert before > 0  # on Linux, where the cache exists
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        workers = sorted(client.scheduler_info()["workers"])
        chosen = 12345678
        client.run(simdscan.set_result_cache_size, chosen, workers=[workers[1]])
        sizes = client.run(simdscan.get_result_cache_size)
        assert sizes == {workers[0]: before, workers[1]: chosen}  # nothing changed before simdscan's tasks
        x = da.arange(40_000, chunks=1_000, dtype=np.int64)
        for worker in workers:  # simdscan's tasks on each worker
            result = client.compute(sdask.cumsum(x), workers=[worker]).result(timeout=120)
            np.testing.assert_array_equal(result, np.cumsum(np.arange(40_000, dtype=np.int64)))
        assert client.run(simdscan.get_result_cache_size) == {workers[0]: 0, workers[1]: chosen}
    assert simdscan.get_result_cache_size() == before  # the client's process keeps its cache


def test_a_plain_process_reads_its_cache_without_importing_distributed():
    import subprocess
    import sys

    code = ("import sys, simdscan\nsize = simdscan.get_result_cache_size()\n"
            "import simdscan.dask\nprint(size == simdscan.get_result_cache_size() > 0, 'distributed' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "False"]
