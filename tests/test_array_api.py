"""simdscan.cumulative_sum / cumulative_prod against NumPy's np.cumulative_sum / np.cumulative_prod (NumPy 2.1+).

NumPy is the oracle for the result dtype, the shape, the errors and the warnings, and for integer values bit for
bit; floating values are checked against the wide reference of reference.py within its rounding-error bound
(simdscan adds in another order, and float16 in float32).
"""

import warnings

import numpy as np
import pytest

import simdscan
from data import make_data, seed_of
from reference import (
    DEFAULT_INT,
    LAYOUTS,
    SUPPORTED_DTYPES,
    apply_layout,
    assert_unchanged,
    check_values,
    expected,
    snapshot,
)

if not hasattr(np, "cumulative_sum"):  # pragma: no cover - NumPy < 2.1
    pytest.skip("NumPy's cumulative_sum arrived in NumPy 2.1", allow_module_level=True)

OPS = {  # simdscan's function, NumPy's, the op of reference.py, the identity
    "cumulative_sum": (simdscan.cumulative_sum, np.cumulative_sum, "cumsum", 0),
    "cumulative_prod": (simdscan.cumulative_prod, np.cumulative_prod, "cumprod", 1),
}
DTYPE_NAMES = [d.name for d in SUPPORTED_DTYPES]


def _data(name, shape, dtype, *key):
    rng = np.random.default_rng(seed_of(name, shape, str(dtype), *key))
    return make_data(rng, shape, np.dtype(dtype), OPS[name][2])


def numpy_result(name, x, axis, decreasing=False, **kwargs):
    """NumPy's function; decreasing: on the flipped axis, flipped back (the identity then stands last)."""
    func = OPS[name][1]
    if not decreasing:
        return func(x, axis=axis, **kwargs)
    ax = 0 if axis is None else axis
    flipped = np.flip(np.atleast_1d(x), ax)
    return np.flip(func(flipped, axis=axis, **kwargs), ax)


def check_like_numpy(got, name, x, axis, decreasing, include_initial, dtype=None, out=None):
    """got has NumPy's dtype and shape; integers equal NumPy's bit for bit; floats lie within the rounding-error
    bound of the exact scan, and the identity of include_initial is exact. ``out``: NumPy gets one like it."""
    extra = {} if out is None else {"out": np.empty_like(out)}
    want = numpy_result(name, x, axis, decreasing, include_initial=include_initial, dtype=dtype, **extra)
    where = f"{name}(shape={np.shape(x)}, dtype={np.asarray(x).dtype}, axis={axis}, decreasing={decreasing}, " \
            f"include_initial={include_initial}, dtype={dtype})"
    assert isinstance(got, np.ndarray), where
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype}, NumPy's {want.dtype}"
    assert got.shape == want.shape, f"{where}: shape {got.shape}, NumPy's {want.shape}"
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want, err_msg=where, strict=True)
        return
    ax = 0 if axis is None else axis % max(np.ndim(x), 1)
    body = got
    if include_initial:
        body = np.delete(got, -1 if decreasing else 0, axis=ax)
        edge = np.take(got, [-1 if decreasing else 0], axis=ax)
        assert np.all(edge == OPS[name][3]), f"{where}: the identity is {edge}"
    check_values(body, expected(OPS[name][2], np.atleast_1d(x), ax, decreasing, False, want.dtype), where)


# --------------------------------------------------------------------------
# values, dtypes and shapes: every dtype, layout, axis, direction and include_initial
# --------------------------------------------------------------------------
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPE_NAMES)
@pytest.mark.parametrize("name", sorted(OPS))
def test_every_dtype_layout_axis(name, dtype, layout):
    x = apply_layout(_data(name, (4, 5, 6), dtype, layout), layout)
    snap = snapshot(x)
    for axis in (0, 1, 2, -1):
        for decreasing in (False, True):
            for include_initial in (False, True):
                got = OPS[name][0](x, axis=axis, include_initial=include_initial,
                                   direction="decreasing" if decreasing else "increasing")
                check_like_numpy(got, name, x, axis, decreasing, include_initial)
    assert_unchanged(x, snap)


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
@pytest.mark.parametrize("name", sorted(OPS))
def test_one_dimensional_without_axis(name, dtype):
    x = _data(name, (37,), dtype)
    for decreasing in (False, True):
        for include_initial in (False, True):
            got = OPS[name][0](x, include_initial=include_initial, direction=simdscan.Direction.DECREASING
                               if decreasing else simdscan.Direction.INCREASING)
            check_like_numpy(got, name, x, None, decreasing, include_initial)


