"""``reset=`` on every scan: segmented scans (reinforcement learning's ``dones``, per-episode totals).

A True reset at index i starts a new segment at element i, in index order whatever the direction; each segment is
scanned on its own (``exclusive=True``: the identity at each segment's first element in the walk, its last in index
order when decreasing; ``include_initial=True``: one identity per line, as without reset), and return_indices gives
positions along the whole axis. The result is each segment's own scan, bit for bit: checked against simdscan's scan of
every segment on 1-D lines, against NumPy's scans of every segment (segment_reference.py) on any shape and layout, and
bit for bit across thread counts on inputs that the thread pool splits. reset is bool, or integers or floats that are
all 0 or 1, broadcast to the input's shape (axis=None: then flattened in C order); other values are ValueErrors, other
dtypes TypeErrors, and no error touches the input, reset or out.
"""

import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import simdscan
from data import make_data, seed_of, spread_values
from family_reference import LOGCUMSUMEXP_RTOL, assert_same_bits, extrema_data
from ops import BY_NAME, SCANS
from params import VARIANTS, scan, scattered_outs, stepped_reversed_out
from reference import LAYOUTS, SUPPORTED_DTYPES, apply_layout, assert_unchanged, snapshot
from segment_reference import check_segmented, identity, result_dtype, segment_bounds

pytestmark = pytest.mark.kernels  # the outcome depends on the ISA tier and the xsimd version: CI runs these per tier

SCAN_NAMES = tuple(s.name for s in SCANS)
CUMULATIVE = ("cumulative_sum", "cumulative_prod")
#: (scan, flags): each scan with each keyword set that chooses another kernel (ops.Scan.variants)
SCAN_FLAGS = [(s.name, flags) for s in SCANS for flags in s.variants()]
SCAN_FLAG_IDS = [name + "".join(f"-{k}" for k in flags) for name, flags in SCAN_FLAGS]


def data(op, rng, shape, dtype, nan=0.0):
    """Values for ``op``: extrema_data's walks for running extrema, make_data's sums or near-one products (whose
    scans stay finite), logcumsumexp the sums' values; floats get NaNs with probability ``nan``."""
    dt = np.dtype(dtype)
    if op.endswith(("max", "min")):
        return extrema_data(rng, shape, dt, nan)
    x = make_data(rng, shape, dt, "cumprod" if op.endswith("prod") else "cumsum")
    if nan and (dt.kind == "f" or dt.kind == "c" and op != "cumprod"):  # (the oracle takes no complex product of NaN)
        x[rng.random(shape) < nan] = np.nan
    return x


def resets(rng, shape, density):
    """Random bool resets of ``shape``, True with probability ``density``."""
    return rng.random(shape) < density


def exact_values(op, rng, shape):
    """float64 values whose scans by ``op`` are exact, whatever the order of the operations (all but
    logcumsumexp's): integers in [-3, 3] for sums and extrema, powers of two in [1/2, 2] with a sign for products;
    so that scans along different paths compare bit for bit."""
    if op.endswith("prod"):
        return rng.choice(np.array([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0]), shape)
    return rng.integers(-3, 4, shape).astype(np.float64)


def values_of(got):
    return got[0] if isinstance(got, tuple) else got


def assert_same_values(got, want, where):
    """Same type, dtype, shape and values, NaN equal to NaN (whatever its payload) and a zero's sign kept; pairs
    (values, indices) element by element."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == 2, f"{where}: returned {type(got)!r}, not a pair"
        assert_same_values(got[0], want[0], where + " (values)")
        assert_same_values(got[1], want[1], where + " (indices)")
        return
    assert isinstance(got, np.ndarray), f"{where}: returned {type(got)!r}"
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype}, expected {want.dtype}"
    assert got.shape == want.shape, f"{where}: shape {got.shape}, expected {want.shape}"
    np.testing.assert_array_equal(got, want, err_msg=where, strict=True)
    if got.dtype.kind in "fc":
        for g, w in ((got.real, want.real), (got.imag, want.imag)) if got.dtype.kind == "c" else ((got, want),):
            known = ~np.isnan(w)
            np.testing.assert_array_equal(np.signbit(g[known]), np.signbit(w[known]), err_msg=where + " (signs)")


#: float sums and products round a segment shorter than 4 KiB of elements (1024 float32, 512 float64) in vectors
#: that start at multiples of the lane count from the line's start, not from the segment's: within rounding of its
#: own scan, and the same bits for any layout and thread count; longer segments are scanned as lines of their own
SHORT_SEGMENT_BYTES = 4096


def promises_bits(op, flags, dtype):
    """Whether reset= gives each segment's own scan bit for bit, short segments included: where grouping changes no
    bit (integers, extrema) or each segment is scanned on its own (complex, compensated sums, logcumsumexp)."""
    grouped = op in ("cumsum", "cumprod", "nancumsum", "nancumprod", "cumulative_sum", "cumulative_prod")
    return not grouped or np.dtype(dtype).kind in "biuc" or bool(flags.get("compensated"))


def each_segment_scanned_alone(op, a, flags, **kw):
    """simdscan.<op> of every segment of the 1-D ``a`` as an array of its own, concatenated (indices shifted by the
    segment's start); ``a`` itself without a segment (empty)."""
    f = getattr(simdscan, op)
    bounds = segment_bounds(flags)
    if not bounds:
        return f(a, **kw)
    parts = [f(np.array(a[start:stop]), **kw) for start, stop in bounds]
    if not isinstance(parts[0], tuple):
        return np.concatenate(parts)
    idx = [np.where(i >= 0, i + start, i) for (_, i), (start, _) in zip(parts, bounds)]
    return np.concatenate([v for v, _ in parts]), np.concatenate(idx).astype(np.intp)


def every_element_alone(op, a, axis, exclusive, return_indices=False):
    """The result of a scan with a reset on every element: inclusive, the input in the result dtype (NaN counting
    as the identity for nancumsum / nancumprod); exclusive, the identity everywhere; indices each element's own
    position (exclusive: -1)."""
    a = np.asarray(a)
    rdt = result_dtype(op, a.dtype)
    x = a.reshape(-1) if axis is None else a.reshape(a.shape or (1,))
    if exclusive:
        want = np.full(x.shape, identity(op, rdt), rdt)
    else:
        want = x.astype(rdt)
        if op in ("nancumsum", "nancumprod") and rdt.kind in "fc":
            want[np.isnan(x)] = identity(op, rdt)
    if not return_indices:
        return want
    ax = 0 if axis is None else axis
    pos = np.arange(x.shape[ax]).reshape([-1 if k == ax % max(x.ndim, 1) else 1 for k in range(x.ndim)])
    return want, np.broadcast_to(np.full(x.shape, -1) if exclusive else pos, x.shape).astype(np.intp)


def assert_each_alone(op, got, want, where):
    """``got`` is ``want`` (every_element_alone's): the same values, except that logcumsumexp of one element need
    not be the element's bits (within LOGCUMSUMEXP_RTOL of it)."""
    if op != "logcumsumexp":
        assert_same_values(got, want, where)
        return
    assert got.dtype == want.dtype and got.shape == want.shape, f"{where}: {got.dtype} {got.shape}"
    rtol = 1e-3 if got.dtype == np.float16 else LOGCUMSUMEXP_RTOL[got.dtype.name]
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol, err_msg=where)


# --------------------------------------------------------------------------
# by hand
# --------------------------------------------------------------------------
# x = [1, 2, 3, 4, 5, 6] with resets at 2 and 4: segments [1, 2], [3, 4], [5, 6]
_X6 = np.array([1, 2, 3, 4, 5, 6], dtype=np.int32)
_R6 = np.array([0, 0, 1, 0, 1, 0], dtype=bool)
BY_HAND = [
    # (scan, decreasing, exclusive, expected)
    ("cumsum", False, False, [1, 3, 3, 7, 5, 11]),
    ("cumsum", True, False, [3, 2, 7, 4, 11, 6]),
    ("cumsum", False, True, [0, 1, 0, 3, 0, 5]),
    ("cumsum", True, True, [2, 0, 4, 0, 6, 0]),
    ("cumprod", False, False, [1, 2, 3, 12, 5, 30]),
    ("cumprod", True, False, [2, 2, 12, 4, 30, 6]),
    ("cumprod", False, True, [1, 1, 1, 3, 1, 5]),
    ("cumprod", True, True, [2, 1, 4, 1, 6, 1]),
    ("nancumsum", True, False, [3, 2, 7, 4, 11, 6]),
    ("nancumprod", False, True, [1, 1, 1, 3, 1, 5]),
]


@pytest.mark.parametrize("op, decreasing, exclusive, want", BY_HAND,
                         ids=[f"{op}-{'dec' if d else 'inc'}-{'exc' if e else 'inc'}" for op, d, e, _ in BY_HAND])
