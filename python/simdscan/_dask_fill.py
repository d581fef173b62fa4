"""The graph of forward fill for simdscan.dask (simdscan.dask.ffill, see :func:`_ffill`): plain, segmented
(``reset=``) or grouped (``labels=``)."""

from __future__ import annotations

import operator
from typing import Any, Optional

import dask.array as da
import numpy as np

from ._array_types import numpy_level
from ._axes import is_decreasing
from ._dask_chunks import _chain, _public, _unwalked, _walked
from ._dask_groups import (
    _Groups,
    _compact,
    _group_start,
    _join,
    _merge,
    _no_groups,
    _part_dtypes,
    _scatter,
    _take,
)
from ._dask_operands import _labels_operand, _reset_operand, _segments, _walked_layout
from ._dask_segments import _head, _starts
from ._ops import OPS
from ._runtime import Direction, off_in_dask_workers

#: simdscan.ffill at the NumPy level: the plain function, a masked chunk filled as the public one fills it
_numpy_ffill = numpy_level(OPS["ffill"])


# --------------------------------------------------------------------------
# per-chunk functions of ffill (see _ffill)
# --------------------------------------------------------------------------
def _fill_chunk(block: np.ndarray, *flags: np.ndarray, axis: int, decreasing: bool, limit: Optional[int],
                labels: Optional[np.ndarray] = None) -> Any:
    """simdscan's fill of one chunk along ``axis``, segmented by the chunk's reset flags (``flags``) or grouped by its
    int64 ``labels`` where given."""
    off_in_dask_workers()
    direction = Direction.DECREASING if decreasing else Direction.INCREASING
    return _numpy_ffill(block, axis, direction=direction, limit=limit, reset=flags[0] if flags else None,
                        labels=None if labels is None else _public(labels))


def _unfilled(block: np.ndarray, *flags: np.ndarray) -> np.ndarray:
    """A copy of the block, as simdscan.ffill returns an input without NaN (its flags only read)."""
    return np.array(block, copy=True)


def _data_and_numbers(block: np.ndarray) -> tuple[np.ndarray, np.ndarray, Any]:
    """The block's data, where it holds a number, and its mask (False unless masked): a masked element is missing, as
    NaN is, as simdscan.ffill takes a masked array."""
    data = np.asarray(block)
    mask = np.ma.getmask(block) if type(block) is not np.ndarray else np.False_
    return data, ~np.isnan(data) & ~mask, mask


def _fill_total(block: np.ndarray, *flags: np.ndarray, axis: int, decreasing: bool) -> tuple[np.ndarray, ...]:
    """Step 2 of a fill: the chunk's (value, run, found, cut), each of length 1 along ``axis``.

    ``cut`` where the chunk holds a reset; ``found`` where its last segment in the walk (the elements walked after
    its last cut, all of them without one) holds a number, ``value`` the last such number and ``run`` the count of
    elements walked after it (all of the chunk's where no number is found)."""
    data, numbers, _ = _data_and_numbers(block)
    lines = _walked(data, axis, decreasing)
    n = lines.shape[-1]
    position = np.arange(n)
    after: Any = np.zeros(lines.shape[:-1], dtype=np.intp)  # the walk position of the last segment's first element
    cut: Any = np.zeros(lines.shape[:-1], dtype=bool)
    if flags:
        marks = _walked(flags[0], axis, decreasing)
        # a decreasing walk crosses a reset's cut just after walking its element, an increasing one just before
        after = np.where(marks, position + int(decreasing), 0).max(axis=-1, initial=0)
        cut = marks.any(axis=-1)
    found = _walked(numbers, axis, decreasing) & (position >= after[..., None])
    at = np.where(found, position, -1).max(axis=-1, initial=-1)
    if n:
        value = np.take_along_axis(lines, np.maximum(at, 0)[..., None], axis=-1)[..., 0]
    else:
        value = np.zeros(lines.shape[:-1], dtype=lines.dtype)
    return tuple(np.expand_dims(part, axis) for part in (value, n - 1 - at, at >= 0, cut))


def _fill_start(dtype: np.dtype, shape: list[int]) -> tuple[np.ndarray, ...]:
    """The carry into the first chunk in the walk, (value, run, found): no number found."""
    return np.zeros(shape, dtype=dtype), np.zeros(shape, dtype=np.intp), np.zeros(shape, dtype=bool)


