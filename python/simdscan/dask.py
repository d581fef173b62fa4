"""The scan family over Dask arrays, every chunk scanned by simdscan.

``cumsum``, ``cumprod``, ``cummax``, ``cummin``, ``nancummax``, ``nancummin``, ``nancumsum``, ``nancumprod``,
``logcumsumexp``, ``cumulative_sum``, ``cumulative_prod``, ``ffill``, ``linear_recurrence``, ``discounted_cumsum``
and ``ewm_mean`` of this module take a :class:`dask.array.Array` and return one, lazily, with the semantics and the
keywords of the NumPy-level function of the same name in :mod:`simdscan` (direction, exclusive, dtype, compensated,
return_indices, include_initial, limit, reset, labels, initial, ...), ``out=`` excepted, and Dask's ``method=``
besides for the scans (accepted, see :func:`cumsum`). The NumPy-level functions hand a Dask array to these. This
module needs Dask (``pip install simdscan[dask]``); ``import simdscan`` never imports it.

How the scan is built (nothing is computed until the result is):

1. each chunk is scanned along the axis by simdscan, in the requested direction, inclusive or exclusive;
2. each chunk's total along the axis is taken from the edge of its scan (one slice per chunk);
3. the totals are scanned exclusively along the chunk grid, in the requested direction: the carry into
   chunk k is the total of the chunks before it (increasing) or after it (decreasing). This is a chain of
   tiny tasks, so chunk k can be finished as soon as the chunks before it are, and a large array streams
   through a cluster instead of being held in memory all at once;
4. each chunk's result is its carry combined with its local scan by the operation's ufunc.

Segments (``reset=``, a NumPy or Dask array, broadcast and put in the data's chunks) follow the same four steps: each
chunk is scanned with its own flags; its total is that of its last segment in the walk, with a flag saying whether
the chunk holds a reset; carries combine as a segmented op (a chunk holding a reset passes on its own total, not the
carry combined with it); and a carry reaches only the elements walked before the chunk's first segment start (before
its first reset when increasing, from its last reset on when decreasing), so a segment spans chunks, and a reset at a
chunk's first index stops the carry out of it in a decreasing walk.

Groups (``labels=``, a NumPy or Dask integer array, broadcast and put in the data's chunks as ``reset`` is) carry each
line's groups instead of one total: a chunk's groups are its distinct labels in each line, each with simdscan's grouped
inclusive scan of the chunk at the group's last element in the walk (and that value's position along the axis, for
indices); the carry into a chunk folds the groups of the chunks walked before it (a group in both takes the ufunc of
the two, any other goes on as it is), so it holds every group its line has met; and each chunk is scanned by simdscan,
grouped, after one element for each carried group that it holds (its label and carried value, the rest padded with a
label no element has), which the op continues as on the whole line, exclusive or not and with indices, before that
prefix is dropped (a NaN total of nancumsum / nancumprod, which the op would skip, is combined by the ufunc after). A
carry's memory grows with the number of distinct labels a line holds, whatever their values. :func:`ffill` carries
each group's last number and the count of its elements walked since.

:func:`ffill` follows the same steps, its carry the last number walked in each line (found or not) with the count of
elements walked since it, for ``limit``: a chunk with a number in its last segment passes on that number, one with a
reset and no such number passes on none, any other passes on the carry, its count longer by the chunk's length; the
carry fills the NaNs walked before the chunk's first number and first segment start, as far as ``limit`` allows.

simdscan's one table of its ops (``_ops.OPS``) says, per function, which NumPy-level function scans a chunk (the plain
one of its family module; a masked chunk is taken as :mod:`simdscan`'s function takes one) and which ufunc combines a
carry with what follows it: :data:`numpy.add` (cumsum, and nancumsum, whose chunk totals are NaN-free sums),
:data:`numpy.multiply` (cumprod, nancumprod), :data:`numpy.maximum` / :data:`numpy.minimum` (cummax, cummin: NaN
propagates), :data:`numpy.fmax` / :data:`numpy.fmin` (nancummax, nancummin: the total of an all-NaN chunk is
NaN, which these skip, so it never poisons a carry) and :data:`numpy.logaddexp` (logcumsumexp). An empty
chunk's total is the ufunc's neutral element (0, 1, the dtype's lowest or highest value, NaN for fmax / fmin on
floats, -inf), but it stands for no element and is never combined: the carry passes an empty chunk as it is (a
carried -0.0 stays -0.0), and the first chunk with elements in the walk is its own scan (an exclusive nancummax
begins with -inf, not NaN, after empty chunks).

The data is never rechunked, flipped or copied into another layout: the result has the input's chunks
(with ``axis=None`` the array is first flattened in C order by :meth:`dask.array.Array.ravel`, which may
rechunk an array chunked across more than its last axis; empty chunks of a multi-dimensional array are dropped
first, as that ravel cannot reshape them).

Accuracy. Integer results are exact: integers wrap modulo 2**bits in the result dtype, exactly as simdscan
does on the whole array, whatever the chunking. Running extrema (values and indices) are exact. Floating-point
sums and products differ from simdscan on the whole array only by rounding: the chunked scan adds (or
multiplies) in a different order, and stays within the same recursive-summation error bound. float16 is
accumulated in float32 and rounded once per output, as simdscan does. (Where a finite running total overflows
to inf, the place it overflows can depend on the chunking.) logcumsumexp keeps the running value in float64
as simdscan does: float16 and float32 chunks are scanned, and their carries combined, in float64 and rounded
once per output, so they equal the whole-array result but for a rare tie of that rounding; float64 adds one
rounding of ``logaddexp(carry, local)`` per chunk boundary (a few units in the last place of the output).

:func:`linear_recurrence`, :func:`discounted_cumsum` and :func:`ewm_mean` carry a recurrence's state instead of a
total: a chunk's lines leave it in the state ``A * s + B``, ``s`` the state they entered with, ``A`` the product of
the chunk's ``a`` (0 where a segment starts in it) and ``B`` the state it leaves with from 0; a chain of small tasks
composes these pairs in the walk's order from ``initial``, and each chunk is then run by
:func:`simdscan.linear_recurrence` with ``initial=`` its carry (its segments from ``initial`` itself). ewm_mean carries
its recurrences so (the weighted totals and weights, or adjust=False's per-element coefficients, whose steps since
the last value come from a lazy :func:`cummax`). Results differ from the whole array's only by rounding (the pairs
compose in another order).

simdscan may split the scan of a large chunk across its own thread pool. Where Dask already runs one
task per core (its threaded scheduler, or workers with several threads), ``simdscan.set_num_threads(1)``
in each process avoids running more threads than cores.
"""
from __future__ import annotations

