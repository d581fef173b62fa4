"""First-order linear recurrences: linear_recurrence, discounted_cumsum and ewm_mean, each line through the core's
recurrence kernels (pairs (a, b) composed a vector at a time)."""

from __future__ import annotations

import math
from typing import Any, Optional, Union

import numpy as np

from . import _core
from ._axes import is_decreasing, normalize_axis
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


_REAL_FLOATING = frozenset(np.dtype(t) for t in (np.float16, np.float32, np.float64))  # (native order)


def _result_dtype(operands: list[Any], dtype: Any) -> np.dtype:
    """The result type of the operands under the recurrence's rules (integers and bool as float64, Python numbers
    weak), or ``dtype`` (floating or complex) where given."""
    if dtype is not None:
        result = np.dtype(dtype)
        if result.kind not in "fc" or result.char in "gG":
            raise TypeError(f"dtype must be float16/32/64 or complex64/128, not {result}")
        native: np.dtype = result.newbyteorder("=")
        return native
    first, second = operands
    if type(first) is float and type(second) is np.ndarray and second.dtype in _REAL_FLOATING:
        return second.dtype  # (the common call, a Python float a: NumPy's answer without its cost)
    promoted: np.dtype = np.result_type(*(x if _is_weak(x) else _floating(np.asarray(x).dtype) for x in operands))
    return promoted


#: the dtypes the core computes a result in as they are (native order): an initial state of 0 in each
_ZEROS = {np.dtype(t): np.zeros((), t) for t in (np.float32, np.float64)}
_ON_THE_CORE = frozenset(_ZEROS)
_BOOL = np.dtype(np.bool_)


def _as_given(operand: Any, b: np.ndarray, dtype: np.dtype) -> bool:
    """Whether ``operand`` is None or an ndarray of ``b``'s shape and exactly ``dtype``: the core takes it as it is."""
    return operand is None or (type(operand) is np.ndarray and operand.dtype == dtype and operand.shape == b.shape)


def _check_initial(initial: Any, result: np.dtype) -> None:
    """TypeError unless ``initial`` (a Python number, or what has a dtype) casts to the ``result`` dtype by
    'same_kind' rules: a complex one only to a complex result (its dtype otherwise as :func:`_floating` takes it).
    ``initial`` takes no part in the result's dtype: it is read in it, as ``a`` and ``b`` are."""
    if _is_weak(initial):
        if isinstance(initial, complex) and result.kind != "c":
            raise TypeError(f"a complex initial does not cast to the result dtype {result} (by 'same_kind' rules)")
        return
    given = np.asarray(initial).dtype
    _floating(given)
    if not np.can_cast(given, result, casting="same_kind"):
        raise TypeError(f"initial of dtype {given} does not cast to the result dtype {result} (by 'same_kind' rules)")


def _check_casts(operand: Any, name: str, result: np.dtype) -> None:
    """TypeError unless an array ``operand`` casts to the ``result`` dtype by 'same_kind' rules (complex only to
    complex): the core reads it in its own dtype and byte order, converted a chunk at a time."""
    if not _is_weak(operand) and not np.can_cast(operand.dtype, result, casting="same_kind"):
        raise TypeError(f"{name} of dtype {operand.dtype} does not cast to the result dtype {result} "
                        "(by 'same_kind' rules)")


def _broadcast(value: Any, shape: tuple[int, ...], name: str, target: str) -> None:
    """ValueError unless ``value``'s shape broadcasts to ``shape`` (NumPy's rule, without making the view)."""
    given = np.shape(value)
    if len(given) > len(shape) or any(g not in (1, s) for g, s in zip(reversed(given), reversed(shape))):
        raise ValueError(f"{name} of shape {given} does not broadcast to {target} {shape}")


