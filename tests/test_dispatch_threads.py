"""SIMD dispatch and threads: results that depend on neither, and the knobs that choose them.

* Thread-count independence, bit for bit, on every layout that the thread pool splits: one long line (its
  256 KiB chunks scanned in parallel, two passes), a few long lines (lines in parallel, or each line's chunks
  when there are more threads than lines), many medium lines, an outer (strided) scan axis (column tiles and
  outer blocks across threads) and a strided view (the buffered path).
* ``set_num_threads`` / ``get_num_threads`` and ``SIMDSCAN_NUM_THREADS`` (read at import, in subprocesses).
* ISA tiers: ``isa()`` / ``supported_isas()``, ``SIMDSCAN_ISA`` at import (in subprocesses), integer results
  bit-identical across tiers and float results within the rounding-error bound under every tier (in process,
  through the private ``simdscan._core.select_isa``).
* ``fork()`` after (and during) a threaded scan, and the ``spawn`` start method.
* The GIL is released while scanning; many Python threads scan at once while the thread count changes.
"""

import json
import multiprocessing
import os
import platform
import subprocess
import sys
import threading
import time
import zlib

import numpy as np
import pytest

import simdscan
from reference import check_scan, make_data, seed_of

pytestmark = pytest.mark.kernels  # the outcome depends on the ISA tier and the xsimd version: CI runs these per tier

TIERS = simdscan.supported_isas()
COMPILED = simdscan._core.compiled_isas()  # cmake/tiers.cmake's tiers, whether or not this CPU runs them
THREAD_COUNTS = (2, 3, 5, 8)  # more threads than this machine's cores is allowed
VARIANTS = ((False, False), (True, False), (False, True), (True, True))  # (decreasing, exclusive)
OPS = ("cumsum", "cumprod")

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


@pytest.fixture(autouse=True)
def restore_thread_count():
    """Every test here may change the thread count: put it back afterwards."""
    saved = simdscan.get_num_threads()
    yield saved
    simdscan.set_num_threads(saved)


@pytest.fixture
def restore_isa():
    """Tests that switch the kernel tier in process put the original one back."""
    saved = simdscan.isa()
    yield saved
    simdscan._core.select_isa(saved)
    assert simdscan.isa() == saved


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------
def scan_data(rng, shape, dtype, op):
    """Data that keeps long scans meaningful: small values for sums; for products, odd integers (units modulo
    2**bits, so a product never collapses to 0) and floats near 1 (1 + 1e-3 * uniform(-1, 1))."""
    dtype = np.dtype(dtype)
    if op == "cumsum":
        return make_data(rng, shape, dtype, "cumsum")
    if dtype.kind == "u":
        return rng.choice(np.array([1, 3, 5, 253, 255], dtype=np.uint64), size=shape).astype(dtype)
    if dtype.kind == "i":
        return rng.choice(np.array([-3, -1, 1, 3]), size=shape).astype(dtype)
    if dtype.kind == "c":
        return (1.0 + 1e-3 * rng.uniform(-1, 1, shape) + 1e-3j * rng.uniform(-1, 1, shape)).astype(dtype)
    return (1.0 + 1e-3 * rng.uniform(-1, 1, shape)).astype(dtype)


def assert_bit_identical(got, want, where):
    """Same dtype, shape, values (np.array_equal) and bytes (so -0.0 and +0.0, and NaN payloads, count)."""
    assert isinstance(got, np.ndarray), f"{where}: returned {type(got)!r}"
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype}, expected {want.dtype}"
    assert got.shape == want.shape, f"{where}: shape {got.shape}, expected {want.shape}"
    same_values = np.array_equal(got, want)
    same_bytes = got.tobytes() == want.tobytes()
    if same_values and same_bytes:
        return
    g = np.ascontiguousarray(got).reshape(-1).view(np.uint8).reshape(got.size, got.itemsize)
    w = np.ascontiguousarray(want).reshape(-1).view(np.uint8).reshape(want.size, want.itemsize)
    bad = np.nonzero((g != w).any(axis=1))[0]
    first = np.unravel_index(int(bad[0]), got.shape)
    raise AssertionError(
        f"{where}: not bit-identical (array_equal={same_values}); {bad.size} of {got.size} elements differ, "
        f"first at {tuple(int(i) for i in first)}: got {got[first]!r}, expected {want[first]!r}"
    )


def scan(op, a, axis, decreasing, exclusive):
    return getattr(simdscan, op)(
        a, axis=axis, direction="decreasing" if decreasing else "increasing", exclusive=exclusive
    )


