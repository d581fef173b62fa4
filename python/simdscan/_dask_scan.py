"""The graph of a chunked scan for simdscan.dask: chunk-local scans, chunk totals, carries and their combination."""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass, replace
from itertools import product
from typing import Any, Callable, Optional, Union

import dask.array as da
import numpy as np
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph

import simdscan

from ._array_api import _cumulative_axis, _scannable
from ._axes import is_decreasing, normalize_axes, per_axis
from ._runtime import Direction, off_in_dask_workers
from ._segments import group_labels, reset_flags, segment_operands

_Direction = Union[Direction, str]


@dataclass(frozen=True)
class _Op:
    """One scan of the family: how a chunk is scanned, and how a carry combines with what follows it."""

    scan: Callable[..., Any]  # the NumPy-level simdscan function, applied to each chunk
    ufunc: np.ufunc  # ufunc(carry, later): the carry comes first in scan order
    casts: bool  # the scan takes dtype= (it may accumulate in a wider dtype than it returns)
    indices: bool = False  # cummax / cummin with return_indices: (values, positions along the axis) pairs


_OPS: dict[str, _Op] = {
    "cumsum": _Op(simdscan.cumsum, np.add, True),
    "cumprod": _Op(simdscan.cumprod, np.multiply, True),
    "cummax": _Op(simdscan.cummax, np.maximum, False),
    "cummin": _Op(simdscan.cummin, np.minimum, False),
    "nancummax": _Op(simdscan.nancummax, np.fmax, False),
    "nancummin": _Op(simdscan.nancummin, np.fmin, False),
    "nancumsum": _Op(simdscan.nancumsum, np.add, True),
    "nancumprod": _Op(simdscan.nancumprod, np.multiply, True),
    "logcumsumexp": _Op(simdscan.logcumsumexp, np.logaddexp, True),
}


#: Dask's values of ``method=`` (dask.array.cumsum): how it combines chunk totals, where simdscan has its own way
_DASK_METHODS = ("sequential", "blelloch")


def check_method(method: Any) -> None:
    """Raises ValueError for a ``method=`` that Dask's cumulative functions do not take either."""
    if not isinstance(method, str) or method not in _DASK_METHODS:
        raise ValueError(f"method must be 'sequential' or 'blelloch' (Dask's values), got {method!r}")


def _neutral(op: _Op, dtype: np.dtype) -> Any:
    """The value that ``op.ufunc`` leaves the other operand alone with: the total of an empty chunk. For the
    extrema it is also the identity that an exclusive scan writes first (fmax / fmin: NaN on floats)."""
    if op.ufunc in (np.add, np.multiply):
        return int(op.ufunc is np.multiply)
    if op.ufunc is np.logaddexp or (op.ufunc in (np.fmax, np.fmin) and dtype.kind == "f"):
        return -np.inf if op.ufunc is np.logaddexp else np.nan
    larger = op.ufunc in (np.maximum, np.fmax)
    if dtype.kind == "b":
        return not larger
    if dtype.kind == "f":
        return -np.inf if larger else np.inf
    limits = np.iinfo(dtype)
    return limits.min if larger else limits.max


def _accumulation_dtype(op: _Op, rdt: np.dtype, compensated: bool) -> np.dtype:
    """The dtype chunks are scanned and carries combined in, as simdscan accumulates inside one scan: float16
    sums and products in float32, compensated float32 / complex64 sums in double precision, logcumsumexp of
    float16 and float32 in float64; the extrema are exact in the result dtype."""
    if op.ufunc is np.logaddexp and rdt.itemsize < 8:
        return np.dtype(np.float64)
    if op.ufunc in (np.add, np.multiply):
        if rdt == np.float16:
            return np.dtype(np.float32)
        if compensated:
            return np.dtype({"f4": np.float64, "c8": np.complex128}.get(rdt.str[1:], rdt))
    return rdt


# --------------------------------------------------------------------------
# per-chunk functions (module level, so that distributed workers can unpickle them)
# --------------------------------------------------------------------------
def _prepare(block: np.ndarray, rdt: np.dtype, acc: np.dtype) -> np.ndarray:
    """The block as simdscan would see it before accumulating in ``acc``.

    Where the result accumulates in a wider type (float16 in float32; compensated float32 and complex64 in
    float64 and complex128; logcumsumexp in float64), the input is cast to the result dtype first, as simdscan
    does, and the wider scan of those values is what simdscan computes internally. Otherwise the block is
    returned as is and simdscan casts it (``dtype=rdt``)."""
    if acc != rdt:
        return np.asarray(block).astype(rdt, copy=False)
    return block


def _scan_chunk(
    block: np.ndarray, op: _Op, axis: int, direction: Direction, exclusive: bool, rdt: np.dtype, acc: np.dtype,
    compensated: bool, reset: Optional[np.ndarray] = None, labels: Optional[np.ndarray] = None,
) -> Any:
    """simdscan's scan of one chunk (or one slice of it), in the accumulation dtype; segmented by ``reset`` (the
    chunk's flags) or grouped by ``labels`` (int64, as :func:`_segments.group_labels` gives them) where given."""
    off_in_dask_workers()
    extra: dict[str, Any] = {"compensated": True} if compensated else {}
    if reset is not None:
        extra["reset"] = reset
    if labels is not None:
        extra["labels"] = _public(labels)
    if op.casts:
        block, extra["dtype"] = _prepare(block, rdt, acc), acc
    if op.indices:
        if block.shape[axis] == 0:  # (simdscan.cummax raises IndexError there: float or exclusive)
            return np.empty(block.shape, dtype=rdt), np.empty(block.shape, dtype=np.intp)
        extra["return_indices"] = True
    return op.scan(block, axis, direction=direction, exclusive=exclusive, **extra)


def _local_scan(
    block: np.ndarray, *flags: np.ndarray, op: _Op, axis: int, direction: Direction, exclusive: bool,
    rdt: np.dtype, acc: np.dtype, compensated: bool, block_info: Optional[dict[Any, Any]] = None,
) -> Any:
    """Step 1: the scan of one chunk along ``axis`` (segmented by the chunk's reset flags, ``flags``, where given);
    with indices, their positions along the whole axis (an exclusive scan with indices is asked for only of a
    single chunk along the axis, whose offset is 0)."""
    result = _scan_chunk(block, op, axis, direction, exclusive, rdt, acc, compensated, *flags)
    if op.indices:
        assert block_info is not None
        positions = result[1]
        positions += block_info[0]["array-location"][axis][0]
    return result


def _edge(a: np.ndarray, axis: int, decreasing: bool) -> np.ndarray:
    """The last slice along ``axis`` in scan order (length 1 along ``axis``)."""
    index = [slice(None)] * a.ndim
    index[axis] = slice(0, 1) if decreasing else slice(a.shape[axis] - 1, a.shape[axis])
    return a[tuple(index)]


