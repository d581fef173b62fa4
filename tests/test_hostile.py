"""Hostile arguments: every wrong argument gets a documented Python exception, and
neither the input nor ``out`` is touched.

The table ``HOSTILE`` lists one call per row (a factory building the arguments
afresh, so generators and other one-shot objects are new every time), the
exception type it must raise and, where the message says something useful, a
fragment of it.  Each row runs for cumsum and cumprod.  The input, ``out`` and
every buffer that ``out`` views are compared byte for byte (dtype and shape too)
with copies taken before the call.
"""

from __future__ import annotations

import copy
import os
import re
import warnings

import numpy as np
import pytest
from numpy.exceptions import AxisError, ComplexWarning
from numpy.lib.stride_tricks import as_strided

import simdscan
from hostile_objects import (
    ArrayInterfaceRaises,
    ArrayRaises,
    ArrayReturnsDatetimes,
    ArrayReturnsInt,
    ArrayReturnsList,
    ArrayReturnsObjects,
    BoolRaises,
    Boom,
    DtypeRaises,
    IndexRaises,
    IndexReturnsFloat,
    IndexReturnsHuge,
    OtherDirection,
    OtherIntDirection,
)
from params import func
from reference import OPS


# --------------------------------------------------------------------------
# snapshots of everything a call may not modify
# --------------------------------------------------------------------------
def _array_state(a: np.ndarray):
    return (a.dtype.str, a.shape, a.strides, a.tobytes())


_SNAPSHOT_LIMIT = 1 << 24  # elements; larger (broadcast) views are compared through their bases


def _buffers(obj):
    """The ndarray itself and every ndarray base below it (a zero-stride or
    overlapping view is compared through the buffer it views too)."""
    found = []
    while obj is not None:
        if isinstance(obj, np.ndarray):
            found.append(obj)
        # as_strided's views hold their buffer through a non-ndarray wrapper with a .base
        obj = getattr(obj, "base", None)
    return found


def _state(obj):
    if isinstance(obj, np.ndarray):
        state = [(b.dtype.str, b.shape, b.strides) if b.size > _SNAPSHOT_LIMIT else _array_state(b)
                 for b in _buffers(obj)]
        assert any(len(s) == 4 for s in state), "nothing small enough to compare"
        return state
    if isinstance(obj, (list, tuple, dict, set, str, bytes)):
        return copy.deepcopy(obj)
    return None  # opaque objects: identity only


def _assert_same(before, obj, what):
    now = _state(obj)
    if now != before:
        raise AssertionError(f"the {what} was modified by a call that raised")


# --------------------------------------------------------------------------
# the table
# --------------------------------------------------------------------------
def f64(*shape):
    """Distinct, non-trivial float64 values (so any write shows)."""
    n = int(np.prod(shape)) if shape else 1
    return (np.arange(n, dtype=np.float64) * 1.25 + 0.5).reshape(shape)


def full7(shape, dtype=np.float64):
    return np.full(shape, 7, dtype=dtype)


def zero_stride_out(n=10, dtype=np.float64):
    buf = np.full(4, 7, dtype=dtype)
    return as_strided(buf, shape=(n,), strides=(0,), writeable=True)


def overlapping_rows_out():
    buf = np.full(5, 7.0)
    # rows start 8 bytes apart but are 3 elements long: elements alias each other
    return as_strided(buf, shape=(3, 3), strides=(8, 8), writeable=True)


def readonly(a):
    a.flags.writeable = False
    return a


def huge_broadcast(dtype=np.float64, shape=(2**40,)):
    """8 TiB worth of float64 elements viewing one; no scan result fits."""
    return np.broadcast_to(np.zeros((1,) * len(shape), dtype=dtype), shape)


def generator():
    return (i for i in range(3))


LONGDOUBLE_IS_WIDE = np.dtype(np.longdouble).itemsize > 8


def _asan_aborts_on_huge_malloc():
    """Under AddressSanitizer a malloc of terabytes aborts the process (allocation-size-too-big)
    unless ASAN_OPTIONS has allocator_may_return_null=1, which lets NumPy raise MemoryError."""
    try:
        with open("/proc/self/maps") as f:
            if "libasan" not in f.read():
                return False
    except OSError:
        return False
    return not re.search(r"allocator_may_return_null=(1|true)\b", os.environ.get("ASAN_OPTIONS", ""))


