"""Hypothesis property tests: random dtype, shape (up to 4 dims, sides
0..12), axis, direction, exclusive and layout, checked against the
NumPy-only oracle.  Float data is finite and bounded so the rounding-error
bound is meaningful (non-finite values have explicit tests in
test_semantics.py).  Profiles: see conftest.py (HYPOTHESIS_PROFILE)."""

import math

import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import simdscan
from reference import (
    OPS,
    SUPPORTED_DTYPES,
    apply_layout,
    assert_unchanged,
    check_scan,
    check_values,
    expected,
    result_dtype,
    snapshot,
)
from params import DIRECTIONS

pytestmark = pytest.mark.kernels  # the outcome depends on the ISA tier and the xsimd version: CI runs these per tier

LAYOUTS = ["none", "transpose", "flip", "step", "fortran", "byteswap", "readonly", "broadcast"]
# magnitude budget (in powers of two) of a whole product line, per float type
_PROD_EXP_BUDGET = {2: 10.0, 4: 100.0, 8: 800.0}


def _component(dtype):
    return np.dtype(f"f{dtype.itemsize // 2}") if dtype.kind == "c" else dtype


def _representable_toward_one(x, dt):
    """x rounded to dt, moved toward 1.0 if rounding moved it away."""
    v = np.array(x, dtype=dt)
    if (x < 1 and v < x) or (x > 1 and v > x):
        v = np.nextafter(v, np.array(1, dt))
    return float(v)


@st.composite
def float_part(draw, comp, shape, op, n):
    """Finite real data of component dtype ``comp``."""
    width = comp.itemsize * 8
    if op == "cumsum":
        bound = 100.0
        if comp == np.float16:  # keep every prefix sum below float16's max
            bound = min(bound, 2.0 ** math.floor(math.log2(60000.0 / n)))
        elems = st.floats(-bound, bound, allow_nan=False, allow_infinity=False, width=width)
        return draw(hnp.arrays(comp, shape, elements=elems))
    k = min(1.0, _PROD_EXP_BUDGET[comp.itemsize] / n)
    lo = _representable_toward_one(2.0**-k, comp)
    hi = _representable_toward_one(2.0**k, comp)
    mags = draw(hnp.arrays(comp, shape, elements=st.floats(lo, hi, width=width)
                           | st.just(0.0)))
    signs = draw(hnp.arrays(np.bool_, shape))
    return np.where(signs, -mags, mags).astype(comp)


@st.composite
def input_arrays(draw, op, dtypes=SUPPORTED_DTYPES, small_ints=False):
    dtype = draw(st.sampled_from(dtypes))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=12))
    n = max(1, int(np.prod(shape)))
    if dtype == np.bool_:
        return draw(hnp.arrays(dtype, shape))
    if dtype.kind in "iu":
        if small_ints and op == "cumprod":
            # cast targets include float16: keep every product finite
            elems = st.integers(0 if dtype.kind == "u" else -1, 1)
        elif small_ints or draw(st.booleans()):
            elems = st.integers(0 if dtype.kind == "u" else -3, 3)
        else:
            info = np.iinfo(dtype)
            elems = st.integers(int(info.min), int(info.max))
        return draw(hnp.arrays(dtype, shape, elements=elems))
    comp = _component(dtype)
    if dtype.kind == "f":
        return draw(float_part(comp, shape, op, n))
    if op == "cumsum":
        re = draw(float_part(comp, shape, op, n))
        im = draw(float_part(comp, shape, op, n))
        z = np.empty(shape, dtype)
        z.real, z.imag = re, im
        return z
    # complex products: polar form, magnitudes as for real products
    mags = np.abs(draw(float_part(comp, shape, op, n))).astype(np.float64)
    theta = draw(hnp.arrays(np.float64, shape, elements=st.floats(-math.pi, math.pi)))
    return (mags * np.exp(1j * theta)).astype(dtype)


def transform(a, layout):
    if layout == "none":
        return a
    if layout == "transpose":
        return a.T
    if layout == "flip":
        return a[(slice(None, None, -1),) * a.ndim]
    if layout == "step":
        return apply_layout(a, "stepped")
    if layout == "fortran":
        return np.asfortranarray(a)
    if layout == "byteswap":
        return a.astype(a.dtype.newbyteorder("S"))
    if layout == "readonly":
        return apply_layout(a, "readonly")
    if layout == "broadcast":
        return apply_layout(a, "broadcast")
    raise AssertionError(layout)


