"""Every error of the contract, with the input (and out) unchanged afterwards."""

import re

import numpy as np
import pytest
from numpy.exceptions import AxisError

import simdscan
from reference import OPS, assert_unchanged, snapshot


def _call(op, *args, **kw):
    return getattr(simdscan, op)(*args, **kw)


def _raises_leaving_alone(exc_type, op, a, *args, match=None, **kw):
    sa = snapshot(a)
    out = kw.get("out")
    so = snapshot(out) if out is not None else None
    with pytest.raises(exc_type, match=match) as info:
        _call(op, a, *args, **kw)
    assert_unchanged(a, sa, "input")
    if out is not None:
        assert_unchanged(out, so, "out")
    return info


# --------------------------------------------------------------------------
# axis
# --------------------------------------------------------------------------
AXIS_CASES = [
    # (shape, bad axis)
    ((5,), 1),
    ((5,), 2),
    ((5,), -2),
    ((2, 3), 2),
    ((2, 3), -3),
    ((2, 3), 100),
    ((2, 3), -100),
    ((2, 3, 4), 3),
    ((2, 3, 4), -4),
    ((0,), 1),
    ((0, 3), 2),
    ((0, 3), -3),
    ((), 1),  # 0-d behaves as shape (1,): axis 0 and -1 are fine, 1 is not
    ((), -2),
    ((1, 1, 1, 1, 1, 1, 1, 1, 1), 9),
]


@pytest.mark.parametrize("shape, axis", AXIS_CASES, ids=[f"{s}-axis{a}" for s, a in AXIS_CASES])
@pytest.mark.parametrize("op", OPS)
def test_axis_out_of_range(op, shape, axis):
    a = np.ones(shape, dtype=np.float64)
    _raises_leaving_alone(AxisError, op, a, axis)
    _raises_leaving_alone(AxisError, op, a, axis=axis)


@pytest.mark.parametrize("op", OPS)
def test_axis_error_leaves_out_alone(op):
    a = np.arange(6.0).reshape(2, 3)
    out = np.full((2, 3), 7.0)
    _raises_leaving_alone(AxisError, op, a, 2, out=out)
    _raises_leaving_alone(AxisError, op, a, -3, out=out)


@pytest.mark.parametrize("op", OPS)
def test_axis_error_is_also_value_and_index_error(op):
    """numpy.exceptions.AxisError subclasses both (code catching either works)."""
    a = np.ones((2, 3))
    for exc in (ValueError, IndexError):
        with pytest.raises(exc):
            _call(op, a, 2)


# --------------------------------------------------------------------------
# direction
# --------------------------------------------------------------------------
BAD_DIRECTION_STRINGS = ["up", "down", "", "INCREASING", "Decreasing", " increasing",
                         "increasing ", "inc", "reverse", "DML_AXIS_DIRECTION_INCREASING"]
BAD_DIRECTION_OBJECTS = [3, 0, 1, -1, None, 1.0, True, b"increasing", ["increasing"],
                         ("decreasing",), object()]


@pytest.mark.parametrize("direction", BAD_DIRECTION_STRINGS)
@pytest.mark.parametrize("op", OPS)
def test_bad_direction_string_is_value_error(op, direction):
    a = np.arange(1.0, 5.0)
    out = np.full(4, 7.0)
    info = _raises_leaving_alone(ValueError, op, a, 0, direction=direction)
    msg = str(info.value)
    assert "increasing" in msg and "decreasing" in msg, msg
    _raises_leaving_alone(ValueError, op, a, 0, direction=direction, out=out)
    _raises_leaving_alone(ValueError, op, a, 0, direction=direction, out=a)


@pytest.mark.parametrize(
    "direction", BAD_DIRECTION_OBJECTS,
    ids=[f"{type(d).__name__}{i}" for i, d in enumerate(BAD_DIRECTION_OBJECTS)],
)
@pytest.mark.parametrize("op", OPS)
def test_bad_direction_object_is_type_error(op, direction):
    a = np.arange(1.0, 5.0)
    out = np.full(4, 7.0)
    info = _raises_leaving_alone(TypeError, op, a, 0, direction=direction)
    msg = str(info.value).lower()
    # "naming the allowed values"
    assert "increasing" in msg and "decreasing" in msg, str(info.value)
    _raises_leaving_alone(TypeError, op, a, 0, direction=direction, out=out)


