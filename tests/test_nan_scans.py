"""nancumsum / nancumprod: NaN (either part of a complex) counts as 0 / 1, as numpy.nancumsum / nancumprod, with
simdscan.cumsum's dtype rules (dtype kept, float16 accumulated in float32, bool to the default integer). Checked
by cumsum / cumprod's oracle (reference.py) on the input with its NaNs replaced, as NumPy's functions replace
them, for every dtype, direction, exclusive, axis, layout, kernel path, out= and in place; and bit for bit
against numpy.nancumsum / nancumprod where every partial result is exact."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import simdscan
from data import make_data, scan_data, seed_of, spread_values
from exact_sums import check_compensated
from params import check_cases, check_in_place, scan, scan_cases, stepped_reversed_out
from family_reference import NAN_OPS, VARIANTS, assert_same_bits, expected_nan_scan, nan_as_identity
from reference import (
    DEFAULT_INT,
    LAYOUTS,
    PATHS,
    SUPPORTED_DTYPES,
    apply_layout,
    check_values,
    native,
)

pytestmark = pytest.mark.kernels  # the outcome depends on the ISA tier and the xsimd version: CI runs these per tier

BASE = {"nancumsum": "cumsum", "nancumprod": "cumprod"}
NUMPY = {"nancumsum": np.nancumsum, "nancumprod": np.nancumprod}
DT_IDS = [d.name for d in SUPPORTED_DTYPES]


def with_nans(rng, a, p):
    """``a`` with NaNs at probability ``p`` (floating and complex; complex: in the real part, the imaginary
    part or both)."""
    a = np.array(a, copy=True)
    if a.dtype.kind == "f":
        a[rng.random(a.shape) < p] = np.nan
    elif a.dtype.kind == "c":
        hit = rng.random(a.shape) < p
        part = rng.integers(0, 3, size=a.shape)
        a[hit & (part == 0)] = complex(np.nan, 1.0)
        a[hit & (part == 1)] = complex(0.5, np.nan)
        a[hit & (part == 2)] = complex(np.nan, np.nan)
    return a


def nan_data(op, shape, dtype, p, *key):
    rng = np.random.default_rng(seed_of("nan", op, shape, str(dtype), *key))
    return with_nans(rng, make_data(rng, shape, np.dtype(dtype), BASE[op]), p)


def check(got, op, a, axis=None, decreasing=False, exclusive=False, dtype=None, msg=""):
    """Type, dtype, shape and values of a NaN-skipping scan (cumsum / cumprod's oracle of the NaN-free input)."""
    exp = expected_nan_scan(op, a, axis, decreasing, exclusive, dtype)
    where = msg or (f"{op}(shape={np.shape(a)}, in dtype={np.asarray(a).dtype}, axis={axis}, "
                    f"decreasing={decreasing}, exclusive={exclusive}, dtype={dtype})")
    assert isinstance(got, np.ndarray), f"{where}: returned {type(got)!r}"
    assert native(got.dtype) == exp.dtype, f"{where}: dtype {got.dtype}, expected {exp.dtype}"
    check_values(got, exp, where)


# --------------------------------------------------------------------------
# by hand, and NumPy's own functions
# --------------------------------------------------------------------------
def test_by_hand():
    nan = np.nan
    x = np.array([1.0, nan, 2.0, nan, 4.0])
    np.testing.assert_array_equal(simdscan.nancumsum(x), [1, 1, 3, 3, 7])
    np.testing.assert_array_equal(simdscan.nancumsum(x, exclusive=True), [0, 1, 1, 3, 3])
    np.testing.assert_array_equal(simdscan.nancumsum(x, direction="decreasing"), [7, 6, 6, 4, 4])
    np.testing.assert_array_equal(simdscan.nancumsum(x, direction="decreasing", exclusive=True), [6, 6, 4, 4, 0])
    np.testing.assert_array_equal(simdscan.nancumprod(x), [1, 1, 2, 2, 8])
    np.testing.assert_array_equal(simdscan.nancumprod(x, exclusive=True), [1, 1, 1, 2, 2])
    np.testing.assert_array_equal(simdscan.nancumprod(x, direction="decreasing", exclusive=True), [8, 8, 4, 4, 1])
    np.testing.assert_array_equal(simdscan.nancumsum([nan, nan]), [0, 0])
    np.testing.assert_array_equal(simdscan.nancumprod([nan, nan]), [1, 1])
    c = np.array([1 + 1j, complex(nan, 2), complex(3, nan), 2 - 1j])
    np.testing.assert_array_equal(simdscan.nancumsum(c), [1 + 1j, 1 + 1j, 1 + 1j, 3 + 0j])
    np.testing.assert_array_equal(simdscan.nancumprod(c), [1 + 1j, 1 + 1j, 1 + 1j, 3 + 1j])


def _exact_data(op, rng, shape, dtype):
    """Values whose every partial sum / product is exact in ``dtype``: small integers / powers of two."""
    if op == "nancumsum":
        v = rng.integers(-4, 5, size=shape).astype(np.float64)
    else:
        v = np.exp2(rng.integers(-1, 2, size=shape)) * rng.choice([-1.0, 1.0], size=shape)
    if np.dtype(dtype).kind == "c":
        v = v + 1j * (rng.integers(-4, 5, size=shape) if op == "nancumsum" else 0)
    return with_nans(rng, v.astype(dtype), 0.2)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("op", NAN_OPS)
def test_bit_for_bit_numpy_on_exact_data(op, dtype):
    """Where no partial result rounds, simdscan's increasing inclusive scan is numpy.<op>'s, bit for bit, and the
    other variants are its flips and shifts."""
    rng = np.random.default_rng(seed_of("exact", op, dtype))
    # products of factors in {1/2, 1, 2}: 12 of them stay inside float16's range, 60 inside float32's
    n = 3000 if op == "nancumsum" else 12 if dtype == "float16" else 60
    for shape, axis in (((n,), 0), ((7, n), 1), ((n, 5), 0)):
        a = _exact_data(op, rng, shape, dtype)
        want = NUMPY[op](a, axis=axis)
        assert want.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(scan(op, a, axis), want)
        got = scan(op, a, axis, True, True)
        ident = 0 if op == "nancumsum" else 1
        flipped = np.flip(NUMPY[op](np.flip(a, axis), axis=axis), axis)
        shifted = np.concatenate([np.take(flipped, np.arange(1, shape[axis]), axis=axis),
                                  np.full(np.take(flipped, [0], axis=axis).shape, ident, dtype=dtype)], axis=axis)
        np.testing.assert_array_equal(got, shifted)


@pytest.mark.parametrize("op", NAN_OPS)
def test_the_oracle_is_numpys(op):
    """The oracle's replacement of NaN is NumPy's: numpy.<op> of the input = the plain scan of the replaced one."""
    a = nan_data(op, (40, 30), "complex128", 0.2)
    np.testing.assert_array_equal(NUMPY[op](a, axis=1), getattr(np, BASE[op])(nan_as_identity(op, a), axis=1))


@pytest.mark.parametrize("dtype", [d for d in SUPPORTED_DTYPES if d.kind not in "fc"], ids=lambda d: d.name)
@pytest.mark.parametrize("op", NAN_OPS)
def test_integers_and_bool_as_the_plain_scan(op, dtype):
    """No NaN in integers: the plain scan's result, dtype included (int8 stays int8, bool gives the default int)."""
    a = make_data(np.random.default_rng(seed_of("ints", op, dtype.name)), (9, 70), dtype, BASE[op])
    for axis in (None, 0, 1):
        for dec, exc in VARIANTS:
            got = scan(op, a, axis, dec, exc)
            assert got.dtype == (DEFAULT_INT if dtype == np.bool_ else dtype)
            assert_same_bits(got, scan(BASE[op], a, axis, dec, exc), f"{op} {dtype} axis={axis}")


def test_float16_accumulates_in_float32():
    ones = np.ones(8192, dtype=np.float16)
    ones[1::2] = np.nan
    r = simdscan.nancumsum(ones)
    assert r.dtype == np.float16 and r[-1] == 4096  # a float16 running sum would stall at 2048
    assert simdscan.nancumsum(ones, direction="decreasing")[0] == 4096


@pytest.mark.parametrize("op", NAN_OPS)
def test_all_nan_lines_give_the_identity(op):
    ident = 0 if op == "nancumsum" else 1
    for dtype in ("float16", "float32", "float64", "complex64", "complex128"):
        a = np.full((3, 37), np.nan, dtype=dtype)
        for axis in (0, 1, None):
            for exc in (False, True):
                got = scan(op, a, axis, True, exc)
                assert got.dtype == np.dtype(dtype)
                np.testing.assert_array_equal(got, np.full(got.shape, ident, dtype=dtype))


@pytest.mark.parametrize("op", NAN_OPS)
def test_infinities_still_count(op):
    inf, nan = np.inf, np.nan
    a = np.array([1.0, nan, inf, nan, 2.0, -inf, nan])
    for dec, exc in VARIANTS:
        check(scan(op, a, 0, dec, exc), op, a, 0, dec, exc)


# --------------------------------------------------------------------------
# every dtype, axis, direction, layout, kernel path
# --------------------------------------------------------------------------
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", SUPPORTED_DTYPES, ids=DT_IDS)
@pytest.mark.parametrize("op", NAN_OPS)
def test_every_layout_axis_direction(op, dtype, layout):
    a = apply_layout(nan_data(op, (4, 5, 6), dtype, 0.2, layout), layout)
    check_cases(a, scan_cases(3), getattr(simdscan, op),
                lambda got, axis, dec, exc, where: check(got, op, a, axis, dec, exc, msg=where),
                f"{op} {dtype} {layout}")


KERNEL_PATHS = PATHS["kernels"] + PATHS["exact"]


@pytest.mark.parametrize("path", KERNEL_PATHS, ids=[p.name for p in KERNEL_PATHS])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("op", NAN_OPS)
def test_kernel_paths(op, dtype, path):
    rng = np.random.default_rng(seed_of("nan paths", op, dtype, path.name))
    a, axis = path.build(lambda shape: with_nans(rng, scan_data(rng, shape, dtype, BASE[op]), 0.1))
    check_cases(a, scan_cases(a.ndim, [axis]), getattr(simdscan, op),
                lambda got, axis, dec, exc, where: check(got, op, a, axis, dec, exc, msg=where),
                f"{op} {dtype} {path.name}")


@pytest.mark.parametrize("op", NAN_OPS)
def test_dtype_argument(op):
    a = nan_data(op, (5, 40), "float32", 0.2)
    for dt in ("float64", "complex128"):
        check(scan(op, a, 1, True, True, dtype=dt), op, a, 1, True, True, dtype=dt)
    i8 = np.array([100, 100, 100, -3], dtype=np.int8)
    got = scan(op, i8, dtype=np.int32)
    assert got.dtype == np.int32
    check(got, op, i8, dtype=np.int32)
    assert got[1] in (200, 10000)  # no int8 wrap


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128"])
def test_compensated(dtype, exclusive):
    """nancumsum(compensated=True): cumsum's compensated bound on the input with its NaNs counted as 0."""
    rng = np.random.default_rng(seed_of("compensated", dtype, exclusive))
    for shape, axis in (((70_000,), 0), ((2000, 40), 0), ((300, 37), 1)):  # a line of 2+ chunks
        a = with_nans(rng, spread_values(rng, shape, dtype), 0.1)
        for direction in ("increasing", "decreasing"):
            got = simdscan.nancumsum(a, axis, direction=direction, exclusive=exclusive, compensated=True)
            assert got.dtype == np.dtype(dtype)
            check_compensated(got, nan_as_identity("nancumsum", a), axis, direction == "decreasing", exclusive,
                              msg=f"{dtype} {shape} {direction}")


# --------------------------------------------------------------------------
# out= and in place
# --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128", "int16"])
@pytest.mark.parametrize("op", NAN_OPS)
def test_out_of_any_strides(op, dtype):
    a = nan_data(op, (6, 7), dtype, 0.25)
    for axis in (None, 0, 1, -1):
        shape = (a.size,) if axis is None else a.shape
        for dec, exc in VARIANTS:
            out, buf, outside = stepped_reversed_out(shape, dtype, 57)
            assert scan(op, a, axis, dec, exc, out=out) is out
            check(out, op, a, axis, dec, exc)
            assert np.all(buf[outside] == 57), "wrote outside out"


@pytest.mark.parametrize("layout", ["C", "fortran", "reversed", "stepped", "transposed"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("op", NAN_OPS)
def test_in_place(op, dtype, layout):
    check_in_place(nan_data(op, (5, 4, 300), dtype, 0.1, layout), layout, getattr(simdscan, op),
                   lambda a, before, axis, dec, exc, where: check(a, op, before, axis, dec, exc, msg=where),
                   f"{op} {dtype}")


# --------------------------------------------------------------------------
# properties
# --------------------------------------------------------------------------
@given(
    dtype=st.sampled_from(["float16", "float32", "float64", "complex64", "complex128"]),
    shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=12),
    op=st.sampled_from(NAN_OPS),
    data=st.data(),
)
def test_any_nans_and_infinities(dtype, shape, op, data):
    dt = np.dtype(dtype)
    if op == "nancumsum":
        real = imag = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -2.0, 0.5, 3.0]
    else:  # products of up to 12**3 factors: unit magnitudes only, so that the oracle's wide product (which knows
        # nothing of the result dtype's range) neither overflows nor underflows where the result does not
        real, imag = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0], [np.nan, 0.0]
        if dt.kind == "c":
            real = [np.nan, 0.0, 1.0, -1.0]  # the oracle bounds finite complex products only
    elements = st.builds(complex, st.sampled_from(real), st.sampled_from(imag)) if dt.kind == "c" \
        else st.sampled_from(real)
    a = data.draw(hnp.arrays(dt, shape, elements=elements), label="a")
    axis = data.draw(st.sampled_from([None] + list(range(-len(shape), len(shape)))), label="axis")
    dec, exc = data.draw(st.booleans(), label="decreasing"), data.draw(st.booleans(), label="exclusive")
    with np.errstate(all="ignore"):
        got = scan(op, a, axis, dec, exc)
    check(got, op, a, axis, dec, exc)
