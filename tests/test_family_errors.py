"""Every error of the scan family's contract (cummax, cummin, nancummax, nancummin, nancumsum, nancumprod,
logcumsumexp), with the input and out (both arrays of an out pair) unchanged afterwards."""

import numpy as np
import pytest
from numpy.exceptions import AxisError

import simdscan
from ops import BY_NAME, INDEXED, ORDERED
from ops import FAMILY as FUNCS
from reference import assert_unchanged, snapshot


def _call(op, *args, **kw):
    return getattr(simdscan, op)(*args, **kw)


def _outs(out):
    """The arrays of ``out``: none, one, or the two of a pair (anything else: itself, if an array)."""
    if out is None:
        return []
    if isinstance(out, tuple):
        return [o for o in out if isinstance(o, np.ndarray)]
    return [out] if isinstance(out, np.ndarray) else []


def _raises_leaving_alone(exc_type, op, a, *args, **kw):
    sa = snapshot(a)
    outs = _outs(kw.get("out"))
    so = [snapshot(o) for o in outs]
    with pytest.raises(exc_type) as info:
        _call(op, a, *args, **kw)
    assert_unchanged(a, sa, "input")
    for o, s in zip(outs, so):
        assert_unchanged(o, s, "out")
    return info


def _floats(shape=(2, 3)):
    return (np.arange(int(np.prod(shape))) % 5 + 1).astype(np.float64).reshape(shape)


def _result_dtype(op, dtype):
    return BY_NAME[op].result_dtype(dtype)


# --------------------------------------------------------------------------
# axis
# --------------------------------------------------------------------------
AXIS_CASES = [((5,), 1), ((5,), -2), ((2, 3), 2), ((2, 3), -3), ((2, 3), 100), ((2, 3, 4), -4), ((0, 3), 2),
              ((), 1), ((), -2)]


@pytest.mark.parametrize("shape, axis", AXIS_CASES, ids=[f"{s}-axis{a}" for s, a in AXIS_CASES])
@pytest.mark.parametrize("op", FUNCS)
def test_axis_out_of_range(op, shape, axis):
    a = np.ones(shape)
    _raises_leaving_alone(AxisError, op, a, axis)
    _raises_leaving_alone(AxisError, op, a, axis=axis, direction="decreasing", exclusive=True)
    if a.ndim:
        _raises_leaving_alone(AxisError, op, a, axis, out=np.full(shape, 7.0))
    if op in INDEXED:
        _raises_leaving_alone(AxisError, op, a, axis, return_indices=True)
        if a.ndim:
            pair = (np.full(shape, 7.0), np.full(shape, 7, dtype=np.intp))
            _raises_leaving_alone(AxisError, op, a, axis, return_indices=True, out=pair)


@pytest.mark.parametrize("op", FUNCS)
def test_axis_error_in_place_leaves_the_input_alone(op):
    a = _floats()
    _raises_leaving_alone(AxisError, op, a, 2, out=a)
    _raises_leaving_alone(AxisError, op, a, -3, out=a)


# --------------------------------------------------------------------------
# direction
# --------------------------------------------------------------------------
BAD_DIRECTIONS = ["up", "down", "", "INCREASING", "Decreasing", " increasing", "decreasing ", "reverse"]


@pytest.mark.parametrize("direction", BAD_DIRECTIONS)
@pytest.mark.parametrize("op", FUNCS)
def test_bad_direction_string_is_value_error(op, direction):
    a = np.arange(1.0, 5.0)
    _raises_leaving_alone(ValueError, op, a, 0, direction=direction)
    _raises_leaving_alone(ValueError, op, a, 0, direction=direction, out=np.full(4, 7.0))
    _raises_leaving_alone(ValueError, op, a, 0, direction=direction, out=a)
    if op in INDEXED:
        pair = (np.full(4, 7.0), np.full(4, 7, dtype=np.intp))
        _raises_leaving_alone(ValueError, op, a, 0, direction=direction, return_indices=True, out=pair)


