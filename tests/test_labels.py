"""``labels=`` on every scan and on ffill: grouped scans in the original order, as pandas'
``groupby(labels).cumsum()`` along every line.

The labels (integers >= 0, of any integer dtype, uint64 above 2**63 included) are broadcast to the input's shape
(``axis=None``: then flattened in C order, as the input); each output is the scan, in the walk's order, of the
elements of its line that carry its label, up to and including it (``exclusive``: excluding it, so that a group's
first element in the walk gets the identity); ``include_initial`` still adds one identity per line. Indices are
positions along the axis (-1 for the identity). ffill fills each NaN from the last number of its group before it.

Checked against NumPy's scan of every group gathered on its own (group_reference.py): exactly for integers, extrema,
ffill and real float sums and products (which a grouped scan computes sequentially: NumPy's bits, float16 rounded
once from float32), within the suite's bounds for complex and compensated sums, within logcumsumexp's tolerance;
against pandas' groupby; bit for bit across thread counts on inputs over a million elements; on every dtype,
direction, mode, axis, layout of the input, of the labels and of out, in place; for one label, thousands, labels of
one element, huge label values, broadcast labels; and the errors, which leave the input, the labels and out alone.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, note
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import simdscan
from data import make_data, seed_of, spread_values
from family_reference import assert_same_bits, extrema_data
from group_reference import check_grouped, check_grouped_fill, label_lines, line_groups
from ops import BY_NAME, SCANS
from params import VARIANTS, all_axes, scan, scattered_outs, stepped_reversed_out
from reference import FLOAT_DTYPES, INT_DTYPES, LAYOUTS, SUPPORTED_DTYPES, apply_layout, assert_unchanged, snapshot
from segment_reference import identity, result_dtype, result_shape

pytestmark = pytest.mark.kernels  # the outcome depends on the ISA tier and the xsimd version: CI runs these per tier

NAN = np.nan
SCAN_NAMES = tuple(s.name for s in SCANS)
CUMULATIVE = ("cumulative_sum", "cumulative_prod")
ALL_FUNCTIONS = SCAN_NAMES + CUMULATIVE + ("ffill",)
#: (scan, flags): each scan with each keyword set that chooses another kernel (ops.Scan.variants)
SCAN_FLAGS = [(s.name, flags) for s in SCANS for flags in s.variants()]
SCAN_FLAG_IDS = [name + "".join(f"-{k}" for k in flags) for name, flags in SCAN_FLAGS]
FILLED = FLOAT_DTYPES  # the dtypes that hold NaN: ffill fills them
FILLED_IDS = [d.name for d in FILLED]
UNFILLED = INT_DTYPES + [np.dtype(bool)]
UNFILLED_IDS = [d.name for d in UNFILLED]
WRITABLE_LAYOUTS = [layout for layout in LAYOUTS if layout not in ("broadcast", "readonly")]
I64_MAX = 2**63 - 1
U64_HIGH = 2**63 + 12345


# --------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------
def data(op, rng, shape, dtype, nan=0.0):
    """Values for ``op``: extrema_data's walks (many ties) for running extrema, make_data's sums or near-one products
    (whose scans stay finite), logcumsumexp the sums' values; floats get NaNs with probability ``nan`` (no complex
    product of NaN, which the bounds do not take)."""
    dt = np.dtype(dtype)
    if op.endswith(("max", "min")):
        return extrema_data(rng, shape, dt, nan)
    x = make_data(rng, shape, dt, "cumprod" if op.endswith("prod") else "cumsum")
    if nan and (dt.kind == "f" or dt.kind == "c" and op != "cumprod"):
        x[rng.random(shape) < nan] = NAN
    return x


def fill_data(rng, shape, dtype, density):
    """Numbers (eighths in [-125, 125], exact in float16, with a few signed zeros and infinities) and NaN with
    probability ``density``; a complex NaN is NaN in its real part, its imaginary part or both."""
    dt = np.dtype(dtype)

    def part():
        v = rng.integers(-999, 1000, shape) / 8
        special = rng.random(shape) < 0.05
        v[special] = rng.choice(np.array([-0.0, 0.0, np.inf, -np.inf]), int(special.sum()))
        return v

    if dt.kind == "c":  # the parts set one by one: no arithmetic on infinities
        x = np.empty(shape, np.complex128)
        x.real, x.imag = part(), part()
    else:
        x = part()
    nan = rng.random(shape) < density
    if dt.kind == "c":
        kind = rng.integers(0, 3, shape)
        x.real[nan & (kind != 1)] = NAN
        x.imag[nan & (kind != 0)] = NAN
    else:
        x[nan] = NAN
    return x.astype(dt)


def labels_of(rng, shape, count):
    """Random labels in [0, count)."""
    return rng.integers(0, count, shape)


def huge(labels, dtype=np.int64):
    """The same groups under huge label values: label k becomes 2**62 + k * (2**40 + 7) (int64), and 2**63 + k * ...
    (uint64, above int64's range); label 0 becomes int64's largest value (uint64's for uint64)."""
    k = np.asarray(labels).astype(np.uint64)
    if np.dtype(dtype) == np.uint64:
        v = np.uint64(2**63) + k * np.uint64(2**40 + 7)
        return np.where(k == 0, np.uint64(2**64 - 1), v)
    v = (np.int64(2**62) + k.astype(np.int64) * np.int64(2**40 + 7))
    return np.where(k == 0, np.int64(I64_MAX), v)


def values_of(got):
    return got[0] if isinstance(got, tuple) else got


def assert_same_values(got, want, where):
    """Same type, dtype, shape and values, NaN equal to NaN and a zero's sign kept; pairs element by element."""
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


def fill(a, axis=None, decreasing=False, **kw):
    return simdscan.ffill(a, axis, direction="decreasing" if decreasing else "increasing", **kw)


# --------------------------------------------------------------------------
# by hand
# --------------------------------------------------------------------------
# x = [1, 2, 3, 4, 5, 6], labels [0, 1, 0, 2, 1, 0]: groups at (0, 2, 5) = [1, 3, 6], (1, 4) = [2, 5], (3,) = [4]
_X6 = np.array([1, 2, 3, 4, 5, 6], dtype=np.int32)
_L6 = [0, 1, 0, 2, 1, 0]
BY_HAND = [
    # (scan, decreasing, exclusive, expected)
    ("cumsum", False, False, [1, 2, 4, 4, 7, 10]),
    ("cumsum", True, False, [10, 7, 9, 4, 5, 6]),
    ("cumsum", False, True, [0, 0, 1, 0, 2, 4]),
    ("cumsum", True, True, [9, 5, 6, 0, 0, 0]),
    ("cumprod", False, False, [1, 2, 3, 4, 10, 18]),
    ("cumprod", True, False, [18, 10, 18, 4, 5, 6]),
    ("cumprod", False, True, [1, 1, 1, 1, 2, 3]),
    ("cumprod", True, True, [18, 5, 6, 1, 1, 1]),
    ("nancumsum", True, False, [10, 7, 9, 4, 5, 6]),
    ("nancumprod", False, True, [1, 1, 1, 1, 2, 3]),
]
LABEL_SPELLINGS = {
    "list": lambda lab: list(lab),
    "int8": lambda lab: np.array(lab, np.int8),
    "uint8": lambda lab: np.array(lab, np.uint8),
    "int32": lambda lab: np.array(lab, np.int32),
    "uint64": lambda lab: np.array(lab, np.uint64),
    "huge int64": lambda lab: huge(lab),
    "huge uint64": lambda lab: huge(lab, np.uint64),
    "tuple": lambda lab: tuple(lab),
    "reversed int16": lambda lab: np.array(lab[::-1], np.int16)[::-1],
}


@pytest.mark.parametrize("op, decreasing, exclusive, want", BY_HAND,
                         ids=[f"{op}-{'dec' if d else 'inc'}-{'exc' if e else 'inc'}" for op, d, e, _ in BY_HAND])
@pytest.mark.parametrize("spelling", list(LABEL_SPELLINGS))
def test_sums_and_products_by_hand(op, decreasing, exclusive, want, spelling):
    labels = LABEL_SPELLINGS[spelling](_L6)
    got = scan(op, _X6, None, decreasing, exclusive, labels=labels)
    assert_same_values(got, np.array(want, dtype=np.int32), f"{op} labels {spelling}")
    check_grouped(got, op, _X6, labels, None, decreasing, exclusive)


# x = [3, 1, 4, 1, 5, 9, 2, 6], labels alternating: groups at (0, 2, 4, 6) = [3, 4, 5, 2], (1, 3, 5, 7) = [1, 1, 9, 6]
_X8 = np.array([3, 1, 4, 1, 5, 9, 2, 6], dtype=np.int16)
_L8 = [0, 1, 0, 1, 0, 1, 0, 1]
_LO, _HI = np.iinfo(np.int16).min, np.iinfo(np.int16).max
EXTREMA_BY_HAND = [
    # (scan, decreasing, exclusive, values, indices)
    ("cummax", False, False, [3, 1, 4, 1, 5, 9, 5, 9], [0, 1, 2, 3, 4, 5, 4, 5]),
    ("cummax", True, False, [5, 9, 5, 9, 5, 9, 2, 6], [4, 5, 4, 5, 4, 5, 6, 7]),
    ("cummax", False, True, [_LO, _LO, 3, 1, 4, 1, 5, 9], [-1, -1, 0, 1, 2, 3, 4, 5]),
    ("cummax", True, True, [5, 9, 5, 9, 2, 6, _LO, _LO], [4, 5, 4, 5, 6, 7, -1, -1]),
    ("cummin", False, False, [3, 1, 3, 1, 3, 1, 2, 1], [0, 1, 0, 3, 0, 3, 6, 3]),
    ("cummin", True, False, [2, 1, 2, 1, 2, 6, 2, 6], [6, 1, 6, 3, 6, 7, 6, 7]),
    ("cummin", False, True, [_HI, _HI, 3, 1, 3, 1, 3, 1], [-1, -1, 0, 1, 0, 3, 0, 3]),
    ("cummin", True, True, [2, 1, 2, 6, 2, 6, _HI, _HI], [6, 3, 6, 7, 6, 7, -1, -1]),
]


@pytest.mark.parametrize("op, decreasing, exclusive, want, want_idx", EXTREMA_BY_HAND,
                         ids=[f"{op}-{'dec' if d else 'inc'}-{'exc' if e else 'inc'}"
                              for op, d, e, _, _ in EXTREMA_BY_HAND])
def test_extrema_and_indices_by_hand(op, decreasing, exclusive, want, want_idx):
    want = np.array(want, dtype=np.int16)
    assert_same_values(scan(op, _X8, None, decreasing, exclusive, labels=_L8), want, op)
    got = scan(op, _X8, None, decreasing, exclusive, labels=_L8, return_indices=True)
    assert_same_values(got, (want, np.array(want_idx, dtype=np.intp)), f"{op} return_indices")
    check_grouped(got, op, _X8, _L8, None, decreasing, exclusive)
    # the NaN-skipping twins agree where there is no NaN
    assert_same_values(scan("nan" + op, _X8, None, decreasing, exclusive, labels=_L8), want, "nan" + op)
    # and so does the float64 input, whose identity is -inf / +inf
    ident = -np.inf if op == "cummax" else np.inf
    fwant = np.where(np.array(want_idx) < 0, ident, want.astype(np.float64))
    got = scan(op, _X8.astype(np.float64), None, decreasing, exclusive, labels=_L8, return_indices=True)
    assert_same_values(got, (fwant, np.array(want_idx, dtype=np.intp)), f"{op} float64")


def test_bool_extrema_by_hand():
    x = np.array([False, True, False, False, True, False])
    lab = [0, 1, 0, 1, 2, 2]
    assert_same_values(simdscan.cummax(x, labels=lab), np.array([0, 1, 0, 1, 1, 1], bool), "cummax")
    assert_same_values(simdscan.cummax(x, labels=lab, exclusive=True), np.array([0, 0, 0, 1, 0, 1], bool),
                       "cummax exclusive: False first")
    assert_same_values(simdscan.cummin(x, labels=lab, exclusive=True), np.array([1, 1, 0, 1, 1, 1], bool),
                       "cummin exclusive: True first")
    v, i = simdscan.cummin(x, labels=lab, return_indices=True, direction="decreasing")
    assert_same_values((v, i), (np.array([0, 0, 0, 0, 0, 0], bool), np.array([0, 3, 2, 3, 5, 5], np.intp)), "cummin")
    assert_same_values(simdscan.cumsum(x, labels=lab), np.array([0, 1, 0, 1, 1, 1]), "cumsum of bool counts")


# x = [1, nan, 2, 3, 4], labels [0, 0, 1, 0, 1]: groups at (0, 1, 3) = [1, nan, 3], (2, 4) = [2, 4]
_XN = np.array([1.0, NAN, 2.0, 3.0, 4.0])
_LN = [0, 0, 1, 0, 1]
NAN_BY_HAND = [
    # (scan, decreasing, exclusive, values, indices or None): the NaN never reaches the other group
    ("cumsum", False, False, [1, NAN, 2, NAN, 6], None),
    ("cumsum", True, False, [NAN, NAN, 6, 3, 4], None),
    ("cumsum", False, True, [0, 1, 0, NAN, 2], None),
    ("cumsum", True, True, [NAN, 3, 4, 0, 0], None),
    ("cumprod", False, False, [1, NAN, 2, NAN, 8], None),
    ("cumprod", True, True, [NAN, 3, 4, 1, 1], None),
    ("cummax", False, False, [1, NAN, 2, NAN, 4], [0, 1, 2, 1, 4]),
    ("cummax", True, False, [NAN, NAN, 4, 3, 4], [1, 1, 4, 3, 4]),
    ("cummax", False, True, [-np.inf, 1, -np.inf, NAN, 2], [-1, 0, -1, 1, 2]),
    ("cummin", False, False, [1, NAN, 2, NAN, 2], [0, 1, 2, 1, 2]),
    ("cummin", True, True, [NAN, 3, 4, np.inf, np.inf], [1, 3, 4, -1, -1]),
    ("nancumsum", False, False, [1, 1, 2, 4, 6], None),
    ("nancumsum", True, True, [3, 3, 4, 0, 0], None),
    ("nancumprod", False, False, [1, 1, 2, 3, 8], None),
    ("nancummax", True, False, [3, 3, 4, 3, 4], None),
    ("nancummin", False, True, [np.inf, 1, np.inf, 1, 2], None),
    ("logcumsumexp", False, False, [1, NAN, 2, NAN, np.logaddexp(2, 4)], None),
    ("logcumsumexp", True, False, [NAN, NAN, np.logaddexp(2, 4), 3, 4], None),
]


@pytest.mark.parametrize("op, decreasing, exclusive, want, want_idx", NAN_BY_HAND,
                         ids=[f"{op}-{'dec' if d else 'inc'}-{'exc' if e else 'inc'}"
                              for op, d, e, _, _ in NAN_BY_HAND])
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_nan_stays_in_its_group(op, decreasing, exclusive, want, want_idx, dtype):
    x = _XN.astype(dtype)
    kw = {"return_indices": True} if want_idx is not None else {}
    got = scan(op, x, None, decreasing, exclusive, labels=_LN, **kw)
    want = np.array(want, dtype=dtype)
    if want_idx is not None:
        want = (want, np.array(want_idx, dtype=np.intp))
    if op == "logcumsumexp":
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-3, equal_nan=True)
        assert got.dtype == dtype
    else:
        assert_same_values(got, want, f"{op} {dtype}")
    check_grouped(got, op, x, _LN, None, decreasing, exclusive)


def test_logcumsumexp_by_hand():
    x = np.log([1.0, 2.0, 3.0, 4.0, 5.0])
    lab = [0, 1, 0, 1, 0]  # groups [1, 3, 5] and [2, 4]
    np.testing.assert_allclose(simdscan.logcumsumexp(x, labels=lab), np.log([1, 2, 4, 6, 9]), rtol=1e-14)
    np.testing.assert_allclose(simdscan.logcumsumexp(x, labels=lab, direction="decreasing"),
                               np.log([9, 6, 8, 4, 5]), rtol=1e-14)
    got = simdscan.logcumsumexp(x, labels=lab, exclusive=True)
    assert got[0] == got[1] == -np.inf
    np.testing.assert_allclose(got[2:], np.log([1, 2, 4]), rtol=1e-14)
    got = simdscan.logcumsumexp(x, labels=lab, exclusive=True, direction="decreasing")
    assert got[3] == got[4] == -np.inf
    np.testing.assert_allclose(got[:3], np.log([8, 4, 5]), rtol=1e-14)


def test_cumulative_by_hand():
    x = np.array([1, 2, 3, 4], dtype=np.int32)
    lab = [0, 1, 0, 1]  # groups [1, 3], [2, 4]
    assert_same_values(simdscan.cumulative_sum(x, labels=lab), np.array([1, 2, 4, 6]), "cumulative_sum")
    # one identity per line, at the start of the walk; the labels have x's shape
    assert_same_values(simdscan.cumulative_sum(x, labels=lab, include_initial=True), np.array([0, 1, 2, 4, 6]),
                       "cumulative_sum include_initial")
    assert_same_values(simdscan.cumulative_sum(x, labels=lab, include_initial=True, direction="decreasing"),
                       np.array([4, 6, 3, 4, 0]), "cumulative_sum include_initial decreasing")
    x = np.array([[2, 3, 4, 5], [1, 2, 3, 4]], dtype=np.uint8)
    lab = np.array([0, 7, 0, 7])
    assert_same_values(simdscan.cumulative_prod(x, axis=1, labels=lab),
                       np.array([[2, 3, 8, 15], [1, 2, 3, 8]], np.uint64), "cumulative_prod")
    assert_same_values(simdscan.cumulative_prod(x, axis=1, labels=lab, include_initial=True),
                       np.array([[1, 2, 3, 8, 15], [1, 1, 2, 3, 8]], np.uint64), "cumulative_prod include_initial")
    assert_same_values(simdscan.cumulative_sum(x, axis=0, labels=[[0], [0]], include_initial=True),
                       np.array([[0, 0, 0, 0], [2, 3, 4, 5], [3, 5, 7, 9]], np.uint64), "cumulative_sum axis 0")


_F = [1.0, NAN, NAN, 2.0, NAN, NAN]
FILL_BY_HAND = [
    # (input, labels, keywords, expected)
    (_F, [0, 1, 0, 1, 0, 1], {}, [1, NAN, 1, 2, 1, 2]),
    (_F, [0, 1, 0, 1, 0, 1], {"direction": "decreasing"}, [1, 2, NAN, 2, NAN, NAN]),
    (_F, [0, 0, 1, 1, 0, 0], {}, [1, 1, NAN, 2, 1, 1]),
    (_F, [0, 0, 1, 1, 0, 0], {"limit": 2}, [1, 1, NAN, 2, 1, NAN]),
    (_F, [0, 0, 1, 1, 0, 0], {"limit": 1, "direction": "decreasing"}, [1, NAN, 2, 2, NAN, NAN]),
    ([1.0, NAN, NAN, NAN, 5.0, NAN], [0, 0, 1, 0, 0, 1], {"limit": 1}, [1, 1, NAN, NAN, 5, NAN]),
    ([1.0, NAN, NAN, NAN, 5.0, NAN], [0, 0, 1, 0, 0, 1], {"limit": 2}, [1, 1, NAN, 1, 5, NAN]),
    ([NAN, 3.0, NAN, NAN], [I64_MAX, 0, 0, I64_MAX], {}, [NAN, 3, 3, NAN]),
    ([NAN, 3.0, NAN, NAN], [5, 5, 5, 5], {"direction": "decreasing"}, [3, 3, NAN, NAN]),
    ([NAN, 3.0, NAN, 4.0], [0, 1, 2, 3], {}, [NAN, 3, NAN, 4]),  # every element alone: nothing filled
]


@pytest.mark.parametrize("x, labels, kw, want", FILL_BY_HAND, ids=[f"case{k}" for k in range(len(FILL_BY_HAND))])
@pytest.mark.parametrize("dtype", FILLED, ids=FILLED_IDS)
def test_ffill_by_hand(x, labels, kw, want, dtype):
    a = np.array(x, dtype=dtype)
    got = simdscan.ffill(a, labels=np.array(labels, np.uint64 if max(labels) > 2**62 else np.int64), **kw)
    want = np.array(want, dtype=dtype)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want, strict=True)
    check_grouped_fill(got, a, labels, None, kw.get("direction") == "decreasing", kw.get("limit"))


