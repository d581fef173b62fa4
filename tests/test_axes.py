"""Scans along several axes at once: cumsum / cumprod with a tuple axis (summed-area tables), and the generic
helper simdscan._axes.scan_axes behind them, against nested NumPy scans.

Integers are compared bit for bit with NumPy's scans nested in the result dtype (which wrap as simdscan's do);
floats against the nested scans in float64 / complex128, within the rounding-error bound of scanning the axes one
after the other: an output whose prefix holds m_k terms along the k-th scanned axis is within
(m_1 + ... + m_K) * u * sum|x| of the exact total of its box (plus, for float16, one rounding to float16 per axis).
"""

import doctest

import numpy as np
import pytest

import simdscan
import simdscan._axes
from data import make_data, scan_data, seed_of
from reference import (
    IDENTITY,
    LAYOUTS,
    OPS,
    SUPPORTED_DTYPES,
    _U_ACC,
    _U_REF,
    _complex_mul_gamma,
    _gamma,
    apply_layout,
    assert_unchanged,
    directional,
    result_dtype,
    snapshot,
)
from compare import check_real

NP_FUNC = {"cumsum": np.cumsum, "cumprod": np.cumprod}
DTYPE_NAMES = [d.name for d in SUPPORTED_DTYPES]
AXES_3D = [(0, 1), (1, 2), (2, 0), (0, 1, 2), (-1, 0), (2, 1, 0), (1,)]


def nested(op, x, axes, decreasing, exclusive, dtype):
    """NumPy's scan along each axis in turn, in ``dtype``; per-axis flags."""
    r = x.astype(dtype)
    for ax, d, e in zip(axes, decreasing, exclusive):
        r = directional(NP_FUNC[op], r, ax, d, e, IDENTITY[op], dtype)
    return r


def check_nested(got, op, x, axis, decreasing=False, exclusive=False, dtype=None, where=""):
    """``got`` is simdscan's ``op(x, axis=axis, ...)``: its dtype, shape and values."""
    x = np.asarray(x)
    axes = tuple(a % max(x.ndim, 1) for a in axis)
    x1 = x.reshape(1) if x.ndim == 0 else x
    dec = decreasing if isinstance(decreasing, tuple) else (decreasing,) * len(axes)
    exc = exclusive if isinstance(exclusive, tuple) else (exclusive,) * len(axes)
    rdt = result_dtype(x.dtype, dtype)
    where = where or f"{op}(shape={x.shape}, {x.dtype}, axis={axis}, decreasing={dec}, exclusive={exc}, dtype={dtype})"
    assert isinstance(got, np.ndarray), where
    assert got.dtype.newbyteorder("=") == rdt, f"{where}: dtype {got.dtype}, expected {rdt}"
    assert got.shape == x1.shape, f"{where}: shape {got.shape}"
    if rdt.kind in "iu":
        np.testing.assert_array_equal(got.astype(rdt), nested(op, x1, axes, dec, exc, rdt), err_msg=where)
        return
    wide = np.complex128 if rdt.kind == "c" else np.float64
    with np.errstate(all="ignore"):
        xw = x1.astype(rdt).astype(wide)
        value = nested(op, xw, axes, dec, exc, wide)
        terms = sum(nested("cumsum", np.ones(x1.shape), (ax,), (d,), (e,), np.float64)
                    for ax, d, e in zip(axes, dec, exc))
        rounding = len(axes) * 2.0**-11 if rdt == np.float16 else 0.0  # float16 stores each axis' result
        gw = got.astype(wide)
        if op == "cumsum":
            parts = ((gw.real, value.real, xw.real), (gw.imag, value.imag, xw.imag)) if rdt.kind == "c" else \
                ((gw, value, xw),)
            for g, v, xp in parts:
                box = nested("cumsum", np.abs(xp), axes, dec, exc, np.float64)
                tol = (terms * (_U_ACC[rdt.name] + _U_REF) + rounding) * box
                check_real("", g, v, tol, False, where)
        else:
            box = nested("cumprod", np.abs(xw), axes, dec, exc, np.float64)
            # an output is the product of prod(m_k) factors; the k-th pass multiplies prod(m_k..m_K) rounded values,
            # so fewer than len(axes) * prod(m_k) roundings stand between it and the exact product
            factors = len(axes) * np.prod([nested("cumsum", np.ones(x1.shape), (ax,), (d,), (e,), np.float64)
                                           for ax, d, e in zip(axes, dec, exc)], axis=0)
            g = _complex_mul_gamma if rdt.kind == "c" else _gamma
            rounding = factors * 2.0**-11 if rdt == np.float16 else 0.0
            tol = (g(factors, _U_ACC[rdt.name]) + g(factors, _U_REF) + rounding) * box
            err = np.abs(gw - value)
            assert np.all(err <= tol), f"{where}: worst error {np.max(err - tol)} over the bound"


