"""The ``out=`` argument: any strides, in place, partial overlap, identity of
the returned object, and every bad ``out`` (left untouched on error)."""

import numpy as np
import pytest

import simdscan
from data import make_data, seed_of
from reference import (
    OPS,
    apply_layout,
    assert_unchanged,
    check_scan,
    expected,
    check_values,
    result_dtype,
    snapshot,
)
from params import DIRECTIONS, all_axes

pytestmark = pytest.mark.kernels  # the outcome depends on the ISA tier and the xsimd version: CI runs these per tier

OUT_DTYPES = ["float16", "float32", "float64", "complex64", "complex128",
              "int8", "int32", "int64", "uint16", "uint64"]
SENTINEL = 57  # fits every dtype; marks the buffer elements that are not out


def _data(op, shape, dtype, *key):
    rng = np.random.default_rng(seed_of(op, shape, str(dtype), *key))
    return make_data(rng, shape, np.dtype(dtype), op)


def _result_shape(a, axis):
    a = np.asarray(a)
    if axis is None:
        return (a.size,)
    return a.shape if a.ndim else (1,)


# --------------------------------------------------------------------------
# layouts of out
# --------------------------------------------------------------------------
def _strided_out(shape, dtype):
    """out whose last axis has stride 2 elements; returns (out, whole buffer)."""
    buf = np.full(shape[:-1] + (2 * shape[-1],), SENTINEL, dtype=dtype)
    return buf[..., ::2], buf


def _reversed_out(shape, dtype):
    buf = np.full(shape, SENTINEL, dtype=dtype)
    return buf[(slice(None, None, -1),) * len(shape)], buf


def _fortran_out(shape, dtype):
    buf = np.full(shape, SENTINEL, dtype=dtype, order="F")
    return buf, buf


def _stepped_everywhere_out(shape, dtype):
    buf = np.full(tuple(2 * s + 1 for s in shape), SENTINEL, dtype=dtype)
    return buf[tuple(slice(1, 2 * s + 1, 2) for s in shape)], buf


OUT_LAYOUTS = {
    "strided": _strided_out,
    "reversed": _reversed_out,
    "fortran": _fortran_out,
    "stepped": _stepped_everywhere_out,
}


