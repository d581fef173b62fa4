"""NumPy-only oracle of simdscan.linear_recurrence and simdscan.discounted_cumsum (tests/test_recurrence.py), and the
pandas oracle of simdscan.ewm_mean (tests/test_ewm.py). Nothing here imports simdscan.

The reference of a linear recurrence is a sequential loop along every line in extended precision (np.longdouble, or
np.clongdouble for complex results): increasing, y[i] = a[i] * y[i-1] + b[i]; decreasing, y[i] = a[i] * y[i+1] + b[i];
the state before the first element of the walk, and before the first element in the walk of every ``reset=``
segment, is ``initial`` (default 0); ``exclusive=True`` writes the state before each element. ``a`` and ``b`` are
first rounded to the type the result is computed in (float16 in float32, integers and bool in float64), as simdscan
reads them.

A result is accepted when every element lies within ``TOLERANCE`` (1e-12 for float64 / complex128 and 1e-5 for
float32 / complex64 computations) times the scale of its line: the largest |y| of the line (``scale="line"``, for
|a| <= 1), or the largest |y| of the line so far in the walk (``scale="running"``, for |a| > 1); a float16 result
may be off by half a float16 ulp more (it is rounded once from float32). NaNs must stand where the loop has them, and
infinities must be the loop's (value and sign).
"""

from __future__ import annotations

import numpy as np

from compare import mismatch_report
from reference import native

try:  # NumPy >= 2.0
    from numpy.lib.array_utils import normalize_axis_index
except ImportError:  # pragma: no cover - NumPy 1.x
    from numpy.core.multiarray import normalize_axis_index  # type: ignore

#: relative tolerance of a result, by the dtype it is computed in (the contract's accuracy)
TOLERANCE = {"float32": 1e-5, "float64": 1e-12, "complex64": 1e-5, "complex128": 1e-12}

#: the lines the loop runs one at a time, with NumPy scalars (faster than vectors of so few lines)
_SCALAR_LOOP_LINES = 8


# --------------------------------------------------------------------------
# dtypes
# --------------------------------------------------------------------------
def _is_python_scalar(x):
    return type(x) in (bool, int, float, complex)


def result_dtype(a, b, dtype=None) -> np.dtype:
    """The dtype of linear_recurrence(a, b): ``dtype`` where given; otherwise NumPy 2's result type of ``a`` and
    ``b`` (a Python scalar ``a`` weak, as NEP 50 makes it), integers and bool then float64.

    (Where NumPy's result type of an integer and a float16 or float32 array is the float type, the contract could
    be read as float64 as well: the tests leave those pairs out.)"""
    if dtype is not None:
        return native(dtype)
    a_arg = a if _is_python_scalar(a) else np.asarray(a).dtype
    rt = native(np.result_type(a_arg, np.asarray(b).dtype))
    return np.dtype(np.float64) if rt.kind in "biu" else rt


def compute_dtype(rdt) -> np.dtype:
    """The dtype a result of dtype ``rdt`` is computed in: float16 in float32, the others in their own."""
    rdt = native(rdt)
    return np.dtype(np.float32) if rdt == np.float16 else rdt


def wide_dtype(rdt) -> np.dtype:
    """np.clongdouble for complex results, np.longdouble for the others."""
    return np.dtype(np.clongdouble) if native(rdt).kind == "c" else np.dtype(np.longdouble)


def tolerance_of(rdt) -> float:
    return TOLERANCE[compute_dtype(rdt).name]


# --------------------------------------------------------------------------
# lines
# --------------------------------------------------------------------------
def line_shape(shape, axis):
    """``shape`` without ``axis``: the shape of ``initial``."""
    shape = tuple(shape)
    axis = normalize_axis_index(axis, len(shape))
    return shape[:axis] + shape[axis + 1:]


def to_lines(x, axis):
    """``x`` (of the full shape) as a 2-D array, one line per row, the other axes in C order."""
    moved = np.moveaxis(np.asarray(x), axis, -1)
    return moved.reshape(int(np.prod(moved.shape[:-1], dtype=np.int64)), moved.shape[-1])


def from_lines(lines, shape, axis):
    """The inverse of ``to_lines`` for an array of ``shape``."""
    shape = tuple(shape)
    axis = normalize_axis_index(axis, len(shape))
    moved = shape[:axis] + shape[axis + 1:] + (shape[axis],)
    return np.moveaxis(lines.reshape(moved), -1, axis)


