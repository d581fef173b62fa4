"""The graph of a chunked scan for simdscan.dask: chunk-local scans, chunk totals, carries and their combination.

:func:`_scan` builds every lazy scan of the family: a segmented one (``reset=``) through :func:`_dask_segments._segmented`,
a grouped one (``labels=``) through :func:`_dask_groups._grouped_scan`; what they share is in ``_dask_chunks.py``, the
checks of their operands in ``_dask_operands.py``. Forward fill is in ``_dask_fill.py``."""

from __future__ import annotations

from dataclasses import replace
from itertools import product
from typing import Any, Optional, Union, cast

import dask.array as da
import numpy as np
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph

from ._array_api import _cumulative_axis, _scannable, cumulative_prod, cumulative_sum
from ._axes import is_decreasing, normalize_axes, per_axis
from ._dask_chunks import (
    _Op,
    _accumulation_dtype,
    _apply,
    _copy,
    _edge,
    _first_slot,
    _neutral_block,
    _op,
    _pick,
    _scan_chunk,
    _shifted,
    _to_result,
)
from ._dask_groups import _grouped_scan
from ._dask_operands import _labels_operand, _reset_operand, _segments, _walked_layout
from ._dask_segments import _segmented
from ._runtime import Direction


#: Dask's values of ``method=`` (dask.array.cumsum): how it combines chunk totals, where simdscan has its own way
_DASK_METHODS = ("sequential", "blelloch")


def check_method(method: Any) -> None:
    """Raises ValueError for a ``method=`` that Dask's cumulative functions do not take either."""
    if not isinstance(method, str) or method not in _DASK_METHODS:
        raise ValueError(f"method must be 'sequential' or 'blelloch' (Dask's values), got {method!r}")


# --------------------------------------------------------------------------
# per-chunk functions (module level, so that distributed workers can unpickle them)
# --------------------------------------------------------------------------
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


# --------------------------------------------------------------------------
# graph construction
# --------------------------------------------------------------------------
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
    # (cast: mypy does not take dask's Array for its own DaskCollection protocol)
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=[cast(Any, totals)])
    return da.Array(graph, name, totals.chunks, meta=np.empty((0,) * totals.ndim, dtype=acc))


def _scan(
    name: str, a: Any, axis: Union[int, tuple[int, ...], None], direction: Any, exclusive: Any, **options: Any
) -> Any:
    """The lazy scan ``name`` of ``a``; ``options`` are the keywords of simdscan's function beyond the four
    common ones (dtype, compensated, return_indices), passed only where the function has them. A tuple ``axis``
    (with one direction and flag, or a tuple of each) scans along each of its axes in turn, as simdscan does.
    ``options["reset"]`` segments the scan (single axis only), its flags carried as the data is."""
    op = _op(name)
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
    local = da.map_blocks(
        _local_scan,
        x,
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


def _cumulative(product: bool, x: Any, axis: Any, dtype: Any, include_initial: Any, direction: Any,
                reset: Any = None, labels: Any = None) -> Any:
    """simdscan.dask's cumulative_sum (``product`` False) or cumulative_prod: the NumPy-level function, probed on an
    empty array, checks every argument as it does and gives the result dtype; the body is the lazy cumsum or cumprod
    in that dtype (bool: a running logical or / and, through a running product of 0/1 bytes, as NumPy's bool loops),
    and with ``include_initial`` the identity is joined before it (after it when decreasing) as a chunk of its own."""
    numpy_level = cumulative_prod if product else cumulative_sum
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
