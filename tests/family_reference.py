"""References for the scan family (issue 13): running extrema and their indices, NaN-skipping scans,
logcumsumexp, as NumPy (in extended precision where it matters) computes them."""

from __future__ import annotations

import numpy as np

from compare import mismatch_report
from ops import SCANS
from reference import (
    PATHS,
    IDENTITY,
    SUPPORTED_DTYPES,
    directional,
    expected,
    native,
    prepare,
)

#: (decreasing, exclusive): the four cases of a scan
VARIANTS = ((False, False), (False, True), (True, False), (True, True))
# The family's groups, from tests/ops.py.
EXTREMA_OPS = tuple(s.name for s in SCANS if s.indices)  # NaN propagates; these also return indices
NAN_EXTREMA_OPS = tuple(s.name for s in SCANS if s.ordered and s.skips_nan)  # NaN skipped
NAN_OPS = tuple(s.name for s in SCANS if s.counts and s.skips_nan)  # NaN counts as the identity
#: every input dtype the extrema take (the dtype is kept): all but complex, which has no order
EXTREMA_DTYPES = [d for d in SUPPORTED_DTYPES if d.kind != "c"]
_EXTREMUM_UFUNC = {
    "cummax": np.maximum,
    "cummin": np.minimum,
    "nancummax": np.fmax,
    "nancummin": np.fmin,
}
_NAN_BASE = {"nancumsum": "cumsum", "nancumprod": "cumprod"}


def extremum_identity(op, dtype):
    """The exclusive identity of a running extremum: the dtype's lowest value for a maximum (-inf, iinfo.min,
    False), its highest for a minimum."""
    dt = native(dtype)
    high = op.endswith("min")
    if dt == np.bool_:
        return np.bool_(high)
    if dt.kind == "f":
        return dt.type(np.inf if high else -np.inf)
    info = np.iinfo(dt)
    return dt.type(info.max if high else info.min)


def expected_extremum(op, a, axis=None, decreasing=False, exclusive=False):
    """The values of ``simdscan.<op>(a, ...)``, op in EXTREMA_OPS + NAN_EXTREMA_OPS, in the input's (native)
    dtype: np.maximum / np.minimum / np.fmax / np.fmin ``.accumulate`` with ``directional``'s flips and shift."""
    a = np.asarray(a)
    x, ax, rdt = prepare(a, axis, native(a.dtype))  # the dtype is kept: bool stays bool
    return directional(_EXTREMUM_UFUNC[op].accumulate, x, ax, decreasing, exclusive, extremum_identity(op, rdt))


def extremum_indices(op, a, axis=None, decreasing=False, exclusive=False):
    """The indices of ``simdscan.<op>(a, ..., return_indices=True)``, op in EXTREMA_OPS: a loop over the
    positions of the line in scan order (all lines at once), keeping the current extremum and its position.

    An element takes over when it is >= (cummax) / <= (cummin) the current one, so among equal values the latest
    in scan order wins (as torch.cummax; -0.0 and +0.0 are equal); the first NaN takes over and keeps its
    position to the end of the line; an exclusive output gets the position before its own element's, and -1
    where the identity stands."""
    assert op in EXTREMA_OPS, op
    x, ax, _ = prepare(a, axis, native(np.asarray(a).dtype))
    if x.size == 0:
        return np.zeros(x.shape, dtype=np.intp)
    y = np.moveaxis(x, ax, -1)
    n = y.shape[-1]
    lines = y.reshape(-1, n)
    res = np.empty(lines.shape, dtype=np.intp)
    takes_over = np.greater_equal if op == "cummax" else np.less_equal
    floating = lines.dtype.kind == "f"
    cur_val = np.zeros(lines.shape[0], dtype=lines.dtype)
    cur_idx = np.full(lines.shape[0], -1, dtype=np.intp)
    nan_seen = np.zeros(lines.shape[0], dtype=bool)
    with np.errstate(invalid="ignore"):
        for k, p in enumerate(range(n - 1, -1, -1) if decreasing else range(n)):
            if exclusive:
                res[:, p] = cur_idx
            v = lines[:, p]
            if k == 0:
                take = np.ones(lines.shape[0], dtype=bool)
            else:
                take = takes_over(v, cur_val)
                if floating:
                    take = ~nan_seen & (take | np.isnan(v))
            cur_val = np.where(take, v, cur_val)
            cur_idx = np.where(take, p, cur_idx)
            if floating:
                nan_seen |= np.isnan(v)
            if not exclusive:
                res[:, p] = cur_idx
    return np.moveaxis(res.reshape(y.shape), -1, ax)


