"""What the NumPy-level scans do with an input that is not exactly a numpy.ndarray: an ndarray subclass comes back
as its own type (``__array_wrap__``, as ``numpy.cumsum`` returns it, ``numpy.matrix`` included), a masked array is
scanned with its masked elements as the op's identity and comes back masked where it was (``numpy.ma.cumsum``'s
rule), and a Dask array goes to :mod:`simdscan.dask`'s function of the same name, lazily. Anything else keeps the
``numpy.asarray`` rule."""

from __future__ import annotations

import functools
import inspect
import sys
from typing import Any, Callable, Dict, Optional, Tuple, TypeVar, cast

import numpy as np

from ._axes import is_decreasing

Function = TypeVar("Function", bound=Callable[..., Any])

# The scans whose identity (what a masked element becomes) is 0, 1 and the dtype's highest value; the others'
# (cummax, nancummax, logcumsumexp) is its lowest.
_SUMS = ("cumsum", "nancumsum", "cumulative_sum")
_PRODUCTS = ("cumprod", "nancumprod", "cumulative_prod")
_MINIMA = ("cummin", "nancummin")
# No value of b (nor of a) leaves a linear recurrence's state alone: they take no masked array.
_UNMASKABLE = ("linear_recurrence", "discounted_cumsum")


def takes_array_types(function: Function) -> Function:
    """``function`` (a public scan, named as in :mod:`simdscan.dask`) taking subclasses, masked and Dask arrays."""
    return _takes_array_types(function, None)


def takes_array_types_as(parameter: str) -> Callable[[Function], Function]:
    """:func:`takes_array_types` for a function whose array is the argument ``parameter``, not the first (the
    linear recurrence's ``b``): that one's type picks the path, and it is handed over by name."""
    return lambda function: _takes_array_types(function, parameter)


def _takes_array_types(function: Function, parameter: Any) -> Function:
    name = function.__name__
    signature = inspect.signature(function)
    key = parameter or next(iter(signature.parameters))
    position = list(signature.parameters).index(key)

    @functools.wraps(function)
    def scan(*args: Any, **options: Any) -> Any:
        if type(args[position] if len(args) > position else options.get(key)) is np.ndarray:
            return function(*args, **options)
        try:
            arguments = signature.bind(*args, **options).arguments
        except TypeError:
            return function(*args, **options)  # raises the function's own error
        a = arguments.pop(key)
        return scan_other(name, function, a, arguments, parameter)

    return cast(Function, scan)


def is_dask_array(a: Any) -> bool:
    """Whether ``a`` is a dask.array.Array, importing Dask only when ``a``'s type comes from it."""
    if not type(a).__module__.startswith("dask."):
        return False
    import dask.array

    return isinstance(a, dask.array.Array)


def scan_other(name: str, function: Callable[..., Any], a: Any, options: Dict[str, Any],
               parameter: Optional[str] = None) -> Any:
    """``function(a, **options)`` for an ``a`` that is not exactly an ndarray (``options``: every other argument given,
    by name; ``a`` by the name ``parameter`` where given, else first)."""
    if parameter is not None:
        options = dict(options)
        a_first = function

        def function(array: Any, **rest: Any) -> Any:
            return a_first(**{parameter: array}, **rest)

    masked_arrays = sys.modules.get("numpy.ma")  # a masked array exists only once numpy.ma is imported
    if masked_arrays is not None and isinstance(a, masked_arrays.MaskedArray):
        if name in _UNMASKABLE:
            raise TypeError(f"simdscan.{name} takes no masked array (its masked elements have no value to stand for "
                            f"them): fill them first (a.filled(...))")
        return _scan_masked(name, function, a, options)
    if isinstance(a, np.ndarray):
        result = function(a, **options)
        if options.get("out") is not None:
            return result
        if isinstance(result, tuple):  # values and indices
            return tuple(a.__array_wrap__(r, None) for r in result)
        return a.__array_wrap__(result, None)
    if is_dask_array(a):
        if options.pop("out", None) is not None:
            raise TypeError(f"out= takes no Dask array: simdscan.dask.{name} returns a new lazy one")
        import simdscan.dask

        lazy = getattr(simdscan.dask, name)
        return lazy(**{parameter: a}, **options) if parameter is not None else lazy(a, **options)
    return function(a, **options)


def identity_of(name: str, dtype: np.dtype) -> Any:
    """The value of ``dtype`` that scan ``name`` leaves its running value unchanged with."""
    if name in ("ffill", "ewm_mean"):  # a masked element is missing, as NaN is (integers have none: any value, masked
        return np.nan if dtype.kind in "fc" else 0  # anyway; ewm_mean's are floats by then)
    if name in _SUMS or name in _PRODUCTS:
        return 0 if name in _SUMS else 1
    lowest = name not in _MINIMA
    if dtype.kind == "b":
        return not lowest
    if dtype.kind in "iu":
        limits = np.iinfo(dtype)
        return limits.min if lowest else limits.max
    return -np.inf if lowest else np.inf


def _scan_masked(name: str, function: Callable[..., Any], a: Any, options: Dict[str, Any]) -> Any:
    """numpy.ma.cumsum's rule for every scan: masked elements take the identity, the result is masked where ``a`` is.
    ``out`` may be a MaskedArray (its mask set too) or an ndarray (its data only, as in NumPy)."""
    data = np.ma.getdata(a)
    mask = np.ma.getmask(a)
    if name in ("logcumsumexp", "ewm_mean") and data.dtype.kind in "biu":  # -inf, NaN: the dtype computed in
        dtype = options.get("dtype")
        data = data.astype(np.float64 if dtype is None else dtype)
    if mask is not np.ma.nomask:
        data = data.copy()
        data[mask] = identity_of(name, data.dtype)
    out = options.get("out")
    outs = out if isinstance(out, tuple) else (out,)
    if out is not None:
        options["out"] = type(out)(np.ma.getdata(o) for o in outs) if isinstance(out, tuple) else np.ma.getdata(out)
    result = function(data, **options)
    results = result if isinstance(result, tuple) else (result,)
    result_mask = _result_mask(name, mask, results[0].shape, options)
    if out is not None:
        for o in outs:
            if isinstance(o, np.ma.MaskedArray):
                o.__setmask__(result_mask)
        return out
    masked = []
    for r in results:
        r = r.view(type(a))
        r.__setmask__(result_mask)
        masked.append(r)
    return tuple(masked) if isinstance(result, tuple) else masked[0]


def _result_mask(name: str, mask: Any, shape: Tuple[int, ...], options: Dict[str, Any]) -> Any:
    """The input's mask in the result's shape: flattened for ``axis=None``, the identity that ``include_initial``
    adds unmasked."""
    if mask is np.ma.nomask:
        return mask
    if not (name.startswith("cumulative_") and options.get("include_initial")):
        return mask.reshape(shape)
    mask = np.atleast_1d(mask)
    axis = options.get("axis")
    axis = 0 if axis is None else axis[0] if isinstance(axis, tuple) else axis
    initial_at = mask.shape[axis] if is_decreasing(options.get("direction", "increasing")) else 0
    return np.insert(mask, initial_at, False, axis=axis)
