"""The graph of a chunked first-order linear recurrence for simdscan.dask: linear_recurrence, discounted_cumsum and
ewm_mean over Dask arrays.

The state ``y`` of a line leaves a chunk as ``A * s + B``, ``s`` the state it entered with (the carry):

1. each chunk's pair, line by line: ``A`` the product of its ``a`` (0 where a segment starts in the chunk, or where a
   reset at its first index cuts a decreasing walk as it leaves the chunk), ``B`` the state it leaves with from a state
   of 0 (each segment in it starting from ``initial``; ``initial`` itself where a decreasing walk leaves across a cut);
2. the carries, a chain of tiny tasks in the walk's order: ``initial`` into the first chunk, then
   ``A * carry + B`` past each chunk (``B`` alone past a cut; an empty chunk passes the carry on as it is), except
   where ``A`` overflowed (or underflowed to 0 behind an infinite carry): there the state the chunk's walk from the
   carry reaches, as the NumPy level hands on from chunk to chunk (that task then runs the chunk);
3. each chunk run by :func:`simdscan.linear_recurrence` with ``initial=`` its carry (its elements walked before the
   chunk's first segment start), its segments from ``initial`` (the rest, by simdscan's own ``reset=``).

ewm_mean's chunks carry the core's own state of each line (its weighted sums, or its mean and the weight kept) from
one chunk to the next along the axis: each chunk walked once, from the state the chunk before it left.
"""

from __future__ import annotations

from functools import partial
from itertools import product
from operator import getitem
from typing import Any, Optional

import dask.array as da
import numpy as np
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph

from . import _core
from ._array_types import numpy_level
from ._axes import is_decreasing, normalize_axis
from ._dask_operands import _reset_operand, _segments, _walked_layout, _without_empty_chunks
from ._dask_segments import _head, _starts
from ._ops import OPS
from ._recurrence import _alpha, _broadcast, _check_initial, _is_weak, _result_dtype, ewm_dtypes
from ._runtime import Direction, off_in_dask_workers

#: simdscan.linear_recurrence at the NumPy level: the plain function, refusing a masked chunk as the public one does
_numpy_recurrence = numpy_level(OPS["linear_recurrence"])


# --------------------------------------------------------------------------
# per-chunk functions (module level, so that distributed workers can unpickle them)
# --------------------------------------------------------------------------
def _operands(operands: tuple[Any, ...], a: Any, init: Any, reset: bool) -> tuple[Any, Any, Optional[np.ndarray]]:
    """A chunk's (a, initial, reset flags) from the blocks handed over (``operands``, in that order, each where it is
    an array) and the constants (``a`` and ``init``: None where a block stands for them)."""
    rest = list(operands)
    a_block = rest.pop(0) if a is None else a
    init_block = rest.pop(0) if init is None else init
    flags = rest.pop(0) if reset else None
    return a_block, init_block, flags


def _line_state(state: Any, axis: int) -> Any:
    """A state of length 1 along ``axis`` as simdscan's ``initial=`` takes it (the line shape); a scalar as it is."""
    return np.squeeze(state, axis) if np.ndim(state) else state


def _run(a: Any, b: np.ndarray, flags: Optional[np.ndarray], head: Any, init: Any, *, axis: int, decreasing: bool,
         exclusive: bool, compute: np.dtype) -> np.ndarray:
    """simdscan's recurrence of one chunk, its elements walked before the first segment start from ``head`` (the line
    states; None: ``init``), each segment from ``init``.

    A chunk without a segment start is one run from ``head``; one with starts is run by simdscan with ``reset=`` and
    ``initial=init``, then its lines' first elements in the walk, up to the longest run before a start, again from
    ``head`` without reset, where no start comes before them."""
    off_in_dask_workers()
    direction = Direction.DECREASING if decreasing else Direction.INCREASING

    def run(a_: Any, b_: np.ndarray, initial: Any, reset: Optional[np.ndarray] = None) -> np.ndarray:
        return _numpy_recurrence(a_, b_, axis, direction=direction, exclusive=exclusive,
                                 initial=_line_state(initial, axis), reset=reset, dtype=compute)

    starts = None if flags is None else _starts(flags, axis, decreasing)
    if starts is None or not starts.any():
        return run(a, b, init if head is None else head)
    whole = run(a, b, init, flags)
    if head is None:
        return whole
    before = _head(starts, axis, decreasing)
    n = b.shape[axis]
    m = int(before.sum(axis=axis).max(initial=0))  # the longest run of a line before its first start
    if m == 0:
        return whole
    index = [slice(None)] * b.ndim
    index[axis] = slice(n - m, n) if decreasing else slice(0, m)
    part = tuple(index)
    np.copyto(whole[part], run(a if np.ndim(a) == 0 else a[part], b[part], head), where=before[part])
    return whole


