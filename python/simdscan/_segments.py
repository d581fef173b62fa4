"""Segmented and grouped scans: the ``reset=`` and ``labels=`` arguments every scan takes, checked and put in the
form the core reads."""

from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np


def reset_flags(reset: Any, shape: Tuple[int, ...], axis: Any) -> Optional[np.ndarray]:
    """``reset`` as the core takes it: a bool array of the input's ``shape``, flattened in C order for ``axis=None``
    as the input is; None for None.

    Raises TypeError for a dtype other than bool, integer or floating; ValueError for values other than 0 and 1 (NaN
    included), a shape that does not broadcast to ``shape``, or a tuple ``axis``.

    >>> reset_flags([0, 1.0, 0], (2, 3), None)
    array([False,  True, False, False,  True, False])
    """
    if reset is None:
        return None
    if isinstance(axis, tuple):
        raise ValueError(f"reset= takes a single axis (an int or None), not axis={axis!r}")
    flags = np.asarray(reset)
    if flags.dtype.kind not in "biuf":
        raise TypeError(f"reset must be bool, or integer or floating 0s and 1s, not dtype {flags.dtype}")
    try:
        flags = flags if flags.shape == shape else np.broadcast_to(flags, shape)
    except ValueError:
        raise ValueError(f"reset of shape {flags.shape} does not broadcast to the input's shape {shape}") from None
    if flags.dtype.kind != "b":
        stray = (flags != 0) & (flags != 1)
        if stray.any():
            raise ValueError(f"reset holds values other than 0 and 1 (such as {flags[stray].flat[0]!r})")
        flags = flags.astype(bool)  # (values 0 and 1 only; != 0 would give a 0-d input a NumPy scalar, no array)
    return flags.reshape(-1) if axis is None else flags


def group_labels(labels: Any, shape: Tuple[int, ...], axis: Any) -> Optional[np.ndarray]:
    """``labels`` as the core takes them: a native int64 array of the input's ``shape`` (uint64 labels past int64's
    range as their bits, which stay distinct), flattened in C order for ``axis=None``; None for None.

    Raises TypeError for a dtype other than integer (bool and floating included); ValueError for a negative label, a
    shape that does not broadcast to ``shape``, or a tuple ``axis``.

    >>> group_labels([[7], [2**64 - 1]], (2, 2), None)
    array([ 7,  7, -1, -1])
    """
    if labels is None:
        return None
    if isinstance(axis, tuple):
        raise ValueError(f"labels= takes a single axis (an int or None), not axis={axis!r}")
    values = np.asarray(labels)
    if values.dtype.kind not in "iu":
        raise TypeError(f"labels must be integers, not dtype {values.dtype}")
    if values.dtype.kind == "i" and values.size and values.min() < 0:  # before broadcasting: fewer to read
        raise ValueError(f"labels must be >= 0 (found {values.min()})")
    try:
        values = np.broadcast_to(values, shape)
    except ValueError:
        raise ValueError(f"labels of shape {values.shape} do not broadcast to the input's shape {shape}") from None
    if values.dtype.itemsize == 8:
        values = values.astype(values.dtype.newbyteorder("="), copy=False).view(np.int64)
    else:
        values = values.astype(np.int64)
    return values.reshape(-1) if axis is None else values


def segment_operands(reset: Any, labels: Any, shape: Tuple[int, ...],
                     axis: Any) -> Tuple[Optional[np.ndarray], Optional[np.ndarray]]:
    """``reset`` and ``labels`` as the core takes them (:func:`reset_flags`, :func:`group_labels`); ValueError for
    both at once."""
    if reset is not None and labels is not None:
        raise ValueError("a scan takes reset= or labels=, not both")
    return reset_flags(reset, shape, axis), group_labels(labels, shape, axis)
