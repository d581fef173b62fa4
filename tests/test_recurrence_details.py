"""simdscan.linear_recurrence and simdscan.discounted_cumsum: ``axis=None``, and the result
dtype with an ``initial`` of another dtype.

axis=None runs the recurrence along b flattened in C order, as ``numpy.cumsum(x, axis=None)`` and simdscan's other
scans do: ``a`` and ``reset`` are broadcast to b's shape and flattened with it, ``initial`` is a scalar (the line
shape of a 1-D result is ``()``), ``out`` has the flattened shape. Checked against the reference loop in extended
precision (recurrence_reference.py) run on arrays this file flattens with NumPy itself, against ``np.cumsum`` for
a = 1, bit for bit against the 1-D call on the flattened arrays (the Dask
form: test_dask_recurrence_details.py).

``initial`` takes no part in the result's dtype (that of ``a`` and ``b``, or ``dtype=``): it is read in it, by
'same_kind' rules (TypeError for a complex initial with a real result).
"""

import tracemalloc

import numpy as np
import pytest

import simdscan
from data import seed_of
from family_reference import assert_same_bits
from params import scattered_outs, stepped_reversed_out
from recurrence_reference import (BAD_AXIS_NONE, check_close, check_flat, coefficients, flat, recurrence, result_dtype,
                                  terms)
from reference import apply_layout, assert_unchanged, snapshot

pytestmark = pytest.mark.kernels

DTYPES = ["float32", "float64", "complex64", "complex128"]
SHAPES = [(5, 7), (3, 4, 6), (2, 1, 9)]
A_KINDS = ["python scalar", "numpy scalar", "full", "broadcast"]
RESET_KINDS = ["none", "full", "broadcast"]
INITIAL_KINDS = ["none", "python scalar", "0-d array"]


def lr(a, b, axis=-1, decreasing=False, exclusive=False, **kw):
    return simdscan.linear_recurrence(a, b, axis, direction="decreasing" if decreasing else "increasing",
                                      exclusive=exclusive, **kw)


def make_a(kind, rng, shape, dtype):
    if kind == "python scalar":
        return complex(0.5, -0.25) if np.dtype(dtype).kind == "c" else -0.75
    if kind == "numpy scalar":
        return np.dtype(dtype).type(0.625)
    if kind == "broadcast":  # one value per element of the last axis, repeated along the others
        return coefficients(rng, (1,) * (len(shape) - 1) + shape[-1:], dtype)
    return coefficients(rng, shape, dtype)


def make_reset(kind, rng, shape):
    if kind == "none":
        return None
    if kind == "broadcast":  # the first axis' rows flagged, repeated along the others
        return rng.random(shape[:1] + (1,) * (len(shape) - 1)) < 0.5
    return rng.random(shape) < 0.15


def make_initial(kind, dtype):
    if kind == "none":
        return None
    if kind == "python scalar":
        return complex(1.5, 0.5) if np.dtype(dtype).kind == "c" else 1.5
    return np.array(-2.25, dtype)


# --------------------------------------------------------------------------
# axis=None: values
# --------------------------------------------------------------------------
@pytest.mark.parametrize("shape", SHAPES, ids=[str(s) for s in SHAPES])
@pytest.mark.parametrize("dtype", DTYPES)
def test_axis_none_against_the_loop(dtype, shape):
    """Every form of a, reset and initial, both directions, inclusive and exclusive: the loop's values along the
    flattened b, 1-D, and the bits of the 1-D call on the flattened arrays."""
    rng = np.random.default_rng(seed_of("axis None", dtype, shape))
    b = terms(rng, shape, dtype)
    snap = snapshot(b)
    for a_kind in A_KINDS:
        a = make_a(a_kind, rng, shape, dtype)
        for reset_kind in RESET_KINDS:
            reset = make_reset(reset_kind, rng, shape)
            for initial_kind in INITIAL_KINDS:
                initial = make_initial(initial_kind, dtype)
                for decreasing in (False, True):
                    for exclusive in (False, True):
                        where = (f"{dtype} {shape} a {a_kind}, reset {reset_kind}, initial {initial_kind}, "
                                 f"decreasing={decreasing} exclusive={exclusive}")
                        got = lr(a, b, None, decreasing, exclusive, initial=initial, reset=reset)
                        check_flat(got, a, b, decreasing, exclusive, initial, reset, where=where)
                        one_d = lr(flat(a, shape), np.ascontiguousarray(b).reshape(-1), 0, decreasing, exclusive,
                                   initial=initial, reset=flat(reset, shape))
                        assert_same_bits(got, one_d, where + ": vs the 1-D call")
    assert_unchanged(b, snap, "b")


@pytest.mark.parametrize("layout", ["fortran", "transposed", "stepped", "reversed", "broadcast", "byteswapped",
                                    "readonly"])