def _edge_slice(ndim: int, axis: int, last: bool) -> tuple[slice, ...]:
    """The index of a chunk's first (or last) slice along ``axis``, kept as length 1."""
    where = [slice(None)] * ndim
    where[axis] = slice(-1, None) if last else slice(0, 1)
    return tuple(where)


def _pair(b: np.ndarray, *operands: np.ndarray, a: Any, init: Any, reset: bool, axis: int, decreasing: bool,
          compute: np.dtype) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """Step 1: a chunk's (A, B, cut, empty), A, B and cut of length 1 along ``axis``: the state past the chunk is
    ``B`` where ``cut``, else ``A * s + B`` for the state ``s`` before it; ``empty``: the chunk has no element along
    ``axis``, and passes the state on as it is."""
    a, init, flags = _operands(operands, a, init, reset)
    shape = list(b.shape)
    shape[axis] = 1
    n = b.shape[axis]
    if n == 0:
        return np.ones(shape, compute), np.zeros(shape, compute), np.zeros(shape, bool), True
    with np.errstate(all="ignore"):
        if np.ndim(a) == 0:
            product_ = np.full(shape, np.multiply.reduce(np.full(n, compute.type(a))), compute)
        else:
            product_ = np.prod(np.asarray(a).astype(compute, copy=False), axis=axis, keepdims=True)
        product_ = np.broadcast_to(product_, shape)
    head = None if np.ndim(init) == 0 and init == 0 else 0  # (from 0 as each segment: one run of the chunk)
    y = _run(a, b, flags, head, init, axis=axis, decreasing=decreasing, exclusive=False, compute=compute)
    last = np.array(y[_edge_slice(b.ndim, axis, not decreasing)])
    if flags is None:
        return np.array(product_), last, np.zeros(shape, bool), False
    cut = np.any(flags, axis=axis, keepdims=True)
    if decreasing:  # a reset at the chunk's first index: the walk leaves the chunk into a segment start
        leaving = flags[_edge_slice(b.ndim, axis, False)]
        np.copyto(last, np.broadcast_to(np.asarray(init, dtype=compute), shape), where=leaving)
    return np.where(cut, compute.type(0), product_), last, cut, False


def _start_state(init: Any, shape: list[int], compute: np.dtype) -> np.ndarray:
    """The carry into the first chunk in the walk: ``initial`` (a scalar, or its block of length 1 along the axis)."""
    return np.array(np.broadcast_to(np.asarray(init, dtype=compute), shape))


def _advance(carry: np.ndarray, pair: tuple[np.ndarray, np.ndarray, np.ndarray, bool], b: np.ndarray,
             *operands: np.ndarray, a: Any, init: Any, reset: bool, axis: int, decreasing: bool,
             compute: np.dtype) -> np.ndarray:
    """Step 2: the carry past a chunk, from the carry into it, its pair and its blocks (read only where A is out of
    range)."""
    product_, last, cut, empty = pair
    if empty:
        return carry
    with np.errstate(all="ignore"):
        passed = np.where(cut, last, product_ * carry + last)
    # A * carry is NaN where A overflowed (carry 0) or underflowed to 0 (carry inf); the walk itself is not.
    walks = ~cut & ~np.isfinite(product_)
    if compute.kind == "f":
        walks |= ~cut & (product_ == 0) & np.isinf(carry)
    if walks.any():
        a, init, flags = _operands(operands, a, init, reset)
        y = _run(a, b, flags, carry, init, axis=axis, decreasing=decreasing, exclusive=False, compute=compute)
        np.copyto(passed, y[_edge_slice(b.ndim, axis, not decreasing)], where=walks)
    return passed


def _finish(carry: np.ndarray, b: np.ndarray, *operands: np.ndarray, a: Any, init: Any, reset: bool, axis: int,
            decreasing: bool, exclusive: bool, compute: np.dtype, rdt: np.dtype, first: int,
            block_id: Optional[tuple[int, ...]] = None) -> np.ndarray:
    """Step 3: the chunk run by simdscan from its carry (the first chunk in the walk: from ``initial`` itself)."""
    assert block_id is not None
    a, init, flags = _operands(operands, a, init, reset)
    head = None if block_id[axis] == first else carry
    y = _run(a, b, flags, head, init, axis=axis, decreasing=decreasing, exclusive=exclusive, compute=compute)
    with np.errstate(all="ignore"):
        return y.astype(rdt, copy=False)