@pytest.mark.parametrize("name", sorted(OPS))
def test_long_line_through_the_threaded_kernels(name):
    x = _data(name, (300_007,), "int32")
    for include_initial in (False, True):
        check_like_numpy(OPS[name][0](x, include_initial=include_initial), name, x, None, False, include_initial)


@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("threads", (1, 2))
def test_new_results_past_32_mib(name, threads, restore_thread_count):
    # The result made here (_core.new_result) has its pages mapped by all the threads first: NumPy's values still.
    x = _data(name, (9_000_000,), "int32")  # 72 MB of int64 out (with the initial element)
    simdscan.set_num_threads(threads)
    for include_initial in (False, True):
        check_like_numpy(OPS[name][0](x, include_initial=include_initial), name, x, None, False, include_initial)


@pytest.mark.parametrize("name", sorted(OPS))
def test_decreasing_puts_the_identity_last(name):
    func, _, _, one = OPS[name]
    x = np.array([1, 2, 3, 4], dtype=np.int16)
    got = func(x, include_initial=True, direction="decreasing")
    want = [10, 9, 7, 4, 0] if one == 0 else [24, 24, 12, 4, 1]
    np.testing.assert_array_equal(got, np.array(want, dtype=np.int64), strict=True)


# --------------------------------------------------------------------------
# NumPy's dtype rules: every input dtype with every dtype= and every out dtype, and the warnings of the casts
# --------------------------------------------------------------------------
VALUES = [100, 27, 3, 1, 0, 2, -3, 5]  # exact in every dtype's arithmetic; int8 sums and products wrap


def _both(name, x, **kwargs):
    """(simdscan's outcome, NumPy's outcome): each the result or the exception type, and the warnings."""
    outcomes = []
    for func in (OPS[name][0], OPS[name][1]):
        call = dict(kwargs)
        if "out" in call:
            call["out"] = np.full_like(kwargs["out"], 7)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = func(x, **call)
            except Exception as error:  # noqa: BLE001 - the type is compared with NumPy's
                result = type(error)
        if "out" in call and not isinstance(result, type):
            assert result is call["out"], "out= is returned"
        outcomes.append((result, {f"{w.category.__name__}: {w.message}" for w in caught}))
    return outcomes


INVALID_CAST = "RuntimeWarning: invalid value encountered in cast"
COMPLEX_CAST = "ComplexWarning: Casting complex values to real discards the imaginary part"


def _assert_same(mine, numpys, where, optional=()):
    """The same result (or exception type), dtype and warnings (but those in ``optional``)."""
    (got, got_warnings), (want, want_warnings) = mine, numpys
    if INVALID_CAST in got_warnings | want_warnings:
        # a float outside the range of out's integer dtype: C leaves the value undefined, and NumPy's own cast
        # loops differ (its accumulate's buffered cast gives another value than its copyto, and does not warn)
        optional = (*optional, INVALID_CAST)
        assert isinstance(got, np.ndarray) and isinstance(want, np.ndarray), where
        want = got = got.dtype == want.dtype
    got_warnings, want_warnings = got_warnings - set(optional), want_warnings - set(optional)
    # NumPy reports the floating-point exceptions of its loop (overflow to inf, inf * 0); simdscan's kernels do not
    want_warnings = {w for w in want_warnings if not w.endswith("encountered in accumulate")}
    assert got_warnings == want_warnings, f"{where}: warnings {got_warnings}, NumPy's {want_warnings}"
    if isinstance(want, type):
        assert isinstance(got, type) and issubclass(got, want), f"{where}: {got}, NumPy raises {want.__name__}"
        return
    assert not isinstance(got, type), f"{where}: raised {got.__name__}, NumPy returns {want.dtype}"
    np.testing.assert_array_equal(got, want, err_msg=where, strict=True)