@pytest.mark.parametrize("reset_dtype", ["bool", "int8", "uint64", "float32", "float64"])
def test_sums_and_products_by_hand(op, decreasing, exclusive, want, reset_dtype):
    # float dones arrays (RL's 0.0 / 1.0) are as good as bool ones
    got = scan(op, _X6, None, decreasing, exclusive, reset=_R6.astype(reset_dtype))
    assert_same_values(got, np.array(want, dtype=np.int32), f"{op} reset {reset_dtype}")


# x = [3, 1, 4, 1, 5, 9, 2, 6] with resets at 3 and 6: segments [3, 1, 4], [1, 5, 9], [2, 6]
_X8 = np.array([3, 1, 4, 1, 5, 9, 2, 6], dtype=np.int16)
_R8 = [0, 0, 0, 1, 0, 0, 1, 0]
_LO, _HI = np.iinfo(np.int16).min, np.iinfo(np.int16).max
EXTREMA_BY_HAND = [
    # (scan, decreasing, exclusive, values, indices)
    ("cummax", False, False, [3, 3, 4, 1, 5, 9, 2, 6], [0, 0, 2, 3, 4, 5, 6, 7]),
    ("cummax", True, False, [4, 4, 4, 9, 9, 9, 6, 6], [2, 2, 2, 5, 5, 5, 7, 7]),
    ("cummax", False, True, [_LO, 3, 3, _LO, 1, 5, _LO, 2], [-1, 0, 0, -1, 3, 4, -1, 6]),
    ("cummax", True, True, [4, 4, _LO, 9, 9, _LO, 6, _LO], [2, 2, -1, 5, 5, -1, 7, -1]),
    ("cummin", False, False, [3, 1, 1, 1, 1, 1, 2, 2], [0, 1, 1, 3, 3, 3, 6, 6]),
    ("cummin", True, False, [1, 1, 4, 1, 5, 9, 2, 6], [1, 1, 2, 3, 4, 5, 6, 7]),
    ("cummin", False, True, [_HI, 3, 1, _HI, 1, 1, _HI, 2], [-1, 0, 1, -1, 3, 3, -1, 6]),
    ("cummin", True, True, [1, 4, _HI, 5, 9, _HI, 6, _HI], [1, 2, -1, 4, 5, -1, 7, -1]),
]


@pytest.mark.parametrize("op, decreasing, exclusive, want, want_idx", EXTREMA_BY_HAND,
                         ids=[f"{op}-{'dec' if d else 'inc'}-{'exc' if e else 'inc'}"
                              for op, d, e, _, _ in EXTREMA_BY_HAND])
def test_extrema_and_indices_by_hand(op, decreasing, exclusive, want, want_idx):
    want = np.array(want, dtype=np.int16)
    assert_same_values(scan(op, _X8, None, decreasing, exclusive, reset=_R8), want, op)
    got = scan(op, _X8, None, decreasing, exclusive, reset=_R8, return_indices=True)
    assert_same_values(got, (want, np.array(want_idx, dtype=np.intp)), f"{op} return_indices")
    # the NaN-skipping twins agree where there is no NaN (and give no indices)
    assert_same_values(scan("nan" + op, _X8, None, decreasing, exclusive, reset=_R8), want, "nan" + op)


def test_logcumsumexp_by_hand():
    x = np.log([1.0, 2.0, 3.0, 4.0, 5.0])
    r = [0, 0, 1, 0, 0]
    np.testing.assert_allclose(simdscan.logcumsumexp(x, reset=r), np.log([1, 3, 3, 7, 12]), rtol=1e-14)
    np.testing.assert_allclose(simdscan.logcumsumexp(x, reset=r, direction="decreasing"), np.log([3, 2, 12, 9, 5]),
                               rtol=1e-14)
    got = simdscan.logcumsumexp(x, reset=r, exclusive=True)
    assert got[0] == got[2] == -np.inf
    np.testing.assert_allclose(got[[1, 3, 4]], np.log([1, 3, 7]), rtol=1e-14)
    got = simdscan.logcumsumexp(x, reset=r, exclusive=True, direction="decreasing")
    assert got[1] == got[4] == -np.inf
    np.testing.assert_allclose(got[[0, 2, 3]], np.log([2, 9, 5]), rtol=1e-14)


def test_cumulative_by_hand():
    x = np.array([1, 2, 3, 4], dtype=np.int32)
    r = [0, 1, 0, 1]  # segments [1], [2, 3], [4]
    assert_same_values(simdscan.cumulative_sum(x, reset=r), np.array([1, 2, 5, 4]), "cumulative_sum")
    # one identity per line, at the start of the walk, and reset has x's shape
    assert_same_values(simdscan.cumulative_sum(x, reset=r, include_initial=True), np.array([0, 1, 2, 5, 4]),
                       "cumulative_sum include_initial")
    assert_same_values(simdscan.cumulative_sum(x, reset=r, include_initial=True, direction="decreasing"),
                       np.array([1, 5, 3, 4, 0]), "cumulative_sum include_initial decreasing")
    x = np.array([[2, 3, 4, 5], [1, 2, 3, 4]], dtype=np.uint8)
    r = np.array([0, 0, 1, 0])
    assert_same_values(simdscan.cumulative_prod(x, axis=1, reset=r),
                       np.array([[2, 6, 4, 20], [1, 2, 3, 12]], np.uint64), "cumulative_prod")
    assert_same_values(simdscan.cumulative_prod(x, axis=1, reset=r, include_initial=True),
                       np.array([[1, 2, 6, 4, 20], [1, 1, 2, 3, 12]], np.uint64), "cumulative_prod include_initial")


_NAN = np.nan
# x = [1, nan, 2, 3, 4] with a reset at 3: the NaN is in the first segment, [1, nan, 2], and must not reach [3, 4]
_XN = np.array([1.0, _NAN, 2.0, 3.0, 4.0])
_RN = np.array([0, 0, 0, 1, 0])
NAN_BY_HAND = [
    # (scan, decreasing, exclusive, values, indices or None)
    ("cumsum", False, False, [1, _NAN, _NAN, 3, 7], None),
    ("cumsum", True, False, [_NAN, _NAN, 2, 7, 4], None),
    ("cumsum", False, True, [0, 1, _NAN, 0, 3], None),
    ("cumsum", True, True, [_NAN, 2, 0, 4, 0], None),
    ("cumprod", False, False, [1, _NAN, _NAN, 3, 12], None),
    ("cumprod", True, True, [_NAN, 2, 1, 4, 1], None),
    ("cummax", False, False, [1, _NAN, _NAN, 3, 4], [0, 1, 1, 3, 4]),
    ("cummax", True, False, [_NAN, _NAN, 2, 4, 4], [1, 1, 2, 4, 4]),
    ("cummax", False, True, [-np.inf, 1, _NAN, -np.inf, 3], [-1, 0, 1, -1, 3]),
    ("cummin", False, False, [1, _NAN, _NAN, 3, 3], [0, 1, 1, 3, 3]),
    ("cummin", True, True, [_NAN, 2, np.inf, 4, np.inf], [1, 2, -1, 4, -1]),
    ("nancumsum", False, False, [1, 1, 3, 3, 7], None),
    ("nancumsum", True, True, [2, 2, 0, 4, 0], None),
    ("nancumprod", False, False, [1, 1, 2, 3, 12], None),
    ("nancummax", True, False, [2, 2, 2, 4, 4], None),
    ("nancummin", False, True, [np.inf, 1, 1, np.inf, 3], None),
    ("logcumsumexp", False, False, [1, _NAN, _NAN, 3, np.logaddexp(3, 4)], None),
    ("logcumsumexp", True, False, [_NAN, _NAN, 2, np.logaddexp(3, 4), 4], None),
]


@pytest.mark.parametrize("op, decreasing, exclusive, want, want_idx", NAN_BY_HAND,
                         ids=[f"{op}-{'dec' if d else 'inc'}-{'exc' if e else 'inc'}"
                              for op, d, e, _, _ in NAN_BY_HAND])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_nan_stays_in_its_segment(op, decreasing, exclusive, want, want_idx, dtype):
    x = _XN.astype(dtype)
    kw = {"return_indices": True} if want_idx is not None else {}
    got = scan(op, x, None, decreasing, exclusive, reset=_RN, **kw)
    want = np.array(want, dtype=dtype)
    if want_idx is not None:
        want = (want, np.array(want_idx, dtype=np.intp))
    if op == "logcumsumexp":  # NaN where NaN is, the rest within rounding
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_allclose(got, want, rtol=1e-6, equal_nan=True)
        assert got.dtype == dtype
    else:
        assert_same_values(got, want, f"{op} {dtype}")


