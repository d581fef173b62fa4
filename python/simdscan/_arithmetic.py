"""Running sums and products: DirectML's two cumulative operators, cumsum and cumprod.

Plain functions of NumPy arrays: simdscan's public ones are made from them in _public.py, by their entries in _ops.OPS
(whose ``fast`` names the calls each body hands straight to ``_core.scan``: keep the two in step)."""

from __future__ import annotations

from typing import Any, Optional, Tuple, Union

import numpy as np

from ._axes import core_scan, scan_along
from ._runtime import Direction

#: ``axis``: one axis, several (scanned in turn), or None (the flattened array)
Axis = Union[int, Tuple[int, ...], None]
#: ``direction``: one for every axis, or a tuple with one per axis
Directions = Union[Direction, str, Tuple[Union[Direction, str], ...]]
#: ``exclusive``: one for every axis, or a tuple with one per axis
Exclusives = Union[bool, Tuple[bool, ...]]


# simdscan's sum and product along one axis (or None), straight to the core.
_cumsum_axis = core_scan("add")
_cumprod_axis = core_scan("multiply")


def cumsum(a: Any, axis: Axis = None, *, direction: Directions = "increasing", exclusive: Exclusives = False,
           dtype: Any = None, out: Optional[np.ndarray] = None, compensated: bool = False,
           reset: Any = None, labels: Any = None) -> np.ndarray:
    """Cumulative sum along an axis, as DirectML's DML_CUMULATIVE_SUMMATION_OPERATOR_DESC.

    One pass of SIMD kernels over ``a``: scans the axis in increasing or decreasing index order, inclusive or
    exclusive, in the input's own dtype, into a new array or into ``out`` (``out=a``: in place).

    Parameters
    ----------
    a : array_like
        Input data: anything :func:`numpy.asarray` accepts (lists, scalars, arrays of any layout: strided,
        transposed, reversed, broadcast, byte-swapped, read-only). A contiguous input is never copied, and ``a``
        is never modified unless it is also ``out``. An ndarray subclass (``numpy.matrix`` included) gives its own
        type back, through ``__array_wrap__`` as :func:`numpy.cumsum` does. A :class:`numpy.ma.MaskedArray` is
        scanned with its masked elements as the identity (0 here; 1 for products, the dtype's lowest or highest
        value for running extrema, -inf for :func:`logcumsumexp`), and the result is masked where ``a`` is, as
        :func:`numpy.ma.cumsum` does. A :class:`dask.array.Array` goes to :func:`simdscan.dask.cumsum`, lazily
        (``out=`` is then a TypeError). Every scan of simdscan takes them so.
    axis : int, tuple of ints or None, default None
        DirectML's ``Axis``: the axis to scan; negative counts from the end. ``None`` scans the C-order
        flattened array and returns it 1-D, as :func:`numpy.cumsum` does; a 0-d input is scanned as shape (1,).
        A tuple scans along each of its axes in turn, the first from ``a`` into the result and the others in place
        on it: ``axis=(0, 1)`` gives a summed-area table (integral image). A repeated axis: ValueError.
    direction : {"increasing", "decreasing"} or Direction, default "increasing"
        DirectML's ``AxisDirection``: the order in which the running total walks the axis.
        ``"increasing"`` walks from index 0 up: out[i] totals x[0] .. x[i].
        ``"decreasing"`` walks from index n-1 down: out[i] totals x[i] .. x[n-1] (what NumPy spells
        ``flip(cumsum(flip(x)))``). :class:`Direction` members work as well. With a tuple ``axis``: one direction
        for all its axes, or a tuple with one per axis (of the wrong length: ValueError).
    exclusive : bool, default False
        DirectML's ``HasExclusiveSum``. False (inclusive): each element is part of the total written at its own
        index. True (exclusive): it is left out, so out[i] totals only the elements before it in the walk:
        increasing x[0] .. x[i-1], decreasing x[i+1] .. x[n-1]. The first output of the walk (out[0] increasing,
        out[n-1] decreasing) totals nothing and is the identity, 0. The result keeps ``a``'s length along the
        axis (unlike ``numpy.cumulative_sum(include_initial=True)``, which adds one; see :func:`cumulative_sum`).
        With a tuple ``axis``: one flag for all its axes, or a tuple with one per axis.
    dtype : data-type, optional
        The dtype to scan in and to return; ``a`` is cast to it as NumPy casts (read as it is and converted on the
        way where the dtype holds every value of ``a`` exactly, e.g. uint8 to int32; cast first by ``astype``
        otherwise). Default: ``a``'s own dtype
        (DirectML's rule: int32 in, int32 out, where :func:`numpy.cumsum` widens to int64), except that bool
        input gives NumPy's default integer. Integers wrap modulo 2**bits; float16 accumulates in float32 and
        is rounded once per output. Supported: float16/32/64, complex64/128, int8 .. int64, uint8 .. uint64
        and bool, in either byte order.
    out : ndarray, optional
        Where to write the result: an ndarray of the result's shape and dtype, writable, with any strides.
        ``out=a`` scans in place, as DirectML allows; an ``out`` that partly overlaps ``a`` still gets the right
        answer. When the call raises, ``out`` is left untouched. With a masked ``a``, a masked ``out`` gets the
        mask too, an ndarray the values only (as in NumPy).
    compensated : bool, default False
        Beyond DirectML: accumulate floating and complex sums with Neumaier's compensation (the rounding error of
        every addition is kept aside and added back), in the result dtype. Each output is then within
        2*u*sum|x_j| of the exact total of its m terms (u: the dtype's unit roundoff, plus a negligible
        O(m*u**2) term): its accuracy no longer degrades with the length of the axis, where the plain scan's
        bound is m*u*sum|x_j|. Every layout, direction and mode is compensated and vectorized (complex sums run
        scalar, as in the plain scan); float16, float32 and complex64 accumulate in double precision. Integer
        sums are exact already: the flag changes nothing for them. Costs about 2x (float32) to 4x (float64) the
        plain scan's time, in cache or out: the compensated kernels are compute-bound (see
        benchmarks/README.md).
    reset : array_like, optional
        Beyond DirectML: a segmented scan. Bool, or integer or floating 0s and 1s (an RL ``dones`` array, say),
        broadcast to ``a``'s shape (and flattened with it for ``axis=None``): True at index i begins a new segment
        at element i, in index order whatever the direction, and each segment of each line is scanned on its own:
        bit for bit as if it were an array of its own for integers, extrema and complex, compensated and
        logarithmic sums, and for floating sums and products of segments of 4 KiB or more; shorter floating ones
        are added in vectors laid from the line's start (within rounding of their own scan, and the same bits for
        every layout and thread count). ``exclusive`` gives each segment's first element in the walk the identity
        (its last element in index order when decreasing). Every scan of simdscan takes it, with every layout,
        ``out=``, thread count and flag, but not with a tuple ``axis``.
    labels : array_like of int, optional
        Beyond DirectML: a grouped scan, as pandas' ``groupby(labels).cumsum()`` along every line. Integers >= 0
        of any value, broadcast to ``a``'s shape (and flattened with it for ``axis=None``): each output is the
        scan, in the walk's order, of the elements of its line that carry its label, up to it (``exclusive``:
        before it, a group's first element in the walk taking the identity). Groups are scanned element by element
        in their own order, so each equals the scan of the group gathered on its own (:func:`numpy.cumsum`'s bits
        for float32 and float64 sums). Memory grows with the distinct labels of a line, never with the largest
        label. Every scan of simdscan takes it, as ``reset`` (not both at once); lines run in parallel, each on
        one thread.

    Returns
    -------
    ndarray
        ``out`` itself if given, else a new array of ``a``'s shape (1-D for ``axis=None``) in the result dtype.

    Raises
    ------
    numpy.exceptions.AxisError
        ``axis`` is out of range.
    ValueError
        ``direction`` is a string other than "increasing" / "decreasing"; ``out`` has the wrong shape or is
        read-only; a tuple ``axis`` is empty or repeats an axis, or a tuple ``direction`` / ``exclusive`` has not
        one entry per axis; ``reset`` holds a value other than 0 and 1, does not broadcast to ``a``, or comes with
        a tuple ``axis``; ``labels`` holds a negative value, does not broadcast to ``a``, or comes with a tuple
        ``axis`` or with ``reset``.
    TypeError
        ``direction`` is neither a string nor a Direction; the dtype cannot be scanned (object, strings,
        datetime, void: named in the message); ``out`` is not an ndarray or has the wrong dtype; a tuple ``axis``
        has a non-integer entry (None included); ``direction`` or ``exclusive`` is a tuple for an int ``axis``;
        ``reset`` is neither bool, integer nor floating; ``labels`` are not integers (bool included).

    See Also
    --------
    cumprod : The cumulative product, with the same flags.
    simdscan.dask.cumsum : The same scan over a chunked Dask array.
    numpy.cumsum : Increasing and inclusive only; widens narrow integers.

    Notes
    -----
    The four cases. For an axis of length n, ``direction`` and ``exclusive`` pick which elements enter the total
    written at index i; the sum of each output for ``x = [1, 2, 3, 4]`` is spelled out. An empty range gives the
    identity: 0 for the sum, 1 for the product. ::

                               out[i] is the total of  out[0]   out[1]  out[2]  out[3]    cumsum          cumprod
        increasing, inclusive  x[0]   ... x[i]         1        1+2     1+2+3   1+2+3+4   [1, 3, 6, 10]   [1, 2, 6, 24]
        increasing, exclusive  x[0]   ... x[i-1]       0        1       1+2     1+2+3     [0, 1, 3, 6]    [1, 1, 2, 6]
        decreasing, inclusive  x[i]   ... x[n-1]       1+2+3+4  2+3+4   3+4     4         [10, 9, 7, 4]   [24, 24, 12, 4]
        decreasing, exclusive  x[i+1] ... x[n-1]       2+3+4    3+4     4       0         [9, 7, 4, 0]    [24, 12, 4, 1]

    Floating-point results stay within the recursive-summation error bound (``|got - exact| <= m*u*sum|x_j|`` over
    an output's m terms); NaN and inf propagate as in NumPy. The GIL is released for inputs of 16Ki elements or
    more, and large scans split across simdscan's thread pool (:func:`set_num_threads`); results do not depend
    on the thread count.

    Examples
    --------
    The four cases:

    >>> import numpy as np
    >>> import simdscan
    >>> x = np.array([1, 2, 3, 4])
    >>> simdscan.cumsum(x)
    array([ 1,  3,  6, 10])
    >>> simdscan.cumsum(x, exclusive=True)
    array([0, 1, 3, 6])
    >>> simdscan.cumsum(x, direction="decreasing")
    array([10,  9,  7,  4])
    >>> simdscan.cumsum(x, direction=simdscan.Direction.DECREASING, exclusive=True)
    array([9, 7, 4, 0])

    DirectML's example, sizes {1, 1, 3, 4}, along axis 3 and along axis 2:

    >>> t = np.array([[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]], dtype=np.float32).reshape(1, 1, 3, 4)
    >>> simdscan.cumsum(t, axis=3, exclusive=True)
    array([[[[ 0.,  2.,  3.,  6.],
             [ 0.,  3., 11., 18.],
             [ 0.,  9., 15., 17.]]]], dtype=float32)
    >>> simdscan.cumsum(t, axis=2)
    array([[[[ 2.,  1.,  3.,  5.],
             [ 5.,  9., 10.,  8.],
             [14., 15., 12., 12.]]]], dtype=float32)

    ``axis=None`` scans the flattened array:

    >>> simdscan.cumsum([[1, 2], [3, 4]])
    array([ 1,  3,  6, 10])

    The dtype is kept (integers wrap), or chosen with ``dtype=``; float16 sums in float32:

    >>> simdscan.cumsum(np.array([100, 100, 100], dtype=np.int8))
    array([100, -56,  44], dtype=int8)
    >>> simdscan.cumsum([1, 2, 3], dtype=np.float32)
    array([1., 3., 6.], dtype=float32)
    >>> ones = np.ones(4096, dtype=np.float16)
    >>> float(simdscan.cumsum(ones)[-1]), float(np.cumsum(ones)[-1])
    (4096.0, 2048.0)

    In place, with ``out=``:

    >>> y = np.arange(1, 7, dtype=np.int32).reshape(2, 3)
    >>> simdscan.cumsum(y, axis=1, out=y) is y
    True
    >>> y
    array([[ 1,  3,  6],
           [ 4,  9, 15]], dtype=int32)

    Several axes: a summed-area table (integral image), in one call. OpenCV's ``cv2.integral(img, sdepth=CV_32S)``
    is ``(H+1, W+1)`` with a zero first row and column: write into a view of such an array, or take the exclusive
    table, which is that array without its last row and column:

    >>> img = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.uint8)
    >>> simdscan.cumsum(img, axis=(0, 1), dtype=np.int32)
    array([[ 1,  3,  6],
           [ 5, 12, 21]], dtype=int32)
    >>> integral = np.zeros((3, 4), dtype=np.int32)  # cv2.integral(img, sdepth=cv2.CV_32S)
    >>> _ = simdscan.cumsum(img, axis=(0, 1), dtype=np.int32, out=integral[1:, 1:])
    >>> integral
    array([[ 0,  0,  0,  0],
           [ 0,  1,  3,  6],
           [ 0,  5, 12, 21]], dtype=int32)
    >>> simdscan.cumsum(img, axis=(0, 1), exclusive=True, dtype=np.float64)
    array([[0., 0., 0.],
           [0., 1., 3.]])

    and one direction or flag per axis (here: each row's total of the rows above it, from the right):

    >>> simdscan.cumsum(img, axis=(0, 1), direction=("increasing", "decreasing"), exclusive=(True, False))
    array([[0, 0, 0],
           [6, 5, 3]], dtype=uint8)

    Segments: a running total that starts again wherever ``reset`` is true (per episode, per run):

    >>> simdscan.cumsum([1, 2, 3, 4, 5], reset=[0, 0, 1, 0, 0])
    array([ 1,  3,  3,  7, 12])
    >>> simdscan.cumsum([1, 2, 3, 4, 5], reset=[0, 0, 1, 0, 0], direction="decreasing", exclusive=True)
    array([2, 0, 9, 5, 0])

    Groups: a running total per label, in the original order (per customer, per sensor):

    >>> simdscan.cumsum([1, 2, 3, 4, 5], labels=[7, 0, 7, 0, 7])
    array([1, 2, 4, 6, 9])

    Compensated: float32 sums that do not drift with length:

    >>> tenths = np.full(10**7, 0.1, dtype=np.float32)
    >>> float(simdscan.cumsum(tenths)[-1]) == 1e6, float(simdscan.cumsum(tenths, compensated=True)[-1]) == 1e6
    (False, True)
    """
    return scan_along("add", False, a, axis, direction, exclusive, out, dtype, compensated, reset, labels)


