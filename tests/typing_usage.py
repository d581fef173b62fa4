"""simdscan's public API as a typed program uses it: checked by ``mypy --strict`` (tests/test_typing.py), and run.

Every public name is used with realistic types, and ``assert_type`` pins what the stubs promise (it checks at
type-check time and does nothing at run time); plain ``assert`` checks the same values when the file runs.
This is not a test module (pytest collects test_*.py only): tests/test_typing.py runs mypy on it and runs it.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Optional, Sequence, Union

import dask.array as da
import numpy as np
import numpy.typing as npt

import simdscan
import simdscan.dask
from simdscan import Direction
from simdscan.__main__ import main as command_line

if sys.version_info >= (3, 11):
    from typing import assert_type
else:  # mypy depends on typing_extensions, so it is there wherever this file is checked
    from typing_extensions import assert_type

Scan = Callable[..., npt.NDArray[Any]]


def offsets_from_counts(counts: Sequence[int]) -> npt.NDArray[np.int64]:
    """CSR row offsets: each row starts where the rows before it end (an exclusive sum)."""
    return simdscan.cumsum(np.asarray(counts, dtype=np.int64), exclusive=True)


def suffix_totals(values: npt.NDArray[np.float32], axis: int = -1) -> npt.NDArray[np.float32]:
    """The total of each element and everything after it along ``axis``."""
    return simdscan.cumsum(values, axis, direction=Direction.DECREASING)


def survival(p_fail: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """The chance that every later stage survives, per stage (decreasing, exclusive product)."""
    return simdscan.cumprod(1.0 - p_fail, direction="decreasing", exclusive=True)


def scan_into(
    scan: Scan,
    data: npt.ArrayLike,
    out: Optional[npt.NDArray[Any]] = None,
    *,
    direction: Union[Direction, str] = "increasing",
    exclusive: bool = False,
    dtype: Optional[npt.DTypeLike] = None,
) -> npt.NDArray[Any]:
    """Forwards every keyword, typed as a wrapper library would type it."""
    return scan(data, 0, direction=direction, exclusive=exclusive, dtype=dtype, out=out)


def summed_area_table(image: da.Array) -> da.Array:
    """A lazy summed-area table (integral image): prefix sums down the rows, then along them, in float64."""
    return simdscan.dask.cumsum(simdscan.dask.cumsum(image, axis=0, dtype=np.float64), axis=1)


def main() -> None:
    # module facts
    assert_type(simdscan.__version__, str)
    assert_type(simdscan.isa(), str)
    assert_type(simdscan.supported_isas(), list[str])
    assert simdscan.isa() in simdscan.supported_isas()
    threads: int = simdscan.get_num_threads()
    assert_type(simdscan.get_num_threads(), int)
    simdscan.set_num_threads(1)
    assert simdscan.get_num_threads() == 1
    simdscan.set_num_threads(threads)

    # Direction
    assert_type(Direction("decreasing"), Direction)
    assert Direction("decreasing") is Direction.DECREASING
    directions: list[Union[Direction, str]] = [Direction.INCREASING, "decreasing"]

    # cumsum / cumprod: positional axis, keywords, every flag, out=
    x = np.arange(1, 13, dtype=np.float32).reshape(3, 4)
    r = simdscan.cumsum(x, 1)
    assert_type(r, npt.NDArray[Any])
    assert r.dtype == np.float32 and r.shape == (3, 4)
    flat: npt.NDArray[np.float32] = simdscan.cumsum(x)
    assert flat.shape == (12,)
    for direction in directions:
        for exclusive in (False, True):
            s = simdscan.cumsum(x, axis=0, direction=direction, exclusive=exclusive, dtype=None, out=None)
            p = simdscan.cumprod(x, axis=-1, direction=direction, exclusive=exclusive, dtype=np.float64)
            assert s.shape == x.shape and p.dtype == np.float64

    buf = np.ones((4, 3), dtype=np.int32)
    same = simdscan.cumsum(buf, axis=0, out=buf)
    assert same is buf and buf[-1, 0] == 4
    assert simdscan.cumprod(buf, 1, out=buf) is buf

    assert list(offsets_from_counts([3, 0, 2])) == [0, 3, 3]
    assert float(suffix_totals(np.ones(4, dtype=np.float32))[0]) == 4.0
    assert survival(np.array([0.5, 0.5, 0.0]))[-1] == 1.0
    assert scan_into(simdscan.cumprod, [1, 2, 3], exclusive=True).tolist() == [1, 1, 2]
    out = np.empty(3, dtype=np.int16)
    assert scan_into(simdscan.cumsum, (1, 2, 3), out, direction=Direction.DECREASING, dtype=np.int16) is out
    ops: list[Scan] = [simdscan.cumsum, simdscan.cumprod]
    assert all(op([2]).tolist() == [2] for op in ops)

    # Dask
    d = simdscan.dask.cumsum(da.arange(1, 9, chunks=3), direction="decreasing", exclusive=True)
    assert_type(d, da.Array)
    dp = simdscan.dask.cumprod(da.ones((4, 6), chunks=(2, 2)), axis=1, direction=Direction.INCREASING, dtype=np.float32)
    assert_type(dp, da.Array)
    table = summed_area_table(da.ones((6, 10), dtype=np.uint8, chunks=(4, 4)))
    # (Array.compute is untyped in Dask, so a --strict program computes through NumPy's __array__ protocol.)
    assert np.asarray(d).tolist() == [35, 33, 30, 26, 21, 15, 8, 0]
    assert np.asarray(dp).dtype == np.float32
    computed: npt.NDArray[np.float64] = np.asarray(table, dtype=np.float64)
    assert computed[-1, -1] == 60.0 and computed.dtype == np.float64

    # python -m simdscan, called as a function
    status: int = command_line(["info"])
    assert status == 0


if __name__ == "__main__":
    main()