def test_issue_examples_of_direction_errors():
    with pytest.raises(ValueError, match="increasing") as info:
        simdscan.cumsum([1, 2, 3], direction="up")
    assert "decreasing" in str(info.value)
    with pytest.raises(TypeError):
        simdscan.cumsum([1, 2, 3], direction=3)
    with pytest.raises(TypeError):
        simdscan.cumprod([1, 2, 3], direction=3)


# --------------------------------------------------------------------------
# unsupported dtypes
# --------------------------------------------------------------------------
def _unsupported_arrays():
    structured = np.zeros(3, dtype=[("a", "f8"), ("b", "i4")])
    structured["a"] = [1, 2, 3]
    return [
        ("object", np.array([1, 2, 3], dtype=object)),
        ("object-floats", np.array([1.5, 2.5], dtype=object)),
        ("str", np.array(["1", "2", "3"])),
        ("bytes", np.array([b"1", b"2", b"3"])),
        ("datetime64", np.array(["2020-01-01", "2020-01-02"], dtype="datetime64[D]")),
        ("datetime64-ns", np.arange(3).astype("datetime64[ns]")),
        ("timedelta64", np.arange(3).astype("timedelta64[s]")),
        ("void", np.zeros(3, dtype="V8")),
        ("structured", structured),
    ] + (
        # extended precision is not in the supported list (where it exists)
        [("longdouble", np.arange(3, dtype=np.longdouble)),
         ("clongdouble", np.arange(3, dtype=np.clongdouble))]
        if np.dtype(np.longdouble).itemsize > 8
        else []
    )


UNSUPPORTED = _unsupported_arrays()


def _names_dtype(msg, dt):
    dt = np.dtype(dt)
    names = {str(dt), dt.name, repr(dt), dt.str}
    if dt.kind == "O":
        names.add("object")
    return any(n in msg for n in names), names


@pytest.mark.parametrize("name, a", UNSUPPORTED, ids=[u[0] for u in UNSUPPORTED])
@pytest.mark.parametrize("op", OPS)
def test_unsupported_input_dtype_is_type_error(op, name, a):
    info = _raises_leaving_alone(TypeError, op, a)
    ok, names = _names_dtype(str(info.value), a.dtype)
    assert ok, f"message {str(info.value)!r} names none of {sorted(names)}"
    _raises_leaving_alone(TypeError, op, a, 0, direction="decreasing", exclusive=True)
    out = np.zeros(a.shape, dtype=np.float64)
    _raises_leaving_alone(TypeError, op, a, 0, out=out)


UNSUPPORTED_DTYPE_ARGS = [object, "U3", "S3", "datetime64[s]", "timedelta64[s]", "V8",
                          [("a", "f8"), ("b", "i4")]]


@pytest.mark.parametrize("dtype", UNSUPPORTED_DTYPE_ARGS, ids=str)
@pytest.mark.parametrize("op", OPS)
def test_unsupported_dtype_argument_is_type_error(op, dtype):
    a = np.arange(1, 4, dtype=np.int64)
    info = _raises_leaving_alone(TypeError, op, a, dtype=dtype)
    ok, names = _names_dtype(str(info.value), dtype)
    assert ok, f"message {str(info.value)!r} names none of {sorted(names)}"


# --------------------------------------------------------------------------
# API shape: keyword-only arguments
# --------------------------------------------------------------------------
@pytest.mark.parametrize("op", OPS)
def test_direction_and_others_are_keyword_only(op):
    a = np.arange(1.0, 5.0)
    with pytest.raises(TypeError):
        _call(op, a, 0, "decreasing")
    with pytest.raises(TypeError):
        _call(op, a, 0, "increasing", True)
    np.testing.assert_array_equal(a, np.arange(1.0, 5.0))


@pytest.mark.parametrize("op", OPS)
def test_unknown_keyword_is_type_error(op):
    with pytest.raises(TypeError):
        _call(op, np.arange(3.0), reverse=True)


def test_error_messages_are_not_empty():
    with pytest.raises(TypeError) as info:
        simdscan.cumsum(np.array(["a"]))
    assert re.search(r"\w", str(info.value))