@pytest.mark.parametrize("in_dtype", DTYPE_NAMES)
@pytest.mark.parametrize("name", sorted(OPS))
def test_dtype_and_out_rules_match_numpy(name, in_dtype):
    x = np.array(VALUES).astype(in_dtype)
    for include_initial in (False, True):
        _assert_same(*_both(name, x, include_initial=include_initial), f"{in_dtype} in")
        for other in DTYPE_NAMES:
            where = f"{in_dtype} in, include_initial={include_initial}"
            _assert_same(*_both(name, x, dtype=other, include_initial=include_initial), f"{where}, dtype={other}")
            out = np.empty(len(VALUES) + include_initial, dtype=other)
            _assert_same(*_both(name, x, out=out, include_initial=include_initial), f"{where}, out {other}")
            for dtype in ("int8", "float32", "complex128"):
                # NumPy's accumulate also casts out's complex dtype to a real loop's (out is read-write in its
                # iterator) and warns for that, though no value loses an imaginary part: simdscan does not
                spurious = (COMPLEX_CAST,) if out.dtype.kind == "c" != np.dtype(dtype).kind else ()
                _assert_same(*_both(name, x, dtype=dtype, out=out, include_initial=include_initial),
                             f"{where}, dtype={dtype}, out {other}", spurious)


def test_small_integers_and_bool_widen_as_in_numpy():
    uint = np.dtype(np.uintp)
    for dtype in ("int8", "int16", "int32", "uint8", "uint16", "uint32", "bool"):
        want = uint if np.dtype(dtype).kind == "u" else DEFAULT_INT
        assert simdscan.cumulative_sum(np.ones(3, dtype)).dtype == want == np.cumulative_sum(np.ones(3, dtype)).dtype
        assert simdscan.cumulative_prod(np.ones(3, dtype)).dtype == want


@pytest.mark.parametrize("name", sorted(OPS))
def test_bool_loops_are_logical(name):
    """dtype=bool, or bool in and out: NumPy's bool loops, logical or (sum) and logical and (product)."""
    rng = np.random.default_rng(seed_of(name, "bool loops"))
    for x in (rng.integers(0, 2, size=(6, 50)).astype(bool), rng.integers(-2, 3, size=(6, 50)),
              rng.uniform(-1, 1, size=(6, 50)).round(), np.zeros((6, 50)), np.ones((6, 50), dtype=bool)):
        for axis in (0, 1):
            for decreasing in (False, True):
                for include_initial in (False, True):
                    got = OPS[name][0](x, axis=axis, dtype=bool, include_initial=include_initial,
                                       direction="decreasing" if decreasing else "increasing")
                    want = numpy_result(name, x, axis, decreasing, dtype=bool, include_initial=include_initial)
                    np.testing.assert_array_equal(got, want, strict=True)
        out = np.empty(x.shape, dtype=bool)
        assert OPS[name][0](x.astype(bool), axis=1, out=out) is out
        np.testing.assert_array_equal(out, OPS[name][1](x.astype(bool), axis=1, out=np.empty_like(out)), strict=True)


def test_float16_adds_in_float32():
    ones = np.ones(4096, dtype=np.float16)
    assert simdscan.cumulative_sum(ones)[-1] == 4096
    assert np.cumulative_sum(ones)[-1] == 2048  # NumPy rounds every partial sum


@pytest.mark.parametrize("name", sorted(OPS))
def test_dtypes_beyond_the_kernels(name):
    """longdouble / object input cast to a dtype= the kernels have, as NumPy casts; scans in them: TypeError."""
    func, numpys, _, _ = OPS[name]
    for x in (np.arange(1, 6, dtype=np.longdouble), np.array([1, 2, 3, 4, 5], dtype=object)):
        for dtype in ("float64", "int32", "bool"):
            np.testing.assert_array_equal(func(x, dtype=dtype), numpys(x, dtype=dtype), strict=True)
        with pytest.raises(TypeError, match="does not support dtype"):
            func(x)
    with pytest.raises(TypeError, match="does not support dtype"):
        func(np.arange(3), out=np.empty(3, dtype=np.longdouble))


