"""First-order linear recurrences: linear_recurrence, discounted_cumsum and ewm_mean, each line through the core's
recurrence kernels (pairs (a, b) composed a vector at a time)."""

from __future__ import annotations

import math
from typing import Any, Callable, Optional, Union

import numpy as np

from . import _core
from ._array_types import takes_array_types, takes_array_types_as
from ._axes import is_decreasing, normalize_axis
from ._extrema import cummax
from ._fill import check_out
from ._runtime import Direction
from ._segments import reset_flags


def _is_weak(x: Any) -> bool:
    """Python numbers (bool included) take the other operands' precision (NEP 50); NumPy scalars and arrays keep
    their own."""
    return isinstance(x, (bool, int, float, complex))


def _floating(dtype: np.dtype) -> np.dtype:
    """The dtype an operand of ``dtype`` takes part in the result's as: integers and bool as float64."""
    if dtype.kind in "biu":
        return np.dtype(np.float64)
    if dtype.kind in "fc" and dtype.itemsize <= 16 and dtype.char not in "gG":
        return dtype.newbyteorder("=")
    raise TypeError(f"linear recurrences take floating, complex, integer and bool data, not dtype {dtype}")


def _result_dtype(operands: list[Any], dtype: Any) -> np.dtype:
    """The result type of the operands under the recurrence's rules (integers and bool as float64, Python numbers
    weak), or ``dtype`` (floating or complex) where given."""
    if dtype is not None:
        result = np.dtype(dtype)
        if result.kind not in "fc" or result.char in "gG":
            raise TypeError(f"dtype must be float16/32/64 or complex64/128, not {result}")
        native: np.dtype = result.newbyteorder("=")
        return native
    promoted: np.dtype = np.result_type(*(x if _is_weak(x) else _floating(np.asarray(x).dtype) for x in operands))
    return promoted


def _lines_of(out: Optional[np.ndarray], along: int, compute: np.dtype) -> Optional[np.ndarray]:
    """``out`` as (lines, n) rows along ``along`` that the core writes itself, where it is laid out so (C-contiguous
    once the axis is moved last, native, of the compute dtype), else None."""
    if out is None:
        return None
    moved = np.moveaxis(out, along, -1)
    if moved.dtype != compute or not moved.flags.c_contiguous or moved.size == 0:
        return None
    return moved.reshape(-1, moved.shape[-1])


def _apart(lines: np.ndarray, target: Optional[np.ndarray]) -> np.ndarray:
    """An operand's lines, copied where they overlap the output's other than as the very same view (in place, each
    element is read before its output is written)."""
    if target is None or not np.may_share_memory(lines, target):
        return lines
    same = lines.__array_interface__["data"] == target.__array_interface__["data"] and lines.strides == target.strides
    return lines if same else lines.copy()


def _broadcast(value: Any, shape: tuple[int, ...], name: str, target: str) -> np.ndarray:
    try:
        return np.broadcast_to(value, shape)
    except ValueError:
        raise ValueError(f"{name} of shape {np.shape(value)} does not broadcast to {target} {shape}") from None