def test_int8_wraps_within_a_group():
    x = np.array([100, 100, 100, 100, -100, -100], dtype=np.int8)
    lab = [0, 1, 0, 1, 0, 1]
    assert_same_values(simdscan.cumsum(x, labels=lab), np.array([100, 100, -56, -56, 100, 100], np.int8), "inc")
    assert_same_values(simdscan.cumsum(x, labels=lab, direction="decreasing"),
                       np.array([100, 100, 0, 0, -100, -100], np.int8), "dec")
    assert_same_values(simdscan.cumprod(np.array([16, 3, 16, 3, 16], np.int8), labels=[1, 2, 1, 2, 1]),
                       np.array([16, 3, 0, 9, 0], np.int8), "cumprod")
    x = np.array([2**63 - 1, 5, 1, 5], dtype=np.int64)
    assert_same_values(simdscan.cumsum(x, labels=[4, 9, 4, 9]), np.array([2**63 - 1, 5, -2**63, 10], np.int64),
                       "int64")


def test_complex_by_hand():
    x = np.array([1 + 2j, 3 - 1j, 2j, 1 + 1j, -1j], dtype=np.complex128)
    lab = [0, 1, 0, 1, 0]  # groups [1+2j, 2j, -1j] and [3-1j, 1+1j]
    assert_same_values(simdscan.cumsum(x, labels=lab), np.array([1 + 2j, 3 - 1j, 1 + 4j, 4, 1 + 3j]), "cumsum")
    assert_same_values(simdscan.cumsum(x.astype(np.complex64), labels=lab, exclusive=True, direction="decreasing"),
                       np.array([1j, 1 + 1j, -1j, 0, 0], np.complex64), "cumsum complex64")
    assert_same_values(simdscan.cumprod(x, labels=lab), np.array([1 + 2j, 3 - 1j, -4 + 2j, 4 + 2j, 2 + 4j]), "cumprod")
    with_nan = np.array([1, complex(NAN, 1), 2, complex(3, NAN), 5j])
    assert_same_values(simdscan.nancumsum(with_nan, labels=[0, 0, 1, 1, 0]),
                       np.array([1, 1, 2, 2, 1 + 5j], np.complex128), "nancumsum: NaN in either part counts")
    nan_re, nan_im = complex(NAN, 1.0), complex(1.0, NAN)
    a = np.array([2 - 1j, 5j, nan_re, nan_im, 3j, complex(NAN, NAN)], np.complex64)
    got = simdscan.ffill(a, labels=[0, 1, 0, 1, 1, 0])
    np.testing.assert_array_equal(got, np.array([2 - 1j, 5j, 2 - 1j, 5j, 3j, 2 - 1j], np.complex64))