def _neutral_block(shape: list[int], op: _Op, acc: np.dtype) -> Any:
    """A block of the neutral element (with indices: -1, the position of nothing)."""
    values = np.full(shape, _neutral(op, acc), dtype=acc)
    return (values, np.full(shape, -1, dtype=np.intp)) if op.indices else values


def _block_total(
    local: Any, *block: np.ndarray, op: _Op, axis: int, decreasing: bool, exclusive: bool, rdt: np.dtype,
    acc: np.dtype,
) -> Any:
    """Step 2: the total of one chunk along ``axis`` (length 1 along ``axis``), in ``acc``.

    Inclusive: the edge of the chunk's scan (of its values and of their positions). Exclusive (never with
    indices): the edge of the exclusive scan combined with the edge element of the input, cast as the scan casts
    it (by simdscan itself, on that one slice); a chunk of one element's total is that element (so that a sum
    of -0.0 stays -0.0)."""
    n = (local[0] if op.indices else local).shape[axis]
    if n == 0:
        shape = list((local[0] if op.indices else local).shape)
        shape[axis] = 1
        return _neutral_block(shape, op, acc)
    # A masked chunk's total is its data: its masked elements entered the scan as the identity.
    if not exclusive:
        if op.indices:
            return tuple(np.array(_edge(part, axis, decreasing)) for part in local)
        return np.array(_edge(local, axis, decreasing))
    (x,) = block
    last = np.asarray(_scan_chunk(_edge(x, axis, decreasing), op, axis, Direction.INCREASING, False, rdt, acc, False))
    if n == 1:
        return last
    return _apply(op, np.asarray(_edge(local, axis, decreasing)), last)


def _apply(op: _Op, a: Any, b: Any) -> Any:
    """``op.ufunc(a, b)``, ``a`` before ``b`` in scan order, silent about inf - inf, 0 * inf and overflow, as
    simdscan's scans are; a tie of the extrema is ``b``'s (:func:`_ties_to_later`). With indices, each value's
    position goes with it: ``b``'s unless ``a`` is strictly better, or a NaN (the first NaN's position stays), or
    ``b`` stands for no element (position -1)."""
    with np.errstate(all="ignore"):
        if not op.indices:
            return _ties_to_later(op, op.ufunc(a, b), a, b)
        (a_values, a_positions), (b_values, b_positions) = a, b
        keep = (np.greater if op.ufunc is np.maximum else np.less)(a_values, b_values) | (b_positions < 0)
        if a_values.dtype.kind == "f":
            keep |= np.isnan(a_values)
        values = _ties_to_later(op, op.ufunc(a_values, b_values), a_values, b_values)
        return values, np.where(keep, a_positions, b_positions)


def _ties_to_later(op: _Op, result: Any, a: Any, b: Any) -> Any:
    """An extremum's ``result`` (``op.ufunc(a, b)``) with each tie of floats taking ``b``'s bits, as simdscan's
    extrema keep the later element of a tie: +0 against -0, where NumPy's maximum / minimum keep either by dtype
    (float16's the earlier) and fmax / fmin the earlier (the result in place; a masked one keeps its mask)."""
    if op.ufunc in (np.maximum, np.minimum, np.fmax, np.fmin) and result.dtype.kind == "f":
        np.copyto(np.asarray(result), np.asarray(b), where=np.asarray(a) == np.asarray(b))
    return result


def _to_result(a: np.ndarray, rdt: np.dtype) -> np.ndarray:
    """The accumulation dtype rounded to the result dtype (float32 to float16), silently as simdscan."""
    with np.errstate(all="ignore"):
        return a.astype(rdt, copy=False)


def _first_slot(ndim: int, axis: int, decreasing: bool) -> tuple[slice, ...]:
    """The index of the first slice along ``axis`` in scan order."""
    index = [slice(None)] * ndim
    index[axis] = slice(-1, None) if decreasing else slice(0, 1)
    return tuple(index)


def _combine(
    carry: Any, local: Any, *, op: _Op, axis: int, decreasing: bool, exclusive: bool, first: int, rdt: np.dtype,
    block_id: Optional[tuple[int, ...]] = None,
) -> Any:
    """Step 4: one chunk's result, ``carry op local`` (the carry broadcast along ``axis``).

    The first chunk in scan order that holds elements (``first``) has no carry and is its local scan as it is (the
    empty chunks before it carry nothing to it, see :func:`_carries`). For an exclusive scan, the
    first element of a chunk in scan order is the carry itself (not ``carry op identity``: a carry of
    -0.0 stays -0.0). With indices the local scans are inclusive, and an exclusive result is the inclusive one
    moved one place in scan order, the carry entering first (the first chunk's carry: the identity and -1)."""
    assert block_id is not None
    if op.indices:
        result = local if block_id[axis] == first else _apply(op, carry, local)
        if exclusive:
            return tuple(_shifted(part, enter, axis, decreasing) for part, enter in zip(result, carry))
        return result
    if block_id[axis] == first:
        return _to_result(local, rdt)
    result = _apply(op, carry, local)
    if exclusive and local.shape[axis] > 0:
        np.asarray(result)[_first_slot(local.ndim, axis, decreasing)] = carry  # (a masked result keeps its mask)
    return _to_result(result, rdt)


def _shifted(values: np.ndarray, enter: np.ndarray, axis: int, decreasing: bool) -> np.ndarray:
    """``values`` moved one place along ``axis`` in scan order, ``enter`` (length 1 along it) entering first."""
    result = np.empty_like(values)
    if values.shape[axis] == 0:
        return result
    moved = np.moveaxis(values, axis, -1)
    target = np.moveaxis(result, axis, -1)
    if decreasing:
        target[..., :-1] = moved[..., 1:]
    else:
        target[..., 1:] = moved[..., :-1]
    result[_first_slot(values.ndim, axis, decreasing)] = enter
    return result


def _pick(pair: tuple[np.ndarray, np.ndarray], which: int) -> np.ndarray:
    return pair[which]


# --------------------------------------------------------------------------
# per-chunk functions of a segmented scan (reset=; see _segmented)
# --------------------------------------------------------------------------
def _checked_flags(block: np.ndarray) -> np.ndarray:
    """A Dask reset's chunk as bool flags, its values checked as simdscan checks them (ValueError otherwise)."""
    flags = reset_flags(block, block.shape, 0)
    assert flags is not None
    return flags


def _select(where: np.ndarray, a: Any, b: Any) -> Any:
    """``a`` where ``where`` is true, else ``b``; (values, positions) pairs part by part."""
    if isinstance(a, tuple):
        return tuple(np.where(where, x, y) for x, y in zip(a, b))
    return np.where(where, a, b)


def _starts(reset: np.ndarray, axis: int, decreasing: bool) -> np.ndarray:
    """Where a segment starts in the walk within the chunk: the elements walked right after a cut (the chunk's
    first element in the walk only where a reset tells so, in an increasing walk)."""
    if not decreasing:
        return reset
    starts = np.zeros_like(reset)
    np.moveaxis(starts, axis, -1)[..., :-1] = np.moveaxis(reset, axis, -1)[..., 1:]
    return starts


