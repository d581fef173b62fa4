"""Running maxima and minima: cummax and cummin (with the positions that supplied them), nancummax and nancummin."""

from __future__ import annotations

import operator
from typing import Any, Optional, Union

import numpy as np

from . import _core
from ._runtime import Direction


def cummax(
    a: Any,
    axis: Optional[int] = None,
    *,
    direction: Union[Direction, str] = "increasing",
    exclusive: bool = False,
    out: Any = None,
    return_indices: bool = False,
) -> Any:
    """Running maximum along an axis, in the input's dtype, with the flags of :func:`cumsum`.

    NaN propagates as in :func:`numpy.maximum.accumulate`: from the first NaN in scan order on, every output is
    NaN (:func:`nancummax` skips NaN instead). Exclusive: the first output in scan order is the identity, the
    dtype's lowest value (-inf for floats, ``iinfo.min`` for integers, False for bool).

    Parameters
    ----------
    a, axis, direction, exclusive
        As :func:`cumsum`. Every integer dtype, bool and float16/32/64 are taken; complex numbers have no order
        (TypeError).
    out : ndarray, or a tuple (values, indices) with ``return_indices``, optional
        Where to write the result, with :func:`cumsum`'s rules (``out=a`` scans in place). With
        ``return_indices``, ``None`` or a pair of arrays, the second of dtype ``numpy.intp``.
    return_indices : bool, default False
        Also return, as ``numpy.intp``, the position along ``axis`` of the element that supplied each value (as
        ``torch.cummax``): among equal values the latest in scan order; after a NaN, the first NaN's position;
        -1 where the exclusive identity stands.

    Returns
    -------
    ndarray, or (ndarray, ndarray) with ``return_indices``

    Raises
    ------
    TypeError
        Complex input; ``out`` not an ndarray (or pair of them), or of the wrong dtype.
    ValueError, numpy.exceptions.AxisError
        As :func:`cumsum`. On any error ``out`` is left untouched.

    Examples
    --------
    >>> import numpy as np
    >>> import simdscan
    >>> x = np.array([3, 1, 4, 1, 5, 9, 2, 6], dtype=np.int16)
    >>> simdscan.cummax(x)
    array([3, 3, 4, 4, 5, 9, 9, 9], dtype=int16)
    >>> simdscan.cummax(x, direction="decreasing", exclusive=True)
    array([     9,      9,      9,      9,      9,      6,      6, -32768], dtype=int16)
    >>> values, indices = simdscan.cummax([2.0, 7.0, 7.0, np.nan, 8.0], return_indices=True)
    >>> values
    array([ 2.,  7.,  7., nan, nan])
    >>> indices
    array([0, 1, 2, 3, 3])
    """
    return _extremum("maximum", a, axis, direction, exclusive, out, return_indices)


def cummin(
    a: Any,
    axis: Optional[int] = None,
    *,
    direction: Union[Direction, str] = "increasing",
    exclusive: bool = False,
    out: Any = None,
    return_indices: bool = False,
) -> Any:
    """Running minimum along an axis: :func:`cummax` with the order reversed (exclusive identity: the highest value).

    Examples
    --------
    >>> import numpy as np
    >>> import simdscan
    >>> simdscan.cummin(np.array([[4, 2], [1, 3]], dtype=np.uint8), axis=0)
    array([[4, 2],
           [1, 2]], dtype=uint8)
    >>> simdscan.cummin([5, 3, 3, 4], return_indices=True)
    (array([5, 3, 3, 3]), array([0, 1, 2, 2]))
    >>> simdscan.cummin([True, True, False], exclusive=True)
    array([ True,  True,  True])
    """
    return _extremum("minimum", a, axis, direction, exclusive, out, return_indices)


def nancummax(
    a: Any,
    axis: Optional[int] = None,
    *,
    direction: Union[Direction, str] = "increasing",
    exclusive: bool = False,
    out: Optional[np.ndarray] = None,
) -> np.ndarray:
    """Running maximum that skips NaN, as :func:`numpy.fmax.accumulate`: NaN only before the first number.

    Parameters and errors are :func:`cummax`'s (without ``return_indices``). The kernels skip NaN as they
    scan: no copy of the input is made.

    Examples
    --------
    >>> import numpy as np
    >>> import simdscan
    >>> simdscan.nancummax([np.nan, 1.0, np.nan, 3.0, 2.0])
    array([nan,  1.,  1.,  3.,  3.])
    >>> simdscan.nancummax([np.nan, 1.0, 3.0], exclusive=True)
    array([-inf,  nan,   1.])
    """
    return _core.scan("maximum", a, axis, direction, exclusive, None, out, False, True)


