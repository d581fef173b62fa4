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
    lfilter_recurrence,
    line_shape,
    loop,
    recurrence,
    result_dtype,
    segment_starts,
    terms,
    as_walked_by,
    walked,
    walks_rows,
)
from reference import LAYOUTS, SUPPORTED_DTYPES, apply_layout, assert_unchanged, check_scan, snapshot

pytestmark = pytest.mark.kernels  # the outcome depends on the ISA tier and the xsimd version: CI runs these per tier

NAN = np.nan
INF = np.inf
DTYPE_IDS = [d.name for d in SUPPORTED_DTYPES]
FLOATING = ["float16", "float32", "float64", "complex64", "complex128"]
IN_PLACE_LAYOUTS = ["C", "fortran", "reversed", "stepped", "transposed"]  # writable, of the native dtype
THREAD_COUNTS = (1, 2, 4)


def lr(a, b, axis=-1, decreasing=False, exclusive=False, **kw):
    """simdscan.linear_recurrence with the direction as a bool."""
    return simdscan.linear_recurrence(a, b, axis, direction="decreasing" if decreasing else "increasing",
                                      exclusive=exclusive, **kw)


def exactly(got, want, dtype=np.float64, where=""):
    """``got`` holds ``want``'s values exactly, in ``dtype``."""
    np.testing.assert_array_equal(got, np.asarray(want, dtype), err_msg=where, strict=True)


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
    exactly(lr(a, b), [1, 1, 3.5, 14.5])
    exactly(lr(a, b, initial=1.0), [3, -1, 2.5, 11.5])
    exactly(lr(a, b, decreasing=True), [-5, -3, 5, 4])
    exactly(lr(a, b, decreasing=True, exclusive=True), [-3, 5, 4, 0])
    exactly(lr(a, b, exclusive=True, initial=1.0), [1, 3, -1, 2.5])
    # 2-D, along each axis, initial one per line
    b2 = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    exactly(lr(2.0, b2, axis=1, initial=[1.0, -1.0]), [[3, 8, 19], [2, 9, 24]])
    exactly(lr(2.0, b2, axis=0, initial=[1.0, 0.0, -1.0]), [[3, 2, 1], [10, 9, 8]])
    exactly(lr(2.0, b2, axis=0, decreasing=True), [[9, 12, 15], [4, 5, 6]])


@pytest.mark.parametrize("direction, decreasing", DIRECTIONS, ids=[str(d) for d, _ in DIRECTIONS])
def test_direction_spellings(direction, decreasing):
    """The strings and simdscan.Direction's members, as on the other scans."""
    b = np.arange(1.0, 6.0)
    got = simdscan.linear_recurrence(0.5, b, direction=direction)
    exactly(got, lr(0.5, b, decreasing=decreasing))
    exactly(got, [1, 2.5, 4.25, 6.125, 8.0625] if not decreasing else
                                  [3.5625, 5.125, 6.25, 6.5, 5])


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
            exactly(lr(a, b, decreasing=decreasing, reset=reset), b)
            exactly(lr(a, b, decreasing=decreasing, reset=reset, initial=2.0), [2, 6, 1, 12])
            exactly(lr(a, b, decreasing=decreasing, exclusive=True, reset=reset, initial=2.0), [2, 2, 2, 2])


def test_reset_spellings_and_broadcasts():
    """reset as bool, 0/1 integers or floats (and -0.0), in any layout, a list: the bits of the bool array; a reset
    of shape (n,) for rows of n (the same segments in every line) and (rows, 1) (every element of some lines its own
    segment): the bits of the reset spelled out in full, within the contract of the loop."""
    rng = np.random.default_rng(seed_of("reset spellings"))
    b = terms(rng, (6, 90), np.float64)
    a = coefficients(rng, (6, 90), np.float64)
    r = resets(rng, b.shape, 0.1)
    for axis in (0, 1):
        initial = terms(rng, line_shape(b.shape, axis), np.float64)
        for decreasing, exclusive in VARIANTS:
            want = lr(a, b, axis, decreasing, exclusive, initial=initial, reset=r)
            check_recurrence(want, a, b, axis, decreasing, exclusive, initial, r)
            for name, spelled in (("int8", r.astype(np.int8)), ("uint64", r.astype(np.uint64)),
                                  ("float32", r.astype(np.float32)), ("negative zeros", np.where(r, 1.0, -0.0)),
                                  ("fortran float64", np.asfortranarray(r.astype(np.float64))),
                                  ("reversed int16", apply_layout(r.astype(np.int16), "reversed")),
                                  ("byteswapped int32", apply_layout(r.astype(np.int32), "byteswapped")),
                                  ("list", r.tolist())):
                assert_same_bits(lr(a, b, axis, decreasing, exclusive, initial=initial, reset=spelled), want,
                                 f"reset {name} axis={axis} {variant_name(decreasing, exclusive)}")
    row, column = resets(rng, 90, 0.1), np.array([1, 0, 0, 1, 0, 1], bool)[:, None]
    for small in (row, row.astype(np.uint8), column, column.astype(np.float64)):
        full = np.broadcast_to(small, b.shape).copy()
        for decreasing, exclusive in VARIANTS:
            got = lr(a, b, 1, decreasing, exclusive, initial=0.5, reset=small)
            assert_same_bits(got, lr(a, b, 1, decreasing, exclusive, initial=0.5, reset=full),
                             f"reset of shape {small.shape} {variant_name(decreasing, exclusive)}")
            check_recurrence(got, a, b, 1, decreasing, exclusive, 0.5, full)


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


@pytest.mark.usefixtures("restore_thread_count")
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128", "complex64"])
def test_growing_a_from_a_zero_or_tiny_state(dtype):
    """|a| > 1 over a whole chunk of the core (32768 elements), whose product of a's overflows, from a state of 0 or
    a tiny one: 0 stays 0 (never inf * 0 = NaN) and a tiny state grows to a finite value (never inf * 1e-300 = inf),
    as the sequential loop has it. a = 2 then 1, so that every value is a power of two, exact: along three chunks
    with b = 1 at the end of the walk, every variant, in place too, on 1, 2 and 3 threads."""
    real = np.dtype(dtype).kind == "f"
    wide = np.finfo(dtype).bits == 64
    tiny, growth, a_grows = (1e-300, 1.03, 2.0 ** -1000) if wide else (1e-30, 1.003, 2.0 ** -100)
    if real:
        b = np.zeros(32769, dtype)
        b[-1] = 1
        exactly(lr(growth, b), np.r_[np.zeros(32768), 1], dtype)
        b[-1] = 0
        got = lr(growth, b, initial=tiny)
        assert np.isfinite(got).all(), f"{dtype}: {np.count_nonzero(~np.isfinite(got))} outputs not finite"
        # (A scalar a's powers, each rounded once, drift by about an ulp a vector: a looser tolerance.)
        check_close(got, recurrence(growth, b, initial=tiny), dtype, scale="running", tol=1e-10 if wide else 2e-3,
                    where=dtype)
    doublings = int(-np.log2(a_grows)) + 30  # the walk's state ends at 2**30, the product past the type's range
    n = 3 * 32768 + 5
    walk_a = np.ones(n)
    walk_a[:doublings] = 2
    walk_b = np.zeros(n)
    walk_b[-1] = 1
    for initial in (0.0, a_grows):
        for decreasing, exclusive in VARIANTS:
            before = np.ldexp(initial, np.minimum(np.arange(n), doublings))
            want = before if exclusive else np.r_[before[1:], before[-1] + 1]
            a, b, want = ((x[::-1] if decreasing else x).astype(dtype) for x in (walk_a, walk_b, want))
            for threads in (1, 2, 3):
                simdscan.set_num_threads(threads)
                where = f"{dtype} initial={initial} {variant_name(decreasing, exclusive)} {threads} threads"
                exactly(lr(a, b, decreasing=decreasing, exclusive=exclusive, initial=initial), want, dtype, where)
                y = b.copy()
                lr(a, y, decreasing=decreasing, exclusive=exclusive, initial=initial, out=y)
                exactly(y, want, dtype, where + " in place")