def segment_starts(flags, decreasing):
    """Bool lines, True where the walk enters a new segment: where the reset is set (and at index 0) when
    increasing; at the last element of every segment (the one before a reset, and the last of the line) when
    decreasing."""
    flags = np.asarray(flags, dtype=bool)
    starts = flags.copy()
    if flags.shape[-1] == 0:
        return starts
    if decreasing:
        starts[..., :-1] = flags[..., 1:]
        starts[..., -1] = True
    else:
        starts[..., 0] = True
    return starts


def loop(a, b, init, starts, decreasing, exclusive):
    """The sequential loop on lines: ``a``, ``b``, ``starts`` 2-D (lines, n), ``init`` 1-D (lines), all already of
    the wide dtype; returns the lines of y."""
    lines, n = b.shape
    y = np.empty_like(b)
    order = range(n - 1, -1, -1) if decreasing else range(n)
    if lines <= _SCALAR_LOOP_LINES:
        for k in range(lines):
            ak, bk, yk, sk, ik = a[k], b[k], y[k], starts[k].tolist(), init[k]
            state = ik
            for i in order:
                if sk[i]:
                    state = ik
                if exclusive:
                    yk[i] = state
                    state = ak[i] * state + bk[i]
                else:
                    state = ak[i] * state + bk[i]
                    yk[i] = state
        return y
    state = init.copy()
    for i in order:
        state = np.where(starts[:, i], init, state)
        if exclusive:
            y[:, i] = state
            state = a[:, i] * state + b[:, i]
        else:
            state = a[:, i] * state + b[:, i]
            y[:, i] = state
    return y


def recurrence(a, b, axis=-1, decreasing=False, exclusive=False, initial=None, reset=None, dtype=None):
    """The loop's y for linear_recurrence(a, b, axis, ...), of b's shape in the wide dtype (np.longdouble or
    np.clongdouble). ``a`` broadcasts to b, ``initial`` to b's shape without ``axis``, ``reset`` to b."""
    b = np.asarray(b)
    rdt = result_dtype(a, b, dtype)
    cdt, wdt = compute_dtype(rdt), wide_dtype(rdt)
    if b.ndim == 0:
        raise ValueError("the reference takes arrays of one dimension or more")
    axis = normalize_axis_index(axis, b.ndim)
    bw = b.astype(cdt).astype(wdt)
    aw = np.broadcast_to(np.asarray(a).astype(cdt).astype(wdt), b.shape)
    init = np.asarray(0 if initial is None else initial).astype(cdt).astype(wdt)
    init = np.broadcast_to(init, line_shape(b.shape, axis))
    init = np.broadcast_to(np.expand_dims(init, axis), b.shape)
    flags = np.broadcast_to(np.asarray(False if reset is None else reset).astype(bool), b.shape)
    a_l, b_l, flags_l = to_lines(aw, axis), to_lines(bw, axis), to_lines(flags, axis)
    init_l = to_lines(init, axis)[:, 0] if b.shape[axis] else np.zeros(b_l.shape[0], wdt)
    with np.errstate(all="ignore"):
        y = loop(a_l, b_l, init_l, segment_starts(flags_l, decreasing), decreasing, exclusive)
    return from_lines(y, b.shape, axis)


def walked(a, b, axis=-1, decreasing=False, exclusive=False, initial=None, reset=None, dtype=None):
    """The loop's y in the computing dtype itself (a multiply and an add per element, NumPy's rounding), rounded to
    the result's: the bits of each column that simdscan walks along the rows of columns (``walks_rows``)."""
    b = np.asarray(b)
    rdt = result_dtype(a, b, dtype)
    cdt = compute_dtype(rdt)
    axis = normalize_axis_index(axis, b.ndim)
    bw = b.astype(cdt)
    aw = np.broadcast_to(np.asarray(a).astype(cdt), b.shape)
    init = np.broadcast_to(np.asarray(0 if initial is None else initial).astype(cdt), line_shape(b.shape, axis))
    init = np.broadcast_to(np.expand_dims(init, axis), b.shape)
    flags = np.broadcast_to(np.asarray(False if reset is None else reset).astype(bool), b.shape)
    a_l, b_l, flags_l = to_lines(aw, axis), to_lines(bw, axis), to_lines(flags, axis)
    with np.errstate(all="ignore"):
        y = loop(a_l, b_l, to_lines(init, axis)[:, 0], segment_starts(flags_l, decreasing), decreasing, exclusive)
    return from_lines(y, b.shape, axis).astype(rdt)