def _head(starts: np.ndarray, axis: int, decreasing: bool) -> np.ndarray:
    """The elements walked before the walk meets a segment start in the chunk: those that the carry reaches."""
    walked = np.flip(starts, axis) if decreasing else starts
    seen = np.logical_or.accumulate(walked, axis=axis)
    return ~(np.flip(seen, axis) if decreasing else seen)


def _segment_total(
    local: Any, reset: np.ndarray, *block: np.ndarray, op: _Op, axis: int, decreasing: bool, exclusive: bool,
    rdt: np.dtype, acc: np.dtype,
) -> Any:
    """Step 2 of a segmented scan: the chunk's (value, cut, empty), each of length 1 along ``axis``.

    The value is the edge of the chunk's scan, as :func:`_block_total` takes it, since the chunk's scan begins a
    segment at each reset; exclusive (never with indices), the edge of the exclusive scan combined with the edge
    element, or that element alone where a segment starts at it."""
    values = local[0] if op.indices else local
    n = values.shape[axis]
    shape = list(values.shape)
    shape[axis] = 1
    cut = np.array(np.any(reset, axis=axis, keepdims=True))
    if n == 0:
        return _neutral_block(shape, op, acc), cut, np.ones(shape, dtype=bool)
    empty = np.array(_edge(reset, axis, True)) if decreasing else np.zeros(shape, dtype=bool)
    if not exclusive:
        total = _copy(tuple(_edge(part, axis, decreasing) for part in local) if op.indices
                      else _edge(local, axis, decreasing))
    else:
        (x,) = block
        last = np.asarray(_scan_chunk(_edge(x, axis, decreasing), op, axis, Direction.INCREASING, False, rdt, acc,
                                      False))
        alone = _edge(_starts(reset, axis, decreasing), axis, decreasing) | (n == 1)
        total = np.where(alone, last, _apply(op, np.asarray(_edge(local, axis, decreasing)), last))
    return _select(empty, _neutral_block(shape, op, acc), total), cut, empty


def _empty_carry(op: _Op, acc: np.dtype, shape: list[int]) -> tuple[Any, np.ndarray]:
    """The carry into the first chunk in the walk: no element (the neutral element, with indices -1)."""
    return _neutral_block(shape, op, acc), np.ones(shape, dtype=bool)


def _carry_step(op: _Op, carry: tuple[Any, np.ndarray], total: tuple[Any, np.ndarray, np.ndarray]) -> Any:
    """Step 3 of a segmented scan: the carry past one chunk, from the carry into it and its total."""
    (values, empty), (own, cut, own_empty) = carry, total
    alone = cut | empty  # the chunk's last segment is all that reaches past it
    kept = ~alone & own_empty  # a chunk that adds no element passes the carry on as it is
    values = _select(alone, own, _select(kept, values, _apply(op, values, own)))
    return values, np.where(cut, own_empty, empty & own_empty)


def _segment_combine(
    carry: tuple[Any, np.ndarray], local: Any, reset: np.ndarray, *, op: _Op, axis: int, decreasing: bool,
    exclusive: bool, rdt: np.dtype,
) -> Any:
    """Step 4 of a segmented scan: the carry combined with the chunk's scan where it reaches (the elements walked
    before the chunk's first segment start), the scan as it is elsewhere.

    Exclusive, the chunk's first element in the walk is the carry itself where the carry reaches it. With indices
    the local scans are inclusive, and the exclusive result is the inclusive one moved one place in the walk, the
    carry entering first (an empty carry is the identity and -1), and the identity and -1 at each segment start."""
    values, empty = carry
    starts = _starts(reset, axis, decreasing)
    reached = _head(starts, axis, decreasing) & ~empty
    first = _first_slot(reset.ndim, axis, decreasing)
    if op.indices:
        result = _select(reached, _apply(op, values, local), local)
        if not exclusive or result[0].shape[axis] == 0:
            return result
        shifted = [_shifted(part, enter, axis, decreasing) for part, enter in zip(result, values)]
        identity = np.array(_neutral(op, shifted[0].dtype), dtype=shifted[0].dtype)
        return np.where(starts, identity, shifted[0]), np.where(starts, np.intp(-1), shifted[1])
    if not reached.any():
        return _to_result(local, rdt)
    result = _apply(op, values, local)  # (a masked local gives a masked result)
    np.copyto(result, local, where=~reached)
    if exclusive:
        np.copyto(result[first], values, where=reached[first])
    return _to_result(result, rdt)


