"""NumPy-only oracle of the scans' ``labels=`` (grouped scans, pandas' ``groupby(labels).cumsum()``), for
tests/test_labels.py.

The labels, broadcast to the input's shape (``axis=None``: then flattened in C order, as the input), split every
line into groups: the elements of the line that carry one label, wherever they stand. Each group is gathered in the
walk's order (index order increasing, from the end decreasing), scanned by NumPy on its own as a 1-D array, and
scattered back to its places; ``exclusive`` shifts the group's scan by one, the identity first. Nothing here imports
simdscan.

* Sums and products are NumPy's sequential ``np.cumsum`` / ``np.cumprod`` of the gathered group in the result dtype
  (float16: in float32, rounded to float16 once per output), integers wrapping as simdscan's must: the reference is
  exact for integers and real floats (``expected_grouped``). Complex sums and products and compensated sums are held
  to the suite's rounding bounds instead, group by group (reference.check_values, exact_sums.check_compensated).
* Running extrema are NumPy's ``maximum`` / ``minimum`` / ``fmax`` / ``fmin.accumulate`` of the group, exact; their
  indices a simple loop over the gathered group (family_reference's loop-free reference for long groups), mapped
  back to positions along the axis.
* logcumsumexp is ``np.logaddexp.accumulate`` in np.longdouble, within family_reference.LOGCUMSUMEXP_RTOL.
* ffill takes, for each NaN, the last number before it in its group's walk, within ``limit`` NaNs of it.
"""

from __future__ import annotations

import numpy as np

from compare import mismatch_report
from exact_sums import check_compensated
from family_reference import (
    EXTREMA_OPS,
    NAN_OPS,
    check_logcumsumexp_values,
    expected_nan_scan,
    extremum_indices_fast,
)
from reference import check_values, expected, native
from segment_reference import as_lines, identity, result_dtype, result_shape

#: groups longer than this get family_reference's loop-free index reference (the loop is one step per element)
_LOOP_FREE_FROM = 2000
_SUMS = ("cumsum", "nancumsum")
_PRODUCTS = ("cumprod", "nancumprod")
_UFUNCS = {"cummax": np.maximum, "cummin": np.minimum, "nancummax": np.fmax, "nancummin": np.fmin}


# --------------------------------------------------------------------------
# lines and groups
# --------------------------------------------------------------------------
def label_lines(labels, shape, axis):
    """The labels broadcast to ``shape`` (the input's), as lines laid out as segment_reference.as_lines lays out the
    input (``axis=None``: broadcast first, then flattened in C order)."""
    return as_lines(np.broadcast_to(np.asarray(labels), shape), axis)


def line_groups(line_labels):
    """The groups of one line whose labels are ``line_labels`` (1-D): for each distinct label, the positions that
    carry it, in increasing index order (a stable sort by label, cut where the label changes)."""
    lab = np.asarray(line_labels).reshape(-1)
    if lab.size == 0:
        return []
    order = np.argsort(lab, kind="stable")
    ranked = lab[order]
    return np.split(order, np.flatnonzero(ranked[1:] != ranked[:-1]) + 1)


def walks(labels, shape, axis, decreasing):
    """``(line, positions)`` for every group of every line: the group's positions along the axis in the walk's
    order (decreasing: from the end)."""
    lines = label_lines(labels, shape, axis)
    for k in range(lines.shape[0]):
        for pos in line_groups(lines[k]):
            yield k, (pos[::-1] if decreasing else pos)


def from_lines(lines, shape, axis):
    """Lines (as_lines' layout of an input of ``shape``) back to the result's shape: 1-D for ``axis=None`` or a 0-d
    input, else ``shape`` with the lines along ``axis``."""
    if axis is None or len(shape) == 0:
        return lines.reshape(-1)
    ax = axis % len(shape)
    moved = tuple(s for k, s in enumerate(shape) if k != ax) + (shape[ax],)
    return np.moveaxis(lines.reshape(moved), -1, ax)


def _shifted(r, ident):
    """The exclusive scan from the inclusive one ``r`` (1-D): the identity first, then r without its last."""
    out = np.empty_like(r)
    if r.size:
        out[0] = ident
        out[1:] = r[:-1]
    return out


# --------------------------------------------------------------------------
# values
# --------------------------------------------------------------------------
def _group_scan(op, acc):
    """The inclusive scan of one gathered group (1-D, walk order, already in the dtype ``acc``) for ``op``."""
    if op in _SUMS or op in _PRODUCTS:
        product = op in _PRODUCTS
        func = np.cumprod if product else np.cumsum
        if op in NAN_OPS:
            def scan(g):
                if g.dtype.kind in "fc":
                    g = np.where(np.isnan(g), acc.type(1 if product else 0), g)
                return func(g, dtype=acc)
            return scan
        return lambda g: func(g, dtype=acc)
    if op in _UFUNCS:
        return _UFUNCS[op].accumulate
    if op == "logcumsumexp":
        return np.logaddexp.accumulate
    raise AssertionError(f"group_reference: unknown scan {op!r}")  # pragma: no cover - test design error