# --------------------------------------------------------------------------
# shapes: 0-d, empty, lists
# --------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(OPS))
def test_zero_dimensional_and_empty_inputs(name):
    func, numpys, _, _ = OPS[name]
    cases = [
        (np.float32(3), {}), (5, {}), (5, {"include_initial": True}), (np.array(2.5), {"axis": 0}),
        (np.array(7, dtype=np.int8), {"axis": -1, "include_initial": True}),
        ([], {}), ([], {"include_initial": True}), (np.ones((0, 3)), {"axis": 0, "include_initial": True}),
        (np.ones((2, 0), dtype=np.int16), {"axis": 0, "include_initial": True}),
        (np.ones((2, 0), dtype=np.int16), {"axis": 1, "include_initial": True}),
        ([[1, 2], [3, 4]], {"axis": 1}), ([1, 2.5, 4], {"include_initial": True}),
        ([[1, 2], [3, 4]], {"axis": (1,)}), ([1, 2], {"axis": np.int64(0)}), ([1, 2], {"include_initial": 2}),
    ]
    for x, kwargs in cases:
        np.testing.assert_array_equal(func(x, **kwargs), numpys(x, **kwargs), strict=True, err_msg=f"{x} {kwargs}")


# --------------------------------------------------------------------------
# out= and in place
# --------------------------------------------------------------------------
def _outs(shape, dtype):
    """out arrays of several layouts, each (out, its buffer)."""
    yield (buf := np.full(shape, 57, dtype=dtype)), buf
    buf = np.full(shape[:-1] + (2 * shape[-1],), 57, dtype=dtype)
    yield buf[..., ::2], buf
    buf = np.full(shape, 57, dtype=dtype)
    yield buf[::-1, ::-1], buf
    yield (buf := np.full(shape, 57, dtype=np.dtype(dtype).newbyteorder("S"))), buf
    yield (buf := np.full(shape, 57, dtype=dtype, order="F")), buf


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "uint8", "complex64"])
@pytest.mark.parametrize("name", sorted(OPS))
def test_out_of_every_layout(name, dtype):
    x = _data(name, (7, 9), dtype)
    for axis in (0, 1):
        for include_initial in (False, True):
            for decreasing in (False, True):
                want = OPS[name][0](x, axis=axis, include_initial=include_initial,
                                    direction="decreasing" if decreasing else "increasing")
                for out, buf in _outs(want.shape, want.dtype):
                    got = OPS[name][0](x, axis=axis, include_initial=include_initial, out=out,
                                       direction="decreasing" if decreasing else "increasing")
                    assert got is out
                    check_like_numpy(out, name, x, axis, decreasing, include_initial, out=out)
                    if buf.size > out.size:
                        assert np.all(buf[..., 1::2] == 57), "an element outside out was written"


@pytest.mark.parametrize("name", sorted(OPS))
def test_in_place(name):
    func, numpys, _, _ = OPS[name]
    for dtype in ("int64", "float64", "uint64", "complex128"):
        x = _data(name, (5, 8), dtype)
        y = x.copy()
        assert func(y, axis=1, out=y) is y
        check_like_numpy(y, name, x, 1, False, False)
        # include_initial in place: the input is out's tail (increasing) or head (decreasing)
        buf = np.empty((5, 9), dtype=dtype)
        buf[:, 1:] = x
        assert func(buf[:, 1:], axis=1, out=buf, include_initial=True) is buf
        check_like_numpy(buf, name, x, 1, False, True)
        buf[:, :-1] = x
        func(buf[:, :-1], axis=1, out=buf, include_initial=True, direction="decreasing")
        check_like_numpy(buf, name, x, 1, True, True)
        # out overlapping the input by one element: the scan still reads every input before it is overwritten
        buf = np.concatenate([x, x[:, :1]], axis=1)
        func(buf[:, :-1], axis=1, out=buf, include_initial=True)
        check_like_numpy(buf, name, x, 1, False, True)