ASAN_SKIP = (
    "AddressSanitizer aborts on a multi-TiB malloc unless ASAN_OPTIONS has allocator_may_return_null=1"
    if _asan_aborts_on_huge_malloc()
    else None
)


class Case:
    def __init__(self, id, make, exc, match=None, warn_error=False, skip=None, huge_malloc=False):
        self.id = id
        self.make = make  # () -> (a, args, kwargs)
        self.exc = exc
        self.match = match
        self.warn_error = warn_error  # run with warnings turned into errors
        self.skip = skip or (ASAN_SKIP if huge_malloc else None)


def C(id, make, exc, match=None, **kw):
    return Case(id, make, exc, match, **kw)


def M(id, make):
    """A call whose result cannot be allocated: MemoryError, before anything is written."""
    return Case(id, make, MemoryError, None, huge_malloc=True)


def call(a, *args, **kw):
    return lambda: (a() if callable(a) else a, args, kw)


def _inplace(make_a, **kw):
    """out=a: the input must survive the error too."""
    def make():
        a = make_a()
        return a, (), dict(kw, out=a)
    return make


def _with_out(make_a, make_out, *args, **kw):
    def make():
        return make_a(), args, dict(kw, out=make_out())
    return make


HOSTILE = [
    # ---- `a` that is not an array of a supported dtype ------------------
    C("a-None", call(None), TypeError, "object"),
    C("a-None-out", _with_out(lambda: None, lambda: full7(1)), TypeError, "object"),
    C("a-dict", call({1: 2, 3: 4}), TypeError, "object"),
    C("a-set", call({1, 2}), TypeError, "object"),
    C("a-object", call(object()), TypeError, "object"),
    C("a-generator", call(generator), TypeError, "object"),
    C("a-generator-axis0", lambda: (generator(), (0,), {}), TypeError, "object"),
    C("a-list-of-str", call(["1", "2", "3"]), TypeError, "<U1"),
    C("a-mixed-int-str", call([1, "2"]), TypeError, "<U"),
    C("a-str", call("hello"), TypeError, "<U5"),
    C("a-bytes", call(b"hello"), TypeError, "S5"),
    C("a-list-bigint", call([1, 2**70]), TypeError, "object"),
    C("a-datetime64-scalar", call(np.datetime64("2020-01-01")), TypeError, "datetime64"),
    C("a-datetime64-with-dtype", lambda: (np.arange(3).astype("M8[s]"), (), {"dtype": np.int64}),
      TypeError, "datetime64"),
    C("a-object-array-out", _with_out(lambda: np.array([1, 2, 3], dtype=object),
                                      lambda: full7(3)), TypeError, "object"),
    C("a-ragged", call([[1, 2], [3]]), ValueError, "inhomogeneous"),
    C("a-ragged-deep", call([[1, [2]], [3, 4]]), ValueError, "inhomogeneous"),
    C("a-ragged-out", _with_out(lambda: [[1.0, 2.0], [3.0]], lambda: full7(2)), ValueError,
      "inhomogeneous"),
    C("a-__array__-int", call(ArrayReturnsInt()), ValueError, "__array__"),
    C("a-__array__-list", call(ArrayReturnsList()), ValueError, "__array__"),
    C("a-__array__-raises", call(ArrayRaises()), Boom, "__array__ exploded"),
    C("a-__array__-objects", call(ArrayReturnsObjects()), TypeError, "object"),
    C("a-__array__-datetimes", call(ArrayReturnsDatetimes()), TypeError, "datetime64"),
    C("a-__array_interface__-raises", call(ArrayInterfaceRaises()), Boom,
      "__array_interface__ exploded"),
    # ---- axis -------------------------------------------------------------
    C("axis-float", lambda: (f64(2, 3), (1.0,), {}), TypeError, "float"),
    C("axis-numpy-float", lambda: (f64(2, 3), (np.float64(0),), {}), TypeError, "float"),
    C("axis-complex", lambda: (f64(2, 3), (1j,), {}), TypeError, "complex"),
    C("axis-tuple-none", lambda: (f64(2, 3), ((0, None),), {}), TypeError, "NoneType"),
    C("axis-tuple-repeated", lambda: (f64(2, 3), ((0, -2),), {}), ValueError, "twice"),
    C("axis-list", lambda: (f64(2, 3), ([0],), {}), TypeError, "list"),
    C("axis-str", lambda: (f64(2, 3), ("0",), {}), TypeError, "str"),
    C("axis-1d-array", lambda: (f64(2, 3), (np.array([0]),), {}), TypeError, None),
    C("axis-numpy-bool", lambda: (f64(2, 3), (np.True_,), {}), TypeError, None),
    C("axis-2**70", lambda: (f64(2, 3), (2**70,), {}), AxisError, str(2**70)),
    C("axis--2**70", lambda: (f64(2, 3), (-(2**70),), {}), AxisError, str(-(2**70))),
    C("axis-2**63", lambda: (f64(2, 3), (2**63,), {}), AxisError, str(2**63)),
    C("axis--2**63-1", lambda: (f64(2, 3), (-(2**63) - 1,), {}), AxisError, None),
    C("axis-2**63-1", lambda: (f64(2, 3), (2**63 - 1,), {}), AxisError, None),
    C("axis--2**63", lambda: (f64(2, 3), (-(2**63),), {}), AxisError, None),
    C("axis-np.int64-out-of-range", lambda: (f64(2, 3), (np.int64(2),), {}), AxisError, None),
    C("axis-np.uint64-max", lambda: (f64(2, 3), (np.uint64(2**64 - 1),), {}), AxisError, None),
    C("axis-2**70-out", _with_out(lambda: f64(2, 3), lambda: full7((2, 3)), 2**70), AxisError, None),
    C("axis-__index__-raises", lambda: (f64(2, 3), (IndexRaises(),), {}), Boom, "__index__ exploded"),
    C("axis-__index__-float", lambda: (f64(2, 3), (IndexReturnsFloat(),), {}), TypeError, "__index__"),
    C("axis-__index__-huge", lambda: (f64(2, 3), (IndexReturnsHuge(),), {}), AxisError, str(2**80)),
    C("axis-float-inplace", lambda: (lambda a: (a, (0.5,), {"out": a}))(f64(2, 3)), TypeError, "float"),
    # ---- direction --------------------------------------------------------
    C("direction-bytes", lambda: (f64(4), (), {"direction": b"increasing"}), TypeError, "bytes"),
    C("direction-bytearray", lambda: (f64(4), (), {"direction": bytearray(b"decreasing")}),
      TypeError, "bytearray"),
    C("direction-other-enum", lambda: (f64(4), (), {"direction": OtherDirection.DECREASING}),
      TypeError, "OtherDirection"),
    C("direction-int-enum", lambda: (f64(4), (), {"direction": OtherIntDirection.DECREASING}),
      TypeError, "OtherIntDirection"),
    C("direction-None", lambda: (f64(4), (), {"direction": None}), TypeError, "NoneType"),
    C("direction-int", lambda: (f64(4), (), {"direction": 1}), TypeError, "int"),
    C("direction-Direction-class", lambda: (f64(4), (), {"direction": simdscan.Direction}),
      TypeError, None),
    C("direction-Increasing", lambda: (f64(4), (), {"direction": "Increasing"}), ValueError,
      "'Increasing'"),
    C("direction-enum-name", lambda: (f64(4), (), {"direction": "DECREASING"}), ValueError,
      "'DECREASING'"),
    C("direction-nul", lambda: (f64(4), (), {"direction": "increasing\0"}), ValueError, None),
    C("direction-bad-out", _with_out(lambda: f64(4), lambda: full7(4), direction="up"), ValueError,
      "'up'"),
    C("direction-bad-inplace", _inplace(lambda: f64(4), direction="down"), ValueError, "'down'"),
    C("direction-bytes-inplace", _inplace(lambda: f64(4), direction=b"decreasing"), TypeError, "bytes"),
    # ---- exclusive --------------------------------------------------------
    C("exclusive-__bool__-raises", lambda: (f64(4), (), {"exclusive": BoolRaises()}), Boom,
      "__bool__ exploded"),
    C("exclusive-__bool__-raises-inplace", _inplace(lambda: f64(4), exclusive=BoolRaises()), Boom,
      "__bool__ exploded"),
    C("exclusive-array", lambda: (f64(4), (), {"exclusive": np.array([True, False])}), ValueError,
      "truth value"),
    # ---- dtype ------------------------------------------------------------
    C("dtype-unknown", lambda: (f64(3), (), {"dtype": "float99"}), TypeError, "float99"),
    C("dtype-int", lambda: (f64(3), (), {"dtype": 42}), TypeError, "42"),
    C("dtype-raises", lambda: (f64(3), (), {"dtype": DtypeRaises()}), Boom, "dtype exploded"),
    C("dtype-raises-out", _with_out(lambda: f64(3), lambda: full7(3), dtype=DtypeRaises()), Boom,
      "dtype exploded"),
    C("dtype-object", lambda: (f64(3), (), {"dtype": object}), TypeError, "object"),
    C("dtype-bool", lambda: (f64(3), (), {"dtype": bool}), TypeError, "bool"),
    C("dtype-str", lambda: (f64(3), (), {"dtype": str}), TypeError, "<U"),
    C("dtype-bytes", lambda: (f64(3), (), {"dtype": "S3"}), TypeError, "S3"),
    C("dtype-datetime64", lambda: (f64(3), (), {"dtype": "M8[s]"}), TypeError, "datetime64[s]"),
    C("dtype-timedelta64", lambda: (f64(3), (), {"dtype": "m8[s]"}), TypeError, "timedelta64[s]"),
    C("dtype-void", lambda: (f64(3), (), {"dtype": "V8"}), TypeError, "V8"),
    C("dtype-structured", lambda: (f64(3), (), {"dtype": [("a", "f8")]}), TypeError, "'a'"),
    C("dtype-subarray", lambda: (f64(3), (), {"dtype": ("f8", (2,))}), TypeError, "(2,)"),
    C("dtype-longdouble", lambda: (f64(3), (), {"dtype": np.longdouble}), TypeError,
      np.dtype(np.longdouble).name, skip=None if LONGDOUBLE_IS_WIDE else "longdouble is float64 here"),
    C("dtype-clongdouble", lambda: (f64(3), (), {"dtype": np.clongdouble}), TypeError,
      np.dtype(np.clongdouble).name, skip=None if LONGDOUBLE_IS_WIDE else "clongdouble is complex128 here"),
    C("dtype-object-inplace", _inplace(lambda: f64(3), dtype=object), TypeError, "object"),
    # ---- out --------------------------------------------------------------
    C("out-list", _with_out(lambda: f64(3), lambda: [0.0, 0.0, 0.0]), TypeError, "list"),
    C("out-memoryview", _with_out(lambda: f64(3), lambda: memoryview(bytearray(24)).cast("d")),
      TypeError, "memoryview"),
    C("out-scalar", _with_out(lambda: f64(1), lambda: np.float64(0)), TypeError, None),
    C("out-shape-longer", _with_out(lambda: f64(3), lambda: full7(4)), ValueError, "shape"),
    C("out-shape-2d", _with_out(lambda: f64(3), lambda: full7((3, 1))), ValueError, "shape"),
    C("out-shape-transposed", _with_out(lambda: f64(2, 3), lambda: full7((3, 2)), 0), ValueError, "shape"),
    C("out-shape-axis-None", _with_out(lambda: f64(2, 3), lambda: full7((2, 3))), ValueError, "shape"),
    C("out-shape-0d", _with_out(lambda: np.float64(3), lambda: full7(())), ValueError, "shape"),
    C("out-shape-and-dtype", _with_out(lambda: f64(3), lambda: full7(4, np.float32)), ValueError, "shape"),
    C("out-dtype-float32", _with_out(lambda: f64(3), lambda: full7(3, np.float32)), TypeError, "float32"),
    C("out-dtype-int32-vs-int64", _with_out(lambda: np.arange(3, dtype=np.int32),
                                            lambda: full7(3, np.int64)), TypeError, "int64"),
    C("out-dtype-bool", _with_out(lambda: np.ones(3, bool), lambda: full7(3, bool)), TypeError, "bool"),
    C("out-dtype-vs-dtype-arg", _with_out(lambda: f64(3), lambda: full7(3), dtype=np.float32),
      TypeError, "float32"),
    C("out-inplace-dtype-arg", _inplace(lambda: np.arange(1, 4, dtype=np.int32), dtype=np.int64),
      TypeError, "int64"),
    C("out-readonly", _with_out(lambda: f64(3), lambda: readonly(full7(3))), ValueError, "read-only"),
    C("out-readonly-inplace", _inplace(lambda: readonly(f64(3))), ValueError, "read-only"),
    C("out-broadcast", _with_out(lambda: f64(10), lambda: np.broadcast_to(full7(1), (10,))),
      ValueError, "read-only"),
    C("out-zero-stride-writeable", _with_out(lambda: f64(10), zero_stride_out), ValueError, "overlap"),
    C("out-zero-stride-int8", _with_out(lambda: np.arange(10, dtype=np.int8),
                                        lambda: zero_stride_out(10, np.int8)), ValueError, "overlap"),
    C("out-overlapping-rows", _with_out(lambda: f64(3, 3), overlapping_rows_out, 1), ValueError, "overlap"),
    C("out-overlapping-rows-axis0", _with_out(lambda: f64(3, 3), overlapping_rows_out, 0), ValueError,
      "overlap"),
    # ---- results that cannot be allocated -----------------------------------
    M("memory-1d", call(huge_broadcast)),
    M("memory-1d-decreasing-exclusive",
      lambda: (huge_broadcast(), (0,), {"direction": "decreasing", "exclusive": True})),
    M("memory-int8", lambda: (huge_broadcast(np.int8), (), {})),
    M("memory-cast", lambda: (huge_broadcast(), (), {"dtype": np.float32})),
    M("memory-2d-axis1", lambda: (huge_broadcast(shape=(2**20, 2**20)), (1,), {})),
    M("memory-2d-flatten", lambda: (huge_broadcast(shape=(2**20, 2**20)), (), {})),
    # an `out` of the right shape cannot exist for 2**40 elements, except an
    # aliasing one, which is refused before anything is allocated
    C("memory-zero-stride-out", _with_out(huge_broadcast, lambda: zero_stride_out(2**40)), ValueError,
      "overlap"),
    # ---- casts that warn, under warnings-as-errors: the warning propagates --
    C("cast-complex-to-real", _with_out(lambda: np.array([1 + 2j, 3 - 1j]), lambda: full7(2),
                                        dtype=np.float64), ComplexWarning, None, warn_error=True),
    C("cast-nan-to-int", _with_out(lambda: np.array([np.nan, 1.0]), lambda: full7(2, np.int32),
                                   dtype=np.int32), RuntimeWarning, "invalid value", warn_error=True),
    C("cast-overflow-to-float16", lambda: (np.array([1e300, 1.0]), (), {"dtype": np.float16}),
      RuntimeWarning, "overflow", warn_error=True),
]