@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_axis_none_layouts(dtype, layout):
    """b (and a full-shape a) in any layout walk in C order of their logical shape."""
    rng = np.random.default_rng(seed_of("axis None layouts", dtype, layout))
    base, a_base = terms(rng, (4, 3, 5), dtype), coefficients(rng, (4, 3, 5), dtype)
    b, a = apply_layout(base, layout), apply_layout(a_base, layout)
    r = rng.random(base.shape) < 0.2
    for decreasing in (False, True):
        where = f"{dtype} {layout} decreasing={decreasing}"
        got = lr(a, b, None, decreasing, initial=0.5, reset=r)
        check_flat(got, a, b, decreasing, initial=0.5, reset=r, where=where)
        assert_same_bits(got, lr(np.array(a), np.array(b), None, decreasing, initial=0.5, reset=r),
                         where + ": vs C order")


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_axis_none_is_numpy_cumsum_for_a_1(dtype):
    """a = 1: np.cumsum(b, axis=None) (exact on integer values), from the end as the flipped cumsum; with reset, the
    cumsum of each segment of the flattened b."""
    rng = np.random.default_rng(seed_of("axis None cumsum", dtype))
    for shape in [(6, 8), (2, 3, 5)]:
        b = rng.integers(-50, 50, shape).astype(dtype)
        want = np.cumsum(b, axis=None)
        np.testing.assert_array_equal(lr(1.0, b, None), want, strict=True)
        np.testing.assert_array_equal(lr(np.ones(shape, dtype), b, None), want, strict=True)
        np.testing.assert_array_equal(lr(1.0, b, None, decreasing=True), np.cumsum(b.reshape(-1)[::-1])[::-1],
                                      strict=True)
        np.testing.assert_array_equal(lr(1.0, b, None, exclusive=True, initial=3),
                                      np.concatenate([[3], 3 + want[:-1]]).astype(dtype), strict=True)
        # reset at the start of every row of the last axis: each row a segment of its own
        row_starts = np.zeros(shape, bool)
        row_starts[..., 0] = True
        np.testing.assert_array_equal(lr(1.0, b, None, reset=row_starts),
                                      np.cumsum(b, axis=-1).reshape(-1), strict=True)
        first_column = np.arange(shape[-1]) == 0  # (broadcast to b's shape: the same flags)
        np.testing.assert_array_equal(lr(1.0, b, None, reset=first_column), np.cumsum(b, axis=-1).reshape(-1),
                                      strict=True)


def test_axis_none_by_hand():
    exact = np.testing.assert_array_equal
    b = np.ones((2, 2))
    exact(simdscan.linear_recurrence(0.5, b, axis=None), [1, 1.5, 1.75, 1.875], strict=True)
    exact(simdscan.linear_recurrence(0.5, b, axis=None, direction="decreasing"), [1.875, 1.75, 1.5, 1], strict=True)
    exact(simdscan.linear_recurrence([[1.0, 2.0], [0.5, 0.0]], [[1.0, 1.0], [1.0, 1.0]], axis=None, initial=1.0),
          [2, 5, 3.5, 1], strict=True)
    exact(simdscan.linear_recurrence(0.5, b, axis=None, reset=[[0, 0], [1, 0]], initial=4.0), [3, 2.5, 3, 2.5],
          strict=True)
    exact(simdscan.discounted_cumsum(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), 0.5, axis=None),
          [3.75, 5.5, 7.0, 8.0, 8.0, 6.0], strict=True)
    # 0-d and empty: shape (1,) and (0,)
    exact(simdscan.linear_recurrence(0.5, np.array(3.0), axis=None, initial=2.0), [4.0], strict=True)
    got = simdscan.linear_recurrence(0.5, np.zeros((0, 3), np.float32), axis=None)
    assert got.shape == (0,) and got.dtype == np.float32


@pytest.mark.parametrize("dtype", DTYPES)
def test_axis_none_out(dtype):
    """out= of the flattened shape: C-contiguous, at every offset and stepped by 2, 3 and -1, and a stepped reversed
    view inside a buffer (nothing else of it written): the bits of the result without out."""
    rng = np.random.default_rng(seed_of("axis None out", dtype))
    shape = (3, 4, 5)
    b, a = terms(rng, shape, dtype), coefficients(rng, shape, dtype)
    r = rng.random(shape) < 0.2
    n = b.size
    for k, (name, out) in enumerate(scattered_outs((n,), dtype).items()):
        decreasing, exclusive = bool(k % 2), bool(k % 3 == 1)
        aa = a if k % 2 else 0.5
        kw = dict(initial=-1.5, reset=r if k % 4 else None)
        got = lr(aa, b, None, decreasing, exclusive, out=out, **kw)
        assert got is out, f"{name}: not the given out"
        assert_same_bits(out, lr(aa, b, None, decreasing, exclusive, **kw), f"{dtype} {name}")
        check_flat(out, aa, b, decreasing, exclusive, where=f"{dtype} {name}", **kw)
    view, buf, outside = stepped_reversed_out((n,), dtype, 57)
    for decreasing in (False, True):
        assert lr(a, b, None, decreasing, out=view, reset=r) is view
        assert_same_bits(view, lr(a, b, None, decreasing, reset=r), "stepped reversed out")
        assert (buf[outside] == 57).all(), "elements of out's buffer outside out were written"
    # discounted_cumsum too
    out = np.empty(n, dtype)
    assert simdscan.discounted_cumsum(b, a, axis=None, reset=r, out=out) is out
    check_flat(out, a, b, True, reset=r, where=f"{dtype} discounted_cumsum out=")