def walked_in_dtype(a, b, decreasing=False, exclusive=False, initial=0, reset=None):
    """The loop along a 1-D ``b`` in b's own dtype (NumPy scalars), each step rounded as simdscan's walk element by
    element rounds it: exact where every step is, inf (and NaN from inf * 0 after it) where the true value
    overflows."""
    a = np.broadcast_to(np.asarray(a, b.dtype), b.shape)
    starts = segment_starts(np.zeros(b.shape, bool) if reset is None else reset, decreasing)
    with np.errstate(all="ignore"):
        return loop(a[None], b[None], np.array([initial], b.dtype), starts[None], decreasing, exclusive)[0]


def exactly_where_defined(got, want, dtype, where):
    """``got`` holds the loop's values ``want`` exactly wherever they are not NaN. (Where the loop's state overflowed
    and then met an a of 0, its NaN from inf * 0 stands for a true 0, which a vector's composed pairs may give.)"""
    assert got.dtype == dtype and got.shape == want.shape, where
    defined = ~np.isnan(want)
    np.testing.assert_array_equal(got[defined], want[defined], err_msg=where, strict=True)


def out_of_range_a(rng, n, dtype, grows):
    """a's that compose past the type's range within a vector (powers of two, so that every value in range is
    exact): ``grows``, 1, -1, 2 and 0 with a huge 2**(emax/2 + 88) (two overflow); else 1, -1, 0.5 and 0 with a tiny
    2**-(emax/2 + 88) (two underflow to 0)."""
    wide = np.finfo(dtype).bits == 64
    e = 600 if wide else 70
    choices = [2.0 ** e, 1, 1, -1, 2, 0] if grows else [2.0 ** -e, 1, 1, -1, 0.5, 0]
    return rng.choice(choices, n, p=[0.3, 0.25, 0.2, 0.1, 0.1, 0.05]).astype(dtype)


