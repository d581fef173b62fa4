"""ISA tiers: ``isa()`` / ``supported_isas()``, ``SIMDSCAN_ISA`` at import (in subprocesses), integer results
bit-identical across tiers and float results within the rounding-error bound under every tier (in process, through
the private ``simdscan._core.select_isa``)."""

import platform

import numpy as np
import pytest

import simdscan
from compare import assert_bit_identical
from data import scan_data, seed_of
from params import VARIANTS, scan
from reference import OPS, PATHS, check_scan
from subprocesses import last_json_line, run_python

# the outcome depends on the xsimd version; each test visits every tier itself, so CI runs them under one per build
pytestmark = [pytest.mark.kernels, pytest.mark.all_tiers]

TIERS = simdscan.supported_isas()
COMPILED = simdscan._core.compiled_isas()  # cmake/tiers.cmake's tiers, whether or not this CPU runs them


@pytest.fixture
def restore_isa():
    """Tests that switch the kernel tier in process put the original one back."""
    saved = simdscan.isa()
    yield saved
    simdscan._core.select_isa(saved)
    assert simdscan.isa() == saved


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


# random 1000 elements, float32 and int64, sums and products: built alike in the subprocess and in the test
_TIER_DATA = """
rng = np.random.default_rng(20240611)
data = {
    "f32 cumsum": rng.uniform(-3, 3, 1000).astype(np.float32),
    "f32 cumprod": (1 + 1e-3 * rng.uniform(-1, 1, 1000)).astype(np.float32),
    "i64 cumsum": rng.integers(-1000, 1000, 1000).astype(np.int64),
    "i64 cumprod": rng.choice(np.array([-3, -1, 1, 3]), 1000).astype(np.int64),
}
"""
_TIER_CHECK = "import json, numpy as np, simdscan\n" + _TIER_DATA + """
x = np.array([[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]], dtype=np.float32)
r = simdscan.cumsum(x, axis=1)
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
    namespace = {"np": np}
    exec(_TIER_DATA, namespace)  # the same data as the subprocess
    data = namespace["data"]
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


def _results_per_tier(dtype, op):
    """Each of reference.py's "kernels" paths (with data of its own; byte-swapped only where the dtype has a byte
    order) in each of the VARIANTS: (where, array, axis, decreasing, exclusive, {tier: result})."""
    rng = np.random.default_rng(seed_of("tiers", dtype, op))
    for path in PATHS["kernels"]:
        if path.layout == "byteswapped" and np.dtype(dtype).itemsize == 1:
            continue
        a, axis = path.build(lambda shape: scan_data(rng, shape, dtype, op))
        for decreasing, exclusive in VARIANTS:
            results = {}
            for tier in TIERS:
                simdscan._core.select_isa(tier)
                assert simdscan.isa() == tier
                results[tier] = scan(op, a, axis, decreasing, exclusive)
            where = f"{op} {dtype} {path.name} decreasing={decreasing} exclusive={exclusive}"
            yield where, a, axis, decreasing, exclusive, results


INT_TIER_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOAT_TIER_DTYPES = ["float16", "float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", INT_TIER_DTYPES)
def test_integer_results_identical_across_tiers(restore_isa, dtype, op):
    for where, a, axis, decreasing, exclusive, results in _results_per_tier(dtype, op):
        first = TIERS[0]
        check_scan(results[first], op, a, axis, decreasing, exclusive)
        for tier in TIERS[1:]:
            assert_bit_identical(results[tier], results[first], f"{where}: {tier} vs {first}")


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", FLOAT_TIER_DTYPES)
def test_float_results_within_bound_under_every_tier(restore_isa, dtype, op):
    for where, a, axis, decreasing, exclusive, results in _results_per_tier(dtype, op):
        for tier, got in results.items():
            check_scan(got, op, a, axis, decreasing, exclusive, msg=f"tier {tier}: {where}")


def test_select_isa_rejects_unknown_tier(restore_isa):
    before = simdscan.isa()
    with pytest.raises(ValueError, match="bogus"):
        simdscan._core.select_isa("bogus")
    assert simdscan.isa() == before


@pytest.fixture
def restore_row_walk():
    """Tests that force the falling row walk put the CPU's choice back."""
    saved = simdscan._core.falling_row_walk()
    yield saved
    simdscan._core.select_falling_row_walk(saved)


def amd_cpu():
    """Whether /proc/cpuinfo names an AMD CPU (the vendor the core's per-CPU choices test); skips without it."""
    try:
        with open("/proc/cpuinfo") as info:
            return any(line.startswith("vendor_id") and "AuthenticAMD" in line for line in info)
    except OSError:
        pytest.skip("no /proc/cpuinfo to read the CPU's vendor from")


def test_falling_row_walk_is_chosen_for_the_cpu():
    is_amd = amd_cpu()
    code = "import json, simdscan; print(json.dumps(simdscan._core.falling_row_walk()))"
    assert last_json_line(run_python(code, SIMDSCAN_ROW_WALK=None)) == ("down" if is_amd else "up")


@pytest.mark.parametrize("walk", ["down", "up"])
def test_forced_row_walk_in_subprocess(walk):
    code = "import json, simdscan; print(json.dumps(simdscan._core.falling_row_walk()))"
    assert last_json_line(run_python(code, SIMDSCAN_ROW_WALK=walk)) == walk


def test_unknown_row_walk_fails_import_and_selection(restore_row_walk):
    proc = run_python("import simdscan", SIMDSCAN_ROW_WALK="sideways")
    assert proc.returncode > 0 and "ImportError" in proc.stderr, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert "SIMDSCAN_ROW_WALK" in last and "sideways" in last and "down up" in last, last
    with pytest.raises(ValueError, match="sideways"):
        simdscan._core.select_falling_row_walk("sideways")
    assert simdscan._core.falling_row_walk() == restore_row_walk


