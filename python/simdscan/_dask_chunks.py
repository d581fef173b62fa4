"""What simdscan.dask's chunked scans share: the scans of the family (:class:`_Op`, of the registry ``_ops.OPS``),
their neutral elements and accumulation dtypes, the scan of one chunk by simdscan, a carry combined with what follows
it, and the chain of tiny tasks that carries a state across the chunks in the walk's order.

The chunked scans built on these: the plain one (``_dask_scan.py``), the segmented one (``_dask_segments.py``, reset=),
the grouped one (``_dask_groups.py``, labels=) and forward fill (``_dask_fill.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Any, Optional, Union, cast

import dask.array as da
import numpy as np
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph

from ._array_types import numpy_level
from ._ops import OPS, Op
from ._runtime import Direction, off_in_dask_workers


_Direction = Union[Direction, str]


@dataclass(frozen=True)
class _Op:
    """One scan of the family as a chunked scan takes it: its entry in the registry (how a chunk is scanned, how a
    carry combines with what follows it), and whether it returns indices."""

    spec: Op  # the op's entry in _ops.OPS (one with a ufunc)
    indices: bool = False  # cummax / cummin with return_indices: (values, positions along the axis) pairs

    @property
    def ufunc(self) -> np.ufunc:
        """ufunc(carry, later): the carry comes first in scan order."""
        assert self.spec.ufunc is not None, self.spec.name
        return self.spec.ufunc

    @property
    def casts(self) -> bool:
        """The scan takes dtype= (it may accumulate in a wider dtype than it returns)."""
        return self.spec.casts

    def scan(self, a: Any, *args: Any, **options: Any) -> Any:
        """The op's NumPy-level scan of a chunk: its plain function, a masked chunk scanned as simdscan's function of
        that name scans one (_array_types)."""
        return numpy_level(self.spec)(a, *args, **options)


def _op(name: str) -> _Op:
    """The chunked scans' :class:`_Op` of the registry's op ``name``."""
    return _Op(OPS[name])


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


def _public(labels: np.ndarray) -> np.ndarray:
    """int64 labels as the NumPy-level functions take them back: as uint64 bits (a label past int64's range is held
    negative, which the public functions would refuse as int64)."""
    return np.asarray(labels).view(np.uint64)


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


def _edge(a: np.ndarray, axis: int, decreasing: bool) -> np.ndarray:
    """The last slice along ``axis`` in scan order (length 1 along ``axis``)."""
    index = [slice(None)] * a.ndim
    index[axis] = slice(0, 1) if decreasing else slice(a.shape[axis] - 1, a.shape[axis])
    return a[tuple(index)]


def _neutral_block(shape: list[int], op: _Op, acc: np.dtype) -> Any:
    """A block of the neutral element (with indices: -1, the position of nothing)."""
    values = np.full(shape, _neutral(op, acc), dtype=acc)
    return (values, np.full(shape, -1, dtype=np.intp)) if op.indices else values


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


def _copy(total: Any) -> Any:
    return tuple(np.array(part) for part in total) if isinstance(total, tuple) else np.array(total)


def _walked(a: np.ndarray, axis: int, decreasing: bool) -> np.ndarray:
    """``a``'s lines along ``axis`` on the last axis, in the walk's order (a view)."""
    lines = np.moveaxis(a, axis, -1)
    return lines[..., ::-1] if decreasing else lines


def _unwalked(lines: np.ndarray, axis: int, decreasing: bool) -> np.ndarray:
    """:func:`_walked` undone: lines in the walk's order back in the chunk's layout."""
    return np.moveaxis(lines[..., ::-1] if decreasing else lines, -1, axis)


# --------------------------------------------------------------------------
# graph construction
# --------------------------------------------------------------------------
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
    # (cast: mypy does not take dask's Array for its own DaskCollection protocol)
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=[cast(Any, totals)])
    return da.Array(graph, name, totals.chunks, meta=np.empty((0,) * totals.ndim, dtype=dtype))