def _merge(shape, strides):
    """Axes as one (size, stride) where they lie evenly in memory (sizes of 1 aside), else None."""
    size, stride = 1, 0
    for extent, step in zip(reversed(shape), reversed(strides)):
        if extent == 1:
            continue
        if size == 1:
            size, stride = extent, step
        elif step == stride * size:
            size *= extent
        else:
            return None
    return size, stride


def walks_rows(b, axis):
    """The README's rule (determinism): linear_recurrence walks b's lines a row of columns at a time where b (as it
    lies, whatever its dtype: the core converts it where it lies) has more than one element along ``axis`` and after
    it, those axes contiguous (whatever the axes before it); or else more than one element in the axes that lie
    closer together in memory than ``axis``, those contiguous (taken widest first)."""
    x = np.asarray(b)
    axis = normalize_axis_index(axis, x.ndim)
    if x.shape[axis] <= 1:
        return False
    closer = sorted((d for d in range(x.ndim) if d != axis and abs(x.strides[d]) < abs(x.strides[axis])),
                    key=lambda d: -abs(x.strides[d]))
    for axes in (range(axis + 1, x.ndim), closer):
        run = _merge([x.shape[d] for d in axes], [x.strides[d] for d in axes])
        if run is not None and run[0] > 1 and run[1] == x.itemsize:
            return True
    return False


def as_walked_by(values, b, axis):
    """A contiguous copy of ``values`` that linear_recurrence walks as it walks ``b`` (``walks_rows``): its rows of
    columns (b's order of axes in memory, where of b's shape), or its lines laid out contiguous; None passes
    through."""
    if values is None or np.ndim(values) == 0:
        return values
    values = np.asarray(values)
    values = np.array(values, values.dtype.newbyteorder("="))
    if walks_rows(b, axis) or values.ndim == 1:
        if values.ndim > 1 and values.shape == np.shape(b):
            laid = np.empty_like(np.asarray(b), dtype=values.dtype)
            laid[...] = values
            return laid
        return values
    return np.moveaxis(np.ascontiguousarray(np.moveaxis(values, axis, -1)), -1, axis)


def lfilter_recurrence(a, b, decreasing=False, initial=None):
    """The same y for a scalar ``a`` and a 2-D ``b`` along its last axis (no reset, inclusive), by
    scipy.signal.lfilter([1], [1, -a], ...) in np.longdouble (np.clongdouble where complex): an independent
    sequential filter. ``initial``: None or one value per line, given as the filter's state zi = a * initial."""
    from scipy.signal import lfilter

    b = np.asarray(b)
    wdt = np.dtype(np.clongdouble) if b.dtype.kind == "c" or isinstance(a, complex) else np.dtype(np.longdouble)
    x = b.astype(wdt)
    if decreasing:
        x = x[:, ::-1]
    coef = np.array([1, -a], dtype=wdt)
    one = np.array([1], dtype=wdt)
    if initial is None:
        y = lfilter(one, coef, x, axis=-1)
    else:
        zi = (wdt.type(a) * np.asarray(initial).astype(wdt)).reshape(-1, 1)
        y, _ = lfilter(one, coef, x, axis=-1, zi=zi)
    return y[:, ::-1] if decreasing else y


# --------------------------------------------------------------------------
# the comparison
# --------------------------------------------------------------------------
def scales(want, axis, decreasing=False, scale="line"):
    """The scale each element's error is measured against, of want's shape: the largest finite |y| of its line
    (``"line"``), or of its line up to it in the walk (``"running"``)."""
    mag = np.abs(to_lines(want, axis)).astype(np.longdouble)
    mag[~np.isfinite(mag)] = 0
    if scale == "line":
        s = np.broadcast_to(mag.max(axis=1, initial=0)[:, None], mag.shape)
    elif decreasing:
        s = np.maximum.accumulate(mag[:, ::-1], axis=1)[:, ::-1]
    else:
        s = np.maximum.accumulate(mag, axis=1)
    return from_lines(np.ascontiguousarray(s), want.shape, axis)


