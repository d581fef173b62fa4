"""Cumulative sum and product of Dask arrays, every chunk scanned by simdscan.

``simdscan.dask.cumsum`` and ``simdscan.dask.cumprod`` take a :class:`dask.array.Array` and return one,
lazily, with the semantics of :func:`simdscan.cumsum` / :func:`simdscan.cumprod` (direction, exclusive,
dtype). This module needs Dask (``pip install simdscan[dask]``); ``import simdscan`` never imports it.

How the scan is built (nothing is computed until the result is):

1. each chunk is scanned along the axis by simdscan, in the requested direction, inclusive or exclusive;
2. each chunk's total along the axis is taken from the edge of its scan (one slice per chunk);
3. the totals are scanned exclusively along the chunk grid, in the requested direction: the carry into
   chunk k is the total of the chunks before it (increasing) or after it (decreasing). This is a chain of
   tiny tasks, so chunk k can be finished as soon as the chunks before it are, and a large array streams
   through a cluster instead of being held in memory all at once;
4. each chunk's result is its carry combined with its local scan (``carry + local`` or ``carry * local``).

The data is never rechunked, flipped or copied into another layout: the result has the input's chunks
(with ``axis=None`` the array is first flattened in C order by :meth:`dask.array.Array.ravel`, which may
rechunk an array chunked across more than its last axis).

Integer results are exact: integers wrap modulo 2**bits in the result dtype, exactly as simdscan does on
the whole array, whatever the chunking. Floating-point results differ from simdscan on the whole array
only by rounding: the chunked scan adds (or multiplies) in a different order, and stays within the same
recursive-summation error bound. float16 is accumulated in float32 and rounded once per output, as simdscan
does. (Where a finite running total overflows to inf, the place it overflows can depend on the chunking.)

simdscan may split the scan of a large chunk across its own thread pool. Where Dask already runs one
task per core (its threaded scheduler, or workers with several threads), ``simdscan.set_num_threads(1)``
in each process avoids running more threads than cores.
"""

from __future__ import annotations

import operator
from itertools import product
from typing import Any, Callable, Optional, Union

import dask.array as da
import numpy as np
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph

import simdscan

from . import Direction

__all__ = ["cumprod", "cumsum"]

_SCAN: dict[str, Callable[..., np.ndarray]] = {"add": simdscan.cumsum, "multiply": simdscan.cumprod}
_UFUNC: dict[str, np.ufunc] = {"add": np.add, "multiply": np.multiply}
_IDENTITY: dict[str, int] = {"add": 0, "multiply": 1}


# --------------------------------------------------------------------------
# per-chunk functions (module level, so that distributed workers can unpickle them)
# --------------------------------------------------------------------------
def _prepare(block: np.ndarray, rdt: np.dtype, acc: np.dtype) -> np.ndarray:
    """The block as simdscan would see it before accumulating in ``acc``.

    Where the result accumulates in a wider type (float16 in float32; compensated float32 and complex64 in
    float64 and complex128), the input is cast to the result dtype first, as simdscan does, and the wider
    scan of those values is what simdscan computes internally. Otherwise the block is returned as is and
    simdscan casts it (``dtype=rdt``)."""
    if acc != rdt:
        return np.asarray(block).astype(rdt, copy=False)
    return block


def _local_scan(
    block: np.ndarray,
    *,
    op: str,
    axis: int,
    direction: Direction,
    exclusive: bool,
    rdt: np.dtype,
    acc: np.dtype,
    compensated: bool,
) -> np.ndarray:
    """Step 1: the scan of one chunk along ``axis``, in the accumulation dtype."""
    extra = {"compensated": True} if compensated else {}
    return _SCAN[op](_prepare(block, rdt, acc), axis, direction=direction, exclusive=exclusive, dtype=acc, **extra)


def _edge(a: np.ndarray, axis: int, decreasing: bool) -> np.ndarray:
    """The last slice along ``axis`` in scan order (length 1 along ``axis``)."""
    index = [slice(None)] * a.ndim
    index[axis] = slice(0, 1) if decreasing else slice(a.shape[axis] - 1, a.shape[axis])
    return a[tuple(index)]


def _block_total(
    local: np.ndarray,
    *block: np.ndarray,
    op: str,
    axis: int,
    decreasing: bool,
    exclusive: bool,
    rdt: np.dtype,
    acc: np.dtype,
) -> np.ndarray:
    """Step 2: the total of one chunk along ``axis`` (length 1 along ``axis``), in ``acc``.

    Inclusive: the edge of the chunk's scan. Exclusive: the edge of the exclusive scan combined with the
    edge element of the input, cast as the scan casts it (by simdscan itself, on that one slice); a chunk
    of one element's total is that element (so that a sum of -0.0 stays -0.0)."""
    n = local.shape[axis]
    if n == 0:
        shape = list(local.shape)
        shape[axis] = 1
        return np.full(shape, _IDENTITY[op], dtype=acc)
    if not exclusive:
        return _edge(local, axis, decreasing).copy()
    (x,) = block
    last = _SCAN[op](_prepare(_edge(x, axis, decreasing), rdt, acc), axis, dtype=acc)
    if n == 1:
        return last
    return _apply(op, _edge(local, axis, decreasing), last)


