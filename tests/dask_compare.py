"""simdscan.dask's results against simdscan's: the comparison the test_dask_*.py files share (imports dask)."""

import dask.array as da
import numpy as np
from dask.callbacks import Callback

import simdscan.dask as sdask
from family_reference import LOGCUMSUMEXP_RTOL
from params import func
from reference import check_scan

DIRECTIONS = ["increasing", "decreasing"]
#: (shape, chunks): empty chunks beside an axis of length 1 (along it and across it, which Dask's elementwise
#: broadcasting takes for a broadcast axis), and beside longer ones
EMPTY_CHUNK_CASES = [
    ((1,), ((0, 1),)), ((1,), ((1, 0),)), ((1,), ((0, 1, 0),)), ((5,), ((2, 0, 3),)), ((5,), ((0, 5),)),
    ((1, 3), ((0, 1), (2, 0, 1))), ((3, 1), ((2, 0, 1), (0, 1))), ((5, 1), ((2, 0, 3), (1, 0))),
    ((1, 5), ((1, 0), (0, 2, 0, 3))), ((5, 3), ((0, 5), (3, 0))),
]
EMPTY_CHUNK_IDS = [f"{shape}-{chunks}".replace(" ", "") for shape, chunks in EMPTY_CHUNK_CASES]


class TaskCounter(Callback):
    """Counts the tasks Dask runs while it is entered (laziness: none while a graph is built)."""

    def __init__(self):
        super().__init__()
        self.tasks = 0

    def _pretask(self, key, dsk, state):
        self.tasks += 1


def check_logcumsumexp_close(got, want, nb, where):
    """A Dask logcumsumexp against the whole array's: the same non-finite values at the same places, the finite ones
    within one rounding of logaddexp a chunk boundary (nb boundaries) in float64, LOGCUMSUMEXP_RTOL below it."""
    finite = np.isfinite(want)
    np.testing.assert_array_equal(np.isfinite(got), finite, err_msg=where)
    np.testing.assert_array_equal(got[~finite], want[~finite], err_msg=where)
    g, w = got[finite].astype(np.float64), want[finite].astype(np.float64)
    if want.dtype == np.float64:
        bound = (nb + 1) * 4 * np.finfo(np.float64).eps * (1 + np.abs(w))
    else:
        bound = LOGCUMSUMEXP_RTOL[want.dtype.name] * (1 + np.abs(w)) + np.spacing(np.abs(want[finite]))
    assert np.all(np.abs(g - w) <= bound), f"{where}: off by {np.max(np.abs(g - w) - bound)} beyond the bound"


def check_close(got, want, name, nb, where):
    """A Dask scan ``name`` against the whole array's: the same dtype and shape, exact but for logcumsumexp."""
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype}, simdscan gives {want.dtype}"
    assert got.shape == want.shape, f"{where}: shape {got.shape}, simdscan gives {want.shape}"
    if name != "logcumsumexp" or want.size == 0:
        np.testing.assert_array_equal(got, want, err_msg=where)
        return
    check_logcumsumexp_close(got, want, nb, where)


def as_form(r, form):
    """A reset ``r`` in the form (kind, dtype): a NumPy array, or a Dask one in two chunks a dimension."""
    kind, dtype = form
    values = np.asarray(r).astype(dtype)
    if kind == "numpy":
        return values
    return da.from_array(values, chunks=tuple(max(1, -(-n // 2)) for n in values.shape))


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
