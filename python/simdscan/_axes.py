"""Scans along several axes at once (summed-area tables), and the argument checks the scans share."""

from __future__ import annotations

import operator
from typing import Any, Callable, Optional, Tuple

import numpy as np

from . import _core
from ._runtime import Direction
from ._segments import segment_operands

# numpy.exceptions arrived in NumPy 1.25, simdscan's oldest
AxisError = np.exceptions.AxisError


def is_decreasing(direction: Any) -> bool:
    """Whether ``direction`` (a Direction or exactly "increasing" / "decreasing") means decreasing.

    Raises what the scans raise: ValueError for another string, TypeError for anything else.

    >>> is_decreasing("decreasing"), is_decreasing(Direction.INCREASING)
    (True, False)
    """
    if isinstance(direction, Direction):
        return direction is Direction.DECREASING
    if not isinstance(direction, str):
        raise TypeError(
            "direction must be a simdscan.Direction or one of 'increasing', 'decreasing'; got "
            + type(direction).__name__
        )
    if direction in ("increasing", "decreasing"):
        return direction == "decreasing"
    raise ValueError(f"direction must be 'increasing' or 'decreasing', got {direction!r}")


def normalize_axis(axis: Any, ndim: int) -> int:
    """``axis`` (any integer, negative counting from the end) as an index in [0, ndim); AxisError when out of range.

    >>> normalize_axis(-1, 3)
    2
    """
    index = operator.index(axis)
    if not -ndim <= index < ndim:
        raise AxisError(index, ndim)
    return index + ndim if index < 0 else index


def normalize_axes(axis: Tuple[Any, ...], ndim: int) -> Tuple[int, ...]:
    """A tuple of axes, each normalised; TypeError for a non-integer entry, ValueError for a repeated axis.

    >>> normalize_axes((0, -1), 3)
    (0, 2)
    """
    if len(axis) == 0:
        raise ValueError("axis=() names no axis to scan")
    axes = []
    for entry in axis:
        try:
            axes.append(normalize_axis(entry, ndim))
        except TypeError:
            raise TypeError(f"axis={axis!r}: every entry must be an integer, got {type(entry).__name__}") from None
    if len(set(axes)) != len(axes):
        raise ValueError(f"axis={axis!r} names an axis twice (as {tuple(axes)} for {ndim} dimensions)")
    return tuple(axes)


def per_axis(name: str, value: Any, count: int) -> Tuple[Any, ...]:
    """``value`` once per axis: a tuple of ``count`` entries as it is, any other value repeated.

    >>> per_axis("exclusive", True, 2)
    (True, True)
    """
    if isinstance(value, tuple):
        if len(value) != count:
            raise ValueError(f"{name}={value!r} has {len(value)} entries for {count} axes; give one per axis")
        return value
    if isinstance(value, list):
        raise TypeError(f"{name} must be one value or a tuple with one entry per axis, not a list")
    return (value,) * count


def core_scan(op: str, skip_nan: bool = False) -> Callable[..., np.ndarray]:
    """The core's scan of ``op`` (a ufunc's name, as ``_core.scan`` takes it) along one axis, or the pair of axes the
    core takes in one call, with the calling convention :func:`scan_axes` hands its ``scan``."""

    def scan(a: Any, axis: Any, *, direction: Any, exclusive: Any, out: Any, dtype: Any = None,
             compensated: bool = False, reset: Any = None, labels: Any = None) -> np.ndarray:
        return _core.scan(op, a, axis, direction, exclusive, dtype, out, compensated, skip_nan,
                          *segment_operands(reset, labels, np.shape(a), axis))

    return scan


def scan_along(op: str, skip_nan: bool, a: Any, axis: Any, direction: Any, exclusive: Any, out: Any,
               dtype: Any = None, compensated: bool = False, reset: Any = None, labels: Any = None) -> np.ndarray:
    """The body of a public scan without indices: the core's scan of ``op`` in one call, or along a tuple ``axis``
    through :func:`scan_axes`; segmented by ``reset`` or grouped by ``labels`` (:mod:`._segments`)."""
    if isinstance(axis, tuple) and reset is None and labels is None:
        result: np.ndarray = scan_axes(core_scan(op, skip_nan), a, axis, direction=direction, exclusive=exclusive,
                                       out=out, dtype=dtype, compensated=compensated)
        return result
    # (a tuple axis: ValueError)
    flags, groups = (None, None) if reset is None and labels is None else segment_operands(reset, labels,
                                                                                            np.shape(a), axis)
    return _core.scan(op, a, axis, direction, exclusive, dtype, out, compensated, skip_nan, flags, groups)