@takes_array_types_as("b")
def linear_recurrence(a: Any, b: Any, axis: int = -1, *, direction: Union[Direction, str] = "increasing",
                      exclusive: bool = False, initial: Any = None, reset: Any = None, dtype: Any = None,
                      out: Optional[np.ndarray] = None) -> np.ndarray:
    """The first-order linear recurrence ``y[i] = a[i] * y[i-1] + b[i]`` along an axis: exponential smoothing,
    first-order IIR filters (``scipy.signal.lfilter([1], [1, -a], b)``), discounted returns, the scans of linear
    state-space models.

    The pairs (a, b) compose associatively, so the kernels scan them a vector at a time (about as fast as a copy),
    never one element after another.

    Parameters
    ----------
    a : array_like or scalar
        The coefficients, broadcast to ``b``'s shape; a scalar is the same for every element.
    b : array_like
        The inputs.
    axis : int, default -1
        The axis along which the recurrence runs.
    direction : {"increasing", "decreasing"} or Direction, default "increasing"
        ``"decreasing"`` runs from the end: ``y[i] = a[i] * y[i+1] + b[i]``.
    exclusive : bool, default False
        Each output is the state before its element (``initial`` first in the walk), not after it.
    initial : array_like or scalar, optional
        The state before each line's first element in the walk (default 0): a scalar, or an array broadcast to
        the shape of ``b`` without ``axis``.
    reset : array_like, optional
        Segments, as for :func:`cumsum`: True at index i begins a new segment at element i (in index order, whatever
        the direction); each segment starts again from ``initial``.
    dtype : data-type, optional
        The result's dtype (floating or complex). Default: the result type of ``a``, ``b`` and ``initial``, with
        integers and bool as float64 and Python numbers taking the others' precision (NumPy 2's rules, NEP 50).
        float16 is computed in float32 and rounded once per output; the others in their own precision.
    out : ndarray, optional
        Where to write the result (its shape and dtype; ``out=b`` runs in place).

    Returns
    -------
    ndarray
        ``out`` if given, else a new array of ``b``'s shape.

    Raises
    ------
    TypeError
        A dtype that is neither floating, complex, integer nor bool (or ``dtype`` not floating or complex); ``out``
        not an ndarray or of another dtype.
    ValueError
        ``a``, ``initial`` or ``reset`` do not broadcast; ``reset`` holds a value other than 0 and 1; ``out`` of
        another shape or read-only.
    numpy.exceptions.AxisError
        ``axis`` is out of range.

    Examples
    --------
    >>> import numpy as np
    >>> import simdscan
    >>> simdscan.linear_recurrence(0.5, [1.0, 1.0, 1.0, 1.0])
    array([1.   , 1.5  , 1.75 , 1.875])
    >>> simdscan.linear_recurrence([1.0, 2.0, 0.5], [1.0, 1.0, 1.0], initial=1.0)
    array([2. , 5. , 3.5])
    >>> simdscan.linear_recurrence(0.5, [1.0, 1.0, 1.0, 1.0], reset=[0, 0, 1, 0], exclusive=True)
    array([0., 1., 0., 1.])
    """
    values = np.asarray(b)
    a_given = a if _is_weak(a) else np.asarray(a)
    initial_given: Any = 0 if initial is None else initial if _is_weak(initial) else np.asarray(initial)
    result_dtype = _result_dtype([a_given, values, initial_given], dtype)
    compute = np.dtype(np.float32) if result_dtype == np.float16 else result_dtype
    reverse = is_decreasing(direction)
    if values.ndim == 0:
        values = values.reshape(1)
    along = normalize_axis(axis, values.ndim)
    shape = values.shape
    line_shape = shape[:along] + shape[along + 1:]
    scalar_a = np.ndim(a_given) == 0
    coefficients = None if scalar_a else _broadcast(a_given, shape, "a", "b's shape")
    states = _broadcast(initial_given, line_shape, "initial", "the line shape")
    flags = reset_flags(reset, shape, along)
    if out is not None:
        check_out(out, shape, result_dtype)
    if values.size == 0:
        return np.empty(shape, result_dtype) if out is None else out

    n = shape[along]
    b_lines = np.ascontiguousarray(np.moveaxis(values, along, -1), dtype=compute).reshape(-1, n)
    a_lines = None if coefficients is None else (
        np.ascontiguousarray(np.moveaxis(coefficients, along, -1), dtype=compute).reshape(-1, n))
    a_value = None if a_lines is not None else compute.type(a_given)
    initial_lines = np.ascontiguousarray(states, dtype=compute).reshape(-1)
    reset_lines = None if flags is None else np.ascontiguousarray(np.moveaxis(flags, along, -1)).reshape(-1, n)

    target = _lines_of(out, along, compute)
    b_lines = _apart(b_lines, target)
    a_lines = None if a_lines is None else _apart(a_lines, target)
    if target is not None and np.may_share_memory(initial_lines, target):
        initial_lines = initial_lines.copy()  # read again at every chunk and segment, after out's writes began
    direct = target is not None
    target = target if target is not None else np.empty(b_lines.shape, compute)
    _core.linear_recurrence(a_lines, a_value, b_lines, initial_lines, reset_lines, target, reverse, bool(exclusive))
    if direct:
        return out  # type: ignore[return-value]
    moved_shape = line_shape + (n,)
    result = np.moveaxis(target.reshape(moved_shape), -1, along)
    if out is not None:
        np.copyto(out, result, casting="unsafe")
        return out
    return np.ascontiguousarray(result, dtype=result_dtype)


