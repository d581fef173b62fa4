"""The graph of a segmented scan (``reset=``) for simdscan.dask: the carries cut at segment starts (see
:func:`_segmented`)."""

from __future__ import annotations

from typing import Any

import dask.array as da
import numpy as np

from ._dask_chunks import (
    _Op,
    _apply,
    _chain,
    _copy,
    _edge,
    _first_slot,
    _neutral,
    _neutral_block,
    _scan_chunk,
    _shifted,
    _to_result,
)
from ._runtime import Direction


# --------------------------------------------------------------------------
# per-chunk functions of a segmented scan (reset=; see _segmented)
# --------------------------------------------------------------------------
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
# graph construction
# --------------------------------------------------------------------------
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
