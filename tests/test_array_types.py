"""What every NumPy-level scan does with inputs that are not plain ndarrays (simdscan/_array_types.py): an ndarray
subclass comes back as NumPy's own scans return it (``__array_wrap__``, numpy.matrix included), a masked array is
scanned with masked elements as the op's identity and comes back masked where it was (numpy.ma.cumsum's rule, which
numpy.ma.cumsum / numpy.ma.cumprod are the reference for), and a Dask array goes, lazily, to simdscan.dask."""

import subprocess
import sys

import numpy as np
import pytest

import simdscan
from reference import apply_layout, directional

# Each scan: NumPy's accumulate of the same op (in the input's dtype), the identity a masked element takes.
SCANS = {
    "cumsum": (np.add, 0),
    "cumprod": (np.multiply, 1),
    "cummax": (np.maximum, -np.inf),
    "cummin": (np.minimum, np.inf),
    "nancumsum": (np.add, 0),
    "nancumprod": (np.multiply, 1),
    "nancummax": (np.fmax, -np.inf),
    "nancummin": (np.fmin, np.inf),
    "logcumsumexp": (np.logaddexp, -np.inf),
}
CUMULATIVE = {"cumulative_sum": (np.cumulative_sum, 0), "cumulative_prod": (np.cumulative_prod, 1)}

pytestmark = pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")


class Tagged(np.ndarray):
    """An ndarray subclass that NumPy's scans return as itself."""


def values():
    """A 3x4 float64 array of small integers (every sum and product exact), a NaN among them."""
    return np.array([[2.0, -1.0, 3.0, 0.5], [np.nan, 4.0, -2.0, 1.0], [1.0, 2.0, 0.25, -3.0]])


def reference(name, x, axis, decreasing, exclusive):
    """simdscan's scan ``name`` of the plain array ``x``, from NumPy's accumulate (NaN skipped by the nan scans)."""
    ufunc, identity = SCANS[name]
    if name in ("nancumsum", "nancumprod"):
        x = np.where(np.isnan(x), identity, x)
    if axis is None:
        x, axis = x.reshape(-1), 0
    with np.errstate(invalid="ignore"):
        return directional(ufunc.accumulate, x, axis, decreasing, exclusive, identity, dtype=x.dtype)


def subclassed(kind):
    x = values()[:2, :3]
    return x.view(Tagged) if kind == "subclass" else np.matrix(x)