from typing import Any, Optional, Union

import dask.array as da

from ._arithmetic import Axis, Directions, Exclusives
from . import _dask_recurrence
from ._dask_fill import _ffill
from ._dask_scan import _cumulative, _scan, check_method
from ._runtime import Direction

__all__ = [
    "cummax", "cummin", "cumprod", "cumsum", "cumulative_prod", "cumulative_sum", "discounted_cumsum", "ewm_mean",
    "ffill", "linear_recurrence", "logcumsumexp", "nancummax", "nancummin", "nancumprod", "nancumsum",
]

# --------------------------------------------------------------------------
# public API: one thin wrapper a function, its keywords those of simdscan's function of that name, out= excepted
# --------------------------------------------------------------------------
def cumsum(a: da.Array, axis: Axis = None, *, direction: Directions = "increasing", exclusive: Exclusives = False,
           dtype: Any = None, compensated: bool = False, reset: Any = None, labels: Any = None,
           method: str = "sequential") -> da.Array:
    """Lazy cumulative sum of a Dask array along an axis, every chunk scanned by :func:`simdscan.cumsum`.

    Parameters
    ----------
    a : dask.array.Array
        Input data (anything else is wrapped by :func:`dask.array.asarray`). Chunk sizes must be known.
    axis : int, tuple of ints or None, optional
        The axis to scan; negative counts from the end. None scans the C-order flattened array (flattened
        by :meth:`dask.array.Array.ravel`, which may rechunk). A tuple scans along each of its axes in turn, as
        :func:`simdscan.cumsum` does (``axis=(0, 1)``: a summed-area table), with ``direction`` and ``exclusive``
        one value or a tuple with one entry per axis.
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
    reset : array_like or dask.array.Array, optional
        As :func:`simdscan.cumsum`: True (or 1) at index i begins a new segment at element i, each segment of each
        line scanned on its own; bool, or integer / floating 0s and 1s, broadcast to ``a`` (flattened with it for
        ``axis=None``), an int ``axis`` only. A Dask reset stays lazy, in chunks of its own (put in ``a``'s).
    labels : array_like or dask.array.Array, optional
        As :func:`simdscan.cumsum`: each element's output is the scan of its line's elements with the same label
        walked up to it; integers >= 0 (uint64 ones up to 2**64 - 1), broadcast to ``a`` (flattened with it for
        ``axis=None``), an int ``axis`` only, not with ``reset``. A group running across chunks is carried across
        them; a Dask labels array stays lazy, in chunks of its own (put in ``a``'s).
    method : {"sequential", "blelloch"}, default "sequential"
        Dask's own keyword (:func:`dask.array.cumsum`), accepted so that code written for Dask runs unchanged: either
        value builds the same graph, as simdscan's chunk carries are its own (a chain of small tasks over the chunk
        totals, above). Any other value: ValueError.

    Returns
    -------
    dask.array.Array
        The lazy result, with the input's chunks (for an int ``axis``). Computed, it equals
        ``simdscan.cumsum(a.compute(), axis, ...)``: exactly for integers (which wrap in the result dtype),
        within the same rounding-error bound for floating-point types, which are added in another order.

    Raises
    ------
    numpy.exceptions.AxisError, ValueError, TypeError
        As :func:`simdscan.cumsum`, at once (while building the graph); but a Dask ``reset``'s values other than 0
        and 1, and a Dask ``labels``' negative values, raise ValueError when they are computed.

    Every other function of this module takes the parameters above that its NumPy-level namesake in
    :mod:`simdscan` takes, returns the same, computed as the module's description says, and raises the same.

    Examples
    --------
    >>> import dask.array as da
    >>> import simdscan.dask
    >>> x = da.arange(1, 9, chunks=3)
    >>> simdscan.dask.cumsum(x).compute()
    array([ 1,  3,  6, 10, 15, 21, 28, 36])
    >>> simdscan.dask.cumsum(x, direction="decreasing", exclusive=True).compute()
    array([35, 33, 30, 26, 21, 15,  8,  0])
    >>> simdscan.dask.cumsum(da.ones((2, 4), dtype=np.int32, chunks=1), axis=(0, 1)).compute()
    array([[1, 2, 3, 4],
           [2, 4, 6, 8]], dtype=int32)
    >>> simdscan.dask.cumsum(x, reset=da.from_array([0, 0, 1, 0, 0, 1, 0, 0], chunks=4)).compute()
    array([ 1,  3,  3,  7, 12,  6, 13, 21])
    >>> simdscan.dask.cumsum(x, labels=da.from_array([0, 1, 0, 1, 0, 1, 0, 1], chunks=4)).compute()
    array([ 1,  2,  4,  6,  9, 12, 16, 20])
    """
    check_method(method)
    return _scan("cumsum", a, axis, direction, exclusive, dtype=dtype, compensated=compensated, reset=reset,
                 labels=labels)