def _data(op, shape, dtype, *key):
    rng = np.random.default_rng(seed_of(op, shape, str(dtype), *key))
    return make_data(rng, shape, np.dtype(dtype), op, line=int(np.prod(shape)))


# --------------------------------------------------------------------------
# every dtype, layout, axes, direction and exclusive against nested NumPy
# --------------------------------------------------------------------------
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPE_NAMES)
@pytest.mark.parametrize("op", OPS)
def test_every_dtype_layout(op, dtype, layout):
    x = apply_layout(_data(op, (4, 5, 6), dtype, layout), layout)
    snap = snapshot(x)
    func = getattr(simdscan, op)
    for axis in AXES_3D:
        for decreasing in (False, True):
            for exclusive in (False, True):
                direction = "decreasing" if decreasing else "increasing"
                got = func(x, axis=axis, direction=direction, exclusive=exclusive)
                check_nested(got, op, x, axis, decreasing, exclusive)
    assert_unchanged(x, snap)


@pytest.mark.parametrize("dtype", DTYPE_NAMES)
@pytest.mark.parametrize("op", OPS)
def test_one_flag_per_axis(op, dtype):
    x = _data(op, (5, 6, 7), dtype, "per axis")
    func = getattr(simdscan, op)
    for decreasing in ((False, True), (True, False)):
        for exclusive in ((True, False), (False, True), (True, True)):
            direction = tuple(simdscan.Direction.DECREASING if d else "increasing" for d in decreasing)
            got = func(x, axis=(2, 0), direction=direction, exclusive=exclusive)
            check_nested(got, op, x, (2, 0), decreasing, exclusive)
    got = func(x, axis=(0, 1, 2), direction=("increasing", "decreasing", "decreasing"), exclusive=(False,) * 3)
    check_nested(got, op, x, (0, 1, 2), (False, True, True), False)


@pytest.mark.parametrize("op", OPS)
def test_threaded_sizes(op):
    """Axes long enough for the thread pool and the outer-axis kernels."""
    rng = np.random.default_rng(seed_of(op, "threaded"))
    for dtype in ("int32", "float32", "float64"):
        x = scan_data(rng, (700, 900), dtype, op)
        check_nested(getattr(simdscan, op)(x, axis=(0, 1)), op, x, (0, 1))
        check_nested(getattr(simdscan, op)(x, axis=(1, 0), exclusive=True), op, x, (1, 0), exclusive=True)


def test_tuple_of_one_axis_is_that_axis():
    x = _data("cumsum", (4, 6), "float32")
    for op in OPS:
        func = getattr(simdscan, op)
        np.testing.assert_array_equal(func(x, axis=(1,), direction=("decreasing",), exclusive=(True,)),
                                      func(x, axis=1, direction="decreasing", exclusive=True), strict=True)
        np.testing.assert_array_equal(func(np.float32(3), axis=(0,)), func(np.float32(3), axis=0), strict=True)


