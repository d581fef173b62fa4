"""The thread-count knobs: ``set_num_threads`` / ``get_num_threads``, and ``SIMDSCAN_NUM_THREADS`` (read at import,
in subprocesses)."""

import numpy as np
import pytest

import simdscan
from subprocesses import last_json_line, run_python

# the outcome depends on the ISA tier and the xsimd version: CI runs these per tier
pytestmark = [pytest.mark.kernels, pytest.mark.threads, pytest.mark.usefixtures("restore_thread_count")]


def test_set_get_num_threads_round_trip():
    for n in (1, 2, 3, 7, 16, 1, np.int64(4), np.uint8(5)):
        assert simdscan.set_num_threads(n) is None
        got = simdscan.get_num_threads()
        assert got == int(n) and type(got) is int


@pytest.mark.parametrize(
    "bad, error",
    [
        (0, ValueError),
        (-1, ValueError),
        (-(2**40), ValueError),
        (np.int32(0), ValueError),
        (1.5, TypeError),
        (2.0, TypeError),
        ("2", TypeError),
        (None, TypeError),
        (np.float64(3.0), TypeError),
    ],
    ids=lambda v: v.__name__ if isinstance(v, type) else repr(v),
)
def test_invalid_num_threads_raises_and_keeps_the_count(bad, error):
    simdscan.set_num_threads(3)
    with pytest.raises(error):
        simdscan.set_num_threads(bad)
    assert simdscan.get_num_threads() == 3


_REPORT_THREADS = (
    "import json, os, simdscan\n"
    "print(json.dumps({'threads': simdscan.get_num_threads(), 'cores': len(os.sched_getaffinity(0))}))\n"
)


def test_default_num_threads_is_the_usable_core_count():
    out = last_json_line(run_python(_REPORT_THREADS, SIMDSCAN_NUM_THREADS=None))
    assert out["threads"] == out["cores"]


def test_default_num_threads_follows_cpu_affinity():
    # Restricted to one core before the import, the default must be 1 (the cores this process may use, not
    # the cores of the machine).
    code = "import os\nos.sched_setaffinity(0, {min(os.sched_getaffinity(0))})\n" + _REPORT_THREADS
    out = last_json_line(run_python(code, SIMDSCAN_NUM_THREADS=None))
    assert out == {"threads": 1, "cores": 1}


@pytest.mark.parametrize("value", ["1", "3", "8"])
def test_num_threads_environment_variable(value):
    out = last_json_line(run_python(_REPORT_THREADS, SIMDSCAN_NUM_THREADS=value))
    assert out["threads"] == int(value)


@pytest.mark.parametrize("value", ["0", "abc", "-2", "1.5"])
def test_invalid_num_threads_environment_variable_fails_import(value):
    proc = run_python("import simdscan", SIMDSCAN_NUM_THREADS=value)
    assert proc.returncode != 0, f"import succeeded with SIMDSCAN_NUM_THREADS={value!r}"
    assert "ImportError" in proc.stderr, proc.stderr
    assert "SIMDSCAN_NUM_THREADS" in proc.stderr, proc.stderr
    assert value in proc.stderr, proc.stderr
    assert "Segmentation" not in proc.stderr and proc.returncode > 0, proc.stderr