@takes_array_types
def discounted_cumsum(x: Any, gamma: Any, axis: int = -1, *, reset: Any = None,
                      out: Optional[np.ndarray] = None) -> np.ndarray:
    """Discounted returns ``G[i] = x[i] + gamma[i] * G[i+1]``: :func:`linear_recurrence` from the end.

    Parameters
    ----------
    x : array_like
        The rewards.
    gamma : array_like or scalar
        The discount, broadcast to ``x``'s shape.
    axis : int, default -1
        The time axis.
    reset : array_like, optional
        True at each episode's first step (``reset[1:] = dones[:-1]`` for a ``dones`` array that marks each
        episode's last step): returns never leak from one episode into the one before it.
    out : ndarray, optional
        Where to write the result, as for :func:`linear_recurrence`.

    Examples
    --------
    >>> import simdscan
    >>> simdscan.discounted_cumsum([1.0, 1.0, 1.0, 1.0], 0.5, reset=[0, 0, 1, 0])
    array([1.5, 1. , 1.5, 1. ])
    """
    return linear_recurrence(gamma, x, axis, direction="decreasing", reset=reset, out=out)


def _alpha(com: Optional[float], span: Optional[float], halflife: Optional[float], alpha: Optional[float]) -> float:
    """The smoothing factor of exactly one of pandas' four parameters, checked as pandas checks them."""
    given = [name for name, value in (("com", com), ("span", span), ("halflife", halflife), ("alpha", alpha))
             if value is not None]
    if len(given) != 1:
        raise ValueError(f"ewm_mean takes exactly one of com, span, halflife and alpha, got {len(given)}")
    if com is not None:
        if com < 0:
            raise ValueError("comass must satisfy: comass >= 0")
        return 1.0 / (1.0 + com)
    if span is not None:
        if span < 1:
            raise ValueError("span must satisfy: span >= 1")
        return 2.0 / (span + 1.0)
    if halflife is not None:
        if halflife <= 0:
            raise ValueError("halflife must satisfy: halflife > 0")
        return 1.0 - math.exp(-math.log(2.0) / halflife)
    assert alpha is not None
    if not 0 < alpha <= 1:
        raise ValueError("alpha must satisfy: 0 < alpha <= 1")
    return float(alpha)


def ewm_dtypes(dtype: np.dtype) -> tuple[np.dtype, np.dtype]:
    """ewm_mean's result dtype for data of ``dtype`` (its floating dtype; integers and bool as float64) and the dtype
    it computes in (float32 for float16); TypeError for complex or non-numeric data."""
    if dtype.kind == "c":
        raise TypeError("ewm_mean takes real data, not complex")
    result = _floating(dtype)
    return result, np.dtype(np.float32) if result == np.float16 else result


def ewm_terms(values: Any, along: int, smoothing: float, adjust: bool, ignore_na: bool, positions: Any,
              running_max: Callable[..., Any]) -> tuple[Any, ...]:
    """The recurrences of :func:`ewm_mean`, from ``values`` (in the compute dtype), for NumPy and Dask arrays alike
    (``positions``: each element's index along ``along``, broadcast to ``values``; ``running_max(x, axis,
    exclusive=False)``: cummax).

    adjust=True: (aging, observed, seen), the means ``recurrence(aging, observed) / recurrence(aging, seen)``, the
    weighted totals of the values and of their weights. adjust=False: (coefficient, term, unseen), the means
    ``recurrence(coefficient, term)``, NaN where ``unseen`` (no value yet in the line)."""
    compute = values.dtype
    seen = np.isfinite(values)  # pandas takes +-inf for missing, as NaN
    observed = np.where(seen, values, compute.type(0))
    decay = compute.type(1.0 - smoothing)
    if adjust:
        aging: Any = np.where(seen, decay, compute.type(1)) if ignore_na else decay
        return aging, observed, seen.astype(compute)
    last = running_max(np.where(seen, positions, -1), along, exclusive=True)
    steps: Any = 1 if ignore_na else np.where(last < 0, 1, positions - last)
    kept = np.float64(decay) ** steps
    carried = np.where(last < 0, 0.0, kept / (kept + smoothing)).astype(compute)
    coefficient = np.where(seen, carried, compute.type(1))
    return coefficient, np.where(seen, (1 - carried) * observed, compute.type(0)), (last < 0) & ~seen


