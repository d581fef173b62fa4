"""Running maxima and minima: cummax and cummin (with the positions that supplied them), nancummax and nancummin.

Plain functions of NumPy arrays: simdscan's public ones are made from them in _public.py, by their entries in _ops.OPS
(whose ``fast`` names the calls each body hands straight to ``_core.scan``: keep the two in step)."""

from __future__ import annotations

from functools import partial
from typing import Any, Optional, Union

import numpy as np

from . import _core
from ._axes import scan_along, scan_axes
from ._runtime import Direction
from ._segments import segment_operands


def cummax(a: Any, axis: Optional[int] = None, *, direction: Union[Direction, str] = "increasing",
           exclusive: bool = False, out: Any = None, return_indices: bool = False, reset: Any = None,
           labels: Any = None) -> Any:
    """Running maximum along an axis, in the input's dtype, with the flags of :func:`cumsum`.

    NaN propagates as in :func:`numpy.maximum.accumulate`: from the first NaN in scan order on, every output is
    NaN (:func:`nancummax` skips NaN instead). Exclusive: the first output in scan order is the identity, the
    dtype's lowest value (-inf for floats, ``iinfo.min`` for integers, False for bool).

    Parameters
    ----------
    a, axis, direction, exclusive, reset, labels
        As :func:`cumsum`, several axes included (without ``return_indices``, ``reset`` or ``labels``). Every
        integer dtype, bool and float16/32/64 are taken; complex numbers have no order (TypeError). With ``reset``
        or ``labels``, the indices stay positions along the whole axis.
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
    if reset is not None or labels is not None:
        return _extremum_along("maximum", a, axis, direction=direction, exclusive=exclusive, out=out,
                               return_indices=return_indices, reset=reset, labels=labels)
    if isinstance(axis, tuple):
        return _extremum_axes("maximum", a, axis, direction, exclusive, out, return_indices)
    if return_indices:
        return _core.scan_indexed("maximum", a, axis, direction, exclusive, out, None, None)
    return _core.scan("maximum", a, axis, direction, exclusive, None, out, False, False, None, None)


def cummin(a: Any, axis: Optional[int] = None, *, direction: Union[Direction, str] = "increasing",
           exclusive: bool = False, out: Any = None, return_indices: bool = False, reset: Any = None,
           labels: Any = None) -> Any:
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
    if reset is not None or labels is not None:
        return _extremum_along("minimum", a, axis, direction=direction, exclusive=exclusive, out=out,
                               return_indices=return_indices, reset=reset, labels=labels)
    if isinstance(axis, tuple):
        return _extremum_axes("minimum", a, axis, direction, exclusive, out, return_indices)
    if return_indices:
        return _core.scan_indexed("minimum", a, axis, direction, exclusive, out, None, None)
    return _core.scan("minimum", a, axis, direction, exclusive, None, out, False, False, None, None)


def nancummax(a: Any, axis: Optional[int] = None, *, direction: Union[Direction, str] = "increasing",
              exclusive: bool = False, out: Optional[np.ndarray] = None, reset: Any = None,
              labels: Any = None) -> np.ndarray:
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
    return scan_along("maximum", True, a, axis, direction, exclusive, out, None, False, reset, labels)


def nancummin(a: Any, axis: Optional[int] = None, *, direction: Union[Direction, str] = "increasing",
              exclusive: bool = False, out: Optional[np.ndarray] = None, reset: Any = None,
              labels: Any = None) -> np.ndarray:
    """Running minimum that skips NaN, as :func:`numpy.fmin.accumulate` (see :func:`nancummax`).

    Examples
    --------
    >>> import numpy as np
    >>> import simdscan
    >>> simdscan.nancummin([2.0, np.nan, 1.0], direction="decreasing")
    array([1., 1., 1.])
    """
    return scan_along("minimum", True, a, axis, direction, exclusive, out, None, False, reset, labels)


# cummax and cummin call the core themselves: each Python call between cost a 16-element call about 0.1 us. A tuple
# axis goes through scan_axes.
def _extremum_axes(op: str, a: Any, axis: Any, direction: Any, exclusive: Any, out: Any, return_indices: Any) -> Any:
    return scan_axes(partial(_extremum_along, op), a, axis, direction=direction, exclusive=exclusive, out=out,
                     return_indices=return_indices)


def _extremum_along(op: str, a: Any, axis: Any, *, direction: Any, exclusive: Any, out: Any,
                    return_indices: Any = False, reset: Any = None, labels: Any = None) -> Any:
    flags, groups = segment_operands(reset, labels, np.shape(a), axis)
    if return_indices:
        return _core.scan_indexed(op, a, axis, direction, exclusive, out, flags, groups)
    return _core.scan(op, a, axis, direction, exclusive, None, out, False, False, flags, groups)
