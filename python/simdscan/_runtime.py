"""The run-time settings of simdscan: the scan direction's type, the ISA tier, the thread count and the result cache."""

from __future__ import annotations

import enum
import operator
import os
import sys
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


# The core learns the Direction type before any scan is made or called (_fast_calls builds the public ones at import).
_core._initialise(Direction)


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


def set_result_cache_size(nbytes: int) -> None:
    """Sets how many bytes of freed large results simdscan keeps, to give to new results of the same size.

    The kernel zeroes every page it maps into a process anew: a new 400 MB float32 cumsum took 2.8x as long as one
    into a given ``out`` (one thread, AMD Zen 4). So when a large result array (32 MiB or more) that simdscan made is
    freed, its memory is kept, up to ``nbytes`` in all, oldest given back first, and the next result of the same
    size is made in it, already mapped: as fast as ``out=``. On Linux the kernel may take the kept pages back
    whenever memory runs short (``MADV_FREE``); until then they count in the process's resident size. The results
    are ordinary arrays that own their memory. The default is 1 GiB, or an eighth of the machine's memory where that
    is less (0, none, off Linux), or ``SIMDSCAN_RESULT_CACHE_SIZE`` at import; in a Dask ``distributed`` worker it is
    0 from simdscan's first task there on, unless this function or ``SIMDSCAN_RESULT_CACHE_SIZE`` set it in that
    process (with ``Client(processes=False)`` the workers are threads of the client's process, which then turns it
    off as well).

    Parameters
    ----------
    nbytes : int
        From 0 to ``sys.maxsize``; 0 keeps nothing and gives back what is kept now, as a smaller value gives back
        the oldest.

    Raises
    ------
    ValueError
        ``nbytes`` out of that range.
    TypeError
        ``nbytes`` is not an integer.

    Examples
    --------
    >>> import numpy as np
    >>> import simdscan
    >>> before = simdscan.get_result_cache_size()
    >>> x = np.ones(10_000_000, dtype=np.float32)  # 40 MB
    >>> address = simdscan.cumsum(x).ctypes.data  # the result is freed at once, its memory kept
    >>> simdscan.cumsum(x).ctypes.data == address  # on Linux  # doctest: +SKIP
    True
    >>> simdscan.set_result_cache_size(0)  # gives it back
    >>> simdscan.set_result_cache_size(before)
    """
    global _result_cache_size_chosen
    nbytes = operator.index(nbytes)
    if not 0 <= nbytes <= sys.maxsize:
        raise ValueError(f"the result cache size must be between 0 and {sys.maxsize} bytes, got {nbytes}")
    _core.set_result_cache_size(nbytes)
    _result_cache_size_chosen = True


def get_result_cache_size() -> int:
    """How many bytes of freed large results simdscan may keep for new ones (see :func:`set_result_cache_size`).

    Returns
    -------
    int
        The value last set by :func:`set_result_cache_size` (or ``SIMDSCAN_RESULT_CACHE_SIZE`` at import); 0 when
        another NumPy memory handler than the default one was in place at import, which then makes every array,
        and in a Dask ``distributed`` worker whose size nobody set (see :func:`set_result_cache_size`).

    Examples
    --------
    >>> import simdscan
    >>> simdscan.get_result_cache_size() >= 0
    True
    """
    off_in_dask_workers()
    return int(_core.get_result_cache_size())


# Whether the result cache's size was set by set_result_cache_size (or SIMDSCAN_RESULT_CACHE_SIZE), which a Dask
# worker keeps; and whether this process's cache was turned off as a worker's.
_result_cache_size_chosen = False
_off_as_a_worker = False


def off_in_dask_workers() -> None:
    """Turns the result cache off in a Dask ``distributed`` worker (where this runs as a task) whose size nobody set:
    freed results kept there count as the worker's unmanaged memory, which its memory monitor warns of as a leak,
    then pauses and restarts the worker for. Imports nothing: a worker has imported distributed already."""
    global _off_as_a_worker
    distributed = sys.modules.get("distributed")
    if _result_cache_size_chosen or _off_as_a_worker or distributed is None:
        return
    try:
        distributed.get_worker()
    except ValueError:  # not in a worker's task
        return
    _core.set_result_cache_size(0)
    _off_as_a_worker = True


def _apply_from_environment(variable: str, apply: Callable[[str], None]) -> None:
    """Applies the environment variable ``variable``, when set, with ``apply``; its ValueError becomes an ImportError
    naming the variable."""
    value = os.environ.get(variable)
    if value:
        try:
            apply(value)
        except ValueError as error:
            raise ImportError(f"{variable}={value!r}: {error}") from None


def _select_streaming_threshold(value: str) -> None:
    """SIMDSCAN_STREAMING_THRESHOLD's byte count (``int`` spelling, at least 0) handed to the core."""
    nbytes = int(value)
    if nbytes < 0:
        raise ValueError("the streaming threshold is a byte count, at least 0")
    _core.select_streaming_threshold(nbytes)


def configure_from_environment() -> None:
    _apply_from_environment("SIMDSCAN_ISA", _core.select_isa)
    _apply_from_environment("SIMDSCAN_ROW_WALK", _core.select_falling_row_walk)
    _apply_from_environment("SIMDSCAN_STREAMING_THRESHOLD", _select_streaming_threshold)
    _apply_from_environment("SIMDSCAN_NUM_THREADS", lambda threads: set_num_threads(int(threads)))
    _apply_from_environment("SIMDSCAN_RESULT_CACHE_SIZE", lambda nbytes: set_result_cache_size(int(nbytes)))
