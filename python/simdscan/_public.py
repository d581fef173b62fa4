"""simdscan's public scans, each made once here from its family module's plain function and its entry in the
registry (``_ops.OPS``): the function taking ndarray subclasses, masked arrays and Dask arrays (``_array_types.py``),
and, where the op has fast calls, the builtin that makes its plain calls in C++ in front of it (``_fast_calls.py``).

This is the one place that applies the array-type dispatch, and the one module that reaches :mod:`simdscan.dask`
(when a Dask array comes): the family modules, the registry and the Dask layer import nothing of this one."""

from __future__ import annotations

from typing import Any, Callable, TypeVar, cast

from . import _arithmetic, _array_api, _extrema, _fill, _logsumexp, _nan_skipping, _recurrence
from ._array_types import LazyFunction, takes_array_types
from ._fast_calls import fast_calls
from ._ops import OPS

Function = TypeVar("Function", bound=Callable[..., Any])


def _lazy(name: str) -> LazyFunction:
    """simdscan.dask's function ``name``, found when a Dask array is first scanned."""

    def dask_function() -> Callable[..., Any]:
        from . import dask  # (Dask is optional and slow to import: `import simdscan` never imports it)

        found: Callable[..., Any] = getattr(dask, name)
        return found

    return dask_function


def public(function: Function) -> Function:
    """The public function of the plain ``function`` (registered in ``_ops.OPS`` under its name), of its type."""
    op = OPS[function.__name__]
    assert op.function is function, op.name
    dispatch = takes_array_types(op, _lazy(op.name))
    return cast(Function, dispatch if op.fast is None else fast_calls(op, dispatch))


cumsum = public(_arithmetic.cumsum)
cumprod = public(_arithmetic.cumprod)
cummax = public(_extrema.cummax)
cummin = public(_extrema.cummin)
nancummax = public(_extrema.nancummax)
nancummin = public(_extrema.nancummin)
nancumsum = public(_nan_skipping.nancumsum)
nancumprod = public(_nan_skipping.nancumprod)
logcumsumexp = public(_logsumexp.logcumsumexp)
cumulative_sum = public(_array_api.cumulative_sum)
cumulative_prod = public(_array_api.cumulative_prod)
ffill = public(_fill.ffill)
linear_recurrence = public(_recurrence.linear_recurrence)
discounted_cumsum = public(_recurrence.discounted_cumsum)
ewm_mean = public(_recurrence.ewm_mean)

assert set(OPS) <= set(globals()), "every op of the registry has its public function here"