def expected_grouped(op, a, labels, axis=None, decreasing=False, exclusive=False, dtype=None):
    """The values of ``simdscan.<op>(a, axis, labels=labels, ...)`` in the result's shape: in the result dtype, and
    for logcumsumexp in np.longdouble. Exact for integers, extrema and real float sums and products (each group's own
    sequential scan, float16 rounded once from float32); NumPy's sequential scan for complex ones."""
    a = np.asarray(a)
    rdt = result_dtype(op, a.dtype, dtype)
    if op == "logcumsumexp":
        acc = np.dtype(np.longdouble)
    elif rdt == np.float16 and (op in _SUMS or op in _PRODUCTS):
        acc = np.dtype(np.float32)
    else:
        acc = rdt
    x = as_lines(a, axis).astype(rdt).astype(acc)  # cast to the result dtype as NumPy casts, then widened
    out = np.empty(x.shape, acc)
    scan = _group_scan(op, acc)
    ident = identity(op, rdt) if op != "logcumsumexp" else -np.inf
    with np.errstate(all="ignore"):
        for k, pos in walks(labels, a.shape, axis, decreasing):
            r = scan(x[k, pos])
            out[k, pos] = _shifted(r, ident) if exclusive else r
        values = out if op == "logcumsumexp" else out.astype(rdt)
    return from_lines(values, a.shape, axis)


def _group_indices(op, values, exclusive):
    """A simple loop over one gathered group (a list, walk order): for each element, the step in the walk of the
    element that supplied the running extremum: one that ties the current value takes over (the latest among equal
    ones), the first NaN takes over for good; exclusive, the step before its own, -1 at the group's first."""
    maximum = op == "cummax"
    res = []
    cur, at, nan_seen = None, -1, False
    for step, v in enumerate(values):
        if exclusive:
            res.append(at)
        if nan_seen:
            pass
        elif v != v:  # NaN
            cur, at, nan_seen = v, step, True
        elif at < 0 or (v >= cur if maximum else v <= cur):
            cur, at = v, step
        if not exclusive:
            res.append(at)
    return np.array(res, dtype=np.intp)


def expected_grouped_indices(op, a, labels, axis=None, decreasing=False, exclusive=False):
    """The indices of ``simdscan.<op>(a, axis, labels=labels, return_indices=True, ...)`` (op: cummax / cummin): for
    each output, the position along the axis of the element of its group that supplied the running value (the latest
    in the walk among equal ones, the first NaN from a NaN on), -1 where the exclusive identity stands."""
    assert op in EXTREMA_OPS, op
    a = np.asarray(a)
    x = as_lines(a, axis)
    out = np.empty(x.shape, np.intp)
    for k, pos in walks(labels, a.shape, axis, decreasing):
        g = x[k, pos]
        if g.size > _LOOP_FREE_FROM:
            within = extremum_indices_fast(op, g, 0, False, exclusive)
        else:
            within = _group_indices(op, g.tolist(), exclusive)
        out[k, pos] = np.where(within >= 0, pos[within], -1)
    return from_lines(out, a.shape, axis)


def _same_values(got, want, signs, where):
    """``got`` equals ``want`` element by element (NaN equal to NaN); ``signs``: a zero's sign counts too."""
    same = got == want
    if want.dtype.kind == "f":
        both_nan = np.isnan(got) & np.isnan(want)
        same |= both_nan
        if signs:
            same &= both_nan | (np.signbit(got) == np.signbit(want))
    if not same.all():
        raise AssertionError(f"{where}\nvalues differ ({want.dtype}):\n" + mismatch_report(np.nonzero(~same), got,
                                                                                          want))


def _check_bounded(got, op, a, labels, axis, decreasing, exclusive, dtype, compensated, where):
    """Group by group, as 1-D arrays in the walk's order: complex sums and products within reference.py's rounding
    bounds, compensated sums within exact_sums' compensated bound (their input must be finite, but for nancumsum's
    NaNs, which count as 0)."""
    x = as_lines(a, axis)
    g_lines = as_lines(got, axis)
    base = op[3:] if op in NAN_OPS else op
    for k, pos in walks(labels, a.shape, axis, decreasing):
        piece = f"{where}, line {k}, group at {pos[:6].tolist()}{' ...' if pos.size > 6 else ''}"
        xg, gg = x[k, pos], g_lines[k, pos]
        if compensated:
            if op in NAN_OPS and xg.dtype.kind in "fc":
                xg = np.where(np.isnan(xg), 0, xg)
            assert np.isfinite(xg).all(), f"{piece}: the compensated bound takes finite input only"
            check_compensated(gg, xg, 0, False, exclusive, msg=piece)
        elif op in NAN_OPS:
            check_values(gg, expected_nan_scan(op, xg, 0, False, exclusive, dtype), piece)
        else:
            check_values(gg, expected(base, xg, 0, False, exclusive, dtype), piece)