def _identity_block(shape: list[int], op: str, acc: np.dtype) -> np.ndarray:
    return np.full(shape, _IDENTITY[op], dtype=acc)


def _apply(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a op b``, silent about inf - inf, 0 * inf and overflow, as simdscan's scans are."""
    with np.errstate(all="ignore"):
        return _UFUNC[op](a, b)


def _to_result(a: np.ndarray, rdt: np.dtype) -> np.ndarray:
    """The accumulation dtype rounded to the result dtype (float32 to float16), silently as simdscan."""
    with np.errstate(all="ignore"):
        return a.astype(rdt, copy=False)


def _combine(
    carry: np.ndarray,
    local: np.ndarray,
    *,
    op: str,
    axis: int,
    decreasing: bool,
    exclusive: bool,
    first: int,
    rdt: np.dtype,
    block_id: Optional[tuple[int, ...]] = None,
) -> np.ndarray:
    """Step 4: one chunk's result, ``carry op local`` (the carry broadcast along ``axis``).

    The first chunk in scan order has no carry and is its local scan as it is. For an exclusive scan, the
    first element of a chunk in scan order is the carry itself (not ``carry op identity``: a carry of
    -0.0 stays -0.0)."""
    assert block_id is not None
    if block_id[axis] == first:
        return _to_result(local, rdt)
    result = _apply(op, carry, local)
    if exclusive and local.shape[axis] > 0:
        index = [slice(None)] * local.ndim
        index[axis] = slice(-1, None) if decreasing else slice(0, 1)
        result[tuple(index)] = carry
    return _to_result(result, rdt)


# --------------------------------------------------------------------------
# graph construction
# --------------------------------------------------------------------------
def _carries(totals: da.Array, op: str, axis: int, decreasing: bool, acc: np.dtype) -> da.Array:
    """Step 3: the exclusive scan of the chunk totals along the chunk grid, as a chain of tiny tasks.

    ``totals`` has one element per chunk along ``axis``. The carry of the first chunk in scan order is the
    identity (it is not used), the next one's is the first total, and each following carry is the previous
    carry combined with the previous total."""
    nb = totals.numblocks[axis]
    name = "simdscan-carry-" + tokenize(totals.name, op, axis, decreasing, acc.str)
    order = list(range(nb - 1, -1, -1)) if decreasing else list(range(nb))
    other = [range(n) if i != axis else [0] for i, n in enumerate(totals.numblocks)]
    dsk: dict[Any, Any] = {}
    for ind in product(*other):
        shape = tuple(totals.chunks[i][j] if i != axis else 1 for i, j in enumerate(ind))
        prev = None
        for step, k in enumerate(order):
            key = (name,) + ind[:axis] + (k,) + ind[axis + 1 :]
            if step == 0:
                dsk[key] = (_identity_block, list(shape), op, acc)
            elif step == 1:
                dsk[key] = (np.array, (totals.name,) + prev[1:])  # a copy of the first total
            else:
                dsk[key] = (_apply, op, (name,) + prev[1:], (totals.name,) + prev[1:])
            prev = key
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=[totals])
    return da.Array(graph, name, totals.chunks, meta=np.empty((0,) * totals.ndim, dtype=acc))


def _scan(
    op: str,
    a: Any,
    axis: Optional[int],
    direction: Union[Direction, str],
    exclusive: bool,
    dtype: Any,
    compensated: bool = False,
) -> da.Array:
    x = a if isinstance(a, da.Array) else da.asarray(a)

    # Validate everything as simdscan does (same exceptions, same messages) and learn the result dtype,
    # on an empty array: this computes nothing of ``x``.
    probe = np.empty((0,) * x.ndim, dtype=x.dtype)
    rdt = _SCAN[op](probe, axis, direction=direction, exclusive=exclusive, dtype=dtype).dtype
    direction = Direction(direction)
    decreasing = direction is Direction.DECREASING
    exclusive = bool(exclusive)
    compensated = bool(compensated) and rdt.kind in "fc"
    # Compensated float32 and complex64 chunks accumulate in double precision, as simdscan does inside one
    # scan; their carries then add in double precision too, and the result is rounded once.
    wider = {np.dtype(np.float32): np.float64, np.dtype(np.complex64): np.complex128} if compensated else {}
    acc = np.dtype(np.float32) if rdt == np.float16 else np.dtype(wider.get(rdt, rdt))

    if axis is None:
        if x.size == 0:  # (dask cannot reshape every empty array)
            x = da.from_array(np.empty(0, dtype=x.dtype))
        else:
            x = x.ravel()  # C order, as NumPy; may rechunk a multi-dimensional chunking
        axis = 0
    else:
        if x.ndim == 0:
            x = x.reshape(1)  # simdscan scans a 0-d input as shape (1,)
        axis = operator.index(axis)
        if axis < 0:
            axis += x.ndim
    if any(np.isnan(c) for chunks in x.chunks for c in chunks):
        raise ValueError(
            "simdscan.dask needs known chunk sizes; call compute_chunk_sizes() on the array first"
        )

    meta_acc = np.empty((0,) * x.ndim, dtype=acc)
    meta_rdt = np.empty((0,) * x.ndim, dtype=rdt)
    local = x.map_blocks(
        _local_scan,
        op=op,
        axis=axis,
        direction=direction,
        exclusive=exclusive,
        rdt=rdt,
        acc=acc,
        compensated=compensated,
        dtype=acc,
        meta=meta_acc,
    )
    nb = x.numblocks[axis]
    if nb <= 1:  # one chunk along the axis: nothing to carry
        if acc == rdt:
            return local
        return local.map_blocks(_to_result, rdt, dtype=rdt, meta=meta_rdt)

    total_chunks = tuple((1,) * nb if i == axis else c for i, c in enumerate(x.chunks))
    totals = da.map_blocks(
        _block_total,
        local,
        *((x,) if exclusive else ()),
        op=op,
        axis=axis,
        decreasing=decreasing,
        exclusive=exclusive,
        rdt=rdt,
        acc=acc,
        chunks=total_chunks,
        dtype=acc,
        meta=meta_acc,
    )
    carries = _carries(totals, op, axis, decreasing, acc)
    return da.map_blocks(
        _combine,
        carries,
        local,
        op=op,
        axis=axis,
        decreasing=decreasing,
        exclusive=exclusive,
        first=nb - 1 if decreasing else 0,
        rdt=rdt,
        chunks=x.chunks,
        dtype=rdt,
        meta=meta_rdt,
    )