# --------------------------------------------------------------------------
# dtype=, out= and in place
# --------------------------------------------------------------------------
@pytest.mark.parametrize("target", ["int32", "float64", "int64", "float32", "uint16"])
def test_uint8_image_integral(target):
    """cv2.integral's cases: uint8 in, a wider sum out; (H+1, W+1) with a zero first row and column via out=."""
    rng = np.random.default_rng(seed_of("integral", target))
    img = rng.integers(0, 256, size=(123, 457), dtype=np.uint8)
    snap = snapshot(img)
    full = np.cumsum(np.cumsum(img, axis=0, dtype=np.int64), axis=1, dtype=np.int64)
    want = np.zeros((124, 458), dtype=np.int64)
    want[1:, 1:] = full
    got = simdscan.cumsum(img, axis=(0, 1), dtype=target)
    assert got.dtype == target
    np.testing.assert_array_equal(got, full.astype(target))
    integral = np.zeros((124, 458), dtype=target)
    assert simdscan.cumsum(img, axis=(0, 1), dtype=target, out=integral[1:, 1:]) is not None
    np.testing.assert_array_equal(integral, want.astype(target))
    np.testing.assert_array_equal(simdscan.cumsum(img, axis=(0, 1), dtype=target, exclusive=True),
                                  want[:-1, :-1].astype(target))
    assert_unchanged(img, snap)


def _outs(shape, dtype):
    """out arrays of several layouts, each with the buffer it lies in."""
    buf = np.full(shape, 57, dtype=dtype)
    yield buf, buf
    buf = np.full(shape[:-1] + (2 * shape[-1],), 57, dtype=dtype)
    yield buf[..., ::2], buf
    buf = np.full(shape, 57, dtype=dtype)
    yield buf[::-1, ::-1], buf
    buf = np.full(shape, 57, dtype=np.dtype(dtype).newbyteorder("S"))
    yield buf, buf
    buf = np.full(shape, 57, dtype=dtype, order="F")
    yield buf, buf


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "int8", "int32", "uint64", "bool"])
@pytest.mark.parametrize("op", OPS)
def test_out_of_every_layout_and_in_place(op, dtype):
    func = getattr(simdscan, op)
    x = _data(op, (6, 7, 8), dtype, "out")
    rdt = result_dtype(x.dtype)
    for axis, decreasing, exclusive in (((0, 2), False, True), ((2, 1, 0), (True, False, True), False)):
        for out, buf in _outs(x.shape, rdt):
            assert func(x, axis=axis, direction=_directions(decreasing), exclusive=exclusive, out=out) is out
            check_nested(out, op, x, axis, decreasing, exclusive)
            if buf.size > out.size:
                assert np.all(buf[..., 1::2] == 57), "an element outside out was written"
        if dtype != "bool":  # in place (out=x): bool's result is an integer, another dtype
            y = x.copy()
            assert func(y, axis=axis, direction=_directions(decreasing), exclusive=exclusive, out=y) is y
            check_nested(y, op, x, axis, decreasing, exclusive)


def _directions(decreasing):
    if isinstance(decreasing, tuple):
        return tuple("decreasing" if d else "increasing" for d in decreasing)
    return "decreasing" if decreasing else "increasing"


def test_dtype_casts_into_out_and_compensated_reaches_every_axis():
    rng = np.random.default_rng(seed_of("dtype and out"))
    x = rng.integers(-100, 100, size=(30, 40)).astype(np.int16)
    out = np.empty((30, 40), dtype=np.float32)
    assert simdscan.cumsum(x, axis=(0, 1), dtype=np.float32, out=out, compensated=True) is out
    check_nested(out, "cumsum", x, (0, 1), dtype=np.float32)
    # compensated: each output within 2u per axis of its box's exact sum, however long the axes
    v = rng.uniform(0.0, 1.0, size=(2000, 300)).astype(np.float32)
    got = simdscan.cumsum(v, axis=(1, 0), compensated=True).astype(np.float64)
    exact = np.cumsum(np.cumsum(v.astype(np.float64), axis=1), axis=0)
    assert np.all(np.abs(got - exact) <= 2 * 2 * 2.0**-24 * exact * (1 + 1e-6))


