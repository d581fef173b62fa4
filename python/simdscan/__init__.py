"""Cumulative sum and product over NumPy arrays with DirectML's semantics.

``cumsum`` and ``cumprod`` scan along one axis, in increasing or decreasing index order, inclusive or exclusive,
keep the input's dtype, and can write in place, as DirectML's DML_CUMULATIVE_SUMMATION_OPERATOR_DESC and
DML_CUMULATIVE_PRODUCT_OPERATOR_DESC do. The scan runs in SIMD kernels chosen for this CPU (see :func:`isa`).
``help(simdscan.cumsum)`` explains every flag; ``python -m simdscan`` shows DirectML's examples computed live.

The rest of the scan family takes the same flags: ``cummax`` / ``cummin`` (with the positions that supplied each
value), ``logcumsumexp``, and the NaN-skipping ``nancumsum``, ``nancumprod``, ``nancummax``, ``nancummin``; every scan
restarts at segments with ``reset=``, and ``ffill`` fills each NaN from the last number before it.

Examples
--------
>>> import numpy as np
>>> import simdscan
>>> x = np.array([1, 2, 3, 4], dtype=np.int32)
>>> simdscan.cumsum(x, direction="decreasing", exclusive=True)
array([9, 7, 4, 0], dtype=int32)
>>> np.cumsum(x).dtype  # NumPy widens it to the platform integer  # doctest: +SKIP
dtype('int64')
"""

from __future__ import annotations

from . import _core
from ._public import (  # the family modules' plain functions, made public once there (see _ops.py)
    cummax,
    cummin,
    cumprod,
    cumsum,
    cumulative_prod,
    cumulative_sum,
    discounted_cumsum,
    ewm_mean,
    ffill,
    linear_recurrence,
    logcumsumexp,
    nancummax,
    nancummin,
    nancumprod,
    nancumsum,
)
from ._runtime import (
    Direction,
    configure_from_environment,
    get_num_threads,
    get_result_cache_size,
    isa,
    set_num_threads,
    set_result_cache_size,
    supported_isas,
)

__version__: str = _core.__version__

__all__ = [
    "Direction",
    "__version__",
    "cummax",
    "cummin",
    "cumprod",
    "cumsum",
    "cumulative_prod",
    "cumulative_sum",
    "discounted_cumsum",
    "ewm_mean",
    "ffill",
    "get_num_threads",
    "get_result_cache_size",
    "isa",
    "linear_recurrence",
    "logcumsumexp",
    "nancummax",
    "nancummin",
    "nancumprod",
    "nancumsum",
    "set_num_threads",
    "set_result_cache_size",
    "supported_isas",
]

# The public names are simdscan's wherever they are defined: help(), pickles and Sphinx name them so.
for _public in (
    Direction, cummax, cummin, cumprod, cumsum, cumulative_prod, cumulative_sum, discounted_cumsum, ewm_mean, ffill,
    get_num_threads, get_result_cache_size, isa, linear_recurrence, logcumsumexp, nancummax, nancummin, nancumprod,
    nancumsum, set_num_threads, set_result_cache_size, supported_isas,
):
    _public.__module__ = __name__
del _public

configure_from_environment()