def check_close(got, want, rdt, axis=-1, decreasing=False, scale="line", where="", tol=None):
    """``got`` (simdscan's result) is ``want`` (the loop's, wide) within the contract: dtype ``rdt``, want's shape,
    NaN where want is NaN (either part, for complex), the same infinities, and every other element within
    ``tol`` (default: TOLERANCE of the computing type) times its scale (``scales``), plus half a float16 ulp for a
    float16 result."""
    rdt = native(rdt)
    assert isinstance(got, np.ndarray), f"{where}: returned {type(got)!r}"
    assert got.dtype == rdt, f"{where}: dtype {got.dtype}, expected {rdt}"
    assert got.shape == want.shape, f"{where}: shape {got.shape}, expected {want.shape}"
    if got.size == 0:
        return
    tol = tolerance_of(rdt) if tol is None else tol
    g = np.asarray(got).astype(want.dtype)
    problems = []
    gnan, wnan = np.isnan(g), np.isnan(want)
    if not np.array_equal(gnan, wnan):
        problems.append("NaN positions differ:\n" + mismatch_report(np.nonzero(gnan != wnan), got, want))
    winf = np.isinf(want) & ~wnan
    bad_inf = ((np.isinf(g) & ~gnan) != winf) | (winf & (g != want))
    if bad_inf.any():
        problems.append("infinities differ:\n" + mismatch_report(np.nonzero(bad_inf), got, want))
    fin = np.isfinite(want)
    with np.errstate(all="ignore"):
        t = tol * scales(want, axis, decreasing, scale)
        if rdt == np.float16:
            big = np.maximum(np.abs(g), np.abs(want)).astype(np.float64)
            t = t + 0.5 * np.spacing(big.astype(np.float16)).astype(np.longdouble)
        err = np.abs(g - want)
        bad = fin & ~(err <= t)
    if bad.any():
        problems.append(f"outside {tol:g} x the {scale} scale:\n"
                        + mismatch_report(np.nonzero(bad), got, want.astype(np.complex128 if rdt.kind == "c"
                                                                            else np.float64), t.astype(np.float64)))
    if problems:
        raise AssertionError(f"{where}\n" + "\n".join(problems))


def check_recurrence(got, a, b, axis=-1, decreasing=False, exclusive=False, initial=None, reset=None, dtype=None,
                     scale="line", where=""):
    """``got`` is linear_recurrence(a, b, axis, ...)'s result within the contract (check_close against the loop)."""
    want = recurrence(a, b, axis, decreasing, exclusive, initial, reset, dtype)
    check_close(got, want, result_dtype(a, b, dtype), axis, decreasing, scale, where)


# axis=None: the reference runs along b broadcast and flattened in C order
def flat(x, shape):
    """``x`` broadcast to ``shape`` and flattened in C order (None and scalars as they are): the reference's input."""
    if x is None or np.ndim(x) == 0:
        return x
    return np.broadcast_to(np.asarray(x), shape).reshape(-1)


def flat_reference(a, b, decreasing=False, exclusive=False, initial=None, reset=None, dtype=None):
    """The loop's y (wide) along b flattened in C order."""
    b = np.asarray(b)
    return recurrence(flat(a, b.shape), b.reshape(-1), 0, decreasing, exclusive, initial, flat(reset, b.shape),
                      dtype)


def check_flat(got, a, b, decreasing=False, exclusive=False, initial=None, reset=None, dtype=None, where=""):
    want = flat_reference(a, b, decreasing, exclusive, initial, reset, dtype)
    assert got.shape == (np.size(b),), f"{where}: shape {got.shape}, expected {(np.size(b),)}"
    check_close(got, want, result_dtype(a, b, dtype), 0, decreasing, where=where)


# (name, exception, keywords beside b of shape (3, 4) and axis=None): each raises, in the NumPy and the Dask form
BAD_AXIS_NONE = [
    ("a of 5", ValueError, dict(a=np.full(5, 0.5))),
    ("a already flattened (12,)", ValueError, dict(a=np.full(12, 0.5))),
    ("a transposed (4, 3)", ValueError, dict(a=np.full((4, 3), 0.5))),
    ("a larger than b", ValueError, dict(a=np.full((2, 3, 4), 0.5))),
    ("initial per row (3,)", ValueError, dict(initial=np.zeros(3))),
    ("initial per column (4,)", ValueError, dict(initial=np.zeros(4))),
    ("initial (1,)", ValueError, dict(initial=np.zeros(1))),
    ("initial of b's shape", ValueError, dict(initial=np.zeros((3, 4)))),
    ("initial (12,)", ValueError, dict(initial=np.zeros(12))),
    ("reset of 5", ValueError, dict(reset=np.zeros(5, bool))),
    ("reset already flattened (12,)", ValueError, dict(reset=np.zeros(12, bool))),
    ("reset larger than b", ValueError, dict(reset=np.zeros((2, 3, 4), bool))),
    ("reset 2", ValueError, dict(reset=np.array([[0, 2, 0, 1]] * 3))),
    ("out of b's shape", ValueError, dict(out=np.zeros((3, 4)))),
    ("out of another dtype", TypeError, dict(out=np.zeros(12, np.float32))),
    ("complex initial, real result", TypeError, dict(initial=np.complex128(1))),
]