def _axis(ndim):
    m = max(ndim, 1)
    return st.none() | st.integers(-m, m - 1)


@st.composite
def scan_cases(draw, ops=OPS, **kw):
    op = draw(st.sampled_from(ops))
    a = transform(draw(input_arrays(op, **kw)), draw(st.sampled_from(LAYOUTS)))
    axis = draw(_axis(a.ndim))
    direction, decreasing = draw(st.sampled_from(DIRECTIONS))
    exclusive = draw(st.booleans())
    return op, a, axis, direction, decreasing, exclusive


@given(scan_cases())
def test_matches_oracle(case):
    op, a, axis, direction, decreasing, exclusive = case
    note(f"{op} dtype={a.dtype} shape={a.shape} strides={a.strides} axis={axis} "
         f"direction={direction!r} exclusive={exclusive}")
    snap = snapshot(a)
    got = getattr(simdscan, op)(a, axis, direction=direction, exclusive=exclusive)
    check_scan(got, op, a, axis, decreasing, exclusive)
    assert not np.shares_memory(got, a)
    assert_unchanged(a, snap)


@given(scan_cases(), st.sampled_from(["inplace", "strided", "reversed", "fortran"]))
def test_out_matches_oracle(case, mode):
    op, a, axis, direction, decreasing, exclusive = case
    rdt = result_dtype(a.dtype)
    rshape = (a.size,) if axis is None else (a.shape or (1,))
    copy = a.copy()
    exp = expected(op, copy, axis, decreasing, exclusive)
    if mode == "inplace" and a.flags.writeable and a.dtype == rdt and a.shape == rshape:
        out = a
    elif mode == "reversed":
        out = np.zeros(rshape, rdt)[(slice(None, None, -1),) * len(rshape)]
    elif mode == "fortran":
        out = np.zeros(rshape, rdt, order="F")
    else:
        out = np.zeros(rshape[:-1] + (2 * rshape[-1],), rdt)[..., ::2]
    note(f"{op} dtype={a.dtype} shape={a.shape} axis={axis} direction={direction!r} "
         f"exclusive={exclusive} out strides={out.strides} in place={out is a}")
    got = getattr(simdscan, op)(a, axis, direction=direction, exclusive=exclusive, out=out)
    assert got is out
    check_values(out, exp)
    if out is not a:
        np.testing.assert_array_equal(a, copy, strict=True)


CAST_SOURCES = [np.dtype(d) for d in ("bool", "int8", "uint8", "int16", "int32", "int64")]
CAST_TARGETS = [d for d in SUPPORTED_DTYPES if d != np.bool_]


@given(scan_cases(dtypes=CAST_SOURCES, small_ints=True), st.sampled_from(CAST_TARGETS))
def test_dtype_argument_matches_oracle(case, dtype):
    op, a, axis, direction, decreasing, exclusive = case
    got = getattr(simdscan, op)(a, axis, direction=direction, exclusive=exclusive, dtype=dtype)
    assert got.dtype == dtype
    check_scan(got, op, a, axis, decreasing, exclusive, dtype=dtype)


@given(scan_cases(ops=("cumsum",)))
def test_decreasing_is_flipped_increasing(case):
    """Metamorphic: the decreasing scan equals the flipped increasing scan of
    the flipped input (exactly for integers, within the bound for floats)."""
    op, a, axis, _, _, exclusive = case
    flat = a.reshape(-1) if axis is None else (a.reshape(1) if a.ndim == 0 else a)
    ax = 0 if axis is None else axis
    dec = simdscan.cumsum(flat, ax, direction="decreasing", exclusive=exclusive)
    inc = simdscan.cumsum(np.flip(flat, ax), ax, exclusive=exclusive)
    if a.dtype.kind in "iub":
        np.testing.assert_array_equal(dec, np.flip(inc, ax), strict=True)
    else:
        check_scan(dec, op, flat, ax, True, exclusive)
        check_scan(np.flip(inc, ax), op, flat, ax, True, exclusive)