@pytest.mark.parametrize("dtype", ["float64", "complex64"])
def test_axis_none_in_place(dtype):
    """out= the flattened view of b (in place): the result written into b itself, the bits of a fresh result."""
    rng = np.random.default_rng(seed_of("axis None in place", dtype))
    b0, a = terms(rng, (6, 9), dtype), coefficients(rng, (6, 9), dtype)
    r = rng.random(b0.shape) < 0.2
    for decreasing in (False, True):
        want = lr(a, b0, None, decreasing, initial=2.0, reset=r)
        b = b0.copy()
        view = b.reshape(-1)
        assert np.shares_memory(view, b)
        assert lr(a, b, None, decreasing, initial=2.0, reset=r, out=view) is view
        assert_same_bits(view, want, f"in place decreasing={decreasing}")
        assert_same_bits(b, want.reshape(b.shape), "b itself holds the result")


def test_axis_none_does_not_copy_b():
    """A C-contiguous b (and a of its shape) flatten as views: with out= given, nothing of b's size is allocated."""
    b = np.ones((512, 512))
    a = np.full(b.shape, 0.5)
    out = np.empty(b.size)
    lr(a, b, None, out=out)  # (first call outside the trace: nothing lazily imported or cached counted)
    tracemalloc.start()
    try:
        lr(a, b, None, out=out, initial=1.0)
        lr(0.5, b, None, out=out, decreasing=True)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < b.nbytes // 4, f"{peak} bytes allocated for a b of {b.nbytes}"
    np.testing.assert_array_equal(out[-3:], [1.75, 1.5, 1.0])


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_discounted_cumsum_axis_none(dtype):
    rng = np.random.default_rng(seed_of("discounted axis None", dtype))
    x = terms(rng, (4, 3, 7), dtype)
    gamma = coefficients(rng, x.shape, "float32" if dtype == "float32" else "float64", 0.0, 1.0)
    r = rng.random(x.shape) < 0.1
    for g in (0.9, gamma, gamma[:1, :1]):
        for reset in (None, r):
            got = simdscan.discounted_cumsum(x, g, axis=None, reset=reset)
            check_flat(got, g, x, True, reset=reset, where=f"{dtype} gamma {np.shape(g)} reset {reset is not None}")


# --------------------------------------------------------------------------
# axis=None: bad shapes
# --------------------------------------------------------------------------
def _raises_leaving_alone(error, fn, *args, **kw):
    watched = [(x, snapshot(x)) for x in list(args) + list(kw.values()) if isinstance(x, np.ndarray)]
    with pytest.raises(error):
        fn(*args, **kw)
    for x, snap in watched:
        assert_unchanged(x, snap, "an argument")




@pytest.mark.parametrize("name, error, kw", BAD_AXIS_NONE, ids=[c[0] for c in BAD_AXIS_NONE])
def test_axis_none_errors(name, error, kw):
    """Each bad argument raises what the function raises for it along an axis, leaving a, b, initial, reset and out
    alone (the Dask form: test_dask_recurrence_details.py)."""
    rng = np.random.default_rng(seed_of("axis None errors"))
    kw = dict(kw)
    a = kw.pop("a", coefficients(rng, (3, 4), "float64"))
    b = terms(rng, (3, 4), "float64")
    _raises_leaving_alone(error, simdscan.linear_recurrence, a, b, axis=None, **kw)
    if "out" not in kw:
        _raises_leaving_alone(error, simdscan.linear_recurrence, a, b, axis=None, out=np.zeros(12), **kw)
        if "initial" not in kw:
            _raises_leaving_alone(error, simdscan.discounted_cumsum, b, a, axis=None, **kw)


def test_axis_none_initial_as_for_a_1d_b():
    """initial for axis=None follows the rule of a 1-D b's line shape (): a scalar or shape (), not (1,)."""
    b = np.ones((2, 3))
    for initial in (np.float64(2.0), np.array(2.0), 2):
        np.testing.assert_array_equal(lr(0.5, b, None, initial=initial), lr(0.5, b.reshape(-1), 0, initial=initial),
                                      strict=True)
    for shape in [(1,), (1, 1)]:
        with pytest.raises(ValueError):
            lr(0.5, b.reshape(-1), 0, initial=np.zeros(shape))
        with pytest.raises(ValueError):
            lr(0.5, b, None, initial=np.zeros(shape))


