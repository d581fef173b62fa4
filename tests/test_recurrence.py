"""simdscan.linear_recurrence and simdscan.discounted_cumsum.

linear_recurrence(a, b): increasing, y[i] = a[i] * y[i-1] + b[i]; decreasing, y[i] = a[i] * y[i+1] + b[i]; the state
before the first element of the walk is ``initial`` (default 0; a scalar or an array broadcastable to b's shape
without ``axis``), ``exclusive=True`` writes the state before each element, and a True ``reset`` at index i starts a
new segment at element i (in index order whatever the direction), which starts again from ``initial``.
discounted_cumsum(x, gamma) is linear_recurrence(gamma, x, direction="decreasing"): G[i] = x[i] + gamma[i] * G[i+1].

Checked against a sequential loop in extended precision (recurrence_reference.py) within the contract's accuracy
(1e-12 for float64 and complex128, 1e-5 for float32 and complex64, relative to the largest |y| of the line; to the
largest so far in the walk where |a| > 1; float16 computed in float32 and rounded once), and against
scipy.signal.lfilter for a scalar ``a``; on every dtype, direction, mode, ``initial`` (none, scalar, per line,
broadcast), ``reset`` pattern, axis, layout of the inputs and of out, in place; a = 0 (y = b) and a = 1 (a cumsum),
|a| > 1, complex a, NaN and infinities, the result dtype (NumPy 2's promotion with weak Python scalars, integers in
float64) and dtype=; bit for bit across 1, 2 and 4 threads; and the errors, which leave the inputs and out alone.
"""

import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import simdscan
from data import seed_of
from family_reference import assert_same_bits
from params import DIRECTIONS, VARIANTS, scattered_outs, stepped_reversed_out
from recurrence_reference import (
    check_close,
    check_recurrence,
    coefficients,
    compute_dtype,
    lfilter_recurrence,
    line_shape,
    recurrence,
    result_dtype,
    terms,
)
from reference import LAYOUTS, SUPPORTED_DTYPES, apply_layout, assert_unchanged, check_scan, snapshot

pytestmark = pytest.mark.kernels  # the outcome depends on the ISA tier and the xsimd version: CI runs these per tier

NAN = np.nan
INF = np.inf
DTYPE_IDS = [d.name for d in SUPPORTED_DTYPES]
FLOATING = ["float16", "float32", "float64", "complex64", "complex128"]
WRITABLE_LAYOUTS = [layout for layout in LAYOUTS if layout not in ("broadcast", "readonly")]
THREAD_COUNTS = (1, 2, 4)


def lr(a, b, axis=-1, decreasing=False, exclusive=False, **kw):
    """simdscan.linear_recurrence with the direction as a bool."""
    return simdscan.linear_recurrence(a, b, axis, direction="decreasing" if decreasing else "increasing",
                                      exclusive=exclusive, **kw)


def variant_name(decreasing, exclusive):
    return f"{'decreasing' if decreasing else 'increasing'}{' exclusive' if exclusive else ''}"


def python_scalar(kind, value=1.5):
    """A Python scalar initial for a result of ``kind``: an int for integer and bool inputs, a complex for complex
    ones, a float otherwise."""
    if kind in "biu":
        return int(value * 2)
    if kind == "c":
        return complex(value, -0.5)
    return float(value)


def resets(rng, shape, density):
    return rng.random(shape) < density


# --------------------------------------------------------------------------
# by hand
# --------------------------------------------------------------------------
_R = [0, 0, 1, 0]  # segments [0, 2) and [2, 4)
BY_HAND = [
    # (decreasing, exclusive, initial, reset, y) for a = 0.5, b = [1, 1, 1, 1]: exact in binary
    (False, False, None, None, [1, 1.5, 1.75, 1.875]),
    (True, False, None, None, [1.875, 1.75, 1.5, 1]),
    (False, True, None, None, [0, 1, 1.5, 1.75]),
    (True, True, None, None, [1.75, 1.5, 1, 0]),
    (False, False, 4.0, None, [3, 2.5, 2.25, 2.125]),
    (True, False, 4.0, None, [2.125, 2.25, 2.5, 3]),
    (False, True, 4.0, None, [4, 3, 2.5, 2.25]),
    (True, True, 4.0, None, [2.25, 2.5, 3, 4]),
    (False, False, None, _R, [1, 1.5, 1, 1.5]),
    (True, False, None, _R, [1.5, 1, 1.5, 1]),
    (False, True, None, _R, [0, 1, 0, 1]),
    (True, True, None, _R, [1, 0, 1, 0]),
    (False, False, 4.0, _R, [3, 2.5, 3, 2.5]),
    (True, False, 4.0, _R, [2.5, 3, 2.5, 3]),
    (False, True, 4.0, _R, [4, 3, 4, 3]),
    (True, True, 4.0, _R, [3, 4, 3, 4]),
]


