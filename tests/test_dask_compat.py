"""Dask's own tests of its cumulative functions (shipped in the installed dask package), pointed at simdscan.dask:
the test functions are imported (nothing copied) and run with the names they call (dask.array's cumsum, cumprod,
nancumsum, nancumprod, cumreduction and Array's methods) monkeypatched to simdscan.dask's. Each deliberate difference
is a strict xfail naming the README rule it follows."""

import dask.array as da
import numpy as np
import pytest

import simdscan
import simdscan.dask

ABSENT = "this dask was installed without its own test modules (dask/array/tests), which this run imports"
dask_reductions = pytest.importorskip("dask.array.tests.test_reductions", reason=ABSENT)
pytest.importorskip("dask.array.tests.test_array_core", reason=ABSENT)
pytest.importorskip("dask.array.tests.test_masked", reason=ABSENT)

from dask.array.tests.test_array_core import test_cumulative as test_cumulative  # noqa: E402
from dask.array.tests.test_masked import test_cumulative as test_masked_cumulative  # noqa: E402
from dask.array.tests.test_reductions import (  # noqa: E402
    test_array_cumreduction_axis as test_array_cumreduction_axis,
    test_array_cumreduction_dtype as test_array_cumreduction_dtype,
    test_array_cumreduction_ufunc as test_array_cumreduction_ufunc,
)

NO_BLELLOCH = ("README, Dask: method= is accepted, and simdscan's chunk carries are its own either way, so Dask's "
               "blelloch overflow warning for cumprod over the flattened array does not come")
NO_OUT = "README, Dask: simdscan.dask's functions take no out= (a Dask array given one raises TypeError)"

# ufunc.accumulate -> simdscan.dask's scan of the same op, for dask.array.reductions.cumreduction
_BY_UFUNC = {np.add: "cumsum", np.multiply: "cumprod", np.maximum: "cummax", np.minimum: "cummin"}


def _cumreduction(func, binop, ident, x, axis=None, dtype=None, out=None, method="sequential", preop=None):
    """dask.array.reductions.cumreduction(accumulate, ufunc, identity, x, ...) by simdscan.dask."""
    name = _BY_UFUNC[binop]
    if "dtype" in simdscan.dask.__dict__[name].__code__.co_varnames:
        return simdscan.dask.__dict__[name](x, axis, dtype=dtype, method=method)
    return simdscan.dask.__dict__[name](x if dtype is None else x.astype(dtype), axis, method=method)


def _method(name):
    """dask.array.Array's method ``name`` (cumsum, cumprod) by simdscan.dask."""
    def scan(self, axis, dtype=None, out=None, *, method="sequential"):
        if out is not None:
            raise TypeError(NO_OUT)
        return getattr(simdscan.dask, name)(self, axis, dtype=dtype, method=method)
    return scan


@pytest.fixture(autouse=True)
def _dask_names_point_at_simdscan(monkeypatch, request):
    for name in ("cumsum", "cumprod", "nancumsum", "nancumprod"):
        monkeypatch.setattr(da, name, getattr(simdscan.dask, name))
    monkeypatch.setattr(da.reductions, "cumreduction", _cumreduction)
    monkeypatch.setattr(da.Array, "cumsum", _method("cumsum"))
    monkeypatch.setattr(da.Array, "cumprod", _method("cumprod"))
    params = getattr(request.node, "callspec", None)
    if params is not None and request.node.name.startswith("test_array_cumreduction_axis"):
        p = params.params
        if p["func"] in ("cumprod", "nancumprod") and p["method"] == "blelloch" and p["axis"] is None:
            request.applymarker(pytest.mark.xfail(strict=True, reason=NO_BLELLOCH))


@pytest.mark.xfail(strict=True, raises=TypeError, reason=NO_OUT)
@pytest.mark.parametrize("func", [simdscan.cumsum, simdscan.cumprod])
def test_array_cumreduction_out(func):
    dask_reductions.test_array_cumreduction_out(func)