@pytest.mark.parametrize("op", SCAN_NAMES)
def test_nan_stays_in_its_segment_on_long_lines_and_outer_axes(op):
    """A NaN in one segment, and none in the next: on a 1-D line of several vectors and 2-D arrays along either
    axis (the rows and the outer-axis kernels), the next segment is finite and is its own scan."""
    rng = np.random.default_rng(seed_of("nan leak", op))
    for shape, axis in (((3000,), 0), ((40, 300), 1), ((300, 40), 0)):
        x = data(op, rng, shape, "float32")
        line = np.moveaxis(x, axis, -1)
        line[..., 17] = np.nan  # in the first segment of every line
        flags = np.zeros(shape, bool)
        np.moveaxis(flags, axis, -1)[..., [5, 100, 101, 150]] = True  # [0, 5), [5, 100), [100], [101, 150), ...
        for decreasing, exclusive in VARIANTS:
            got = scan(op, x, axis, decreasing, exclusive, reset=flags)
            where = f"{op} shape={shape} axis={axis} decreasing={decreasing} exclusive={exclusive}"
            # the NaN (at 17, in [5, 100)) reaches the rest of its segment in the walk, and nothing else
            nan_at = np.zeros(shape[axis], bool)
            if not op.startswith("nan"):
                if decreasing:
                    nan_at[5:18 - exclusive] = True
                else:
                    nan_at[17 + exclusive:100] = True
            np.testing.assert_array_equal(np.isnan(np.moveaxis(got, axis, -1)),
                                          np.broadcast_to(nan_at, np.moveaxis(got, axis, -1).shape), err_msg=where)
            check_segmented(got, op, x, flags, axis, decreasing, exclusive, where=where)


# --------------------------------------------------------------------------
# edge cases
# --------------------------------------------------------------------------
def test_int8_wraps_within_a_segment():
    x = np.array([100, 100, 100, 100, -100, -100], dtype=np.int8)
    r = [0, 0, 1, 0, 1, 0]
    assert_same_values(simdscan.cumsum(x, reset=r), np.array([100, -56, 100, -56, -100, 56], np.int8), "inc")
    assert_same_values(simdscan.cumsum(x, reset=r, direction="decreasing"),
                       np.array([-56, 100, -56, 100, 56, -100], np.int8), "dec")
    assert_same_values(simdscan.cumprod(np.array([16, 16, 3, 16, 16], np.int8), reset=[0, 0, 1, 0, 0]),
                       np.array([16, 0, 3, 48, 0], np.int8), "cumprod")


def test_complex_sums_and_products():
    x = np.array([1 + 2j, 3 - 1j, 2j, 1 + 1j, -1j], dtype=np.complex128)
    r = [0, 0, 1, 0, 0]
    assert_same_values(simdscan.cumsum(x, reset=r), np.array([1 + 2j, 4 + 1j, 2j, 1 + 3j, 1 + 2j]), "cumsum")
    assert_same_values(simdscan.cumsum(x.astype(np.complex64), reset=r, exclusive=True, direction="decreasing"),
                       np.array([3 - 1j, 0, 1, -1j, 0], np.complex64), "cumsum complex64")
    assert_same_values(simdscan.cumprod(x, reset=r), np.array([1 + 2j, 5 + 5j, 2j, -2 + 2j, 2 + 2j]), "cumprod")
    assert_same_values(simdscan.nancumsum(np.array([1, complex(np.nan, 1), 2, 3]), reset=[0, 0, 1, 0]),
                       np.array([1, 1, 2, 5], np.complex128), "nancumsum")


def test_float16():
    x = np.array([0.5, 1.5, 2.0, 1000.0, 0.5, 3.0], dtype=np.float16)
    r = np.array([0, 0, 1, 0, 0, 1], dtype=np.float16)
    assert_same_values(simdscan.cumsum(x, reset=r), np.array([0.5, 2, 2, 1002, 1002.5, 3], np.float16), "cumsum")
    assert_same_values(simdscan.cumprod(x, reset=r, exclusive=True), np.array([1, 0.5, 1, 2, 2000, 1], np.float16),
                       "cumprod")
    assert_same_values(simdscan.cummax(x, reset=r, direction="decreasing"),
                       np.array([1.5, 1.5, 1000, 1000, 0.5, 3], np.float16), "cummax")
    rng = np.random.default_rng(seed_of("float16"))
    for op in SCAN_NAMES:
        a = data(op, rng, (7, 150), "float16", nan=0.01)
        flags = resets(rng, a.shape, 0.05)
        for decreasing, exclusive in VARIANTS:
            got = scan(op, a, 1, decreasing, exclusive, reset=flags)
            check_segmented(got, op, a, flags, 1, decreasing, exclusive)


@pytest.mark.parametrize("op, flags", SCAN_FLAGS, ids=SCAN_FLAG_IDS)
def test_no_reset_anywhere_is_the_plain_scan(op, flags):
    rng = np.random.default_rng(seed_of("no reset", op, *flags))
    line = data(op, rng, (1000,), "float64", nan=0.002)
    exact = exact_values(op, rng, (6, 50))
    for decreasing, exclusive in VARIANTS:
        plain = scan(op, line, None, decreasing, exclusive, **flags)
        assert_same_values(scan(op, line, None, decreasing, exclusive, reset=None, **flags), plain, "reset=None")
        for name, no_reset in (("zeros", np.zeros(1000, bool)), ("0-d False", np.False_), ("False", False),
                               ("float zeros", np.zeros(1000)), ("int row", np.zeros((1, 1000), np.int8)[0])):
            got = scan(op, line, None, decreasing, exclusive, reset=no_reset, **flags)
            assert_same_values(got, plain, f"{op} reset={name} decreasing={decreasing} exclusive={exclusive}")
        for axis in (0, 1, None):  # exact values, so that any path gives the plain scan's bits
            got = scan(op, exact, axis, decreasing, exclusive, reset=np.zeros(exact.shape, bool), **flags)
            want = scan(op, exact, axis, decreasing, exclusive, **flags)
            if op == "logcumsumexp":  # never exact: the plain scan within rounding
                np.testing.assert_allclose(got, want, rtol=1e-13, strict=True)
            else:
                assert_same_values(got, want, f"{op} 2-D axis={axis}")


@pytest.mark.parametrize("op, flags", SCAN_FLAGS, ids=SCAN_FLAG_IDS)
def test_reset_at_index_zero_changes_nothing(op, flags):
    rng = np.random.default_rng(seed_of("index 0", op, *flags))
    for dtype in ("float32", "int16"):
        a = data(op, rng, (9, 70), dtype, nan=0.01)
        for axis in (0, 1, -1):
            base = resets(rng, a.shape, 0.1)
            first = base.copy()
            np.moveaxis(first, axis, -1)[..., 0] = True
            np.moveaxis(base, axis, -1)[..., 0] = False
            for decreasing, exclusive in VARIANTS:
                want = scan(op, a, axis, decreasing, exclusive, reset=base, **flags)
                assert_same_values(scan(op, a, axis, decreasing, exclusive, reset=first, **flags), want,
                                   f"{op} {dtype} axis={axis} decreasing={decreasing} exclusive={exclusive}")
                check_segmented(want, op, a, base, axis, decreasing, exclusive)


@pytest.mark.parametrize("op, flags", SCAN_FLAGS, ids=SCAN_FLAG_IDS)
def test_reset_on_every_element(op, flags):
    """Every element its own segment: inclusive, the input in the result dtype; exclusive, the identity; by an
    all-True array, a 0-d True, Python's True, or an array broadcast along the scan axis (stride 0)."""
    rng = np.random.default_rng(seed_of("every", op, *flags))
    indices = bool(flags.get("return_indices"))
    dtypes = ["float32", "int8", "uint16", "float16", "bool"] + (["complex64"] if BY_NAME[op].takes("c8") else [])
    for dtype in dtypes:
        a = data(op, rng, (5, 33), dtype)
        everywhere = [("array", np.ones(a.shape, bool)), ("0-d", np.True_), ("True", True), ("1.0", 1.0),
                      ("row", np.ones(33, np.float32)), ("column", np.ones((5, 1), np.uint8))]
        for axis in (0, 1, None):
            for decreasing, exclusive in VARIANTS:
                want = every_element_alone(op, a, axis, exclusive, indices)
                for name, r in everywhere:
                    got = scan(op, a, axis, decreasing, exclusive, reset=r, **flags)
                    assert_each_alone(op, got, want, f"{op} {dtype} reset={name} axis={axis} "
                                                     f"decreasing={decreasing} exclusive={exclusive}")
    stride0 = np.broadcast_to(np.ones((5, 1), bool), (5, 33))  # along the scan axis
    a = data(op, rng, (5, 33), "float64")
    assert_each_alone(op, scan(op, a, 1, False, False, reset=stride0, **flags),
                      every_element_alone(op, a, 1, False, indices), "stride 0")