@pytest.mark.parametrize("decreasing, exclusive, initial, reset, want", BY_HAND,
                         ids=[f"{variant_name(d, e)}-initial={i}-reset={r is not None}" for d, e, i, r, _ in BY_HAND])
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "complex128"])
def test_by_hand(decreasing, exclusive, initial, reset, want, dtype):
    """Exact results (binary fractions) of a = 0.5 on ones, in every variant, with and without initial and reset;
    a Python float a keeps b's dtype."""
    got = lr(0.5, np.ones(4, dtype), decreasing=decreasing, exclusive=exclusive, initial=initial, reset=reset)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, np.array(want, dtype), strict=True)


def test_issue_example():
    np.testing.assert_array_equal(simdscan.linear_recurrence(0.5, [1.0, 1, 1]), [1.0, 1.5, 1.75], strict=True)


def test_array_a_by_hand():
    a = np.array([2.0, -1.0, 0.5, 3.0])
    b = np.array([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(lr(a, b), [1, 1, 3.5, 14.5], strict=True)
    np.testing.assert_array_equal(lr(a, b, initial=1.0), [3, -1, 2.5, 11.5], strict=True)
    np.testing.assert_array_equal(lr(a, b, decreasing=True), [-5, -3, 5, 4], strict=True)
    np.testing.assert_array_equal(lr(a, b, decreasing=True, exclusive=True), [-3, 5, 4, 0], strict=True)
    np.testing.assert_array_equal(lr(a, b, exclusive=True, initial=1.0), [1, 3, -1, 2.5], strict=True)
    # 2-D, along each axis, initial one per line
    b2 = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    np.testing.assert_array_equal(lr(2.0, b2, axis=1, initial=[1.0, -1.0]), [[3, 8, 19], [2, 9, 24]], strict=True)
    np.testing.assert_array_equal(lr(2.0, b2, axis=0, initial=[1.0, 0.0, -1.0]), [[3, 2, 1], [10, 9, 8]],
                                  strict=True)
    np.testing.assert_array_equal(lr(2.0, b2, axis=0, decreasing=True), [[9, 12, 15], [4, 5, 6]], strict=True)


@pytest.mark.parametrize("direction, decreasing", DIRECTIONS, ids=[str(d) for d, _ in DIRECTIONS])
def test_direction_spellings(direction, decreasing):
    """The strings and simdscan.Direction's members, as on the other scans."""
    b = np.arange(1.0, 6.0)
    got = simdscan.linear_recurrence(0.5, b, direction=direction)
    np.testing.assert_array_equal(got, lr(0.5, b, decreasing=decreasing), strict=True)
    np.testing.assert_array_equal(got, [1, 2.5, 4.25, 6.125, 8.0625] if not decreasing else
                                  [2.8125, 3.625, 5.25, 6.5, 5], strict=True)


# --------------------------------------------------------------------------
# every dtype, variant, initial and reset
# --------------------------------------------------------------------------
INITIALS = ["none", "scalar", "per-line"]
RESETS = ["none", "sparse", "every", "none-set"]


def make_initial(kind, rng, b_shape, axis, rdt):
    if kind == "none":
        return None
    if kind == "scalar":
        return python_scalar(rdt.kind)
    return terms(rng, line_shape(b_shape, axis), rdt)


def make_reset(kind, rng, shape):
    if kind == "none":
        return None
    if kind == "sparse":
        return resets(rng, shape, 0.15)
    if kind == "every":
        return np.ones(shape, bool)
    return np.zeros(shape, bool)


@pytest.mark.parametrize("reset_kind", RESETS)
@pytest.mark.parametrize("initial_kind", INITIALS)
@pytest.mark.parametrize("dtype", SUPPORTED_DTYPES, ids=DTYPE_IDS)
def test_every_dtype(dtype, initial_kind, reset_kind):
    """a and b of one dtype (integers: a in -1..1, so that y stays exact in float64), along each axis of a 2-D array
    and the middle axis of a 3-D one, every direction and mode: the loop's values within the contract, in the
    result dtype (integers and bool: float64)."""
    rng = np.random.default_rng(seed_of("dtype", dtype.name, initial_kind, reset_kind))
    rdt = result_dtype(coefficients(rng, (), dtype), np.zeros(1, dtype))
    assert rdt == (dtype if dtype.kind in "fc" else np.float64)
    for shape, axes in (((6, 37), (0, -1)), ((3, 9, 4), (1,))):
        b = terms(rng, shape, dtype)
        a = coefficients(rng, shape, dtype)
        snaps = [snapshot(a), snapshot(b)]
        for axis in axes:
            initial = make_initial(initial_kind, rng, shape, axis, rdt)
            reset = make_reset(reset_kind, rng, shape)
            for decreasing, exclusive in VARIANTS:
                got = lr(a, b, axis, decreasing, exclusive, initial=initial, reset=reset)
                check_recurrence(got, a, b, axis, decreasing, exclusive, initial, reset,
                                 where=f"{dtype} shape={shape} axis={axis} {variant_name(decreasing, exclusive)} "
                                       f"initial={initial_kind} reset={reset_kind}")
        assert_unchanged(a, snaps[0], "a")
        assert_unchanged(b, snaps[1], "b")


def test_every_element_reset_by_hand():
    """A reset on every element: inclusive, y = a * initial + b; exclusive, initial everywhere."""
    a = np.array([0.5, 2.0, -1.0, 4.0])
    b = np.array([1.0, 2.0, 3.0, 4.0])
    for decreasing in (False, True):
        for reset in (True, 1.0, np.ones(4, np.int8), [1, 1, 1, 1]):
            np.testing.assert_array_equal(lr(a, b, decreasing=decreasing, reset=reset), b, strict=True)
            np.testing.assert_array_equal(lr(a, b, decreasing=decreasing, reset=reset, initial=2.0), [2, 6, 1, 12],
                                          strict=True)
            np.testing.assert_array_equal(lr(a, b, decreasing=decreasing, exclusive=True, reset=reset, initial=2.0),
                                          [2, 2, 2, 2], strict=True)


# --------------------------------------------------------------------------
# axes, initial and a of every broadcastable shape
# --------------------------------------------------------------------------
def initial_shapes(lshape):
    """Shapes broadcastable to the line shape ``lshape``: (), the full shape, ones, its last axis, its first axis
    kept with the others 1."""
    yield ()
    yield lshape
    yield (1,) * len(lshape)
    yield lshape[-1:]
    yield lshape[:1] + (1,) * (len(lshape) - 1)


def a_shapes(shape, axis):
    """Shapes of ``a`` broadcastable to b's ``shape``: (), the full shape, constant along the axis, the last axis
    only, the first axis 1."""
    yield ()
    yield shape
    along = list(shape)
    along[axis] = 1
    yield tuple(along)
    yield shape[-1:]
    yield (1,) + shape[1:]


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2, -3])
def test_every_axis_and_broadcast(axis):
    """A 3-D b along each axis; initial of every shape broadcastable to the line shape (b's without the axis) and a
    of every shape broadcastable to b's."""
    rng = np.random.default_rng(seed_of("axes", axis))
    shape = (4, 5, 6)
    b = terms(rng, shape, np.float64)
    lshape = line_shape(shape, axis)
    for k, ishape in enumerate(initial_shapes(lshape)):
        initial = terms(rng, ishape, np.float64)
        for j, ashape in enumerate(a_shapes(shape, axis)):
            a = coefficients(rng, ashape, np.float64)
            decreasing, exclusive = VARIANTS[(k + j) % len(VARIANTS)]
            got = lr(a, b, axis, decreasing, exclusive, initial=initial)
            check_recurrence(got, a, b, axis, decreasing, exclusive, initial,
                             where=f"axis={axis} initial {ishape} a {ashape} {variant_name(decreasing, exclusive)}")