@pytest.mark.parametrize("name", list(SCANS))
@pytest.mark.parametrize("kind", ["subclass", "matrix"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_subclasses_come_back_as_numpy_returns_them(name, kind, axis):
    a = subclassed(kind)
    got = getattr(simdscan, name)(a, axis)
    like = np.cumsum(a, axis)  # NumPy's type and shape for this input: the matrix's (1, n) for axis=None
    assert type(got) is type(like) and got.shape == like.shape
    want = reference(name, np.asarray(a), axis, False, False)
    np.testing.assert_allclose(np.asarray(got).reshape(want.shape), want, rtol=1e-15)


@pytest.mark.parametrize("name", list(CUMULATIVE))
@pytest.mark.parametrize("kind", ["subclass", "matrix"])
@pytest.mark.parametrize("axis", [0, 1])
def test_subclasses_of_the_cumulative_scans(name, kind, axis):
    a = subclassed(kind)
    for include_initial in (False, True):
        got = getattr(simdscan, name)(a, axis=axis, include_initial=include_initial)
        want = CUMULATIVE[name][0](a, axis=axis, include_initial=include_initial)
        # np.cumsum's type; NumPy's include_initial=True concatenates, which drops a subclass of no priority
        assert type(got) is type(a) and got.shape == want.shape
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-15)


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_subclass_values_and_indices(name):
    a = np.matrix([[3, 1, 4], [1, 5, 9]])
    values_, indices = getattr(simdscan, name)(a, 1, return_indices=True)
    assert type(values_) is np.matrix and type(indices) is np.matrix
    np.testing.assert_array_equal(values_, getattr(np, name.replace("cum", "")[:3] + "imum").accumulate(a, 1))
    values_, indices = getattr(simdscan, name)(a, None, return_indices=True)
    assert type(values_) is np.matrix and values_.shape == indices.shape == (1, 6)


@pytest.mark.parametrize("name", list(SCANS))
def test_subclass_out_is_returned_as_given(name):
    a = values().view(Tagged)
    plain, tagged = np.zeros((3, 4)), np.zeros((3, 4)).view(Tagged)
    assert getattr(simdscan, name)(a, 1, out=plain) is plain  # as np.cumsum(subclass, out=ndarray)
    assert getattr(simdscan, name)(a, 1, out=tagged) is tagged
    np.testing.assert_array_equal(np.asarray(tagged), plain)
    np.testing.assert_allclose(plain, reference(name, values(), 1, False, False), rtol=1e-15)


def masked_values(layout, shape):
    """A masked float64 array of small integers in ``layout`` with about a third masked, a NaN unmasked."""
    rng = np.random.default_rng(sum(shape) + len(layout))
    data = rng.integers(-3, 4, size=shape).astype(np.float64)
    mask = rng.random(shape) < 0.35
    if data.size:
        data.reshape(-1)[-1] = np.nan
        mask.reshape(-1)[-1] = False
    return np.ma.array(apply_layout(data, layout), mask=mask)


LAYOUTS = ["C", "fortran", "transposed", "reversed", "stepped", "readonly"]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape, axis", [((7,), None), ((7,), 0), ((4, 5), None), ((4, 5), 0), ((4, 5), -1),
                                         ((2, 3, 4), 1), ((0, 3), 1)])
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("decreasing", [False, True])
def test_masked_sums_and_products_are_numpy_mas(layout, shape, axis, name, decreasing):
    a = masked_values(layout, shape)
    before = a.copy()
    got = getattr(simdscan, name)(a, axis, direction="decreasing" if decreasing else "increasing")
    if decreasing:  # np.ma's scan of the reversed axis, reversed back
        line, along = (a.reshape(-1), 0) if axis is None else (a, axis)
        want = np.flip(getattr(np.ma, name)(np.flip(line, along), along), along)
    else:
        want = getattr(np.ma, name)(a, axis)
    assert isinstance(got, np.ma.MaskedArray)
    np.testing.assert_array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(want))
    np.testing.assert_array_equal(got.data, want.data)  # the masked places hold the running value, as NumPy's
    np.testing.assert_array_equal(a.data, before.data)
    np.testing.assert_array_equal(a.mask, before.mask)


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("out_kind", ["ndarray", "masked"])
def test_masked_out_as_numpy_mas(name, out_kind):
    a = masked_values("C", (4, 5))
    outs = [np.full((4, 5), 7.0) for _ in range(2)]
    if out_kind == "masked":
        outs = [np.ma.array(o, mask=False) for o in outs]
    got = getattr(simdscan, name)(a, 1, out=outs[0])
    want = getattr(np.ma, name)(a, 1, out=outs[1])
    assert got is outs[0] and type(got) is type(want)
    np.testing.assert_array_equal(np.ma.getdata(got), np.ma.getdata(want))
    np.testing.assert_array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(want))


def masked_reference(name, a, axis, decreasing, exclusive):
    """The rule: masked elements as the identity, the scan of the plain array, masked where ``a`` is."""
    filled = a.filled(SCANS[name][1])
    want = reference(name, filled, axis, decreasing, exclusive)
    return np.ma.array(want, mask=np.ma.getmaskarray(a).reshape(want.shape))


@pytest.mark.parametrize("name", list(SCANS))
@pytest.mark.parametrize("layout", ["C", "transposed", "stepped"])
@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("decreasing, exclusive", [(False, False), (False, True), (True, False), (True, True)])
def test_masked_family_follows_the_rule(name, layout, axis, decreasing, exclusive):
    a = masked_values(layout, (4, 5))
    got = getattr(simdscan, name)(a, axis, direction="decreasing" if decreasing else "increasing",
                                  exclusive=exclusive)
    want = masked_reference(name, a, axis, decreasing, exclusive)
    assert isinstance(got, np.ma.MaskedArray) and got.shape == want.shape
    np.testing.assert_array_equal(got.mask, want.mask)
    np.testing.assert_allclose(got.data, want.data, rtol=1e-13 if name == "logcumsumexp" else 0)


