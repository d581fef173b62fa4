"""Segmented scans: the ``reset=`` argument every scan takes, checked and put in the form the core reads."""

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
        flags = np.broadcast_to(flags, shape)
    except ValueError:
        raise ValueError(f"reset of shape {flags.shape} does not broadcast to the input's shape {shape}") from None
    if flags.dtype.kind != "b":
        stray = (flags != 0) & (flags != 1)
        if stray.any():
            raise ValueError(f"reset holds values other than 0 and 1 (such as {flags[stray].flat[0]!r})")
        flags = flags != 0
    return flags.reshape(-1) if axis is None else flags
