"""cummax / cummin / nancummax / nancummin: the values, against np.maximum / np.minimum / np.fmax / np.fmin
``.accumulate`` with reference.py's flips and exclusive shift, for every dtype, direction, exclusive, axis, layout
and kernel path, out= and in place; exact (a running extremum never rounds). The indices of cummax / cummin are
in test_extrema_indices.py."""

import functools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import simdscan
from data import seed_of
from params import (
    DIRECTIONS,
    all_axes,
    check_cases,
    check_in_place,
    scan,
    scan_cases,
    scattered_outs,
    stepped_reversed_out,
)
from family_reference import (
    EXTREMA_DTYPES,
    EXTREMA_OPS,
    EXTREMA_PATH_CASES,
    EXTREMA_PATH_IDS,
    NAN_EXTREMA_OPS,
    VARIANTS,
    assert_same_bits,
    check_extremum,
    check_extremum_pair,
    expected_extremum,
    extrema_data,
    extremum_identity,
)
from reference import LAYOUTS, apply_layout

pytestmark = pytest.mark.kernels  # the outcome depends on the ISA tier and the xsimd version: CI runs these per tier

OPS4 = EXTREMA_OPS + NAN_EXTREMA_OPS
DT_IDS = [d.name for d in EXTREMA_DTYPES]


# --------------------------------------------------------------------------
# small examples, spelled out
# --------------------------------------------------------------------------
def test_the_four_cases_by_hand():
    x = np.array([3, 1, 4, 1, 5, 9, 2, 6], dtype=np.int32)
    lo = np.iinfo(np.int32).min
    hi = np.iinfo(np.int32).max
    cases = [
        ("cummax", False, False, [3, 3, 4, 4, 5, 9, 9, 9]),
        ("cummax", False, True, [lo, 3, 3, 4, 4, 5, 9, 9]),
        ("cummax", True, False, [9, 9, 9, 9, 9, 9, 6, 6]),
        ("cummax", True, True, [9, 9, 9, 9, 9, 6, 6, lo]),
        ("cummin", False, False, [3, 1, 1, 1, 1, 1, 1, 1]),
        ("cummin", False, True, [hi, 3, 1, 1, 1, 1, 1, 1]),
        ("cummin", True, False, [1, 1, 1, 1, 2, 2, 2, 6]),
        ("cummin", True, True, [1, 1, 1, 2, 2, 2, 6, hi]),
    ]
    for op, dec, exc, want in cases:
        for func in (op, "nan" + op):
            got = scan(func, x, decreasing=dec, exclusive=exc)
            assert got.dtype == np.int32
            np.testing.assert_array_equal(got, np.array(want, dtype=np.int32), err_msg=f"{func} {dec} {exc}")


def test_nan_propagates_and_nan_is_skipped_by_hand():
    nan, inf = np.nan, np.inf
    x = np.array([nan, 2.0, nan, 5.0, 1.0, 7.0])
    cases = [  # (op, decreasing, exclusive, expected)
        ("cummax", False, False, [nan] * 6),
        ("cummax", True, False, [nan, nan, nan, 7, 7, 7]),
        ("cummax", True, True, [nan, nan, 7, 7, 7, -inf]),
        ("cummin", True, False, [nan, nan, nan, 1, 1, 7]),
        ("nancummax", False, False, [nan, 2, 2, 5, 5, 7]),
        ("nancummax", False, True, [-inf, nan, 2, 2, 5, 5]),
        ("nancummin", False, False, [nan, 2, 2, 2, 1, 1]),
        ("nancummin", True, False, [1, 1, 1, 1, 1, 7]),
        ("nancummin", True, True, [1, 1, 1, 1, 7, inf]),
    ]
    for op, dec, exc, want in cases:
        got = scan(op, x, decreasing=dec, exclusive=exc)
        np.testing.assert_array_equal(got, np.array(want), err_msg=f"{op} decreasing={dec} exclusive={exc}")