def cumprod(a: da.Array, axis: Axis = None, *, direction: Directions = "increasing", exclusive: Exclusives = False,
            dtype: Any = None, reset: Any = None, labels: Any = None, method: str = "sequential") -> da.Array:
    """Lazy cumulative product of a Dask array along an axis, every chunk scanned by :func:`simdscan.cumprod`.

    Parameters are those of :func:`cumsum`; an empty exclusive range gives 1.

    Examples
    --------
    >>> x = da.arange(1, 7, chunks=2)
    >>> simdscan.dask.cumprod(x).compute()
    array([  1,   2,   6,  24, 120, 720])
    >>> simdscan.dask.cumprod(x, exclusive=True).compute()
    array([  1,   1,   2,   6,  24, 120])
    """
    check_method(method)
    return _scan("cumprod", a, axis, direction, exclusive, dtype=dtype, reset=reset, labels=labels)


def cummax(a: da.Array, axis: Axis = None, *, direction: Directions = "increasing", exclusive: Exclusives = False,
           return_indices: bool = False, reset: Any = None, labels: Any = None, method: str = "sequential") -> Any:
    """Lazy running maximum of a Dask array, every chunk scanned by :func:`simdscan.cummax`; NaN propagates.

    With ``return_indices`` it returns two Dask arrays, (values, indices): each index is the position along the
    whole axis (not the chunk) of the element that supplied the value, as :func:`simdscan.cummax` gives it on the
    whole array: among equal values the latest in scan order, from a NaN on the first NaN's position, -1 where
    the exclusive identity stands. Values and indices are exact, whatever the chunking.

    Examples
    --------
    >>> x = da.from_array(np.array([3, 1, 4, 1, 5, 9, 2, 6], dtype=np.int16), chunks=3)
    >>> simdscan.dask.cummax(x).compute()
    array([3, 3, 4, 4, 5, 9, 9, 9], dtype=int16)
    >>> values, indices = simdscan.dask.cummax(x, direction="decreasing", return_indices=True)
    >>> indices.compute()
    array([5, 5, 5, 5, 5, 5, 7, 7])
    """
    check_method(method)
    return _scan("cummax", a, axis, direction, exclusive, return_indices=return_indices, reset=reset, labels=labels)