@pytest.mark.parametrize("out_layout", list(OUT_LAYOUTS))
@pytest.mark.parametrize("dtype", OUT_DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_out_layouts(op, dtype, out_layout):
    """out of any strides gets the result, the result *is* out, and nothing
    outside out's elements in its buffer is written."""
    a = _data(op, (3, 4, 7), dtype)
    snap = snapshot(a)
    func = getattr(simdscan, op)
    for axis in all_axes(3):
        for direction, dec in DIRECTIONS:
            for exclusive in (False, True):
                shape = _result_shape(a, axis)
                out, buf = OUT_LAYOUTS[out_layout](shape, dtype)
                # mark which buffer elements belong to out
                mask = np.zeros(buf.shape, dtype=bool)
                mask_out = _mask_view(out_layout, mask, shape)
                mask_out[...] = True
                got = func(a, axis, direction=direction, exclusive=exclusive, out=out)
                where = f"{op} {dtype} out={out_layout} axis={axis} direction={direction!r} exclusive={exclusive}"
                assert got is out, where
                check_scan(got, op, a, axis, dec, exclusive, msg=where)
                outside = buf[~mask]
                assert np.all(outside == SENTINEL), f"{where}: wrote outside out's elements"
                assert_unchanged(a, snap)


def _mask_view(layout, mask, shape):
    if layout == "strided":
        return mask[..., ::2]
    if layout == "reversed":
        return mask[(slice(None, None, -1),) * len(shape)]
    if layout == "fortran":
        return mask
    return mask[tuple(slice(1, 2 * s + 1, 2) for s in shape)]


@pytest.mark.parametrize("op", OPS)
def test_out_non_contiguous_input_and_out(op):
    a = apply_layout(_data(op, (6, 5), "float64"), "stepped")[::-1]
    out = np.zeros((5, 12))[:, ::2].T[::-1]
    assert out.shape == a.shape
    for axis in (0, 1):
        got = getattr(simdscan, op)(a, axis, direction="decreasing", exclusive=True, out=out)
        assert got is out
        check_scan(out, op, a, axis, True, True)


# --------------------------------------------------------------------------
# in place
# --------------------------------------------------------------------------
@pytest.mark.parametrize("layout", ["C", "fortran", "reversed", "stepped", "transposed"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64",
                                   "int8", "int32", "int64", "uint8", "uint32"])
@pytest.mark.parametrize("op", OPS)
def test_in_place_every_axis(op, dtype, layout):
    base = _data(op, (3, 4, 5), dtype, layout)
    func = getattr(simdscan, op)
    for axis in list(range(3)) + list(range(-3, 0)):
        for direction, dec in DIRECTIONS:
            for exclusive in (False, True):
                a = apply_layout(base, layout)
                copy = a.copy()
                exp = expected(op, copy, axis, dec, exclusive)
                got = func(a, axis, direction=direction, exclusive=exclusive, out=a)
                where = f"in place {op} {dtype} {layout} axis={axis} direction={direction!r} exclusive={exclusive}"
                assert got is a, where
                check_values(a, exp, where)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int16", "uint64", "complex128"])
@pytest.mark.parametrize("op", OPS)
def test_in_place_axis_none_1d(op, dtype):
    for n in (0, 1, 2, 7, 33, 64, 65):
        for direction, dec in DIRECTIONS:
            for exclusive in (False, True):
                a = _data(op, (n,), dtype)
                copy = a.copy()
                got = getattr(simdscan, op)(a, None, direction=direction, exclusive=exclusive, out=a)
                assert got is a
                check_values(a, expected(op, copy, None, dec, exclusive),
                             f"n={n} direction={direction!r} exclusive={exclusive}")


@pytest.mark.parametrize("op", OPS)
def test_in_place_long_lines(op):
    """Long in-place scans (SIMD bodies) along each axis."""
    for dtype in ("float32", "int32", "float64", "int8"):
        base = _data(op, (9, 1000), dtype)
        for axis in (0, 1):
            for direction, dec in DIRECTIONS[:2]:
                for exclusive in (False, True):
                    a = base.copy()
                    getattr(simdscan, op)(a, axis, direction=direction, exclusive=exclusive, out=a)
                    check_values(a, expected(op, base, axis, dec, exclusive),
                                 f"{dtype} axis={axis} {direction} exclusive={exclusive}")


# --------------------------------------------------------------------------
# partial overlap
# --------------------------------------------------------------------------
# (name, buffer shape, view for a, view for out)
OVERLAPS = [
    ("out-ahead", (20,), lambda b: b[:15], lambda b: b[5:]),
    ("out-behind", (20,), lambda b: b[5:], lambda b: b[:15]),
    ("out-ahead-by-one", (20,), lambda b: b[:19], lambda b: b[1:]),
    ("out-behind-by-one", (20,), lambda b: b[1:], lambda b: b[:19]),
    ("out-reversed", (20,), lambda b: b[:15], lambda b: b[5:][::-1]),
    ("same-memory-reversed", (20,), lambda b: b, lambda b: b[::-1]),
    ("a-stepped", (20,), lambda b: b[::2], lambda b: b[:10]),
    ("out-stepped", (20,), lambda b: b[:10], lambda b: b[::2]),
    ("interleaved", (20,), lambda b: b[::2], lambda b: b[1::2]),
    ("long-out-ahead", (300,), lambda b: b[:260], lambda b: b[40:]),
    ("long-out-behind", (300,), lambda b: b[3:], lambda b: b[:297]),
    ("rows-shifted", (6, 10), lambda b: b[:5], lambda b: b[1:]),
    ("cols-shifted", (6, 10), lambda b: b[:, :8], lambda b: b[:, 2:]),
    ("transposed", (6, 6), lambda b: b, lambda b: b.T),
    ("transposed-shifted", (7, 7), lambda b: b[:6, 1:], lambda b: b[1:, :6].T),
]


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "int8", "complex128", "uint16"])
@pytest.mark.parametrize("name, bshape, aview, oview", OVERLAPS, ids=[o[0] for o in OVERLAPS])
@pytest.mark.parametrize("op", OPS)
def test_partial_overlap(op, name, bshape, aview, oview, dtype):
    """out that partly overlaps a still gives the right answer, and nothing
    outside out is written (the input is not modified where out isn't)."""
    size = int(np.prod(bshape))
    idx = np.arange(size).reshape(bshape)
    in_out = np.zeros(size, dtype=bool)
    in_out[oview(idx).ravel()] = True
    in_out = in_out.reshape(bshape)
    ndim = aview(idx).ndim
    failures = []
    for axis in list(range(ndim)) + ([None] if ndim == 1 else []):
        for direction, dec in DIRECTIONS[:2]:
            for exclusive in (False, True):
                buf = _data(op, bshape, dtype, name)
                original = buf.copy()
                a, out = aview(buf), oview(buf)
                assert np.may_share_memory(a, out)  # memory bounds overlap
                exp = expected(op, a.copy(), axis, dec, exclusive)
                where = f"{op} {dtype} {name} axis={axis} {direction} exclusive={exclusive}"
                try:
                    got = getattr(simdscan, op)(a, axis, direction=direction, exclusive=exclusive, out=out)
                    assert got is out, "result is not out"
                    check_values(out, exp, where)
                    assert np.array_equal(buf[~in_out], original[~in_out]), "wrote outside out"
                except AssertionError as exc:
                    failures.append(f"{where}: {exc}")
    if failures:
        pytest.fail("\n\n".join(failures[:8]), pytrace=False)


