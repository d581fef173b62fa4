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

# (id, op, axis, direction, exclusive, expected)
EXAMPLES = [
    ("sum-axis3", "cumsum", 3, "increasing", False,
     [[2, 3, 6, 11], [3, 11, 18, 21], [9, 15, 17, 21]]),
    ("sum-axis3-exclusive", "cumsum", 3, "increasing", True,
     [[0, 2, 3, 6], [0, 3, 11, 18], [0, 9, 15, 17]]),
    ("sum-axis3-decreasing", "cumsum", 3, "decreasing", False,
     [[11, 9, 8, 5], [21, 18, 10, 3], [21, 12, 6, 4]]),
    ("sum-axis2", "cumsum", 2, "increasing", False,
     [[2, 1, 3, 5], [5, 9, 10, 8], [14, 15, 12, 12]]),
    ("prod-axis3", "cumprod", 3, "increasing", False,
     [[2, 2, 6, 30], [3, 24, 168, 504], [9, 54, 108, 432]]),
    ("prod-axis3-exclusive", "cumprod", 3, "increasing", True,
     [[1, 2, 2, 6], [1, 3, 24, 168], [1, 9, 54, 108]]),
    ("prod-axis3-decreasing", "cumprod", 3, "decreasing", False,
     [[30, 15, 15, 5], [504, 168, 21, 3], [432, 48, 8, 4]]),
    ("prod-axis2", "cumprod", 2, "increasing", False,
     [[2, 1, 3, 5], [6, 8, 21, 15], [54, 48, 42, 60]]),
]

DTYPES = ["float32", "float16", "float64", "int32", "uint32", "int64"]


def _input(dtype):
    return np.array(INPUT, dtype=dtype).reshape(1, 1, 3, 4)


def _expected(values, dtype):
    return np.array(values, dtype=dtype).reshape(1, 1, 3, 4)


def _assert_exact(got, want):
    assert type(got) is np.ndarray
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got, want, strict=True)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "name, op, axis, direction, exclusive, values", EXAMPLES, ids=[e[0] for e in EXAMPLES]
)
def test_example(name, op, axis, direction, exclusive, values, dtype):
    a = _input(dtype)
    before = a.copy()
    got = getattr(simdscan, op)(a, axis, direction=direction, exclusive=exclusive)
    _assert_exact(got, _expected(values, dtype))
    assert not np.shares_memory(got, a)
    np.testing.assert_array_equal(a, before, strict=True)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "name, op, axis, direction, exclusive, values", EXAMPLES, ids=[e[0] for e in EXAMPLES]
)
def test_example_negative_axis_and_enum(name, op, axis, direction, exclusive, values, dtype):
    """Same example with the axis counted from the end and the Direction enum."""
    a = _input(dtype)
    member = getattr(simdscan.Direction, direction.upper())
    got = getattr(simdscan, op)(a, axis=axis - 4, direction=member, exclusive=exclusive)
    _assert_exact(got, _expected(values, dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "name, op, axis, direction, exclusive, values", EXAMPLES, ids=[e[0] for e in EXAMPLES]
)
def test_example_in_place(name, op, axis, direction, exclusive, values, dtype):
    """DirectML allows the output to alias the input: out=a."""
    a = _input(dtype)
    got = getattr(simdscan, op)(a, axis, direction=direction, exclusive=exclusive, out=a)
    assert got is a
    _assert_exact(a, _expected(values, dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "name, op, axis, direction, exclusive, values", EXAMPLES, ids=[e[0] for e in EXAMPLES]
)
def test_example_separate_out(name, op, axis, direction, exclusive, values, dtype):
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
