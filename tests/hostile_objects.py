"""Objects that misbehave in the protocols simdscan calls (__array__, __index__, __bool__, dtype, enums): the
arguments of tests/test_hostile.py's table."""

import enum

import numpy as np


class Boom(Exception):
    """Raised by the hostile objects below; must propagate unchanged."""


class ArrayReturnsInt:
    def __array__(self, dtype=None, copy=None):
        return 42


class ArrayReturnsList:
    def __array__(self, dtype=None, copy=None):
        return [1, 2, 3]


class ArrayRaises:
    def __array__(self, dtype=None, copy=None):
        raise Boom("__array__ exploded")


class ArrayReturnsObjects:
    def __array__(self, dtype=None, copy=None):
        return np.array([object(), object()], dtype=object)


class ArrayReturnsDatetimes:
    def __array__(self, dtype=None, copy=None):
        return np.array(["2020-01-01", "2020-01-02"], dtype="datetime64[D]")


class ArrayInterfaceRaises:
    @property
    def __array_interface__(self):
        raise Boom("__array_interface__ exploded")


class IndexRaises:
    def __index__(self):
        raise Boom("__index__ exploded")


class IndexReturnsFloat:
    def __index__(self):
        return 1.5


class IndexReturnsHuge:
    def __index__(self):
        return 2**80


class BoolRaises:
    def __bool__(self):
        raise Boom("__bool__ exploded")


class DtypeRaises:
    """np.dtype(obj) looks up obj.dtype, which explodes."""

    @property
    def dtype(self):
        raise Boom("dtype exploded")


class OtherDirection(enum.Enum):
    INCREASING = "increasing"
    DECREASING = "decreasing"


class OtherIntDirection(enum.IntEnum):
    INCREASING = 0
    DECREASING = 1