def test_partial_overlap_from_the_issue():
    buf = np.arange(20.0)
    a = buf[:15]
    out = buf[5:]
    ref = np.cumsum(a.copy())
    assert simdscan.cumsum(a, out=out) is out
    np.testing.assert_array_equal(buf[5:], ref)
    np.testing.assert_array_equal(buf[:5], np.arange(5.0))


# --------------------------------------------------------------------------
# dtype, bool, 0-d, empty
# --------------------------------------------------------------------------
@pytest.mark.parametrize("op", OPS)
def test_out_with_dtype_argument(op):
    a = np.array([100, 100, 100, -3], dtype=np.int8)
    out = np.zeros(4, dtype=np.int32)
    got = getattr(simdscan, op)(a, dtype=np.int32, out=out)
    assert got is out
    check_scan(out, op, a, None, False, False, dtype=np.int32)
    assert out[1] in (200, 10000)  # no int8 wrap: the scan ran in int32


@pytest.mark.parametrize("op", OPS)
def test_out_for_bool_input(op):
    a = np.array([True, False, True, True])
    out = np.zeros(4, dtype=result_dtype(np.bool_))
    assert getattr(simdscan, op)(a, out=out) is out
    check_scan(out, op, a)


@pytest.mark.parametrize("axis", [None, 0, -1])
@pytest.mark.parametrize("op", OPS)
def test_out_for_0d_input(op, axis):
    a = np.array(3.5)
    out = np.zeros(1)
    assert getattr(simdscan, op)(a, axis, out=out) is out
    assert out[0] == 3.5


@pytest.mark.parametrize("op", OPS)
def test_out_empty(op):
    a = np.zeros((0, 3), np.float32)
    out = np.zeros((0, 3), np.float32)
    for axis in (0, 1, -1):
        assert getattr(simdscan, op)(a, axis, out=out) is out
    out1 = np.zeros((0,), np.float32)
    assert getattr(simdscan, op)(a, None, out=out1) is out1


