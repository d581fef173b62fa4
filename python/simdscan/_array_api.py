"""The Python Array API standard's scans, as NumPy 2.1 spells them: cumulative_sum and cumulative_prod."""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

import numpy as np

from . import _core
from ._arithmetic import _cumprod_axis, _cumsum_axis
from ._axes import is_decreasing, normalize_axis
from ._runtime import Direction

_INTP = np.dtype(np.intp)
_UINTP = np.dtype(np.uintp)


def _scannable(dt: np.dtype) -> bool:
    """Whether simdscan's kernels read ``dt`` (the 14 dtypes of the README, either byte order)."""
    if dt.kind in "biu":
        return True
    return (dt.kind == "f" and dt.itemsize in (2, 4, 8)) or (dt.kind == "c" and dt.itemsize in (8, 16))


def _loop_dtype(x_dtype: np.dtype, dtype: Any, out: Optional[np.ndarray]) -> np.dtype:
    """The dtype NumPy's ``ufunc.accumulate`` (under np.cumulative_sum / np.cumulative_prod) computes in."""
    if dtype is not None:
        loop: np.dtype = np.dtype(dtype)
        if not loop.isnative:
            raise TypeError(
                f"dtype={loop.str!r}: the dtype of a scan selects only the general type, not its byte order; use a "
                "native one (out= may have either byte order)"
            )
        return loop
    if out is not None:  # the loop of out's dtype and x's together, as for any ufunc
        promoted: np.dtype = np.promote_types(out.dtype, x_dtype).newbyteorder("=")
        return promoted
    if x_dtype.kind == "b":  # neither dtype nor out: bool and small integers go to the default (u)int
        return _INTP
    if x_dtype.kind in "iu" and x_dtype.itemsize < _INTP.itemsize:
        return _UINTP if x_dtype.kind == "u" else _INTP
    return x_dtype.newbyteorder("=")


def _cumulative_axis(axis: Any, shape: tuple[int, ...]) -> int:
    """The axis np.cumulative_sum scans in an at least 1-d array of this shape, with NumPy's errors."""
    if axis is None:
        if len(shape) > 1:
            raise ValueError(
                f"For arrays which have more than one dimension ``axis`` argument is required (x has shape {shape})."
            )
        return 0
    if isinstance(axis, tuple):  # NumPy's accumulate takes a 1-tuple
        if len(axis) != 1:
            raise ValueError(f"axis={axis!r}: accumulate does not allow multiple axes (simdscan.cumsum and cumprod do)")
        axis = axis[0]
    if isinstance(axis, (bool, np.bool_)):
        raise TypeError("axis must be an integer, got bool")
    return normalize_axis(axis, len(shape))


def _logical_scan(product: bool, x: np.ndarray, axis: int, direction: Any, body: np.ndarray, reset: Any,
                  labels: Any) -> None:
    """NumPy's bool loops of add (logical or) and multiply (logical and), as running products of 0/1 bytes."""
    b = x if x.dtype.kind == "b" else x.astype(bool)
    target = body.view(np.uint8)
    if product:  # logical and: a product of zeros and ones stays 0 or 1 in uint8
        _cumprod_axis(b.view(np.uint8), axis, direction=direction, exclusive=False, out=target, reset=reset,
                      labels=labels)
    else:  # logical or: not (the logical and of not x)
        _cumprod_axis(np.logical_not(b).view(np.uint8), axis, direction=direction, exclusive=False, out=target,
                      reset=reset, labels=labels)
        np.logical_not(body, out=body)