def check_grouped(got, op, a, labels, axis=None, decreasing=False, exclusive=False, dtype=None, compensated=False,
                  where=""):
    """Full check of ``simdscan.<op>(a, axis, labels=labels, ...)``: an ndarray (or, for return_indices, a pair with
    np.intp indices) of the result's shape and dtype, each group of each line its own scan: the exact reference for
    integers, extrema and real float sums and products (a zero's sign included for sums and products), the bounds
    for complex and compensated ones, logcumsumexp's tolerance; indices exactly."""
    a = np.asarray(a)
    where = where or (f"{op} dtype={a.dtype} shape={a.shape} axis={axis} decreasing={decreasing} "
                      f"exclusive={exclusive} compensated={compensated}")
    pair = isinstance(got, tuple)
    values, idx = got if pair else (got, None)
    assert isinstance(values, np.ndarray), f"{where}: returned {type(values)!r}, not an ndarray"
    shape = result_shape(a, axis)
    assert values.shape == shape, f"{where}: shape {values.shape}, expected {shape}"
    rdt = result_dtype(op, a.dtype, dtype)
    assert native(values.dtype) == rdt, f"{where}: dtype {values.dtype}, expected {rdt}"
    values = values.astype(rdt)  # native order
    arithmetic = op in _SUMS or op in _PRODUCTS
    if arithmetic and rdt.kind in "fc" and (rdt.kind == "c" or compensated):
        _check_bounded(values, op, a, labels, axis, decreasing, exclusive, dtype, compensated, where)
    else:
        want = expected_grouped(op, a, labels, axis, decreasing, exclusive, dtype)
        if op == "logcumsumexp":
            check_logcumsumexp_values(values, want, where)
        else:
            _same_values(values, want, arithmetic, where)
    if pair:
        assert op in EXTREMA_OPS, f"{where}: indices from {op}"
        assert isinstance(idx, np.ndarray) and idx.dtype == np.intp, f"{where}: indices {idx!r}"
        assert idx.shape == shape, f"{where}: indices shape {idx.shape}, expected {shape}"
        ref = expected_grouped_indices(op, a, labels, axis, decreasing, exclusive)
        if not np.array_equal(idx, ref):
            bad = np.nonzero(idx != ref)
            raise AssertionError(f"{where}: {bad[0].size} indices differ:\n" + mismatch_report(bad, idx, ref))


# --------------------------------------------------------------------------
# ffill
# --------------------------------------------------------------------------
def expected_grouped_fill(a, labels, axis=None, decreasing=False, limit=None):
    """``(want, leading)`` for ``simdscan.ffill(a, axis, labels=labels, ...)`` in the result's shape: each NaN
    (complex: either part) takes the last number before it in its group's walk, unless more than ``limit`` NaNs of
    the group stand between them; ``leading`` marks the NaNs before any number of their group."""
    a = np.asarray(a)
    x = as_lines(a, axis)
    src = np.broadcast_to(np.arange(x.shape[1], dtype=np.intp), x.shape).copy()
    leading = np.zeros(x.shape, bool)
    missing = np.isnan(x) if x.dtype.kind in "fc" else np.zeros(x.shape, bool)
    for k, pos in walks(labels, a.shape, axis, decreasing):
        m = missing[k, pos]
        step = np.arange(pos.size)
        last = np.maximum.accumulate(np.where(m, -1, step))  # the latest number of the group, by step in the walk
        filled = m & (last >= 0) & (True if limit is None else step - last <= limit)
        src[k, pos[filled]] = pos[last[filled]]
        leading[k, pos[m & (last < 0)]] = True
    want = np.take_along_axis(x, src, axis=1)
    return from_lines(want, a.shape, axis), from_lines(leading, a.shape, axis)


def _bits(x):
    x = np.ascontiguousarray(x, dtype=native(x.dtype))
    parts = 2 if x.dtype.kind == "c" else 1
    return x.view(f"u{x.itemsize // parts}").reshape(x.shape + (parts,))


def check_grouped_fill(got, a, labels, axis=None, decreasing=False, limit=None, where=""):
    """Full check of ``simdscan.ffill(a, axis, labels=labels, ...)``: an ndarray of the result's shape and a's dtype
    (native order), NaN where the reference has NaN, and every other element (and every NaN that is not before any
    number of its group: one past the limit keeps its own bits) the reference's bits."""
    a = np.asarray(a)
    where = where or f"ffill dtype={a.dtype} shape={a.shape} axis={axis} decreasing={decreasing} limit={limit}"
    assert type(got) is np.ndarray, f"{where}: returned {type(got)!r}"
    assert got.shape == result_shape(a, axis), f"{where}: shape {got.shape}, expected {result_shape(a, axis)}"
    assert native(got.dtype) == native(a.dtype), f"{where}: dtype {got.dtype}, expected {a.dtype}"
    want, leading = expected_grouped_fill(a, labels, axis, decreasing, limit)
    np.testing.assert_array_equal(got, want, err_msg=where)
    if want.dtype.kind in "fc":
        differ = (_bits(got) != _bits(want)).any(axis=-1) & ~leading
        if differ.any():
            bad = np.nonzero(differ)
            raise AssertionError(f"{where}: {bad[0].size} elements differ in their bits:\n"
                                 + mismatch_report(bad, got, want))
