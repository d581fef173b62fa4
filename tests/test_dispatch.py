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


def test_falling_row_walk_is_chosen_for_the_cpu():
    try:
        with open("/proc/cpuinfo") as info:
            is_amd = any(line.startswith("vendor_id") and "AuthenticAMD" in line for line in info)
    except OSError:
        pytest.skip("no /proc/cpuinfo to read the CPU's vendor from")
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