def test_initial_scalar_and_arrays_agree():
    """A Python scalar initial, a 0-d array, and the same value in an array of the line shape (or broadcast to it):
    the same result, bit for bit."""
    rng = np.random.default_rng(seed_of("initial forms"))
    b = terms(rng, (7, 50), np.float64)
    a = coefficients(rng, (7, 50), np.float64)
    for axis, lshape in ((0, (50,)), (1, (7,))):
        for decreasing, exclusive in VARIANTS:
            want = lr(a, b, axis, decreasing, exclusive, initial=1.25)
            for name, initial in (("0-d", np.array(1.25)), ("full", np.full(lshape, 1.25)),
                                  ("broadcast", np.broadcast_to(np.float64(1.25), lshape)), ("list", [1.25]),
                                  ("(1,)", np.full(1, 1.25))):
                assert_same_bits(lr(a, b, axis, decreasing, exclusive, initial=initial), want,
                                 f"initial {name} axis={axis} {variant_name(decreasing, exclusive)}")
            check_recurrence(want, a, b, axis, decreasing, exclusive, 1.25)
    # initial=None is initial=0
    for decreasing, exclusive in VARIANTS:
        assert_same_bits(lr(a, b, 1, decreasing, exclusive, initial=0.0), lr(a, b, 1, decreasing, exclusive),
                         "initial=0.0")


