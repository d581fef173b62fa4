"""The operands of simdscan.dask's scans beyond the data: reset flags and group labels checked as simdscan checks
them (a Dask operand lazily, chunk by chunk), and the layout that a scan walks (``axis=None`` flattened, 0-d as
shape (1,)) with those operands broadcast to it, in its chunks."""

from __future__ import annotations

import math
import operator
from typing import Any, Optional, Union

import dask.array as da
import numpy as np

from ._segments import group_labels, reset_flags, segment_operands


# --------------------------------------------------------------------------
# per-chunk checks of a Dask operand (module level, so that distributed workers can unpickle them)
# --------------------------------------------------------------------------
def _checked_flags(block: np.ndarray) -> np.ndarray:
    """A Dask reset's chunk as bool flags, its values checked as simdscan checks them (ValueError otherwise)."""
    flags = reset_flags(block, block.shape, 0)
    assert flags is not None
    return flags


def _checked_labels(block: np.ndarray) -> np.ndarray:
    """A Dask labels array's chunk as int64 labels, its values checked as simdscan checks them (ValueError for a
    negative one)."""
    labels = group_labels(block, block.shape, 0)
    assert labels is not None
    return labels


# --------------------------------------------------------------------------
# operands and layout
# --------------------------------------------------------------------------
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