@pytest.mark.parametrize("op, flags", SCAN_FLAGS, ids=SCAN_FLAG_IDS)
def test_reset_broadcast_along_the_scan_axis(op, flags):
    """reset of shape (rows, 1) for rows scanned along axis 1 (stride 0 along the scan): all True in some lines
    (each element its own segment), all False in the others (the plain scan)."""
    rng = np.random.default_rng(seed_of("along", op, *flags))
    indices = bool(flags.get("return_indices"))
    a = data(op, rng, (8, 200), "float32", nan=0.01)
    per_line = np.array([1, 0, 0, 1, 1, 0, 1, 0], bool)
    for decreasing, exclusive in VARIANTS:
        for reset in (per_line[:, None], np.broadcast_to(per_line[:, None], a.shape)):
            got = scan(op, a, 1, decreasing, exclusive, reset=reset, **flags)
            check_segmented(got, op, a, reset, 1, decreasing, exclusive)
            alone = every_element_alone(op, a[per_line], 1, exclusive, indices)
            if indices:
                assert_same_values((got[0][per_line], got[1][per_line]), alone, "lines reset everywhere")
            else:
                assert_each_alone(op, got[per_line], alone, "lines reset everywhere")
        # along axis 0 of the transpose: the same lines, strided
        got_t = scan(op, a.T, 0, decreasing, exclusive, reset=per_line[None, :], **flags)
        check_segmented(got_t, op, a.T, per_line[None, :], 0, decreasing, exclusive)


@pytest.mark.parametrize("op, flags", SCAN_FLAGS, ids=SCAN_FLAG_IDS)
def test_reset_broadcast_from_the_scan_axis(op, flags):
    """reset of shape (n,) for rows of n (and (n, 1) for columns of n): the same segments in every line, the same
    bits as the reset spelled out in full."""
    rng = np.random.default_rng(seed_of("from", op, *flags))
    a = data(op, rng, (6, 90), "float64", nan=0.01)
    r = resets(rng, 90, 0.1)
    for decreasing, exclusive in VARIANTS:
        for x, axis, small in ((a, 1, r), (a, -1, r.astype(np.float32)), (a.T, 0, r[:, None]),
                               (np.ascontiguousarray(a.T), 0, r[:, None].astype(np.int64))):
            got = scan(op, x, axis, decreasing, exclusive, reset=small, **flags)
            full = np.broadcast_to(small, x.shape).copy()
            assert_same_values(got, scan(op, x, axis, decreasing, exclusive, reset=full, **flags),
                               f"{op} axis={axis} reset shape {np.shape(small)}")
            check_segmented(got, op, x, small, axis, decreasing, exclusive)


def reset_spellings(flags):
    """``flags`` (bool, C order) in other dtypes, layouts and types: each must give the same result."""
    yield "fortran", np.asfortranarray(flags)
    yield "reversed int8", apply_layout(flags.astype(np.int8), "reversed")
    yield "stepped float32", apply_layout(flags.astype(np.float32), "stepped")
    yield "transposed uint16", apply_layout(flags.astype(np.uint16), "transposed")
    yield "byteswapped int32", apply_layout(flags.astype(np.int32), "byteswapped")
    yield "byteswapped float64", apply_layout(flags.astype(np.float64), "byteswapped")
    yield "readonly float16", apply_layout(flags.astype(np.float16), "readonly")
    yield "uint64", flags.astype(np.uint64)
    yield "negative zeros", np.where(flags, 1.0, -0.0)
    yield "list", flags.tolist()


@pytest.mark.parametrize("op, flags", SCAN_FLAGS, ids=SCAN_FLAG_IDS)
def test_reset_layouts_and_dtypes_give_the_same_bits(op, flags):
    rng = np.random.default_rng(seed_of("reset layouts", op, *flags))
    a = data(op, rng, (12, 45), "float32", nan=0.01)
    r = resets(rng, a.shape, 0.15)
    for axis in (0, 1, None):
        for decreasing, exclusive in VARIANTS:
            want = scan(op, a, axis, decreasing, exclusive, reset=r, **flags)
            check_segmented(want, op, a, r, axis, decreasing, exclusive)
            for name, spelled in reset_spellings(r):
                snap = snapshot(spelled)
                got = scan(op, a, axis, decreasing, exclusive, reset=spelled, **flags)
                assert_same_values(got, want, f"{op} reset {name} axis={axis} decreasing={decreasing} "
                                              f"exclusive={exclusive}")
                assert_unchanged(spelled, snap, "reset")