def test_scalar_and_array_a_agree():
    """a as a Python float, a 0-d array, a full array and a broadcast (stride 0) view of one value: the same
    values within the contract (a scalar a may take another kernel)."""
    rng = np.random.default_rng(seed_of("a forms"))
    b = terms(rng, (5, 300), np.float64)
    for value in (0.75, -0.9, 1.0, 0.0):
        for axis in (0, 1):
            for decreasing, exclusive in VARIANTS:
                for name, a in (("python", value), ("0-d", np.array(value)), ("full", np.full(b.shape, value)),
                                ("stride 0", np.broadcast_to(np.float64(value), b.shape)),
                                ("row", np.full(300, value))):
                    got = lr(a, b, axis, decreasing, exclusive)
                    check_recurrence(got, value, b, axis, decreasing, exclusive,
                                     where=f"a={value} {name} axis={axis} {variant_name(decreasing, exclusive)}")


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("decreasing", [False, True])
def test_matches_lfilter(decreasing, dtype):
    """A scalar a, against scipy.signal.lfilter([1], [1, -a]) in extended precision (initial as its state zi)."""
    pytest.importorskip("scipy")
    rng = np.random.default_rng(seed_of("lfilter", decreasing, dtype))
    b = terms(rng, (4, 3000), dtype)
    values = (0.9, -0.7, 0.999, 0.5) if dtype == "float64" else (0.5 + 0.5j, -0.9j, 0.95)
    for a in values:
        initial = terms(rng, (4,), dtype)
        for init in (None, initial):
            got = lr(a, b, -1, decreasing, initial=init)
            want = lfilter_recurrence(a, b, decreasing, init)
            rdt = result_dtype(a, b)
            check_close(got, want, rdt, -1, decreasing, where=f"lfilter a={a} initial={init is not None}")


# --------------------------------------------------------------------------
# special coefficients: a = 0, a = 1, |a| > 1, complex
# --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", SUPPORTED_DTYPES, ids=DTYPE_IDS)
def test_a_zero_is_b(dtype):
    """a = 0 (a Python zero, a 0-d zero or an array of zeros): y = b in the result dtype, exactly, whatever initial;
    exclusive, the b before each element in the walk (initial at the start of each segment), exactly."""
    rng = np.random.default_rng(seed_of("a=0", dtype.name))
    b = terms(rng, (5, 70), dtype)
    rdt = np.dtype(dtype) if dtype.kind in "fc" else np.dtype(np.float64)
    for a in (0j if dtype.kind == "c" else 0.0, np.zeros((), dtype), np.zeros(b.shape, dtype)):
        for axis in (0, 1):
            initial = terms(rng, line_shape(b.shape, axis), rdt)
            reset = resets(rng, b.shape, 0.1)
            for decreasing in (False, True):
                where = f"{dtype} a={a!r:.20} axis={axis} {'decreasing' if decreasing else 'increasing'}"
                got = lr(a, b, axis, decreasing, initial=initial)
                assert got.dtype == rdt, where
                np.testing.assert_array_equal(got, b.astype(rdt), err_msg=where, strict=True)
                got = lr(a, b, axis, decreasing, True, initial=initial, reset=reset)
                want = recurrence(a, b, axis, decreasing, True, initial, reset).astype(rdt)
                np.testing.assert_array_equal(got, want, err_msg=where + " exclusive", strict=True)