# --------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------
def cumsum(
    a: da.Array,
    axis: Optional[int] = None,
    *,
    direction: Union[Direction, str] = "increasing",
    exclusive: bool = False,
    dtype: Any = None,
    compensated: bool = False,
) -> da.Array:
    """Lazy cumulative sum of a Dask array along an axis, every chunk scanned by :func:`simdscan.cumsum`.

    Parameters
    ----------
    a : dask.array.Array
        Input data (anything else is wrapped by :func:`dask.array.asarray`). Chunk sizes must be known.
    axis : int, optional
        The axis to scan; negative counts from the end. None scans the C-order flattened array (flattened
        by :meth:`dask.array.Array.ravel`, which may rechunk).
    direction : {"increasing", "decreasing"} or simdscan.Direction
        Increasing: out[i] sums x[0] .. x[i]. Decreasing: out[i] sums x[i] .. x[n-1].
    exclusive : bool
        Leave the element itself out of its own sum; an empty range gives 0.
    dtype : dtype, optional
        The result's dtype; the input is cast to it first. Default: the input's dtype (bool: the default
        integer).
    compensated : bool
        As :func:`simdscan.cumsum`: every chunk is scanned with compensation. float16, float32 and complex64
        chunks and their carries accumulate in a wider type, so every output is within 2*u*sum|x_j| of the
        exact prefix, as without Dask. float64 and complex128 carries are the chunk totals added in order,
        which adds at most one rounding of the carry per chunk boundary before the output (about
        (2 + chunks along the axis) * u * sum|x_j| in the worst case).

    Returns
    -------
    dask.array.Array
        The lazy result, with the input's chunks (for an int ``axis``). Computed, it equals
        ``simdscan.cumsum(a.compute(), axis, ...)``: exactly for integers (which wrap in the result dtype),
        within the same rounding-error bound for floating-point types, which are added in another order.

    Raises
    ------
    numpy.exceptions.AxisError, ValueError, TypeError
        As :func:`simdscan.cumsum`, at once (while building the graph).

    Examples
    --------
    >>> import dask.array as da
    >>> import simdscan.dask
    >>> x = da.arange(1, 9, chunks=3)
    >>> simdscan.dask.cumsum(x).compute()
    array([ 1,  3,  6, 10, 15, 21, 28, 36])
    >>> simdscan.dask.cumsum(x, direction="decreasing", exclusive=True).compute()
    array([35, 33, 30, 26, 21, 15,  8,  0])
    """
    return _scan("add", a, axis, direction, exclusive, dtype, compensated)


def cumprod(
    a: da.Array,
    axis: Optional[int] = None,
    *,
    direction: Union[Direction, str] = "increasing",
    exclusive: bool = False,
    dtype: Any = None,
) -> da.Array:
    """Lazy cumulative product of a Dask array along an axis, every chunk scanned by :func:`simdscan.cumprod`.

    Parameters are those of :func:`cumsum`; an empty exclusive range gives 1.

    Examples
    --------
    >>> import dask.array as da
    >>> import simdscan.dask
    >>> x = da.arange(1, 7, chunks=2)
    >>> simdscan.dask.cumprod(x).compute()
    array([  1,   2,   6,  24, 120, 720])
    >>> simdscan.dask.cumprod(x, exclusive=True).compute()
    array([  1,   1,   2,   6,  24, 120])
    """
    return _scan("multiply", a, axis, direction, exclusive, dtype)