# --------------------------------------------------------------------------
# the result dtype: never initial's
# --------------------------------------------------------------------------
AB_DTYPES = [("float32", "float32"), ("float64", "float64"), ("float32", "float64"), ("float64", "float32"),
             ("complex64", "complex64"), ("float32", "complex64")]
INITIAL_DTYPES = ["float16", "float32", "float64", "int8", "int32", "int64", "uint64", "bool", "complex64",
                  "complex128"]


def _initial_of(form, dtype, line_shape, rng):
    values = terms(rng, line_shape, dtype)
    if form == "lines":
        return values
    if form == "0-d":
        return np.asarray(values.reshape(-1)[0])
    return values.reshape(-1)[0]  # a NumPy scalar


@pytest.mark.parametrize("a_dtype, b_dtype", AB_DTYPES, ids=["-".join(p) for p in AB_DTYPES])
def test_initial_takes_no_part_in_the_dtype(a_dtype, b_dtype):
    """initial of any dtype, as an array per line, 0-d or a NumPy scalar: the result is of a and b's dtype, its values
    the loop's (initial read in the result dtype); a complex initial with a real result raises TypeError."""
    rng = np.random.default_rng(seed_of("initial dtype", a_dtype, b_dtype))
    shape = (4, 9)
    b, a = terms(rng, shape, b_dtype), coefficients(rng, shape, a_dtype)
    want_dtype = result_dtype(a, b)
    assert want_dtype == np.result_type(a, b)
    for initial_dtype in INITIAL_DTYPES:
        for form in ("lines", "0-d", "scalar"):
            for axis in (0, 1):
                initial = _initial_of(form, initial_dtype, shape[1 - axis:2 - axis], rng)
                where = f"a {a_dtype}, b {b_dtype}, initial {initial_dtype} {form}, axis={axis}"
                if np.dtype(initial_dtype).kind == "c" and want_dtype.kind != "c":
                    _raises_leaving_alone(TypeError, simdscan.linear_recurrence, a, b, axis, initial=initial)
                    continue
                for decreasing in (False, True):
                    got = lr(a, b, axis, decreasing, initial=initial)
                    assert got.dtype == want_dtype, f"{where}: {got.dtype}, expected {want_dtype}"
                    check_close(got, recurrence(a, b, axis, decreasing, initial=initial), want_dtype, axis,
                                decreasing, where=where)
                    # with a scalar a too, and along the flattened b (initial a scalar there)
                    got = lr(a.dtype.type(0.5), b, axis, decreasing, initial=initial)
                    assert got.dtype == want_dtype, where + " scalar a"
                    if form != "lines":
                        got = lr(a, b, None, decreasing, initial=initial)
                        assert got.dtype == want_dtype, where + " axis=None"
                        check_flat(got, a, b, decreasing, initial=initial, where=where + " axis=None")


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
def test_initial_and_dtype_argument(dtype):
    """dtype= decides alone: initial of a wider or narrower dtype is read in it."""
    rng = np.random.default_rng(seed_of("initial dtype=", dtype))
    b, a = terms(rng, (3, 8), "float64"), coefficients(rng, (3, 8), "float64")
    for initial_dtype in ("float16", "float32", "float64", "int64", "complex64", "complex128"):
        initial = terms(rng, (3,), initial_dtype)
        if np.dtype(initial_dtype).kind == "c" and np.dtype(dtype).kind != "c":
            _raises_leaving_alone(TypeError, simdscan.linear_recurrence, a, b, initial=initial, dtype=dtype)
            continue
        got = lr(a, b, initial=initial, dtype=dtype)
        assert got.dtype == dtype, f"dtype={dtype}, initial {initial_dtype}: {got.dtype}"
        check_close(got, recurrence(a, b, initial=initial, dtype=dtype), np.dtype(dtype),
                    where=f"dtype={dtype} initial {initial_dtype}")
        out = np.empty(b.shape, dtype)
        assert lr(a, b, initial=initial, dtype=dtype, out=out) is out
        assert_same_bits(out, got, "out=")


def test_python_scalar_initial_stays_weak():
    """Python numbers never widened the result either: float32 stays float32; a Python complex needs a complex
    result."""
    b = np.ones(5, np.float32)
    for initial in (1.5, 2, True):
        assert lr(0.5, b, initial=initial).dtype == np.float32
    assert lr(0.5, b.astype(np.complex64), initial=1 + 2j).dtype == np.complex64
    with pytest.raises(TypeError):
        lr(0.5, b, initial=1 + 2j)
