"""cummax / cummin with ``return_indices=True``: ``(values, indices)``, indices np.intp of the values' shape, the
position along the axis of the element that supplied each value: among equal values the latest in scan order
(as torch.cummax), from the first NaN on that NaN's position, -1 where the exclusive identity stands. Checked
against reference.py's loop over the line (``extremum_indices``) and, on long lines, its loop-free twin."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import simdscan
from data import seed_of
from params import all_axes, scan
from family_reference import (
    EXTREMA_DTYPES,
    EXTREMA_OPS,
    VARIANTS,
    assert_same_bits,
    check_extremum_pair,
    extrema_data,
    extremum_indices,
    extremum_indices_fast,
)

pytestmark = pytest.mark.kernels  # the outcome depends on the ISA tier and the xsimd version: CI runs these per tier

DT_IDS = [d.name for d in EXTREMA_DTYPES]


def call(op, a, *variant, **kw):
    return scan(op, a, *variant, return_indices=True, **kw)


# --------------------------------------------------------------------------
# by hand
# --------------------------------------------------------------------------
def test_torch_example_latest_among_equal():
    x = np.array([1, 3, 2, 3, 0, 3], dtype=np.float32)
    v, i = simdscan.cummax(x, return_indices=True)
    np.testing.assert_array_equal(v, [1, 3, 3, 3, 3, 3])
    np.testing.assert_array_equal(i, [0, 1, 1, 3, 3, 5])
    v, i = simdscan.cummin(x, return_indices=True)
    np.testing.assert_array_equal(v, [1, 1, 1, 1, 0, 0])
    np.testing.assert_array_equal(i, [0, 0, 0, 0, 4, 4])
    # decreasing: the latest in scan order is the lowest index
    v, i = simdscan.cummax(x, direction="decreasing", return_indices=True)
    np.testing.assert_array_equal(v, [3, 3, 3, 3, 3, 3])
    np.testing.assert_array_equal(i, [1, 1, 3, 3, 5, 5])
    v, i = simdscan.cummax(x, direction="decreasing", exclusive=True, return_indices=True)
    np.testing.assert_array_equal(v, [3, 3, 3, 3, 3, -np.inf])
    np.testing.assert_array_equal(i, [1, 3, 3, 5, 5, -1])


def test_constant_line_points_at_each_element():
    for dtype in ("int8", "uint64", "float16", "float64", "bool"):
        x = np.ones(100, dtype=dtype)
        for op in EXTREMA_OPS:
            _, i = getattr(simdscan, op)(x, return_indices=True)
            np.testing.assert_array_equal(i, np.arange(100))
            _, i = getattr(simdscan, op)(x, direction="decreasing", exclusive=True, return_indices=True)
            np.testing.assert_array_equal(i, np.append(np.arange(1, 100), -1))


def test_first_nan_position():
    nan = np.nan
    x = np.array([1.0, nan, 5.0, nan, 9.0])
    for op in EXTREMA_OPS:
        v, i = getattr(simdscan, op)(x, return_indices=True)
        np.testing.assert_array_equal(v, [1, nan, nan, nan, nan])
        np.testing.assert_array_equal(i, [0, 1, 1, 1, 1])
        v, i = getattr(simdscan, op)(x, direction="decreasing", return_indices=True)
        np.testing.assert_array_equal(v, [nan, nan, nan, nan, 9])
        np.testing.assert_array_equal(i, [3, 3, 3, 3, 4])
        v, i = getattr(simdscan, op)(x, exclusive=True, return_indices=True)
        np.testing.assert_array_equal(i, [-1, 0, 1, 1, 1])


def test_signed_zeros_are_equal():
    """-0.0 and +0.0 compare equal: the latest of them in scan order supplies the maximum / minimum."""
    x = np.array([-0.0, 0.0, -0.0, -1.0, 0.0, -0.0], dtype=np.float32)
    for op in EXTREMA_OPS:
        v, i = getattr(simdscan, op)(x, return_indices=True)
        want = [0, 1, 2, 2, 4, 5] if op == "cummax" else [0, 1, 2, 3, 3, 3]
        np.testing.assert_array_equal(i, want, err_msg=op)
        np.testing.assert_array_equal(v, x[np.array(want)], err_msg=op)


@pytest.mark.parametrize("dtype", [d for d in EXTREMA_DTYPES if d.kind in "iu"], ids=lambda d: d.name)
def test_integer_limits_and_identity(dtype):
    """A value equal to the exclusive identity still has its own index; only the identity gets -1."""
    info = np.iinfo(dtype)
    x = np.array([info.min, info.min, info.max, info.max, info.min], dtype=dtype)
    v, i = simdscan.cummax(x, exclusive=True, return_indices=True)
    np.testing.assert_array_equal(v, [info.min, info.min, info.min, info.max, info.max])
    np.testing.assert_array_equal(i, [-1, 0, 1, 2, 3])
    v, i = simdscan.cummin(x, direction="decreasing", exclusive=True, return_indices=True)
    np.testing.assert_array_equal(v, [info.min, info.min, info.min, info.min, info.max])
    np.testing.assert_array_equal(i, [1, 4, 4, 4, -1])


@pytest.mark.parametrize("op", EXTREMA_OPS)
def test_0d_and_empty(op):
    v, i = getattr(simdscan, op)(np.array(2.5), return_indices=True)
    assert v.shape == i.shape == (1,) and i.dtype == np.intp and i[0] == 0
    v, i = getattr(simdscan, op)(np.array(2.5), exclusive=True, return_indices=True)
    assert i[0] == -1
    for dtype in ("int32", "float64", "float16", "bool"):
        for shape in ((0,), (0, 3), (3, 0)):
            e = np.zeros(shape, dtype)
            for axis in (None, 0, 1, -1)[: e.ndim + 1]:
                v, i = getattr(simdscan, op)(e, axis, return_indices=True)
                assert v.shape == i.shape == ((0,) if axis is None else shape), (dtype, shape, axis)
                assert i.dtype == np.intp and v.dtype == np.dtype(dtype)


# --------------------------------------------------------------------------
# out=(values_out, indices_out) (of any strides: test_extrema.py)
# --------------------------------------------------------------------------
@pytest.mark.parametrize("op", EXTREMA_OPS)
def test_out_none_is_no_out(op):
    a = extrema_data(np.random.default_rng(seed_of("out None", op)), (6, 7), "float32", nan=0.1)
    for dec, exc in VARIANTS:
        check_extremum_pair(call(op, a, 1, dec, exc, out=None), op, a, 1, dec, exc)


@pytest.mark.parametrize("op", EXTREMA_OPS)
def test_values_out_is_the_input(op):
    """out=(a, indices): the values scanned in place, the indices beside them."""
    for dtype in ("float32", "int16", "float64"):
        base = extrema_data(np.random.default_rng(seed_of("in place pair", op, dtype)), (9, 300), dtype, nan=0.01)
        for axis in (0, 1):
            for dec, exc in VARIANTS:
                a = base.copy()
                idx = np.empty(a.shape, np.intp)
                got = call(op, a, axis, dec, exc, out=(a, idx))
                assert got[0] is a and got[1] is idx
                check_extremum_pair((a, idx), op, base, axis, dec, exc)


@pytest.mark.parametrize("op", EXTREMA_OPS)
def test_without_indices_same_values(op):
    a = extrema_data(np.random.default_rng(seed_of("same", op)), (50, 333), "float32", nan=0.002)
    for axis in (0, 1):
        for dec, exc in VARIANTS:
            plain = getattr(simdscan, op)(a, axis, direction="decreasing" if dec else "increasing",
                                          exclusive=exc)
            assert_same_bits(call(op, a, axis, dec, exc)[0], plain, f"{op} axis={axis}")


# --------------------------------------------------------------------------
# properties
# --------------------------------------------------------------------------
@given(a=st.sampled_from(["float16", "float32", "float64", "int8", "uint8", "int64", "bool"]).flatmap(
    lambda dt: hnp.arrays(np.dtype(dt), hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=10),
                          elements=hnp.from_dtype(np.dtype(dt)))),
       data=st.data())
def test_loop_free_reference_agrees_with_the_loop(a, data):
    """reference.py's two index references, on any values (the long-line tests trust the loop-free one)."""
    op = data.draw(st.sampled_from(EXTREMA_OPS))
    axis = data.draw(st.sampled_from(all_axes(a.ndim)))
    dec, exc = data.draw(st.booleans()), data.draw(st.booleans())
    np.testing.assert_array_equal(extremum_indices_fast(op, a, axis, dec, exc),
                                  extremum_indices(op, a, axis, dec, exc))


def _pool(dt):
    dt = np.dtype(dt)
    if dt.kind == "f":
        return [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, np.finfo(dt).max, np.finfo(dt).min]
    info = np.iinfo(dt)
    return [info.min, info.max, 0, 1, info.max - 1]


@given(a=st.sampled_from(["float16", "float32", "float64", "int8", "uint16", "int32", "uint64", "bool"]).flatmap(
    lambda dt: hnp.arrays(np.dtype(dt), hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=12),
                          elements=hnp.from_dtype(np.dtype(dt)) if dt in ("bool", "float16")
                          else st.sampled_from(_pool(dt)))),
       data=st.data())
def test_matches_the_loop_on_special_values(a, data):
    """Values drawn from a few special ones (so that ties, NaNs, infinities and limits meet), any axis."""
    op = data.draw(st.sampled_from(EXTREMA_OPS))
    axis = data.draw(st.sampled_from(all_axes(a.ndim)))
    dec, exc = data.draw(st.booleans()), data.draw(st.booleans())
    check_extremum_pair(call(op, a, axis, dec, exc), op, a, axis, dec, exc)
