"""``fork()`` after (and during) a threaded scan, and the ``spawn`` start method: children scan with pools of
their own and get the parent's results."""

import multiprocessing
import threading
import time
import zlib

import numpy as np
import pytest

import simdscan

# the outcome depends on the ISA tier and the xsimd version: CI runs these per tier
pytestmark = [pytest.mark.kernels, pytest.mark.threads, pytest.mark.usefixtures("restore_thread_count")]

# Python 3.12+ warns (DeprecationWarning) when os.fork() runs in a process that has more than one thread. The
# fork tests make the parent multi-threaded on purpose (simdscan's pool workers, and a scanning Python thread)
# because forking such a process is exactly what they check is safe; the warning is ignored for those tests only.
FORK_WARNING = (
    r"ignore:This process \(pid=\d+\) is multi-threaded, use of fork\(\) may lead to deadlocks in the child"
    r":DeprecationWarning"
)
NEEDS_FORK = pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="no fork start method here (Windows)"
)


def _payload(n):
    """Values -3..3 repeating with period 7 (sum 0): every prefix sum is a small integer, so a float32 scan is
    exact and np.cumsum is its exact oracle."""
    return (np.arange(n, dtype=np.int64) % 7 - 3).astype(np.float32)


def _scan_checksums(n, threads):
    """Large threaded scans (module level so that it pickles): checksums of the results."""
    simdscan.set_num_threads(threads)
    x = _payload(n)
    m = x[: (n // 4096) * 4096].reshape(-1, 4096)
    return {
        "threads": simdscan.get_num_threads(),
        "line": zlib.crc32(simdscan.cumsum(x).tobytes()),
        "line_decreasing_exclusive": zlib.crc32(simdscan.cumsum(x, direction="decreasing", exclusive=True).tobytes()),
        "outer": zlib.crc32(simdscan.cumsum(m, axis=0).tobytes()),
        "int32": zlib.crc32(simdscan.cumsum(x.astype(np.int32)).tobytes()),
    }


def _expected_checksums(n, threads):
    x = _payload(n)
    m = x[: (n // 4096) * 4096].reshape(-1, 4096)
    dec_exc = np.zeros_like(x)
    dec_exc[:-1] = np.flip(np.cumsum(np.flip(x)))[1:]
    return {
        "threads": threads,
        "line": zlib.crc32(np.cumsum(x).tobytes()),
        "line_decreasing_exclusive": zlib.crc32(dec_exc.tobytes()),
        "outer": zlib.crc32(np.cumsum(m, axis=0).tobytes()),
        "int32": zlib.crc32(np.cumsum(x.astype(np.int32), dtype=np.int32).tobytes()),
    }


def _send_checksums(conn, n, threads):
    try:
        conn.send(_scan_checksums(n, threads))
    finally:
        conn.close()


CHILD_N = 4_000_000  # 16 MB of float32: every scan in the child is threaded


def _checksums_from_pool(start_method, tasks, timeout):
    """_scan_checksums(CHILD_N, 2) from ``tasks`` jobs of a pool of 2 processes started by ``start_method``."""
    with multiprocessing.get_context(start_method).Pool(2) as pool:
        pending = [pool.apply_async(_scan_checksums, (CHILD_N, 2)) for _ in range(tasks)]
        return [p.get(timeout=timeout) for p in pending]


def _wake_the_pool():
    simdscan.set_num_threads(2)
    x = _payload(1_000_000)  # 4 MB: a threaded scan (a long line split over 2 threads)
    r = simdscan.cumsum(x)
    assert np.array_equal(r, np.cumsum(x))


@NEEDS_FORK
@pytest.mark.filterwarnings(FORK_WARNING)
def test_forked_pool_after_threaded_scan():
    _wake_the_pool()
    expected = _expected_checksums(CHILD_N, 2)
    for got in _checksums_from_pool("fork", tasks=4, timeout=60):
        assert got == expected
    # and the parent's pool still works
    assert _scan_checksums(CHILD_N, 2) == expected


@NEEDS_FORK
@pytest.mark.filterwarnings(FORK_WARNING)
def test_fork_while_another_thread_is_scanning():
    # The pool's mutexes may be held at the moment of fork(): the child must start a pool of its own.
    _wake_the_pool()
    expected = _expected_checksums(CHILD_N, 2)
    stop = threading.Event()
    errors = []
    scans = [0]
    x = _payload(2_000_000)
    want = np.cumsum(x)

    def keep_scanning():
        try:
            while not stop.is_set():
                if not np.array_equal(simdscan.cumsum(x), want):
                    raise AssertionError("wrong result in the parent's scanning thread")
                scans[0] += 1
        except BaseException as exc:  # reported by the test below
            errors.append(exc)

    scanner = threading.Thread(target=keep_scanning)
    scanner.start()
    ctx = multiprocessing.get_context("fork")
    try:
        for attempt in range(4):
            before = scans[0]
            # fork right after one of the scanner's scans completes: most likely during the next one
            while scans[0] == before and scanner.is_alive():
                time.sleep(0.001)
            parent_conn, child_conn = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_send_checksums, args=(child_conn, CHILD_N, 2))
            proc.start()
            child_conn.close()
            try:
                assert parent_conn.poll(60), f"forked child {attempt} did not answer within 60 s (hung?)"
                got = parent_conn.recv()
                proc.join(60)
                assert proc.exitcode == 0, f"forked child {attempt} exit code {proc.exitcode}"
            finally:
                if proc.is_alive():
                    proc.kill()
                    proc.join()
                parent_conn.close()
            assert got == expected
    finally:
        stop.set()
        scanner.join(60)
    assert not scanner.is_alive()
    assert not errors, errors
    assert scans[0] > 0


def test_spawned_pool():
    simdscan.set_num_threads(2)
    expected = _expected_checksums(CHILD_N, 2)
    for got in _checksums_from_pool("spawn", tasks=2, timeout=120):
        assert got == expected