# --------------------------------------------------------------------------
# out: shape, writability, dtype
# --------------------------------------------------------------------------
WRONG_SHAPES = [  # (input shape, axis, out shape)
    ((3, 4), 1, (4, 3)),
    ((3, 4), 1, (3, 5)),
    ((3, 4), None, (3, 4)),  # axis=None returns 1-D
    ((3, 4), None, (11,)),
    ((3, 4), 1, (1, 4)),  # broadcastable is still wrong
    ((3, 4), 1, (1, 3, 4)),
    ((), None, ()),  # 0-d input gives shape (1,)
]


@pytest.mark.parametrize("ashape, axis, oshape", WRONG_SHAPES, ids=[str(w) for w in WRONG_SHAPES])
@pytest.mark.parametrize("op", FUNCS)
def test_wrong_out_shape_is_value_error(op, ashape, axis, oshape):
    a = _floats(ashape)
    _raises_leaving_alone(ValueError, op, a, axis, out=np.full(oshape, 7.0))


@pytest.mark.parametrize("ashape, axis, oshape", WRONG_SHAPES, ids=[str(w) for w in WRONG_SHAPES])
@pytest.mark.parametrize("op", INDEXED)
def test_wrong_shape_in_the_out_pair_is_value_error(op, ashape, axis, oshape):
    a = _floats(ashape)
    right = a.size if axis is None else (a.shape or (1,))
    good_v, good_i = np.full(right, 7.0), np.full(right, 7, dtype=np.intp)
    bad_v, bad_i = np.full(oshape, 7.0), np.full(oshape, 7, dtype=np.intp)
    for pair in ((bad_v, good_i), (good_v, bad_i), (bad_v, bad_i)):
        _raises_leaving_alone(ValueError, op, a, axis, return_indices=True, out=pair)


@pytest.mark.parametrize("op", FUNCS)
def test_read_only_out_is_value_error(op):
    a = _floats()
    out = np.full((2, 3), 7.0)
    out.flags.writeable = False
    _raises_leaving_alone(ValueError, op, a, 1, out=out)
    _raises_leaving_alone(ValueError, op, a, 1, out=np.broadcast_to(np.full(3, 7.0), (2, 3)))
    ro = _floats()
    ro.flags.writeable = False
    _raises_leaving_alone(ValueError, op, ro, 1, out=ro)


@pytest.mark.parametrize("op", INDEXED)
def test_read_only_in_the_out_pair_is_value_error(op):
    a = _floats()
    for k in (0, 1):
        pair = [np.full((2, 3), 7.0), np.full((2, 3), 7, dtype=np.intp)]
        pair[k].flags.writeable = False
        _raises_leaving_alone(ValueError, op, a, 1, return_indices=True, out=tuple(pair))
        pair = [np.full((2, 3), 7.0), np.full((2, 3), 7, dtype=np.intp)]
        pair[k] = np.broadcast_to(pair[k][0], (2, 3))
        _raises_leaving_alone(ValueError, op, a, 1, return_indices=True, out=tuple(pair))


WRONG_OUT_DTYPES = [  # (input dtype, out dtype), for every function whose result dtype differs from out's
    ("float64", "float32"),
    ("float32", "float64"),
    ("float16", "float32"),
    ("int32", "int64"),
    ("int8", "int64"),
    ("uint32", "int32"),
    ("int64", "uint64"),
    ("bool", "bool"),
    ("bool", "int8"),
    ("int32", "int32"),
    ("int16", "float64"),
]


# the cases where out's dtype is the right one left out (cummax of int32 is int32, logcumsumexp of int16 float64)
WRONG_OUT_CASES = [(op, adt, odt) for op in FUNCS for adt, odt in WRONG_OUT_DTYPES if _result_dtype(op, adt) != odt]


@pytest.mark.parametrize("op, adt, odt", WRONG_OUT_CASES, ids=["-".join(c) for c in WRONG_OUT_CASES])
def test_wrong_out_dtype_is_type_error(op, adt, odt):
    a = np.array([[1, 2, 3], [3, 0, 1]]).astype(adt)
    _raises_leaving_alone(TypeError, op, a, 1, out=np.full((2, 3), 7).astype(odt))