def cummin(a: da.Array, axis: Axis = None, *, direction: Directions = "increasing", exclusive: Exclusives = False,
           return_indices: bool = False, reset: Any = None, labels: Any = None, method: str = "sequential") -> Any:
    """Lazy running minimum of a Dask array, every chunk scanned by :func:`simdscan.cummin` (see :func:`cummax`).

    Examples
    --------
    >>> ys = da.from_array(np.array([5.0, 3.0, 3.0, np.nan, 2.0]), chunks=2)
    >>> simdscan.dask.cummin(ys, exclusive=True).compute()
    array([inf,  5.,  3.,  3., nan])
    >>> [part.compute() for part in simdscan.dask.cummin(ys, return_indices=True)]
    [array([ 5.,  3.,  3., nan, nan]), array([0, 1, 2, 3, 3])]
    """
    check_method(method)
    return _scan("cummin", a, axis, direction, exclusive, return_indices=return_indices, reset=reset, labels=labels)


def nancummax(a: da.Array, axis: Axis = None, *, direction: Directions = "increasing",
              exclusive: Exclusives = False, reset: Any = None, labels: Any = None,
              method: str = "sequential") -> da.Array:
    """Lazy running maximum that skips NaN, every chunk scanned by :func:`simdscan.nancummax`.

    Examples
    --------
    >>> simdscan.dask.nancummax(da.from_array(np.array([np.nan, np.nan, 1.0, np.nan, 3.0]), chunks=2)).compute()
    array([nan, nan,  1.,  1.,  3.])
    """
    check_method(method)
    return _scan("nancummax", a, axis, direction, exclusive, reset=reset, labels=labels)


def nancummin(a: da.Array, axis: Axis = None, *, direction: Directions = "increasing",
              exclusive: Exclusives = False, reset: Any = None, labels: Any = None,
              method: str = "sequential") -> da.Array:
    """Lazy running minimum that skips NaN, every chunk scanned by :func:`simdscan.nancummin`.

    Examples
    --------
    >>> grid = da.from_array(np.array([[2.0, np.nan], [np.nan, 4.0], [1.0, np.nan]]), chunks=1)
    >>> simdscan.dask.nancummin(grid, axis=0, direction="decreasing").compute()
    array([[ 1.,  4.],
           [ 1.,  4.],
           [ 1., nan]])
    """
    check_method(method)
    return _scan("nancummin", a, axis, direction, exclusive, reset=reset, labels=labels)