_ids = [c.id for c in HOSTILE]
assert len(_ids) == len(set(_ids)), "duplicate case ids"


def _params():
    return [
        pytest.param(c, id=c.id, marks=[pytest.mark.skip(reason=c.skip)] if c.skip else [])
        for c in HOSTILE
    ]


@pytest.mark.parametrize("case", _params())
@pytest.mark.parametrize("op", OPS)
def test_hostile_call(op, case):
    a, args, kw = case.make()
    out = kw.get("out")
    a_before = _state(a)
    out_before = _state(out)

    with warnings.catch_warnings():
        if case.warn_error:
            warnings.simplefilter("error")
        with pytest.raises(case.exc) as info:
            func(op)(a, *args, **kw)

    err = info.value
    if case.exc is ValueError:
        # AxisError is a ValueError too; a non-axis problem must not pose as one
        assert not isinstance(err, AxisError), repr(err)
    if case.exc in (TypeError, ValueError, AxisError):
        assert str(err).strip(), "empty error message"
    if case.match is not None:
        assert re.search(re.escape(case.match), str(err)), (
            f"{type(err).__name__} message {str(err)!r} lacks {case.match!r}"
        )
    _assert_same(a_before, a, "input")
    if out is not None:
        _assert_same(out_before, out, "out")


def test_hostile_table_size():
    """The issue asks for at least 60 hostile calls (each runs for both ops)."""
    assert len(HOSTILE) >= 60

