"""Odd but valid arguments (NumPy integers, __index__, str subclasses and enums, truthy objects, dtype spellings)
and ndarray subclasses: accepted, with the reference's result."""

import enum
import warnings

import numpy as np
import pytest

import simdscan
from params import func
from reference import OPS, assert_unchanged, check_scan, snapshot


class IndexOne:
    def __index__(self):
        return 1


class StrDirection(str, enum.Enum):
    INCREASING = "increasing"
    DECREASING = "decreasing"


class StrSubclass(str):
    pass


ACCEPTED = [
    # (id, axis, call kwargs, the reference's (axis, decreasing, exclusive, dtype))
    ("axis-np.int64", np.int64(1), {}, (1, False, False, None)),
    ("axis-np.uint8", np.uint8(0), {}, (0, False, False, None)),
    ("axis-np.int16-negative", np.int16(-1), {}, (-1, False, False, None)),
    ("axis-np.intp-negative", np.intp(-2), {}, (-2, False, False, None)),
    ("axis-np.uint64", np.uint64(2), {}, (2, False, False, None)),
    ("axis-0d-int-array", np.array(1), {}, (1, False, False, None)),
    ("axis-bool", True, {}, (1, False, False, None)),
    ("axis-__index__", IndexOne(), {}, (1, False, False, None)),
    ("direction-Direction", 1, {"direction": simdscan.Direction.DECREASING}, (1, True, False, None)),
    ("direction-np.str_", 2, {"direction": np.str_("decreasing")}, (2, True, False, None)),
    ("direction-str-subclass", 0, {"direction": StrSubclass("decreasing")}, (0, True, False, None)),
    ("direction-str-enum", 2, {"direction": StrDirection.DECREASING}, (2, True, False, None)),
    ("exclusive-np.bool_", 1, {"exclusive": np.True_}, (1, False, True, None)),
    ("exclusive-int", 1, {"exclusive": 2}, (1, False, True, None)),
    ("exclusive-empty-str", 1, {"exclusive": ""}, (1, False, False, None)),
    ("exclusive-None", 1, {"exclusive": None}, (1, False, False, None)),
    ("dtype-type", 1, {"dtype": np.float32}, (1, False, False, np.float32)),
    ("dtype-char", 1, {"dtype": "i4"}, (1, False, False, np.int32)),
    ("dtype-big-endian", 1, {"dtype": ">f8"}, (1, False, False, np.float64)),
    ("dtype-dtype-object", 1, {"dtype": np.dtype(np.complex64)}, (1, False, False, np.complex64)),
]


@pytest.mark.parametrize(
    "axis, kw, ref", [a[1:] for a in ACCEPTED], ids=[a[0] for a in ACCEPTED]
)
@pytest.mark.parametrize("op", OPS)
def test_odd_but_valid_arguments(op, axis, kw, ref):
    a = (np.arange(24, dtype=np.float64).reshape(2, 3, 4) % 5) + 1.0
    before = snapshot(a)
    got = func(op)(a, axis, **kw)
    assert_unchanged(a, before)
    ax, decreasing, exclusive, dtype = ref
    check_scan(got, op, a, ax, decreasing, exclusive, dtype)


@pytest.mark.parametrize("op", OPS)
def test_numpy_integer_axes_with_out(op):
    a = np.arange(1, 13, dtype=np.int64).reshape(3, 4)
    for axis, ref_axis in ((np.int64(1), 1), (np.uint8(0), 0), (np.int32(-1), 1)):
        out = np.full((3, 4), 7, dtype=np.int64)
        got = func(op)(a, axis, out=out)
        assert got is out
        check_scan(out, op, a, ref_axis)


# --------------------------------------------------------------------------
# ndarray subclasses are scanned as numpy.asarray would see them
# --------------------------------------------------------------------------
def _matrix(rows):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        return np.matrix(rows)


@pytest.mark.parametrize("op", OPS)
def test_matrix_input_flattens_like_asarray(op):
    """axis=None scans numpy.asarray(m) flattened, [1, 3, 6, 10] for the sum, and returns it as np.cumsum does: a
    matrix, shape (1, 4).  (Builds that pass the np.matrix itself on get its 2-D reshape, shape (1, 4), scanned
    along a length-1 axis: the input comes back unscanned.)"""
    m = _matrix([[1, 2], [3, 4]])
    got = func(op)(m)
    assert type(got) is np.matrix and got.shape == (1, 4)
    check_scan(np.asarray(got).reshape(-1), op, np.asarray(m))


@pytest.mark.parametrize("op", OPS)
def test_matrix_input_with_axis(op):
    m = _matrix([[1, 2], [3, 4]])
    for axis in (0, 1, -1):
        check_scan(func(op)(m, axis), op, np.asarray(m), axis)