def python_env(**changes):
    """os.environ with `changes` applied (None removes), importing the simdscan this process imported."""
    env = dict(os.environ)
    for key, value in changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(simdscan.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([package_root] + [p for p in [env.get("PYTHONPATH")] if p])
    return env


def run_python(code, **env_changes):
    return subprocess.run(
        [sys.executable, "-c", code],
        env=python_env(**env_changes),
        capture_output=True,
        text=True,
        timeout=120,
    )


def last_json_line(proc):
    assert proc.returncode == 0, f"subprocess failed ({proc.returncode}):\n{proc.stderr}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


# --------------------------------------------------------------------------
# 1. thread-count independence, bit for bit
# --------------------------------------------------------------------------
def _long_line(rng, dtype, op):  # several 256 KiB chunks and a partial tail chunk, one line
    return scan_data(rng, (2_000_003,), dtype, op), 0


def _few_long_lines(rng, dtype, op):  # 3 lines of several chunks: lines in parallel, or chunks when threads > 3
    return scan_data(rng, (3, 500_001), dtype, op), 1


def _many_lines(rng, dtype, op):  # many lines shorter than a chunk, split across threads
    return scan_data(rng, (2000, 700), dtype, op), 1


def _outer_wide(rng, dtype, op):  # strided scan axis, rows wider than one column tile: tiles across threads
    return scan_data(rng, (24, 80_000), dtype, op), 0


def _outer_blocks(rng, dtype, op):  # strided scan axis inside a 3-d array: outer blocks across threads
    return scan_data(rng, (4, 200, 2000), dtype, op), 1


def _strided(rng, dtype, op):  # x[::3] of a long array: the buffered (gather / scatter) path, chunked
    return scan_data(rng, (3 * 1_200_007,), dtype, op)[::3], 0


LAYOUTS = {
    "long_line": _long_line,
    "few_long_lines": _few_long_lines,
    "many_lines": _many_lines,
    "outer_wide": _outer_wide,
    "outer_blocks": _outer_blocks,
    "strided": _strided,
}
THREAD_DTYPES = ["float32", "float64", "int32", "uint8", "float16", "complex64"]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("dtype", THREAD_DTYPES)
def test_thread_count_does_not_change_a_bit(dtype, layout, op):
    rng = np.random.default_rng(seed_of("threads", dtype, layout, op))
    a, axis = LAYOUTS[layout](rng, dtype, op)
    assert a.nbytes > 1 << 20, "the array must be large enough to use the thread pool"
    # The oracle (slow on arrays this size) checks one variant per case, rotating over the parameter grid.
    checked = (THREAD_DTYPES.index(dtype) + list(LAYOUTS).index(layout) + OPS.index(op)) % len(VARIANTS)
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
                f"{op} {dtype} {layout} shape={a.shape} axis={axis} decreasing={decreasing} "
                f"exclusive={exclusive}: {threads} threads vs 1",
            )


# --------------------------------------------------------------------------
# 2. set_num_threads / get_num_threads / SIMDSCAN_NUM_THREADS
# --------------------------------------------------------------------------
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


# --------------------------------------------------------------------------
# 3. ISA tiers
# --------------------------------------------------------------------------
def test_active_isa_is_supported():
    assert isinstance(simdscan.isa(), str)
    assert simdscan.isa() in simdscan.supported_isas()
    tiers = simdscan.supported_isas()
    assert tiers and len(set(tiers)) == len(tiers)
    assert tiers == COMPILED[: len(tiers)]  # lowest first: the compiled tiers up to the best this CPU runs
    if platform.machine() in ("x86_64", "AMD64"):
        assert tiers[0] == "sse2"


def test_best_tier_is_chosen_by_default():
    code = "import json, simdscan\nprint(json.dumps([simdscan.isa(), simdscan.supported_isas()]))\n"
    active, tiers = last_json_line(run_python(code, SIMDSCAN_ISA=None))
    assert tiers == TIERS
    assert active == tiers[-1]


_TIER_CHECK = """
import json, numpy as np, simdscan
x = np.array([[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]], dtype=np.float32)
r = simdscan.cumsum(x, axis=1)
rng = np.random.default_rng(20240611)
data = {
    "f32 cumsum": rng.uniform(-3, 3, 1000).astype(np.float32),
    "f32 cumprod": (1 + 1e-3 * rng.uniform(-1, 1, 1000)).astype(np.float32),
    "i64 cumsum": rng.integers(-1000, 1000, 1000).astype(np.int64),
    "i64 cumprod": rng.choice(np.array([-3, -1, 1, 3]), 1000).astype(np.int64),
}
out = {"isa": simdscan.isa(), "directml": r.tolist(), "directml_dtype": str(r.dtype)}
for key, a in data.items():
    for decreasing in (False, True):
        got = getattr(simdscan, key.split()[1])(a, direction="decreasing" if decreasing else "increasing")
        out[f"{key} {decreasing}"] = [str(got.dtype), got.tobytes().hex()]
print(json.dumps(out))
"""


@pytest.mark.parametrize("tier", TIERS)
def test_forced_tier_in_subprocess(tier):
    out = last_json_line(run_python(_TIER_CHECK, SIMDSCAN_ISA=tier))
    assert out["isa"] == tier
    assert out["directml_dtype"] == "float32"
    assert out["directml"] == [[2, 3, 6, 11], [3, 11, 18, 21], [9, 15, 17, 21]]
    # the same data as the subprocess (random 1000 elements: float32 and int64, sums and products)
    rng = np.random.default_rng(20240611)
    data = {
        "f32 cumsum": rng.uniform(-3, 3, 1000).astype(np.float32),
        "f32 cumprod": (1 + 1e-3 * rng.uniform(-1, 1, 1000)).astype(np.float32),
        "i64 cumsum": rng.integers(-1000, 1000, 1000).astype(np.int64),
        "i64 cumprod": rng.choice(np.array([-3, -1, 1, 3]), 1000).astype(np.int64),
    }
    for key, a in data.items():
        for decreasing in (False, True):
            dt, hexdata = out[f"{key} {decreasing}"]
            got = np.frombuffer(bytes.fromhex(hexdata), dtype=np.dtype(dt))
            check_scan(got, key.split()[1], a, None, decreasing, False, msg=f"SIMDSCAN_ISA={tier}: {key} {decreasing}")