def test_all_nan_line_and_leading_nans():
    nan = np.nan
    x = np.array([[nan, nan, nan], [nan, nan, 4.0], [3.0, nan, nan]], dtype=np.float32)
    np.testing.assert_array_equal(simdscan.nancummax(x, 1), [[nan] * 3, [nan, nan, 4], [3, 3, 3]])
    np.testing.assert_array_equal(simdscan.nancummin(x, 1, direction="decreasing"),
                                  [[nan] * 3, [4, 4, 4], [3, nan, nan]])
    np.testing.assert_array_equal(simdscan.cummax(x, 1), [[nan] * 3, [nan] * 3, [3, nan, nan]])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_a_nan_anywhere_keeps_its_bits(op, dtype):
    """One NaN with a payload (and the sign bit) at block edges, mid-block and in the tail of a 3000-element line:
    from it on in scan order, every output has its bits, as np.maximum.accumulate's (the kernels take blocks
    without NaN by the bare max / min instruction, the others with a NaN test at each step)."""
    bits = np.uint32 if dtype == "float32" else np.uint64
    payload = np.array(0xFFC00123 if dtype == "float32" else 0xFFF8000000000123, bits).view(dtype)
    base = np.random.default_rng(seed_of("nan bits", op, dtype)).standard_normal(3000).astype(dtype)
    for position in (0, 1, 255, 256, 511, 512, 1500, 2999):
        x = base.copy()
        x[position] = payload
        for dec, exc in VARIANTS:
            where = f"{op} {dtype} NaN at {position} decreasing={dec} exclusive={exc}"
            want = expected_extremum(op, x, None, dec, exc)
            assert_same_bits(scan(op, x, decreasing=dec, exclusive=exc), want, where)


@pytest.mark.parametrize("dtype", EXTREMA_DTYPES, ids=DT_IDS)
@pytest.mark.parametrize("op", OPS4)
def test_exclusive_identity(op, dtype):
    """The first output in scan order of an exclusive scan is the dtype's lowest (max) / highest (min) value."""
    x = extrema_data(np.random.default_rng(seed_of(op, dtype.name)), (5, 9), dtype)
    ident = extremum_identity(op, dtype)
    if dtype.kind == "f":
        assert ident == (np.inf if op.endswith("min") else -np.inf)
    elif dtype != np.bool_:
        info = np.iinfo(dtype)
        assert ident == (info.max if op.endswith("min") else info.min)
    for axis in (0, 1, -1):
        first = [slice(None)] * 2
        for dec in (False, True):
            got = scan(op, x, axis, dec, True)
            first[axis] = -1 if dec else 0
            assert np.all(got[tuple(first)] == ident), (op, dtype, axis, dec, got[tuple(first)])
            check_extremum(got, op, x, axis, dec, True)


@pytest.mark.parametrize("op", OPS4)
def test_bool(op):
    x = np.array([False, False, True, False, True])
    m = op.endswith("max")
    assert scan(op, x).dtype == np.bool_
    np.testing.assert_array_equal(scan(op, x), [False, False, True, True, True] if m else [False] * 5)
    np.testing.assert_array_equal(scan(op, x, exclusive=True),
                                  [False, False, False, True, True] if m else [True, False, False, False, False])
    np.testing.assert_array_equal(scan(op, x, decreasing=True, exclusive=True),
                                  [True, True, True, True, False] if m else [False, False, False, True, True])



# An exclusive running minimum of bool starts at True stored as the byte 1 (a 0xFF byte compares equal to True but
# hashes, counts and compares as bytes apart), on every path: lines, short rows packed in vectors, the outer axis,
# long lines in chunks, segments and groups.
@pytest.mark.parametrize("op", ["cummin", "nancummin"])
@pytest.mark.parametrize("shape, axis", [((5,), 0), ((4, 3), 1), ((40, 2), 1), ((2, 40), 1), ((2, 40), 0),
                                         ((70_000,), 0)])
def test_bool_minimum_identity_is_the_byte_1(op, shape, axis):
    x = np.ones(shape, dtype=bool)
    for layout in ("C", "fortran", "reversed"):
        a = apply_layout(x, layout)
        for dec in (False, True):
            got = scan(op, a, axis, dec, True)
            assert np.array_equal(got.view(np.uint8), np.ones(shape, np.uint8)), (layout, dec)
    flags = np.zeros(shape, dtype=bool)
    flags.reshape(-1)[::3] = True
    got = getattr(simdscan, op)(x, axis, exclusive=True, reset=flags)
    assert np.array_equal(got.view(np.uint8), np.ones(shape, np.uint8))

# --------------------------------------------------------------------------
# special values
# --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("op", OPS4)
def test_float_special_values(op, dtype):
    f = np.finfo(dtype)
    specials = [np.nan, np.inf, -np.inf, 0.0, -0.0, f.max, -f.max, f.tiny, -f.tiny, f.smallest_subnormal,
                -f.smallest_subnormal, 1.0, -1.0]
    rng = np.random.default_rng(seed_of("specials", op, dtype))
    for trial in range(40):
        n = int(rng.integers(1, 70))
        pool = specials[1:] if trial % 2 else specials  # half the lines without NaN: infinities, zeros decide
        x = np.array(rng.choice(np.array(pool, dtype=dtype), size=n), dtype=dtype)
        for dec, exc in VARIANTS:
            check_extremum(scan(op, x, 0, dec, exc), op, x, 0, dec, exc, f"{op} {dtype} {x!r} {dec} {exc}")


