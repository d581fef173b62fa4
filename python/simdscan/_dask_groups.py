"""The graph of a grouped scan (``labels=``) for simdscan.dask (see :func:`_grouped_scan`), and the groups of a
chunk's lines that it and the grouped fill (``_dask_fill.py``) carry across the chunks."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Optional

import dask.array as da
import numpy as np

from ._dask_chunks import (
    _Op,
    _accumulation_dtype,
    _apply,
    _chain,
    _neutral,
    _op,
    _pick,
    _prepare,
    _scan_chunk,
    _to_result,
    _walked,
)
from ._dask_operands import _segments, _walked_layout
from ._runtime import Direction


# --------------------------------------------------------------------------
# per-chunk functions of a grouped scan and a grouped fill (labels=; see _grouped_scan, _dask_fill._grouped_fill)
# --------------------------------------------------------------------------
# A line's groups travel as (labels, valid, parts): int64 labels along the last axis (the lines on the leading ones, in
# a chunk's order but for ``axis``), ``valid`` where a slot holds a group (the others pad a ragged line), and ``parts``,
# arrays of the same shape: the inclusive scan at the group's last element in the walk (and its supplier's position
# along the whole axis, for indices), or for ffill the group's last number, the count of its elements walked since
# that number (since the line's start without one) and whether it has one.
_Groups = tuple[np.ndarray, np.ndarray, tuple[np.ndarray, ...]]


def _free_label(labels: np.ndarray) -> np.int64:
    """The least label >= 0 that ``labels`` does not hold: the label of padding, a group of its own."""
    held = np.unique(labels)
    held = held[held >= 0]
    gaps = np.flatnonzero(held != np.arange(held.size))
    return np.int64(gaps[0] if gaps.size else held.size)


def _lines(a: np.ndarray, axis: int) -> np.ndarray:
    return np.moveaxis(a, axis, -1)


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
        if op.spec.skips_nan and op.ufunc in (np.add, np.multiply) and acc.kind in "fc":  # nancumsum, nancumprod
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


# --------------------------------------------------------------------------
# graph construction
# --------------------------------------------------------------------------
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
    op = _op(name)
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