# --------------------------------------------------------------------------
# errors: NumPy's exception types, clear messages, out and input untouched
# --------------------------------------------------------------------------
def _bad_calls():
    x2 = np.arange(1.0, 13.0).reshape(3, 4)
    ro = np.zeros((3, 4))
    ro.flags.writeable = False
    return [  # (x, kwargs, exception type, message pattern, whether NumPy has the argument)
        (x2, {}, ValueError, "more than one dimension ``axis`` argument is required", True),
        (x2, {"out": np.zeros((3, 4))}, ValueError, "argument is required", True),
        (x2, {"axis": 2}, np.exceptions.AxisError, "axis 2 is out of bounds for array of dimension 2", True),
        (x2, {"axis": -3, "out": np.zeros((3, 4))}, np.exceptions.AxisError, "out of bounds", True),
        (np.array(1.0), {"axis": 1}, np.exceptions.AxisError, "dimension 1", True),
        (x2, {"axis": (0, 1)}, ValueError, "does not allow multiple axes", True),
        (x2, {"axis": ()}, ValueError, "does not allow multiple axes", True),
        (x2, {"axis": 1.0}, TypeError, "float", True),
        (x2, {"axis": [1]}, TypeError, "list", True),
        (x2, {"axis": True}, TypeError, "integer", True),
        (x2, {"axis": np.True_}, TypeError, "integer", True),
        (x2, {"axis": 1, "out": np.zeros((3, 5))}, ValueError, r"out has shape \(3, 5\), the result has shape", True),
        (x2, {"axis": 1, "out": np.zeros((3, 4)), "include_initial": True}, ValueError, r"\(3, 5\)", True),
        (x2, {"axis": 1, "out": np.zeros((4, 5)), "include_initial": True}, ValueError, "out has shape", True),
        (x2, {"axis": 1, "out": np.zeros((1, 3, 4))}, ValueError, "out has shape", True),
        (x2, {"axis": 1, "out": [0] * 12}, TypeError, "out must be a numpy.ndarray, got list", True),
        (x2, {"axis": 1, "out": ro}, ValueError, "read-only", True),
        (x2, {"axis": 1, "dtype": ">f8", "out": np.zeros((3, 4))}, TypeError, "byte order", True),
        (x2, {"axis": 1, "dtype": "S3"}, TypeError, "", True),
        (x2, {"axis": 1, "dtype": "nonsense"}, TypeError, "not understood", True),
        (x2, {"axis": 1, "include_initial": np.array([1, 1])}, ValueError, "ambiguous", True),
        (np.array(["a", "b"]), {}, TypeError, "", True),
        (x2, {"axis": 1, "direction": "up", "out": np.zeros((3, 4))}, ValueError, "'increasing' or 'decreasing'",
         False),
        (x2, {"axis": 1, "direction": 1}, TypeError, "direction must be a simdscan.Direction", False),
        (x2, {"axis": 1, "out": np.zeros((3, 4)), "direction": ("decreasing",)}, TypeError, "direction", False),
    ]


@pytest.mark.parametrize("name", sorted(OPS))
def test_errors_match_numpy_and_touch_nothing(name):
    func, numpys, _, _ = OPS[name]
    for x, kwargs, error, message, numpy_has_it in _bad_calls():
        message = message or None
        snap = snapshot(x)
        out = kwargs.get("out")
        out_snap = snapshot(out) if isinstance(out, np.ndarray) else None
        with pytest.raises(error, match=message):
            func(x, **kwargs)
        assert_unchanged(x, snap)
        if out_snap is not None:
            assert_unchanged(out, out_snap, "out")
        if numpy_has_it:
            with pytest.raises(error):
                numpys(x, **kwargs)


def test_positional_only_and_keyword_only():
    with pytest.raises(TypeError):
        simdscan.cumulative_sum(x=[1, 2])
    with pytest.raises(TypeError):
        simdscan.cumulative_prod([[1, 2]], 0)