def extremum_indices_fast(op, a, axis=None, decreasing=False, exclusive=False):
    """``extremum_indices`` without the Python loop, for long lines: in scan order, the running extremum only
    changes where an element equals it, so an output's index is the latest such position (a running maximum of
    positions); from the first NaN on, that NaN's position."""
    assert op in EXTREMA_OPS, op
    x, ax, _ = prepare(a, axis, native(np.asarray(a).dtype))
    if x.size == 0:
        return np.zeros(x.shape, dtype=np.intp)
    n = x.shape[ax]
    ufunc = _EXTREMUM_UFUNC[op]
    shape = [1] * x.ndim
    shape[ax] = n
    pos = np.arange(n, dtype=np.intp).reshape(shape)

    def in_scan_order(y, axis, dtype=None):  # y: the line(s) in scan order; positions in that order
        acc = ufunc.accumulate(y, axis=axis)
        with np.errstate(invalid="ignore"):
            record = y == acc  # False at NaN
        idx = np.maximum.accumulate(np.where(record, pos, -1), axis=axis)
        if y.dtype.kind == "f":
            isnan = np.isnan(y)
            first = np.argmax(isnan, axis=axis, keepdims=True)
            idx = np.where(np.logical_or.accumulate(isnan, axis=axis), first, idx)
        return idx.astype(np.intp)

    idx = directional(in_scan_order, x, ax, decreasing, exclusive, -1)
    if decreasing:  # positions in scan order back to positions along the axis
        idx = np.where(idx >= 0, n - 1 - idx, idx)
    return idx


def nan_as_identity(op, a):
    """``a`` (floating or complex) with every NaN (either part, for complex) replaced by the identity of op
    (nancumsum: 0, nancumprod: 1), as NumPy's nancumsum / nancumprod replace them before scanning."""
    r = np.array(a, copy=True)
    if r.dtype.kind in "fc":
        r[np.isnan(r)] = IDENTITY[_NAN_BASE[op]]
    return r


def expected_nan_scan(op, a, axis=None, decreasing=False, exclusive=False, dtype=None):
    """The reference (``Expected``) of ``simdscan.<op>``, op in NAN_OPS: cumsum / cumprod's oracle of the input
    with its NaNs counted as the identity (numpy.nancumsum / numpy.nancumprod), with its dtype rules."""
    return expected(_NAN_BASE[op], nan_as_identity(op, a), axis, decreasing, exclusive, dtype)


#: relative accuracy of logcumsumexp by result dtype (float16: plus half a float16 ulp, its final rounding);
#: the same value is the absolute floor for outputs near 0, where a relative error means nothing
LOGCUMSUMEXP_RTOL = {"float16": 1e-6, "float32": 1e-6, "float64": 1e-13}
#: docs/guide.md's bound on 10**5 values (normal ones and wider spreads), of |reference| + 1, on every path: a line,
#: a group, a column along an outer axis
LOGCUMSUMEXP_STATED_RTOL = {"float32": 1.2e-7, "float64": 2.5e-15}


def logcumsumexp_result_dtype(in_dtype, dtype=None):
    """float16 / float32 / float64 are kept; integer and bool input gives float64."""
    dt = native(dtype if dtype is not None else in_dtype)
    return dt if dt.kind == "f" else np.dtype(np.float64)


def expected_logcumsumexp(a, axis=None, decreasing=False, exclusive=False, dtype=None):
    """``(rdt, value)``: the result dtype of ``simdscan.logcumsumexp`` and its reference in np.longdouble:
    np.logaddexp.accumulate of the input cast to the result dtype, with ``directional``'s flips and shift
    (exclusive: -inf)."""
    a = np.asarray(a)
    rdt = logcumsumexp_result_dtype(a.dtype, dtype)
    x, ax, _ = prepare(a, axis, rdt)
    with np.errstate(all="ignore"):
        value = directional(np.logaddexp.accumulate, x.astype(np.longdouble), ax, decreasing, exclusive,
                            -np.inf)
    return rdt, value


def check_logcumsumexp(got, a, axis=None, decreasing=False, exclusive=False, dtype=None, msg="", rtol=None):
    """``got`` has logcumsumexp's dtype and shape, its NaNs and infinities where the reference has them, and
    every finite output within rtol (default LOGCUMSUMEXP_RTOL) * (|ref| + 1) of it (plus half a float16 ulp for
    float16)."""
    rdt, want = expected_logcumsumexp(a, axis, decreasing, exclusive, dtype)
    if not isinstance(got, np.ndarray):
        raise AssertionError(f"{msg}\nreturned {type(got)!r}, not a numpy.ndarray")
    if native(got.dtype) != rdt:
        raise AssertionError(f"{msg}\ndtype: got {got.dtype}, expected {rdt}")
    if got.shape != want.shape:
        raise AssertionError(f"{msg}\nshape: got {got.shape}, expected {want.shape}")
    check_logcumsumexp_values(got, want, msg, rtol)