@pytest.mark.parametrize("shape", [(301,), (301, 7)], ids=["line", "outer"])  # the second scanned along axis 0
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("op", OPS4)
def test_signed_zero_ties_take_the_later_element(op, dtype, shape):
    """+0.0 and -0.0 tie: the later of two tied elements in the walk is the running value, so a line of zeros comes
    back as it is (NumPy's float32 and float64 ``accumulate`` give those bits; its float16 keeps the earlier), wherever
    out starts (scalar heads and vectors agree); a value returned with its index has the sign of the element the
    index names."""
    rng = np.random.default_rng(seed_of("signed zeros", op, dtype, shape))
    x = rng.choice(np.array([0.0, -0.0], dtype=dtype), size=shape)
    want = np.signbit(x)
    if dtype != "float16":
        np.testing.assert_array_equal(np.signbit(expected_extremum(op, x, 0)), want)
    for dec in (False, True):
        for name, out in scattered_outs(shape, dtype).items():
            scan(op, x, 0, dec, False, out=out)
            np.testing.assert_array_equal(np.signbit(out), want, err_msg=f"{op} {dtype} {name} dec={dec}")
        if op in EXTREMA_OPS:
            values, indices = scan(op, x, 0, dec, False, return_indices=True)
            named = np.take_along_axis(x, indices, axis=0)
            np.testing.assert_array_equal(np.signbit(values), np.signbit(named), err_msg=f"{op} {dtype} dec={dec}")


@pytest.mark.parametrize("dtype", [d for d in EXTREMA_DTYPES if d.kind in "iu"], ids=lambda d: d.name)
@pytest.mark.parametrize("op", OPS4)
def test_integer_limits(op, dtype):
    """iinfo.min / max in the data: they are ordinary values (an exclusive identity that equals one is still
    the identity only where it stands first)."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed_of("limits", op, dtype.name))
    pool = np.array([info.min, info.max, info.min + 1, info.max - 1, 0, 1], dtype=dtype)
    for _ in range(30):
        x = rng.choice(pool, size=int(rng.integers(1, 90)))
        for dec, exc in VARIANTS:
            check_extremum(scan(op, x, 0, dec, exc), op, x, 0, dec, exc)


# --------------------------------------------------------------------------
# every dtype, axis, direction, layout
# --------------------------------------------------------------------------
#: (function, return_indices): every running extremum, and cummax / cummin with their indices too
SCANS = [(op, False) for op in OPS4] + [(op, True) for op in EXTREMA_OPS]
SCAN_IDS = [op + ("-indices" if indices else "") for op, indices in SCANS]


def scan_and_check(op, indices, a, fast=False):
    """check_cases' call and check for ``op`` (with its indices checked too when ``indices``)."""
    if not indices:
        return getattr(simdscan, op), lambda got, *case: check_extremum(got, op, a, *case)
    return (functools.partial(getattr(simdscan, op), return_indices=True),
            lambda got, *case: check_extremum_pair(got, op, a, *case, fast=fast))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", EXTREMA_DTYPES, ids=DT_IDS)
@pytest.mark.parametrize("op, indices", SCANS, ids=SCAN_IDS)
def test_every_layout_axis_direction(op, indices, dtype, layout):
    rng = np.random.default_rng(seed_of("layouts", op, indices, dtype.name, layout))
    a = apply_layout(extrema_data(rng, (4, 5, 6), dtype, nan=0.06), layout)
    check_cases(a, scan_cases(3), *scan_and_check(op, indices, a), f"{op} {dtype} {layout}")


@pytest.mark.parametrize("dtype, path", EXTREMA_PATH_CASES, ids=EXTREMA_PATH_IDS)
@pytest.mark.parametrize("op, indices", SCANS, ids=SCAN_IDS)
def test_kernel_paths(op, indices, dtype, path):
    rng = np.random.default_rng(seed_of("paths", op, indices, dtype.name, path.name))
    line = path.shape[path.axis]
    a, axis = path.build(lambda shape: extrema_data(rng, shape, dtype, nan=min(0.3, 3.0 / line)))
    check_cases(a, scan_cases(a.ndim, [axis]), *scan_and_check(op, indices, a, fast=True), f"{op} {dtype} {path.name}")