@pytest.mark.parametrize("dtype", SUPPORTED_DTYPES, ids=DTYPE_IDS)
def test_a_one_is_cumsum(dtype):
    """a = 1 with no initial: cumsum of b in the result dtype, within the suite's rounding-error bound of a sum
    (reference.check_scan: any order of the additions); exact for integer and bool b (float64 sums of small
    integers)."""
    rng = np.random.default_rng(seed_of("a=1", dtype.name))
    for shape, axes in (((3000,), (0,)), ((40, 150), (0, 1))):
        b = terms(rng, shape, dtype)
        for a in (1, np.ones(shape, dtype)):
            for axis in axes:
                for decreasing, exclusive in VARIANTS:
                    where = f"{dtype} a={type(a).__name__} axis={axis} {variant_name(decreasing, exclusive)}"
                    got = lr(a, b, axis, decreasing, exclusive)
                    if dtype.kind in "fc":
                        check_scan(got, "cumsum", b, axis, decreasing, exclusive, msg=where)
                    else:
                        want = recurrence(1, b, axis, decreasing, exclusive).astype(np.float64)
                        np.testing.assert_array_equal(got, want, err_msg=where, strict=True)


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128", "complex64"])
def test_growing_a(dtype):
    """|a| > 1 (|a| in [1, 1 + d], random signs; for complex, any phase): within the contract relative to the
    largest |y| so far in the walk, along a long line and along both axes of a 2-D array, with initial and resets."""
    rng = np.random.default_rng(seed_of("growth", dtype))
    n, d = (20_000, 1e-3) if dtype in ("float64", "complex128") else (2000, 5e-3)
    for shape, axes in (((n,), (0,)), ((300, 60), (0, 1))):
        mag = rng.uniform(1.0, 1.0 + d, shape)
        if dtype.startswith("complex"):
            a = (mag * np.exp(1j * rng.uniform(-np.pi, np.pi, shape))).astype(dtype)
        else:
            a = (mag * np.where(rng.random(shape) < 0.5, -1.0, 1.0)).astype(dtype)
        b = terms(rng, shape, dtype)
        for axis in axes:
            initial = terms(rng, line_shape(shape, axis), dtype)
            for reset in (None, resets(rng, shape, 0.0005)):
                for decreasing, exclusive in VARIANTS:
                    got = lr(a, b, axis, decreasing, exclusive, initial=initial, reset=reset)
                    check_recurrence(got, a, b, axis, decreasing, exclusive, initial, reset, scale="running",
                                     where=f"{dtype} {shape} axis={axis} reset={reset is not None} "
                                           f"{variant_name(decreasing, exclusive)}")


def test_growing_a_by_hand():
    """a = 2 on ones: 2**(i+1) - 1, exact in float32 up to 2**24, and 2**k from initial 1 with b = 0."""
    got = lr(2.0, np.ones(24, np.float32))
    np.testing.assert_array_equal(got, (2.0 ** np.arange(1, 25) - 1).astype(np.float32), strict=True)
    got = lr(2.0, np.zeros(60), initial=1.0, decreasing=True)
    np.testing.assert_array_equal(got, 2.0 ** np.arange(60, 0, -1), strict=True)
    got = lr(-3.0, np.zeros(30), initial=1.0, exclusive=True)
    np.testing.assert_array_equal(got, (-3.0) ** np.arange(30), strict=True)


@pytest.mark.parametrize("b_dtype", ["float32", "float64", "complex64", "complex128"])
def test_complex_a(b_dtype):
    """A complex a (array or Python scalar, in the unit disk) with real or complex b: complex results within the
    contract; i**k by hand."""
    rng = np.random.default_rng(seed_of("complex a", b_dtype))
    b = terms(rng, (6, 400), b_dtype)
    a_dtype = "complex64" if b_dtype in ("float32", "complex64") else "complex128"
    for a in (coefficients(rng, b.shape, a_dtype), 0.6 - 0.7j, coefficients(rng, (400,), a_dtype)):
        rdt = result_dtype(a, b)
        assert rdt == a_dtype
        for axis in (0, 1):
            initial = terms(rng, line_shape(b.shape, axis), rdt)
            for decreasing, exclusive in VARIANTS:
                reset = resets(rng, b.shape, 0.02)
                got = lr(a, b, axis, decreasing, exclusive, initial=initial, reset=reset)
                check_recurrence(got, a, b, axis, decreasing, exclusive, initial, reset,
                                 where=f"a {np.shape(a)} {b_dtype} b axis={axis} {variant_name(decreasing, exclusive)}")
    got = lr(1j, np.zeros(8, b_dtype), initial=1)
    np.testing.assert_array_equal(got, np.array([1j, -1, -1j, 1, 1j, -1, -1j, 1], a_dtype), strict=True)