@pytest.mark.parametrize("op", INDEXED)
def test_wrong_dtype_in_the_out_pair_is_type_error(op):
    a = np.array([[1, 2, 3], [3, 0, 1]], dtype=np.int32)
    wrong_index_dtypes = [np.float64, np.uint8, np.int32 if np.dtype(np.intp) != np.int32 else np.int64]
    for idt in wrong_index_dtypes:
        pair = (np.full((2, 3), 7, dtype=np.int32), np.full((2, 3), 7, dtype=idt))
        _raises_leaving_alone(TypeError, op, a, 1, return_indices=True, out=pair)
    pair = (np.full((2, 3), 7, dtype=np.int64), np.full((2, 3), 7, dtype=np.intp))
    _raises_leaving_alone(TypeError, op, a, 1, return_indices=True, out=pair)


@pytest.mark.parametrize("op", INDEXED)
def test_out_with_indices_must_be_a_pair(op):
    a = _floats()
    v, i = np.full((2, 3), 7.0), np.full((2, 3), 7, dtype=np.intp)
    for out in (v, (v,), (v, i, i)):
        _raises_leaving_alone((TypeError, ValueError), op, a, 1, return_indices=True, out=out)


# --------------------------------------------------------------------------
# unsupported dtypes
# --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("op", ORDERED)
def test_complex_has_no_order(op, dtype):
    a = np.array([1 + 2j, 3 - 1j, 0j], dtype=dtype)
    _raises_leaving_alone(TypeError, op, a)
    _raises_leaving_alone(TypeError, op, a, 0, direction="decreasing", exclusive=True)
    _raises_leaving_alone(TypeError, op, a, 0, out=np.full(3, 7, dtype=dtype))
    _raises_leaving_alone(TypeError, op, a, 0, out=a)
    if op in INDEXED:
        _raises_leaving_alone(TypeError, op, a, return_indices=True)


def _unsupported_arrays():
    structured = np.zeros(3, dtype=[("a", "f8"), ("b", "i4")])
    return [
        ("object", np.array([1, 2, 3], dtype=object)),
        ("str", np.array(["1", "2", "3"])),
        ("bytes", np.array([b"1", b"2", b"3"])),
        ("datetime64", np.arange(3).astype("datetime64[D]")),
        ("timedelta64", np.arange(3).astype("timedelta64[s]")),
        ("void", np.zeros(3, dtype="V8")),
        ("structured", structured),
    ] + ([("longdouble", np.arange(3, dtype=np.longdouble))] if np.dtype(np.longdouble).itemsize > 8 else [])


UNSUPPORTED = _unsupported_arrays()


@pytest.mark.parametrize("name, a", UNSUPPORTED, ids=[u[0] for u in UNSUPPORTED])
@pytest.mark.parametrize("op", FUNCS)
def test_unsupported_input_dtype_is_type_error(op, name, a):
    _raises_leaving_alone(TypeError, op, a)
    _raises_leaving_alone(TypeError, op, a, 0, direction="decreasing", exclusive=True)
    _raises_leaving_alone(TypeError, op, a, 0, out=np.zeros(3))
    if op in INDEXED:
        _raises_leaving_alone(TypeError, op, a, return_indices=True)


# --------------------------------------------------------------------------
# the signatures
# --------------------------------------------------------------------------
@pytest.mark.parametrize("op", FUNCS)
def test_keyword_only(op):
    a = np.arange(1.0, 5.0)
    _raises_leaving_alone(TypeError, op, a, 0, "decreasing")
    _raises_leaving_alone(TypeError, op, a, 0, "increasing", True)


@pytest.mark.parametrize("op, keyword, value", [
    ("nancummax", "return_indices", True),
    ("nancummin", "return_indices", True),
    ("logcumsumexp", "return_indices", True),
    ("nancumsum", "return_indices", True),
    ("nancumprod", "compensated", True),
    ("logcumsumexp", "compensated", True),
    ("cummax", "dtype", np.float64),
    ("cummin", "dtype", np.float64),
    ("nancummax", "dtype", np.float64),
    ("cummax", "reverse", True),
])
def test_keywords_outside_the_signature_are_type_errors(op, keyword, value):
    _raises_leaving_alone(TypeError, op, np.arange(1.0, 5.0), **{keyword: value})