@pytest.mark.parametrize("op, indices", SCANS, ids=SCAN_IDS)
def test_short_lengths(op, indices):
    """Every length around the register widths, 1-D and as rows."""
    for dtype in ("int8", "uint16", "int32", "uint64", "float16", "float32", "float64", "int64", "bool"):
        for n in list(range(0, 40)) + [63, 64, 65, 127, 128, 129, 255, 256, 257]:
            rng = np.random.default_rng(seed_of("short", op, indices, dtype, n))
            a = extrema_data(rng, (3, n), dtype, nan=0.05)
            check_cases(a, scan_cases(2, (0, 1, None), DIRECTIONS[:2]), *scan_and_check(op, indices, a),
                        f"{op} {dtype} n={n}")


@pytest.mark.parametrize("op", OPS4)
def test_0d_and_empty(op):
    for a in (np.array(3.5), np.array(7, dtype=np.int16)):
        for axis in (None, 0, -1):
            got = getattr(simdscan, op)(a, axis)
            assert got.shape == (1,) and got.dtype == a.dtype and got[0] == a
            ex = getattr(simdscan, op)(a, axis, exclusive=True)
            assert ex[0] == extremum_identity(op, a.dtype)
    e = np.zeros((0, 3), np.float32)
    for axis in (None, 0, 1, -1):
        got = getattr(simdscan, op)(e, axis)
        assert got.dtype == np.float32 and got.shape == ((0,) if axis is None else (0, 3))


# --------------------------------------------------------------------------
# out= and in place
# --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "int64", "uint32", "bool"])
@pytest.mark.parametrize("op, indices", SCANS, ids=SCAN_IDS)
def test_out_of_any_strides(op, indices, dtype):
    """out= stepped and reversed inside a larger buffer, or transposed; with indices, out=(values, indices)."""
    rng = np.random.default_rng(seed_of("out", op, indices, dtype))
    a = extrema_data(rng, (6, 7), dtype, nan=0.1)
    call, check = scan_and_check(op, indices, a)
    out_dtypes = (np.dtype(dtype), np.dtype(np.intp)) if indices else (np.dtype(dtype),)
    for axis, direction, dec, exc in scan_cases(2, (None, 0, 1, -2), DIRECTIONS[:2]):
        shape = (a.size,) if axis is None else a.shape
        stepped = [stepped_reversed_out(shape, dt, 77) for dt in out_dtypes]
        before = [buf.copy() for _, buf, _ in stepped]
        transposed = [np.zeros(shape[::-1], dtype=dt).T for dt in out_dtypes]
        for outs in ([view for view, _, _ in stepped], transposed):
            out = tuple(outs) if indices else outs[0]
            got = call(a, axis, direction=direction, exclusive=exc, out=out)
            assert (got[0] is out[0] and got[1] is out[1]) if indices else got is out
            check(got, axis, dec, exc, f"{op} {dtype} axis={axis} {direction} exclusive={exc}")
        for (_, buf, outside), buf_before in zip(stepped, before):
            assert np.array_equal(buf[outside], buf_before[outside]), "wrote outside out"


@pytest.mark.parametrize("layout", ["C", "fortran", "reversed", "stepped", "transposed"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "int32", "uint64", "bool"])
@pytest.mark.parametrize("op", OPS4)
def test_in_place(op, dtype, layout):
    rng = np.random.default_rng(seed_of("in place", op, dtype, layout))
    check_in_place(extrema_data(rng, (5, 4, 300), dtype, nan=0.01), layout, getattr(simdscan, op),
                   lambda a, before, *case: check_extremum(a, op, before, *case), f"{op} {dtype}")


# --------------------------------------------------------------------------
# properties
# --------------------------------------------------------------------------
def _special_arrays():
    dtypes = st.sampled_from([np.dtype(d) for d in ("float16", "float32", "float64", "int8", "uint8", "int32",
                                                    "int64", "uint64", "bool")])
    shapes = hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=12)
    return dtypes.flatmap(lambda dt: hnp.arrays(dt, shapes, elements=hnp.from_dtype(
        dt, **({"allow_nan": True, "allow_infinity": True, "allow_subnormal": True} if dt.kind == "f" else {}))))


@given(a=_special_arrays(), op=st.sampled_from(OPS4), data=st.data())
def test_matches_numpy_on_any_values(a, op, data):
    """Any values of the dtype (NaN, infinities, signed zeros, subnormals, integer limits), any axis."""
    axis = data.draw(st.sampled_from(all_axes(a.ndim)), label="axis")
    dec = data.draw(st.booleans(), label="decreasing")
    exc = data.draw(st.booleans(), label="exclusive")
    if data.draw(st.booleans(), label="byteswapped") and a.dtype.itemsize > 1:
        a = a.astype(a.dtype.newbyteorder("S"))
    check_extremum(scan(op, a, axis, dec, exc), op, a, axis, dec, exc)
