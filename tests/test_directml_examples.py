"""The examples of DirectML's reference pages, exactly as written.

DML_CUMULATIVE_SUMMATION_OPERATOR_DESC / DML_CUMULATIVE_PRODUCT_OPERATOR_DESC,
input sizes {1, 1, 3, 4} (see shared/reference/README.md).  DirectML's axis 3
is the last axis, axis 2 the one before it.
"""

import numpy as np
import pytest

import simdscan

pytestmark = pytest.mark.kernels  # the outcome depends on the ISA tier and the xsimd version: CI runs these per tier

INPUT = [[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]]

# DirectML's examples, (axis, direction, exclusive) -> the expected output, for each operator in that order
MODES = [(3, "increasing", False), (3, "increasing", True), (3, "decreasing", False), (2, "increasing", False)]
MODE_IDS = ["axis3", "axis3-exclusive", "axis3-decreasing", "axis2"]
SUMS = [
    [[2, 3, 6, 11], [3, 11, 18, 21], [9, 15, 17, 21]],
    [[0, 2, 3, 6], [0, 3, 11, 18], [0, 9, 15, 17]],
    [[11, 9, 8, 5], [21, 18, 10, 3], [21, 12, 6, 4]],
    [[2, 1, 3, 5], [5, 9, 10, 8], [14, 15, 12, 12]],
]
PRODUCTS = [
    [[2, 2, 6, 30], [3, 24, 168, 504], [9, 54, 108, 432]],
    [[1, 2, 2, 6], [1, 3, 24, 168], [1, 9, 54, 108]],
    [[30, 15, 15, 5], [504, 168, 21, 3], [432, 48, 8, 4]],
    [[2, 1, 3, 5], [6, 8, 21, 15], [54, 48, 42, 60]],
]
# (op, axis, direction, exclusive, expected), named "sum-axis3", "prod-axis3-exclusive", ...
EXAMPLES = [(op, *mode, values) for op, table in (("cumsum", SUMS), ("cumprod", PRODUCTS))
            for mode, values in zip(MODES, table)]
EXAMPLE_IDS = [f"{name}-{mode}" for name in ("sum", "prod") for mode in MODE_IDS]

DTYPES = ["float32", "float16", "float64", "int32", "uint32", "int64"]


def _input(dtype):
    return np.array(INPUT, dtype=dtype).reshape(1, 1, 3, 4)


def _expected(values, dtype):
    return np.array(values, dtype=dtype).reshape(1, 1, 3, 4)


def each_example(test):
    """Runs ``test(op, axis, direction, exclusive, values, dtype)`` on every example in every dtype."""
    test = pytest.mark.parametrize("op, axis, direction, exclusive, values", EXAMPLES, ids=EXAMPLE_IDS)(test)
    return pytest.mark.parametrize("dtype", DTYPES)(test)


def _assert_exact(got, want):
    assert type(got) is np.ndarray
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got, want, strict=True)


@each_example
def test_example(op, axis, direction, exclusive, values, dtype):
    a = _input(dtype)
    before = a.copy()
    got = getattr(simdscan, op)(a, axis, direction=direction, exclusive=exclusive)
    _assert_exact(got, _expected(values, dtype))
    assert not np.shares_memory(got, a)
    np.testing.assert_array_equal(a, before, strict=True)


@each_example
def test_example_negative_axis_and_enum(op, axis, direction, exclusive, values, dtype):
    """Same example with the axis counted from the end and the Direction enum."""
    a = _input(dtype)
    member = getattr(simdscan.Direction, direction.upper())
    got = getattr(simdscan, op)(a, axis=axis - 4, direction=member, exclusive=exclusive)
    _assert_exact(got, _expected(values, dtype))


@each_example
def test_example_in_place(op, axis, direction, exclusive, values, dtype):
    """DirectML allows the output to alias the input: out=a."""
    a = _input(dtype)
    got = getattr(simdscan, op)(a, axis, direction=direction, exclusive=exclusive, out=a)
    assert got is a
    _assert_exact(a, _expected(values, dtype))


@each_example
def test_example_separate_out(op, axis, direction, exclusive, values, dtype):
    a = _input(dtype)
    out = np.full_like(a, 77)
    got = getattr(simdscan, op)(a, axis, direction=direction, exclusive=exclusive, out=out)
    assert got is out
    _assert_exact(out, _expected(values, dtype))
    _assert_exact(a, _input(dtype))


def test_float32_is_the_documented_type():
    """The reference pages use FLOAT32; the dtype must be kept (no promotion)."""
    a = _input(np.float32)
    assert simdscan.cumsum(a, 3).dtype == np.float32
    assert simdscan.cumprod(a, 2).dtype == np.float32