def nancumsum(a: da.Array, axis: Axis = None, *, direction: Directions = "increasing",
              exclusive: Exclusives = False, dtype: Any = None, compensated: bool = False,
              reset: Any = None, labels: Any = None, method: str = "sequential") -> da.Array:
    """Lazy cumulative sum counting NaN as zero, every chunk scanned by :func:`simdscan.nancumsum`.

    Examples
    --------
    >>> v = da.from_array(np.array([1.0, np.nan, 2.0, np.nan, 3.0], dtype=np.float32), chunks=2)
    >>> simdscan.dask.nancumsum(v, exclusive=True).compute()
    array([0., 1., 1., 3., 3.], dtype=float32)
    """
    check_method(method)
    return _scan("nancumsum", a, axis, direction, exclusive, dtype=dtype, compensated=compensated, reset=reset,
                 labels=labels)


def nancumprod(a: da.Array, axis: Axis = None, *, direction: Directions = "increasing",
               exclusive: Exclusives = False, dtype: Any = None, reset: Any = None, labels: Any = None,
               method: str = "sequential") -> da.Array:
    """Lazy cumulative product counting NaN as one, every chunk scanned by :func:`simdscan.nancumprod`.

    Examples
    --------
    >>> simdscan.dask.nancumprod(da.from_array([2.0, np.nan, 3.0, 0.5], chunks=3), direction="decreasing").compute()
    array([3. , 1.5, 1.5, 0.5])
    """
    check_method(method)
    return _scan("nancumprod", a, axis, direction, exclusive, dtype=dtype, reset=reset, labels=labels)


def logcumsumexp(a: da.Array, axis: Axis = None, *, direction: Directions = "increasing",
                 exclusive: Exclusives = False, dtype: Any = None, reset: Any = None, labels: Any = None,
                 method: str = "sequential") -> da.Array:
    """Lazy log(cumsum(exp(a))), computed stably, every chunk scanned by :func:`simdscan.logcumsumexp`.

    Integer input gives float64, as in simdscan. float16 and float32 chunks and carries are kept in float64
    and rounded once per output; float64 adds one rounding per chunk boundary (see the module's description).

    Examples
    --------
    >>> logs = simdscan.dask.logcumsumexp(da.log(da.arange(1.0, 5.0, chunks=2)))
    >>> np.exp(logs.compute()).round(12)
    array([ 1.,  3.,  6., 10.])
    >>> simdscan.dask.logcumsumexp(da.zeros(3, dtype=np.int32, chunks=1), exclusive=True).compute()
    array([      -inf, 0.        , 0.69314718])
    """
    check_method(method)
    return _scan("logcumsumexp", a, axis, direction, exclusive, dtype=dtype, reset=reset, labels=labels)


def cumulative_sum(x: da.Array, /, *, axis: Optional[int] = None, dtype: Any = None, include_initial: bool = False,
                   direction: Union[Direction, str] = "increasing", reset: Any = None, labels: Any = None,
                   method: str = "sequential") -> da.Array:
    """Lazy :func:`simdscan.cumulative_sum` (NumPy 2.1's ``numpy.cumulative_sum``) of a Dask array.

    The arguments, result dtype (bool and narrow integers widened to the platform integer unless ``dtype`` says
    otherwise), shape and errors of :func:`simdscan.cumulative_sum`, ``out=`` excepted: the body is :func:`cumsum`
    in the result dtype, with the identity 0 joined as a chunk of its own before it (``include_initial``; after it
    when decreasing).

    Examples
    --------
    >>> x = da.arange(1, 7, chunks=2, dtype=np.int8)
    >>> simdscan.dask.cumulative_sum(x, include_initial=True).compute()  # int8 widens to int64, as in NumPy
    array([ 0,  1,  3,  6, 10, 15, 21])
    >>> simdscan.dask.cumulative_sum(x, include_initial=True, direction="decreasing").compute()
    array([21, 20, 18, 15, 11,  6,  0])
    >>> simdscan.dask.cumulative_sum(da.ones((2, 3), chunks=1), axis=1, dtype=np.float32).compute()
    array([[1., 2., 3.],
           [1., 2., 3.]], dtype=float32)
    """
    check_method(method)
    return _cumulative(False, x, axis, dtype, include_initial, direction, reset, labels)