def _whole(b: np.ndarray, *operands: np.ndarray, a: Any, init: Any, reset: bool, axis: int, decreasing: bool,
           exclusive: bool, rdt: np.dtype) -> np.ndarray:
    """A chunk that is the whole axis: simdscan's recurrence of it, nothing carried."""
    off_in_dask_workers()
    a, init, flags = _operands(operands, a, init, reset)
    direction = Direction.DECREASING if decreasing else Direction.INCREASING
    return _numpy_recurrence(a, b, axis, direction=direction, exclusive=exclusive,
                             initial=_line_state(init, axis), reset=flags, dtype=rdt)


# --------------------------------------------------------------------------
# graph construction
# --------------------------------------------------------------------------
def _dtype_of(value: Any) -> Any:
    """``value`` as the NumPy-level dtype rules see it: a Python number as it is (weak), else a 0-d array of its dtype
    (a Dask array's without computing it)."""
    if _is_weak(value):
        return value
    return np.zeros((), dtype=value.dtype if isinstance(value, da.Array) else np.asarray(value).dtype)


def _shaped(value: Any) -> Any:
    """A NumPy stand-in of ``value``'s shape and dtype for the NumPy level's broadcasting checks (a view of one element
    for a Dask array), or ``value`` itself."""
    if isinstance(value, da.Array):
        if any(np.isnan(n) for n in value.shape):
            raise ValueError("simdscan.dask needs known chunk sizes; call compute_chunk_sizes() on the operands first")
        return np.broadcast_to(np.zeros((), dtype=value.dtype), value.shape)
    return value


def _aligned(value: Any, shape: tuple[int, ...], chunks: tuple[tuple[int, ...], ...]) -> da.Array:
    """A NumPy or Dask array that broadcasts to ``shape``, broadcast and put in ``chunks`` (a NumPy one enters the graph
    in its own, unbroadcast shape)."""
    lead = len(shape) - np.ndim(value)
    own = tuple(chunks[lead + d] if n == shape[lead + d] else (n,) for d, n in enumerate(np.shape(value)))
    lazy = value.rechunk(own) if isinstance(value, da.Array) else da.from_array(np.asarray(value), chunks=own)
    return da.broadcast_to(lazy, shape, chunks=chunks)


def _state_chain(pairs: da.Array, blocks: list[da.Array], init: Any, common: dict[str, Any],
                 compute: np.dtype) -> da.Array:
    """Step 2: the carries into the chunks, a chain of tiny tasks over the pairs in the walk's order, from ``initial``
    (a scalar, or a Dask array of length 1 along the axis in the pairs' chunks across it); each task past a chunk also
    takes the chunk's ``blocks`` (the data, then the operands of :func:`_operands`, in the data's chunks or of one
    chunk across the axis), to walk it where its pair cannot carry the state."""
    axis, decreasing = common["axis"], common["decreasing"]
    nb = pairs.numblocks[axis]
    lazy = isinstance(init, da.Array)
    name = "simdscan-recurrence-carry-" + tokenize(pairs.name, [x.name for x in blocks], init.name if lazy else init,
                                                   common, compute.str)
    advance = partial(_advance, compute=compute, **common)
    order = list(range(nb - 1, -1, -1)) if decreasing else list(range(nb))
    other = [range(n) if i != axis else [0] for i, n in enumerate(pairs.numblocks)]
    dsk: dict[Any, Any] = {}
    for ind in product(*other):
        shape = [pairs.chunks[i][j] if i != axis else 1 for i, j in enumerate(ind)]
        start = (init.name,) + ind if lazy else init
        previous: Optional[tuple[Any, ...]] = None
        for k in order:
            key = (name,) + ind[:axis] + (k,) + ind[axis + 1:]
            if previous is None:
                dsk[key] = (_start_state, start, shape, compute)
            else:
                index = previous[1:]  # the chunk walked before this one
                dsk[key] = (advance, previous, (pairs.name,) + index) + tuple(
                    (x.name,) + tuple(0 if x.numblocks[i] == 1 else j for i, j in enumerate(index)) for x in blocks)
            previous = key
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=[pairs] + blocks + ([init] if lazy else []))
    return da.Array(graph, name, pairs.chunks, meta=np.empty((0,) * pairs.ndim, dtype=compute))


