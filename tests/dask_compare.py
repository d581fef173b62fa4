"""simdscan.dask's results against simdscan's: the comparison the test_dask_*.py files share (imports dask)."""

import numpy as np

import simdscan.dask as sdask
from params import func
from reference import check_scan

DIRECTIONS = ["increasing", "decreasing"]


def dask_op(op):
    return getattr(sdask, op)


def compare(got, op, a, axis, direction, exclusive, dtype=None):
    """``got`` (computed) against simdscan on the whole array, and against the oracle's bound."""
    want = func(op)(a, axis, direction=direction, exclusive=exclusive, dtype=dtype)
    where = (
        f"simdscan.dask.{op}(shape={a.shape}, dtype={a.dtype}, axis={axis}, direction={direction}, "
        f"exclusive={exclusive}, dtype={dtype})"
    )
    assert isinstance(got, np.ndarray), where
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype}, simdscan gives {want.dtype}"
    assert got.shape == want.shape, f"{where}: shape {got.shape}, simdscan gives {want.shape}"
    if want.dtype.kind in "iub":
        np.testing.assert_array_equal(got, want, err_msg=where)
    check_scan(got, op, a, axis, direction == "decreasing", exclusive, dtype, msg=where)


def layer_names(x):
    return list(x.__dask_graph__().layers)