def nancummin(
    a: Any,
    axis: Optional[int] = None,
    *,
    direction: Union[Direction, str] = "increasing",
    exclusive: bool = False,
    out: Optional[np.ndarray] = None,
) -> np.ndarray:
    """Running minimum that skips NaN, as :func:`numpy.fmin.accumulate` (see :func:`nancummax`).

    Examples
    --------
    >>> import numpy as np
    >>> import simdscan
    >>> simdscan.nancummin([2.0, np.nan, 1.0], direction="decreasing")
    array([1., 1., 1.])
    """
    return _core.scan("minimum", a, axis, direction, exclusive, None, out, False, True)


def _extremum(op: str, a: Any, axis: Any, direction: Any, exclusive: Any, out: Any, return_indices: Any) -> Any:
    if not return_indices:
        return _core.scan(op, a, axis, direction, exclusive, None, out, False, False)
    x = np.asarray(a)
    if axis is None:
        x, axis = x.reshape(-1), 0
    elif x.ndim == 0:
        x = x.reshape(1)
    values_out, indices_out = _output_pair(out)
    # The inclusive scan into a temporary first: every check has run before either output is written.
    inclusive = _core.scan(op, x, axis, direction, False, None, None, False, False)
    axis = operator.index(axis) % x.ndim
    decreasing = Direction(direction) is Direction.DECREASING
    indices = _supplier_positions(op, x, inclusive, axis, decreasing)
    values = inclusive
    if exclusive:
        values = _shifted(inclusive, axis, decreasing, inclusive.dtype.type(_identity(op, inclusive.dtype)))
        indices = _shifted(indices, axis, decreasing, np.intp(-1))
    for target, result in ((values_out, values), (indices_out, indices)):
        if target is not None:
            _check_out(target, result)
    if values_out is None and indices_out is None:
        return values, indices
    if values_out is not None:
        np.copyto(values_out, values)
        values = values_out
    if indices_out is not None:
        np.copyto(indices_out, indices)
        indices = indices_out
    return values, indices


def _output_pair(out: Any) -> tuple[Optional[np.ndarray], Optional[np.ndarray]]:
    if out is None:
        return None, None
    if not isinstance(out, tuple) or len(out) != 2:
        raise TypeError("with return_indices=True, out must be None or a tuple (values, indices)")
    for part in out:
        if part is not None and not isinstance(part, np.ndarray):
            raise TypeError(f"out must hold numpy.ndarrays, got {type(part).__name__}")
    return out[0], out[1]


def _check_out(target: np.ndarray, result: np.ndarray) -> None:
    if target.shape != result.shape:
        raise ValueError(f"out has shape {target.shape}, the result has shape {result.shape}")
    if target.dtype.newbyteorder("=") != result.dtype:
        raise TypeError(f"out has dtype {target.dtype}, the result has dtype {result.dtype}")
    if not target.flags.writeable:
        raise ValueError("out is read-only")


def _identity(op: str, dtype: np.dtype) -> Any:
    if dtype.kind == "b":
        return op == "minimum"
    if dtype.kind == "f":
        return -np.inf if op == "maximum" else np.inf
    info = np.iinfo(dtype)
    return info.min if op == "maximum" else info.max


def _shifted(values: np.ndarray, axis: int, decreasing: bool, first: Any) -> np.ndarray:
    """values moved one place along axis in scan order, `first` entering at the start of the scan."""
    result = np.empty_like(values)
    moved = np.moveaxis(values, axis, -1)
    target = np.moveaxis(result, axis, -1)
    if decreasing:
        target[..., :-1] = moved[..., 1:]
        target[..., -1] = first
    else:
        target[..., 1:] = moved[..., :-1]
        target[..., 0] = first
    return result


def _supplier_positions(op: str, x: np.ndarray, inclusive: np.ndarray, axis: int, decreasing: bool) -> np.ndarray:
    """The position along axis of the element that supplied each inclusive value: among equal ones the latest in
    scan order; from a NaN on, the first NaN's."""
    supplied = x == inclusive
    if inclusive.dtype.kind == "f":
        reached_nan = np.isnan(inclusive)
        supplied |= reached_nan & ~_shifted(reached_nan, axis, decreasing, False)
    n = x.shape[axis]
    positions = np.arange(n, dtype=np.intp).reshape((n,) + (1,) * (x.ndim - 1 - axis))
    # The latest supplier in scan order: the largest position increasing, the smallest decreasing.
    if decreasing:
        return _core.scan("minimum", np.where(supplied, positions, np.intp(n)), axis, "decreasing", False, None,
                          None, False, False)
    return _core.scan("maximum", np.where(supplied, positions, np.intp(-1)), axis, "increasing", False, None, None,
                      False, False)
