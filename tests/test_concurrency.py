"""Scans alongside Python threads: the GIL is released while scanning, concurrent calls on shared and private
arrays give the reference's results, and many Python threads scan at once while the thread count changes."""

import concurrent.futures
import sys
import threading
import time

import numpy as np
import pytest

import simdscan
from compare import assert_bit_identical
from data import make_data, scan_data, seed_of
from reference import OPS, PATHS, check_scan, expected

# the outcome depends on the ISA tier and the xsimd version: CI runs these per tier
pytestmark = [pytest.mark.kernels, pytest.mark.threads, pytest.mark.usefixtures("restore_thread_count")]

SECONDS_LONG_PATHS = PATHS["seconds-long"]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("path", SECONDS_LONG_PATHS, ids=[path.name for path in SECONDS_LONG_PATHS])
def test_gil_is_released_while_scanning(path, op):
    simdscan.set_num_threads(1)
    a, axis = path.build(lambda shape: np.ones(shape, dtype=np.float32))
    counter = [0]
    started = threading.Event()
    stop = threading.Event()

    def count():
        # Bursts of increments, then a short sleep that hands the GIL back voluntarily (with the huge switch
        # interval below, nothing else would).
        while not stop.is_set():
            for _ in range(100):
                counter[0] += 1
            started.set()
            time.sleep(0.0001)

    # With a huge switch interval the interpreter never forces a GIL hand-over: the counting thread can run
    # between the two reads below only while the scan itself has released the GIL. A scan that held it would
    # leave the counter exactly unchanged.
    old_interval = sys.getswitchinterval()
    counter_thread = threading.Thread(target=count)
    sys.setswitchinterval(1000.0)
    try:
        counter_thread.start()
        assert started.wait(60)
        before = counter[0]
        getattr(simdscan, op)(a, axis=axis)
        after = counter[0]
    finally:
        stop.set()
        counter_thread.join(60)
        sys.setswitchinterval(old_interval)
    assert not counter_thread.is_alive()
    assert after - before >= 1000, f"the other thread made {after - before} increments during the scan"


@pytest.mark.slow
def test_concurrent_scans_while_thread_count_changes():
    rng = np.random.default_rng(seed_of("concurrency"))
    shared = make_data(rng, (1_000_003,), np.float32, "cumsum")  # 4 MB, one long line
    shared.flags.writeable = False
    shared_prod = scan_data(rng, (1_000_003,), np.float32, "cumprod")
    shared_prod.flags.writeable = False

    def jobs(private):
        return [
            ("shared cumsum", lambda: simdscan.cumsum(shared)),
            ("shared cumprod decreasing", lambda: simdscan.cumprod(shared_prod, direction="decreasing")),
            ("private cumsum axis 0", lambda: simdscan.cumsum(private, axis=0, exclusive=True)),
            ("private cumprod axis 1", lambda: simdscan.cumprod(private, axis=1, direction="decreasing")),
        ]

    n_workers = 16
    simdscan.set_num_threads(1)
    privates = [scan_data(rng, (300, 2000), np.float64, "cumprod") for _ in range(n_workers)]
    expected = [[(name, job()) for name, job in jobs(p)] for p in privates]
    check_scan(expected[0][0][1], "cumsum", shared)
    check_scan(expected[0][1][1], "cumprod", shared_prod, None, True, False)
    check_scan(expected[0][2][1], "cumsum", privates[0], 0, False, True)
    check_scan(expected[0][3][1], "cumprod", privates[0], 1, True, False)

    simdscan.set_num_threads(2)
    barrier = threading.Barrier(n_workers + 1)
    done = threading.Event()
    errors = []
    switches = [0]

    def worker(k):
        try:
            barrier.wait(60)
            for it in range(30):
                for (name, job), (_, want) in zip(jobs(privates[k]), expected[k]):
                    assert_bit_identical(job(), want, f"thread {k} iteration {it}: {name}")
        except BaseException as exc:  # reported below
            errors.append(exc)

    def changer():
        try:
            barrier.wait(60)
            while not done.is_set():
                simdscan.set_num_threads(1 + 2 * (switches[0] % 2))  # 1, 3, 1, 3, ...
                switches[0] += 1
                time.sleep(0.0005)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(n_workers)]
    switcher = threading.Thread(target=changer)
    for t in threads:
        t.start()
    switcher.start()
    try:
        for t in threads:
            t.join(300)
    finally:
        done.set()
        switcher.join(60)
    assert not any(t.is_alive() for t in threads + [switcher]), "a thread did not finish (deadlock?)"
    if errors:
        raise errors[0]
    assert switches[0] > 1
    assert simdscan.get_num_threads() in (1, 3)


def test_concurrent_calls_from_threads():
    n = 100_000
    shared = (np.arange(n, dtype=np.int64) * 7919) % 13 - 6
    shared.flags.writeable = False
    shared_f = shared.astype(np.float64)  # small integers: float sums are exact
    shared_f.flags.writeable = False
    refs = {
        (dec, exc): expected("cumsum", shared, None, dec, exc).value
        for dec in (False, True) for exc in (False, True)
    }

    def work(k):
        rng = np.random.default_rng(k)
        private = rng.integers(-5, 6, size=n).astype(np.int32)
        private_ref = np.cumsum(private, dtype=np.int32)
        buf = np.empty(n, np.int32)
        for i in range(50):
            dec, exc = bool(i % 2), bool((i // 2) % 2)
            direction = "decreasing" if dec else "increasing"
            r = simdscan.cumsum(shared, direction=direction, exclusive=exc)
            if not np.array_equal(r, refs[(dec, exc)]):
                return f"thread {k} call {i}: shared int64 result wrong"
            rf = simdscan.cumsum(shared_f, direction=direction, exclusive=exc)
            if not np.array_equal(rf, refs[(dec, exc)].astype(np.float64)):
                return f"thread {k} call {i}: shared float64 result wrong"
            simdscan.cumsum(private, out=buf)
            if not np.array_equal(buf, private_ref):
                return f"thread {k} call {i}: private out= result wrong"
            p = private.copy()
            simdscan.cumsum(p, out=p)
            if not np.array_equal(p, private_ref):
                return f"thread {k} call {i}: private in-place result wrong"
            q = simdscan.cumprod(np.abs(private[:64]) % 2 + 1, exclusive=exc)
            if not np.array_equal(q, expected("cumprod", np.abs(private[:64]) % 2 + 1, None, False, exc).value):
                return f"thread {k} call {i}: cumprod result wrong"
        return None

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(work, range(8)))
    assert results == [None] * 8, [r for r in results if r]
    assert np.array_equal(shared, (np.arange(n, dtype=np.int64) * 7919) % 13 - 6)
