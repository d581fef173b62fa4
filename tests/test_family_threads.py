"""The scan family gives the same bits for every thread count, on arrays large enough that the pool splits them.

Thread-count identity follows from the chunking (parallel.hpp), which is the same on every ISA tier: these tests
carry no `kernels` marker and run once, on the best tier. Each case's single-thread result is also checked
against its reference, so the split paths are right, not only consistent.
"""

import numpy as np
import pytest

import simdscan
from data import scan_data, seed_of
from family_reference import (
    assert_same_bits,
    check_extremum,
    check_logcumsumexp,
    expected_nan_scan,
    extrema_data,
    extremum_indices_fast,
)
from ops import FAMILY, INDEXED
from reference import PATHS, check_values

THREADED = PATHS["threaded"]


def extremum_case(op, indices):
    def data(rng, shape, dtype):
        return extrema_data(rng, shape, dtype, nan=2e-6)

    def check(got, a, axis, dec, exc):
        values = got[0] if indices else got
        check_extremum(values, op, a, axis, dec, exc, f"{op} {a.dtype}")
        if indices:
            assert np.array_equal(got[1], extremum_indices_fast(op, a, axis, dec, exc)), f"{op} {a.dtype} indices"

    return op, {"return_indices": True} if indices else {}, data, check


def nan_case(op):
    def data(rng, shape, dtype):
        a = scan_data(rng, shape, dtype, op[3:])  # small values for sums, values near 1 for products
        a[rng.random(shape) < 0.1] = np.nan
        return a

    def check(got, a, axis, dec, exc):
        check_values(got, expected_nan_scan(op, a, axis, dec, exc), f"{op} {a.dtype}")

    return op, {}, data, check


def logcumsumexp_case():
    def data(rng, shape, dtype):
        a = rng.standard_normal(shape).astype(dtype)
        a[rng.random(shape) < 1e-3] = -np.inf
        return a

    def check(got, a, axis, dec, exc):
        check_logcumsumexp(got, a, axis, dec, exc, msg=f"logcumsumexp {a.dtype}")

    return "logcumsumexp", {}, data, check


CASES = [
    *((extremum_case(op, False), dtype) for op in ("cummax", "cummin") for dtype in ("float32", "int32", "float16")),
    *((extremum_case(op, True), dtype) for op in ("cummax", "cummin") for dtype in ("float32", "int32")),
    *((extremum_case(op, False), "float64") for op in ("nancummax", "nancummin")),
    *((nan_case(op), dtype) for op in ("nancumsum", "nancumprod") for dtype in ("float32", "float64")),
    *((logcumsumexp_case(), dtype) for dtype in ("float32", "float64")),
]
IDS = [f"{case[0]}{'-indices' if case[1] else ''}-{dtype}" for case, dtype in CASES]


@pytest.mark.usefixtures("restore_thread_count")
@pytest.mark.parametrize("path", THREADED, ids=[p.name for p in THREADED])
@pytest.mark.parametrize(("case", "dtype"), CASES, ids=IDS)
def test_thread_count_does_not_change_a_bit(case, dtype, path):
    op, options, data, check = case
    rng = np.random.default_rng(seed_of("family threads", op, dtype, path.name))
    a, axis = path.build(lambda shape: data(rng, shape, dtype))
    assert a.size > 1_000_000
    for dec, exc in ((False, False), (True, True)):
        direction = "decreasing" if dec else "increasing"
        simdscan.set_num_threads(1)
        single = getattr(simdscan, op)(a, axis, direction=direction, exclusive=exc, **options)
        check(single, a, axis, dec, exc)
        for threads in (2, 4):
            simdscan.set_num_threads(threads)
            got = getattr(simdscan, op)(a, axis, direction=direction, exclusive=exc, **options)
            for part, want in zip(got if options else (got,), single if options else (single,)):
                assert_same_bits(part, want, f"{op} {dtype} {path.name} {direction} exclusive={exc}: {threads} vs 1")


def test_every_scan_of_the_family_has_its_cases():
    """Each scan tests/ops.py lists beyond NumPy's names, and each with return_indices where it takes them, has a
    case above: a scan added there fails here until it has one."""
    covered = {(case[0], bool(case[1])) for case, _ in CASES}
    wanted = {(name, False) for name in FAMILY} | {(name, True) for name in INDEXED}
    assert wanted <= covered, sorted(wanted - covered)