# --------------------------------------------------------------------------
# per-chunk functions of ffill (see _ffill)
# --------------------------------------------------------------------------
def _fill_chunk(block: np.ndarray, *flags: np.ndarray, axis: int, decreasing: bool, limit: Optional[int],
                labels: Optional[np.ndarray] = None) -> Any:
    """simdscan's fill of one chunk along ``axis``, segmented by the chunk's reset flags (``flags``) or grouped by its
    int64 ``labels`` where given."""
    off_in_dask_workers()
    direction = Direction.DECREASING if decreasing else Direction.INCREASING
    return simdscan.ffill(block, axis, direction=direction, limit=limit, reset=flags[0] if flags else None,
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


def _walked(a: np.ndarray, axis: int, decreasing: bool) -> np.ndarray:
    """``a``'s lines along ``axis`` on the last axis, in the walk's order (a view)."""
    lines = np.moveaxis(a, axis, -1)
    return lines[..., ::-1] if decreasing else lines


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
# per-chunk functions of a grouped scan and a grouped fill (labels=; see _grouped)
# --------------------------------------------------------------------------
# A line's groups travel as (labels, valid, parts): int64 labels along the last axis (the lines on the leading ones, in
# a chunk's order but for ``axis``), ``valid`` where a slot holds a group (the others pad a ragged line), and ``parts``,
# arrays of the same shape: the inclusive scan at the group's last element in the walk (and its supplier's position
# along the whole axis, for indices), or for ffill the group's last number, the count of its elements walked since
# that number (since the line's start without one) and whether it has one.
_Groups = tuple[np.ndarray, np.ndarray, tuple[np.ndarray, ...]]


def _public(labels: np.ndarray) -> np.ndarray:
    """int64 labels as the NumPy-level functions take them back: as uint64 bits (a label past int64's range is held
    negative, which the public functions would refuse as int64)."""
    return np.asarray(labels).view(np.uint64)


def _checked_labels(block: np.ndarray) -> np.ndarray:
    """A Dask labels array's chunk as int64 labels, its values checked as simdscan checks them (ValueError for a
    negative one)."""
    labels = group_labels(block, block.shape, 0)
    assert labels is not None
    return labels


def _free_label(labels: np.ndarray) -> np.int64:
    """The least label >= 0 that ``labels`` does not hold: the label of padding, a group of its own."""
    held = np.unique(labels)
    held = held[held >= 0]
    gaps = np.flatnonzero(held != np.arange(held.size))
    return np.int64(gaps[0] if gaps.size else held.size)


def _lines(a: np.ndarray, axis: int) -> np.ndarray:
    return np.moveaxis(a, axis, -1)


def _unwalked(lines: np.ndarray, axis: int, decreasing: bool) -> np.ndarray:
    """:func:`_walked` undone: lines in the walk's order back in the chunk's layout."""
    return np.moveaxis(lines[..., ::-1] if decreasing else lines, -1, axis)


def _take(a: np.ndarray, order: np.ndarray) -> np.ndarray:
    return np.take_along_axis(a, order, axis=-1)


def _scatter(sorted_values: np.ndarray, order: np.ndarray) -> np.ndarray:
    """``sorted_values`` (taken in ``order`` along the last axis) back in their own places."""
    result = np.empty_like(sorted_values)
    np.put_along_axis(result, order, sorted_values, axis=-1)
    return result


def _compact(keep: np.ndarray, arrays: list[np.ndarray], fills: list[Any]) -> tuple[np.ndarray, list[np.ndarray]]:
    """The slots of each line (last axis) where ``keep`` holds, first in the line and in their order, padded with
    ``fills`` to the longest line; with the mask of the slots that hold one."""
    count = keep.sum(axis=-1)
    m = int(count.max(initial=0))
    target = np.nonzero(keep)[:-1] + ((np.cumsum(keep, axis=-1) - 1)[keep],)
    out = []
    for a, fill in zip(arrays, fills):
        packed = np.full(keep.shape[:-1] + (m,), fill, dtype=a.dtype)
        packed[target] = a[keep]
        out.append(packed)
    return np.arange(m) < count[..., None], out


def _no_groups(lead: tuple[int, ...], dtypes: list[np.dtype]) -> _Groups:
    shape = tuple(lead) + (0,)
    return np.zeros(shape, np.int64), np.zeros(shape, bool), tuple(np.zeros(shape, dt) for dt in dtypes)


def _part_dtypes(op: Optional[_Op], dtype: np.dtype) -> list[np.dtype]:
    """The dtypes of the parts of a line's groups: a scan's value (and supplier), or ffill's (value, run, found)."""
    if op is None:
        return [dtype, np.dtype(np.intp), np.dtype(bool)]
    return [dtype, np.dtype(np.intp)] if op.indices else [dtype]


def _group_start(op: Optional[_Op], dtype: np.dtype, axis: int, shape: list[int]) -> _Groups:
    """The carry into the first chunk in the walk: no group in any line."""
    return _no_groups(tuple(shape[:axis] + shape[axis + 1:]), _part_dtypes(op, dtype))


def _group_ends(labels: np.ndarray, parts: list[np.ndarray], fills: list[Any]) -> _Groups:
    """Each line's groups (lines of ``labels`` and ``parts`` in the walk's order): the parts at each group's last
    element in the walk."""
    order = np.argsort(labels, axis=-1, kind="stable")  # stable: each group's elements in the walk's order
    ordered = _take(labels, order)
    last = np.ones(ordered.shape, dtype=bool)
    last[..., :-1] = ordered[..., 1:] != ordered[..., :-1]
    valid, packed = _compact(last, [ordered] + [_take(p, order) for p in parts], [0] + fills)
    return packed[0], valid, tuple(packed[1:])


def _merge(carry: _Groups, own: _Groups, combine: Callable[..., list[np.ndarray]]) -> _Groups:
    """The carry past a chunk: the union of the carry's groups and the chunk's (``own``), a group in both
    ``combine(carried parts, own parts)``."""
    labels = np.concatenate([carry[0], own[0]], axis=-1)
    if labels.shape[-1] == 0 or own[0].shape[-1] == 0:
        return carry if own[0].shape[-1] == 0 else own
    valid = np.concatenate([carry[1], own[1]], axis=-1)
    parts = [np.concatenate([a, b], axis=-1) for a, b in zip(carry[2], own[2])]
    # each side holds a label once a line: sorted by label, valid first, a pair of equal valid labels is carry, own
    order = np.lexsort((~valid, labels), axis=-1)
    labels, valid, parts = _take(labels, order), _take(valid, order), [_take(p, order) for p in parts]
    pair = (labels[..., 1:] == labels[..., :-1]) & valid[..., 1:] & valid[..., :-1]
    combined = combine([p[..., :-1] for p in parts], [p[..., 1:] for p in parts])
    for p, c in zip(parts, combined):
        np.copyto(p[..., 1:], c, where=pair)
    keep = valid.copy()
    keep[..., :-1] &= ~pair
    fills = [p.dtype.type(0) for p in parts]
    valid, packed = _compact(keep, [labels] + parts, [0] + fills)
    return packed[0], valid, tuple(packed[1:])


def _join(carry: _Groups, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A chunk's lines of ``labels`` (..., n) joined with the carry's groups (..., mc), in one order along the last
    axis (``order``, of the carry's slots 0 .. mc-1 then the elements mc .. mc+n-1): by label, a group's carry slot
    before its elements, these in their order. Also, in that order: each entry's carry slot (``head``, an index below
    mc) where its group has one, whether it has (``has``, for the elements only), and the place of its group's first
    element (``first``)."""
    mc, n = carry[0].shape[-1], labels.shape[-1]
    keys = np.concatenate([carry[0], labels], axis=-1)
    valid = np.concatenate([carry[1], np.ones(labels.shape, dtype=bool)], axis=-1)
    order = np.lexsort((~valid, keys), axis=-1)  # stable: the valid carry slot (below mc) first, padding last
    ordered = _take(keys, order)
    j = np.arange(mc + n)
    start = np.ones(ordered.shape, dtype=bool)
    start[..., 1:] = ordered[..., 1:] != ordered[..., :-1]
    run = np.maximum.accumulate(np.where(start, j, 0), axis=-1)
    head = _take(order, run)
    has = (head < mc) & (order >= mc)
    return order, np.where(has, head, 0), has, run + has


def _label_summary(
    block: np.ndarray, labels: np.ndarray, *, op: _Op, axis: int, decreasing: bool, rdt: np.dtype, acc: np.dtype,
    compensated: bool, block_info: Optional[dict[Any, Any]] = None,
) -> _Groups:
    """Step 2 of a grouped scan: the chunk's groups, line by line, with the chunk's own inclusive scan at each
    group's last element in the walk (and its supplier's position along the whole axis)."""
    lead = block.shape[:axis] + block.shape[axis + 1:]
    if block.size == 0:
        return _no_groups(lead, _part_dtypes(op, acc))
    direction = Direction.DECREASING if decreasing else Direction.INCREASING
    scanned = _scan_chunk(block, op, axis, direction, False, rdt, acc, compensated, labels=labels)
    parts = [scanned]
    if op.indices:
        assert block_info is not None
        parts = [scanned[0], scanned[1] + block_info[0]["array-location"][axis][0]]
    return _group_ends(_walked(labels, axis, decreasing), [_walked(p, axis, decreasing) for p in parts],
                       [0, -1][:len(parts)])


def _label_step(op: _Op, carry: _Groups, own: _Groups) -> _Groups:
    """Step 3 of a grouped scan: the carry past a chunk, a group in both the carry combined with the chunk's total
    (:func:`_apply`: a value's supplier goes with it)."""

    def combine(before: list[np.ndarray], after: list[np.ndarray]) -> list[np.ndarray]:
        if op.indices:
            return list(_apply(op, tuple(before), tuple(after)))
        return [_apply(op, before[0], after[0])]

    return _merge(carry, own, combine)


def _label_combine(
    carry: Optional[_Groups], block: np.ndarray, labels: np.ndarray, *, op: _Op, axis: int, decreasing: bool,
    exclusive: bool, rdt: np.dtype, acc: np.dtype, compensated: bool, block_info: Optional[dict[Any, Any]] = None,
) -> Any:
    """Step 4 of a grouped scan: the chunk scanned by simdscan with the carried groups that it holds before it in the
    walk, one element each (its label, the carried total and supplier), then those dropped: each group of the chunk
    goes on from its carry as the scan of the whole line does, exclusive or not, the op's own rules (NaN, ties,
    identity) included. Padding, where lines carry unequal counts of groups, has a label of its own."""
    assert block_info is not None
    offset = block_info[None]["array-location"][axis][0]
    direction = Direction.DECREASING if decreasing else Direction.INCREASING
    n = block.shape[axis]
    if block.size == 0:
        values = np.empty(block.shape, dtype=rdt)
        return (values, np.empty(block.shape, dtype=np.intp)) if op.indices else values
    prefix = poisoned = None
    if carry is not None and carry[0].shape[-1]:
        order, head, has, _ = _join(carry, _lines(labels, axis))
        mc = carry[0].shape[-1]
        reached = np.zeros(head.shape[:-1] + (mc + 1,), dtype=bool)
        np.put_along_axis(reached, np.where(has, head, mc), True, axis=-1)  # (slot mc: a dump for the others)
        reached = reached[..., :mc]
        if op.scan in (simdscan.nancumsum, simdscan.nancumprod) and acc.kind in "fc":
            # a NaN total (inf - inf, 0 * inf) would be skipped as an input: combined with the chunk's scan instead
            nan = np.isnan(carry[2][0])
            if (reached & nan).any():
                reached &= ~nan
                found = np.take_along_axis(carry[2][0], head, axis=-1)
                hit = has & np.isnan(found)
                poisoned = (np.moveaxis(_scatter(hit, order)[..., -n:], -1, axis),
                            np.moveaxis(_scatter(found, order)[..., -n:], -1, axis))
        valid, packed = _compact(reached, [carry[0], *carry[2]], [0, _neutral(op, acc), -1][: 1 + len(carry[2])])
        if valid.shape[-1]:
            prefix = np.where(valid, packed[0], _free_label(labels)), packed[1:]
    if prefix is None:
        scanned = _scan_chunk(block, op, axis, direction, exclusive, rdt, acc, compensated, labels=labels)
        if op.indices:
            scanned[1][scanned[1] >= 0] += offset
            return scanned
        return _to_result(_poisoned(op, scanned, poisoned), rdt)
    m = prefix[0].shape[-1]
    data = _prepare(block, rdt, acc).astype(acc, copy=False) if op.casts else block
    pieces = [(data, labels), (np.moveaxis(prefix[1][0], -1, axis), np.moveaxis(prefix[0], -1, axis))]
    if not decreasing:
        pieces.reverse()
    join = np.ma.concatenate if isinstance(block, np.ma.MaskedArray) else np.concatenate  # (a mask kept: identity)
    scanned = _scan_chunk(join([p[0] for p in pieces], axis=axis), op, axis, direction, exclusive, acc, acc,
                          compensated, labels=np.concatenate([p[1] for p in pieces], axis=axis))
    kept = [slice(None)] * block.ndim
    kept[axis] = slice(0, n) if decreasing else slice(m, m + n)
    if not op.indices:
        return _to_result(_poisoned(op, scanned[tuple(kept)], poisoned), rdt)
    values, positions = (part[tuple(kept)] for part in scanned)
    first = n if decreasing else 0  # where the prefix sits along the axis
    carried = (positions >= first) & (positions < first + m)
    suppliers = np.take_along_axis(np.moveaxis(prefix[1][1], -1, axis), np.where(carried, positions - first, 0),
                                   axis=axis)
    chunk_at = 0 if decreasing else m
    result = np.where(carried, suppliers, np.where(positions >= 0, positions - chunk_at + offset, -1))
    return values, result.astype(np.intp, copy=False)


def _poisoned(op: _Op, scanned: np.ndarray, poisoned: Optional[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """A chunk's scan with the NaN carries that were not prefixed to it (``poisoned``: where, and the carry)
    combined by the op's ufunc, as the whole line's NaN total goes on."""
    if poisoned is None:
        return scanned
    where, carried = poisoned
    result = _apply(op, carried.astype(scanned.dtype, copy=False), scanned)  # (a masked scan gives a masked result)
    np.copyto(np.asarray(result), np.asarray(scanned), where=~where)
    return result


def _label_chunk(block: np.ndarray, labels: np.ndarray, block_info: Optional[dict[Any, Any]] = None,
                 **options: Any) -> Any:
    """A grouped scan of a chunk that is the whole axis: nothing carried."""
    return _label_combine(None, block, labels, block_info=block_info, **options)


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
def _copy(total: Any) -> Any:
    return tuple(np.array(part) for part in total) if isinstance(total, tuple) else np.array(total)


def _carries(
    totals: da.Array, op: _Op, axis: int, decreasing: bool, acc: np.dtype, sizes: tuple[int, ...]
) -> da.Array:
    """Step 3: the exclusive scan of the chunk totals along the chunk grid, as a chain of tiny tasks.

    ``totals`` has one element per chunk along ``axis``, whose lengths are ``sizes``. The carry into a chunk is the
    neutral element (used only by an exclusive scan with indices) until the walk has passed a chunk with elements,
    then the first such total, then each such total combined with the carry into its chunk. An empty chunk's total
    is no element, so it is never combined: fmax's NaN would stand for a value, and 0 would turn a carried -0.0 into
    +0.0."""
    nb = totals.numblocks[axis]
    name = "simdscan-carry-" + tokenize(totals.name, op, axis, decreasing, acc.str, sizes)
    order = list(range(nb - 1, -1, -1)) if decreasing else list(range(nb))
    other = [range(n) if i != axis else [0] for i, n in enumerate(totals.numblocks)]
    dsk: dict[Any, Any] = {}
    for ind in product(*other):
        shape = tuple(totals.chunks[i][j] if i != axis else 1 for i, j in enumerate(ind))
        past: Any = None  # the task of the carry past the chunks walked so far, None while they hold no element
        for k in order:
            key = (name,) + ind[:axis] + (k,) + ind[axis + 1 :]
            dsk[key] = (_neutral_block, list(shape), op, acc) if past is None else past
            if sizes[k]:
                total = (totals.name,) + key[1:]
                past = (_copy, total) if past is None else (_apply, op, key, total)
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=[totals])
    return da.Array(graph, name, totals.chunks, meta=np.empty((0,) * totals.ndim, dtype=acc))


def _chain(
    totals: da.Array, label: str, axis: int, decreasing: bool, dtype: np.dtype, start: tuple[Any, ...],
    step: tuple[Any, ...],
) -> da.Array:
    """Step 3 of a segmented scan or of a fill: the carries into the chunks, as a chain of tiny tasks over the chunk
    totals in the walk's order: ``start`` with the carry's shape appended into the first chunk, then ``step`` with the
    carry into the previous chunk and its total appended (an empty chunk's total says it adds no element)."""
    nb = totals.numblocks[axis]
    name = f"simdscan-{label}-" + tokenize(totals.name, axis, decreasing, dtype.str, start, step)
    order = list(range(nb - 1, -1, -1)) if decreasing else list(range(nb))
    other = [range(n) if i != axis else [0] for i, n in enumerate(totals.numblocks)]
    dsk: dict[Any, Any] = {}
    for ind in product(*other):
        shape = tuple(totals.chunks[i][j] if i != axis else 1 for i, j in enumerate(ind))
        prev: tuple[Any, ...] = ()
        for k in order:
            key = (name,) + ind[:axis] + (k,) + ind[axis + 1 :]
            dsk[key] = (*step, prev, (totals.name,) + prev[1:]) if prev else (*start, list(shape))
            prev = key
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=[totals])
    return da.Array(graph, name, totals.chunks, meta=np.empty((0,) * totals.ndim, dtype=dtype))


def _reset_operand(reset: Any, shape: tuple[int, ...], axis: Any) -> Any:
    """``reset`` checked for an input of ``shape`` as simdscan checks it (_segments.reset_flags: the same errors),
    as bool flags of its own shape, not yet broadcast. A Dask reset stays lazy: its dtype and shape are checked
    now, its values (0 and 1 only) as each of its chunks is computed."""
    if isinstance(axis, tuple):
        reset_flags(False, (), axis)  # raises: reset= takes a single axis
    lazy = isinstance(reset, da.Array)
    flags: Any = reset if lazy else np.asarray(reset)
    if any(np.isnan(n) for n in flags.shape):
        raise ValueError("simdscan.dask needs known chunk sizes; call compute_chunk_sizes() on reset first")
    # zeros of reset's dtype and shape (a view of one element) raise what reset raises but for its values
    reset_flags(np.broadcast_to(np.zeros((), dtype=flags.dtype), flags.shape), shape, 0)
    if math.prod(shape) == 0:  # an empty input reads no flag, so no value is checked (as in simdscan)
        return np.zeros(flags.shape, dtype=bool)
    if flags.dtype.kind == "b":
        return flags
    if lazy:
        return flags.map_blocks(_checked_flags, dtype=bool, meta=np.empty((0,) * flags.ndim, dtype=bool))
    checked = reset_flags(flags, flags.shape, 0)  # (the first stray value is the broadcast one's)
    assert checked is not None
    return checked


def _labels_operand(labels: Any, shape: tuple[int, ...], axis: Any, reset: Any = None) -> Any:
    """``labels`` checked for an input of ``shape`` as simdscan checks them (_segments.group_labels: the same errors;
    with ``reset`` too, ValueError), as int64 labels of their own shape, not yet broadcast. A Dask labels array stays
    lazy: its dtype and shape are checked now, its values (none negative) as each of its chunks is computed."""
    if reset is not None:
        segment_operands(reset, labels, shape, axis)  # raises: not both
    if isinstance(axis, tuple):
        group_labels(0, (), axis)  # raises: labels= takes a single axis
    lazy = isinstance(labels, da.Array)
    values: Any = labels if lazy else np.asarray(labels)
    if any(np.isnan(n) for n in values.shape):
        raise ValueError("simdscan.dask needs known chunk sizes; call compute_chunk_sizes() on labels first")
    if not lazy:
        group_labels(values, shape, 0)  # (the values first, as simdscan checks them, then the shape)
        checked = group_labels(values, values.shape, 0)
        assert checked is not None
        return checked
    # zeros of the labels' dtype and shape (a view of one element) raise what they raise but for their values
    group_labels(np.broadcast_to(np.zeros((), dtype=values.dtype), values.shape), shape, 0)
    return values.map_blocks(_checked_labels, dtype=np.int64, meta=np.empty((0,) * values.ndim, dtype=np.int64))


def _aligned_reset(flags: Union[np.ndarray, da.Array], x: da.Array) -> da.Array:
    """The checked flags broadcast to ``x``'s shape, in ``x``'s chunks."""
    lead = x.ndim - flags.ndim
    own = tuple(x.chunks[lead + d] if n == x.shape[lead + d] else (n,) for d, n in enumerate(flags.shape))
    lazy = flags.rechunk(own) if isinstance(flags, da.Array) else da.from_array(flags, chunks=own)
    return da.broadcast_to(lazy, x.shape, chunks=x.chunks)


def _without_empty_chunks(x: da.Array) -> da.Array:
    """``x``, not empty, in its chunks less the empty ones (``x`` itself where it has none)."""
    return x.rechunk(tuple(tuple(c for c in chunks if c) for chunks in x.chunks))


def _walked_layout(x: da.Array, axis: Optional[int]) -> tuple[da.Array, int]:
    """``x`` as a scan walks it and the axis it walks: ``axis=None`` flattened in C order, 0-d as shape (1,), a
    negative axis counted from the end; ValueError for unknown chunk sizes."""
    given = x
    if axis is None:
        if x.size == 0:  # (dask cannot reshape every empty array)
            x = da.from_array(np.empty(0, dtype=x.dtype))
        else:
            if x.ndim > 1:  # Dask's ravel fails on empty chunks: drop them first
                x = _without_empty_chunks(x)
            x = x.ravel()  # C order, as NumPy; may rechunk a multi-dimensional chunking
        axis = 0
    else:
        if x.ndim == 0:
            x = x.reshape(1)  # simdscan scans a 0-d input as shape (1,)
        axis = operator.index(axis)
        if axis < 0:
            axis += x.ndim
    if any(np.isnan(c) for chunks in given.chunks + x.chunks for c in chunks):
        raise ValueError(
            "simdscan.dask needs known chunk sizes; call compute_chunk_sizes() on the array first"
        )
    return x, axis


def _segments(flags: Union[np.ndarray, da.Array, None], given: da.Array, x: da.Array) -> tuple[da.Array, ...]:
    """The checked flags (:func:`_reset_operand`) or labels (:func:`_labels_operand`) of the input ``given`` in the
    shape and chunks of ``x``, the array the scan walks (flattened or reshaped from ``given``), as a tuple of one;
    none without them."""
    if flags is None:
        return ()
    if x.size == 0:
        return (da.zeros(x.shape, dtype=flags.dtype, chunks=x.chunks),)
    # broadcast to the input as given, flattened with it as the data is, then in the scanned array's chunks
    r = _aligned_reset(flags, given)
    r = _walked_layout(r, None)[0] if r.shape != x.shape else r
    return (r if r.chunks == x.chunks else r.rechunk(x.chunks),)


def _scan(
    name: str, a: Any, axis: Union[int, tuple[int, ...], None], direction: Any, exclusive: Any, **options: Any
) -> Any:
    """The lazy scan ``name`` of ``a``; ``options`` are the keywords of simdscan's function beyond the four
    common ones (dtype, compensated, return_indices), passed only where the function has them. A tuple ``axis``
    (with one direction and flag, or a tuple of each) scans along each of its axes in turn, as simdscan does.
    ``options["reset"]`` segments the scan (single axis only), its flags carried as the data is."""
    op = _OPS[name]
    x = a if isinstance(a, da.Array) else da.asarray(a)
    reset, labels = options.pop("reset", None), options.pop("labels", None)
    if labels is not None:  # (simdscan checks labels first too)
        return _grouped_scan(name, x, axis, direction, exclusive, _labels_operand(labels, x.shape, axis, reset),
                             options)
    flags = None if reset is None else _reset_operand(reset, x.shape, axis)  # (simdscan checks reset first too)
    if isinstance(axis, tuple):
        op.scan(np.empty((0,) * x.ndim, dtype=x.dtype), axis, direction=direction, exclusive=exclusive, **options)
        axes = normalize_axes(axis, max(x.ndim, 1))  # checked by the probe above, as every argument
        steps = zip(axes, per_axis("direction", direction, len(axes)), per_axis("exclusive", exclusive, len(axes)))
        for ax, d, e in steps:
            x = _scan(name, x, ax, d, e, **options)
            options.pop("dtype", None)  # the later axes scan the result, already in that dtype
        return x

    # Validate everything as simdscan does (same exceptions, same messages) and learn the result dtype,
    # on an empty array: this computes nothing of ``x``. (The probe asks for no indices: simdscan checks the
    # same either way, and raises IndexError for the indices of an empty float axis, or an exclusive one.)
    indices = bool(options.pop("return_indices", False))
    probe = np.empty((0,) * x.ndim, dtype=x.dtype)
    rdt = op.scan(probe, axis, direction=direction, exclusive=exclusive, **options).dtype
    op = replace(op, indices=indices)
    direction = Direction(direction)
    decreasing = direction is Direction.DECREASING
    exclusive = bool(exclusive)
    compensated = bool(options.get("compensated")) and rdt.kind in "fc"
    acc = _accumulation_dtype(op, rdt, compensated)

    given = x
    x, axis = _walked_layout(x, axis)
    segments = _segments(flags, given, x)

    meta_acc = np.empty((0,) * x.ndim, dtype=acc)
    meta_rdt = np.empty((0,) * x.ndim, dtype=rdt)
    nb = x.numblocks[axis]
    common: dict[str, Any] = dict(op=op, axis=axis)
    local = x.map_blocks(
        _local_scan,
        *segments,
        direction=direction,
        exclusive=exclusive and (nb <= 1 or not indices),  # (indices: exclusive by a shift, in step 4)
        rdt=rdt,
        acc=acc,
        compensated=compensated,
        dtype=acc,
        meta=meta_acc,
        **common,
    )
    if nb > 1 and segments:
        local = _segmented(local, x, segments[0], nb, decreasing, exclusive, rdt, acc, common)
    elif nb > 1:  # (one chunk along the axis: nothing to carry)
        total_chunks = tuple((1,) * nb if i == axis else c for i, c in enumerate(x.chunks))
        totals = da.map_blocks(
            _block_total,
            local,
            *((x,) if exclusive and not indices else ()),
            decreasing=decreasing,
            exclusive=exclusive and not indices,
            rdt=rdt,
            acc=acc,
            chunks=total_chunks,
            dtype=acc,
            meta=meta_acc,
            **common,
        )
        carries = _carries(totals, op, axis, decreasing, acc, x.chunks[axis])
        walk = range(nb - 1, -1, -1) if decreasing else range(nb)
        local = da.map_blocks(
            _combine,
            carries,
            local,
            decreasing=decreasing,
            exclusive=exclusive,
            first=next((k for k in walk if x.chunks[axis][k]), walk[0]),  # (the empty chunks before: no carry)
            rdt=rdt,
            chunks=x.chunks,
            dtype=rdt,  # (with indices: of the values, exact in the result dtype)
            meta=meta_rdt,
            **common,
        )
    if indices:
        meta_intp = np.empty((0,) * x.ndim, dtype=np.intp)
        return (
            local.map_blocks(_pick, 0, dtype=rdt, meta=meta_rdt),
            local.map_blocks(_pick, 1, dtype=np.intp, meta=meta_intp),
        )
    if local.dtype == rdt:
        return local
    return local.map_blocks(_to_result, rdt, dtype=rdt, meta=meta_rdt)


def _grouped_scan(name: str, x: da.Array, axis: Any, direction: Any, exclusive: Any, groups: Any,
                  options: dict[str, Any]) -> Any:
    """The lazy scan ``name`` of ``x`` grouped by ``groups`` (:func:`_labels_operand`), an int ``axis`` or None.

    1. Each chunk's groups, line by line: simdscan's inclusive grouped scan of the chunk, at each group's last element
       in the walk (with indices: and its position along the whole axis), the lines' groups padded to the most any
       line has.
    2. The carry into a chunk: the groups of the chunks walked before it, folded in the walk's order: a group in both
       the carry and a chunk takes the op's ufunc of the two (:func:`_apply`), any other goes on as it is.
    3. Each chunk scanned by simdscan, grouped, after (in the walk) one element a carried group that the chunk holds:
       its label and total, which the op itself continues, as the whole line's scan would have, exclusive or not and
       with indices (the supplier of a carried value is the carry's), then the prefix dropped."""
    op = _OPS[name]
    indices = bool(options.pop("return_indices", False))
    probe = np.empty((0,) * x.ndim, dtype=x.dtype)
    rdt = op.scan(probe, axis, direction=direction, exclusive=exclusive, **options).dtype
    op = replace(op, indices=indices)
    decreasing = Direction(direction) is Direction.DECREASING
    compensated = bool(options.get("compensated")) and rdt.kind in "fc"
    acc = _accumulation_dtype(op, rdt, compensated)
    given = x
    x, axis = _walked_layout(x, axis)
    (labels,) = _segments(groups, given, x)
    nb = x.numblocks[axis]
    meta_rdt = np.empty((0,) * x.ndim, dtype=rdt)
    common: dict[str, Any] = dict(op=op, axis=axis, decreasing=decreasing, rdt=rdt, acc=acc, compensated=compensated)
    if nb <= 1:
        result = da.map_blocks(_label_chunk, x, labels, exclusive=bool(exclusive), dtype=rdt, meta=meta_rdt, **common)
    else:
        own = da.map_blocks(
            _label_summary, x, labels, chunks=tuple((1,) * nb if i == axis else c for i, c in enumerate(x.chunks)),
            dtype=acc, meta=np.empty((0,) * x.ndim, dtype=acc), **common,
        )
        carries = _chain(own, "label-carry", axis, decreasing, acc, (_group_start, op, acc, axis), (_label_step, op))
        result = da.map_blocks(_label_combine, carries, x, labels, exclusive=bool(exclusive), chunks=x.chunks,
                               dtype=rdt, meta=meta_rdt, **common)
    if indices:
        meta_intp = np.empty((0,) * x.ndim, dtype=np.intp)
        return (
            result.map_blocks(_pick, 0, dtype=rdt, meta=meta_rdt),
            result.map_blocks(_pick, 1, dtype=np.intp, meta=meta_intp),
        )
    return result


def _segmented(
    local: da.Array, x: da.Array, reset: da.Array, nb: int, decreasing: bool, exclusive: bool, rdt: np.dtype,
    acc: np.dtype, common: dict[str, Any],
) -> da.Array:
    """Steps 2 to 4 of a segmented scan (``local``: step 1, each chunk scanned with its own flags of ``reset``).

    A reset at index i cuts the walk between elements i - 1 and i: an increasing walk crosses the cut just before
    it walks element i, a decreasing one just after (so a reset at a chunk's first index cuts a decreasing walk as
    it leaves the chunk). The chunk's local scan is then exact but for the elements walked before its first cut,
    which the segment open when the walk enters the chunk reaches.

    2. A chunk's total is (value, cut, empty): cut where the chunk holds a reset; value the total of its last
       segment in the walk (the elements walked after its last cut: the edge of its scan); empty where that
       segment has no element (an empty chunk, or a decreasing walk leaving the chunk across a reset).
    3. The carry into a chunk is (value, empty), folded over the totals in the walk's order: a chunk that cuts
       passes on its own total, one without a cut the carry combined with its total (the carry alone if the
       chunk adds no element, the total alone if the carry holds none). An empty carry's value is the neutral
       element (with indices -1), which is also the identity cummax / cummin write.
    4. The carry is combined, by the op's ufunc, with the chunk's scan where it reaches (the elements before the
       first reset when increasing, from the last reset on when decreasing); exclusive, it is itself the value of
       the chunk's first element in the walk, unless a segment starts there."""
    op, axis = common["op"], common["axis"]
    meta_acc = np.empty((0,) * x.ndim, dtype=acc)
    totals = da.map_blocks(
        _segment_total,
        local,
        reset,
        *((x,) if exclusive and not op.indices else ()),
        decreasing=decreasing,
        exclusive=exclusive and not op.indices,
        rdt=rdt,
        acc=acc,
        chunks=tuple((1,) * nb if i == axis else c for i, c in enumerate(x.chunks)),
        dtype=acc,
        meta=meta_acc,
        **common,
    )
    carries = _chain(totals, "segment-carry", axis, decreasing, acc, (_empty_carry, op, acc), (_carry_step, op))
    return da.map_blocks(
        _segment_combine,
        carries,
        local,
        reset,
        decreasing=decreasing,
        exclusive=exclusive,
        rdt=rdt,
        chunks=x.chunks,
        dtype=rdt,  # (with indices: of the values, exact in the result dtype)
        meta=np.empty((0,) * x.ndim, dtype=rdt),
        **common,
    )


def _cumulative(product: bool, x: Any, axis: Any, dtype: Any, include_initial: Any, direction: Any,
                reset: Any = None, labels: Any = None) -> Any:
    """simdscan.dask's cumulative_sum (``product`` False) or cumulative_prod: the NumPy-level function, probed on an
    empty array, checks every argument as it does and gives the result dtype; the body is the lazy cumsum or cumprod
    in that dtype (bool: a running logical or / and, through a running product of 0/1 bytes, as NumPy's bool loops),
    and with ``include_initial`` the identity is joined before it (after it when decreasing) as a chunk of its own."""
    numpy_level = simdscan.cumulative_prod if product else simdscan.cumulative_sum
    x = x if isinstance(x, da.Array) else da.asarray(x)
    if x.ndim == 0:
        x = x.reshape(1)  # numpy.atleast_1d, as the NumPy-level function
    ax = _cumulative_axis(axis, x.shape)  # (its errors name the shape, which the probe's would not)
    probe = np.empty((0,) * x.ndim, dtype=x.dtype)
    rdt = numpy_level(probe, axis=ax, dtype=dtype, include_initial=include_initial, direction=direction).dtype
    if rdt.kind == "b":
        kept = x.astype(bool) if product else ~x.astype(bool)  # logical or: not (the logical and of not x)
        body = _scan("cumprod", kept.astype(np.uint8), ax, direction, False, reset=reset, labels=labels).astype(bool)
        body = body if product else ~body
    else:
        body = _scan("cumprod" if product else "cumsum", x if _scannable(x.dtype) else x.astype(rdt), ax, direction,
                     False, dtype=rdt, reset=reset, labels=labels)
    if not include_initial:
        return body
    shape = list(body.shape)
    shape[ax] = 1
    chunks = list(body.chunks)
    chunks[ax] = (1,)
    identity = da.full(tuple(shape), 1 if product else 0, dtype=rdt, chunks=tuple(chunks))
    return da.concatenate([body, identity] if is_decreasing(direction) else [identity, body], axis=ax)


def _ffill(a: Any, axis: Optional[int], direction: Any, limit: Any, reset: Any, labels: Any = None) -> da.Array:
    """simdscan.dask.ffill: each chunk filled by simdscan, then the carry across chunks (the last number walked in each
    line, with the count of elements walked since it for ``limit``) filling the NaNs that open a chunk, cut at
    segment starts as the segmented scans' carries are (:func:`_segmented`)."""
    x = a if isinstance(a, da.Array) else da.asarray(a)
    blank = (0,) * x.ndim
    # simdscan.ffill's checks, in its order (axis, limit, reset, dtype and direction), on empty arrays
    simdscan.ffill(np.empty(blank), axis, limit=limit)
    groups = None if labels is None else _labels_operand(labels, x.shape, axis, reset)
    flags = None if reset is None or labels is not None else _reset_operand(reset, x.shape, axis)
    rdt = simdscan.ffill(np.empty(blank, dtype=x.dtype), axis, direction=direction, limit=limit).dtype
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
