"""Forward fill: ffill, each NaN replaced by the last number before it along an axis (backward with direction)."""

from __future__ import annotations

import operator
from typing import Any, Optional, Union

import numpy as np

from . import _core
from ._axes import is_decreasing, normalize_axis
from ._runtime import Direction
from ._segments import segment_operands


def check_out(out: Any, shape: tuple[int, ...], dtype: np.dtype) -> None:
    """The scans' rules for ``out`` (the core checks them where it writes): an ndarray of the result's shape and
    dtype, writable."""
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a numpy.ndarray, got {type(out).__name__}")
    if out.shape != shape:
        raise ValueError(f"out has shape {out.shape}, the result has shape {shape}")
    if out.dtype.newbyteorder("=") != dtype.newbyteorder("="):
        raise TypeError(f"out has dtype {out.dtype}, the result has dtype {dtype}")
    if not out.flags.writeable:
        raise ValueError("out is read-only")


def ffill(a: Any, axis: Optional[int] = None, *, direction: Union[Direction, str] = "increasing",
          limit: Optional[int] = None, reset: Any = None, labels: Any = None,
          out: Optional[np.ndarray] = None) -> np.ndarray:
    """Forward fill along an axis: each NaN takes the last number before it in the walk, as pandas' ``ffill`` and
    bottleneck's ``push``; ``direction="decreasing"`` is the backward fill (pandas' ``bfill``).

    One pass of SIMD kernels, with every layout, ``out=`` (in place too) and thread count the scans take: the
    values filled in keep their bits, and leading NaNs (before any number in the walk) stay NaN.

    Parameters
    ----------
    a : array_like
        Input data. Floating (float16/32/64) and complex types are filled; a complex value with either part NaN
        counts as NaN (as :func:`numpy.isnan` says). Integer and bool arrays have no NaN: they come back as they are
        (a copy; nothing is written for ``out=a``). NaT is out of scope.
    axis : int or None, default None
        The axis to fill along; ``None`` fills the C-order flattened array and returns it 1-D, as the scans do.
    direction : {"increasing", "decreasing"} or Direction, default "increasing"
        The order of the walk: ``"decreasing"`` fills each NaN from the first number after it.
    limit : int, optional
        At most this many consecutive NaNs (in the walk) are filled after each number; the rest stay NaN
        (pandas' ``limit``, bottleneck's ``n``). At least 1.
    reset : array_like, optional
        Segments, as for :func:`cumsum`: a fill never crosses the start of a segment, so each segment's leading
        NaNs stay NaN.
    labels : array_like of int, optional
        Groups, as for :func:`cumsum`: each NaN takes the last number before it of its own group (pandas'
        ``groupby(labels).ffill()`` along each line), and ``limit`` counts the consecutive NaNs of the group.
    out : ndarray, optional
        Where to write the result (``a``'s dtype and the result's shape, any strides; ``out=a`` fills in place).

    Returns
    -------
    ndarray
        ``out`` if given, else a new array of ``a``'s dtype (1-D for ``axis=None``).

    Raises
    ------
    TypeError
        ``limit`` is not an integer; ``out`` is not an ndarray or has the wrong dtype; ``a``'s dtype cannot be
        scanned; ``reset`` and ``labels`` as for :func:`cumsum`.
    ValueError
        ``limit`` below 1; ``out`` of the wrong shape or read-only; ``reset`` and ``labels`` as for
        :func:`cumsum`.
    numpy.exceptions.AxisError
        ``axis`` is out of range.

    Examples
    --------
    >>> import numpy as np
    >>> import simdscan
    >>> x = np.array([np.nan, 1.0, np.nan, np.nan, 2.0, np.nan])
    >>> simdscan.ffill(x)
    array([nan,  1.,  1.,  1.,  2.,  2.])
    >>> simdscan.ffill(x, direction="decreasing")
    array([ 1.,  1.,  2.,  2.,  2., nan])
    >>> simdscan.ffill(x, limit=1)
    array([nan,  1.,  1., nan,  2.,  2.])
    >>> simdscan.ffill(x, reset=[0, 0, 0, 1, 0, 0])
    array([nan,  1.,  1., nan,  2.,  2.])
    >>> simdscan.ffill(x, labels=[0, 0, 1, 0, 1, 1])
    array([nan,  1., nan,  1.,  2.,  2.])
    """
    x = np.asarray(a)
    if isinstance(axis, tuple):
        raise TypeError(f"ffill takes one axis (an int or None), not axis={axis!r}")
    if limit is not None:
        limit = operator.index(limit)
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
    if x.ndim == 0:
        x = x.reshape(1)
    flat = x.reshape(-1) if axis is None else x
    along = 0 if axis is None else normalize_axis(axis, flat.ndim)
    flags, groups = segment_operands(reset, labels, x.shape, axis)
    if x.dtype.kind in "biu":  # no NaN: the values as they are
        is_decreasing(direction)
        if out is None:
            return flat.copy()
        check_out(out, flat.shape, x.dtype)
        if out is not a:
            np.copyto(out, flat)
        return out
    if limit is None:
        result: np.ndarray = _core.scan("ffill", x, axis, direction, False, None, out, False, False, flags, groups)
        return result
    if groups is None:
        # The core's fill with its limit (each NaN's distance from its number carried along the walk), in either
        # byte order.
        if out is not None:
            check_out(out, flat.shape, x.dtype)
        filled: np.ndarray = _core.limited_fill(flat, out, along, is_decreasing(direction), limit, flags)
        return filled
    # Grouped (the grouped engine has no fill limit yet): each NaN's distance from the number that fills it, the last
    # one in the walk within its group (none: one past the group's end, where the NaN stays anyway), from the running
    # maximum (minimum, decreasing) of the numbers' places counted among the group's elements. (The core's scans, on
    # labels already checked and made int64.)
    missing = np.isnan(flat)
    decreasing = is_decreasing(direction)

    def grouped(op: str, values: np.ndarray, walk: Any, exclusive: bool) -> np.ndarray:
        return _core.scan(op, values, along, walk, exclusive, None, None, False, False, flags, groups)

    ones = np.ones(flat.shape, np.intp)
    position = grouped("add", ones, "increasing", True)
    if decreasing:
        end = position + grouped("add", ones, "decreasing", False)
        filler = grouped("minimum", np.where(missing, end, position), direction, False)
        beyond = missing & (filler - position > limit)
    else:
        filler = grouped("maximum", np.where(missing, -1, position), direction, False)
        beyond = missing & (position - filler > limit)
    kept = flat[beyond]  # taken before an in-place fill overwrites them
    result = _core.scan("ffill", x, axis, direction, False, None, out, False, False, flags, groups)
    result[beyond] = kept
    return result
