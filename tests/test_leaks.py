"""No leaks: many calls of assorted sizes, layouts, dtypes and error paths leave
the process's memory flat and every reference count where it was.

The RSS measurement runs in a fresh interpreter (a subprocess), so that nothing
the test runner does in between pollutes it; reference counts and the number
of objects the garbage collector tracks are measured in this process.
"""

from __future__ import annotations

import gc
import json
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from numpy.exceptions import AxisError

import simdscan

pytestmark = pytest.mark.slow

def _under_asan():
    try:
        with open("/proc/self/maps") as f:
            return "libasan" in f.read()
    except OSError:
        return False


def _asan_aborts_on_huge_malloc():
    """Under AddressSanitizer a malloc of terabytes aborts the process unless ASAN_OPTIONS has
    allocator_may_return_null=1 (then NumPy raises MemoryError)."""
    return _under_asan() and not re.search(
        r"allocator_may_return_null=(1|true)\b", os.environ.get("ASAN_OPTIONS", "")
    )


CALLS = 100_000
WARMUP = 5_000
RSS_LIMIT = 4 * 1024 * 1024  # bytes

# The workload, shared by the subprocess (RSS) and this process (refcounts).
# `make_calls(seed)` returns a callable that performs the i-th call of a
# deterministic, varied sequence and reports whether that call raised.
WORKLOAD = textwrap.dedent(
    r'''
    import operator
    import numpy as np
    from numpy.exceptions import AxisError
    from numpy.lib.stride_tricks import as_strided
    import simdscan

    class IndexRaises:
        def __index__(self):
            raise KeyError("index")

    class BoolRaises:
        def __bool__(self):
            raise KeyError("bool")

    EXPECTED_ERRORS = (AxisError, TypeError, ValueError, MemoryError, KeyError)

    def make_calls(seed=0, huge_ok=True):
        rng = np.random.default_rng(seed)
        sizes = [0, 1, 7, 1000, 100_000]
        dtypes = [np.float64, np.float32, np.float16, np.complex128, np.complex64,
                  np.int8, np.int32, np.int64, np.uint16, np.uint64, np.bool_]
        arrays = {}
        for n in sizes:
            for dt in dtypes:
                v = rng.integers(0, 3, size=n)
                arrays[n, np.dtype(dt).name] = v.astype(dt)
        outs = {key: np.empty(a.shape, simdscan.cumsum(a[:0]).dtype) for key, a in arrays.items()}
        small2d = rng.integers(0, 3, size=(17, 33)).astype(np.float64)
        big2d = rng.integers(0, 3, size=(300, 400)).astype(np.int32)  # 120k elements
        swapped = arrays[1000, "float64"].astype(">f8")
        strided = np.zeros(2000, np.float64)[::2]
        scratch = np.ones(1000, np.float64)
        scratch_big = np.ones(100_000, np.int64)
        overlap_out = as_strided(np.zeros(4, np.float64), shape=(7,), strides=(0,), writeable=True)
        # (preallocated: NumPy 2.4's np.zeros/np.empty without a dtype leak a reference
        # to the default dtype on every call, which the refcount test would blame on simdscan)
        long_out = np.zeros(8, np.float64)
        f32_out = np.zeros(7, np.float32)
        readonly_out = np.zeros(7, np.float64)
        readonly_out.flags.writeable = False
        huge = np.broadcast_to(np.zeros(1, np.float64), (2**40,))
        ragged = [[1.0, 2.0], [3.0]]
        obj = np.array([1, 2, 3], dtype=object)
        nested = [[1, 2, 3], [4, 5, 6]]
        f64_7 = arrays[7, "float64"]
        ops = (simdscan.cumsum, simdscan.cumprod)
        DEC = simdscan.Direction.DECREASING

        def size_of(r):
            # most calls small, some 1000, about 1 in 60 of 100k elements
            if r < 0.10:
                return 0
            if r < 0.30:
                return 1
            if r < 0.62:
                return 7
            if r < 0.983:
                return 1000
            return 100_000

        good = [
            lambda op, a, o: op(a),
            lambda op, a, o: op(a, 0, direction="decreasing"),
            lambda op, a, o: op(a, -1, exclusive=True),
            lambda op, a, o: op(a, direction=DEC, exclusive=True),
            lambda op, a, o: op(a, out=o),
            lambda op, a, o: op(a, 0, direction=DEC, out=o),
            lambda op, a, o: op(a, dtype=np.complex128),
            lambda op, a, o: op(a, dtype="complex64", direction="decreasing"),
            lambda op, a, o: op(a.tolist() if a.size <= 7 else a),
            lambda op, a, o: op(a[::-1], exclusive=True),
        ]
        special = [
            lambda op: op(small2d, 0),
            lambda op: op(small2d.T, 1, direction="decreasing"),
            lambda op: op(big2d, 0),  # outer path, threads
            lambda op: op(big2d, 1, exclusive=True),
            lambda op: op(swapped),
            lambda op: op(swapped, out=strided),
            lambda op: op(scratch, out=scratch),  # in place
            lambda op: op(scratch_big, out=scratch_big, direction=DEC),  # in place, threads
            lambda op: op(scratch[1:], out=scratch[:-1]),  # partial overlap: private copy
            lambda op: op(nested, 1),
            lambda op: op(7.5),
        ]
        bad = [
            lambda op: op(f64_7, 1),
            lambda op: op(f64_7, 2**70),
            lambda op: op(f64_7, 1.0),
            lambda op: op(f64_7, IndexRaises()),
            lambda op: op(f64_7, direction="up"),
            lambda op: op(f64_7, direction=b"increasing"),
            lambda op: op(f64_7, exclusive=BoolRaises()),
            lambda op: op(f64_7, dtype=object),
            lambda op: op(f64_7, dtype="float99"),
            lambda op: op(obj),
            lambda op: op(ragged),
            lambda op: op(None),
            lambda op: op(f64_7, out=[0.0] * 7),
            lambda op: op(f64_7, out=long_out),
            lambda op: op(f64_7, out=f32_out),
            lambda op: op(f64_7, out=readonly_out),
            lambda op: op(f64_7, out=overlap_out),
        ]
        if huge_ok:  # results of 2**40 elements: MemoryError
            bad += [lambda op: op(huge), lambda op: op(huge, dtype=np.float32)]
        keys = list(arrays)
        dtype_names = [np.dtype(d).name for d in dtypes]

        def one(i):
            r = rng.random()
            op = ops[i & 1]
            if r < 0.20:
                try:
                    bad[int(rng.integers(len(bad)))](op)
                except EXPECTED_ERRORS:
                    return True
                raise AssertionError("a bad call did not raise")
            if r < 0.30:
                special[int(rng.integers(len(special)))](op)
                return False
            n = size_of(rng.random())
            key = (n, dtype_names[int(rng.integers(len(dtype_names)))])
            good[int(rng.integers(len(good)))](op, arrays[key], outs[key])
            return False

        return one
    '''
)