@pytest.mark.parametrize("name", ["cummax", "cummin", "nancummax", "nancummin", "logcumsumexp"])
@pytest.mark.parametrize("dtype", [np.int16, np.uint8, np.bool_])
def test_masked_identities_of_integers_and_bools(name, dtype):
    data = np.array([[3, 0, 5, 1], [2, 7, 0, 4]]).astype(dtype)
    a = np.ma.array(data, mask=[[1, 0, 0, 1], [0, 1, 0, 0]])
    got = getattr(simdscan, name)(a, 1, exclusive=True)
    if name == "logcumsumexp":  # integers compute in float64, where -inf is the identity
        filled = np.where(a.mask, -np.inf, data.astype(np.float64))
        want = directional(np.logaddexp.accumulate, filled, 1, False, True, -np.inf)
        np.testing.assert_allclose(got.data, want, rtol=1e-15)
    else:
        high = name.endswith("min")
        far = (dtype(high) if dtype is np.bool_ else
               np.iinfo(dtype).max if high else np.iinfo(dtype).min)
        ufunc = np.minimum if high else np.maximum
        want = directional(ufunc.accumulate, np.where(a.mask, far, data).astype(dtype), 1, False, True, far)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got.data, want)
    np.testing.assert_array_equal(got.mask, a.mask)


def test_masked_integer_logcumsumexp_in_a_given_dtype():
    a = np.ma.array([0, 1, 2], mask=[0, 1, 0], dtype=np.int16)
    got = simdscan.logcumsumexp(a, dtype=np.dtype(np.float32))  # (an np.dtype is falsy: no `or` default)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got.data, np.logaddexp.accumulate(np.array([0, -np.inf, 2], np.float32)), rtol=1e-6)
    np.testing.assert_array_equal(got.mask, a.mask)


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_masked_values_and_indices(name):
    a = np.ma.array([[3.0, 9.0, 1.0, 4.0], [2.0, 0.0, 8.0, 8.0]], mask=[[0, 1, 0, 0], [1, 0, 0, 0]])
    got_values, got_indices = getattr(simdscan, name)(a, 1, return_indices=True)
    filled = a.filled(SCANS[name][1])
    want_values, want_indices = getattr(simdscan, name)(filled, 1, return_indices=True)
    for got, want in ((got_values, want_values), (got_indices, want_indices)):
        assert isinstance(got, np.ma.MaskedArray)
        np.testing.assert_array_equal(got.data, want)
        np.testing.assert_array_equal(got.mask, a.mask)
    np.testing.assert_array_equal(want_values, reference(name, filled, 1, False, False))
    out = (np.ma.zeros((2, 4)), np.zeros((2, 4), dtype=np.intp))
    assert getattr(simdscan, name)(a, 1, out=out, return_indices=True) is out
    np.testing.assert_array_equal(out[0].mask, a.mask)
    np.testing.assert_array_equal(out[1], want_indices)


@pytest.mark.parametrize("name", list(CUMULATIVE))
@pytest.mark.parametrize("include_initial", [False, True])
@pytest.mark.parametrize("direction", ["increasing", "decreasing"])
def test_masked_cumulative(name, include_initial, direction):
    a = masked_values("C", (3, 4))
    numpy_scan, identity = CUMULATIVE[name]
    got = getattr(simdscan, name)(a, axis=1, include_initial=include_initial, direction=direction)
    filled = a.filled(identity)
    if direction == "decreasing":
        want = np.flip(numpy_scan(np.flip(filled, 1), axis=1, include_initial=include_initial), 1)
    else:
        want = numpy_scan(filled, axis=1, include_initial=include_initial)
    mask = np.ma.getmaskarray(a)
    if include_initial:
        mask = np.insert(mask, mask.shape[1] if direction == "decreasing" else 0, False, axis=1)
    np.testing.assert_array_equal(got.data, want)
    np.testing.assert_array_equal(got.mask, mask)