@pytest.mark.parametrize("walk", ["down", "up"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int16"])
def test_decreasing_outer_scans_match_numpy_either_walk(restore_row_walk, walk, dtype):
    # Rows walked from either end: NumPy's order and bits, on the combined, in-place and compensated (carried) paths.
    simdscan._core.select_falling_row_walk(walk)
    rng = np.random.default_rng(11)
    a = (rng.standard_normal((57, 1003)) * 100).astype(dtype)
    expected = np.flip(np.cumsum(np.flip(a, 0), axis=0, dtype=dtype), 0)
    assert simdscan.cumsum(a, axis=0, direction="decreasing").tobytes() == expected.tobytes()
    shifted = np.concatenate([expected[1:], np.zeros_like(a[:1])])
    assert simdscan.cumsum(a, axis=0, direction="decreasing", exclusive=True).tobytes() == shifted.tobytes()
    in_place = a.copy()
    simdscan.cumsum(in_place, axis=0, direction="decreasing", exclusive=True, out=in_place)
    assert in_place.tobytes() == shifted.tobytes()
    if dtype != "int16":
        compensated = simdscan.cumsum(a, axis=0, direction="decreasing", compensated=True)
        simdscan._core.select_falling_row_walk("up" if walk == "down" else "down")
        other_walk = simdscan.cumsum(a, axis=0, direction="decreasing", compensated=True)
        assert compensated.tobytes() == other_walk.tobytes()


def level3_cache_bytes():
    """The level-3 cache of CPU 0 as Linux describes it (from the same CPUID leaf on AMD), or None."""
    import glob

    for entry in glob.glob("/sys/devices/system/cpu/cpu0/cache/index*"):
        try:
            with open(f"{entry}/level") as level, open(f"{entry}/size") as size:
                if level.read().strip() == "3":
                    text = size.read().strip()
                    return int(text[:-1]) * {"K": 1 << 10, "M": 1 << 20}[text[-1]]
        except (OSError, ValueError, KeyError):
            return None
    return None


def test_streaming_threshold_is_chosen_for_the_cpu():
    is_amd = amd_cpu()
    code = "import json, simdscan; print(json.dumps(simdscan._core.streaming_threshold()))"
    chosen = last_json_line(run_python(code, SIMDSCAN_STREAMING_THRESHOLD=None))
    if not is_amd:
        assert chosen == (16 << 20 if platform.machine().lower() in ("x86_64", "amd64") else 8 << 20)
    elif level3_cache_bytes() is None:
        pytest.skip("no level-3 cache size in /sys to compare the AMD choice with")
    else:
        assert chosen == level3_cache_bytes() // 4 * 3


def test_forced_streaming_threshold_in_subprocess():
    code = "import json, simdscan; print(json.dumps(simdscan._core.streaming_threshold()))"
    assert last_json_line(run_python(code, SIMDSCAN_STREAMING_THRESHOLD="12345")) == 12345


@pytest.mark.parametrize("value", ["-1", "lots"])
def test_bad_streaming_threshold_fails_import(value):
    proc = run_python("import simdscan", SIMDSCAN_STREAMING_THRESHOLD=value)
    assert proc.returncode > 0 and "ImportError" in proc.stderr, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert "SIMDSCAN_STREAMING_THRESHOLD" in last and value in last, last


@pytest.fixture
def restore_streaming_threshold():
    """Tests that force the streaming threshold put the tests' one back."""
    saved = simdscan._core.streaming_threshold()
    yield saved
    simdscan._core.select_streaming_threshold(saved)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8"])
def test_streaming_threshold_changes_no_bit(restore_streaming_threshold, dtype):
    # Every output streamed (threshold 0) or none: the same bits, and NumPy's values, on a line, rows, an outer axis,
    # a widened input and a summed-area table, each into an out that starts 3 elements past a vector boundary.
    rng = np.random.default_rng(seed_of("streaming threshold", dtype))
    a = scan_data(rng, (37, 1029), dtype, "cumsum")
    wide = np.float64
    calls = {  # name: (the call into out, out's dtype, NumPy's result)
        "line": (lambda out: simdscan.cumsum(a.ravel(), out=out.ravel()), a.dtype,
                 np.cumsum(a.ravel(), dtype=a.dtype)),
        "rows": (lambda out: simdscan.cumsum(a, axis=1, out=out), a.dtype, np.cumsum(a, axis=1, dtype=a.dtype)),
        "outer": (lambda out: simdscan.cumsum(a, axis=0, out=out), a.dtype, np.cumsum(a, axis=0, dtype=a.dtype)),
        "widened": (lambda out: simdscan.cumsum(a, axis=1, dtype=wide, out=out), wide,
                    np.cumsum(a, axis=1, dtype=wide)),
        "table": (lambda out: simdscan.cumsum(a, axis=(0, 1), dtype=wide, out=out), wide,
                  np.cumsum(np.cumsum(a, axis=0, dtype=wide), axis=1)),
    }
    for name, (call, out_dtype, expected) in calls.items():
        results = []
        for threshold in (0, 1 << 62):
            simdscan._core.select_streaming_threshold(threshold)
            buffer = np.full(a.size + 3, 7, dtype=out_dtype)
            out = buffer[3:].reshape(a.shape)
            assert np.shares_memory(call(out), out), name
            assert (buffer[:3] == 7).all(), f"{name}: wrote before out"
            np.testing.assert_allclose(out.ravel(), expected.ravel(), rtol=1e-5, atol=1e-3, err_msg=name)
            results.append(out)
        assert_bit_identical(results[0], results[1], f"{name}: streamed against cached")