def test_scan_axes_calls_the_single_axis_scan():
    """The generic helper: the first call reads a, gets dtype and the first two axes (with their flags, which the
    core scans in one pass where it can); the others scan the result in place."""
    calls = []

    def scan(a, axis, *, direction, exclusive, out, **options):
        calls.append((a, axis, direction, exclusive, out, options))
        return out if out is not None else np.zeros(np.shape(a), dtype=options.get("dtype") or float)

    a = np.ones((2, 3, 4))
    out = np.zeros((2, 3, 4), dtype=np.int32)
    got = simdscan._axes.scan_axes(scan, a, (2, -3, 1), direction=("decreasing", "increasing", "increasing"),
                                   exclusive=True, out=out, dtype=np.int32, compensated=True)
    assert got is out
    assert [c[1:4] for c in calls] == [((2, 0), ("decreasing", "increasing"), (True, True)),
                                       (1, "increasing", True)]
    assert calls[0][0] is a and all(c[0] is out and c[4] is out for c in calls[1:])
    assert calls[0][5] == {"dtype": np.int32, "compensated": True}
    assert all(c[5] == {"compensated": True} for c in calls[1:])
    calls.clear()
    made = simdscan._axes.scan_axes(scan, [[[1, 2]]], (0, 1, 2))
    assert calls[1][0] is made and calls[1][4] is made
    calls.clear()
    with pytest.raises(ValueError, match="return_indices"):
        simdscan._axes.scan_axes(scan, a, (0, 1), return_indices=True)
    assert calls == []
    simdscan._axes.scan_axes(scan, a, (1,), return_indices=True)
    assert calls[0][5] == {"return_indices": True}