def _fill_step(carry: tuple[np.ndarray, ...], total: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    """Step 3 of a fill: the carry past one chunk: the chunk's own last number where it has one, no number past a
    cut, else the carry on, its run longer by the chunk's length."""
    (value, run, found), (own, own_run, own_found, cut) = carry, total
    return (np.where(own_found, own, value), np.where(own_found | cut, own_run, run + own_run),
            own_found | (found & ~cut))


def _fill_combine(
    carry: tuple[np.ndarray, ...], block: np.ndarray, *flags: np.ndarray, axis: int, decreasing: bool,
    limit: Optional[int], block_info: Optional[dict[Any, Any]] = None,
) -> Any:
    """Step 4 of a fill: the chunk's own fill, and the carry's number in the NaNs walked before the chunk's first
    number and first segment start, as far as ``limit`` allows (the carry's run counts towards it).

    With ``limit``, the NaNs left are those of simdscan.ffill on the whole axis, and so are their bits: as there, a NaN
    past the limit keeps its own (where the core's fill may give a NaN other bits, as float16's quieted); a NaN with
    no number before it in its segment counts its distance from a number just before the whole axis in the walk."""
    result = _fill_chunk(block, *flags, axis=axis, decreasing=decreasing, limit=limit)
    value, run, found = carry
    assert block_info is not None
    start, stop = block_info[None]["array-location"][axis]
    offset = block_info[None]["shape"][axis] - stop if decreasing else start  # the elements walked before the chunk
    if not found.any() and (limit is None or offset == 0):
        return result
    data, stops, mask = _data_and_numbers(block)
    filled = np.asarray(result)  # (a masked result keeps its mask, its data filled)
    if flags:
        stops |= _starts(flags[0], axis, decreasing)
    reached = _head(stops, axis, decreasing) & found
    if limit is not None:
        n = block.shape[axis]
        shape = [1] * block.ndim
        shape[axis] = n
        walked = (np.arange(n, 0, -1) if decreasing else np.arange(1, n + 1)).reshape(shape)
        distance = np.where(reached, run + walked, offset + walked)  # the chunk's fill counts from its own start
        np.copyto(filled, data, where=np.isnan(filled) & (distance > limit) & ~mask)
        reached &= distance <= limit
    np.copyto(filled, value, where=reached)
    return result


# --------------------------------------------------------------------------
# per-chunk functions of a grouped fill (labels=; see _grouped_fill)
# --------------------------------------------------------------------------
def _fill_label_summary(block: np.ndarray, labels: np.ndarray, *, axis: int, decreasing: bool) -> _Groups:
    """Step 2 of a grouped fill: each line's groups in the chunk, with the group's last number in the walk, the count of
    its elements walked after that number (all of them where it has none) and whether it has one."""
    lead = block.shape[:axis] + block.shape[axis + 1:]
    if block.size == 0:
        return _no_groups(lead, _part_dtypes(None, block.dtype))
    data, numbers, _ = _data_and_numbers(block)
    walked = _walked(labels, axis, decreasing)
    order = np.argsort(walked, axis=-1, kind="stable")
    ordered = _take(walked, order)
    values, found = _take(_walked(data, axis, decreasing), order), _take(_walked(numbers, axis, decreasing), order)
    j = np.arange(ordered.shape[-1])
    start = np.ones(ordered.shape, dtype=bool)
    start[..., 1:] = ordered[..., 1:] != ordered[..., :-1]
    first = np.maximum.accumulate(np.where(start, j, 0), axis=-1)
    number = np.maximum.accumulate(np.where(found, j, -1), axis=-1)
    found = number >= first
    value = _take(values, np.maximum(number, 0))
    run = np.where(found, j - number, j - first + 1).astype(np.intp)
    last = np.ones(ordered.shape, dtype=bool)
    last[..., :-1] = start[..., 1:]
    valid, packed = _compact(last, [ordered, value, run, found], [0, 0, 0, False])
    return packed[0], valid, tuple(packed[1:])


def _fill_label_step(carry: _Groups, own: _Groups) -> _Groups:
    """Step 3 of a grouped fill: a group in the carry and the chunk passes on the chunk's last number where it has
    one, else the carry's, its count longer by the chunk's elements of the group."""

    def combine(before: list[np.ndarray], after: list[np.ndarray]) -> list[np.ndarray]:
        (value, run, found), (own_value, own_run, own_found) = before, after
        return [np.where(own_found, own_value, value), np.where(own_found, own_run, run + own_run), own_found | found]

    return _merge(carry, own, combine)


def _fill_label_combine(
    carry: Optional[_Groups], block: np.ndarray, labels: np.ndarray, *, axis: int, decreasing: bool,
    limit: Optional[int],
) -> Any:
    """Step 4 of a grouped fill: the chunk's own fill, then the NaNs of each group walked before the group's first
    number in the chunk take the carry's number, as far as ``limit`` allows (the carry's count and the NaN's place
    among the group's elements in the chunk, together); beyond the limit a NaN keeps its own bits, as in
    simdscan.ffill on the whole axis."""
    result = _fill_chunk(block, axis=axis, decreasing=decreasing, limit=limit, labels=labels)
    if carry is None or carry[0].shape[-1] == 0 or block.size == 0:
        return result
    data, numbers, mask = _data_and_numbers(block)
    walked = _walked(labels, axis, decreasing)
    order, head, has, first = _join(carry, walked)
    mc = carry[0].shape[-1]
    value, run, found = (_scatter(np.take_along_axis(part, head, axis=-1), order)[..., mc:] for part in carry[2])
    has = _scatter(has, order)[..., mc:]
    found &= has
    run = np.where(has, run, 0)
    # each element's place among its group's elements in the chunk (1, 2, ...), and whether a number comes before
    wnumbers = _walked(numbers, axis, decreasing)
    j = np.arange(order.shape[-1])
    is_number = _take(np.concatenate([np.zeros(carry[0].shape, dtype=bool), wnumbers], axis=-1), order)
    number = np.maximum.accumulate(np.where(is_number, j, -1), axis=-1)
    place = _scatter(j - first + 1, order)[..., mc:]
    leading = _scatter(number < first, order)[..., mc:] & ~wnumbers
    distance = run + place
    filled = leading & found & (True if limit is None else distance <= limit)
    out = np.asarray(result)  # (a masked result keeps its mask, its data filled)
    if limit is not None:
        beyond = _unwalked(leading & (distance > limit), axis, decreasing)
        np.copyto(out, data, where=beyond & ~mask)
    np.copyto(out, _unwalked(value, axis, decreasing), where=_unwalked(filled, axis, decreasing))
    return result


def _fill_label_chunk(block: np.ndarray, labels: np.ndarray, **options: Any) -> Any:
    """A grouped fill of a chunk that is the whole axis: nothing carried."""
    return _fill_label_combine(None, block, labels, **options)


# --------------------------------------------------------------------------
# graph construction
# --------------------------------------------------------------------------
def _ffill(a: Any, axis: Optional[int], direction: Any, limit: Any, reset: Any, labels: Any = None) -> da.Array:
    """simdscan.dask.ffill: each chunk filled by simdscan, then the carry across chunks (the last number walked in each
    line, with the count of elements walked since it for ``limit``) filling the NaNs that open a chunk, cut at
    segment starts as the segmented scans' carries are (:func:`_segmented`)."""
    x = a if isinstance(a, da.Array) else da.asarray(a)
    blank = (0,) * x.ndim
    # simdscan.ffill's checks, in its order (axis, limit, reset, dtype and direction), on empty arrays
    _numpy_ffill(np.empty(blank), axis, limit=limit)
    groups = None if labels is None else _labels_operand(labels, x.shape, axis, reset)
    flags = None if reset is None or labels is not None else _reset_operand(reset, x.shape, axis)
    rdt = _numpy_ffill(np.empty(blank, dtype=x.dtype), axis, direction=direction, limit=limit).dtype
    decreasing = is_decreasing(direction)
    limit = None if limit is None else operator.index(limit)
    given = x
    x, axis = _walked_layout(x, axis)
    segments = _segments(flags if groups is None else groups, given, x)
    meta = np.empty((0,) * x.ndim, dtype=rdt)
    if rdt.kind not in "fc":  # no NaN: a copy, which reads a Dask reset still, so that its values are checked
        lazy = isinstance(flags if groups is None else groups, da.Array)
        return da.map_blocks(_unfilled, x, *(segments if lazy else ()), dtype=rdt, meta=meta)
    nb = x.numblocks[axis]
    options: dict[str, Any] = dict(axis=axis, decreasing=decreasing)
    if groups is not None:
        return _grouped_fill(x, segments[0], nb, limit, meta, options)
    if nb <= 1:
        return da.map_blocks(_fill_chunk, x, *segments, limit=limit, dtype=rdt, meta=meta, **options)
    totals = da.map_blocks(
        _fill_total,
        x,
        *segments,
        chunks=tuple((1,) * nb if i == axis else c for i, c in enumerate(x.chunks)),
        dtype=rdt,
        meta=meta,
        **options,
    )
    carries = _chain(totals, "fill-carry", axis, decreasing, rdt, (_fill_start, rdt), (_fill_step,))
    return da.map_blocks(
        _fill_combine, carries, x, *segments, limit=limit, chunks=x.chunks, dtype=rdt, meta=meta, **options
    )


def _grouped_fill(x: da.Array, labels: da.Array, nb: int, limit: Optional[int], meta: np.ndarray,
                  options: dict[str, Any]) -> da.Array:
    """simdscan.dask.ffill grouped by ``labels`` (int64, in ``x``'s chunks): each chunk's groups line by line (the
    last number of each in the walk, and the count of its elements walked since), carried over the chunks in the walk's
    order (a group in the carry and a chunk: the chunk's number where it has one, else the carry's, its count longer),
    then each chunk filled by simdscan, grouped, and each group's NaNs before its first number in the chunk filled from
    the carry as far as ``limit`` allows."""
    if nb <= 1:
        return da.map_blocks(_fill_label_chunk, x, labels, limit=limit, dtype=meta.dtype, meta=meta, **options)
    axis = options["axis"]
    own = da.map_blocks(
        _fill_label_summary, x, labels, chunks=tuple((1,) * nb if i == axis else c for i, c in enumerate(x.chunks)),
        dtype=meta.dtype, meta=meta, **options,
    )
    carries = _chain(own, "fill-label-carry", axis, options["decreasing"], meta.dtype,
                     (_group_start, None, meta.dtype, axis), (_fill_label_step,))
    return da.map_blocks(_fill_label_combine, carries, x, labels, limit=limit, chunks=x.chunks, dtype=meta.dtype,
                         meta=meta, **options)