CHILD = WORKLOAD + textwrap.dedent(
    r'''
    import gc, json, os, sys, time

    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    calls, warmup = int(sys.argv[1]), int(sys.argv[2])
    one = make_calls(1234)
    for i in range(warmup):
        one(i)
    gc.collect()
    before = rss()
    t0 = time.perf_counter()
    errors = 0
    for i in range(calls):
        errors += one(i)
    elapsed = time.perf_counter() - t0
    gc.collect()
    after = rss()
    print(json.dumps({"before": before, "after": after, "errors": errors, "seconds": elapsed}))
    '''
)


def test_rss_flat_over_100k_calls():
    if not os.path.exists("/proc/self/statm"):
        pytest.skip("needs /proc/self/statm (Linux)")
    env = dict(os.environ)
    # Under AddressSanitizer (CI's sanitizer stage), freed memory waits in a quarantine of up to
    # 256 MiB, which would read as growth, and a multi-TiB malloc aborts instead of failing.
    env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":quarantine_size_mb=0:allocator_may_return_null=1"
    proc = subprocess.run(
        [sys.executable, "-W", "error", "-c", CHILD, str(CALLS), str(WARMUP)],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert proc.returncode == 0, f"child failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    growth = res["after"] - res["before"]
    # about 20% of the calls take an error path
    assert 0.15 * CALLS < res["errors"] < 0.25 * CALLS, res
    assert growth < RSS_LIMIT, (
        f"RSS grew by {growth / 2**20:.2f} MiB over {CALLS} calls "
        f"({res['before'] / 2**20:.1f} -> {res['after'] / 2**20:.1f} MiB; {res['seconds']:.1f} s)"
    )


def _refcounts(objs):
    gc.collect()
    return [sys.getrefcount(o) for o in objs]


def test_reference_counts_unchanged():
    ns: dict = {}
    exec(compile(WORKLOAD, "<workload>", "exec"), ns)
    one = ns["make_calls"](99, huge_ok=not _asan_aborts_on_huge_malloc())
    for i in range(2_000):  # warm-up: lazy caches fill now, not during the measurement
        one(i)

    a = np.arange(1000, dtype=np.float64)
    out = np.empty(1000, dtype=np.float64)
    dt = np.dtype(np.float32)
    dec = simdscan.Direction.DECREASING
    big_axis = 10**30
    direction_str = "decreasing"
    objs = [a, out, dt, dec, simdscan.Direction, None, True, False, 0, 1, -1,
            big_axis, direction_str, AxisError, np.float64, np.dtype(np.float64)]
    names = ["a", "out", "dtype float32", "Direction.DECREASING", "Direction", "None", "True", "False",
             "0", "1", "-1", "10**30", "'decreasing'", "AxisError", "np.float64", "dtype float64"]

    def calls(k):
        for i in range(k):
            one(i)
            simdscan.cumsum(a, 0, direction=dec, exclusive=True, out=out)
            simdscan.cumprod(a, None, direction=direction_str, exclusive=False)
            simdscan.cumsum(a, dtype=dt)
            simdscan.cumprod(a[:7], -1, out=out[:7])
            for bad in (
                lambda: simdscan.cumsum(a, big_axis),
                lambda: simdscan.cumsum(a, 1, out=out),
                lambda: simdscan.cumprod(a, direction=dec, dtype=dt, out=out),
                lambda: simdscan.cumsum(a, out=out[:-1]),
                lambda: simdscan.cumprod(a, 0, direction=None),
            ):
                try:
                    bad()
                except (AxisError, TypeError, ValueError):
                    pass
                else:
                    raise AssertionError("a bad call did not raise")

    calls(200)
    before = _refcounts(objs)
    n_objects = len(gc.get_objects())
    calls(10_000)
    after = _refcounts(objs)
    n_objects_after = len(gc.get_objects())
    # None, True, False and small ints are shared by the whole interpreter, whose own caches move their counts by a
    # few; a reference leaked or dropped by a call would move them by at least one per round (10,000 rounds).
    shared = {"None", "True", "False", "0", "1", "-1"}
    changed = {
        n: (b, c)
        for n, b, c in zip(names, before, after)
        if (abs(c - b) >= 1_000 if n in shared else b != c)
    }
    assert not changed, f"reference counts changed (before, after): {changed}"
    assert n_objects_after - n_objects <= 50, (
        f"the garbage collector tracks {n_objects_after - n_objects} more objects "
        f"after 10000 rounds of calls ({n_objects} -> {n_objects_after})"
    )