@takes_array_types
def ewm_mean(x: Any, axis: int = -1, *, com: Optional[float] = None, span: Optional[float] = None,
             halflife: Optional[float] = None, alpha: Optional[float] = None, adjust: bool = True,
             ignore_na: bool = False, out: Optional[np.ndarray] = None) -> np.ndarray:
    """Exponentially weighted mean along an axis: pandas' ``Series.ewm(...).mean()`` (``min_periods=0``) on every
    line, as linear recurrences.

    Parameters
    ----------
    x : array_like
        The data; NaN and +-inf mark a missing value, as in pandas.
    axis : int, default -1
        The axis along which to average.
    com, span, halflife, alpha : float, optional
        Exactly one: the decay, as pandas takes it (``alpha = 1 / (1 + com) = 2 / (span + 1) =
        1 - exp(-ln 2 / halflife)``).
    adjust : bool, default True
        pandas' ``adjust``: weights ``(1 - alpha)**k`` normalized over the values seen (True), or the recursion
        ``y = (1 - alpha) * y + alpha * x`` (False).
    ignore_na : bool, default False
        pandas' ``ignore_na``: whether missing values leave the weights alone (True) or age them (False).
    out : ndarray, optional
        Where to write the result (the result's shape and dtype).

    Returns
    -------
    ndarray
        The means, in ``x``'s floating dtype (float16 and float32 computed in float32; integers and bool as
        float64): NaN before a line's first value, the last mean at a missing value after it.

    Raises
    ------
    ValueError
        None or several of com, span, halflife and alpha, or one out of its range (as pandas says); ``out`` of
        another shape or read-only.
    TypeError
        Complex or non-numeric data; ``out`` not an ndarray or of another dtype.

    Examples
    --------
    >>> import numpy as np
    >>> import simdscan
    >>> simdscan.ewm_mean([1.0, 2.0, np.nan, 4.0], alpha=0.5)
    array([1.        , 1.66666667, 1.66666667, 3.36363636])
    """
    smoothing = _alpha(com, span, halflife, alpha)
    data = np.asarray(x)
    result_dtype, compute = ewm_dtypes(data.dtype)
    if data.ndim == 0:
        data = data.reshape(1)
    along = normalize_axis(axis, data.ndim)
    if out is not None:
        check_out(out, data.shape, result_dtype)
    if data.size == 0:
        return np.empty(data.shape, result_dtype) if out is None else out
    decay = compute.type(1.0 - smoothing)
    if adjust:
        # One pass: the weighted sums of the values and of their weights, and their quotient (the core's kernel).
        n = data.shape[along]
        target = _lines_of(out, along, compute)
        lines = _apart(np.ascontiguousarray(np.moveaxis(data, along, -1), dtype=compute).reshape(-1, n), target)
        quotients = target if target is not None else np.empty(lines.shape, compute)
        _core.weighted_mean(lines, quotients, float(decay), bool(ignore_na))
        if target is not None:
            return out  # type: ignore[return-value]
        means = np.moveaxis(quotients.reshape(np.moveaxis(data, along, -1).shape), -1, along)
    else:
        values = data.astype(compute, copy=False)
        shape = [1] * values.ndim
        shape[along] = values.shape[along]
        coefficient, term, unseen = ewm_terms(values, along, smoothing, False, ignore_na,
                                              np.arange(values.shape[along]).reshape(shape), cummax)
        means = linear_recurrence(coefficient, term, along)
        means[np.broadcast_to(unseen, means.shape)] = np.nan
    if out is None:
        return np.ascontiguousarray(means, dtype=result_dtype)
    np.copyto(out, means, casting="unsafe")
    return out
