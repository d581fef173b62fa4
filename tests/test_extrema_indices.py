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
from params import DIRECTIONS, all_axes, scan_cases, stepped_reversed_out
from family_reference import (
    EXTREMA_DTYPES,
    EXTREMA_OPS,
    EXTREMA_PATH_CASES,
    EXTREMA_PATH_IDS,
    VARIANTS,
    assert_same_bits,
    check_extremum,
    extrema_data,
    extremum_indices,
    extremum_indices_fast,
)
from reference import LAYOUTS, PATHS, apply_layout, assert_unchanged, snapshot

pytestmark = pytest.mark.kernels  # the outcome depends on the ISA tier and the xsimd version: CI runs these per tier

DT_IDS = [d.name for d in EXTREMA_DTYPES]


def call(op, a, axis=None, decreasing=False, exclusive=False, **kw):
    return getattr(simdscan, op)(a, axis, direction="decreasing" if decreasing else "increasing",
                                 exclusive=exclusive, return_indices=True, **kw)


def assert_pair(got, op, a, axis, decreasing, exclusive, where="", fast=False):
    """``got`` is a pair (values, indices): values as test_extrema checks them, indices np.intp of their shape
    equal to the reference's."""
    where = where or f"{op} dtype={np.asarray(a).dtype} axis={axis} decreasing={decreasing} exclusive={exclusive}"
    assert isinstance(got, tuple) and len(got) == 2, f"{where}: returned {type(got)!r}, not a pair"
    values, idx = got
    check_extremum(values, op, a, axis, decreasing, exclusive, where)
    ref = (extremum_indices_fast if fast else extremum_indices)(op, a, axis, decreasing, exclusive)
    assert isinstance(idx, np.ndarray), f"{where}: indices are a {type(idx)!r}"
    assert idx.dtype == np.intp, f"{where}: indices dtype {idx.dtype}, expected intp"
    assert idx.shape == values.shape, f"{where}: indices shape {idx.shape}, values {values.shape}"
    if not np.array_equal(idx, ref):
        bad = np.argwhere(idx != ref)
        i = tuple(bad[0].tolist())
        raise AssertionError(f"{where}: {len(bad)} indices differ, first at {i}: got {idx[i]}, expected {ref[i]}")


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


# --------------------------------------------------------------------------
# every dtype, axis, direction, layout, kernel path
# --------------------------------------------------------------------------
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", EXTREMA_DTYPES, ids=DT_IDS)
@pytest.mark.parametrize("op", EXTREMA_OPS)
def test_every_layout_axis_direction(op, dtype, layout):
    rng = np.random.default_rng(seed_of("indices", op, dtype.name, layout))
    a = apply_layout(extrema_data(rng, (4, 5, 6), dtype, nan=0.06), layout)
    snap = snapshot(a)
    for axis, direction, dec, exc in scan_cases(3):
        got = getattr(simdscan, op)(a, axis, direction=direction, exclusive=exc, return_indices=True)
        assert_pair(got, op, a, axis, dec, exc,
                    f"{op} {dtype} {layout} axis={axis} direction={direction!r} exclusive={exc}")
    assert_unchanged(a, snap)


@pytest.mark.parametrize("dtype, path", EXTREMA_PATH_CASES, ids=EXTREMA_PATH_IDS)
@pytest.mark.parametrize("op", EXTREMA_OPS)
def test_kernel_paths(op, dtype, path):
    rng = np.random.default_rng(seed_of("indices paths", op, dtype.name, path.name))
    line = path.shape[path.axis]
    a, axis = path.build(lambda shape: extrema_data(rng, shape, dtype, nan=min(0.3, 3.0 / line)))
    for dec, exc in VARIANTS:
        assert_pair(call(op, a, axis, dec, exc), op, a, axis, dec, exc,
                    f"{op} {dtype} {path.name} decreasing={dec} exclusive={exc}", fast=True)


@pytest.mark.parametrize("op", EXTREMA_OPS)
def test_short_lengths(op):
    for dtype in ("int8", "uint16", "int32", "float16", "float32", "float64", "uint64", "bool"):
        for n in list(range(0, 40)) + [63, 64, 65, 127, 128, 129, 255, 256, 257]:
            rng = np.random.default_rng(seed_of("short indices", op, dtype, n))
            a = extrema_data(rng, (3, n), dtype, nan=0.05)
            for axis in (0, 1, None):
                for dec, exc in VARIANTS:
                    assert_pair(call(op, a, axis, dec, exc), op, a, axis, dec, exc)


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
# out=(values_out, indices_out)
# --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "int64", "uint32", "bool"])
@pytest.mark.parametrize("op", EXTREMA_OPS)
def test_out_pair(op, dtype):
    rng = np.random.default_rng(seed_of("out pair", op, dtype))
    a = extrema_data(rng, (6, 7), dtype, nan=0.1)
    for axis in (None, 0, 1, -1):
        shape = (a.size,) if axis is None else a.shape
        for dec, exc in VARIANTS:
            vout, vbuf, voutside = stepped_reversed_out(shape, dtype, 1)
            iout, ibuf, ioutside = stepped_reversed_out(shape, np.intp, 77)
            vbefore, ibefore = vbuf.copy(), ibuf.copy()
            got = call(op, a, axis, dec, exc, out=(vout, iout))
            assert got[0] is vout and got[1] is iout
            assert_pair(got, op, a, axis, dec, exc)
            assert np.array_equal(vbuf[voutside], vbefore[voutside]), "wrote outside the values' out"
            assert np.array_equal(ibuf[ioutside], ibefore[ioutside]), "wrote outside the indices' out"
            # transposed outs; out=None is the same as no out
            vt = np.zeros(shape[::-1], dtype=dtype).T
            it = np.zeros(shape[::-1], dtype=np.intp).T
            got = call(op, a, axis, dec, exc, out=(vt, it))
            assert got[0] is vt and got[1] is it
            assert_pair(got, op, a, axis, dec, exc)
            assert_pair(call(op, a, axis, dec, exc, out=None), op, a, axis, dec, exc)


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
                assert_pair((a, idx), op, base, axis, dec, exc)


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
    assert_pair(call(op, a, axis, dec, exc), op, a, axis, dec, exc)