@pytest.mark.parametrize("op", SCAN_NAMES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_input_layouts(op, layout):
    """The input in any layout (strided, transposed, reversed views, broadcast, byte-swapped, read-only), along
    every axis and flattened: each segment its own scan, and the input untouched."""
    rng = np.random.default_rng(seed_of("layouts", op, layout))
    dtype = "int16" if BY_NAME[op].ordered and op != "logcumsumexp" else "float32"
    a = apply_layout(data(op, rng, (9, 41), dtype, nan=0.02), layout)
    r = resets(rng, a.shape, 0.12)
    snap = snapshot(a)
    flag_sets = BY_NAME[op].variants()
    for k, axis in enumerate((0, 1, -2, None)):
        for v, (decreasing, exclusive) in enumerate(VARIANTS):
            kw = flag_sets[(k + v) % len(flag_sets)]
            got = scan(op, a, axis, decreasing, exclusive, reset=r, **kw)
            check_segmented(got, op, a, r, axis, decreasing, exclusive,
                            where=f"{op} {layout} axis={axis} decreasing={decreasing} exclusive={exclusive} {kw}")
    assert_unchanged(a, snap)


def test_reversed_views():
    """x[::-1] as the input and as the reset: the reversed input's segments, in its own index order."""
    x = np.array([1, 2, 3, 4, 5, 6, 7], dtype=np.int64)
    r = np.array([0, 1, 0, 0, 1, 0, 0], dtype=bool)
    # x[::-1] = [7, 6, 5, 4, 3, 2, 1], r[::-1] = [0, 0, 1, 0, 0, 1, 0]: segments [7, 6], [5, 4, 3], [2, 1]
    assert_same_values(simdscan.cumsum(x[::-1], reset=r[::-1]), np.array([7, 13, 5, 9, 12, 2, 3]), "both reversed")
    assert_same_values(simdscan.cumsum(x[::-1], reset=r[::-1], direction="decreasing"),
                       np.array([13, 6, 12, 7, 3, 3, 1]), "both reversed, decreasing")
    # x[::-1] with r as it is: segments [7], [6, 5, 4], [3, 2, 1]
    assert_same_values(simdscan.cumsum(x[::-1], reset=r), np.array([7, 6, 11, 15, 3, 5, 6]), "input reversed")
    v, i = simdscan.cummax(x[::-1], reset=r, return_indices=True)
    assert_same_values((v, i), (np.array([7, 6, 6, 6, 3, 3, 3]), np.array([0, 1, 1, 1, 4, 4, 4], np.intp)), "cummax")


def test_axis_none_flattens_the_reset_in_c_order():
    """axis=None: the reset broadcast to the input's shape, then flattened in C order as the input is, whatever
    either's layout: the scan of the flattened input with the flattened reset (exact values for sums and products,
    so that any path gives the same bits)."""
    rng = np.random.default_rng(seed_of("axis None"))
    r2 = resets(rng, (7, 30), 0.1)
    r1 = resets(rng, 30, 0.1)
    for op, flags in SCAN_FLAGS:
        base = exact_values(op, rng, (7, 30))
        for layout in ("C", "fortran", "transposed", "reversed"):
            x = apply_layout(base, layout)
            for reset, flat in ((r2, r2.ravel()), (np.asfortranarray(r2), r2.ravel()), (r1, np.tile(r1, 7))):
                for decreasing, exclusive in VARIANTS:
                    got = scan(op, x, None, decreasing, exclusive, reset=reset, **flags)
                    want = scan(op, base.ravel(), None, decreasing, exclusive, reset=flat, **flags)
                    where = (f"{op} {flags} {layout} reset {np.shape(reset)} decreasing={decreasing} "
                             f"exclusive={exclusive}")
                    if op == "logcumsumexp" and layout != "C":
                        np.testing.assert_allclose(got, want, rtol=1e-13, err_msg=where)
                        assert got.shape == want.shape and got.dtype == want.dtype
                    else:
                        assert_same_values(got, want, where)
                    if (decreasing, exclusive) == VARIANTS[1]:
                        check_segmented(got, op, x, reset, None, decreasing, exclusive, where=where)
    # by hand: [[1, 2, 3], [4, 5, 6]] with resets at (0, 2) and (1, 1): segments [1, 2], [3, 4], [5, 6]
    x = np.arange(1, 7, dtype=np.int32).reshape(2, 3)
    assert_same_values(simdscan.cumsum(x, reset=[[0, 0, 1], [0, 1, 0]]), np.array([1, 3, 3, 7, 5, 11], np.int32),
                       "by hand")
    assert_same_values(simdscan.cumsum(np.asfortranarray(x), reset=[[0, 0, 1], [0, 1, 0]]),
                       np.array([1, 3, 3, 7, 5, 11], np.int32), "by hand, Fortran input")


@pytest.mark.parametrize("op, flags", SCAN_FLAGS, ids=SCAN_FLAG_IDS)
def test_empty_and_0d(op, flags):
    indices = bool(flags.get("return_indices"))
    for dtype in ("float64", "int32", "bool"):
        rdt = result_dtype(op, dtype)
        for shape in ((0,), (0, 3), (3, 0)):
            e = np.zeros(shape, dtype)
            for axis in (None, 0, 1, -1)[: e.ndim + 1]:
                for reset in (np.zeros(shape, bool), np.True_, np.ones(shape[-1:], np.float32)):
                    got = getattr(simdscan, op)(e, axis, reset=reset, **flags)
                    want = np.zeros((0,) if axis is None else shape, rdt)
                    assert_same_values(got, (want, want.astype(np.intp)) if indices else want,
                                       f"{op} {dtype} shape={shape} axis={axis}")
        x = np.array(2, dtype=dtype)
        for reset in (True, False, np.array(1.0), np.int8(0)):
            for exclusive in (False, True):
                got = getattr(simdscan, op)(x, reset=reset, exclusive=exclusive, **flags)
                assert_each_alone(op, got, every_element_alone(op, x, None, exclusive, indices), f"{op} {dtype} 0-d")


#: every form reset= takes for a 0-d input: bool, 0/1 integers and floats, NumPy scalars and 0-d arrays
ZERO_D_RESETS = [True, False, 1, 0, 1.0, np.int8(1), np.uint8(0), np.uint64(1), np.float16(1), np.float32(0),
                 np.array(1), np.array(0.0), np.array(True)]


@pytest.mark.parametrize("op, flags", SCAN_FLAGS, ids=SCAN_FLAG_IDS)
def test_0d_input_takes_every_form_of_reset_along_any_axis(op, flags):
    """A 0-d input is scanned as shape (1,) along axis 0, -1 or None, its reset of any accepted form: the one
    element alone (0/1 integers and floats once came back as a NumPy scalar, which the core refused with "reset must
    be a bool array of the input's shape" unless axis=None); a value other than 0 and 1 is still a ValueError."""
    indices = bool(flags.get("return_indices"))
    for dtype in ("float64", "int32", "bool"):
        x = np.array(2, dtype=dtype)
        for axis in (0, -1, None):
            for reset in ZERO_D_RESETS:
                for exclusive in (False, True):
                    got = getattr(simdscan, op)(x, axis, reset=reset, exclusive=exclusive, **flags)
                    assert_each_alone(op, got, every_element_alone(op, x, 0, exclusive, indices),
                                      f"{op} {dtype} 0-d axis={axis} reset={reset!r} exclusive={exclusive}")
            for bad in (2, -1, 0.5, np.int8(2), np.array(2.0)):
                with pytest.raises(ValueError, match="other than 0 and 1"):
                    getattr(simdscan, op)(x, axis, reset=bad, **flags)


def test_0d_input_takes_every_form_of_reset_in_the_other_functions():
    """cumulative_sum / cumulative_prod, ffill, linear_recurrence and discounted_cumsum on a 0-d input, by NumPy's
    values for one element: the element (cumulative: after the identity), ``a * initial + b`` for a recurrence (a
    segment starts from ``initial`` too)."""
    x = np.array(2.5)
    for axis in (0, -1):
        for reset in ZERO_D_RESETS:
            where = f"axis={axis} reset={reset!r}"
            assert_same_values(simdscan.cumulative_sum(x, axis=axis, reset=reset, include_initial=True),
                               np.array([0.0, 2.5]), f"cumulative_sum {where}")
            assert_same_values(simdscan.cumulative_prod(x, axis=axis, reset=reset), np.array([2.5]),
                               f"cumulative_prod {where}")
            assert_same_values(simdscan.ffill(np.array(np.nan), axis, reset=reset), np.array([np.nan]),
                               f"ffill NaN {where}")
            assert_same_values(simdscan.ffill(x, axis, reset=reset), np.array([2.5]), f"ffill {where}")
            assert_same_values(simdscan.linear_recurrence(0.5, x, axis, reset=reset, initial=4.0),
                               np.array([4.5]), f"linear_recurrence {where}")
            assert_same_values(simdscan.discounted_cumsum(x, 0.5, axis, reset=reset), np.array([2.5]),
                               f"discounted_cumsum {where}")
        for bad in (2, -1, 0.5):
            for call in (lambda r: simdscan.cumulative_sum(x, axis=axis, reset=r),
                         lambda r: simdscan.ffill(x, axis, reset=r),
                         lambda r: simdscan.linear_recurrence(0.5, x, axis, reset=r),
                         lambda r: simdscan.discounted_cumsum(x, 0.5, axis, reset=r)):
                with pytest.raises(ValueError, match="other than 0 and 1"):
                    call(bad)


# --------------------------------------------------------------------------
# properties
# --------------------------------------------------------------------------
RESET_DTYPES = ["bool", "int8", "uint8", "int64", "uint32", "float16", "float32", "float64"]


@st.composite
def flag_arrays(draw, shape):
    """Bool resets of ``shape``, sparse to dense (none, about one in ten, half, about nine in ten)."""
    cut = draw(st.sampled_from([0, 1, 5, 9]))
    return draw(hnp.arrays(np.int8, shape, elements=st.integers(0, 9))) < cut


@given(data_=st.data())
def test_each_segment_is_its_own_scan_bit_for_bit(data_):
    """On a 1-D line: the concatenation of simdscan's scans of each segment as an array of its own, any values
    (NaN, infinities, overflow), every dtype, flags and reset dtype."""
    draw = data_.draw
    op, flags = draw(st.sampled_from(SCAN_FLAGS), label="scan, flags")
    dtype = draw(st.sampled_from([d for d in SUPPORTED_DTYPES if BY_NAME[op].takes(d)]), label="dtype")
    n = draw(st.integers(0, 80), label="n")
    # (Values whose sums are exact in any grouping where short segments round in vectors: promises_bits.)
    elements = hnp.from_dtype(dtype) if promises_bits(op, flags, dtype) else _pool(op, dtype)
    a = draw(hnp.arrays(dtype, n, elements=elements), label="a")
    r = draw(flag_arrays(n), label="reset")
    reset_dtype = draw(st.sampled_from(RESET_DTYPES), label="reset dtype")
    decreasing, exclusive = draw(st.booleans(), label="decreasing"), draw(st.booleans(), label="exclusive")
    got = scan(op, a, None, decreasing, exclusive, reset=r.astype(reset_dtype), **flags)
    kw = dict(direction="decreasing" if decreasing else "increasing", exclusive=exclusive, **flags)
    want = each_segment_scanned_alone(op, a, r, **kw)
    note(f"segments {segment_bounds(r)}")
    assert_same_values(got, want, f"{op} {flags} {dtype} decreasing={decreasing} exclusive={exclusive}")


@given(data_=st.data())
def test_cumulative_each_segment_is_its_own_scan(data_):
    draw = data_.draw
    fn = draw(st.sampled_from(CUMULATIVE), label="function")
    dtype = draw(st.sampled_from(SUPPORTED_DTYPES), label="dtype")
    n = draw(st.integers(0, 60), label="n")
    elements = hnp.from_dtype(dtype) if promises_bits(fn, {}, dtype) else _pool(fn, dtype)
    x = draw(hnp.arrays(dtype, n, elements=elements), label="x")
    r = draw(flag_arrays(n), label="reset")
    direction = draw(st.sampled_from(["increasing", "decreasing"]), label="direction")
    include_initial = draw(st.booleans(), label="include_initial")
    f = getattr(simdscan, fn)
    got = f(x, reset=r, direction=direction, include_initial=include_initial)
    parts = [f(np.array(x[s:e]), direction=direction) for s, e in segment_bounds(r)] or [f(x, direction=direction)]
    want = np.concatenate(parts)
    if include_initial:
        first = f(x[:0], include_initial=True)  # the identity, in the result dtype
        want = np.concatenate([first, want] if direction == "increasing" else [want, first])
    assert_same_values(got, want, f"{fn} {dtype} {direction} include_initial={include_initial}")


def _pool(op, dtype):
    """Elements for the oracle's property test: the dtype's own for integers, else a few values (with NaN and
    infinities, but none for complex products, which the oracle does not take, and magnitude 1 for products so
    that no line overflows or underflows) whose scans the oracle bounds."""
    dt = np.dtype(dtype)
    if dt.kind in "biu":
        return hnp.from_dtype(dt)
    product = op.endswith("prod")
    finite = [-1.0, 1.0, -0.0, 0.0] if product else [-3.0, -1.5, -0.0, 0.0, 0.5, 1.0, 1.25, 2.0]
    special = [np.nan, np.inf, -np.inf]
    if dt.kind == "c":
        return st.builds(complex, st.sampled_from(finite), st.sampled_from(finite + ([] if product else special)))
    return st.sampled_from(finite + special)


@given(data_=st.data())
def test_any_shape_and_axis_matches_numpy_per_segment(data_):
    draw = data_.draw
    op, flags = draw(st.sampled_from(SCAN_FLAGS), label="scan, flags")
    dtype = draw(st.sampled_from([d for d in SUPPORTED_DTYPES if BY_NAME[op].takes(d)]), label="dtype")
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=8), label="shape")
    a = draw(hnp.arrays(dtype, shape, elements=_pool(op, dtype)), label="a")
    axis = draw(st.sampled_from([None, *range(a.ndim), -1]), label="axis")
    r = draw(flag_arrays(shape), label="reset")
    # the reset broadcast from a smaller shape now and then
    if draw(st.booleans(), label="broadcast reset") and a.ndim > 1 and a.size:
        r = r[(0,) * (a.ndim - 1)] if axis in (a.ndim - 1, -1) else r[..., :1]
    decreasing, exclusive = draw(st.booleans(), label="decreasing"), draw(st.booleans(), label="exclusive")
    got = scan(op, a, axis, decreasing, exclusive, reset=r, **flags)
    check_segmented(got, op, a, r, axis, decreasing, exclusive)