@pytest.mark.usefixtures("restore_thread_count")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_a_past_the_range_within_a_vector(dtype):
    """Pairs whose products of a leave the type's range within one vector register (a = 1e200: a**2 = inf): exact
    zeros from a state of 0 (never inf * 0 = NaN), a tiny state grown as the loop in the type grows it (never
    inf * 1e-300 = inf while the true value is finite), and an infinite state kept infinite past products that
    underflow to 0 (never 0 * inf = NaN); against that loop bit for bit (exactly_where_defined), for a scalar a and
    arrays of a, every variant, with resets; along three of the core's chunks, the same bits on 1 and 3 threads."""
    rng = np.random.default_rng(seed_of("a past the range", dtype))
    wide = np.finfo(dtype).bits == 64
    huge, tiny = (1e200, 1e-300) if wide else (1e30, 1e-40)
    with np.errstate(all="ignore"):
        exactly(lr(huge, np.zeros(20, dtype)), np.zeros(20), dtype)
        b = np.zeros(20, dtype)
        b[0] = tiny
        want = walked_in_dtype(huge, b)
        assert np.isfinite(want[:3]).all() and np.isinf(want[-1])
        exactly(lr(huge, b), want, dtype)
    e, low, high = (600, 2.0 ** -1000, 2.0 ** 1000) if wide else (70, 2.0 ** -140, 2.0 ** 120)
    n = 203
    for grows, initials in ((True, (0.0, low)), (False, (np.inf, -np.inf, high))):
        for a in (2.0 ** e if grows else 2.0 ** -e, -(2.0 ** e) if grows else -(2.0 ** -e),
                  out_of_range_a(rng, n, dtype, grows)):
            for initial in initials:
                for reset in (None, resets(rng, n, 0.03)):
                    for decreasing, exclusive in VARIANTS:
                        b = np.zeros(n, dtype)
                        if grows and initial == 0:
                            b[-1 if decreasing else 0] = low  # grows from there
                        where = (f"{dtype} a {np.shape(a)} initial={initial} reset={reset is not None} "
                                 f"{variant_name(decreasing, exclusive)}")
                        want = walked_in_dtype(a, b, decreasing, exclusive, initial, reset)
                        with np.errstate(all="ignore"):
                            got = lr(a, b, decreasing=decreasing, exclusive=exclusive, initial=initial, reset=reset)
                        exactly_where_defined(got, want, np.dtype(dtype), where)
    # along three of the core's chunks, segments of about 300 from a tiny (an infinite) state, each with about two
    # pairs of a huge (a tiny) a side by side, an a of 0 and some of -1
    n = 3 * 32768 + 5
    for grows, initial in ((True, low), (False, np.inf)):
        a = np.where(rng.random(n) < 0.01, -1, 1).astype(dtype)
        pairs = rng.choice(n - 1, n // 150)
        a[pairs] = a[pairs + 1] = 2.0 ** e if grows else 2.0 ** -e
        a[rng.choice(n, n // 300)] = 0
        reset = np.zeros(n, bool)
        reset[rng.choice(n, n // 300)] = True
        b = np.zeros(n, dtype)
        for decreasing, exclusive in VARIANTS:
            want = walked_in_dtype(a, b, decreasing, exclusive, initial, reset)
            where = f"{dtype} long initial={initial} {variant_name(decreasing, exclusive)}"
            got = {}
            for threads in (1, 3):
                simdscan.set_num_threads(threads)
                with np.errstate(all="ignore"):
                    got[threads] = lr(a, b, decreasing=decreasing, exclusive=exclusive, initial=initial, reset=reset)
            exactly_where_defined(got[1], want, np.dtype(dtype), where)
            assert_same_bits(got[3], got[1], f"{where}: 3 threads against 1")


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_complex_a_past_the_range(dtype):
    """Complex pairs (walked element by element) as the real ones: a = 1e200 from a state of 0 gives 0, and a tiny
    state grows as the loop in the type grows it, infinite where it is."""
    wide = np.finfo(dtype).bits == 64
    huge, tiny = (1e200, 1e-300) if wide else (1e30, 1e-40)
    for a in (huge, huge * 1j, np.full(20, huge, dtype)):
        for decreasing, exclusive in VARIANTS:
            exactly(lr(a, np.zeros(20, dtype), decreasing=decreasing, exclusive=exclusive), np.zeros(20), dtype)
            b = np.zeros(20, dtype)
            b[-1 if decreasing else 0] = tiny
            want = walked_in_dtype(a, b, decreasing, exclusive)
            with np.errstate(all="ignore"):
                got = lr(a, b, decreasing=decreasing, exclusive=exclusive)
            where = f"{dtype} a={np.ravel(a)[0]} {variant_name(decreasing, exclusive)}"
            finite = np.isfinite(want)
            assert finite.sum() >= 3 and not finite.all(), where
            np.testing.assert_array_equal(np.isfinite(got), finite, err_msg=where)
            np.testing.assert_array_equal(got[finite], want[finite], err_msg=where, strict=True)


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


@pytest.mark.usefixtures("restore_thread_count")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_nan_stays_in_its_segment_on_long_lines(dtype):
    """A NaN in the first segment of a line of 300 000 elements (longer than the pieces the core cuts a line into)
    reaches the rest of that segment and nothing else: the later segments, [100 000, 200 000) and [200 000, n), are
    finite and the loop's, for an array a and a scalar one, in every variant, on 1 and 4 threads."""
    rng = np.random.default_rng(seed_of("long nan", dtype))
    n = 300_000
    b = terms(rng, (n,), dtype)
    b[1000] = NAN
    reset = np.zeros(n, bool)
    reset[[100_000, 200_000]] = True
    for a in (coefficients(rng, (n,), dtype, 0.5, 1.0), 0.9):
        for decreasing, exclusive in VARIANTS:
            want_nan = np.zeros(n, bool)
            if decreasing:
                want_nan[:1001 - exclusive] = True
            else:
                want_nan[1000 + exclusive:100_000] = True
            for threads in (1, 4):
                simdscan.set_num_threads(threads)
                got = lr(a, b, decreasing=decreasing, exclusive=exclusive, reset=reset)
                where = f"{dtype} a {np.shape(a)} {variant_name(decreasing, exclusive)} {threads} threads"
                nan = np.isnan(got)
                assert np.array_equal(nan, want_nan), (
                    f"{where}: NaN at {np.count_nonzero(nan & ~want_nan)} elements outside its segment's walk, the "
                    f"first at {np.flatnonzero(nan & ~want_nan)[:1]}; missing at {np.count_nonzero(want_nan & ~nan)}")
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


# --------------------------------------------------------------------------
# the result dtype
# --------------------------------------------------------------------------
_N = 6
PROMOTIONS = [
    # (name, a, b dtype, result dtype): NumPy 2's result type, Python scalars weak (NEP 50), integers -> float64
    ("python float, float32", 0.5, "float32", "float32"),
    ("python float, float16", 0.5, "float16", "float16"),
    ("python int, float32", 2, "float32", "float32"),
    ("python float, complex64", 0.5, "complex64", "complex64"),
    ("python complex, float32", 0.5j, "float32", "complex64"),
    ("python complex, float64", 0.5j, "float64", "complex128"),
    ("python float, int32", 0.5, "int32", "float64"),
    ("python int, int8", 2, "int8", "float64"),
    ("python float, bool", 0.5, "bool", "float64"),
    ("np.float64 scalar, float32", np.float64(0.5), "float32", "float64"),
    ("np.float32 scalar, float16", np.float32(0.5), "float16", "float32"),
    ("np.float16 scalar, float16", np.float16(0.5), "float16", "float16"),
    ("np.float32 scalar, float64", np.float32(0.5), "float64", "float64"),
    ("np.complex64 scalar, float64", np.complex64(0.5j), "float64", "complex128"),
    ("np.float64 scalar, complex64", np.float64(0.5), "complex64", "complex128"),
    ("0-d float64 array, float32", np.array(0.5), "float32", "float64"),
    ("float32 array, float32", np.full(_N, 0.5, np.float32), "float32", "float32"),
    ("float32 array, float64", np.full(_N, 0.5, np.float32), "float64", "float64"),
    ("float64 array, float32", np.full(_N, 0.5), "float32", "float64"),
    ("float16 array, float32", np.full(_N, 0.5, np.float16), "float32", "float32"),
    ("float32 array, complex64", np.full(_N, 0.5, np.float32), "complex64", "complex64"),
    ("complex64 array, float64", np.full(_N, 0.5j, np.complex64), "float64", "complex128"),
    ("int8 array, int8", np.full(_N, -1, np.int8), "int8", "float64"),
    ("uint64 array, int64", np.full(_N, 1, np.uint64), "int64", "float64"),
    ("bool array, bool", np.ones(_N, bool), "bool", "float64"),
    ("int64 array, float32", np.full(_N, 1, np.int64), "float32", "float64"),
    ("int32 array, float64", np.full(_N, 1, np.int32), "float64", "float64"),
    ("float64 array, int8", np.full(_N, 0.5), "int8", "float64"),
]


@pytest.mark.parametrize("name, a, b_dtype, want", PROMOTIONS, ids=[p[0] for p in PROMOTIONS])
def test_result_dtype(name, a, b_dtype, want):
    """The result dtype, and the values in it (within the contract of that dtype's computation)."""
    rng = np.random.default_rng(seed_of("promotion", name))
    b = terms(rng, (_N,), b_dtype)
    assert result_dtype(a, b) == want  # the reference agrees with the table
    for decreasing, exclusive in VARIANTS:
        got = lr(a, b, decreasing=decreasing, exclusive=exclusive)
        assert got.dtype == want, f"{name} {variant_name(decreasing, exclusive)}: {got.dtype}, expected {want}"
        check_recurrence(got, a, b, -1, decreasing, exclusive, where=name)


def test_weak_initial():
    """A Python scalar initial takes b's precision: float32 and float16 b stay float32 and float16; and so does a
    Python scalar a with it."""
    for dtype in ("float32", "float16"):
        b = np.ones(5, dtype)
        for initial in (1.5, 2, True):
            got = lr(0.5, b, initial=initial)
            assert got.dtype == dtype, f"{dtype} initial={initial!r}: {got.dtype}"
            check_recurrence(got, 0.5, b, initial=initial)
        got = lr(np.full(5, 0.5, dtype), b, initial=0.25, exclusive=True)
        assert got.dtype == dtype
        assert got[0] == 0.25
    got = lr(0.5, np.ones(4, np.int16), initial=3)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, [2.5, 2.25, 2.125, 2.0625], strict=True)


DTYPE_ARGUMENTS = [
    # (a dtype, b dtype, dtype=)
    ("float64", "float64", "float32"),
    ("float32", "float32", "float64"),
    ("float64", "float64", "float16"),
    ("float16", "float16", "float32"),
    ("float64", "float64", "complex128"),
    ("float32", "float32", "complex64"),
    ("int16", "int16", "float32"),
    ("int8", "int8", "float64"),
    ("bool", "uint8", "float64"),
    ("complex64", "complex64", "complex128"),
]


@pytest.mark.parametrize("a_dtype, b_dtype, dtype", DTYPE_ARGUMENTS, ids=["-".join(d) for d in DTYPE_ARGUMENTS])
def test_dtype_argument(a_dtype, b_dtype, dtype):
    """dtype= gives the result dtype, computed in it (float16: in float32), the inputs read in it; with out= too."""
    rng = np.random.default_rng(seed_of("dtype=", a_dtype, b_dtype, dtype))
    b = terms(rng, (5, 200), b_dtype)
    a = coefficients(rng, (5, 200), a_dtype)
    for axis in (0, 1):
        initial = terms(rng, line_shape(b.shape, axis), dtype)
        for decreasing, exclusive in VARIANTS:
            where = f"dtype={dtype} axis={axis} {variant_name(decreasing, exclusive)}"
            got = lr(a, b, axis, decreasing, exclusive, initial=initial, dtype=dtype)
            check_recurrence(got, a, b, axis, decreasing, exclusive, initial, dtype=dtype, where=where)
            out = np.full(b.shape, 7, dtype)
            assert lr(a, b, axis, decreasing, exclusive, initial=initial, dtype=dtype, out=out) is out
            assert_same_bits(out, got, where + " out=")
    got = lr(0.5, np.ones(3), dtype=np.dtype(np.float32))
    np.testing.assert_array_equal(got, np.array([1, 1.5, 1.75], np.float32), strict=True)


# --------------------------------------------------------------------------
# layouts, out= and in place
# --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "complex64", "int16"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_layouts(layout, dtype):
    """b, a, initial and reset in any layout (strided, transposed, reversed, broadcast, byte-swapped, read-only),
    along every axis of a 2-D array and the middle one of a 3-D array: the bits the README's rule gives (of the loop
    in the dtype where b's rows are walked, else of contiguous lines), within the contract of the loop; the inputs
    untouched."""
    rng = np.random.default_rng(seed_of("layouts", layout, dtype))
    rdt = result_dtype(np.zeros(1, dtype), np.zeros(1, dtype))
    for shape, axes in (((9, 41), (0, 1, -1)), ((4, 30, 5), (1,))):
        b0, a0 = terms(rng, shape, dtype), coefficients(rng, shape, dtype)
        b, a = apply_layout(b0, layout), apply_layout(a0, layout)
        b0, a0 = b.copy(order="C").astype(b.dtype.newbyteorder("=")), a.copy(order="C").astype(
            a.dtype.newbyteorder("="))
        r = apply_layout(resets(rng, shape, 0.1), layout)
        snaps = [(x, snapshot(x), what) for x, what in ((a, "a"), (b, "b"), (r, "reset"))]
        for k, axis in enumerate(axes):
            lshape = line_shape(shape, axis)
            initial = apply_layout(terms(rng, lshape, rdt), layout) if lshape else None
            for v, (decreasing, exclusive) in enumerate(VARIANTS):
                reset = r if (k + v) % 2 else None
                where = f"{layout} {dtype} {shape} axis={axis} {variant_name(decreasing, exclusive)}"
                got = lr(a, b, axis, decreasing, exclusive, initial=initial, reset=reset)
                # Copies walked as b is: its rows of columns, or contiguous lines.
                want = lr(as_walked_by(a0, b, axis), as_walked_by(b0, b, axis), axis, decreasing, exclusive,
                          reset=None if reset is None else np.array(reset),
                          initial=None if initial is None else np.array(initial))
                assert_same_bits(got, want, where)
                if walks_rows(b, axis) and rdt.kind == "f":
                    assert_same_bits(got, walked(a0, b0, axis, decreasing, exclusive, initial, reset), where)
                check_recurrence(got, a0, b0, axis, decreasing, exclusive, initial, reset, where=where)
        for x, snap, what in snaps:
            assert_unchanged(x, snap, what)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128", "float16"])
def test_out_of_any_layout(dtype):
    """out at every offset within a cache line, stepped by 2 or 3, reversed, and stepped and reversed inside a
    buffer whose other elements stay as they were: returned, and holding the bits of the result without out."""
    rng = np.random.default_rng(seed_of("out", dtype))
    b = terms(rng, (7, 37), dtype)
    a = coefficients(rng, (7, 37), dtype)
    r = resets(rng, b.shape, 0.1)
    outs = list(scattered_outs(b.shape, dtype).items())
    for k, (name, out) in enumerate(outs):
        axis = k % 2
        decreasing, exclusive = VARIANTS[k % len(VARIANTS)]
        initial = terms(rng, line_shape(b.shape, axis), dtype)
        kw = dict(initial=initial, reset=r if k % 3 else None)
        got = lr(a, b, axis, decreasing, exclusive, out=out, **kw)
        assert got is out, f"{name}: not the given out"
        assert_same_bits(out, lr(a, b, axis, decreasing, exclusive, **kw), f"{dtype} {name} axis={axis}")
        check_recurrence(out, a, b, axis, decreasing, exclusive, where=f"{dtype} {name}", **kw)
    view, buf, outside = stepped_reversed_out(b.shape, dtype, 57)
    assert lr(a, b, 0, True, True, out=view, reset=r) is view
    assert_same_bits(view, lr(a, b, 0, True, True, reset=r), "stepped reversed out")
    assert (buf[outside] == 57).all(), "elements of out's buffer outside out were written"


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex64", "float16"])
@pytest.mark.parametrize("layout", IN_PLACE_LAYOUTS)
def test_in_place(layout, dtype):
    """out=b, and out=a (a full array of the result dtype), in any writable layout, along every axis: the bits of
    the result into a fresh array of copies walked the same way (the README's rule)."""
    rng = np.random.default_rng(seed_of("in place", layout, dtype))
    b0, a0 = terms(rng, (6, 50), dtype), coefficients(rng, (6, 50), dtype)
    r = resets(rng, b0.shape, 0.1)
    for axis in (0, 1, -1):
        initial = terms(rng, line_shape(b0.shape, axis), dtype)
        for decreasing, exclusive in VARIANTS:
            where = f"{layout} {dtype} axis={axis} {variant_name(decreasing, exclusive)}"
            b, a = apply_layout(b0, layout), apply_layout(a0, layout)
            want = lr(as_walked_by(a0, b, axis), as_walked_by(b0, b, axis), axis, decreasing,
                      exclusive, initial=initial, reset=r)
            assert lr(a, b, axis, decreasing, exclusive, initial=initial, reset=r, out=b) is b
            assert_same_bits(b, want, "out=b " + where)
            assert_same_bits(a, a0, "a, beside out=b " + where)
            b, a = apply_layout(b0, layout), apply_layout(a0, layout)
            assert lr(a, b, axis, decreasing, exclusive, initial=initial, reset=r, out=a) is a
            assert_same_bits(a, want, "out=a " + where)
            assert_same_bits(b, b0, "b, beside out=a " + where)


OVERLAPS = [
    # (name, buffer length, view for b, view for out)
    ("out-ahead", 300, lambda x: x[:260], lambda x: x[40:]),
    ("out-behind", 300, lambda x: x[3:], lambda x: x[:297]),
    ("out-ahead-by-one", 300, lambda x: x[:299], lambda x: x[1:]),
    ("out-behind-by-one", 300, lambda x: x[1:], lambda x: x[:299]),
    ("same-memory-reversed", 300, lambda x: x, lambda x: x[::-1]),
    ("interleaved", 300, lambda x: x[::2], lambda x: x[1::2]),
]


@pytest.mark.parametrize("name, size, bview, oview", OVERLAPS, ids=[o[0] for o in OVERLAPS])
def test_out_overlapping_b_or_a(name, size, bview, oview):
    """out partly overlapping b, or a, as cumsum takes it: the result of copies, nothing outside out written."""
    rng = np.random.default_rng(seed_of("overlap", name))
    for role in ("b", "a"):
        for decreasing, exclusive in VARIANTS:
            buf = terms(rng, (size,), np.float64) if role == "b" else coefficients(rng, (size,), np.float64)
            original = buf.copy()
            x = bview(buf)
            other = coefficients(rng, x.shape, np.float64) if role == "b" else terms(rng, x.shape, np.float64)
            a, b = (other, x) if role == "b" else (x, other)
            want = lr(a.copy(), b.copy(), decreasing=decreasing, exclusive=exclusive, initial=0.5)
            out = oview(buf)
            in_out = np.zeros(size, bool)
            oview(in_out)[...] = True
            where = f"{name} out overlapping {role} {variant_name(decreasing, exclusive)}"
            assert lr(a, b, decreasing=decreasing, exclusive=exclusive, initial=0.5, out=out) is out, where
            assert_same_bits(out, want, where)
            np.testing.assert_array_equal(buf[~in_out], original[~in_out], err_msg=where + ": wrote outside out")


@pytest.mark.usefixtures("restore_thread_count")
def test_initial_a_view_of_out():
    """initial a view of out (in place, out=b): each line starts from initial's values as they were before the
    call, not from outputs written over them, by hand and against the loop; on a line of several chunks with resets
    (each segment starts again from initial) on 1 and 3 threads."""
    b = np.ones((3, 4))
    got = lr(0.5, b, initial=b[0, :3], out=b)
    exactly(got, [[1.5, 1.75, 1.875, 1.9375], [1.5, 1.75, 1.875, 1.9375], [1.5, 1.75, 1.875, 1.9375]])
    rng = np.random.default_rng(seed_of("initial in out"))
    for shape, axis, initial_of in (((6, 50), 1, lambda x: x[2, 10:16]), ((6, 50), 0, lambda x: x[0]),
                                    ((2, 100_000), 1, lambda x: x[1, -2:])):
        b0, a = terms(rng, shape, np.float64), coefficients(rng, shape, np.float64)
        reset = resets(rng, shape, 1e-3)
        for decreasing, exclusive in VARIANTS:
            for threads in (1, 3):
                simdscan.set_num_threads(threads)
                b = b0.copy()
                initial = initial_of(b)
                want = recurrence(a, b0, axis, decreasing, exclusive, initial.copy(), reset)
                assert lr(a, b, axis, decreasing, exclusive, initial=initial, reset=reset, out=b) is b
                check_close(b, want, np.float64, axis, decreasing,
                            where=f"{shape} axis={axis} {variant_name(decreasing, exclusive)} {threads} threads")


@pytest.mark.parametrize("shape, axis", [((0,), 0), ((3, 0), -1), ((0, 4), -1), ((0, 4), 0), ((2, 0, 3), 1)])
def test_empty(shape, axis):
    """Empty inputs: an empty result of b's shape and the result dtype, with or without initial, reset and out."""
    for dtype, rdt in (("float32", "float32"), ("int8", "float64"), ("complex128", "complex128")):
        b = np.zeros(shape, dtype)
        lshape = line_shape(shape, axis)
        for decreasing, exclusive in VARIANTS:
            got = lr(0.5, b, axis, decreasing, exclusive, initial=np.ones(lshape, rdt), reset=np.zeros(shape, bool))
            assert got.dtype == rdt and got.shape == shape
            out = np.zeros(shape, rdt)
            assert lr(np.zeros(shape, dtype), b, axis, decreasing, exclusive, out=out) is out


# --------------------------------------------------------------------------
# accuracy on long lines
# --------------------------------------------------------------------------
def _accuracy_case(n, dtype, decreasing, seed):
    """a uniform in [-1, 1] (complex: in the unit disk) and b uniform in [-3, 3], n of each, with initial 0.5:
    within the contract of the loop, relative to the largest |y| of the line."""
    rng = np.random.default_rng(seed)
    a = coefficients(rng, (n,), dtype)
    b = terms(rng, (n,), dtype)
    got = lr(a, b, decreasing=decreasing, initial=0.5)
    check_recurrence(got, a, b, -1, decreasing, initial=0.5, where=f"{n} {dtype} decreasing={decreasing}")


@pytest.mark.parametrize("decreasing", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_accuracy_on_a_million(dtype, decreasing):
    _accuracy_case(1_000_000, dtype, decreasing, seed_of("accuracy 1e6", dtype, decreasing))


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_complex_accuracy_on_long_lines(dtype):
    _accuracy_case(200_000, dtype, dtype == "complex64", seed_of("accuracy complex", dtype))


@pytest.mark.slow
@pytest.mark.parametrize("decreasing", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_accuracy_on_ten_million(dtype, decreasing):
    """The contract's own case: 10**7 random values."""
    _accuracy_case(10_000_000, dtype, decreasing, seed_of("accuracy 1e7", dtype, decreasing))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_accuracy_along_the_outer_axis(dtype):
    """2-D along axis 0 (each line a column) and along axis 1 of its Fortran-ordered copy: 1000 lines of 1000."""
    rng = np.random.default_rng(seed_of("accuracy outer", dtype))
    a = coefficients(rng, (1000, 1000), dtype)
    b = terms(rng, (1000, 1000), dtype)
    initial = terms(rng, (1000,), dtype)
    for x, y, axis in ((a, b, 0), (np.asfortranarray(a.T), np.asfortranarray(b.T), 1)):
        for decreasing in (False, True):
            got = lr(x, y, axis, decreasing, initial=initial)
            check_recurrence(got, x, y, axis, decreasing, initial=initial, where=f"axis={axis} {decreasing}")


# --------------------------------------------------------------------------
# threads: every thread count gives the same bits
# --------------------------------------------------------------------------
THREAD_CASES = [
    # (name, shape, axis, lines the loop checks)
    ("long_line", (400_000,), 0, slice(None)),
    ("few_long_lines", (3, 150_000), 1, [0, 2]),
    ("many_lines", (400, 1000), 1, [0, 1, 17, 399]),
    ("outer", (1000, 400), 0, [0, 5, 399]),
]


@pytest.mark.threads
@pytest.mark.usefixtures("restore_thread_count")
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
@pytest.mark.parametrize("name, shape, axis, checked", THREAD_CASES, ids=[c[0] for c in THREAD_CASES])
def test_thread_count_does_not_change_a_bit(name, shape, axis, checked, dtype):
    """Inputs over 1 MiB, which the thread pool splits (a long line in chunks, lines in parallel, the outer axis):
    1, 2 and 4 threads give the same bits, in every variant, with an array a or a scalar one, initial per line and
    resets; the one-thread result is within the contract on some lines."""
    rng = np.random.default_rng(seed_of("threads", name, dtype))
    b = terms(rng, shape, dtype)
    assert b.nbytes > 1 << 20, "the array must be large enough to use the thread pool"
    a_full = coefficients(rng, shape, dtype)
    initial = terms(rng, line_shape(shape, axis), dtype)
    reset = resets(rng, shape, 2e-5)
    for v, (decreasing, exclusive) in enumerate(VARIANTS):
        a = a_full if v % 2 == 0 else 0.999
        kw = dict(initial=initial, reset=reset if v < 2 else None)
        simdscan.set_num_threads(1)
        single = lr(a, b, axis, decreasing, exclusive, **kw)
        if v == (THREAD_CASES.index((name, shape, axis, checked)) % len(VARIANTS)):
            lines = lambda x: np.moveaxis(np.broadcast_to(x, shape), axis, -1)[checked]  # noqa: E731
            check_recurrence(lines(single), lines(a) if np.ndim(a) else a, lines(b), -1, decreasing, exclusive,
                             np.asarray(initial)[checked] if np.ndim(initial) else initial, lines(kw["reset"])
                             if kw["reset"] is not None else None, where=f"{name} {dtype} one thread")
        for threads in THREAD_COUNTS[1:]:
            simdscan.set_num_threads(threads)
            got = lr(a, b, axis, decreasing, exclusive, **kw)
            assert_same_bits(got, single, f"{name} {dtype} {variant_name(decreasing, exclusive)} a "
                                          f"{np.shape(a)}: {threads} threads vs 1")


@pytest.mark.threads
@pytest.mark.usefixtures("restore_thread_count")
@pytest.mark.parametrize("dtype", ["complex64", "complex128", "float32", "float64"])
def test_thread_count_does_not_change_a_nan_bit(dtype):
    """NaN of either sign and infinities in a and b (inf - inf and inf * 0 making NaNs of their own) along a line of
    five chunks of the core (32768 elements) and more: 1, 2 and 3 threads give the same bits, NaN's sign bit and
    payload included, in every variant, with and without resets."""
    rng = np.random.default_rng(seed_of("nan bits", dtype))
    n = 5 * 32768 + 77
    b = terms(rng, (n,), dtype)
    a = coefficients(rng, (n,), dtype, 0.5, 1.0)
    inf = complex(0, -INF) if dtype.startswith("complex") else -INF
    for at, x, value in ((1000, b, NAN), (40_000, b, inf), (100_000, b, INF), (100_001, a, 0), (130_000, b, -NAN),
                         (150_000, a, INF), (n - 1000, b, -INF)):
        x[at] = value
    reset = np.zeros(n, bool)
    reset[[70_000, 120_000, 140_000]] = True
    for decreasing, exclusive in VARIANTS:
        for r in (None, reset):
            simdscan.set_num_threads(1)
            single = lr(a, b, decreasing=decreasing, exclusive=exclusive, reset=r)
            assert np.isnan(single).any(), "no NaN to compare"
            for threads in (2, 3):
                simdscan.set_num_threads(threads)
                assert_same_bits(lr(a, b, decreasing=decreasing, exclusive=exclusive, reset=r), single,
                                 f"{dtype} {variant_name(decreasing, exclusive)} reset={r is not None}: "
                                 f"{threads} threads vs 1")


# --------------------------------------------------------------------------
# properties
# --------------------------------------------------------------------------
_B_POOL = [0.0, 1.0, -1.0, 2.5, -3.0, 0.125, 7.0]
_A_POOL = [0.0, 1.0, -1.0, 0.5, -0.75, 0.9, 1.25, -1.5]


def _pool(dtype):
    """_B_POOL's values that ``dtype`` holds."""
    kind = np.dtype(dtype).kind
    return [v for v in _B_POOL if kind in "fc" or (v == int(v) and (kind != "u" or v >= 0))]


@given(b=st.sampled_from(["float64", "float32", "float16", "complex128", "int16", "uint8"]).flatmap(
    lambda dt: hnp.arrays(np.dtype(dt), hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=9),
                          elements=st.sampled_from(_pool(dt)))),
       data=st.data())
def test_any_array_matches_the_loop(b, data):
    """Any small array, axis, direction, mode; a a Python float, a 0-d array or an array of b's shape; initial none,
    a scalar or per line; reset none or of b's shape; returned or written to an out: the loop's values within the
    contract (the running scale, as |a| may exceed 1)."""
    axis = data.draw(st.integers(-b.ndim, b.ndim - 1), label="axis")
    decreasing = data.draw(st.booleans(), label="decreasing")
    exclusive = data.draw(st.booleans(), label="exclusive")
    a_kind = data.draw(st.sampled_from(["python", "0-d", "array"]), label="a kind")
    if a_kind == "python":
        a = data.draw(st.sampled_from(_A_POOL), label="a")
    else:
        a = data.draw(hnp.arrays(np.float32 if b.dtype == np.float32 else np.float64, () if a_kind == "0-d" else
                                 b.shape, elements=st.sampled_from(_A_POOL)), label="a")
    rdt = result_dtype(a, b)
    lshape = line_shape(b.shape, axis)
    initial = data.draw(st.sampled_from([None, 0.5, "line"]), label="initial kind")
    if initial == "line":
        initial = data.draw(hnp.arrays(rdt, lshape, elements=st.sampled_from(_B_POOL)), label="initial")
    reset = data.draw(st.none() | hnp.arrays(bool, b.shape), label="reset")
    use_out = data.draw(st.booleans(), label="out")
    note(f"b={b!r}")
    snap = snapshot(b)
    out = np.full(b.shape, 7, rdt) if use_out else None
    got = lr(a, b, axis, decreasing, exclusive, initial=initial, reset=reset, out=out)
    if use_out:
        assert got is out
    check_recurrence(got, a, b, axis, decreasing, exclusive, initial, reset, scale="running")
    assert_unchanged(b, snap)


@given(n=st.integers(0, 40), data=st.data())
def test_exclusive_is_the_inclusive_shifted(n, data):
    """Exclusive writes the state before each element: the inclusive result one step back in the walk, initial at
    the first element of every segment (exact here: a and b small binary fractions)."""
    a = data.draw(hnp.arrays(np.float64, n, elements=st.sampled_from([0.5, -0.5, 1.0, 0.0, 2.0])), label="a")
    b = data.draw(hnp.arrays(np.float64, n, elements=st.sampled_from([1.0, -2.0, 0.25, 3.0])), label="b")
    reset = data.draw(hnp.arrays(bool, n), label="reset")
    decreasing = data.draw(st.booleans(), label="decreasing")
    inc = lr(a, b, decreasing=decreasing, initial=1.5, reset=reset)
    exc = lr(a, b, decreasing=decreasing, exclusive=True, initial=1.5, reset=reset)
    want = np.full(n, 1.5)
    if decreasing:
        want[:-1] = np.where(reset[1:], 1.5, inc[1:])
    else:
        want[1:] = np.where(reset[1:], 1.5, inc[:-1])
    np.testing.assert_array_equal(exc, want)


# --------------------------------------------------------------------------
# errors: the inputs and out untouched
# --------------------------------------------------------------------------
def raises_leaving_alone(exc_type, fn, *args, **kw):
    """fn(*args, **kw) raises exc_type; no array argument (nor out) is changed."""
    watched = [(x, snapshot(x)) for x in list(args) + list(kw.values()) if isinstance(x, np.ndarray)]
    with pytest.raises(exc_type):
        fn(*args, **kw)
    for x, snap in watched:
        assert_unchanged(x, snap, "an argument")


def _two_d():
    rng = np.random.default_rng(seed_of("errors"))
    return coefficients(rng, (3, 4), np.float64), terms(rng, (3, 4), np.float64)


BAD_CALLS = [
    # (name, exception, keywords beside a and b (a and b given as "a" / "b" to replace them))
    ("a does not broadcast", ValueError, dict(a=np.full(5, 0.5))),
    ("a of 3 along the last axis of 4", ValueError, dict(a=np.full((3, 1, 3), 0.5))),
    ("a larger than b", ValueError, dict(a=np.full((2, 3, 4), 0.5))),
    ("b broadcast by a", ValueError, dict(a=np.full((3, 4), 0.5), b=np.ones(4))),
    ("initial of 4 for 3 lines", ValueError, dict(initial=np.zeros(4))),
    ("initial of b's shape", ValueError, dict(initial=np.zeros((3, 4)))),
    ("initial (3, 1) for lines (3,)", ValueError, dict(initial=np.zeros((3, 1)))),
    ("initial (2,) along axis 0", ValueError, dict(initial=np.zeros(2), axis=0)),
    ("reset 2", ValueError, dict(reset=np.array([[0, 2, 0, 1]] * 3))),
    ("reset 0.5", ValueError, dict(reset=0.5)),
    ("reset NaN", ValueError, dict(reset=np.array([0.0, NAN, 0.0, 1.0]))),
    ("reset -1 int8", ValueError, dict(reset=np.array([0, -1, 0, 0], np.int8))),
    ("reset of 5", ValueError, dict(reset=np.zeros(5, bool))),
    ("reset (3, 4, 1)", ValueError, dict(reset=np.zeros((2, 3, 4), bool))),
    ("direction", ValueError, dict(direction="sideways")),
    ("axis 2", np.exceptions.AxisError, dict(axis=2)),
    ("axis -3", np.exceptions.AxisError, dict(axis=-3)),
    ("out of another shape", ValueError, dict(out=np.full((4, 3), 7.0))),
    ("out of another dtype", TypeError, dict(out=np.full((3, 4), 7, np.float32))),
    ("out read-only", ValueError, dict(out=apply_layout(np.full((3, 4), 7.0), "readonly"))),
    ("out a list", TypeError, dict(out=[[7.0] * 4] * 3)),
]


@pytest.mark.parametrize("name, error, kw", BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_errors(name, error, kw):
    """Each bad argument raises its exception, with or without out (and in place, out=b), leaving a, b, initial,
    reset and out as they were."""
    a, b = _two_d()
    kw = dict(kw)
    a = kw.pop("a", a)
    b = kw.pop("b", b)
    raises_leaving_alone(error, simdscan.linear_recurrence, a, b, **kw)
    if "out" not in kw:
        raises_leaving_alone(error, simdscan.linear_recurrence, a, b, out=np.full(b.shape, 7.0), **kw)
        raises_leaving_alone(error, simdscan.linear_recurrence, a, b, out=b, **kw)


def test_errors_on_a_large_fortran_input_leave_it_alone():
    """The last reset element bad, on a Fortran-ordered input over several vectors, in place: nothing written."""
    rng = np.random.default_rng(seed_of("errors large"))
    b = np.asfortranarray(terms(rng, (5, 600), np.float64))
    a = coefficients(rng, (5, 600), np.float64)
    bad = resets(rng, b.shape, 0.1).astype(np.float32)
    bad[4, 599] = 2.0
    for axis in (0, 1):
        for decreasing in (False, True):
            direction = "decreasing" if decreasing else "increasing"
            raises_leaving_alone(ValueError, simdscan.linear_recurrence, a, b, axis, direction=direction, reset=bad,
                                 out=b)
            raises_leaving_alone(ValueError, simdscan.linear_recurrence, a, b, axis, direction=direction, reset=bad,
                                 out=np.full(b.shape, 7.0)[::-1])


def test_keyword_only():
    with pytest.raises(TypeError):
        simdscan.linear_recurrence(0.5, np.ones(3), -1, "decreasing")
    with pytest.raises(TypeError):
        simdscan.discounted_cumsum(np.ones(3), 0.5, -1, None)


# --------------------------------------------------------------------------
# discounted_cumsum
# --------------------------------------------------------------------------
def test_discounted_cumsum_by_hand():
    """G[i] = x[i] + gamma * G[i+1]; a reset at 2 ends the first episode at 1 (no return crosses it)."""
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    exactly(simdscan.discounted_cumsum(np.ones(3), 0.5), [1.75, 1.5, 1.0])
    exactly(simdscan.discounted_cumsum(x, 0.5), [3.5625, 5.125, 6.25, 6.5, 5.0])
    exactly(simdscan.discounted_cumsum(x, 0.5, reset=[0, 0, 1, 0, 0]),
                                  [2.0, 2.0, 6.25, 6.5, 5.0])
    exactly(simdscan.discounted_cumsum(x, np.array([0.5, 0.0, 0.5, 0.5, 2.0])),
                                  [2.0, 2.0, 6.25, 6.5, 5.0])
    x2 = np.array([[1.0, 1.0], [2.0, 2.0], [4.0, 4.0]])
    exactly(simdscan.discounted_cumsum(x2, 0.5, axis=0), [[3, 3], [4, 4], [4, 4]])
    assert simdscan.discounted_cumsum(np.ones(3, np.float32), 0.99).dtype == np.float32
    assert simdscan.discounted_cumsum(np.ones(3, np.float32), np.float64(0.99)).dtype == np.float64
    assert simdscan.discounted_cumsum(np.ones(3, np.int32), 0.5).dtype == np.float64


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "complex64", "int32", "bool"])
def test_discounted_cumsum_is_the_decreasing_recurrence(dtype):
    """discounted_cumsum(x, gamma, axis, reset=) is linear_recurrence(gamma, x, axis, direction="decreasing",
    reset=), bit for bit, for a scalar gamma and an array gamma, along every axis; and within the contract of the
    loop."""
    rng = np.random.default_rng(seed_of("discounted", dtype))
    x = terms(rng, (6, 300), dtype)
    gdt = dtype if np.dtype(dtype).kind in "fc" else "float64"
    # (a float32 gamma only with floating x: an integer x with a float32 gamma could be read as float32 or float64)
    strong = [np.float32(0.9)] if np.dtype(dtype).kind in "fc" else []
    for gamma in (0.99, *strong, coefficients(rng, x.shape, gdt, 0.0, 1.0),
                  coefficients(rng, (300,), gdt, 0.5, 1.0)):
        for axis in (0, 1, -1):
            for reset in (None, resets(rng, x.shape, 0.05)):
                where = f"{dtype} gamma {np.shape(gamma)} axis={axis} reset={reset is not None}"
                got = simdscan.discounted_cumsum(x, gamma, axis, reset=reset)
                want = simdscan.linear_recurrence(gamma, x, axis, direction="decreasing", reset=reset)
                assert_same_bits(got, want, where)
                check_recurrence(got, gamma, x, axis, True, reset=reset, where=where)


def dones_to_reset(dones, axis=-1):
    """The README's recipe: an episode starts one step after a done (reset[i] = dones[i-1], reset[0] = False)."""
    dones = np.moveaxis(np.asarray(dones, bool), axis, -1)
    reset = np.zeros_like(dones)
    reset[..., 1:] = dones[..., :-1]
    return np.moveaxis(reset, -1, axis)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_returns_never_leak_across_episodes(dtype):
    """Rewards of several environments (rows) with dones: each episode's returns are the discounted sums of its own
    rewards (the loop on the episode alone), the same as with gamma * (1 - dones) as an array gamma, and no reward
    after a done reaches a step before it (a huge reward after every done changes nothing before it)."""
    rng = np.random.default_rng(seed_of("episodes", dtype))
    rewards = terms(rng, (8, 2000), dtype)
    dones = rng.random(rewards.shape) < 0.01
    dones[3] = False  # one environment without a done
    dones[4, -1] = True
    reset = dones_to_reset(dones)
    gamma = 0.99
    got = simdscan.discounted_cumsum(rewards, gamma, reset=reset)
    assert got.dtype == dtype
    for row in range(rewards.shape[0]):
        starts = np.flatnonzero(reset[row]).tolist()
        for start, stop in zip([0] + starts, starts + [rewards.shape[1]]):
            alone = simdscan.discounted_cumsum(np.array(rewards[row, start:stop]), gamma)
            check_recurrence(got[row, start:stop], gamma, rewards[row, start:stop], -1, True,
                             where=f"row {row} episode [{start}, {stop})")
            check_close(alone, recurrence(gamma, rewards[row, start:stop], -1, True), dtype, -1, True)
    per_step = np.where(dones, 0.0, gamma).astype(dtype)
    check_close(simdscan.discounted_cumsum(rewards, per_step), recurrence(gamma, rewards, -1, True, reset=reset),
                dtype, -1, True, where="gamma * (1 - dones)")
    spiked = rewards.copy()
    spiked[reset] = 1e6
    after = simdscan.discounted_cumsum(spiked, gamma, reset=reset)
    before_done = np.roll(reset, -1, axis=1)
    before_done[:, -1] = False
    # the spikes reach no step outside their own (first) step: every other return the same, exactly
    np.testing.assert_array_equal(after[~reset], got[~reset])
    # every step that ends an episode (before the line's end) returns its own reward alone
    np.testing.assert_array_equal(got[before_done], rewards[before_done])


@pytest.mark.parametrize("layout", LAYOUTS)
def test_discounted_cumsum_layouts_out_and_in_place(layout):
    """x, gamma and reset in any layout: the bits of copies walked the same way (the README's rule); out of any
    layout; in place, out=x."""
    rng = np.random.default_rng(seed_of("discounted layouts", layout))
    x0 = terms(rng, (9, 41), np.float32)
    g0 = coefficients(rng, (9, 41), np.float32, 0.5, 1.0)
    r0 = resets(rng, (9, 41), 0.1)
    x, g, r = (apply_layout(v, layout) for v in (x0, g0, r0))
    for axis in (0, 1):
        for gamma_c, gamma in ((np.array(g), g), (0.97, 0.97)):
            want = simdscan.discounted_cumsum(as_walked_by(x, x, axis), as_walked_by(gamma_c, x, axis),
                                              axis, reset=np.array(r))
            assert_same_bits(simdscan.discounted_cumsum(x, gamma, axis, reset=r), want, f"{layout} axis={axis}")
            for name, out in scattered_outs(x0.shape, np.float32).items():
                assert simdscan.discounted_cumsum(x, gamma, axis, reset=r, out=out) is out
                assert_same_bits(out, want, f"{layout} axis={axis} {name}")
            if layout in IN_PLACE_LAYOUTS:
                y = apply_layout(x0, layout)
                assert simdscan.discounted_cumsum(y, gamma, axis, reset=r, out=y) is y
                assert_same_bits(y, want, f"in place {layout} axis={axis}")


@pytest.mark.threads
@pytest.mark.usefixtures("restore_thread_count")
@pytest.mark.parametrize("shape, axis", [((400_000,), 0), ((4, 100_000), 1), ((1000, 300), 0)])
def test_discounted_cumsum_threads(shape, axis):
    rng = np.random.default_rng(seed_of("discounted threads", shape))
    x = terms(rng, shape, np.float64)
    reset = resets(rng, shape, 1e-4)
    for gamma in (0.99, coefficients(rng, shape, np.float64, 0.5, 1.0)):
        simdscan.set_num_threads(1)
        single = simdscan.discounted_cumsum(x, gamma, axis, reset=reset)
        for threads in THREAD_COUNTS[1:]:
            simdscan.set_num_threads(threads)
            assert_same_bits(simdscan.discounted_cumsum(x, gamma, axis, reset=reset), single,
                             f"{shape} gamma {np.shape(gamma)}: {threads} threads vs 1")


DISCOUNTED_BAD = [
    ("gamma does not broadcast", ValueError, dict(gamma=np.full(5, 0.5))),
    ("gamma larger than x", ValueError, dict(gamma=np.full((2, 3, 4), 0.5))),
    ("reset 2", ValueError, dict(reset=np.array([0, 2, 0, 0]))),
    ("reset 0.5", ValueError, dict(reset=0.5)),
    ("reset of 5", ValueError, dict(reset=np.zeros(5, bool))),
    ("axis 2", np.exceptions.AxisError, dict(axis=2)),
    ("out of another shape", ValueError, dict(out=np.full((4, 3), 7.0))),
    ("out of another dtype", TypeError, dict(out=np.full((3, 4), 7, np.float32))),
]


@pytest.mark.parametrize("name, error, kw", DISCOUNTED_BAD, ids=[c[0] for c in DISCOUNTED_BAD])
def test_discounted_cumsum_errors(name, error, kw):
    gamma, x = _two_d()
    kw = dict(kw)
    gamma = kw.pop("gamma", gamma)
    raises_leaving_alone(error, simdscan.discounted_cumsum, x, gamma, **kw)
    if "out" not in kw:
        raises_leaving_alone(error, simdscan.discounted_cumsum, x, gamma, out=x, **kw)
