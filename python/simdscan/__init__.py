"""Cumulative sum and product over NumPy arrays with DirectML's semantics.

``cumsum`` and ``cumprod`` scan along one axis, in increasing or decreasing index order, inclusive or exclusive,
keep the input's dtype, and can write in place, as DirectML's DML_CUMULATIVE_SUMMATION_OPERATOR_DESC and
DML_CUMULATIVE_PRODUCT_OPERATOR_DESC do. The scan runs in SIMD kernels chosen for this CPU (see :func:`isa`).
"""

from __future__ import annotations

import enum
import operator
import os
from typing import Any, Optional, Union

import numpy as np

from . import _core

__version__: str = _core.__version__

__all__ = [
    "Direction",
    "__version__",
    "cumprod",
    "cumsum",
    "get_num_threads",
    "isa",
    "set_num_threads",
    "supported_isas",
]


class Direction(enum.Enum):
    """The order in which elements are accumulated along the axis (DirectML's DML_AXIS_DIRECTION)."""

    INCREASING = "increasing"
    DECREASING = "decreasing"


# More workers than this is a mistake, not a machine: each one is an OS thread kept for the process's life.
_MAX_THREADS = 1024


def isa() -> str:
    """The name of the active ISA tier ("sse2", "avx2", "avx512", ...)."""
    return _core.isa()


def supported_isas() -> list[str]:
    """ISA tiers this CPU supports, lowest first; SIMDSCAN_ISA may force any of them."""
    return list(_core.supported_isas())


def set_num_threads(n: int) -> None:
    """Sets how many threads a large scan may use (1: the calling thread only)."""
    n = operator.index(n)
    if not 1 <= n <= _MAX_THREADS:
        raise ValueError(f"the number of threads must be between 1 and {_MAX_THREADS}, got {n}")
    _core.set_num_threads(n)


def get_num_threads() -> int:
    """How many threads a large scan may use (default: the cores this process may run on)."""
    return int(_core.get_num_threads())


def cumsum(
    a: Any,
    axis: Optional[int] = None,
    *,
    direction: Union[Direction, str] = "increasing",
    exclusive: bool = False,
    dtype: Any = None,
    out: Optional[np.ndarray] = None,
) -> np.ndarray:
    """Cumulative sum along an axis, as DirectML's DML_CUMULATIVE_SUMMATION_OPERATOR_DESC.

    Parameters
    ----------
    a : array_like
        Input data.
    axis : int, optional
        The axis to scan; negative counts from the end. None scans the C-order flattened array.
    direction : {"increasing", "decreasing"} or Direction
        Increasing: out[i] sums x[0] .. x[i]. Decreasing: out[i] sums x[i] .. x[n-1].
    exclusive : bool
        Leave the element itself out of its own sum: increasing out[i] sums x[0] .. x[i-1], decreasing
        x[i+1] .. x[n-1]; an empty range gives 0.
    dtype : dtype, optional
        The result's dtype; the input is cast to it first. Default: the input's dtype (bool: the default integer).
    out : ndarray, optional
        Where to write the result (any strides; may be ``a`` itself).

    Returns
    -------
    ndarray
        ``out`` if given, else a new array.

    Examples
    --------
    >>> import simdscan
    >>> simdscan.cumsum([1, 2, 3, 4])
    array([ 1,  3,  6, 10])
    >>> simdscan.cumsum([1, 2, 3, 4], direction="decreasing", exclusive=True)
    array([9, 7, 4, 0])
    """
    return _core.cumsum(a, axis, direction, exclusive, dtype, out)


def cumprod(
    a: Any,
    axis: Optional[int] = None,
    *,
    direction: Union[Direction, str] = "increasing",
    exclusive: bool = False,
    dtype: Any = None,
    out: Optional[np.ndarray] = None,
) -> np.ndarray:
    """Cumulative product along an axis, as DirectML's DML_CUMULATIVE_PRODUCT_OPERATOR_DESC.

    Parameters are those of :func:`cumsum`; an empty exclusive range gives 1.

    Examples
    --------
    >>> import simdscan
    >>> simdscan.cumprod([1, 2, 3, 4])
    array([ 1,  2,  6, 24])
    >>> simdscan.cumprod([1, 2, 3, 4], exclusive=True)
    array([1, 1, 2, 6])
    """
    return _core.cumprod(a, axis, direction, exclusive, dtype, out)


def _configure_from_environment() -> None:
    requested = os.environ.get("SIMDSCAN_ISA")
    if requested:
        try:
            _core.select_isa(requested)
        except ValueError as error:
            raise ImportError(f"SIMDSCAN_ISA={requested!r}: {error}") from None
    threads = os.environ.get("SIMDSCAN_NUM_THREADS")
    if threads:
        try:
            set_num_threads(int(threads))
        except ValueError as error:
            raise ImportError(f"SIMDSCAN_NUM_THREADS={threads!r}: {error}") from None


_core._initialise(Direction)
_configure_from_environment()
