"""What the NumPy-level scans do with an input that is not exactly a numpy.ndarray: an ndarray subclass comes back
as its own type (``__array_wrap__``, as ``numpy.cumsum`` returns it, ``numpy.matrix`` included), a masked array is
scanned with its masked elements as the op's identity and comes back masked where it was (``numpy.ma.cumsum``'s
rule), and a Dask array goes to :mod:`simdscan.dask`'s function of the same name, lazily, where the caller says how
to find it (``_public.py`` does, for the public functions). Anything else keeps the ``numpy.asarray`` rule.

What each op is (its identity, whether it takes masked arrays, which argument is its array) is its entry in the
registry, ``_ops.OPS``; this module imports no scan."""

from __future__ import annotations

import functools
import inspect
import sys
from typing import Any, Callable, Dict, Optional, Tuple

import numpy as np

from ._axes import is_decreasing
from ._ops import Op

#: Finds the function of simdscan.dask that takes a Dask array in place of an op's function
LazyFunction = Callable[[], Callable[..., Any]]


def takes_array_types(op: Op, dask: Optional[LazyFunction] = None) -> Callable[..., Any]:
    """``op.function`` (a plain function of ndarrays) taking subclasses and masked arrays, and Dask arrays where
    ``dask`` is given (``dask()``: the lazy function that takes them), by the type of its argument ``op.array`` (or
    of its first). The result has the function's name, docstring and signature (``functools.wraps``); an exact ndarray
    goes straight to the function."""
    function = op.function
    signature = inspect.signature(function)
    key = op.array or next(iter(signature.parameters))
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
        return scan_other(op, a, arguments, dask)

    return scan


_NUMPY_LEVEL: Dict[str, Callable[..., Any]] = {}


def numpy_level(op: Op) -> Callable[..., Any]:
    """``op.function`` taking subclasses and masked arrays as the public function does, but not Dask arrays: what
    simdscan.dask scans a chunk with (made once per op)."""
    made = _NUMPY_LEVEL.get(op.name)
    return made if made is not None else _NUMPY_LEVEL.setdefault(op.name, takes_array_types(op))


def is_dask_array(a: Any) -> bool:
    """Whether ``a`` is a dask.array.Array, importing Dask only when ``a``'s type comes from it."""
    if not type(a).__module__.startswith("dask."):
        return False
    import dask.array  # (Dask is optional: imported only for an object whose type is Dask's)

    return isinstance(a, dask.array.Array)


def scan_other(op: Op, a: Any, options: Dict[str, Any], dask: Optional[LazyFunction] = None) -> Any:
    """``op.function(a, **options)`` for an ``a`` that is not exactly an ndarray (``options``: every other argument
    given, by name; ``a`` by the name ``op.array`` where given, else first); a Dask array to ``dask()`` where given."""
    function = op.function
    parameter = op.array
    if parameter is not None:
        options = dict(options)
        a_first = function

        def function(array: Any, **rest: Any) -> Any:
            return a_first(**{parameter: array}, **rest)

    masked_arrays = sys.modules.get("numpy.ma")  # a masked array exists only once numpy.ma is imported
    if masked_arrays is not None and isinstance(a, masked_arrays.MaskedArray):
        if not op.takes_masked:
            raise TypeError(f"simdscan.{op.name} takes no masked array (its masked elements have no value to stand "
                            f"for them): fill them first (a.filled(...))")
        return _scan_masked(op, function, a, options)
    if isinstance(a, np.ndarray):
        result = function(a, **options)
        if options.get("out") is not None:
            return result
        if isinstance(result, tuple):  # values and indices
            return tuple(a.__array_wrap__(r, None) for r in result)
        return a.__array_wrap__(result, None)
    if dask is not None and is_dask_array(a):
        if options.pop("out", None) is not None:
            raise TypeError(f"out= takes no Dask array: simdscan.dask.{op.name} returns a new lazy one")
        lazy = dask()
        return lazy(**{parameter: a}, **options) if parameter is not None else lazy(a, **options)
    return function(a, **options)


def _scan_masked(op: Op, function: Callable[..., Any], a: Any, options: Dict[str, Any]) -> Any:
    """numpy.ma.cumsum's rule for every scan: masked elements take the identity, the result is masked where ``a`` is.
    ``out`` may be a MaskedArray (its mask set too) or an ndarray (its data only, as in NumPy)."""
    data = np.ma.getdata(a)
    mask = np.ma.getmask(a)
    if op.floating and data.dtype.kind in "biu":  # -inf, NaN: the dtype computed in
        dtype = options.get("dtype")
        data = data.astype(np.float64 if dtype is None else dtype)
    if mask is not np.ma.nomask:
        data = data.copy()
        data[mask] = op.identity_of(data.dtype)
    out = options.get("out")
    outs = out if isinstance(out, tuple) else (out,)
    if out is not None:
        options["out"] = type(out)(np.ma.getdata(o) for o in outs) if isinstance(out, tuple) else np.ma.getdata(out)
    result = function(data, **options)
    results = result if isinstance(result, tuple) else (result,)
    result_mask = _result_mask(mask, results[0].shape, options)
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


def _result_mask(mask: Any, shape: Tuple[int, ...], options: Dict[str, Any]) -> Any:
    """The input's mask in the result's shape: flattened for ``axis=None``, the identity that ``include_initial``
    (cumulative_sum and cumulative_prod, the scans that take it) adds unmasked."""
    if mask is np.ma.nomask:
        return mask
    if not options.get("include_initial"):
        return mask.reshape(shape)
    mask = np.atleast_1d(mask)
    axis = options.get("axis")
    axis = 0 if axis is None else axis[0] if isinstance(axis, tuple) else axis
    initial_at = mask.shape[axis] if is_decreasing(options.get("direction", "increasing")) else 0
    return np.insert(mask, initial_at, False, axis=axis)