DTYPE_CASES = ["float64", "float32", "float16", "complex64", "int8", "uint16", "int64", "bool"]
SHAPE_CASES = [((5000,), 0, 0.01), ((5000,), 0, 0.7), ((6, 300), 1, 0.05), ((300, 6), 0, 0.05),
               ((4, 50, 5), 1, 0.1), ((40, 8), 1, 0.3)]


OP_DTYPES = [(op, dtype) for op in SCAN_NAMES for dtype in DTYPE_CASES if BY_NAME[op].takes(dtype)]


@pytest.mark.parametrize("shape, axis, density", SHAPE_CASES, ids=[f"{s}-axis{a}-{d}" for s, a, d in SHAPE_CASES])
@pytest.mark.parametrize("op, dtype", OP_DTYPES, ids=[f"{op}-{dtype}" for op, dtype in OP_DTYPES])
def test_matches_numpy_per_segment(op, dtype, shape, axis, density):
    """Seeded data of each dtype on lines of several vectors, short rows, outer axes and a middle axis, resets from
    rare to dense; every variant and kernel flag: NumPy's scan of each segment (exact for integers and extrema,
    within the rounding-error bound for floating sums and products)."""
    rng = np.random.default_rng(seed_of("numpy", op, dtype, shape, axis, density))
    a = data(op, rng, shape, dtype, nan=0.003)
    r = resets(rng, shape, density)
    flag_sets = BY_NAME[op].variants()
    for v, (decreasing, exclusive) in enumerate(VARIANTS):
        for kw in flag_sets if v % 2 == 0 else flag_sets[:1]:
            got = scan(op, a, axis, decreasing, exclusive, reset=r, **kw)
            where = f"{op} {dtype} {shape} axis={axis} decreasing={decreasing} exclusive={exclusive} {kw}"
            check_segmented(got, op, a, r, axis, decreasing, exclusive, where=where)


@pytest.mark.parametrize("op, flags", SCAN_FLAGS, ids=SCAN_FLAG_IDS)
def test_long_segments_are_their_own_scans_bit_for_bit(op, flags):
    """A line of 150 000 float32 (not threaded) with segments longer than a 256 KiB chunk (65 536 float32), between
    and around short ones: each segment's scan of its own, bit for bit (float sums and products: the segments of
    4 KiB and more), and NumPy's within bounds."""
    rng = np.random.default_rng(seed_of("long segments", op, *flags))
    n = 150_000
    a = data(op, rng, (n,), "float32", nan=1e-5)
    if op.endswith("prod"):
        a = (1 + 1e-3 * rng.uniform(-1, 1, n)).astype(np.float32)
    r = resets(rng, n, 0.01)
    r[3_001:73_001] = False  # 70 000 elements from 3 001
    r[73_500:146_000] = False  # 72 500 elements from 73 500
    r[[3_001, 73_500, 146_000, 146_001, 146_002]] = True
    for decreasing, exclusive in VARIANTS:
        kw = dict(direction="decreasing" if decreasing else "increasing", exclusive=exclusive, **flags)
        got = getattr(simdscan, op)(a, reset=r, **kw)
        want = each_segment_scanned_alone(op, a, r, **kw)
        if not promises_bits(op, flags, a.dtype):
            long = np.zeros(n, bool)
            for start, stop in segment_bounds(r):
                long[start:stop] = (stop - start) * a.itemsize >= SHORT_SEGMENT_BYTES
            assert long.sum() > 140_000
            got, want = got[long], want[long]
        assert_same_values(got, want, f"{op} {flags} {kw}")
        check_segmented(getattr(simdscan, op)(a, reset=r, **kw), op, a, r, None, decreasing, exclusive)


@pytest.mark.parametrize("op", ["cumsum", "nancumsum"])
def test_compensated_combines_with_reset(op):
    rng = np.random.default_rng(seed_of("compensated", op))
    a = spread_values(rng, (4, 20_000), "float32")
    a[1, 7] = np.nan
    r = resets(rng, a.shape, 0.0005)
    for axis in (1, 0):
        for decreasing, exclusive in VARIANTS:
            got = scan(op, a, axis, decreasing, exclusive, reset=r, compensated=True)
            check_segmented(got, op, a, r, axis, decreasing, exclusive)
            if axis == 1:  # each row's segments: the compensated scan of each, bit for bit
                kw = dict(direction="decreasing" if decreasing else "increasing", exclusive=exclusive)
                for row in range(4):
                    want = each_segment_scanned_alone(op, a[row], r[row], compensated=True, **kw)
                    assert_same_values(got[row], want, f"{op} compensated row {row} {kw}")
    # a sum that the plain float32 scan loses and the compensated one keeps, in the second segment
    # (a plain float32 sum ends at 0; had the 5 of the first segment leaked, the end would be 9)
    x = np.array([5.0, 1e8, 1.0, 1.0, 1.0, 1.0, -1e8], dtype=np.float32)
    for name in ("cumsum", "nancumsum"):
        got = getattr(simdscan, name)(x, reset=[0, 1, 0, 0, 0, 0, 0], compensated=True)
        assert got[0] == 5 and got[-1] == 4, got
        got = getattr(simdscan, name)(x, reset=[0, 1, 0, 0, 0, 0, 0], compensated=True, direction="decreasing")
        assert got[0] == 5 and got[1] == 4, got


def test_dtype_argument():
    rng = np.random.default_rng(seed_of("dtype="))
    a = rng.integers(-100, 100, (5, 200)).astype(np.int8)
    r = resets(rng, a.shape, 0.05)
    for op in ("cumsum", "cumprod", "nancumsum"):
        for decreasing, exclusive in VARIANTS:
            got = scan(op, a, 1, decreasing, exclusive, reset=r, dtype=np.int32)
            check_segmented(got, op, a, r, 1, decreasing, exclusive, dtype=np.int32)
    got = simdscan.logcumsumexp(a, 1, reset=r, dtype=np.float32)
    check_segmented(got, "logcumsumexp", a, r, 1, dtype=np.float32)
    np.testing.assert_allclose(got, simdscan.logcumsumexp(a.astype(np.float64), 1, reset=r), rtol=1e-5)
    assert got.dtype == np.float32


