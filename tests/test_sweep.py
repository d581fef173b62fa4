"""The big sweep: every dtype x shape x axis x direction x exclusive x layout,
for cumsum and cumprod, checked against the NumPy-only oracle (reference.py).

To keep the number of pytest items manageable, op x dtype x shape x layout are
pytest parameters and axis x direction x exclusive are looped inside one test;
every failing combination is collected and reported by name.
"""

import numpy as np
import pytest

import simdscan
from data import make_data, seed_of
from reference import (
    LAYOUTS,
    OPS,
    SUPPORTED_DTYPES,
    apply_layout,
    assert_unchanged,
    check_scan,
    snapshot,
)
from params import DIRECTIONS, all_axes

pytestmark = pytest.mark.kernels  # the outcome depends on the ISA tier and the xsimd version: CI runs these per tier


SHAPES = [(0,), (1,), (5,), (2, 5), (2, 2, 5), (3, 1, 4, 2), (0, 3)]
LARGE_SHAPES = [(1000,), (37, 129), (129, 37), (3, 1000, 5)]
DTYPE_IDS = [d.name for d in SUPPORTED_DTYPES]


def run_combinations(op, a, axes, label, failures, directions=DIRECTIONS, exclusives=(False, True)):
    func = getattr(simdscan, op)
    snap = snapshot(a)
    for axis in axes:
        for direction, decreasing in directions:
            for exclusive in exclusives:
                where = f"{label} axis={axis!r} direction={direction!r} exclusive={exclusive}"
                try:
                    got = func(a, axis=axis, direction=direction, exclusive=exclusive)
                    check_scan(got, op, a, axis, decreasing, exclusive, msg="")
                    assert not np.shares_memory(got, a), "result shares memory with the input"
                    assert_unchanged(a, snap)
                except Exception as exc:  # collect every failing combination
                    failures.append(f"{where}: {type(exc).__name__}: {exc}")


def report(failures):
    if failures:
        shown = "\n\n".join(failures[:12])
        more = f"\n\n... and {len(failures) - 12} more" if len(failures) > 12 else ""
        pytest.fail(f"{len(failures)} failing combination(s):\n\n{shown}{more}", pytrace=False)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", SHAPES, ids=[str(s) for s in SHAPES])
@pytest.mark.parametrize("dtype", SUPPORTED_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("op", OPS)
def test_sweep(op, dtype, shape, layout):
    rng = np.random.default_rng(seed_of(op, dtype.name, shape, layout))
    base = make_data(rng, shape, dtype, op)
    a = apply_layout(base, layout)
    assert a.shape == shape
    if layout == "readonly":
        assert not a.flags.writeable
    if layout == "byteswapped" and dtype.itemsize > 1:
        assert not a.dtype.isnative
    failures = []
    run_combinations(op, a, all_axes(len(shape)), f"{op} {dtype} {shape} {layout}", failures)
    report(failures)


LARGE_LAYOUTS = ["C", "reversed", "stepped", "transposed"]


@pytest.mark.parametrize("shape", LARGE_SHAPES, ids=[str(s) for s in LARGE_SHAPES])
@pytest.mark.parametrize("dtype", SUPPORTED_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("op", OPS)
def test_large_shapes(op, dtype, shape):
    """Long lines and many lines: SIMD bodies, tails and outer loops."""
    rng = np.random.default_rng(seed_of("large", op, dtype.name, shape))
    # products: magnitudes scaled for the longest line, the flattened array
    base = make_data(rng, shape, dtype, op, line=int(np.prod(shape)))
    failures = []
    for layout in LARGE_LAYOUTS:
        a = apply_layout(base, layout)
        run_combinations(op, a, all_axes(len(shape)), f"{op} {dtype} {shape} {layout}", failures)
    report(failures)


@pytest.mark.parametrize("dtype", SUPPORTED_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("op", OPS)
def test_lengths_around_vector_widths(op, dtype):
    """1-D lengths 1..70: every remainder modulo the vector widths of every
    dtype (up to 64 int8 lanes in AVX-512), contiguous and strided."""
    failures = []
    for n in range(1, 71):
        rng = np.random.default_rng(seed_of("len", op, dtype.name, n))
        base = make_data(rng, (n,), dtype, op)
        axis = (0, -1, None)[n % 3]
        for layout in ("C", "reversed", "stepped"):
            a = apply_layout(base, layout)
            run_combinations(op, a, [axis], f"{op} {dtype} n={n} {layout}", failures)
    report(failures)


@pytest.mark.parametrize("dtype", SUPPORTED_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("op", OPS)
def test_lengths_across_lines(op, dtype):
    """2-D arrays scanned along axis 0 and 1 with the other side 1..70:
    vectorising across lines (axis 0) needs tails too."""
    failures = []
    for n in range(1, 71, 3):
        rng = np.random.default_rng(seed_of("across", op, dtype.name, n))
        base = make_data(rng, (7, n), dtype, op)
        for layout in ("C", "fortran"):
            a = apply_layout(base, layout)
            run_combinations(
                op, a, [0, 1], f"{op} {dtype} (7, {n}) {layout}", failures,
                directions=DIRECTIONS[:2],
            )
    report(failures)