def scan_axes(
    scan: Callable[..., Any],
    a: Any,
    axis: Tuple[Any, ...],
    *,
    direction: Any = "increasing",
    exclusive: Any = False,
    out: Optional[np.ndarray] = None,
    **options: Any,
) -> Any:
    """The scan ``scan`` along each axis of ``axis`` in turn: a summed-area table (integral image) for a sum.

    ``scan_axes(scan, a, axis, *, direction="increasing", exclusive=False, out=None, **options)``

    Parameters
    ----------
    scan : callable
        The scan along one axis, with cumsum's rules: ``scan(a, axis, *, direction=d, exclusive=e, out=o,
        **options)`` takes an int ``axis``, or a pair of them with a pair of directions and flags (the two scans in
        turn, as the core runs them), returns ``o`` itself when given, scans in place for ``o`` is ``a``, and
        leaves ``o`` untouched when it raises (simdscan's cumsum, cumprod, cummax and cummin all do).
    a : array_like
        The input (converted once with :func:`numpy.asarray`; a 0-d input is scanned as shape (1,), as by
        ``scan``).
    axis : tuple of int
        The axes, in the order they are scanned; negative ones count from the end. Empty, repeated (after
        normalisation) or non-integer entries: ValueError / ValueError / TypeError; out of range: AxisError.
    direction, exclusive : one value, or a tuple with one entry per axis
        Handed to the scan along the matching axis. A tuple of the wrong length: ValueError (a list: TypeError).
    out : ndarray, optional
        Where the result goes, with the scan's rules for ``out``.
    **options
        Passed to every call of ``scan`` (e.g. ``compensated``), except ``dtype``, which only the first call gets:
        the later calls scan the result in place, already in that dtype. ``return_indices=True`` (cummax,
        cummin) with more than one axis: ValueError, as an index along several axes is not defined.

    Returns
    -------
    ndarray
        ``out`` if given, else a new array (what the first call of ``scan`` returned).

    Notes
    -----
    The first axis is scanned from ``a`` into the result (``out``, or the new array the scan allocates), the others
    in place on the result: no temporary arrays beyond the cast copy ``dtype=`` may need. Every argument is checked
    before the first call, so that a bad entry for a later axis cannot leave ``out`` half written. For a sum the
    order of the axes changes only the rounding of floating-point results.

    Examples
    --------
    >>> import numpy as np
    >>> import simdscan
    >>> from simdscan._axes import scan_axes
    >>> scan_axes(simdscan.cumsum, np.ones((2, 3), dtype=np.int32), (0, 1), exclusive=(False, True))
    array([[0, 1, 2],
           [0, 2, 4]], dtype=int32)
    """
    a = np.asarray(a)
    axes = normalize_axes(axis, max(a.ndim, 1))
    decreasing = per_axis("direction", direction, len(axes))
    exclusives = per_axis("exclusive", exclusive, len(axes))
    for d in decreasing:
        is_decreasing(d)
    for e in exclusives:
        bool(e)  # an array of several elements raises here, before anything is written
    if len(axes) > 1 and options.get("return_indices"):
        raise ValueError("return_indices=True takes a single axis: an index along several axes is not defined")

    def head(values: Tuple[Any, ...]) -> Any:
        # The first two axes go in one call: the core scans them in one pass over memory where the layout allows.
        return values[:2] if len(values) > 1 else values[0]

    first = scan(a, head(axes), direction=head(decreasing), exclusive=head(exclusives), out=out, **options)
    options.pop("dtype", None)
    for ax, d, e in zip(axes[2:], decreasing[2:], exclusives[2:]):
        scan(first, ax, direction=d, exclusive=e, out=first, **options)
    return first