@pytest.mark.parametrize("value", ["bogus", *[t for t in COMPILED if t not in TIERS]])
def test_unknown_or_unsupported_tier_fails_import(value):
    proc = run_python("import simdscan", SIMDSCAN_ISA=value)
    assert proc.returncode > 0, f"import with SIMDSCAN_ISA={value!r} gave {proc.returncode}:\n{proc.stderr}"
    assert "ImportError" in proc.stderr, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert "SIMDSCAN_ISA" in last and value in last, last
    for tier in TIERS:
        assert tier in last, f"the message does not name the supported tier {tier!r}: {last}"


def _tier_layouts(rng, dtype, op):
    """Small arrays through every kernel path: long line (2+ chunks for 1-byte types), packed short rows,
    rows, outer axis, strided, byte-swapped."""
    dtype = np.dtype(dtype)
    long = scan_data(rng, (300_007,), dtype, op)
    out = [
        ("long", long, 0),
        ("rows8", scan_data(rng, (2000, 8), dtype, op), 1),
        ("rows37", scan_data(rng, (500, 37), dtype, op), 1),
        ("outer", scan_data(rng, (37, 500), dtype, op), 0),
        ("strided", long[::2], 0),
    ]
    if dtype.itemsize > 1:
        out.append(("byteswapped", long[:5000].astype(dtype.newbyteorder("S")), 0))
    return out


INT_TIER_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOAT_TIER_DTYPES = ["float16", "float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", INT_TIER_DTYPES)
def test_integer_results_identical_across_tiers(restore_isa, dtype, op):
    rng = np.random.default_rng(seed_of("tiers", dtype, op))
    for label, a, axis in _tier_layouts(rng, dtype, op):
        for decreasing, exclusive in VARIANTS:
            results = {}
            for tier in TIERS:
                simdscan._core.select_isa(tier)
                assert simdscan.isa() == tier
                results[tier] = scan(op, a, axis, decreasing, exclusive)
            first = TIERS[0]
            check_scan(results[first], op, a, axis, decreasing, exclusive)
            for tier in TIERS[1:]:
                assert_bit_identical(
                    results[tier],
                    results[first],
                    f"{op} {dtype} {label} decreasing={decreasing} exclusive={exclusive}: {tier} vs {first}",
                )


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", FLOAT_TIER_DTYPES)
def test_float_results_within_bound_under_every_tier(restore_isa, dtype, op):
    rng = np.random.default_rng(seed_of("tiers", dtype, op))
    for label, a, axis in _tier_layouts(rng, dtype, op):
        for decreasing, exclusive in VARIANTS:
            for tier in TIERS:
                simdscan._core.select_isa(tier)
                got = scan(op, a, axis, decreasing, exclusive)
                check_scan(
                    got,
                    op,
                    a,
                    axis,
                    decreasing,
                    exclusive,
                    msg=f"tier {tier}: {op} {dtype} {label} decreasing={decreasing} exclusive={exclusive}",
                )


def test_select_isa_rejects_unknown_tier(restore_isa):
    before = simdscan.isa()
    with pytest.raises(ValueError, match="bogus"):
        simdscan._core.select_isa("bogus")
    assert simdscan.isa() == before


# --------------------------------------------------------------------------
# 4. fork and spawn
# --------------------------------------------------------------------------
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
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(2) as pool:
        pending = [pool.apply_async(_scan_checksums, (CHILD_N, 2)) for _ in range(4)]
        results = [p.get(timeout=60) for p in pending]
    for got in results:
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
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        pending = [pool.apply_async(_scan_checksums, (CHILD_N, 2)) for _ in range(2)]
        results = [p.get(timeout=120) for p in pending]
    for got in results:
        assert got == expected


# --------------------------------------------------------------------------
# 5. the GIL is released while scanning
# --------------------------------------------------------------------------
def _gil_outer(n):
    return np.ones((n // 10_000, 10_000), dtype=np.float32), 0


def _gil_line(n):
    return np.ones(n, dtype=np.float32), 0


def _gil_strided(n):
    return np.ones(n, dtype=np.float32)[::2], 0


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("make", [_gil_line, _gil_outer, _gil_strided], ids=["line", "outer", "strided"])
def test_gil_is_released_while_scanning(make, op):
    simdscan.set_num_threads(1)
    a, axis = make(50_000_000)
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


# --------------------------------------------------------------------------
# 6. many Python threads at once, while the thread count changes
# --------------------------------------------------------------------------
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
