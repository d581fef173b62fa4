"""Parameter lists shared by several test files, and the call that takes them (reference.py stays free of simdscan)."""

import numpy as np

import simdscan

# (direction argument, whether it means decreasing)
DIRECTIONS = [
    ("increasing", False),
    ("decreasing", True),
    (simdscan.Direction.INCREASING, False),
    (simdscan.Direction.DECREASING, True),
]

VARIANTS = ((False, False), (True, False), (False, True), (True, True))  # (decreasing, exclusive)


def scan(op, a, axis, decreasing, exclusive):
    """simdscan.<op> in one of the VARIANTS."""
    return getattr(simdscan, op)(
        a, axis=axis, direction="decreasing" if decreasing else "increasing", exclusive=exclusive
    )


def func(op):
    """simdscan.cumsum or simdscan.cumprod, by name."""
    return getattr(simdscan, op)


def variants():
    """(direction argument, decreasing, exclusive) for both string directions and both exclusive modes."""
    for direction, decreasing in DIRECTIONS[:2]:
        for exclusive in (False, True):
            yield direction, decreasing, exclusive


def all_axes(ndim):
    """Every axis argument of an ndim-dimensional input: None, each index, and each negative index."""
    return [None] + list(range(ndim)) + list(range(-ndim, 0))


def scan_cases(ndim):
    """(axis, direction, decreasing, exclusive) for every axis argument, direction and mode of a scan."""
    return [(axis, direction, dec, exc) for axis in all_axes(ndim) for direction, dec in DIRECTIONS
            for exc in (False, True)]


def stepped_reversed_out(shape, dtype, fill):
    """An out= view stepped by 2 and reversed on every axis inside a buffer filled with ``fill``; returns
    (view, buffer, outside), outside marking the buffer's elements the view does not hold."""
    buf = np.full(tuple(2 * s + 1 for s in shape), fill, dtype=dtype)
    view = tuple(slice(2 * s - 1, None, -2) for s in shape)
    outside = np.ones(buf.shape, dtype=bool)
    outside[view] = False
    return buf[view], buf, outside