# --------------------------------------------------------------------------
# cumulative_sum / cumulative_prod
# --------------------------------------------------------------------------
@pytest.mark.parametrize("include_initial", [False, True])
@pytest.mark.parametrize("dtype", ["int32", "bool", "uint8", "float32", "float64", "complex64", "float16"])
@pytest.mark.parametrize("fn", CUMULATIVE)
def test_cumulative_matches_numpy_per_segment(fn, dtype, include_initial):
    """NumPy's result dtype (int32 and bool widened), and one identity per line whatever the resets: the rest of
    the line is the segmented scan of the input, whose shape the reset has."""
    op = "cumsum" if fn == "cumulative_sum" else "cumprod"
    rng = np.random.default_rng(seed_of("cumulative", fn, dtype, include_initial))
    x = data(op, rng, (5, 120), dtype, nan=0.005)
    r = resets(rng, x.shape, 0.05)
    rdt = np.cumsum(np.zeros(1, dtype)).dtype  # NumPy's accumulation dtype
    f = getattr(simdscan, fn)
    for axis in (1, 0, -1):
        for direction in ("increasing", "decreasing"):
            got = f(x, axis=axis, reset=r, include_initial=include_initial, direction=direction)
            assert got.dtype == rdt, f"{fn} {dtype}: {got.dtype}, expected {rdt}"
            body = got
            if include_initial:
                line = np.moveaxis(got, axis, -1)
                assert line.shape[-1] == x.shape[axis] + 1
                first = line[..., 0] if direction == "increasing" else line[..., -1]
                np.testing.assert_array_equal(first, np.ones_like(first) if op == "cumprod" else np.zeros_like(first))
                body = np.moveaxis(line[..., 1:] if direction == "increasing" else line[..., :-1], -1, axis)
            check_segmented(np.ascontiguousarray(body), op, x, r, axis, direction == "decreasing", False, dtype=rdt,
                            where=f"{fn} {dtype} axis={axis} {direction} include_initial={include_initial}")
    one_d = x[2]
    check_segmented(f(one_d, reset=r[2]), op, one_d, r[2], dtype=rdt)


# --------------------------------------------------------------------------
# out= and in place
# --------------------------------------------------------------------------
@pytest.mark.parametrize("op, flags", SCAN_FLAGS, ids=SCAN_FLAG_IDS)
def test_out_of_any_layout(op, flags):
    """out at every offset within a cache line, stepped by 2 or 3, reversed, and stepped and reversed inside a
    buffer whose other elements stay as they were: returned, and holding the segmented scan."""
    rng = np.random.default_rng(seed_of("out", op, *flags))
    indices = bool(flags.get("return_indices"))
    a = data(op, rng, (7, 37), "float32", nan=0.01)
    r = resets(rng, a.shape, 0.1)
    rdt = result_dtype(op, a.dtype)
    outs = list(scattered_outs(a.shape, rdt).items())
    for k, (name, out) in enumerate(outs):
        axis = k % 2
        decreasing, exclusive = VARIANTS[k % len(VARIANTS)]
        target = (out, np.empty(a.shape, np.intp)[::-1]) if indices else out
        got = scan(op, a, axis, decreasing, exclusive, reset=r, out=target, **flags)
        if indices:
            assert got[0] is target[0] and got[1] is target[1], f"{op} {name}: not the given out"
        else:
            assert got is out, f"{op} {name}: not the given out"
        check_segmented(got, op, a, r, axis, decreasing, exclusive, where=f"{op} out {name} axis={axis}")
    view, buf, outside = stepped_reversed_out(a.shape, rdt, 57)
    idx_view, idx_buf, _ = stepped_reversed_out(a.shape, np.intp, 57)
    got = scan(op, a, 0, True, True, reset=r, out=(view, idx_view) if indices else view, **flags)
    check_segmented(got, op, a, r, 0, True, True, where=f"{op} stepped reversed out")
    assert (buf[outside] == 57).all(), "elements of out's buffer outside out were written"
    assert (idx_buf[outside] == 57).all(), "elements of the indices' buffer outside them were written"


@pytest.mark.parametrize("op, flags", SCAN_FLAGS, ids=SCAN_FLAG_IDS)
def test_in_place(op, flags):
    rng = np.random.default_rng(seed_of("in place", op, *flags))
    indices = bool(flags.get("return_indices"))
    dtype = "int32" if BY_NAME[op].ordered and op != "logcumsumexp" else "float64"
    base = data(op, rng, (6, 50), dtype, nan=0.01)
    r = resets(rng, base.shape, 0.1)
    for layout in ("C", "fortran", "reversed", "stepped"):
        for axis in (0, 1, None):
            if axis is None and layout != "C":
                continue  # out= must have the result's shape: 1-D
            for decreasing, exclusive in VARIANTS:
                a = apply_layout(base, layout) if axis is not None else base.copy().reshape(-1)
                flat_r = r if axis is not None else r.reshape(-1)
                before = a.copy()
                target = (a, np.empty(a.shape, np.intp)) if indices else a
                got = scan(op, a, axis, decreasing, exclusive, reset=flat_r, out=target, **flags)
                assert values_of(got) is a
                where = f"{op} in place {layout} axis={axis} decreasing={decreasing} exclusive={exclusive}"
                check_segmented(got, op, before, flat_r, axis, decreasing, exclusive, where=where)
    x = np.arange(1, 9, dtype=np.int64 if not op == "logcumsumexp" else np.float64)
    view = x[::-1]  # in place on a reversed view: [8, 7, ..., 1], segments [8, 7, 6], [5, 4, 3, 2, 1]
    want = scan(op, view.copy(), None, False, False, reset=[0, 0, 0, 1, 0, 0, 0, 0], **flags)
    got = scan(op, view, None, False, False, reset=[0, 0, 0, 1, 0, 0, 0, 0], out=(view, np.empty(8, np.intp))
               if indices else view, **flags)
    assert values_of(got) is view
    if op == "logcumsumexp":  # another path than the copy's, maybe: the same values within rounding
        np.testing.assert_allclose(view, want, rtol=1e-13)
    else:
        assert_same_values(got, want, f"{op} in place on x[::-1]")


# --------------------------------------------------------------------------
# errors: the input, reset and out untouched
# --------------------------------------------------------------------------
def _raises_leaving_alone(exc_type, fn, a, reset, match=None, **kw):
    snaps = [(x, snapshot(x), what) for x, what in ((a, "input"), (reset, "reset")) if isinstance(x, np.ndarray)]
    out = kw.get("out")
    for x in out if isinstance(out, tuple) else (out,):
        if isinstance(x, np.ndarray):
            snaps.append((x, snapshot(x), "out"))
    with pytest.raises(exc_type, match=match):
        getattr(simdscan, fn)(a, reset=reset, **kw)
    for x, snap, what in snaps:
        assert_unchanged(x, snap, what)


ALL_FUNCTIONS = SCAN_NAMES + CUMULATIVE
BAD_VALUES = [
    ("2", np.array([0, 2, 0, 1])),
    ("-1 int8", np.array([0, -1, 0, 1], np.int8)),
    ("255 uint8", np.array([1, 255, 0, 0], np.uint8)),
    ("0.5", np.array([0.0, 0.5, 0.0, 1.0])),
    ("1.0000001 float32", np.array([0, 1, np.nextafter(np.float32(1), np.float32(2)), 0], np.float32)),
    ("NaN", np.array([0.0, np.nan, 0.0, 1.0])),
    ("inf float16", np.array([0, 0, np.inf, 1], np.float16)),
    ("-1.0 broadcast", np.float64(-1.0)),
    ("2 in a list", [0, 0, 2, 0]),
    ("0.5 scalar", 0.5),
]
BAD_DTYPES = [
    ("complex", np.array([0, 1, 0, 0], np.complex128)),
    ("complex 0-d", np.complex64(1)),
    ("str", np.array(["0", "1", "0", "0"])),
    ("bytes", np.array([b"0", b"1", b"0", b"0"])),
    ("object", np.array([False, True, False, False], dtype=object)),
]
BAD_SHAPES = [("(3,)", np.zeros(3, bool)), ("(5,)", np.zeros(5, bool)), ("(2, 4)", np.zeros((2, 4), bool)),
              ("(4, 1)", np.zeros((4, 1), bool)), ("empty", np.zeros(0, bool))]


def _inputs():
    """An input of shape (4,) and an out for it."""
    return np.array([1.0, 2.0, 3.0, 4.0]), np.full(4, 7.0)


@pytest.mark.parametrize("name, reset", BAD_VALUES, ids=[n for n, _ in BAD_VALUES])
@pytest.mark.parametrize("fn", ALL_FUNCTIONS)
def test_reset_values_other_than_0_and_1_are_value_errors(fn, name, reset):
    a, out = _inputs()
    _raises_leaving_alone(ValueError, fn, a, reset)
    _raises_leaving_alone(ValueError, fn, a, reset, out=out)
    _raises_leaving_alone(ValueError, fn, a, reset, out=a)  # in place: a stays as it was
    if fn in ("cummax", "cummin"):
        _raises_leaving_alone(ValueError, fn, a, reset, return_indices=True, out=(out, np.full(4, 9, np.intp)))


