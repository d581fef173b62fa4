"""Large new results made in the memory of freed ones: ``set_result_cache_size`` / ``get_result_cache_size``,
``SIMDSCAN_RESULT_CACHE_SIZE`` (read at import, in subprocesses), and the arrays made that way (values, ownership,
NumPy's memory handler, resizing)."""

import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import simdscan
from simdscan import _core
from subprocesses import last_json_line, run_python

try:
    from numpy._core.multiarray import get_handler_name
except ImportError:  # NumPy 1.x
    from numpy.core.multiarray import get_handler_name

MIB = 1 << 20
LARGE = 10_000_000  # float32 elements: 40 MB, above the 32 MiB from which freed results are kept

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the cache is on by default on Linux only")


@pytest.fixture
def cache_size():
    """Tests that change the cache's size put it back afterwards, with nothing kept from them."""
    saved = simdscan.get_result_cache_size()
    simdscan.set_result_cache_size(0)
    yield saved
    simdscan.set_result_cache_size(0)
    simdscan.set_result_cache_size(saved)


def _random(n, dtype="float32", seed=0):
    return np.random.default_rng(seed).integers(-3, 4, size=n).astype(dtype)


@linux_only
def test_default_size_is_a_gib_at_most():
    assert 0 < simdscan.get_result_cache_size() <= 1 << 30


def test_a_freed_result_gives_its_memory_to_the_next_of_its_size(cache_size):
    simdscan.set_result_cache_size(1 << 30)
    first = simdscan.cumsum(_random(LARGE, seed=1))
    address = first.ctypes.data
    del first
    assert _core.result_cache_kept_bytes() == LARGE * 4
    x = _random(LARGE, seed=2)  # other values: none of the freed result's may show through
    second = simdscan.cumsum(x, direction="decreasing", exclusive=True)
    assert second.ctypes.data == address
    assert _core.result_cache_kept_bytes() == 0
    expected = np.zeros(LARGE, np.float32)
    expected[:-1] = np.cumsum(x[::-1].astype(np.int64))[::-1][1:]
    np.testing.assert_array_equal(second, expected)
    assert second.flags.owndata and second.flags.writeable and second.flags.c_contiguous
    assert get_handler_name(second) == "simdscan_result_cache"


def test_small_results_and_other_arrays_keep_numpys_handler(cache_size):
    simdscan.set_result_cache_size(1 << 30)
    assert get_handler_name(simdscan.cumsum(np.ones(1000))) == get_handler_name(np.ones(3))
    assert get_handler_name(np.empty(LARGE, np.float32)) == get_handler_name(np.ones(3))


def test_nothing_is_kept_with_size_zero(cache_size):
    result = simdscan.cumsum(_random(LARGE))
    assert get_handler_name(result) == get_handler_name(np.ones(3))
    del result
    assert _core.result_cache_kept_bytes() == 0


def test_the_size_bounds_what_is_kept_oldest_given_back_first(cache_size):
    simdscan.set_result_cache_size(100 * MIB)
    x = _random(LARGE)
    results = [simdscan.cumsum(x) for _ in range(3)]
    addresses = [r.ctypes.data for r in results]
    while results:  # frees them in order: the first is given back when the third comes
        del results[0]
    assert _core.result_cache_kept_bytes() == 2 * LARGE * 4
    again = [simdscan.cumsum(x) for _ in range(3)]
    assert {again[0].ctypes.data, again[1].ctypes.data} == set(addresses[1:])  # the newest kept first
    simdscan.set_result_cache_size(50 * MIB)  # room for one: each freed result gives back the one before
    del again
    assert _core.result_cache_kept_bytes() == LARGE * 4
    simdscan.set_result_cache_size(0)
    assert _core.result_cache_kept_bytes() == 0


def test_a_result_larger_than_the_size_is_not_kept(cache_size):
    simdscan.set_result_cache_size(32 * MIB)
    simdscan.cumsum(_random(LARGE))  # 40 MB, freed at once
    assert _core.result_cache_kept_bytes() == 0