def _flattened(value: Any, shape: tuple[int, ...]) -> Any:
    """A NumPy or Dask array that broadcasts to ``shape``, broadcast and flattened in C order (for ``axis=None``)."""
    if isinstance(value, da.Array):
        return _walked_layout(da.broadcast_to(value, shape), None)[0]
    return np.broadcast_to(value, shape).reshape(-1)


def linear_recurrence(a: Any, b: Any, axis: Optional[int] = -1, *, direction: Any = "increasing",
                      exclusive: bool = False, initial: Any = None, reset: Any = None, dtype: Any = None) -> da.Array:
    """simdscan.dask.linear_recurrence: the NumPy level's checks, in its order, on stand-ins of the operands' shapes
    and dtypes (nothing computed), then the graph of the module's description (``axis=None``: of ``b`` flattened in
    C order, ``a`` and ``reset`` broadcast to ``b`` and flattened with it)."""
    x = b if isinstance(b, da.Array) else da.asarray(b)
    a_given = a if _is_weak(a) or isinstance(a, da.Array) else np.asarray(a)
    initial_given: Any = 0 if initial is None else (
        initial if _is_weak(initial) or isinstance(initial, da.Array) else np.asarray(initial))
    rdt = _result_dtype([_dtype_of(a_given), np.zeros((), x.dtype)], dtype)  # (initial takes no part)
    compute = np.dtype(np.float32) if rdt == np.float16 else rdt
    _check_initial(_dtype_of(initial_given), rdt)
    decreasing = is_decreasing(direction)
    if x.ndim == 0:
        x = x.reshape(1)
    scalar_a = np.ndim(a_given) == 0 and not isinstance(a_given, da.Array)
    flags: Any = None
    given = x
    if axis is None:
        if any(np.isnan(c) for c in x.shape):
            raise ValueError("simdscan.dask needs known chunk sizes; call compute_chunk_sizes() on the array first")
        if not scalar_a:
            _broadcast(_shaped(a_given), x.shape, "a", "b's shape")
            a_given = _flattened(a_given, x.shape)
        flags = None if reset is None else _reset_operand(reset, x.shape, None)
        x, along = _walked_layout(x, None)
    else:
        along = normalize_axis(axis, x.ndim)
    shape = x.shape
    if any(np.isnan(c) for c in shape):
        raise ValueError("simdscan.dask needs known chunk sizes; call compute_chunk_sizes() on the array first")
    line_shape = shape[:along] + shape[along + 1:]
    if not scalar_a:
        _broadcast(_shaped(a_given), shape, "a", "b's shape")
    _broadcast(_shaped(initial_given), line_shape, "initial", "the line shape")
    if axis is not None:
        flags = None if reset is None else _reset_operand(reset, shape, along)
    meta = np.empty((0,) * x.ndim, dtype=rdt)
    if x.size == 0:
        return da.zeros(shape, dtype=rdt, chunks=x.chunks)

    operands: list[da.Array] = []
    a_value: Any = compute.type(a_given) if scalar_a else None
    if not scalar_a:
        operands.append(_aligned(a_given, shape, x.chunks))
    # initial as a block of length 1 along the axis, one a chunk across it (a scalar: a constant)
    init_value: Any = None
    init_lazy: Any = None
    if np.ndim(initial_given) == 0 and not isinstance(initial_given, da.Array):
        init_value = compute.type(initial_given)
    else:
        trailing = x.ndim - along - 1  # (initial broadcasts to the line shape: a length-1 axis put where the axis is)
        states = initial_given if np.ndim(initial_given) <= trailing else (
            initial_given[(Ellipsis, None) + (slice(None),) * trailing])
        across = tuple((1,) if i == along else c for i, c in enumerate(x.chunks))
        init_lazy = _aligned(states, tuple(1 if i == along else n for i, n in enumerate(shape)), across)
        init_lazy = init_lazy.astype(compute)
        operands.append(init_lazy)
    if flags is not None:
        operands.extend(_segments(flags, given, x))
    common: dict[str, Any] = dict(a=a_value, init=init_value, reset=flags is not None, axis=along,
                                  decreasing=decreasing)
    nb = x.numblocks[along]
    if nb <= 1:
        return da.map_blocks(_whole, x, *operands, exclusive=bool(exclusive), rdt=rdt, dtype=rdt, meta=meta,
                             **common)
    pair_chunks = tuple((1,) * nb if i == along else c for i, c in enumerate(x.chunks))
    pairs = da.map_blocks(_pair, x, *operands, compute=compute, chunks=pair_chunks, dtype=compute,
                          meta=np.empty((0,) * x.ndim, dtype=compute), **common)
    carries = _state_chain(pairs, [x] + operands, init_value if init_lazy is None else init_lazy, common, compute)
    walk = range(nb - 1, -1, -1) if decreasing else range(nb)
    return da.map_blocks(_finish, carries, x, *operands, exclusive=bool(exclusive), compute=compute, rdt=rdt,
                         first=walk[0], chunks=x.chunks, dtype=rdt, meta=meta, **common)