def cumulative_prod(x: da.Array, /, *, axis: Optional[int] = None, dtype: Any = None, include_initial: bool = False,
                    direction: Union[Direction, str] = "increasing", reset: Any = None, labels: Any = None,
                    method: str = "sequential") -> da.Array:
    """Lazy :func:`simdscan.cumulative_prod` (NumPy 2.1's ``numpy.cumulative_prod``) of a Dask array.

    Everything as :func:`cumulative_sum`, with :func:`cumprod` and the identity 1.

    Examples
    --------
    >>> simdscan.dask.cumulative_prod(da.arange(1, 6, chunks=2), include_initial=True).compute()
    array([  1,   1,   2,   6,  24, 120])
    """
    check_method(method)
    return _cumulative(True, x, axis, dtype, include_initial, direction, reset, labels)


def ffill(a: da.Array, axis: Optional[int] = None, *, direction: Union[Direction, str] = "increasing",
          limit: Optional[int] = None, reset: Any = None, labels: Any = None) -> da.Array:
    """Lazy forward fill of a Dask array: each NaN takes the last number before it in the walk, every chunk filled by
    :func:`simdscan.ffill` and the last number carried across chunks (see the module's description).

    Parameters
    ----------
    a : dask.array.Array
        Input data (anything else is wrapped by :func:`dask.array.asarray`). Chunk sizes must be known. Floating and
        complex types are filled; integer and bool arrays have no NaN and come back as they are.
    axis : int or None, optional
        The axis to fill along; None fills the C-order flattened array, as :func:`cumsum` flattens it.
    direction : {"increasing", "decreasing"} or simdscan.Direction
        The order of the walk: "decreasing" is the backward fill, each NaN taking the first number after it.
    limit : int, optional
        At most this many consecutive NaNs in the walk are filled after each number, counted across chunk boundaries.
    reset : array_like or dask.array.Array, optional
        As :func:`cumsum`: a fill never crosses the start of a segment.
    labels : array_like or dask.array.Array, optional
        As :func:`cumsum`: each NaN takes the last number of its own group, and ``limit`` counts the group's NaNs, the
        group's last number and count carried across chunks.

    Returns
    -------
    dask.array.Array
        The lazy result, of ``a``'s dtype and with its chunks (for an int ``axis``). Computed, it equals
        ``simdscan.ffill(a.compute(), axis, ...)`` bit for bit (the NaNs left too), whatever the chunking.

    Raises
    ------
    numpy.exceptions.AxisError, ValueError, TypeError
        As :func:`simdscan.ffill`, at once; but a Dask ``reset``'s values other than 0 and 1, and a Dask
        ``labels``' negative values, raise ValueError when they are computed.

    Examples
    --------
    >>> x = da.from_array(np.array([np.nan, 1.0, np.nan, np.nan, np.nan, 2.0, np.nan]), chunks=2)
    >>> simdscan.dask.ffill(x).compute()
    array([nan,  1.,  1.,  1.,  1.,  2.,  2.])
    >>> simdscan.dask.ffill(x, limit=2).compute()
    array([nan,  1.,  1.,  1., nan,  2.,  2.])
    >>> simdscan.dask.ffill(x, direction="decreasing", reset=[0, 0, 0, 0, 1, 0, 0]).compute()
    array([ 1.,  1., nan, nan,  2.,  2., nan])
    >>> simdscan.dask.ffill(x, labels=[0, 0, 1, 0, 1, 1, 0]).compute()
    array([nan,  1., nan,  1., nan,  2.,  1.])
    """
    return _ffill(a, axis, direction, limit, reset, labels)


