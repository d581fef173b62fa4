"""NumPy-only oracle of the scans' ``reset=`` (segmented scans), for tests/test_reset.py.

A True reset at index i of a line starts a new segment there, in index order whatever the direction; each segment
is scanned on its own. The reference cuts every line into its segments and checks each piece of a result with the
suite's own per-line oracles (reference.py's rounding-error bounds for sums and products, family_reference.py's
exact running extrema and indices, logcumsumexp's relative bound), so nothing here imports simdscan.
"""

from __future__ import annotations

import numpy as np

from family_reference import (
    EXTREMA_OPS,
    NAN_EXTREMA_OPS,
    NAN_OPS,
    check_extremum,
    check_logcumsumexp,
    extremum_identity,
    expected_nan_scan,
    extremum_indices,
    extremum_indices_fast,
)
from ops import BY_NAME
from reference import OPS, check_values, expected, native

#: segments longer than this get family_reference's loop-free index reference (the loop is one step per element)
_LOOP_FREE_FROM = 2000


def segment_bounds(flags):
    """``[(start, stop), ...]``: the segments of one line whose reset flags are ``flags`` (1-D bool); index 0
    always starts one, and an empty line has none."""
    flags = np.asarray(flags, dtype=bool).reshape(-1)
    n = flags.size
    if n == 0:
        return []
    starts = np.union1d([0], np.flatnonzero(flags)).tolist()
    return list(zip(starts, starts[1:] + [n]))


def as_lines(a, axis):
    """``a`` as a 2-D array of lines, each line one row, in C order of the other axes; ``axis=None``: the C-order
    flattened array as one line; a 0-d array: one line of one element."""
    a = np.asarray(a)
    if axis is None or a.ndim == 0:
        return a.reshape(1, -1)
    moved = np.moveaxis(a, axis, -1)
    return moved.reshape(int(np.prod(moved.shape[:-1], dtype=np.int64)), moved.shape[-1])


def reset_lines(reset, shape, axis):
    """The reset flags broadcast to ``shape`` (the input's), as bool lines laid out as ``as_lines`` lays out the
    input (``axis=None``: broadcast first, then flattened in C order)."""
    flags = np.broadcast_to(np.asarray(reset), shape).astype(bool)
    return as_lines(flags, axis)


def result_shape(a, axis):
    a = np.asarray(a)
    if axis is None:
        return (a.size,)
    return a.shape if a.ndim else (1,)


def result_dtype(op, in_dtype, dtype=None):
    """The dtype of simdscan.<op>'s result without dtype= (tests/ops.py's rule), or ``dtype``."""
    return native(dtype if dtype is not None else BY_NAME[op].result_dtype(in_dtype))


def identity(op, dtype):
    """The exclusive identity of ``op`` in the result dtype ``dtype``."""
    dtype = native(dtype)
    if op in ("cumsum", "nancumsum"):
        return dtype.type(0)
    if op in ("cumprod", "nancumprod"):
        return dtype.type(1)
    if op == "logcumsumexp":
        return dtype.type(-np.inf)
    return extremum_identity(op, dtype)


def _check_pieces(got, op, x, decreasing, exclusive, dtype, where):
    """Segments of one length, the rows of ``x``, against their pieces of the result, the rows of ``got``."""
    if op in OPS:
        check_values(got, expected(op, x, 1, decreasing, exclusive, dtype), where)
    elif op in NAN_OPS:
        check_values(got, expected_nan_scan(op, x, 1, decreasing, exclusive, dtype), where)
    elif op in EXTREMA_OPS or op in NAN_EXTREMA_OPS:
        check_extremum(got, op, x, 1, decreasing, exclusive, where)
    elif op == "logcumsumexp":
        check_logcumsumexp(got, x, 1, decreasing, exclusive, dtype, where)
    else:  # pragma: no cover - test design error
        raise AssertionError(f"segment_reference: unknown scan {op!r}")


def _check_indices(got, op, x, starts, decreasing, exclusive, where):
    """The indices of segments of one length (rows of ``x`` starting at ``starts`` of their lines): the running
    extremum's positions within each segment, shifted by its start (-1 kept)."""
    ref = (extremum_indices_fast if x.shape[1] > _LOOP_FREE_FROM else extremum_indices)(op, x, 1, decreasing,
                                                                                        exclusive)
    ref = np.where(ref >= 0, ref + starts[:, None], ref)
    if not np.array_equal(got, ref):
        bad = np.argwhere(got != ref)[0]
        raise AssertionError(f"{where}: {int((got != ref).sum())} indices differ, first at {tuple(bad.tolist())}: "
                             f"got {got[tuple(bad)]}, expected {ref[tuple(bad)]}")


def check_segmented(got, op, a, reset, axis=None, decreasing=False, exclusive=False, dtype=None, where=""):
    """Full check of ``simdscan.<op>(a, axis, reset=reset, ...)``: an ndarray (or, for return_indices, a pair
    with np.intp indices) of the result's shape and dtype, every segment of every line scanned on its own (the
    oracle of its scan), and indices that are positions along the whole line (-1 for the exclusive identity).

    The segments of one length are checked together, as the rows of one array; a failure is reported for the
    first failing segment, by its line and bounds."""
    a = np.asarray(a)
    where = where or (f"{op} dtype={a.dtype} shape={a.shape} axis={axis} decreasing={decreasing} "
                      f"exclusive={exclusive}")
    pair = isinstance(got, tuple)
    values, idx = got if pair else (got, None)
    assert isinstance(values, np.ndarray), f"{where}: returned {type(values)!r}, not an ndarray"
    shape = result_shape(a, axis)
    assert values.shape == shape, f"{where}: shape {values.shape}, expected {shape}"
    rdt = result_dtype(op, a.dtype, dtype)
    assert native(values.dtype) == rdt, f"{where}: dtype {values.dtype}, expected {rdt}"
    if pair:
        assert isinstance(idx, np.ndarray) and idx.dtype == np.intp, f"{where}: indices {idx!r}"
        assert idx.shape == shape, f"{where}: indices shape {idx.shape}, expected {shape}"
        idx_lines = as_lines(idx, axis)
    a_lines, got_lines = as_lines(a, axis), as_lines(values, axis)
    flag_lines = reset_lines(reset, a.shape, axis)
    by_length = {}
    for k in range(a_lines.shape[0]):
        for start, stop in segment_bounds(flag_lines[k]):
            by_length.setdefault(stop - start, []).append((k, start))
    for length, places in sorted(by_length.items()):
        lines, starts = (np.array(v, dtype=np.intp) for v in zip(*places))
        cols = starts[:, None] + np.arange(length)
        rows = lines[:, None]
        try:
            _check_pieces(got_lines[rows, cols], op, a_lines[rows, cols], decreasing, exclusive, dtype, where)
            if pair:
                _check_indices(idx_lines[rows, cols], op, a_lines[rows, cols], starts, decreasing, exclusive, where)
        except AssertionError:
            for k, start in places:  # find the first failing segment, and say which it is
                piece = f"{where}, line {k}, segment [{start}, {start + length})"
                x = a_lines[k:k + 1, start:start + length]
                _check_pieces(got_lines[k:k + 1, start:start + length], op, x, decreasing, exclusive, dtype, piece)
                if pair:
                    _check_indices(idx_lines[k:k + 1, start:start + length], op, x, np.array([start]), decreasing,
                                   exclusive, piece)
            raise
