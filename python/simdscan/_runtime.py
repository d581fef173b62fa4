"""The run-time settings of simdscan: the scan direction's type, the ISA tier and the thread count."""

from __future__ import annotations

import enum
import operator
import os
from typing import Callable

from . import _core


class Direction(enum.Enum):
    """The order in which elements are accumulated along the axis (DirectML's DML_AXIS_DIRECTION).

    ``INCREASING``: from index 0 up, out[i] totals x[0] .. x[i]. ``DECREASING``: from index n-1 down, out[i]
    totals x[i] .. x[n-1]. Wherever a direction is taken, the strings ``"increasing"`` and ``"decreasing"`` work
    too.

    Examples
    --------
    >>> import simdscan
    >>> simdscan.Direction("decreasing") is simdscan.Direction.DECREASING
    True
    >>> simdscan.cumsum([1, 2, 3], direction=simdscan.Direction.DECREASING)
    array([6, 5, 3])
    """

    INCREASING = "increasing"
    DECREASING = "decreasing"


# More workers than this is a mistake, not a machine: each one is an OS thread kept for the process's life.
_MAX_THREADS = 1024


def isa() -> str:
    """The name of the active ISA tier ("sse2", "avx2", "avx512", ...).

    The best tier the CPU supports is chosen once, at import; the environment variable ``SIMDSCAN_ISA`` forces a
    lower one.

    Returns
    -------
    str
        One of :func:`supported_isas`.

    Examples
    --------
    >>> import simdscan
    >>> simdscan.isa()  # on an AVX-512 CPU  # doctest: +SKIP
    'avx512'
    >>> simdscan.isa() in simdscan.supported_isas()
    True
    """
    return _core.isa()


def supported_isas() -> list[str]:
    """ISA tiers this CPU supports, lowest first; SIMDSCAN_ISA may force any of them.

    Returns
    -------
    list of str
        The tiers compiled into this build that this CPU can run (x86-64: "sse2", "avx2", "avx512").

    Examples
    --------
    >>> import simdscan
    >>> simdscan.supported_isas()  # on an AVX-512 CPU  # doctest: +SKIP
    ['sse2', 'avx2', 'avx512']
    >>> len(simdscan.supported_isas()) >= 1
    True
    """
    return list(_core.supported_isas())


def set_num_threads(n: int) -> None:
    """Sets how many threads a large scan may use (1: the calling thread only).

    Small arrays never wake the thread pool, and results do not depend on the thread count. The default is the
    number of cores this process may use (or ``SIMDSCAN_NUM_THREADS`` at import).

    Parameters
    ----------
    n : int
        From 1 to 1024.

    Raises
    ------
    ValueError
        ``n`` out of that range.
    TypeError
        ``n`` is not an integer.

    Examples
    --------
    >>> import simdscan
    >>> before = simdscan.get_num_threads()
    >>> simdscan.set_num_threads(1)
    >>> simdscan.get_num_threads()
    1
    >>> simdscan.set_num_threads(before)
    """
    n = operator.index(n)
    if not 1 <= n <= _MAX_THREADS:
        raise ValueError(f"the number of threads must be between 1 and {_MAX_THREADS}, got {n}")
    _core.set_num_threads(n)


def get_num_threads() -> int:
    """How many threads a large scan may use (default: the cores this process may run on).

    Returns
    -------
    int
        The value last set by :func:`set_num_threads` (or ``SIMDSCAN_NUM_THREADS`` at import), at least 1.

    Examples
    --------
    >>> import simdscan
    >>> simdscan.get_num_threads() >= 1
    True
    """
    return int(_core.get_num_threads())


def _apply_from_environment(variable: str, apply: Callable[[str], None]) -> None:
    """Applies the environment variable ``variable``, when set, with ``apply``; its ValueError becomes an ImportError
    naming the variable."""
    value = os.environ.get(variable)
    if value:
        try:
            apply(value)
        except ValueError as error:
            raise ImportError(f"{variable}={value!r}: {error}") from None


def configure_from_environment() -> None:
    _apply_from_environment("SIMDSCAN_ISA", _core.select_isa)
    _apply_from_environment("SIMDSCAN_ROW_WALK", _core.select_falling_row_walk)
    _apply_from_environment("SIMDSCAN_NUM_THREADS", lambda threads: set_num_threads(int(threads)))