# --------------------------------------------------------------------------
# NaN and infinities
# --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "complex128"])
def test_nan_reaches_the_rest_of_its_segment(dtype):
    """A NaN in b or in a makes every later output of its segment in the walk NaN (exclusive: from the next one on),
    and nothing else: not the earlier ones, not the next segment."""
    rng = np.random.default_rng(seed_of("nan", dtype))
    n = 3000
    for nan_in in ("a", "b"):
        for decreasing, exclusive in VARIANTS:
            a = coefficients(rng, (n,), dtype, 0.5, 1.0)
            b = terms(rng, (n,), dtype)
            (a if nan_in == "a" else b)[[40, 1500]] = NAN
            reset = np.zeros(n, bool)
            reset[[100, 1000, 1700]] = True  # segments [0, 100), [100, 1000), [1000, 1700), [1700, n)
            got = lr(a, b, decreasing=decreasing, exclusive=exclusive, reset=reset)
            want_nan = np.zeros(n, bool)
            if decreasing:
                want_nan[0:41 - exclusive] = True
                want_nan[1000:1501 - exclusive] = True
            else:
                want_nan[40 + exclusive:100] = True
                want_nan[1500 + exclusive:1700] = True
            where = f"{dtype} NaN in {nan_in} {variant_name(decreasing, exclusive)}"
            np.testing.assert_array_equal(np.isnan(got), want_nan, err_msg=where)
            check_recurrence(got, a, b, -1, decreasing, exclusive, reset=reset, where=where)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_infinities_in_b(dtype):
    """+inf in b with a in [0.5, 1]: +inf for the rest of the segment in the walk; then -inf in the same segment:
    NaN from there on; a = 0 after an infinity: NaN (0 * inf), as the sequential loop gives; on short and 2-D lines,
    every variant, against the loop's NaNs and infinities."""
    rng = np.random.default_rng(seed_of("inf", dtype))
    a = coefficients(rng, (8, 200), dtype, 0.5, 1.0)
    b = terms(rng, (8, 200), dtype)
    b[0, 10] = INF
    b[1, 10], b[1, 50] = INF, -INF
    b[2, 10] = -INF
    a[2, 30] = 0.0
    b[3, 199], b[3, 0] = INF, -INF
    b[4, 100:] = INF
    b[5, [3, 7]] = INF
    reset = np.zeros(b.shape, bool)
    reset[6:, 120] = True
    b[6, 20] = INF  # stops at the reset (increasing)
    b[7, 150] = -INF  # stops at the reset (decreasing)
    for axis, x, ax, r in ((1, b, a, reset), (0, b.T, a.T, reset.T)):
        for decreasing, exclusive in VARIANTS:
            got = lr(ax, x, axis, decreasing, exclusive, reset=r)
            check_recurrence(got, ax, x, axis, decreasing, exclusive, reset=r,
                             where=f"{dtype} axis={axis} {variant_name(decreasing, exclusive)}")
    got = lr(0.5, np.array([1.0, INF, 1.0, 1.0], dtype))
    np.testing.assert_array_equal(got, np.array([1, INF, INF, INF], dtype), strict=True)
    got = lr(np.array([0.5, 0.5, 0.0, 0.5]), np.array([1.0, INF, 1.0, 1.0]))
    np.testing.assert_array_equal(got, [1, INF, NAN, NAN], strict=True)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_infinity_survives_a_long_walk(dtype):
    """An infinity in b stays infinite for the rest of its segment however small the product of the a's after it
    grows (a in [0.5, 0.9] over 200 000 elements: the products underflow to 0), as the sequential loop has it: never
    NaN from a zero product times the infinity."""
    rng = np.random.default_rng(seed_of("long inf", dtype))
    n = 200_000
    a = coefficients(rng, (n,), dtype, 0.5, 0.9)
    b = terms(rng, (n,), dtype)
    b[1000] = INF
    b[n - 1000] = -INF
    reset = np.zeros(n, bool)
    reset[n // 2] = True
    for decreasing in (False, True):
        got = lr(a, b, decreasing=decreasing, reset=reset)
        want = np.full(n, np.nan)
        if decreasing:
            want[n // 2:n - 999] = -INF
            want[:1001] = INF
        else:
            want[1000:n // 2] = INF
            want[n - 1000:] = -INF
        where = f"{dtype} {'decreasing' if decreasing else 'increasing'}"
        infinite = ~np.isnan(want)
        np.testing.assert_array_equal(got[infinite], want[infinite].astype(dtype), err_msg=where)
        assert np.isfinite(got[~infinite]).all(), where