def discounted_cumsum(x: Any, gamma: Any, axis: Optional[int] = -1, *, reset: Any = None) -> da.Array:
    """simdscan.dask.discounted_cumsum: :func:`linear_recurrence` from the end, as the NumPy level."""
    return linear_recurrence(gamma, x, axis, direction="decreasing", reset=reset)


def _fresh_states(shape: tuple[int, ...], adjust: bool, compute: np.dtype) -> np.ndarray:
    """Each line's state before its first element, as the core's weighted mean takes it (scan.hpp's Weighting):
    no weights (adjust) or a whole weight kept (adjust=False), the mean NaN, and no value yet."""
    states = np.empty(shape + (4,), compute)  # (each line's four values side by side, as the core reads them)
    states[...] = (0.0, 0.0 if adjust else 1.0, np.nan, 1.0)
    return states


def _ewm_chunk(block: np.ndarray, carried: Optional[tuple[np.ndarray, np.ndarray]], *, axis: int, smoothing: float,
               adjust: bool, ignore_na: bool, rdt: np.dtype, compute: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """A chunk's means, each line walked by simdscan's kernels from the state the chunk before it left (``carried``:
    that chunk's pair; None for the first chunk along the axis), and the states it leaves."""
    off_in_dask_workers()
    shape = block.shape[:axis] + block.shape[axis + 1:]
    states = _fresh_states(shape, adjust, compute) if carried is None else carried[1].copy()
    means = _core.weighted_mean(block, None, axis, smoothing, adjust, ignore_na, rdt, states)
    return means, states


def ewm_mean(x: Any, axis: int = -1, *, com: Optional[float] = None, span: Optional[float] = None,
             halflife: Optional[float] = None, alpha: Optional[float] = None, adjust: bool = True,
             ignore_na: bool = False) -> da.Array:
    """simdscan.dask.ewm_mean: the NumPy level's checks, then a chain of tasks along the axis, each chunk's lines
    walked by simdscan's kernels from the states the chunk before it left (one pass over the data; the chunks across
    the axis in parallel)."""
    smoothing = _alpha(com, span, halflife, alpha)
    data = x if isinstance(x, da.Array) else da.asarray(x)
    rdt, compute = ewm_dtypes(data.dtype)
    if data.ndim == 0:
        data = data.reshape(1)
    along = normalize_axis(axis, data.ndim)
    if any(np.isnan(c) for c in data.shape):
        raise ValueError("simdscan.dask needs known chunk sizes; call compute_chunk_sizes() on the array first")
    if data.size == 0:
        return da.zeros(data.shape, dtype=rdt, chunks=data.chunks)
    given = data.chunks
    data = _without_empty_chunks(data)  # (a chunk of no element would carry no state on)
    chunk = partial(_ewm_chunk, axis=along, smoothing=smoothing, adjust=bool(adjust), ignore_na=bool(ignore_na),
                    rdt=rdt, compute=compute)
    token = tokenize(data.name, along, smoothing, adjust, ignore_na)
    name, pairs = "simdscan-ewm-mean-" + token, "simdscan-ewm-mean-pair-" + token
    dsk: dict[Any, Any] = {}
    for index in product(*(range(n) for n in data.numblocks)):
        before = index[:along] + (index[along] - 1,) + index[along + 1:]
        dsk[(pairs,) + index] = (chunk, (data.name,) + index, (pairs,) + before if index[along] else None)
        dsk[(name,) + index] = (getitem, (pairs,) + index, 0)
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=[data])
    means = da.Array(graph, name, data.chunks, meta=np.empty((0,) * data.ndim, dtype=rdt))
    return means.rechunk(given)