# Dtypes other than bool, integer and floating: TypeError; shapes that do not broadcast to a's: ValueError.
BAD_KINDS = [(TypeError, name, reset) for name, reset in BAD_DTYPES] + [(ValueError, name, reset)
                                                                      for name, reset in BAD_SHAPES]


@pytest.mark.parametrize("error, name, reset", BAD_KINDS, ids=[n for _, n, _ in BAD_KINDS])
@pytest.mark.parametrize("fn", ALL_FUNCTIONS)
def test_reset_of_another_dtype_or_shape(fn, error, name, reset):
    a, out = _inputs()
    _raises_leaving_alone(error, fn, a, reset)
    _raises_leaving_alone(error, fn, a, reset, out=out)
    _raises_leaving_alone(error, fn, a, reset, out=a)


@pytest.mark.parametrize("fn", ALL_FUNCTIONS)
def test_reset_must_broadcast_to_the_input_not_to_the_result(fn):
    a = np.arange(1.0, 7.0).reshape(2, 3)
    kw = {"axis": 1} if fn in CUMULATIVE else {}
    # axis=None: the result is 1-D of 6 elements, the reset still has a's shape
    _raises_leaving_alone(ValueError, fn, a, np.zeros(6, bool), **kw)
    _raises_leaving_alone(ValueError, fn, a, np.zeros((3, 2), bool), **kw)
    if fn in CUMULATIVE:  # include_initial: the result is one longer, the reset is not
        _raises_leaving_alone(ValueError, fn, a, np.zeros((2, 4), bool), axis=1, include_initial=True,
                              out=np.full((2, 4), 7.0))
        got = getattr(simdscan, fn)(a, axis=1, include_initial=True, reset=np.array([[0, 1, 0], [0, 0, 1]]))
        want = [[0, 1, 2, 5], [0, 4, 9, 6]] if fn == "cumulative_sum" else [[1, 1, 2, 6], [1, 4, 20, 6]]
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("axis", [(0, 1), (1, 0)])
@pytest.mark.parametrize("op", SCAN_NAMES)
def test_tuple_axis_with_reset_is_value_error(op, axis):
    a = np.arange(1.0, 13.0).reshape(3, 4)
    r = np.zeros((3, 4), bool)
    r[1, 2] = True
    _raises_leaving_alone(ValueError, op, a, r, axis=axis)
    _raises_leaving_alone(ValueError, op, a, r, axis=axis, out=np.full((3, 4), 7.0))
    _raises_leaving_alone(ValueError, op, a, True, axis=axis)
    if BY_NAME[op].compensated:
        _raises_leaving_alone(ValueError, op, a, r, axis=axis, compensated=True)
    # without reset the tuple axis still works
    assert getattr(simdscan, op)(a, axis=axis).shape == (3, 4)


@pytest.mark.parametrize("op, flags", SCAN_FLAGS, ids=SCAN_FLAG_IDS)
def test_errors_leave_2d_inputs_alone(op, flags):
    """The reset is checked before anything is written, whatever the layout of the input and of out."""
    rng = np.random.default_rng(seed_of("errors 2-D", op, *flags))
    a = np.asfortranarray(data(op, rng, (5, 60), "float32"))
    bad = resets(rng, a.shape, 0.3).astype(np.float32)
    bad[4, 59] = 2.0  # the very last element, in either order
    rdt = result_dtype(op, a.dtype)
    for axis in (0, 1, None):
        shape = a.shape if axis is not None else (a.size,)
        out = np.full(shape, 7, rdt)[::-1]
        target = (out, np.full(shape, 9, np.intp)) if flags.get("return_indices") else out
        for decreasing in (False, True):
            direction = "decreasing" if decreasing else "increasing"
            _raises_leaving_alone(ValueError, op, a, bad, axis=axis, direction=direction, out=target, **flags)
            reversed_bad = np.ascontiguousarray(bad[::-1, ::-1])[::-1, ::-1]  # the same values, negative strides
            _raises_leaving_alone(ValueError, op, a, reversed_bad, axis=axis, direction=direction, **flags)
        if axis is not None:
            _raises_leaving_alone(ValueError, op, a, bad, axis=axis, out=a if rdt == a.dtype and not flags else None,
                                  **flags)


# --------------------------------------------------------------------------
# threads: every thread count gives the same bits
# --------------------------------------------------------------------------
THREAD_COUNTS = (1, 2, 4)
THREAD_OPS = [("cumsum", {}), ("cumsum", {"compensated": True}), ("cumprod", {}), ("cummax", {"return_indices": True}),
              ("nancumsum", {}), ("logcumsumexp", {})]
THREAD_OP_IDS = [op + "".join(f"-{k}" for k in flags) for op, flags in THREAD_OPS]
THREAD_CASES = ["long_line", "few_long_lines", "many_lines", "outer"]


def _long_line_resets(rng, n, lo, hi, density):
    """Resets with probability ``density``, none within [lo, hi) but one at lo (a segment of hi - lo elements, over
    4 chunks of 32 768 float64), and a run of segments of one element."""
    r = resets(rng, n, density)
    r[lo:hi] = False
    r[lo] = True
    if hi < n:
        r[hi] = True
    r[lo - 20:lo - 10] = True
    return r


def _threaded_case(name, rng):
    """(shape, axis, reset, lines whose segments the oracle checks as (index, axis of the lines))."""
    if name == "long_line":
        r = _long_line_resets(rng, 300_000, 12_000, 152_000, 0.02)
        r[160_000:297_000] = False
        r[[160_000, 297_000]] = True  # a second long segment, 137 000
        return (300_000,), 0, r, slice(None)
    if name == "few_long_lines":
        r = np.stack([_long_line_resets(rng, 150_000, 5_003, 145_003, 0.01),  # one long segment
                      np.zeros(150_000, bool),  # one segment: the whole line
                      resets(rng, 150_000, 0.05)])  # only short ones
        return (3, 150_000), 1, r, slice(None)
    if name == "many_lines":
        r = resets(rng, (48, 6000), 0.002)
        r[0] = True
        r[1] = False
        return (48, 6000), 1, r, [0, 1, 2, 17, 47]
    r = resets(rng, (6000, 48), 0.002)
    return (6000, 48), 0, r, [0, 5, 47]


@pytest.mark.threads
@pytest.mark.usefixtures("restore_thread_count")
@pytest.mark.parametrize("op, flags", THREAD_OPS, ids=THREAD_OP_IDS)
@pytest.mark.parametrize("case", THREAD_CASES)
def test_thread_count_does_not_change_a_bit(case, op, flags):
    """Inputs over 1 MiB, that the thread pool splits: long segments cut into chunks, many short ones, lines in
    parallel and the outer axis; every thread count gives the bits of one thread, which are NumPy's scans of each
    segment (one variant checked per case, on some lines)."""
    rng = np.random.default_rng(seed_of("threads", case, op, *flags))
    shape, axis, r, checked_lines = _threaded_case(case, rng)
    if op == "cumprod":
        a = 1 + 1e-3 * rng.uniform(-1, 1, shape)
    else:
        a = rng.standard_normal(shape)
    if op in ("nancumsum", "cummax"):
        a[rng.random(shape) < 1e-5] = np.nan
        np.moveaxis(a, axis, -1)[..., 20_000 if case in ("long_line", "few_long_lines") else 3] = np.nan
    assert a.nbytes > 1 << 20, "the array must be large enough to use the thread pool"
    checked = (THREAD_CASES.index(case) + THREAD_OPS.index((op, flags))) % len(VARIANTS)
    for v, (decreasing, exclusive) in enumerate(VARIANTS):
        simdscan.set_num_threads(1)
        single = scan(op, a, axis, decreasing, exclusive, reset=r, **flags)
        if v == checked:
            sample = np.moveaxis(a, axis, -1)[checked_lines]
            got = tuple(np.moveaxis(g, axis, -1)[checked_lines] for g in single) if isinstance(single, tuple) else (
                np.moveaxis(single, axis, -1)[checked_lines])
            check_segmented(got, op, sample, np.moveaxis(r, axis, -1)[checked_lines], -1, decreasing, exclusive,
                            where=f"{op} {case} decreasing={decreasing} exclusive={exclusive}")
        for threads in THREAD_COUNTS[1:]:
            simdscan.set_num_threads(threads)
            got = scan(op, a, axis, decreasing, exclusive, reset=r, **flags)
            where = f"{op} {flags} {case} decreasing={decreasing} exclusive={exclusive}: {threads} threads vs 1"
            if isinstance(single, tuple):
                assert_same_bits(got[0], single[0], where)
                np.testing.assert_array_equal(got[1], single[1], err_msg=where, strict=True)
            else:
                assert_same_bits(got, single, where)