# --------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------
def coefficients(rng, shape, dtype, low=-1.0, high=1.0):
    """``a`` of ``dtype``: uniform in [low, high] for floats; in the disk of radius ``high`` for complex; -1, 0 or 1
    for signed integers, 0 or 1 for unsigned ones and bool (so integer recurrences stay exact in float64)."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dt.kind == "u":
        return rng.integers(0, 2, shape).astype(dt)
    if dt.kind == "i":
        return rng.integers(-1, 2, shape).astype(dt)
    if dt.kind == "c":
        r = high * np.sqrt(rng.uniform(0, 1, shape))
        return (r * np.exp(1j * rng.uniform(-np.pi, np.pi, shape))).astype(dt)
    return rng.uniform(low, high, shape).astype(dt)


def terms(rng, shape, dtype):
    """``b`` of ``dtype``: uniform in [-3, 3] (both parts, for complex); -3..3 for signed integers, 0..3 for
    unsigned, 0 / 1 for bool."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dt.kind == "u":
        return rng.integers(0, 4, shape).astype(dt)
    if dt.kind == "i":
        return rng.integers(-3, 4, shape).astype(dt)
    if dt.kind == "c":
        return (rng.uniform(-3, 3, shape) + 1j * rng.uniform(-3, 3, shape)).astype(dt)
    return rng.uniform(-3, 3, shape).astype(dt)


# --------------------------------------------------------------------------
# ewm_mean: pandas
# --------------------------------------------------------------------------
def _com_of(com=None, span=None, halflife=None, alpha=None):
    """pandas' center of mass for the one decay given."""
    if com is not None:
        return float(com)
    if span is not None:
        return (float(span) - 1) / 2
    if halflife is not None:
        return 1 / (1 - np.exp(np.log(0.5) / float(halflife))) - 1
    return 1 / float(alpha) - 1


def pandas_ewm_mean(x, axis=-1, **params):
    """pandas' Series.ewm(**params).mean() of every line of ``x`` along ``axis`` (min_periods 0), computed on the
    float64 values of ``x``, as a float64 array of x's shape.

    pandas 3.0 and 3.1 special-case com == 1 (alpha = 0.5, span = 3, halflife = 1) with adjust=False: after a NaN
    (or +-inf, which pandas takes as NaN) under ignore_na=False the next observation takes the whole forgotten weight,
    a value discontinuous in alpha (a regression of 3.0.0: pandas-dev/pandas#66521, #66523; 2.x gives the documented
    weights). For that case the reference asks pandas for com one ulp above 1, the documented weights (a change of
    about 1e-16 relative)."""
    import pandas as pd

    x = np.asarray(x)
    lines = to_lines(x.astype(np.float64), axis)
    if lines.size == 0:
        return np.empty(x.shape, np.float64)
    decay = {k: params[k] for k in ("com", "span", "halflife", "alpha") if params.get(k) is not None}
    if (len(decay) == 1 and not params.get("adjust", True) and not params.get("ignore_na", False)
            and _com_of(**decay) == 1.0 and not np.isfinite(lines).all()):
        params = {k: v for k, v in params.items() if k not in decay}
        params["com"] = float(np.nextafter(1.0, 2.0))
    frame = pd.DataFrame(np.ascontiguousarray(lines.T))  # one column per line
    got = frame.ewm(**params).mean().to_numpy(dtype=np.float64).T
    return from_lines(np.ascontiguousarray(got), x.shape, axis)


def ewm_result_dtype(in_dtype) -> np.dtype:
    """The dtype of ewm_mean's result: the input's floating dtype, float64 for integers."""
    dt = native(in_dtype)
    return dt if dt.kind == "f" else np.dtype(np.float64)
