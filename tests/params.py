"""Parameter lists shared by several test files (reference.py stays free of simdscan)."""

import simdscan

# (direction argument, whether it means decreasing)
DIRECTIONS = [
    ("increasing", False),
    ("decreasing", True),
    (simdscan.Direction.INCREASING, False),
    (simdscan.Direction.DECREASING, True),
]