# --------------------------------------------------------------------------
# bad out: ValueError / TypeError, out and input untouched
# --------------------------------------------------------------------------
def _assert_error_leaves_alone(exc_type, op, a, out, **kw):
    sa, so = snapshot(a), snapshot(out)
    with pytest.raises(exc_type):
        getattr(simdscan, op)(a, out=out, **kw)
    assert_unchanged(a, sa, "input")
    assert_unchanged(out, so, "out")


WRONG_SHAPES = [
    # (input shape, axis, out shape)
    ((3, 4), 1, (4, 3)),
    ((3, 4), 1, (3, 5)),
    ((3, 4), 0, (12,)),
    ((3, 4), None, (3, 4)),  # axis=None returns 1-D
    ((3, 4), None, (11,)),
    ((3, 4), None, (1, 12)),
    ((3, 4), 1, (1, 3, 4)),
    ((3, 4), 1, (1, 4)),  # broadcastable is still wrong
    ((3, 4), 1, (4,)),
    ((5,), 0, ()),
    ((), None, ()),  # 0-d input gives shape (1,)
    ((0, 3), 0, (0,)),
]


@pytest.mark.parametrize("ashape, axis, oshape", WRONG_SHAPES, ids=[str(w) for w in WRONG_SHAPES])
@pytest.mark.parametrize("op", OPS)
def test_wrong_shape_is_value_error(op, ashape, axis, oshape):
    a = (np.arange(int(np.prod(ashape))) % 5 + 1).astype(np.float64).reshape(ashape)
    out = np.full(oshape, 7.0)
    _assert_error_leaves_alone(ValueError, op, a, out, axis=axis)


WRONG_DTYPES = [
    # (input dtype, dtype argument, out dtype)
    ("float64", None, "float32"),
    ("float32", None, "float64"),
    ("int32", None, "int64"),  # no promotion: int32 stays int32
    ("int8", None, "int64"),
    ("uint32", None, "int32"),
    ("int64", None, "uint64"),
    ("complex64", None, "complex128"),
    ("float16", None, "float32"),
    ("bool", None, "bool"),  # bool input gives the default integer
    ("bool", None, "int8"),
    ("float64", "float32", "float64"),  # dtype= decides the result dtype
    ("int8", "int32", "int8"),
]


@pytest.mark.parametrize("adt, dt, odt", WRONG_DTYPES, ids=[str(w) for w in WRONG_DTYPES])
@pytest.mark.parametrize("op", OPS)
def test_wrong_dtype_is_type_error(op, adt, dt, odt):
    a = np.array([[1, 2, 3], [3, 0, 1]]).astype(adt)
    out = np.full((2, 3), 7).astype(odt)
    _assert_error_leaves_alone(TypeError, op, a, out, axis=1, dtype=dt)


@pytest.mark.parametrize("op", OPS)
def test_read_only_out_is_value_error(op):
    a = np.arange(1.0, 7.0).reshape(2, 3)
    out = np.full((2, 3), 7.0)
    out.flags.writeable = False
    _assert_error_leaves_alone(ValueError, op, a, out, axis=1)


@pytest.mark.parametrize("op", OPS)
def test_read_only_in_place_is_value_error(op):
    a = np.arange(1.0, 7.0)
    a.flags.writeable = False
    _assert_error_leaves_alone(ValueError, op, a, a)


@pytest.mark.parametrize("op", OPS)
def test_broadcast_out_is_value_error(op):
    """A broadcast view is read-only: it cannot receive a result."""
    a = np.arange(1.0, 7.0).reshape(2, 3)
    out = np.broadcast_to(np.full(3, 7.0), (2, 3))
    _assert_error_leaves_alone(ValueError, op, a, out, axis=1)