@st.composite
def overlapping_views_1d(draw):
    n = draw(st.integers(0, 40))
    steps = st.sampled_from([1, 2, 3, -1, -2])
    sa, so = draw(steps), draw(steps)
    size = 4 * n * 3 + 8
    def view(buf, step, start):
        if step > 0:
            return buf[start:start + n * step:step]
        stop = start + n * step
        return buf[start:(stop if stop >= 0 else None):step]
    span = lambda step: (n - 1) * abs(step) if n else 0
    def start_for(step):
        lo = span(step) if step < 0 else 0
        hi = size - 1 - (0 if step < 0 else span(step))
        return draw(st.integers(lo, max(lo, hi)))
    return size, (sa, start_for(sa)), (so, start_for(so)), view


@given(overlapping_views_1d(), st.sampled_from(OPS), st.sampled_from(DIRECTIONS), st.booleans(),
       st.sampled_from([np.dtype(d) for d in ("float64", "int32", "int8", "complex64", "float16")]))
def test_random_overlap_1d(views, op, direction, exclusive, dtype):
    """Random (partly) overlapping input/out views of one buffer: the result
    equals the scan of a copy of the input, and nothing outside out changes."""
    size, (sa, ia), (so, io), view = views
    idx = np.arange(size)
    a_idx, o_idx = view(idx, sa, ia), view(idx, so, io)
    assert a_idx.shape == o_idx.shape
    direction, decreasing = direction
    buf = (np.arange(size) % 5 + 1).astype(dtype)  # small values: exact in every dtype
    if op == "cumprod":
        buf = (np.arange(size) % 3 - 1).astype(dtype) if dtype.kind != "f" else (
            np.where(np.arange(size) % 2 == 0, 1.0, -1.0).astype(dtype))
    original = buf.copy()
    a, out = view(buf, sa, ia), view(buf, so, io)
    exp = expected(op, a.copy(), None, decreasing, exclusive)
    note(f"a = buf[{ia}::{sa}] out = buf[{io}::{so}] n={a.shape[0]}")
    assert getattr(simdscan, op)(a, direction=direction, exclusive=exclusive, out=out) is out
    check_values(out, exp)
    untouched = np.ones(size, bool)
    untouched[o_idx] = False
    np.testing.assert_array_equal(buf[untouched], original[untouched])


@st.composite
def overlapping_views_2d(draw):
    h, w = draw(st.integers(0, 8)), draw(st.integers(0, 8))
    orient = draw(st.sampled_from(["same", "transposed", "flipped", "both"]))
    R = C = 2 * max(h, w, 1) + 2
    ra, ca = draw(st.integers(0, R - h)), draw(st.integers(0, C - w))
    if orient in ("transposed", "both"):
        rb, cb = draw(st.integers(0, R - w)), draw(st.integers(0, C - h))
    else:
        rb, cb = draw(st.integers(0, R - h)), draw(st.integers(0, C - w))
    def a_view(buf):
        return buf[ra:ra + h, ca:ca + w]
    def o_view(buf):
        if orient == "same":
            return buf[rb:rb + h, cb:cb + w]
        if orient == "flipped":
            return buf[rb:rb + h, cb:cb + w][::-1, ::-1]
        v = buf[rb:rb + w, cb:cb + h].T
        return v[::-1] if orient == "both" else v
    return (R, C), a_view, o_view, f"{orient} a@({ra},{ca}) out@({rb},{cb}) {h}x{w}"


@given(overlapping_views_2d(), st.sampled_from(OPS), st.sampled_from(DIRECTIONS), st.booleans(),
       st.integers(0, 1), st.sampled_from([np.dtype(d) for d in ("float64", "int64", "uint8", "float32")]))
def test_random_overlap_2d(views, op, direction, exclusive, axis, dtype):
    shape, a_view, o_view, desc = views
    direction, decreasing = direction
    size = shape[0] * shape[1]
    idx = np.arange(size).reshape(shape)
    buf = (np.arange(size) % 3 + 1).astype(dtype).reshape(shape)
    original = buf.copy()
    a, out = a_view(buf), o_view(buf)
    exp = expected(op, a.copy(), axis, decreasing, exclusive)
    note(desc)
    assert getattr(simdscan, op)(a, axis, direction=direction, exclusive=exclusive, out=out) is out
    check_values(out, exp)
    untouched = np.ones(size, bool)
    untouched[o_view(idx).ravel()] = False
    untouched = untouched.reshape(shape)
    np.testing.assert_array_equal(buf[untouched], original[untouched])