def linear_recurrence(a: Any, b: Any, axis: Optional[int] = -1, *, direction: Union[Direction, str] = "increasing",
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
        The coefficients, broadcast to ``b``'s shape (and flattened with it for ``axis=None``); a scalar is the same
        for every element.
    b : array_like
        The inputs.
    axis : int or None, default -1
        The axis along which the recurrence runs; ``None`` runs it along ``b`` flattened in C order (a view of ``b``
        where NumPy's reshape makes one), as ``numpy.cumsum(x, axis=None)`` and simdscan's other scans do, and
        returns it 1-D: ``a`` and ``reset`` are broadcast to ``b``'s shape and flattened with it, ``initial`` is a
        scalar (the line shape is then ``()``), and ``out`` has the flattened shape ``(b.size,)``.
    direction : {"increasing", "decreasing"} or Direction, default "increasing"
        ``"decreasing"`` runs from the end: ``y[i] = a[i] * y[i+1] + b[i]``.
    exclusive : bool, default False
        Each output is the state before its element (``initial`` first in the walk), not after it.
    initial : array_like or scalar, optional
        The state before each line's first element in the walk (default 0): a scalar, or an array broadcast to
        the shape of ``b`` without ``axis``. It takes no part in the result's dtype: it is cast to it by
        'same_kind' rules (read in the dtype the result is computed in), so a float64 ``initial`` is rounded to a
        float32 result, and a complex one with a real result raises TypeError.
    reset : array_like, optional
        Segments, as for :func:`cumsum`: True at index i begins a new segment at element i (in index order, whatever
        the direction); each segment starts again from ``initial``.
    dtype : data-type, optional
        The result's dtype (floating or complex). Default: the result type of ``a`` and ``b`` (never ``initial``),
        with integers and bool as float64 and Python numbers taking the others' precision (NumPy 2's rules, NEP 50).
        float16 is computed in float32 and rounded once per output; the others in their own precision.
    out : ndarray, optional
        Where to write the result (its shape and dtype; ``out=b`` runs in place).

    Returns
    -------
    ndarray
        ``out`` if given, else a new array of ``b``'s shape (1-D for ``axis=None``).

    Raises
    ------
    TypeError
        A dtype that is neither floating, complex, integer nor bool (or ``dtype`` not floating or complex); an
        ``initial`` that does not cast to the result dtype by 'same_kind' rules (complex to real); ``out`` not an
        ndarray or of another dtype.
    ValueError
        ``a``, ``initial`` or ``reset`` do not broadcast (for ``axis=None``: ``a`` and ``reset`` to ``b``'s shape,
        ``initial`` to ``()``); ``reset`` holds a value other than 0 and 1; ``out`` of another shape or read-only.
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
    >>> simdscan.linear_recurrence(0.5, [[1.0, 1.0], [1.0, 1.0]], axis=None)
    array([1.   , 1.5  , 1.75 , 1.875])
    """
    if (type(b) is np.ndarray and type(a) is float and initial is None and dtype is None and b.dtype in _ON_THE_CORE
            and b.ndim and b.size and type(axis) is int and _as_given(reset, b, _BOOL)
            and _as_given(out, b, b.dtype) and (out is None or out.flags.writeable)):
        # The common call, whose checks below all pass as they stand: straight to the core (an RL batch's overhead).
        return _core.linear_recurrence(b, np.asarray(a, b.dtype), _ZEROS[b.dtype], reset, out,
                                       normalize_axis(axis, b.ndim), is_decreasing(direction), bool(exclusive))
    values = np.asarray(b)
    a_given = a if _is_weak(a) else np.asarray(a)
    initial_given: Any = 0 if initial is None else initial if _is_weak(initial) else np.asarray(initial)
    result_dtype = _result_dtype([a_given, values], dtype)  # (initial takes no part: it is read in this dtype)
    compute = np.dtype(np.float32) if result_dtype == np.float16 else result_dtype
    _check_initial(initial_given, result_dtype)
    _check_casts(values, "b", result_dtype)
    _check_casts(a_given, "a", result_dtype)
    reverse = is_decreasing(direction)
    if values.ndim == 0:
        values = values.reshape(1)
    scalar_a = _is_weak(a_given) or np.ndim(a_given) == 0
    if axis is None:  # the C-order flattened b (a view where NumPy's reshape makes one), a and reset with it
        given_shape = values.shape
        if not scalar_a:
            _broadcast(a_given, given_shape, "a", "b's shape")
            a_given = np.broadcast_to(a_given, given_shape).reshape(-1)
        flags = reset_flags(reset, given_shape, None)
        values = values.reshape(-1)
        along = 0
    else:
        along = normalize_axis(axis, values.ndim)
        flags = None
    shape = values.shape
    line_shape = shape[:along] + shape[along + 1:]
    if not scalar_a:
        _broadcast(a_given, shape, "a", "b's shape")
    if initial is not None:
        _broadcast(initial_given, line_shape, "initial", "the line shape")
    if axis is not None:
        flags = reset_flags(reset, shape, along)
    if out is not None:
        check_out(out, shape, result_dtype)
    if values.size == 0:
        return np.empty(shape, result_dtype) if out is None else out

    # The core reads every operand where it lies, in its own dtype and byte order (a scalar a or a line's initial
    # state at stride 0, never expanded; the initial states, a line's each, in the dtype computed in), and writes out.
    result: np.ndarray = _core.linear_recurrence(
        values, np.asarray(a_given, dtype=compute) if _is_weak(a_given) else a_given,
        np.asarray(initial_given, dtype=compute), flags, out, along, reverse, bool(exclusive), result_dtype)
    return result


def discounted_cumsum(x: Any, gamma: Any, axis: Optional[int] = -1, *, reset: Any = None,
                      out: Optional[np.ndarray] = None) -> np.ndarray:
    """Discounted returns ``G[i] = x[i] + gamma[i] * G[i+1]``: :func:`linear_recurrence` from the end.

    Parameters
    ----------
    x : array_like
        The rewards.
    gamma : array_like or scalar
        The discount, broadcast to ``x``'s shape.
    axis : int or None, default -1
        The time axis; ``None`` runs along ``x`` flattened in C order, as for :func:`linear_recurrence`.
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


def ewm_mean(x: Any, axis: int = -1, *, com: Optional[float] = None, span: Optional[float] = None,
             halflife: Optional[float] = None, alpha: Optional[float] = None, adjust: bool = True,
             ignore_na: bool = False, out: Optional[np.ndarray] = None) -> np.ndarray:
    """Exponentially weighted mean along an axis: pandas' ``Series.ewm(...).mean()`` (``min_periods=0``) on every
    line, in one pass.

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
    result_dtype, _ = ewm_dtypes(data.dtype)
    if data.ndim == 0:
        data = data.reshape(1)
    along = normalize_axis(axis, data.ndim)
    if out is not None:
        check_out(out, data.shape, result_dtype)
    if data.size == 0:
        return np.empty(data.shape, result_dtype) if out is None else out
    # One pass: with adjust, the weighted sums of the values and of their weights and their quotient; without it,
    # pandas' recursion (the core's kernels, reading x in its own dtype and byte order).
    result: np.ndarray = _core.weighted_mean(data, out, along, float(smoothing), bool(adjust), bool(ignore_na),
                                             result_dtype)
    return result