def test_masked_in_place_and_without_a_mask():
    a = np.ma.array([1.0, 2.0, 3.0, 4.0], mask=[0, 1, 0, 0])
    assert simdscan.cumsum(a, out=a) is a
    np.testing.assert_array_equal(a.data, [1.0, 1.0, 4.0, 8.0])
    np.testing.assert_array_equal(a.mask, [False, True, False, False])
    unmasked = np.ma.array([1, 2, 3], dtype=np.int32)
    got = simdscan.cumsum(unmasked)
    assert got.dtype == np.int32 and got.mask is np.ma.nomask
    np.testing.assert_array_equal(got.data, [1, 3, 6])


def test_masked_errors_leave_out_and_input_alone():
    a = np.ma.array([[1.0, 2.0], [3.0, 4.0]], mask=[[0, 1], [0, 0]])
    out = np.ma.array(np.full((2, 2), 7.0), mask=[[1, 1], [0, 0]])
    with pytest.raises(ValueError, match="direction"):
        simdscan.cumsum(a, 1, direction="sideways", out=out)
    with pytest.raises(TypeError, match="dtype"):
        simdscan.cumsum(a, 1, out=np.ma.zeros((2, 2), dtype=np.int32))
    with pytest.raises(np.exceptions.AxisError):
        simdscan.cummax(a, 2, out=out)
    assert (out.data == 7.0).all() and out.mask.tolist() == [[True, True], [False, False]]
    assert a.data.tolist() == [[1.0, 2.0], [3.0, 4.0]] and a.mask.tolist() == [[False, True], [False, False]]


class ComputingIsAnError(Exception):
    pass


def refuse(block):
    raise ComputingIsAnError("the graph was computed")


@pytest.mark.parametrize("name", [*SCANS, *CUMULATIVE])
def test_dask_arrays_go_to_simdscan_dask_lazily(name):
    da = pytest.importorskip("dask.array")
    import simdscan.dask

    x = da.from_array(values(), chunks=2).map_blocks(refuse, dtype=np.float64)
    function = getattr(simdscan, name)
    got = function(x, axis=1)
    assert isinstance(got, da.Array)
    expected_graph = getattr(simdscan.dask, name)(x, axis=1)
    assert got.name == expected_graph.name  # the same deterministic graph: simdscan.dask's
    with pytest.raises(ComputingIsAnError):
        got.compute()
    computed = function(da.from_array(values(), chunks=2), axis=1, **({"direction": "decreasing"}
                                                                      if name not in CUMULATIVE else {}))
    want = function(values(), axis=1, **({"direction": "decreasing"} if name not in CUMULATIVE else {}))
    np.testing.assert_allclose(computed.compute(), want, rtol=1e-13)


def test_dask_array_out_is_refused():
    da = pytest.importorskip("dask.array")
    with pytest.raises(TypeError, match="out="):
        simdscan.cumsum(da.ones(3, chunks=1), out=np.zeros(3))


def test_other_objects_keep_the_asarray_rule_and_import_no_dask():
    code = ("import sys, numpy as np, simdscan\n"
            "class Listish:\n    def __array__(self, dtype=None, copy=None): return np.arange(4)\n"
            "print(simdscan.cumsum(Listish()).tolist(), simdscan.cumsum([1, 2]).tolist(), 'dask' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["[0,", "1,", "3,", "6]", "[1,", "3]", "False"]


@pytest.mark.parametrize("name", list(SCANS))
@pytest.mark.parametrize("decreasing, exclusive", [(False, False), (False, True), (True, False), (True, True)])
def test_masked_dask_chunks_follow_the_rule(name, decreasing, exclusive):
    da = pytest.importorskip("dask.array")
    import simdscan.dask

    a = masked_values("C", (7, 5))
    direction = "decreasing" if decreasing else "increasing"
    got = getattr(simdscan.dask, name)(da.from_array(a, chunks=(3, 2), asarray=False), 0, direction=direction,
                                       exclusive=exclusive).compute()
    want = masked_reference(name, a, 0, decreasing, exclusive)
    np.testing.assert_array_equal(np.ma.getmaskarray(got), want.mask)
    np.testing.assert_allclose(np.ma.getdata(got), want.data, rtol=1e-13 if name == "logcumsumexp" else 0)
