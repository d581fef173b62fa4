"""Parameter lists shared by several test files, and the call that takes them (reference.py stays free of simdscan)."""

import numpy as np

import simdscan
from reference import apply_layout, assert_unchanged, snapshot

# (direction argument, whether it means decreasing)
DIRECTIONS = [
    ("increasing", False),
    ("decreasing", True),
    (simdscan.Direction.INCREASING, False),
    (simdscan.Direction.DECREASING, True),
]

VARIANTS = ((False, False), (True, False), (False, True), (True, True))  # (decreasing, exclusive)

# The byte count read and written from which outputs go past the caches, that the tests' sizes were chosen for
# (test_streaming.py, test_summed_area.py); conftest.py sets it for every test.
TESTS_STREAMING_THRESHOLD = 8 << 20


def scan(op, a, axis=None, decreasing=False, exclusive=False, **kw):
    """simdscan.<op> in one of the VARIANTS, other keywords (return_indices=, out=, ...) passed on."""
    return getattr(simdscan, op)(
        a, axis=axis, direction="decreasing" if decreasing else "increasing", exclusive=exclusive, **kw
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


def scan_cases(ndim, axes=None, directions=DIRECTIONS):
    """(axis, direction, decreasing, exclusive) for every axis argument (or those of ``axes``), direction (or those
    of ``directions``) and mode of a scan."""
    return [(axis, direction, dec, exc) for axis in (all_axes(ndim) if axes is None else axes)
            for direction, dec in directions for exc in (False, True)]


def check_cases(a, cases, call, check, label):
    """call(a, axis, direction=, exclusive=) for each (axis, direction, decreasing, exclusive) of ``cases``, its
    result given to check(got, axis, decreasing, exclusive, where); ``a`` must come out unchanged."""
    snap = snapshot(a)
    for axis, direction, dec, exc in cases:
        check(call(a, axis, direction=direction, exclusive=exc), axis, dec, exc,
              f"{label} axis={axis} direction={direction!r} exclusive={exc}")
    assert_unchanged(a, snap)


def stepped_reversed_out(shape, dtype, fill):
    """An out= view stepped by 2 and reversed on every axis inside a buffer filled with ``fill``; returns
    (view, buffer, outside), outside marking the buffer's elements the view does not hold."""
    buf = np.full(tuple(2 * s + 1 for s in shape), fill, dtype=dtype)
    view = tuple(slice(2 * s - 1, None, -2) for s in shape)
    outside = np.ones(buf.shape, dtype=bool)
    outside[view] = False
    return buf[view], buf, outside


def scattered_outs(shape, dtype):
    """Named out= arrays of ``shape``: one starting at every element offset within a cache line of a fresh buffer,
    and views stepped by 2, 3 and -1 (reversed)."""
    size = int(np.prod(shape))
    per_line = 64 // np.dtype(dtype).itemsize
    outs = {f"out+{offset}": np.empty(size + per_line, dtype)[offset : offset + size].reshape(shape)
            for offset in range(per_line)}
    for step in (2, 3, -1):
        outs[f"out[::{step}]"] = np.empty(size * abs(step), dtype)[::step].reshape(shape)
    return outs


def check_in_place(base, layout, call, check, label):
    """call(a, axis, direction=, exclusive=, out=a) on a fresh ``apply_layout(base, layout)`` for every axis of
    ``base`` (and -1), both string directions and both modes; check(a, before, axis, decreasing, exclusive, where)."""
    for axis, direction, dec, exc in scan_cases(base.ndim, [*range(base.ndim), -1], DIRECTIONS[:2]):
        a = apply_layout(base, layout)
        before = a.copy()
        assert call(a, axis, direction=direction, exclusive=exc, out=a) is a
        check(a, before, axis, dec, exc, f"in place {label} {layout} axis={axis} {direction} exclusive={exc}")