def test_only_a_block_of_the_same_size_is_reused(cache_size):
    simdscan.set_result_cache_size(1 << 30)
    simdscan.cumsum(_random(LARGE))  # freed at once
    x = _random(LARGE + 1)
    result = simdscan.cumsum(x)
    assert _core.result_cache_kept_bytes() == LARGE * 4
    np.testing.assert_array_equal(result, np.cumsum(x, dtype=np.float32))


def test_indices_and_array_api_results_are_made_there_too(cache_size):
    simdscan.set_result_cache_size(1 << 30)
    x = _random((2, LARGE // 2), "int32").T  # a transposed input: the new result follows its memory order
    values, indices = simdscan.cummax(x, axis=0, return_indices=True)
    assert get_handler_name(values) == get_handler_name(indices) == "simdscan_result_cache"
    np.testing.assert_array_equal(values, np.maximum.accumulate(x, axis=0))
    total = simdscan.cumulative_sum(x, axis=0, include_initial=True)
    assert get_handler_name(total) == "simdscan_result_cache"
    like = np.empty_like(x, dtype=total.dtype, shape=total.shape)
    assert total.strides == like.strides
    np.testing.assert_array_equal(total[1:], np.cumsum(x, axis=0, dtype=np.int64))
    np.testing.assert_array_equal(total[0], 0)
    del values, indices, total
    assert _core.result_cache_kept_bytes() == LARGE * 4 + LARGE * 8 + (LARGE + 2) * 8


def test_a_resized_result_goes_back_as_numpy_frees_it(cache_size):
    simdscan.set_result_cache_size(1 << 30)
    x = _random(LARGE)
    result = simdscan.cumsum(x)
    result.resize(LARGE // 2, refcheck=False)  # NumPy reallocates through the result's handler
    np.testing.assert_array_equal(result, np.cumsum(x[: LARGE // 2], dtype=np.float32))
    result.resize(LARGE * 2, refcheck=False)
    assert _core.result_cache_kept_bytes() == 0
    del result
    assert _core.result_cache_kept_bytes() == LARGE * 8


@pytest.mark.parametrize(
    "bad, error", [(-1, ValueError), (1 << 64, ValueError), (1.5, TypeError), ("1024", TypeError), (None, TypeError)]
)
def test_bad_sizes_are_rejected_and_change_nothing(cache_size, bad, error):
    simdscan.set_result_cache_size(64 * MIB)
    with pytest.raises(error):
        simdscan.set_result_cache_size(bad)
    assert simdscan.get_result_cache_size() == 64 * MIB


_REPORT_SIZE = "import json, simdscan\nprint(json.dumps(simdscan.get_result_cache_size()))"


@pytest.mark.parametrize("value", ["0", "1048576", str(4 << 30)])
def test_size_environment_variable(value):
    assert last_json_line(run_python(_REPORT_SIZE, SIMDSCAN_RESULT_CACHE_SIZE=value)) == int(value)


@pytest.mark.parametrize("value", ["-1", "abc", "1.5"])
def test_invalid_size_environment_variable_fails_import(value):
    proc = run_python("import simdscan", SIMDSCAN_RESULT_CACHE_SIZE=value)
    assert proc.returncode > 0, f"import succeeded with SIMDSCAN_RESULT_CACHE_SIZE={value!r}"
    assert "ImportError" in proc.stderr and "SIMDSCAN_RESULT_CACHE_SIZE" in proc.stderr, proc.stderr


def test_threads_making_and_freeing_results_at_once_get_their_own_values(cache_size):
    simdscan.set_result_cache_size(1 << 30)
    inputs = [_random(LARGE, seed=seed) for seed in range(4)]
    expected = [np.cumsum(x, dtype=np.float32) for x in inputs]

    def work(i):
        for _ in range(5):  # each result freed before the next: the threads take each other's blocks
            np.testing.assert_array_equal(simdscan.cumsum(inputs[i]), expected[i])

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(work, range(4)))
    kept = _core.result_cache_kept_bytes()  # every block made, at most one per thread at a time, is back
    assert kept % (LARGE * 4) == 0 and 0 < kept <= 4 * LARGE * 4