def test_axes_helpers_examples():
    result = doctest.testmod(simdscan._axes, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


# --------------------------------------------------------------------------
# errors: clear, and out untouched
# --------------------------------------------------------------------------
BAD = [  # (kwargs, exception type, message)
    ({"axis": (0, 0)}, ValueError, "names an axis twice"),
    ({"axis": (0, -3)}, ValueError, "names an axis twice"),
    ({"axis": (0, 3)}, np.exceptions.AxisError, "axis 3 is out of bounds for array of dimension 3"),
    ({"axis": (0, None)}, TypeError, "every entry must be an integer, got NoneType"),
    ({"axis": (None,)}, TypeError, "every entry must be an integer"),
    ({"axis": (0, 1.0)}, TypeError, "got float"),
    ({"axis": ()}, ValueError, "names no axis"),
    ({"axis": [0, 1]}, TypeError, "list"),
    ({"axis": (0, 1), "direction": ("increasing",)}, ValueError, "has 1 entries for 2 axes"),
    ({"axis": (0, 1), "direction": ("increasing",) * 3}, ValueError, "has 3 entries for 2 axes"),
    ({"axis": (0, 1), "exclusive": (True,)}, ValueError, "exclusive=.* has 1 entries for 2 axes"),
    ({"axis": (0, 1), "direction": ["increasing", "decreasing"]}, TypeError, "not a list"),
    ({"axis": (0, 1), "direction": ("increasing", "up")}, ValueError, "'increasing' or 'decreasing', got 'up'"),
    ({"axis": (0, 1), "direction": ("increasing", None)}, TypeError, "direction must be a simdscan.Direction"),
    ({"axis": (0, 1), "exclusive": (False, np.array([1, 0]))}, ValueError, "ambiguous"),
    ({"axis": 1, "direction": ("increasing",)}, TypeError, "needs a tuple axis"),
    ({"axis": 1, "exclusive": (False,)}, TypeError, "needs a tuple axis"),
    ({"axis": None, "exclusive": (False,)}, TypeError, "needs a tuple axis"),
    ({"axis": (0, 1), "out": np.zeros((3, 4, 6))}, ValueError, "out has shape"),
    ({"axis": (0, 1), "out": np.zeros((3, 4, 5), dtype=np.int8)}, TypeError, "out has dtype"),
    ({"axis": (0, 1), "dtype": np.float32, "out": np.zeros((3, 4, 5))}, TypeError, "out has dtype"),
    ({"axis": (1, 2), "out": [[0.0]]}, TypeError, "out must be a numpy.ndarray"),
]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("case", range(len(BAD)))
def test_errors_leave_out_and_input_untouched(op, case):
    kwargs, error, message = BAD[case]
    kwargs = dict(kwargs)
    x = np.arange(60.0).reshape(3, 4, 5)
    out = kwargs.pop("out", np.full((3, 4, 5), 57.0))
    snaps = snapshot(x), snapshot(out) if isinstance(out, np.ndarray) else None
    with pytest.raises(error, match=message):
        getattr(simdscan, op)(x, out=out, **kwargs)
    assert_unchanged(x, snaps[0])
    if snaps[1] is not None:
        assert_unchanged(out, snaps[1], "out")


def test_read_only_out_and_compensated_for_cumprod():
    x = np.ones((3, 4))
    ro = np.zeros((3, 4))
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        simdscan.cumsum(x, axis=(0, 1), out=ro)
    with pytest.raises(TypeError):
        simdscan.cumprod(x, axis=(0, 1), compensated=True)


# The rest of the family along several axes: each axis in turn, as NumPy's scans nested (NaN-skipping ones skip
# NaN along the first axis; the later ones meet none, or only the leading NaN of an all-NaN start for fmax / fmin).
FAMILY_NESTED = {
    "nancumsum": (lambda x, axis, dtype=None: np.nancumsum(x, axis=axis), 0.0),
    "nancumprod": (lambda x, axis, dtype=None: np.nancumprod(x, axis=axis), 1.0),
    "nancummax": (lambda x, axis, dtype=None: np.fmax.accumulate(x, axis=axis), -np.inf),
    "nancummin": (lambda x, axis, dtype=None: np.fmin.accumulate(x, axis=axis), np.inf),
    "logcumsumexp": (lambda x, axis, dtype=None: np.logaddexp.accumulate(x, axis=axis), -np.inf),
}


@pytest.mark.parametrize("name", sorted(FAMILY_NESTED))
@pytest.mark.parametrize(
    ("axis", "direction", "exclusive"),
    [((0, 1), "increasing", False), ((1, 0), ("decreasing", "increasing"), (False, True)),
     ((2, 0, 1), "decreasing", (True, False, False)), ((-1,), "increasing", True)],
)
def test_family_along_several_axes(name, axis, direction, exclusive):
    rng = np.random.default_rng(seed_of("family axes", name, axis))
    x = rng.integers(-3, 4, size=(5, 6, 7)).astype(np.float64)  # sums and products of these are exact
    if name == "nancumprod":
        x = np.where(x == 0, 2.0, x) / 2  # halves and small integers: products stay exact
    x[rng.random(x.shape) < 0.2] = np.nan
    if name == "logcumsumexp":
        x = np.nan_to_num(x, nan=-1.5)  # logcumsumexp propagates NaN: exercise its values instead
    func, identity = FAMILY_NESTED[name]
    axes = tuple(a % x.ndim for a in axis)
    decreasing = tuple(d == "decreasing" for d in (direction if isinstance(direction, tuple) else
                                                    (direction,) * len(axes)))
    exclusives = exclusive if isinstance(exclusive, tuple) else (exclusive,) * len(axes)
    want = x
    for ax, d, e in zip(axes, decreasing, exclusives):
        want = directional(func, want, ax, d, e, identity)
    got = getattr(simdscan, name)(x, axis=axis, direction=direction, exclusive=exclusive)
    where = f"{name} axis={axis} direction={direction} exclusive={exclusive}"
    if name == "logcumsumexp":
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=0, err_msg=where)
    else:
        np.testing.assert_array_equal(got, want, err_msg=where)


@pytest.mark.parametrize("name", sorted(FAMILY_NESTED))
@pytest.mark.parametrize(
    ("axis", "error", "match"),
    [((), ValueError, "names no axis"), ((0, 0), ValueError, "names an axis twice"),
     ((0, 1, 1), ValueError, "names an axis twice"), ((0, 3), np.exceptions.AxisError, "out of bounds"),
     ((0, 1.0), TypeError, "every entry must be an integer")],
)
def test_family_axes_errors_leave_out_untouched(name, axis, error, match):
    x = np.arange(24.0).reshape(2, 3, 4)
    out = np.full_like(x, 7.0)
    with pytest.raises(error, match=match):
        getattr(simdscan, name)(x, axis=axis, out=out)
    assert (out == 7.0).all()