def linear_recurrence(a: Any, b: da.Array, axis: Optional[int] = -1, *, direction: Union[Direction, str] = "increasing",
                      exclusive: bool = False, initial: Any = None, reset: Any = None, dtype: Any = None) -> da.Array:
    """Lazy :func:`simdscan.linear_recurrence` of a Dask array: ``y[i] = a[i] * y[i-1] + b[i]`` along an axis, the
    state carried across chunks (see the module's description).

    Parameters
    ----------
    a : scalar, array_like or dask.array.Array
        The coefficients, broadcast to ``b`` and put in its chunks; a scalar is the same for every element.
    b : dask.array.Array
        The inputs (anything else is wrapped by :func:`dask.array.asarray`). Chunk sizes must be known.
    axis, direction, exclusive, dtype
        As :func:`simdscan.linear_recurrence`.
    initial : scalar, array_like or dask.array.Array, optional
        The state before each line's first element in the walk (default 0), broadcast to ``b``'s shape without
        ``axis``; a Dask one stays lazy.
    reset : array_like or dask.array.Array, optional
        As :func:`simdscan.linear_recurrence` (each segment from ``initial``); a Dask reset stays lazy, its values
        checked as it is computed.

    Returns
    -------
    dask.array.Array
        The lazy result, with ``b``'s chunks. Computed, it equals ``simdscan.linear_recurrence`` of the computed
        arrays but for rounding (the chunks' pairs composed in another order).

    Raises
    ------
    numpy.exceptions.AxisError, ValueError, TypeError
        As :func:`simdscan.linear_recurrence`, at once (while building the graph); but a Dask ``reset``'s values
        other than 0 and 1 raise ValueError when they are computed.

    Examples
    --------
    >>> simdscan.dask.linear_recurrence(0.5, da.ones(6, chunks=2), initial=4.0).compute()
    array([3.     , 2.5    , 2.25   , 2.125  , 2.0625 , 2.03125])
    >>> simdscan.dask.linear_recurrence(0.5, da.ones(6, chunks=2), reset=[0, 0, 0, 1, 0, 0]).compute()
    array([1.  , 1.5 , 1.75, 1.  , 1.5 , 1.75])
    """
    return _dask_recurrence.linear_recurrence(a, b, axis, direction=direction, exclusive=exclusive, initial=initial,
                                              reset=reset, dtype=dtype)


def discounted_cumsum(x: da.Array, gamma: Any, axis: Optional[int] = -1, *, reset: Any = None) -> da.Array:
    """Lazy :func:`simdscan.discounted_cumsum` of a Dask array: ``G[i] = x[i] + gamma[i] * G[i+1]``, the returns
    carried across chunks from the end (:func:`linear_recurrence`, decreasing).

    Examples
    --------
    >>> rewards = da.ones(6, chunks=4)
    >>> simdscan.dask.discounted_cumsum(rewards, 0.5, reset=[0, 0, 0, 1, 0, 0]).compute()
    array([1.75, 1.5 , 1.  , 1.75, 1.5 , 1.  ])
    """
    return _dask_recurrence.discounted_cumsum(x, gamma, axis, reset=reset)


def ewm_mean(x: da.Array, axis: int = -1, *, com: Optional[float] = None, span: Optional[float] = None,
             halflife: Optional[float] = None, alpha: Optional[float] = None, adjust: bool = True,
             ignore_na: bool = False) -> da.Array:
    """Lazy :func:`simdscan.ewm_mean` of a Dask array (pandas' ``ewm(...).mean()`` along each line): its two
    recurrences (adjust=True: the weighted totals and the weights; adjust=False: the per-element coefficients) carried
    across chunks as :func:`linear_recurrence` carries them.

    Examples
    --------
    >>> x = da.from_array(np.array([1.0, 2.0, np.nan, 4.0]), chunks=1)
    >>> simdscan.dask.ewm_mean(x, alpha=0.5).compute()
    array([1.        , 1.66666667, 1.66666667, 3.36363636])
    """
    return _dask_recurrence.ewm_mean(x, axis, com=com, span=span, halflife=halflife, alpha=alpha, adjust=adjust,
                                     ignore_na=ignore_na)