def _cumulative(
    product: bool,
    x: Any,
    axis: Any,
    dtype: Any,
    out: Optional[np.ndarray],
    include_initial: Any,
    direction: Any,
    reset: Any,
    labels: Any,
) -> np.ndarray:
    """np.cumulative_sum (``product`` False) or np.cumulative_prod (True), computed by simdscan's kernels."""
    decreasing = is_decreasing(direction)
    initial = bool(include_initial)
    x = np.asarray(x)
    if x.ndim == 0:  # np.atleast_1d
        x = x.reshape(1)
    ax = _cumulative_axis(axis, x.shape)

    shape = list(x.shape)
    if initial:
        shape[ax] += 1
    if out is not None:
        if not isinstance(out, np.ndarray):
            raise TypeError(f"out must be a numpy.ndarray, got {type(out).__name__}")
        if out.shape != tuple(shape):
            raise ValueError(f"out has shape {out.shape}, the result has shape {tuple(shape)}")
        if not out.flags.writeable:
            raise ValueError("out is read-only")

    loop = _loop_dtype(x.dtype, dtype, out)
    direct = out is not None and out.dtype.newbyteorder("=") == loop
    if out is not None and direct:
        target = out
    else:
        if loop.kind != "b" and not _scannable(loop):
            raise TypeError(f"simdscan does not support dtype {loop}")
        target = _core.new_result(x, loop, tuple(shape))
    if not _scannable(x.dtype):  # longdouble, object, ...: NumPy's (unsafe) cast to the loop's dtype first
        x = x.astype(loop)

    body = target
    if initial:
        rows: list[Union[slice, int]] = [slice(None)] * x.ndim
        rows[ax] = slice(0, -1) if decreasing else slice(1, None)
        body = target[tuple(rows)]
    if loop.kind == "b":
        _logical_scan(product, x, ax, direction, body, reset, labels)
    else:
        scan: Callable[..., np.ndarray] = _cumprod_axis if product else _cumsum_axis
        scan(x, ax, direction=direction, exclusive=False, dtype=loop, out=body, reset=reset, labels=labels)
    if initial:
        rows[ax] = -1 if decreasing else 0
        target[tuple(rows)] = 1 if product else 0
    if out is not None and not direct:
        np.copyto(out, target, casting="unsafe")
        return out
    return target


def cumulative_sum(
    x: Any, /, *, axis: Optional[int] = None, dtype: Any = None, out: Optional[np.ndarray] = None,
    include_initial: bool = False, direction: Union[Direction, str] = "increasing", reset: Any = None,
    labels: Any = None,
) -> np.ndarray:
    """Cumulative sum with the Python Array API standard's signature: :func:`numpy.cumulative_sum` (NumPy 2.1).

    A drop-in for NumPy's function, computed by simdscan's kernels: the same result dtype, shape, ``out=`` rules and
    errors, and with ``direction=`` besides.

    Parameters
    ----------
    x : array_like
        Input data, of any layout; a 0-d input is scanned as shape (1,) (``numpy.atleast_1d``). Subclasses, masked
        and Dask arrays as in :func:`cumsum` (the identity that ``include_initial`` adds is never masked).
    axis : int, optional
        The axis to scan; negative counts from the end. May be left out only for a 1-D (or 0-d) ``x``: otherwise
        ValueError, as in NumPy. Out of range: ``numpy.exceptions.AxisError``.
    dtype : data-type, optional
        The dtype to add in and to return. Default, NumPy's rule: ``x``'s dtype, except that bool and integers
        narrower than the platform integer are widened to it (int8/16/32 to int64, uint8/16/32 to uint64 on
        64-bit Linux; ``simdscan.cumsum`` keeps them). With ``out`` given and no ``dtype``: the dtype NumPy promotes
        ``out``'s and ``x``'s dtypes to. ``dtype=bool`` is a running logical or, as NumPy's.
    out : ndarray, optional
        Where to write the result: the result's shape, any dtype (the result is cast to it, unsafely, as by NumPy),
        any byte order and strides, writable. Returned. Left untouched when the call raises.
    include_initial : bool, default False
        Prepend the identity, 0, so that the result is one longer along ``axis`` and its element i totals the i
        elements before it. With ``direction="decreasing"`` the identity stands last instead.
    direction : {"increasing", "decreasing"} or Direction, default "increasing"
        Beyond NumPy: ``"decreasing"`` totals from the end of the axis, as in :func:`cumsum`.
    reset : array_like, optional
        Beyond NumPy: segments of ``x``'s shape, each scanned on its own, as in :func:`cumsum`;
        ``include_initial`` still adds one identity per line.
    labels : array_like of int, optional
        Beyond NumPy: groups of ``x``'s shape, each scanned on its own in the original order, as in
        :func:`cumsum`; ``include_initial`` still adds one identity per line.

    Returns
    -------
    ndarray
        ``out`` if given, else a new array.

    See Also
    --------
    cumsum : DirectML's flags (``exclusive`` keeps the length), several axes, the dtype kept, compensated sums.
    numpy.cumulative_sum : The function this one answers for.

    Notes
    -----
    Integer results are NumPy's, bit for bit. Floating-point ones are within the rounding-error bound of a
    sequential sum (see :func:`cumsum`), added in another order than NumPy's; float16 adds in float32 and is rounded
    once per output, where NumPy rounds every partial sum to float16 (4096 float16 ones sum to 4096, not 2048).
    Input and loop dtypes beyond simdscan's 14 (object, longdouble, timedelta64): TypeError, where NumPy scans them.
    Overflow to inf and invalid operations in the scan raise no RuntimeWarning (NumPy's "overflow encountered in
    accumulate"); the warnings of NumPy's casts (ComplexWarning, a float cast out of an integer's range) remain.
    A 1-tuple ``axis`` is taken as its one entry, with ``include_initial`` too.

    Examples
    --------
    >>> import numpy as np
    >>> import simdscan
    >>> x = np.array([1, 2, 3, 4], dtype=np.int32)
    >>> simdscan.cumulative_sum(x)  # int32 widens to int64, as in NumPy
    array([ 1,  3,  6, 10])
    >>> simdscan.cumulative_sum(x, include_initial=True)
    array([ 0,  1,  3,  6, 10])
    >>> simdscan.cumulative_sum(x, include_initial=True, direction="decreasing")
    array([10,  9,  7,  4,  0])
    >>> simdscan.cumulative_sum(x, dtype=np.int32)
    array([ 1,  3,  6, 10], dtype=int32)

    ``axis`` is needed from two dimensions on; nested calls with ``include_initial=True`` give OpenCV's
    ``cv2.integral`` layout, (H+1, W+1) with zeros first (``simdscan.cumsum(img, axis=(0, 1), out=...)`` does it in
    one call, see :func:`cumsum`):

    >>> img = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.uint8)
    >>> simdscan.cumulative_sum(img)
    Traceback (most recent call last):
        ...
    ValueError: For arrays which have more than one dimension ``axis`` argument is required (x has shape (2, 3)).
    >>> rows = simdscan.cumulative_sum(img, axis=0, dtype=np.int32, include_initial=True)
    >>> simdscan.cumulative_sum(rows, axis=1, dtype=np.int32, include_initial=True)
    array([[ 0,  0,  0,  0],
           [ 0,  1,  3,  6],
           [ 0,  5, 12, 21]], dtype=int32)
    """
    return _cumulative(False, x, axis, dtype, out, include_initial, direction, reset, labels)


