"""Parameter lists shared by several test files, and the call that takes them (reference.py stays free of simdscan)."""

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