def test_float16_accumulates_in_float32_within_each_group():
    # group 0: 2048, 1, 1 sums to 2048, 2049 -> 2048 (rounded once from float32), 2050 (a float16 sum stalls at 2048)
    x = np.array([2048, 1, 1, 1, 1], dtype=np.float16)
    lab = [0, 1, 0, 1, 0]
    assert_same_values(simdscan.cumsum(x, labels=lab), np.array([2048, 1, 2048, 2, 2050], np.float16), "cumsum")
    assert_same_values(simdscan.nancumsum(x, labels=lab, direction="decreasing"),
                       np.array([2050, 2, 2, 1, 1], np.float16), "nancumsum decreasing")
    ones = np.ones(8192, dtype=np.float16)
    got = simdscan.cumsum(ones, labels=np.arange(8192) % 2)
    assert got[-1] == 4096 and got[-2] == 4096, got[-4:]
    y = np.array([0.5, 1.5, 2.0, 1000.0, 0.5, 3.0], dtype=np.float16)
    assert_same_values(simdscan.cumprod(y, labels=[3, 3, 1, 1, 3, 1], exclusive=True),
                       np.array([1, 0.5, 1, 2, 0.75, 2000], np.float16), "cumprod")
    assert_same_values(simdscan.cummax(y, labels=[3, 3, 1, 1, 3, 1], direction="decreasing"),
                       np.array([1.5, 1.5, 1000, 1000, 0.5, 3], np.float16), "cummax")


# --------------------------------------------------------------------------
# every scan, dtype, direction, mode and axis against the reference
# --------------------------------------------------------------------------
OP_DTYPES = [(op, d.name) for op in SCAN_NAMES for d in SUPPORTED_DTYPES if BY_NAME[op].takes(d)]
# (shape, axis, labels' shape, distinct labels): a line of several vectors flattened, short columns (the outer
# axis), rows, the middle axis of 3-D, and a 2-D input flattened with labels of one row broadcast to it
AXIS_CASES = [((300,), None, (300,), 40), ((6, 45), 0, (6, 45), 3), ((6, 45), -1, (6, 45), 8),
              ((5, 24, 4), 1, (5, 24, 4), 6), ((6, 45), None, (45,), 5)]


@pytest.mark.parametrize("op, dtype", OP_DTYPES, ids=[f"{op}-{dtype}" for op, dtype in OP_DTYPES])
def test_matches_the_reference(op, dtype):
    """Seeded data of each dtype, every axis case, direction and mode, and each kernel flag (return_indices,
    compensated: the latter on finite data)."""
    rng = np.random.default_rng(seed_of("reference", op, dtype))
    flag_sets = BY_NAME[op].variants()
    for shape, axis, label_shape, count in AXIS_CASES:
        a = data(op, rng, shape, dtype, nan=0.02)
        finite = data(op, rng, shape, dtype)
        lab = labels_of(rng, label_shape, count)
        for v, (decreasing, exclusive) in enumerate(VARIANTS):
            for kw in flag_sets:
                x = finite if kw.get("compensated") else a
                got = scan(op, x, axis, decreasing, exclusive, labels=lab, **kw)
                check_grouped(got, op, x, lab, axis, decreasing, exclusive, compensated=bool(kw.get("compensated")),
                              where=f"{op} {dtype} {shape} axis={axis} decreasing={decreasing} "
                                    f"exclusive={exclusive} {kw}")


