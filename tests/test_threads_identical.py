"""Thread-count independence, bit for bit, on every layout that the thread pool splits.

One long line (its 256 KiB chunks scanned in parallel, two passes), a few long lines (lines in parallel, or each
line's chunks when there are more threads than lines), many medium lines, an outer (strided) scan axis (column
tiles and outer blocks across threads) and a strided view (the buffered path): reference.py's "threaded" paths.
"""

import numpy as np
import pytest

import simdscan
from compare import assert_bit_identical
from data import scan_data, seed_of
from params import VARIANTS, scan
from reference import OPS, PATHS, check_scan

# the outcome depends on the ISA tier and the xsimd version: CI runs these per tier
pytestmark = [pytest.mark.kernels, pytest.mark.threads, pytest.mark.usefixtures("restore_thread_count")]

THREAD_COUNTS = (2, 3, 5, 8)  # more threads than this machine's cores is allowed
THREADED_PATHS = PATHS["threaded"]
THREAD_DTYPES = ["float32", "float64", "int32", "uint8", "float16", "complex64"]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("path", THREADED_PATHS, ids=[path.name for path in THREADED_PATHS])
@pytest.mark.parametrize("dtype", THREAD_DTYPES)
def test_thread_count_does_not_change_a_bit(dtype, path, op):
    rng = np.random.default_rng(seed_of("threads", dtype, path.name, op))
    a, axis = path.build(lambda shape: scan_data(rng, shape, dtype, op))
    assert a.nbytes > 1 << 20, "the array must be large enough to use the thread pool"
    # The oracle (slow on arrays this size) checks one variant per case, rotating over the parameter grid.
    checked = (THREAD_DTYPES.index(dtype) + THREADED_PATHS.index(path) + OPS.index(op)) % len(VARIANTS)
    for v, (decreasing, exclusive) in enumerate(VARIANTS):
        simdscan.set_num_threads(1)
        single = scan(op, a, axis, decreasing, exclusive)
        if v == checked:
            check_scan(single, op, a, axis, decreasing, exclusive)
        for threads in THREAD_COUNTS:
            simdscan.set_num_threads(threads)
            assert simdscan.get_num_threads() == threads
            got = scan(op, a, axis, decreasing, exclusive)
            assert_bit_identical(
                got,
                single,
                f"{op} {dtype} {path.name} shape={a.shape} axis={axis} decreasing={decreasing} "
                f"exclusive={exclusive}: {threads} threads vs 1",
            )


@pytest.mark.parametrize("threads", (1, 2, 3))
def test_new_results_past_32_mib_are_those_written_to_out(threads):
    # Results of 32 MiB and more that the call allocates have their pages mapped by all the threads first
    # (simdscan::fault_in): the values, and the indices of a running maximum, are those written into given arrays.
    rng = np.random.default_rng(seed_of("new results", threads))
    # 40 MB, past glibc's largest mmap threshold; small integers, whose float32 partial sums are exact
    x = rng.integers(-2, 3, 10_000_000).astype(np.float32)
    simdscan.set_num_threads(threads)
    into = np.empty_like(x)
    assert_bit_identical(simdscan.cumsum(x), simdscan.cumsum(x, out=into), f"cumsum, {threads} threads")
    np.testing.assert_array_equal(into, np.cumsum(x, dtype=np.float64))
    x = rng.standard_normal(x.size).astype(np.float32)
    values, indices = simdscan.cummax(x, return_indices=True)
    given = (np.empty_like(x), np.empty(x.shape, np.intp))
    simdscan.cummax(x, return_indices=True, out=given)
    assert_bit_identical(values, given[0], f"cummax values, {threads} threads")
    np.testing.assert_array_equal(indices, given[1])
    np.testing.assert_array_equal(values, np.maximum.accumulate(x))
    np.testing.assert_array_equal(x[indices], values)