def cumprod(a: Any, axis: Axis = None, *, direction: Directions = "increasing", exclusive: Exclusives = False,
            dtype: Any = None, out: Optional[np.ndarray] = None, reset: Any = None, labels: Any = None) -> np.ndarray:
    """Cumulative product along an axis, as DirectML's DML_CUMULATIVE_PRODUCT_OPERATOR_DESC.

    Parameters, results and errors are those of :func:`cumsum` (``help(simdscan.cumsum)`` draws the four cases of
    ``direction`` and ``exclusive`` for both operators), with the product in place of the sum: an empty
    exclusive range gives the identity 1.

    There is no ``compensated`` flag (passing one raises TypeError): a running product's relative error already
    grows only as m*u with no cancellation to amplify it, so Neumaier's compensation, which recovers what
    cancelling sums lose, has nothing to give it.

    See Also
    --------
    cumsum : Every flag explained, with the four cases.
    simdscan.dask.cumprod, numpy.cumprod : Over a chunked Dask array; NumPy's (increasing, inclusive, widening).

    Examples
    --------
    The four cases:

    >>> import simdscan
    >>> for direction in ("increasing", "decreasing"):
    ...     for exclusive in (False, True):
    ...         print(direction, exclusive, simdscan.cumprod([1, 2, 3, 4], direction=direction, exclusive=exclusive))
    increasing False [ 1  2  6 24]
    increasing True [1 1 2 6]
    decreasing False [24 24 12  4]
    decreasing True [24 12  4  1]

    A running product over rectangles, with a tuple ``axis`` (see :func:`cumsum`):

    >>> import numpy as np
    >>> simdscan.cumprod(np.array([[1, 2], [3, 4]]), axis=(0, 1))
    array([[ 1,  2],
           [ 3, 24]])

    DirectML's example, sizes {1, 1, 3, 4}, decreasing along axis 3:

    >>> t = np.array([[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]], dtype=np.float32).reshape(1, 1, 3, 4)
    >>> simdscan.cumprod(t, axis=3, direction=simdscan.Direction.DECREASING)
    array([[[[ 30.,  15.,  15.,   5.],
             [504., 168.,  21.,   3.],
             [432.,  48.,   8.,   4.]]]], dtype=float32)
    """
    return scan_along("multiply", False, a, axis, direction, exclusive, out, dtype, False, reset, labels)