def check_logcumsumexp_values(got, want, msg, rtol=None):
    """``got`` (logcumsumexp's result, of the reference's shape) has its NaNs and infinities where the reference
    ``want`` has them, and every finite output within rtol (default LOGCUMSUMEXP_RTOL) * (|ref| + 1) of it (plus
    half a float16 ulp for float16)."""
    rdt = native(got.dtype)
    g = got.astype(np.longdouble)
    problems = []
    gnan, wnan = np.isnan(g), np.isnan(want)
    if not np.array_equal(gnan, wnan):
        problems.append("NaN positions differ:\n" + mismatch_report(np.nonzero(gnan != wnan), g, want))
    winf = np.isinf(want)
    bad_inf = (np.isinf(g) != winf) | (winf & (g != want))
    if bad_inf.any():
        problems.append("infinities differ:\n" + mismatch_report(np.nonzero(bad_inf), g, want))
    rtol = LOGCUMSUMEXP_RTOL[rdt.name] if rtol is None else rtol
    with np.errstate(all="ignore"):
        tol = rtol * (np.abs(want) + 1)  # the + 1: the absolute floor rtol near a zero result
        if rdt == np.float16:
            big = np.maximum(np.abs(g), np.abs(want)).astype(np.float16)
            tol = tol + 0.5 * np.spacing(big).astype(np.longdouble)
        bad = np.isfinite(want) & ~(np.abs(g - want) <= tol)
    if bad.any():
        problems.append(f"outside relative {rtol:g}:\n" + mismatch_report(np.nonzero(bad), g, want, tol))
    if problems:
        raise AssertionError(msg + "\n" + "\n".join(problems))


def extrema_data(rng, shape, dtype, nan=0.0):
    """A random walk of integer steps (new records and long plateaus, and many ties), wrapped into ``dtype``'s
    range for 1- and 2-byte types (sudden jumps); floats also get NaNs with probability ``nan``."""
    dt = np.dtype(dtype)
    size = int(np.prod(shape, dtype=np.int64))
    if dt == np.bool_:
        return (rng.random(shape) < 0.3).astype(bool)
    v = np.cumsum(rng.integers(-2, 3, size=size)).reshape(shape)
    if dt.itemsize <= 2:
        span = 120 if dt.itemsize == 1 else 4000  # 4000: float16 holds every integer of [-2000, 2000)
        v = v % span - (0 if dt.kind == "u" else span // 2)
    elif dt.kind == "u":
        v = v - v.min() if v.size else v
    a = v.astype(dt)
    if dt.kind == "f" and nan:
        a[rng.random(shape) < nan] = np.nan
    return a


def check_extremum(got, op, a, axis=None, decreasing=False, exclusive=False, msg=""):
    """Full check of a running extremum (op in EXTREMA_OPS + NAN_EXTREMA_OPS): type, dtype (the input's, in
    native order), shape, and values equal to ``expected_extremum``'s (NaN where it has NaN; -0.0 == +0.0)."""
    want = expected_extremum(op, a, axis, decreasing, exclusive)
    where = msg or f"{op}(in dtype={np.asarray(a).dtype}, axis={axis}, decreasing={decreasing}, exclusive={exclusive})"
    if not isinstance(got, np.ndarray):
        raise AssertionError(f"{where}\nreturned {type(got)!r}, not a numpy.ndarray")
    if native(got.dtype) != want.dtype:
        raise AssertionError(f"{where}\ndtype: got {got.dtype}, expected {want.dtype}")
    if got.shape != want.shape:
        raise AssertionError(f"{where}\nshape: got {got.shape}, expected {want.shape}")
    same = got == want
    if want.dtype.kind == "f":
        same |= np.isnan(got) & np.isnan(want)
    if not same.all():
        raise AssertionError(f"{where}\nvalues differ ({want.dtype}):\n"
                             + mismatch_report(np.nonzero(~same), got, want))


def check_extremum_pair(got, op, a, axis, decreasing, exclusive, where="", fast=False):
    """``got`` is a pair (values, indices) of cummax / cummin's return_indices=True: values as check_extremum
    checks them, indices np.intp of their shape equal to the reference's (``fast``: the loop-free one)."""
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


def assert_same_bits(got, want, where):
    """Same dtype, shape and bytes in logical order (NaNs included, which np.array_equal would call unequal)."""
    assert isinstance(got, np.ndarray), f"{where}: returned {type(got)!r}"
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype}, expected {want.dtype}"
    assert got.shape == want.shape, f"{where}: shape {got.shape}, expected {want.shape}"
    g = np.ascontiguousarray(got).reshape(-1).view(np.uint8).reshape(got.size, got.itemsize)
    w = np.ascontiguousarray(want).reshape(-1).view(np.uint8).reshape(want.size, want.itemsize)
    bad = np.nonzero((g != w).any(axis=1))[0]
    if bad.size:
        first = np.unravel_index(int(bad[0]), got.shape)
        raise AssertionError(f"{where}: {bad.size} of {got.size} elements differ in their bits, first at "
                             f"{tuple(int(i) for i in first)}: got {got[first]!r}, expected {want[first]!r}")


#: every kernel path for every extrema dtype; the exact paths (one per path of the core) for four of them
EXTREMA_PATH_CASES = [(d, p) for p in PATHS["kernels"] for d in EXTREMA_DTYPES] + [
    (np.dtype(d), p) for p in PATHS["exact"] for d in ("float32", "float64", "int16", "uint8")]
EXTREMA_PATH_IDS = [f"{d.name}-{p.name}" for d, p in EXTREMA_PATH_CASES]