@pytest.mark.parametrize("op", ["cumsum", "cumprod", "nancumsum", "nancumprod"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_sums_and_products_are_each_groups_numpy_scan_bit_for_bit(op, dtype):
    """Computed sequentially within each group: np.cumsum / np.cumprod of the gathered group, every bit, for long
    groups (several vectors, a chunk) and short ones side by side."""
    rng = np.random.default_rng(seed_of("sequential", op, dtype))
    n = 70_000
    a = data(op, rng, (n,), dtype, nan=0.0001)
    if op.endswith("prod"):
        a = (1 + 1e-3 * rng.uniform(-1, 1, n)).astype(dtype)
    lab = labels_of(rng, n, 3)  # three long groups, interleaved
    lab[20_000:20_500] = np.arange(500) + 10  # 500 groups of one element
    lab[30_000:40_000] = 3  # a run of one label
    for decreasing, exclusive in VARIANTS:
        got = scan(op, a, None, decreasing, exclusive, labels=lab)
        check_grouped(got, op, a, lab, None, decreasing, exclusive)
        k = 1
        mask = lab == k
        g = a[mask][::-1] if decreasing else a[mask]
        func = np.cumprod if op.endswith("prod") else np.cumsum
        if op.startswith("nan"):
            g = np.where(np.isnan(g), 1 if op.endswith("prod") else 0, g).astype(dtype)
        want = func(g)
        if exclusive:
            want = np.concatenate([[1 if op.endswith("prod") else 0], want[:-1]]).astype(dtype)
        assert_same_bits(got[mask], want[::-1] if decreasing else want, f"{op} {dtype} group {k} {decreasing}")


@pytest.mark.parametrize("include_initial", [False, True])
@pytest.mark.parametrize("dtype", ["int32", "bool", "uint8", "int64", "float16", "float32", "float64", "complex64"])
@pytest.mark.parametrize("fn", CUMULATIVE)
def test_cumulative_matches_the_reference(fn, dtype, include_initial):
    """NumPy's result dtype (narrow integers and bool widened), one identity per line whatever the labels, and the
    rest of the line the grouped scan of the input, whose shape the labels have."""
    op = "cumsum" if fn == "cumulative_sum" else "cumprod"
    rng = np.random.default_rng(seed_of("cumulative", fn, dtype, include_initial))
    x = data(op, rng, (5, 120), dtype, nan=0.005)
    lab = labels_of(rng, x.shape, 6)
    rdt = np.cumsum(np.zeros(1, dtype)).dtype  # NumPy's accumulation dtype
    f = getattr(simdscan, fn)
    for axis in (1, 0, -1):
        for direction in ("increasing", "decreasing"):
            got = f(x, axis=axis, labels=lab, include_initial=include_initial, direction=direction)
            assert got.dtype == rdt, f"{fn} {dtype}: {got.dtype}, expected {rdt}"
            body = got
            if include_initial:
                line = np.moveaxis(got, axis, -1)
                assert line.shape[-1] == x.shape[axis] + 1
                first = line[..., 0] if direction == "increasing" else line[..., -1]
                np.testing.assert_array_equal(first, np.ones_like(first) if op == "cumprod" else np.zeros_like(first))
                body = np.moveaxis(line[..., 1:] if direction == "increasing" else line[..., :-1], -1, axis)
            check_grouped(np.ascontiguousarray(body), op, x, lab, axis, direction == "decreasing", False, dtype=rdt,
                          where=f"{fn} {dtype} axis={axis} {direction} include_initial={include_initial}")
    one_d = x[2]
    check_grouped(f(one_d, labels=lab[2]), op, one_d, lab[2], dtype=rdt)


@pytest.mark.parametrize("op", ["cumsum", "cumprod", "nancumsum", "logcumsumexp"])
def test_dtype_argument(op):
    rng = np.random.default_rng(seed_of("dtype=", op))
    a = rng.integers(-100, 100, (5, 200)).astype(np.int8)
    lab = labels_of(rng, a.shape, 9)
    dtype = np.float32 if op == "logcumsumexp" else np.int32
    for decreasing, exclusive in VARIANTS:
        got = scan(op, a, 1, decreasing, exclusive, labels=lab, dtype=dtype)
        check_grouped(got, op, a, lab, 1, decreasing, exclusive, dtype=dtype)
        assert got.dtype == dtype


COMPENSATED_CASES = [("cumsum", "float32"), ("cumsum", "float16"), ("cumsum", "complex64"), ("nancumsum", "float64"),
                     ("nancumsum", "complex128")]


@pytest.mark.parametrize("op, dtype", COMPENSATED_CASES, ids=[f"{op}-{dtype}" for op, dtype in COMPENSATED_CASES])
def test_compensated_combines_with_labels(op, dtype):
    """Each group within the compensated bound, along rows and columns, groups interleaved over long lines."""
    rng = np.random.default_rng(seed_of("compensated", op, dtype))
    a = spread_values(rng, (2, 2000), dtype)
    if op == "nancumsum":
        a[rng.random(a.shape) < 0.01] = NAN  # NaN counts as 0
    lab = labels_of(rng, a.shape, 4)
    for axis, variants in ((1, VARIANTS), (0, VARIANTS[1:3])):
        for decreasing, exclusive in variants:
            got = scan(op, a, axis, decreasing, exclusive, labels=lab, compensated=True)
            check_grouped(got, op, a, lab, axis, decreasing, exclusive, compensated=True)


def test_compensated_keeps_what_the_plain_sum_loses_in_each_group():
    # group 1: [1e8, 1, 1, 1, 1, -1e8]; float32 loses the ones, the compensated sum keeps them; group 0's 5 stays out
    x = np.array([5.0, 1e8, 1.0, 1.0, 1.0, 1.0, -1e8, 7.0], dtype=np.float32)
    lab = [0, 1, 1, 1, 1, 1, 1, 0]
    for name in ("cumsum", "nancumsum"):
        plain = getattr(simdscan, name)(x, labels=lab)
        assert plain[6] == 0, plain
        got = getattr(simdscan, name)(x, labels=lab, compensated=True)
        assert got[6] == 4 and got[7] == 12 and got[0] == 5, got
        got = getattr(simdscan, name)(x, labels=lab, compensated=True, direction="decreasing")
        assert got[1] == 4 and got[0] == 12 and got[7] == 7, got


# --------------------------------------------------------------------------
# label counts and values
# --------------------------------------------------------------------------
@pytest.mark.parametrize("op, flags", SCAN_FLAGS, ids=SCAN_FLAG_IDS)
def test_one_label_is_the_whole_line(op, flags):
    """All-same labels (an array, a 0-d one, a Python int, a huge one, a row of int64's largest): each line is one
    group, the reference's sequential scan, the same bits whichever the spelling; for integers and extrema, which any
    order computes alike, the plain scan's bits. labels=None is the plain scan."""
    rng = np.random.default_rng(seed_of("one label", op, *flags))
    comp = bool(flags.get("compensated"))
    for dtype in ("float64", "int16", "float32"):
        a = data(op, rng, (6, 70), dtype, nan=0.0 if comp else 0.01)
        for axis in (0, 1, None):
            for decreasing, exclusive in VARIANTS:
                plain = scan(op, a, axis, decreasing, exclusive, **flags)
                assert_same_values(scan(op, a, axis, decreasing, exclusive, labels=None, **flags), plain, "None")
                want = scan(op, a, axis, decreasing, exclusive, labels=np.zeros(a.shape, np.int64), **flags)
                where = f"{op} {flags} {dtype} axis={axis} decreasing={decreasing} exclusive={exclusive}"
                check_grouped(want, op, a, 0, axis, decreasing, exclusive, compensated=comp, where=where)
                if op != "logcumsumexp" and (dtype == "int16" or op.endswith(("max", "min"))):
                    assert_same_values(want, plain, where + " (the plain scan)")
                for name, lab in (("0-d 7", np.int8(7)), ("int 5", 5), ("huge", np.uint64(2**64 - 1)),
                                  ("row", np.full(70, I64_MAX))):
                    got = scan(op, a, axis, decreasing, exclusive, labels=lab, **flags)
                    assert_same_values(got, want, f"{where} labels={name}")


def every_element_alone(op, a, axis, exclusive, return_indices=False):
    """The result when every element is a group of its own: inclusive, the input in the result dtype (NaN counted as
    the identity by nancumsum / nancumprod); exclusive, the identity everywhere; indices each element's own position
    (exclusive: -1)."""
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
    pos = np.arange(x.shape[ax]).reshape([-1 if k == ax % x.ndim else 1 for k in range(x.ndim)])
    return want, np.broadcast_to(np.full(x.shape, -1) if exclusive else pos, x.shape).astype(np.intp)


@pytest.mark.parametrize("op, flags", SCAN_FLAGS, ids=SCAN_FLAG_IDS)
def test_groups_of_one_element(op, flags):
    """Distinct labels in every line (groups of one element): inclusive, the input in the result dtype; exclusive,
    the identity everywhere (0 / 1 / the lowest or highest value / -inf)."""
    rng = np.random.default_rng(seed_of("alone", op, *flags))
    indices = bool(flags.get("return_indices"))
    dtypes = ["float32", "int8", "uint64", "float16", "bool"] + (["complex64"] if BY_NAME[op].takes("c8") else [])
    for dtype in dtypes:
        a = data(op, rng, (5, 33), dtype)
        distinct = [("arange", np.arange(5 * 33).reshape(5, 33)), ("huge", huge(np.arange(5 * 33).reshape(5, 33))),
                    ("reversed uint64", huge(np.arange(5 * 33)[::-1].reshape(5, 33), np.uint64))]
        for axis in (0, 1, None):
            for decreasing, exclusive in VARIANTS:
                want = every_element_alone(op, a, axis, exclusive, indices)
                for name, lab in distinct:
                    got = scan(op, a, axis, decreasing, exclusive, labels=lab, **flags)
                    where = f"{op} {dtype} labels={name} axis={axis} decreasing={decreasing} exclusive={exclusive}"
                    if op == "logcumsumexp":  # one element's logcumsumexp: within rounding of itself
                        np.testing.assert_allclose(got, want, rtol=1e-3 if dtype == "float16" else 1e-6, err_msg=where)
                        assert got.dtype == want.dtype
                    else:
                        assert_same_values(got, want, where)
        # the row of labels broadcast over every line: each line's elements alone as well
        got = scan(op, a, 1, False, True, labels=np.arange(33), **flags)
        check_grouped(got, op, a, np.arange(33), 1, False, True)


THOUSANDS_CASES = [("cumsum", {}, "float64"), ("cumsum", {}, "int32"), ("cumprod", {}, "float32"),
                   ("cummax", {"return_indices": True}, "float64"), ("cummax", {"return_indices": True}, "int32"),
                   ("nancummin", {}, "float32"), ("nancumsum", {}, "float64"), ("logcumsumexp", {}, "float64")]


@pytest.mark.parametrize("op, flags, dtype", THOUSANDS_CASES,
                         ids=[f"{op}{'-indices' if flags else ''}-{dtype}" for op, flags, dtype in THOUSANDS_CASES])
def test_thousands_of_labels(op, flags, dtype):
    """3000 distinct labels in a line of 10 000, small and huge values (the same groups: the same bits), and rows of
    2000 with labels drawn from 3000 huge values, a different set in every line."""
    rng = np.random.default_rng(seed_of("thousands", op, dtype))
    a = data(op, rng, (10_000,), dtype, nan=0.001)
    lab = labels_of(rng, a.shape, 3000)
    assert np.unique(lab).size > 2800
    for decreasing, exclusive in VARIANTS:
        got = scan(op, a, None, decreasing, exclusive, labels=lab, **flags)
        check_grouped(got, op, a, lab, None, decreasing, exclusive)
        for name, spelled in (("huge int64", huge(lab)), ("huge uint64", huge(lab, np.uint64)),
                              ("x 2**50", lab.astype(np.int64) << 50), ("int16", lab.astype(np.int16))):
            assert_same_values(scan(op, a, None, decreasing, exclusive, labels=spelled, **flags), got,
                               f"{op} {dtype} labels {name}")
    rows = data(op, rng, (12, 2000), dtype, nan=0.001)
    pool = huge(np.arange(3000), np.uint64)
    row_labels = pool[rng.integers(0, 3000, rows.shape)]
    for axis, x, lab in ((1, rows, row_labels), (0, rows.T, row_labels.T)):
        for decreasing, exclusive in VARIANTS[::3]:
            got = scan(op, x, axis, decreasing, exclusive, labels=lab, **flags)
            check_grouped(got, op, x, lab, axis, decreasing, exclusive)


@pytest.mark.parametrize("op, flags", SCAN_FLAGS, ids=SCAN_FLAG_IDS)
def test_label_spellings_give_the_same_bits(op, flags):
    """The same groups in other dtypes, layouts and values (renumbered, huge, above int64's range, a list): the
    same result; the labels untouched."""
    rng = np.random.default_rng(seed_of("spellings", op, *flags))
    a = data(op, rng, (12, 45), "float32", nan=0.0 if flags.get("compensated") else 0.01)
    lab = labels_of(rng, a.shape, 7)
    perm = rng.permutation(7)

    def spellings():
        yield "fortran", np.asfortranarray(lab)
        yield "reversed int8", apply_layout(lab.astype(np.int8), "reversed")
        yield "stepped uint16", apply_layout(lab.astype(np.uint16), "stepped")
        yield "transposed int32", apply_layout(lab.astype(np.int32), "transposed")
        yield "byteswapped int32", apply_layout(lab.astype(np.int32), "byteswapped")
        yield "byteswapped uint64", apply_layout(huge(lab, np.uint64), "byteswapped")
        yield "readonly int64", apply_layout(lab, "readonly")
        yield "renumbered", perm[lab]
        yield "huge", huge(lab)
        yield "huge uint64", huge(lab, np.uint64)
        yield "uint32 top", (np.uint32(2**32 - 1) - lab.astype(np.uint32))
        yield "list", lab.tolist()

    for axis in (0, 1, None):
        for decreasing, exclusive in VARIANTS:
            want = scan(op, a, axis, decreasing, exclusive, labels=lab, **flags)
            check_grouped(want, op, a, lab, axis, decreasing, exclusive, compensated=bool(flags.get("compensated")))
            for name, spelled in spellings():
                snap = snapshot(spelled) if isinstance(spelled, np.ndarray) else None
                got = scan(op, a, axis, decreasing, exclusive, labels=spelled, **flags)
                assert_same_values(got, want, f"{op} labels {name} axis={axis} decreasing={decreasing} "
                                              f"exclusive={exclusive}")
                if snap is not None:
                    assert_unchanged(spelled, snap, "labels")


@pytest.mark.parametrize("op, flags", SCAN_FLAGS, ids=SCAN_FLAG_IDS)
def test_broadcast_labels(op, flags):
    """A row of labels against a 2-D input along the other axis (each line one label: its whole scan), a row along
    the rows (the same groups in every line) and a column (one label per line), a 0-d label; the same bits as the
    labels spelled out in full."""
    rng = np.random.default_rng(seed_of("broadcast", op, *flags))
    comp = bool(flags.get("compensated"))
    a = data(op, rng, (8, 50), "float64", nan=0.0 if comp else 0.01)
    row = labels_of(rng, 50, 5)
    column = labels_of(rng, (8, 1), 3)
    for decreasing, exclusive in VARIANTS:
        for axis, lab in ((0, row), (1, row), (-1, row.astype(np.uint8)), (1, column), (0, column), (None, row),
                          (None, column), (1, np.int32(4)), (None, 2**62)):
            got = scan(op, a, axis, decreasing, exclusive, labels=lab, **flags)
            where = (f"{op} {flags} axis={axis} labels shape {np.shape(lab)} decreasing={decreasing} "
                     f"exclusive={exclusive}")
            check_grouped(got, op, a, lab, axis, decreasing, exclusive, compensated=comp, where=where)
            full = np.broadcast_to(lab, a.shape).copy()
            assert_same_values(scan(op, a, axis, decreasing, exclusive, labels=full, **flags), got, where)
        # each column one label: the line is one group (the reference's sequential scan of it)
        got = scan(op, a, 0, decreasing, exclusive, labels=row, **flags)
        check_grouped(got, op, a, 0, 0, decreasing, exclusive, compensated=comp)


# --------------------------------------------------------------------------
# layouts, out= and in place
# --------------------------------------------------------------------------
@pytest.mark.parametrize("op", SCAN_NAMES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_input_layouts(op, layout):
    """The input in any layout (strided, transposed, reversed views, broadcast, byte-swapped, read-only), along every
    axis of 3-D and flattened, float16 too: each group its own scan, and the input untouched."""
    rng = np.random.default_rng(seed_of("layouts", op, layout))
    flag_sets = BY_NAME[op].variants()
    for dtype in ("int16" if BY_NAME[op].ordered and op != "logcumsumexp" else "float32", "float16"):
        base = data(op, rng, (5, 9, 7), dtype, nan=0.02)
        finite = data(op, rng, (5, 9, 7), dtype)
        lab = labels_of(rng, base.shape, 4)
        for k, axis in enumerate((0, 1, 2, -1, None)):
            # two variants per axis, which differ in direction and in mode, in turn
            for v, (decreasing, exclusive) in enumerate((VARIANTS[k % 2], VARIANTS[3 - k % 2])):
                kw = flag_sets[(k + v) % len(flag_sets)]
                a = apply_layout(finite if kw.get("compensated") else base, layout)
                snap = snapshot(a)
                got = scan(op, a, axis, decreasing, exclusive, labels=lab, **kw)
                check_grouped(got, op, a, lab, axis, decreasing, exclusive, compensated=bool(kw.get("compensated")),
                              where=f"{op} {dtype} {layout} axis={axis} decreasing={decreasing} "
                                    f"exclusive={exclusive} {kw}")
                assert_unchanged(a, snap)


@pytest.mark.parametrize("op, flags", SCAN_FLAGS, ids=SCAN_FLAG_IDS)
def test_out_of_any_layout(op, flags):
    """out at every offset within a cache line, stepped by 2 or 3, reversed, and stepped and reversed inside a buffer
    whose other elements stay as they were: returned, and holding the grouped scan."""
    rng = np.random.default_rng(seed_of("out", op, *flags))
    indices = bool(flags.get("return_indices"))
    comp = bool(flags.get("compensated"))
    a = data(op, rng, (7, 37), "float32", nan=0.0 if comp else 0.01)
    lab = labels_of(rng, a.shape, 5)
    rdt = result_dtype(op, a.dtype)
    outs = list(scattered_outs(a.shape, rdt).items())
    outs.append(("byteswapped", np.empty(a.shape, rdt.newbyteorder("S"))))
    outs.append(("fortran", np.asfortranarray(np.empty(a.shape, rdt))))
    for k, (name, out) in enumerate(outs):
        axis = k % 2
        decreasing, exclusive = VARIANTS[k % len(VARIANTS)]
        target = (out, np.empty(a.shape, np.intp)[::-1]) if indices else out
        got = scan(op, a, axis, decreasing, exclusive, labels=lab, out=target, **flags)
        if indices:
            assert got[0] is target[0] and got[1] is target[1], f"{op} {name}: not the given out"
        else:
            assert got is out, f"{op} {name}: not the given out"
        check_grouped(got, op, a, lab, axis, decreasing, exclusive, compensated=comp,
                      where=f"{op} out {name} axis={axis}")
    view, buf, outside = stepped_reversed_out(a.shape, rdt, 57)
    idx_view, idx_buf, _ = stepped_reversed_out(a.shape, np.intp, 57)
    got = scan(op, a, 0, True, True, labels=lab, out=(view, idx_view) if indices else view, **flags)
    check_grouped(got, op, a, lab, 0, True, True, compensated=comp, where=f"{op} stepped reversed out")
    assert (buf[outside] == 57).all(), "elements of out's buffer outside out were written"
    assert (idx_buf[outside] == 57).all(), "elements of the indices' buffer outside them were written"
    # axis=None: a 1-D out for the flattened input
    out = np.full(a.size * 3, 57, rdt)[1::3]
    target = (out, np.empty(a.size, np.intp)) if indices else out
    got = scan(op, a, None, False, False, labels=lab, out=target, **flags)
    assert values_of(got) is out
    check_grouped(got, op, a, lab, None, False, False, compensated=comp, where=f"{op} axis=None stepped out")


@pytest.mark.parametrize("op, flags", SCAN_FLAGS, ids=SCAN_FLAG_IDS)
def test_in_place(op, flags):
    rng = np.random.default_rng(seed_of("in place", op, *flags))
    indices = bool(flags.get("return_indices"))
    comp = bool(flags.get("compensated"))
    dtype = "int32" if BY_NAME[op].ordered and op != "logcumsumexp" else "float64"
    base = data(op, rng, (6, 50), dtype, nan=0.0 if comp else 0.01)
    lab = labels_of(rng, base.shape, 6)
    for layout in ("C", "fortran", "reversed", "stepped", "byteswapped"):
        for axis in (0, 1, None):
            if axis is None and layout not in ("C", "reversed"):
                continue  # out= must have the result's shape: 1-D
            for decreasing, exclusive in VARIANTS:
                a = apply_layout(base, layout) if axis is not None else apply_layout(base.reshape(-1), layout)
                flat = lab if axis is not None else lab.reshape(-1)
                before = a.copy()
                target = (a, np.empty(a.shape, np.intp)) if indices else a
                got = scan(op, a, axis, decreasing, exclusive, labels=flat, out=target, **flags)
                assert values_of(got) is a
                where = f"{op} in place {layout} axis={axis} decreasing={decreasing} exclusive={exclusive}"
                check_grouped(got, op, before, flat, axis, decreasing, exclusive, compensated=comp, where=where)


@pytest.mark.parametrize("op", ["cumsum", "cumprod", "cummax", "nancummin"])
def test_labels_that_share_memory_with_out(op):
    """In place on an integer array that is its own labels (or their reversed view): the labels are read as they were
    before anything is written."""
    rng = np.random.default_rng(seed_of("aliased labels", op))
    for shape, axis in (((10,), None), ((5000,), 0), ((300, 40), 0), ((40, 300), 1)):
        base = rng.integers(0, 5, shape).astype(np.int64)
        for decreasing in (False, True):
            for name, view in (("itself", lambda x: x), ("reversed", lambda x: x[::-1, ...])):
                a = base.copy()
                lab = view(a)
                before = lab.copy()
                assert scan(op, a, axis, decreasing, False, labels=lab, out=a) is a
                check_grouped(a, op, base, before, axis, decreasing, False,
                              where=f"{op} labels {name} of out, shape {shape} decreasing={decreasing}")


def test_in_place_on_views_writes_only_the_view():
    rng = np.random.default_rng(seed_of("views in place"))
    big = rng.integers(-5, 6, (40, 50)).astype(np.float64)
    for view in (np.s_[::-1], np.s_[::3, 1::2], np.s_[5:30:2, ::-3]):
        for axis in (0, 1):
            buf = big.copy()
            a = buf[view]
            before = a.copy()
            lab = labels_of(rng, a.shape, 4)
            outside = np.ones(buf.shape, bool)
            outside[view] = False
            assert simdscan.cumsum(a, axis, labels=lab, out=a) is a
            check_grouped(a, "cumsum", before, lab, axis)
            assert_same_bits(buf[outside], big[outside], "in place wrote outside its view")


# --------------------------------------------------------------------------
# ffill
# --------------------------------------------------------------------------
@pytest.mark.parametrize("density", [0.1, 0.6, 1.0], ids=["nan10", "nan60", "all-nan"])
@pytest.mark.parametrize("limit", [None, 1, 3])
@pytest.mark.parametrize("dtype", FILLED, ids=FILLED_IDS)
def test_ffill_matches_the_reference(dtype, limit, density):
    """Every axis of 2-D and 3-D, both directions; labels few, many, huge, broadcast."""
    rng = np.random.default_rng(seed_of("ffill", dtype.name, limit, density))
    for shape in ((6, 37), (4, 15, 6)):
        a = fill_data(rng, shape, dtype, density)
        snap = snapshot(a)
        for count in (2, 30):
            lab = labels_of(rng, shape, count)
            for axis in all_axes(a.ndim):
                for decreasing in (False, True):
                    for spelled in (lab, huge(lab, np.uint64)):
                        got = fill(a, axis, decreasing, limit=limit, labels=spelled)
                        check_grouped_fill(got, a, lab, axis, decreasing, limit,
                                           f"{shape} labels<{count} axis={axis} decreasing={decreasing} limit={limit}")
        row = labels_of(rng, shape[-1], 3)
        for axis in (-1, 0, None):
            got = fill(a, axis, False, limit=limit, labels=row)
            check_grouped_fill(got, a, row, axis, False, limit)
        assert_unchanged(a, snap)


@pytest.mark.parametrize("dtype", FILLED, ids=FILLED_IDS)
def test_ffill_one_label_and_groups_of_one(dtype):
    rng = np.random.default_rng(seed_of("ffill one", dtype.name))
    a = fill_data(rng, (7, 40), dtype, 0.4)
    for axis in (0, 1, None):
        for decreasing in (False, True):
            for limit in (None, 2):
                plain = fill(a, axis, decreasing, limit=limit)
                for lab in (0, np.uint64(2**64 - 1), np.full(a.shape, 3)):
                    assert_same_bits(fill(a, axis, decreasing, limit=limit, labels=lab), plain, f"one label {lab!r}")
                alone = fill(a, axis, decreasing, limit=limit, labels=np.arange(a.size).reshape(a.shape))
                assert_same_bits(alone, a.reshape(-1) if axis is None else a, "groups of one: nothing filled")


@pytest.mark.parametrize("dtype", FILLED, ids=FILLED_IDS)
def test_ffill_keeps_the_bits(dtype):
    """A filled value is the bits of the number it copies (-0.0, subnormal, largest); a NaN past the limit keeps
    its own bits (payload and sign)."""
    real = np.dtype(dtype.char.lower())
    uint = np.dtype(f"u{real.itemsize}")
    info = np.finfo(real)
    nan_a = ((1 << (8 * real.itemsize - 1)) | (((1 << info.nexp) - 1) << info.nmant) | 3)
    nan_b = ((((1 << info.nexp) - 1) << info.nmant) | (1 << (info.nmant - 1)) | 5)
    numbers = np.array([-0.0, info.smallest_subnormal, info.max], real).view(uint).tolist()
    # groups by the labels [0, 1, 0, 1, 0, 1, 0, 1]: group 0 = [-0.0, nan_a, nan_b, nan_a], group 1 = [sub, nan_b, max,
    # nan_b]
    line = np.array([numbers[0], numbers[1], nan_a, nan_b, nan_b, numbers[2], nan_a, nan_b], uint).view(real)
    a = np.empty(line.size, dtype)
    if dtype.kind == "c":  # the parts' bits copied as they are (no arithmetic, which would quiet a NaN)
        a.real, a.imag = line, np.roll(line, 3)
    else:
        a[...] = line
    lab = [0, 1, 0, 1, 0, 1, 0, 1]
    for decreasing in (False, True):
        for limit in (None, 1, 2):
            check_grouped_fill(fill(a, None, decreasing, limit=limit, labels=lab), a, lab, None, decreasing, limit)
    if dtype.kind == "f":
        want = np.array([numbers[0], numbers[1], numbers[0], numbers[1], numbers[0], numbers[2], nan_a, numbers[2]],
                        uint)
        np.testing.assert_array_equal(fill(a, limit=2, labels=lab).view(uint), want)


@pytest.mark.parametrize("dtype", UNFILLED, ids=UNFILLED_IDS)
def test_ffill_integers_and_bool_come_back_as_they_are(dtype):
    rng = np.random.default_rng(seed_of("ffill integers", dtype.name))
    base = (rng.integers(0, 2, (5, 8)) if dtype == bool else rng.integers(-100, 100, (5, 8))).astype(dtype)
    lab = labels_of(rng, base.shape, 3)
    for layout in WRITABLE_LAYOUTS:
        a = apply_layout(base, layout)
        snap = snapshot(a)
        for axis in (None, 0, 1):
            for decreasing in (False, True):
                got = fill(a, axis, decreasing, limit=2, labels=lab)
                assert type(got) is np.ndarray and got.shape == result_shape(a, axis)
                assert got.dtype.newbyteorder("=") == dtype
                np.testing.assert_array_equal(got, a.reshape(-1) if axis is None else a)
                assert not np.shares_memory(got, a), "not a copy"
                if axis is not None:
                    assert fill(a, axis, decreasing, labels=lab, out=a) is a
                    out = np.zeros(a.shape, dtype)[::-1]
                    assert fill(a, axis, decreasing, labels=lab, out=out) is out
                    np.testing.assert_array_equal(out, a)
        assert_unchanged(a, snap)


@pytest.mark.parametrize("limit", [None, 2])
@pytest.mark.parametrize("dtype", FILLED, ids=FILLED_IDS)
def test_ffill_out_and_in_place(dtype, limit):
    rng = np.random.default_rng(seed_of("ffill out", dtype.name, limit))
    a = fill_data(rng, (6, 9), dtype, 0.4)
    lab = labels_of(rng, a.shape, 3)
    for axis in (None, 0, 1):
        shape = result_shape(a, axis)
        outs = scattered_outs(shape, dtype)
        outs["byteswapped"] = np.empty(shape, dtype.newbyteorder("S"))
        for name, out in outs.items():
            for decreasing in (False, True):
                got = fill(a, axis, decreasing, limit=limit, labels=lab, out=out)
                assert got is out, f"{name}: out is not returned"
                check_grouped_fill(np.ascontiguousarray(got, dtype), a, lab, axis, decreasing, limit, f"out={name}")
        out, buf, outside = stepped_reversed_out(shape, dtype, 7)
        assert fill(a, axis, True, limit=limit, labels=lab, out=out) is out
        check_grouped_fill(out.copy(), a, lab, axis, True, limit)
        assert (buf[outside] == 7).all(), "out= wrote outside its view"
    for layout in WRITABLE_LAYOUTS:
        for axis in (0, 1):
            for decreasing in (False, True):
                x = apply_layout(a, layout)
                assert fill(x, axis, decreasing, limit=limit, labels=lab, out=x) is x
                check_grouped_fill(np.ascontiguousarray(x, dtype), a, lab, axis, decreasing, limit,
                                   f"in place {layout} axis={axis} decreasing={decreasing}")


# --------------------------------------------------------------------------
# 0-d and empty
# --------------------------------------------------------------------------
@pytest.mark.parametrize("op, flags", SCAN_FLAGS, ids=SCAN_FLAG_IDS)
def test_empty_and_0d(op, flags):
    indices = bool(flags.get("return_indices"))
    for dtype in ("float64", "int32", "bool"):
        rdt = result_dtype(op, dtype)
        for shape in ((0,), (0, 3), (3, 0)):
            e = np.zeros(shape, dtype)
            for axis in (None, 0, 1, -1)[: e.ndim + 1]:
                for lab in (np.zeros(shape, np.int64), 5, np.arange(shape[-1], dtype=np.uint64)):
                    got = getattr(simdscan, op)(e, axis, labels=lab, **flags)
                    want = np.zeros((0,) if axis is None else shape, rdt)
                    assert_same_values(got, (want, want.astype(np.intp)) if indices else want,
                                       f"{op} {dtype} shape={shape} axis={axis}")
        x = np.array(2, dtype=dtype)
        for lab in (0, I64_MAX, np.array(3, np.uint8)):
            for exclusive in (False, True):
                got = getattr(simdscan, op)(x, labels=lab, exclusive=exclusive, **flags)
                want = every_element_alone(op, x, None, exclusive, indices)
                if op == "logcumsumexp":
                    np.testing.assert_allclose(got, want, rtol=1e-13)
                else:
                    assert_same_values(got, want, f"{op} {dtype} 0-d")
    got = simdscan.ffill(np.array(NAN), labels=3)
    assert got.shape == (1,) and np.isnan(got[0])
    assert simdscan.ffill(np.zeros((0, 4)), 1, labels=np.zeros(4, np.int8)).shape == (0, 4)


# --------------------------------------------------------------------------
# threads: every thread count gives the same bits, over a million elements
# --------------------------------------------------------------------------
THREAD_COUNTS = (1, 2, 4)
THREAD_OPS = [("cumsum", {}), ("cumsum", {"compensated": True}), ("cumprod", {}),
              ("cummax", {"return_indices": True}), ("nancumsum", {}), ("logcumsumexp", {}), ("ffill", {})]
THREAD_OP_IDS = [op + "".join(f"-{k}" for k in flags) for op, flags in THREAD_OPS]
# (name, shape, axis, distinct labels per line)
THREAD_CASES = [("long_line", (1_100_000,), 0, 40), ("long_line_many_labels", (1_100_000,), None, 5000),
                ("few_long_lines", (3, 400_000), 1, 6), ("many_lines", (300, 4000), 1, 20),
                ("outer", (4000, 300), 0, 20)]


def _threaded_input(op, rng, shape):
    if op == "ffill":
        return fill_data(rng, shape, "float64", 0.3)
    if op == "cumprod":
        return 1 + 1e-3 * rng.uniform(-1, 1, shape)
    a = rng.standard_normal(shape)
    if op in ("nancumsum", "cummax"):
        a[rng.random(shape) < 1e-5] = NAN
    return a


@pytest.mark.threads
@pytest.mark.usefixtures("restore_thread_count")
@pytest.mark.parametrize("op, flags", THREAD_OPS, ids=THREAD_OP_IDS)
@pytest.mark.parametrize("case, shape, axis, count", THREAD_CASES, ids=[c[0] for c in THREAD_CASES])
def test_thread_count_does_not_change_a_bit(case, shape, axis, count, op, flags):
    """Inputs over a million elements, which the core's blocks and the thread pool split: long interleaved groups, a
    run of one label, groups of one element, huge label values; one thread's result is the reference's (one variant
    per case), and 2 and 4 threads give its bits."""
    rng = np.random.default_rng(seed_of("threads", case, op, *flags))
    a = _threaded_input(op, rng, shape)
    assert a.size > 1_000_000
    lab = huge(labels_of(rng, shape, count), np.uint64)
    lines = np.moveaxis(lab, 0 if axis is None else axis, -1)
    n = lines.shape[-1]
    lines[..., n // 3:n // 3 + n // 10] = 2**63 + 5  # a run of one label over blocks
    lines[..., n // 2:n // 2 + 100] = np.arange(100, dtype=np.uint64)  # groups of one element
    k = (THREAD_CASES.index((case, shape, axis, count)) + THREAD_OPS.index((op, flags))) % len(VARIANTS)
    variants = [VARIANTS[k], VARIANTS[(k + 1) % len(VARIANTS)]]
    for v, (decreasing, exclusive) in enumerate(variants):
        simdscan.set_num_threads(1)
        if op == "ffill":
            single = fill(a, axis, decreasing, limit=3 if exclusive else None, labels=lab)
        else:
            single = scan(op, a, axis, decreasing, exclusive, labels=lab, **flags)
        where = f"{op} {flags} {case} decreasing={decreasing} exclusive={exclusive}"
        # the reference (slow on arrays this size) checks one variant of every other case, in turn (and no compensated
        # one: the bound's exact arithmetic is too slow here, test_compensated_combines_with_labels checks it)
        if v == 0 and k % 2 == 0:
            if op == "ffill":
                check_grouped_fill(single, a, lab, axis, decreasing, 3 if exclusive else None, where)
            elif not flags.get("compensated"):
                check_grouped(single, op, a, lab, axis, decreasing, exclusive, where=where)
        for threads in THREAD_COUNTS[1:]:
            simdscan.set_num_threads(threads)
            if op == "ffill":
                got = fill(a, axis, decreasing, limit=3 if exclusive else None, labels=lab)
            else:
                got = scan(op, a, axis, decreasing, exclusive, labels=lab, **flags)
            if isinstance(single, tuple):
                assert_same_bits(got[0], single[0], f"{where}: {threads} threads vs 1")
                np.testing.assert_array_equal(got[1], single[1], err_msg=f"{where}: {threads} threads vs 1",
                                              strict=True)
            else:
                assert_same_bits(got, single, f"{where}: {threads} threads vs 1")


# --------------------------------------------------------------------------
# pandas
# --------------------------------------------------------------------------
def test_cumsum_matches_pandas_groupby():
    rng = np.random.default_rng(seed_of("pandas cumsum"))
    for n, count in ((1000, 1), (1000, 7), (10_000, 3000), (50_000, 50)):
        k = labels_of(rng, n, count)
        x = rng.uniform(0.5, 3.0, n)  # one sign: no cancellation, relative errors stay below 1e-12
        want = pd.Series(x).groupby(k).cumsum().to_numpy()
        np.testing.assert_allclose(simdscan.cumsum(x, labels=k), want, rtol=1e-12, atol=0)
        np.testing.assert_allclose(simdscan.nancumsum(x, labels=huge(k, np.uint64)), want, rtol=1e-12, atol=0)
        y = rng.uniform(-3.0, 3.0, n)  # both signs: within 1e-12 of the running sum of magnitudes
        scale = pd.Series(np.abs(y)).groupby(k).cumsum().to_numpy()
        got = simdscan.cumsum(y, labels=k)
        assert (np.abs(got - pd.Series(y).groupby(k).cumsum().to_numpy()) <= 1e-12 * scale).all()
        # bfill's mirror: the decreasing scan is pandas' on the reversed series
        want = pd.Series(x[::-1]).groupby(k[::-1]).cumsum().to_numpy()[::-1]
        np.testing.assert_allclose(simdscan.cumsum(x, labels=k, direction="decreasing"), want, rtol=1e-12, atol=0)


@pytest.mark.parametrize("dtype", ["int64", "int32", "float64", "uint8"])
def test_integer_scans_and_extrema_match_pandas_groupby(dtype):
    rng = np.random.default_rng(seed_of("pandas exact", dtype))
    n = 3000
    k = labels_of(rng, n, 80)
    x = rng.integers(0 if dtype == "uint8" else -50, 50, n).astype(dtype)
    s = pd.Series(x).groupby(k)
    for name, want in (("cummax", s.cummax()), ("cummin", s.cummin()), ("nancummax", s.cummax()),
                       ("nancummin", s.cummin()), ("cumsum", s.cumsum())):
        got = getattr(simdscan, name)(x, labels=k)
        np.testing.assert_array_equal(got, want.to_numpy().astype(dtype), err_msg=f"{name} {dtype}", strict=True)
    p = rng.choice(np.array([-2, -1, 1, 2]), n)  # groups of about 40: products within 2**53
    want = pd.Series(p).groupby(k).cumprod().to_numpy()
    np.testing.assert_array_equal(simdscan.cumprod(p, labels=k), want.astype(np.int64), strict=True)


@pytest.mark.parametrize("limit", [None, 1, 2, 5])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_ffill_and_bfill_match_pandas_groupby(dtype, limit):
    rng = np.random.default_rng(seed_of("pandas ffill", dtype, limit))
    for n, count, density in ((500, 3, 0.5), (500, 40, 0.2), (5000, 1000, 0.7), (500, 1, 0.9)):
        x = fill_data(rng, n, dtype, density)
        x[:3] = NAN
        k = labels_of(rng, n, count)
        g = pd.Series(x).groupby(k)
        np.testing.assert_array_equal(simdscan.ffill(x, limit=limit, labels=k), g.ffill(limit=limit).to_numpy(),
                                      err_msg=f"ffill {dtype} {n} {count} {limit}")
        np.testing.assert_array_equal(simdscan.ffill(x, direction="decreasing", limit=limit, labels=k),
                                      g.bfill(limit=limit).to_numpy(), err_msg=f"bfill {dtype} {n} {count} {limit}")


# --------------------------------------------------------------------------
# errors: the input, the labels and out untouched
# --------------------------------------------------------------------------
def _raises_leaving_alone(exc_type, fn, a, labels, **kw):
    snaps = [(x, snapshot(x), what) for x, what in ((a, "input"), (labels, "labels"), (kw.get("reset"), "reset"))
             if isinstance(x, np.ndarray)]
    out = kw.get("out")
    for x in out if isinstance(out, tuple) else (out,):
        if isinstance(x, np.ndarray):
            snaps.append((x, snapshot(x), "out"))
    with pytest.raises(exc_type):
        getattr(simdscan, fn)(a, labels=labels, **kw)
    for x, snap, what in snaps:
        assert_unchanged(x, snap, what)


BAD_VALUES = [
    ("-1", np.array([0, -1, 0, 1])),
    ("-128 int8", np.array([0, 1, -128, 1], np.int8)),
    ("int64 min", np.array([0, 1, 2, -2**63], np.int64)),
    ("-1 in a list", [0, 0, -1, 0]),
    ("-1 scalar", -1),
    ("-5 0-d int16", np.int16(-5)),
    ("-1 last, reversed", np.array([0, 1, 2, -1])[::-1].copy()[::-1]),
]
BAD_DTYPES = [
    ("bool", np.array([False, True, False, True])),
    ("bool scalar", True),
    ("float64", np.array([0.0, 1.0, 0.0, 1.0])),
    ("float32 whole", np.array([0, 1, 2, 3], np.float32)),
    ("float16", np.array([0, 1, 0, 1], np.float16)),
    ("float list", [0.0, 1.0, 0.0, 1.0]),
    ("float scalar", 1.0),
    ("complex", np.array([0, 1, 0, 0], np.complex128)),
    ("str", np.array(["0", "1", "0", "0"])),
    ("object", np.array([0, 1, 0, 1], dtype=object)),
    ("datetime", np.array([0, 1, 0, 1], "datetime64[s]")),
]
BAD_SHAPES = [("(3,)", np.zeros(3, np.int64)), ("(5,)", np.zeros(5, np.int64)), ("(2, 4)", np.zeros((2, 4), np.int64)),
              ("(4, 1)", np.zeros((4, 1), np.int64)), ("empty", np.zeros(0, np.int64))]


def _inputs(fn):
    """An input of shape (4,) (with NaNs for ffill) and an out for it."""
    a = np.array([1.0, NAN, 3.0, 4.0]) if fn == "ffill" else np.array([1.0, 2.0, 3.0, 4.0])
    return a, np.full(4, 7.0)


@pytest.mark.parametrize("name, labels", BAD_VALUES, ids=[n for n, _ in BAD_VALUES])
@pytest.mark.parametrize("fn", ALL_FUNCTIONS)
def test_negative_labels_are_value_errors(fn, name, labels):
    a, out = _inputs(fn)
    _raises_leaving_alone(ValueError, fn, a, labels)
    _raises_leaving_alone(ValueError, fn, a, labels, out=out)
    _raises_leaving_alone(ValueError, fn, a, labels, out=a)  # in place: a stays as it was
    if fn in ("cummax", "cummin"):
        _raises_leaving_alone(ValueError, fn, a, labels, return_indices=True, out=(out, np.full(4, 9, np.intp)))
    if fn in ("cumsum", "nancumsum"):
        _raises_leaving_alone(ValueError, fn, a, labels, compensated=True, out=out)


BAD_KINDS = [(TypeError, name, labels) for name, labels in BAD_DTYPES] + [(ValueError, name, labels)
                                                                        for name, labels in BAD_SHAPES]


@pytest.mark.parametrize("error, name, labels", BAD_KINDS, ids=[n for _, n, _ in BAD_KINDS])
@pytest.mark.parametrize("fn", ALL_FUNCTIONS)
def test_labels_of_another_dtype_or_shape(fn, error, name, labels):
    """Labels neither signed nor unsigned integers (bool and float included): TypeError; shapes that do not
    broadcast to the input's: ValueError."""
    a, out = _inputs(fn)
    _raises_leaving_alone(error, fn, a, labels)
    _raises_leaving_alone(error, fn, a, labels, out=out)
    _raises_leaving_alone(error, fn, a, labels, out=a)


@pytest.mark.parametrize("fn", ALL_FUNCTIONS)
def test_labels_must_broadcast_to_the_input_not_to_the_result(fn):
    a = np.arange(1.0, 7.0).reshape(2, 3)
    kw = {"axis": 1} if fn in CUMULATIVE else {}
    # axis=None: the result is 1-D of 6 elements, the labels still have a's shape
    _raises_leaving_alone(ValueError, fn, a, np.zeros(6, np.int64), **kw)
    _raises_leaving_alone(ValueError, fn, a, np.zeros((3, 2), np.int64), **kw)
    if fn in CUMULATIVE:  # include_initial: the result is one longer, the labels are not
        _raises_leaving_alone(ValueError, fn, a, np.zeros((2, 4), np.int64), axis=1, include_initial=True,
                              out=np.full((2, 4), 7.0))
        got = getattr(simdscan, fn)(a, axis=1, include_initial=True, labels=np.array([[0, 1, 0], [0, 0, 1]]))
        want = [[0, 1, 2, 4], [0, 4, 9, 6]] if fn == "cumulative_sum" else [[1, 1, 2, 3], [1, 4, 20, 6]]
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("fn", ALL_FUNCTIONS)
def test_reset_and_labels_together_are_a_value_error(fn):
    a, out = _inputs(fn)
    for reset in (np.array([0, 1, 0, 0], bool), np.zeros(4, bool), False, True):
        _raises_leaving_alone(ValueError, fn, a, np.array([0, 1, 0, 1]), reset=reset)
        _raises_leaving_alone(ValueError, fn, a, np.array([0, 1, 0, 1]), reset=reset, out=out)
        _raises_leaving_alone(ValueError, fn, a, 0, reset=reset, out=a)


@pytest.mark.parametrize("axis", [(0, 1), (1, 0), (1,)])
@pytest.mark.parametrize("op", SCAN_NAMES)
def test_tuple_axis_with_labels_is_a_value_error(op, axis):
    a = np.arange(1.0, 13.0).reshape(3, 4)
    lab = np.arange(12).reshape(3, 4) % 3
    _raises_leaving_alone(ValueError, op, a, lab, axis=axis)
    _raises_leaving_alone(ValueError, op, a, lab, axis=axis, out=np.full((3, 4), 7.0))
    _raises_leaving_alone(ValueError, op, a, 0, axis=axis)
    if BY_NAME[op].compensated:
        _raises_leaving_alone(ValueError, op, a, lab, axis=axis, compensated=True)
    assert getattr(simdscan, op)(a, axis=axis).shape == (3, 4)  # without labels the tuple axis still works


@pytest.mark.parametrize("op, flags", SCAN_FLAGS + [("ffill", {})], ids=SCAN_FLAG_IDS + ["ffill"])
def test_errors_leave_2d_inputs_alone(op, flags):
    """The labels are checked before anything is written, whatever the layout of the input and of out: a negative
    label at the very last element in either order."""
    rng = np.random.default_rng(seed_of("errors 2-D", op, *flags))
    a = np.asfortranarray(fill_data(rng, (5, 60), "float32", 0.3) if op == "ffill" else data(op, rng, (5, 60),
                                                                                              "float32"))
    bad = labels_of(rng, a.shape, 40)
    bad[4, 59] = -1
    bad[0, 0] = 2**40
    rdt = np.dtype(np.float32) if op == "ffill" else result_dtype(op, a.dtype)
    for axis in (0, 1, None):
        shape = a.shape if axis is not None else (a.size,)
        out = np.full(shape, 7, rdt)[::-1]
        target = (out, np.full(shape, 9, np.intp)) if flags.get("return_indices") else out
        for direction in ("increasing", "decreasing"):
            _raises_leaving_alone(ValueError, op, a, bad, axis=axis, direction=direction, out=target, **flags)
            reversed_bad = np.ascontiguousarray(bad[::-1, ::-1])[::-1, ::-1]  # the same values, negative strides
            _raises_leaving_alone(ValueError, op, a, reversed_bad, axis=axis, direction=direction, **flags)
        if axis is not None and not flags:
            _raises_leaving_alone(ValueError, op, a, bad, axis=axis, out=a)


# --------------------------------------------------------------------------
# properties
# --------------------------------------------------------------------------
def _pool(op, dtype, compensated=False):
    """Elements for the property tests: the dtype's own for integers and bool, else a few values with NaN and
    infinities and signed zeros (none for complex products, which the bounds do not take, and none for compensated
    sums, whose bound takes finite input only), magnitude 1 and 2 for products so that no group overflows."""
    dt = np.dtype(dtype)
    if dt.kind in "biu":
        return hnp.from_dtype(dt)
    product = op.endswith("prod")
    finite = [-1.0, 1.0, -0.0, 0.0, 2.0, -0.5] if product else [-3.0, -1.5, -0.0, 0.0, 0.5, 1.0, 1.25, 2.0]
    special = [] if compensated else [NAN, np.inf, -np.inf]
    if dt.kind == "c":  # complex products: magnitude 1, which no group overflows (the bound takes finite results)
        finite = [-1.0, 1.0, -0.0, 0.0] if product else finite
        return st.builds(complex, st.sampled_from(finite), st.sampled_from(finite + ([] if product else special)))
    return st.sampled_from(finite + special)


@st.composite
def label_arrays(draw, shape):
    """Labels of ``shape``: few or many distinct, small or huge (int64 near its top, uint64 above 2**63)."""
    count = draw(st.sampled_from([1, 2, 3, 10, 1000]), label="distinct")
    lab = draw(hnp.arrays(np.int64, shape, elements=st.integers(0, count - 1)), label="labels")
    spelling = draw(st.sampled_from(["int64", "uint8", "huge", "huge uint64", "int16"]), label="spelling")
    if spelling in ("huge", "huge uint64"):
        return huge(lab, np.uint64 if spelling == "huge uint64" else np.int64)
    return lab.astype(spelling) if spelling != "uint8" or count <= 256 else lab


@given(data_=st.data())
def test_any_shape_axis_and_labels_match_the_reference(data_):
    draw = data_.draw
    op, flags = draw(st.sampled_from(SCAN_FLAGS), label="scan, flags")
    comp = bool(flags.get("compensated"))
    dtype = draw(st.sampled_from([d for d in SUPPORTED_DTYPES if BY_NAME[op].takes(d)]), label="dtype")
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=9), label="shape")
    a = draw(hnp.arrays(dtype, shape, elements=_pool(op, dtype, comp)), label="a")
    axis = draw(st.sampled_from([None, *range(a.ndim), -1]), label="axis")
    lab = draw(label_arrays(shape), label="labels")
    if draw(st.booleans(), label="broadcast labels") and a.ndim > 1 and a.size:
        lab = lab[(0,) * (a.ndim - 1)] if draw(st.booleans()) else lab[..., :1]
    decreasing, exclusive = draw(st.booleans(), label="decreasing"), draw(st.booleans(), label="exclusive")
    got = scan(op, a, axis, decreasing, exclusive, labels=lab, **flags)
    check_grouped(got, op, a, lab, axis, decreasing, exclusive, compensated=comp)


@given(data_=st.data())
def test_each_group_is_its_own_scan_1d(data_):
    """On a 1-D line of integers or bool, for every scan and flag but the floating ones: each group's outputs are
    simdscan's scan of the group gathered as an array of its own (indices mapped back to positions)."""
    draw = data_.draw
    op, flags = draw(st.sampled_from([(o, f) for o, f in SCAN_FLAGS if o != "logcumsumexp"]), label="scan, flags")
    dtype = draw(st.sampled_from([d for d in INT_DTYPES + [np.dtype(bool)]]), label="dtype")
    n = draw(st.integers(0, 60), label="n")
    a = draw(hnp.arrays(dtype, n), label="a")
    lab = draw(label_arrays(n), label="labels")
    decreasing, exclusive = draw(st.booleans(), label="decreasing"), draw(st.booleans(), label="exclusive")
    got = scan(op, a, None, decreasing, exclusive, labels=lab, **flags)
    for pos in line_groups(label_lines(lab, a.shape, None)[0]):
        note(f"group at {pos.tolist()}")
        alone = scan(op, a[pos], None, decreasing, exclusive, **flags)
        if isinstance(alone, tuple):
            assert_same_values(got[0][pos], alone[0], f"{op} group values")
            np.testing.assert_array_equal(got[1][pos], np.where(alone[1] >= 0, pos[alone[1]], -1))
        else:
            assert_same_values(got[pos], alone, f"{op} group")


@given(data_=st.data())
def test_ffill_any_array_matches_the_reference(data_):
    draw = data_.draw
    dtype = draw(st.sampled_from(FILLED), label="dtype")
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=9), label="shape")
    pool = [NAN, NAN, NAN, 0.0, -0.0, 1.0, -2.5, np.inf, 3.0]
    if dtype.kind == "c":
        pool = pool + [complex(NAN, 1.0), complex(-0.0, NAN), complex(2.0, -0.0)]
    a = draw(hnp.arrays(dtype, shape, elements=st.sampled_from(pool)), label="a")
    axis = draw(st.sampled_from(all_axes(a.ndim) if a.ndim else [None, 0, -1]), label="axis")
    decreasing = draw(st.booleans(), label="decreasing")
    limit = draw(st.none() | st.integers(1, 6), label="limit")
    lab = draw(label_arrays(shape), label="labels")
    use_out = draw(st.booleans(), label="out")
    out = np.full(result_shape(a, axis), 7, a.dtype) if use_out else None
    got = fill(a, axis, decreasing, limit=limit, labels=lab, out=out)
    if use_out:
        assert got is out
    check_grouped_fill(got, a, lab, axis, decreasing, limit)