def cumulative_prod(
    x: Any, /, *, axis: Optional[int] = None, dtype: Any = None, out: Optional[np.ndarray] = None,
    include_initial: bool = False, direction: Union[Direction, str] = "increasing", reset: Any = None,
    labels: Any = None,
) -> np.ndarray:
    """Cumulative product with the Python Array API standard's signature: :func:`numpy.cumulative_prod` (NumPy 2.1).

    Everything as :func:`cumulative_sum` (``help(simdscan.cumulative_sum)``), with the product in place of the sum:
    the identity ``include_initial`` adds is 1, and ``dtype=bool`` is a running logical and.

    See Also
    --------
    cumprod : DirectML's flags, several axes, the dtype kept.
    numpy.cumulative_prod : The function this one answers for.

    Examples
    --------
    >>> import numpy as np
    >>> import simdscan
    >>> simdscan.cumulative_prod(np.arange(1, 5, dtype=np.uint8), include_initial=True, direction="decreasing")
    array([24, 24, 12,  4,  1], dtype=uint64)

    uint8 widened to uint64, as NumPy does; ``dtype=`` keeps it (and wraps):

    >>> simdscan.cumulative_prod(np.full(5, 4, dtype=np.uint8), dtype=np.uint8)
    array([  4,  16,  64,   0,   0], dtype=uint8)
    >>> simdscan.cumulative_prod([[1.0, 2.0], [3.0, 4.0]], axis=1, include_initial=True)
    array([[ 1.,  1.,  2.],
           [ 1.,  3., 12.]])
    """
    return _cumulative(True, x, axis, dtype, out, include_initial, direction, reset, labels)
