"""logcumsumexp: log(cumsum(exp(a))) without overflow or underflow, against np.logaddexp.accumulate in
np.longdouble with reference.py's flips and exclusive shift (-inf first). float16 / float32 / float64 keep their
dtype, integer and bool input gives float64; within 1e-13 (float64) / 1e-6 (float32, float16 plus its final
rounding) relative of the reference, with the same absolute floor near a zero result. -inf is the identity,
+inf gives +inf from there on, NaN propagates; inputs of magnitude 1e4 stay finite."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import simdscan
from data import seed_of
from params import DIRECTIONS, scattered_outs, stepped_reversed_out
from family_reference import (
    LOGCUMSUMEXP_STATED_RTOL,
    VARIANTS,
    assert_same_bits,
    check_logcumsumexp,
    check_logcumsumexp_values,
    logcumsumexp_result_dtype,
)
from group_reference import expected_grouped
from reference import LAYOUTS, PATHS, apply_layout, assert_unchanged, snapshot

pytestmark = pytest.mark.kernels  # the outcome depends on the ISA tier and the xsimd version: CI runs these per tier

FLOATS = ["float16", "float32", "float64"]
INPUT_DTYPES = FLOATS + ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool"]


def call(a, axis=None, decreasing=False, exclusive=False, **kw):
    return simdscan.logcumsumexp(a, axis, direction="decreasing" if decreasing else "increasing",
                                 exclusive=exclusive, **kw)


def lse_data(rng, shape, dtype, scale=3.0, neg_inf=0.0):
    """Normal values times ``scale`` (integers: small ones, both signs where the dtype has them) and, for
    floats, -inf with probability ``neg_inf``."""
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        return rng.integers(0 if dt.kind == "u" else -20, 21, size=shape).astype(dt)
    a = (scale * rng.standard_normal(shape)).astype(dt)
    if neg_inf:
        a[rng.random(shape) < neg_inf] = -np.inf
    return a


# --------------------------------------------------------------------------
# by hand, and the special values
# --------------------------------------------------------------------------
def test_by_hand():
    ln2, ln3 = np.log(2.0), np.log(3.0)
    x = np.zeros(3)
    np.testing.assert_allclose(call(x), [0, ln2, ln3], rtol=1e-15)
    np.testing.assert_allclose(call(x, decreasing=True), [ln3, ln2, 0], rtol=1e-15)
    np.testing.assert_allclose(call(x, exclusive=True), [-np.inf, 0, ln2], rtol=1e-15)
    np.testing.assert_allclose(call(x, decreasing=True, exclusive=True), [ln2, 0, -np.inf], rtol=1e-15)
    y = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(call(y), np.log(np.cumsum(np.exp(y))), rtol=1e-15)


def test_minus_infinity_is_the_identity():
    ninf = -np.inf
    for dtype in FLOATS:
        x = np.array([ninf, ninf, 0.0, ninf, 0.0, ninf], dtype=dtype)
        got = call(x)
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_allclose(got.astype(np.float64), [ninf, ninf, 0, 0, np.log(2), np.log(2)], rtol=1e-3)
        np.testing.assert_array_equal(call(np.full(50, ninf, dtype=dtype)), np.full(50, ninf, dtype=dtype))
        np.testing.assert_array_equal(call(np.full(50, ninf, dtype=dtype), exclusive=True),
                                      np.full(50, ninf, dtype=dtype))


def test_plus_infinity_and_nan():
    inf, nan = np.inf, np.nan
    cases = [  # (input, decreasing, exclusive, expected)
        ([1.0, inf, 2.0, -inf], False, False, [1, inf, inf, inf]),
        ([1.0, inf, 2.0, -inf], False, True, [-inf, 1, inf, inf]),
        ([1.0, inf, 2.0, -inf], True, False, [inf, inf, 2, -inf]),
        ([1.0, nan, 2.0, inf], False, False, [1, nan, nan, nan]),
        ([1.0, nan, 2.0, inf], True, False, [nan, nan, inf, inf]),
        ([inf, nan, 2.0], False, False, [inf, nan, nan]),
        ([nan, inf, 2.0], False, True, [-inf, nan, nan]),
        ([-inf, nan, -inf], True, True, [nan, -inf, -inf]),
    ]
    for dtype in FLOATS:
        for x, dec, exc, want in cases:
            got = call(np.array(x, dtype=dtype), decreasing=dec, exclusive=exc)
            where = f"{dtype} {x} decreasing={dec} exclusive={exc}"
            assert got.dtype == np.dtype(dtype), where
            np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=where)
            np.testing.assert_array_equal(got[np.isinf(want)], np.array(want)[np.isinf(want)], err_msg=where)
            fin = np.isfinite(want)
            np.testing.assert_allclose(got[fin].astype(np.float64), np.array(want)[fin], rtol=1e-3, err_msg=where)


@pytest.mark.parametrize("dtype", FLOATS)
def test_magnitude_1e4_stays_finite(dtype):
    """exp(1e4) overflows every float type and exp(-1e4) underflows it: the result must not care."""
    ln2, ln3 = np.log(2.0), np.log(3.0)
    rtol = {"float16": 5e-4, "float32": 1e-6, "float64": 1e-13}[dtype]  # float16: half an ulp at 1e4
    x = np.array([1e4, 1e4, -1e4, 1e4], dtype=dtype)
    got = call(x)
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got.astype(np.float64), [1e4, 1e4 + ln2, 1e4 + ln2, 1e4 + ln3], rtol=rtol)
    got = call(-x, decreasing=True)
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got.astype(np.float64), [1e4, 1e4, 1e4, -1e4], rtol=rtol)
    got = call(np.full(3, -1e4, dtype=dtype), exclusive=True)
    np.testing.assert_allclose(got.astype(np.float64), [-np.inf, -1e4, -1e4 + ln2], rtol=rtol)
    rng = np.random.default_rng(seed_of("1e4", dtype))
    for shape, axis in (((5000,), 0), ((40, 300), 1), ((300, 40), 0)):
        a = rng.uniform(-1e4, 1e4, size=shape).astype(dtype)
        a[rng.random(shape) < 0.5] = -1e4  # a long stretch of tiny terms after large ones, too
        for dec, exc in VARIANTS:
            got = call(a, axis, dec, exc)
            assert np.all(np.isfinite(got) | (np.isneginf(got) & exc)), f"{dtype} {shape} not finite"
            check_logcumsumexp(got, a, axis, dec, exc, msg=f"1e4: {dtype} {shape} decreasing={dec} exclusive={exc}")


@pytest.mark.parametrize("dtype", FLOATS[1:])
def test_a_jump_anywhere_in_a_block(dtype):
    """A rise or fall of 2e4 at places across the first 1100 (the kernels take blocks of up to 1024 elements against
    one reference): the values before the jump, and an exclusive scan's carried value, must not underflow."""
    for jump in sorted(set(range(1, 1100, 13)) | {128, 256, 512, 1024}):  # block starts of every tier among them
        for low, high in ((-1e4, 1e4), (1e4, -1e4)):
            a = np.where(np.arange(2200) < jump, low, high).astype(dtype)
            a[::5] += 1.5  # not all equal: the running sums grow unevenly
            for dec, exc in VARIANTS:
                check_logcumsumexp(call(a, 0, dec, exc), a, 0, dec, exc, msg=f"jump at {jump} {low}->{high} {dec} {exc}")


@pytest.mark.parametrize("dtype", INPUT_DTYPES[3:])
def test_integer_and_bool_input_give_float64(dtype):
    rng = np.random.default_rng(seed_of("ints", dtype))
    a = lse_data(rng, (7, 90), dtype)
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        a[0, :4] = [info.min, info.max, info.min, info.max]
    for axis in (None, 0, 1, -1):
        for dec, exc in VARIANTS:
            got = call(a, axis, dec, exc)
            assert got.dtype == np.float64
            check_logcumsumexp(got, a, axis, dec, exc, msg=f"{dtype} axis={axis} decreasing={dec} exclusive={exc}")


# --------------------------------------------------------------------------
# accuracy: 10**5 random normal inputs
# --------------------------------------------------------------------------
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("direction", ["increasing", "decreasing"])
@pytest.mark.parametrize("shape, axis", [((100_000,), 0), ((100, 1000), 1), ((1000, 100), 0), ((100, 1000), None)])
@pytest.mark.parametrize("dtype", FLOATS)
def test_accuracy_on_normal_inputs(dtype, shape, axis, direction, exclusive):
    """Within 1e-13 (float64) / 1e-6 (float32; float16: plus half an ulp) relative of the long double reference
    (absolute floor: the same number)."""
    rng = np.random.default_rng(seed_of("accuracy", dtype, shape, axis))
    a = rng.standard_normal(shape).astype(dtype)
    got = simdscan.logcumsumexp(a, axis, direction=direction, exclusive=exclusive)
    check_logcumsumexp(got, a, axis, direction == "decreasing", exclusive,
                       msg=f"{dtype} {shape} axis={axis} {direction} exclusive={exclusive}")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_accuracy_with_a_wide_spread(dtype):
    """Terms over ~200 orders of magnitude (float64) / ~30 (float32): rescaling as the maximum climbs."""
    rng = np.random.default_rng(seed_of("spread", dtype))
    scale = 100.0 if dtype == "float64" else 20.0
    a = (scale * rng.standard_normal(100_000)).astype(dtype)
    a[::1000] = np.sort(a[::1000])  # a climbing maximum along the line, in both directions
    for dec, exc in VARIANTS:
        check_logcumsumexp(call(a, 0, dec, exc), a, 0, dec, exc, msg=f"{dtype} decreasing={dec} exclusive={exc}")


# docs/guide.md's bound holds on every path that scans 10**5 values: a line (block by block), groups and the columns
# of an outer axis (element by element, each group or column in a finer state than its running log, which rounded
# at every element drifted to 1.3e-14 of |reference| + 1 on normal values).
STATED_CASES = {
    "normal": lambda rng, n: rng.standard_normal(n),
    "30 normal": lambda rng, n: 30.0 * rng.standard_normal(n),
    "near +-700": lambda rng, n: np.where(rng.random(n) < 0.5, -700.0, 700.0) + rng.standard_normal(n),
}


@pytest.mark.parametrize("case", STATED_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_stated_accuracy_on_every_path(dtype, case):
    rng = np.random.default_rng(seed_of("stated", dtype, case))
    x = STATED_CASES[case](rng, 100_000).astype(dtype)
    rtol = LOGCUMSUMEXP_STATED_RTOL[dtype]
    groupings = {"one label": np.zeros(x.size, np.int64), "three labels": rng.integers(0, 3, x.size)}
    columns = np.tile(x[:, None], (1, 11))  # a vector's lanes and columns one at a time
    for dec, exc in VARIANTS:
        where = f"{dtype} {case} decreasing={dec} exclusive={exc}"
        check_logcumsumexp(call(x, 0, dec, exc), x, 0, dec, exc, msg=f"line {where}", rtol=rtol)
        for name, labels in groupings.items():
            check_logcumsumexp_values(call(x, 0, dec, exc, labels=labels),
                                      expected_grouped("logcumsumexp", x, labels, 0, dec, exc), f"{name} {where}", rtol)
        for layout, a in (("C", columns), ("fortran", np.asfortranarray(columns))):
            got = call(a, 0, dec, exc)
            check_logcumsumexp(got[:, :1], a[:, :1], 0, dec, exc, msg=f"axis 0 {layout} {where}", rtol=rtol)
            for j in range(1, a.shape[1]):
                assert_same_bits(got[:, j], got[:, 0], f"axis 0 {layout} column {j} {where}")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_group_is_its_own_grouped_scan(dtype):
    """docs/guide.md: a group of a grouped logcumsumexp has the bits of the group gathered and scanned with one label
    (element by element), and the plain scan of the gathered group (block by block) is within the same bound of the
    reference, not of the same bits."""
    rng = np.random.default_rng(seed_of("own group", dtype))
    x = rng.standard_normal(100_000).astype(dtype)
    labels = rng.integers(0, 3, x.size)
    rtol = LOGCUMSUMEXP_STATED_RTOL[dtype]
    for dec, exc in VARIANTS:
        got = call(x, 0, dec, exc, labels=labels)
        for g in range(3):
            where = f"{dtype} group {g} decreasing={dec} exclusive={exc}"
            own = x[labels == g]
            alone = call(own, 0, dec, exc, labels=np.zeros(own.size, np.int64))
            assert_same_bits(got[labels == g], alone, where)
            check_logcumsumexp(alone, own, 0, dec, exc, msg=where, rtol=rtol)
            check_logcumsumexp(call(own, 0, dec, exc), own, 0, dec, exc, msg=f"plain scan of {where}", rtol=rtol)


@pytest.mark.usefixtures("restore_thread_count")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_groups_and_columns_have_the_same_bits_for_every_thread_count_and_out(dtype):
    """Element by element, a column's state is advanced in a vector's lane or on its own, as out's address and the
    tiles a thread count cuts decide (outputs past the caches start their vectors where out is aligned): the same
    bits either way; lines of groups run in parallel."""
    rng = np.random.default_rng(seed_of("stepwise bits", dtype))
    a = (30.0 * rng.standard_normal((600, 2000))).astype(dtype)  # past the tests' streaming threshold
    calls = {"axis 0": {"axis": 0}, "labels": {"axis": 1, "labels": rng.integers(0, 50, a.shape)}}
    for name, kw in calls.items():
        for dec, exc in ((False, False), (True, True)):
            where = f"{name} {dtype} decreasing={dec} exclusive={exc}"
            simdscan.set_num_threads(1)
            single = call(a, decreasing=dec, exclusive=exc, **kw)
            for threads in (2, 3):
                simdscan.set_num_threads(threads)
                assert_same_bits(call(a, decreasing=dec, exclusive=exc, **kw), single, f"{where}: {threads} threads")
            for placed, out in scattered_outs(a.shape, dtype).items():
                call(a, decreasing=dec, exclusive=exc, out=out, **kw)
                assert_same_bits(out, single, f"{where}: {placed}")


# --------------------------------------------------------------------------
# every dtype, axis, direction, layout, kernel path
# --------------------------------------------------------------------------
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32", "uint8", "bool"])
def test_every_layout_axis_direction(dtype, layout):
    rng = np.random.default_rng(seed_of("layouts", dtype, layout))
    a = apply_layout(lse_data(rng, (4, 5, 6), dtype, neg_inf=0.1), layout)
    snap = snapshot(a)
    for axis in [None, 0, 1, 2, -1, -2, -3]:
        for direction, dec in DIRECTIONS:
            for exc in (False, True):
                got = simdscan.logcumsumexp(a, axis, direction=direction, exclusive=exc)
                check_logcumsumexp(got, a, axis, dec, exc,
                                   msg=f"{dtype} {layout} axis={axis} direction={direction!r} exclusive={exc}")
    assert_unchanged(a, snap)


KERNEL_PATHS = PATHS["kernels"] + PATHS["exact"]


@pytest.mark.parametrize("path", KERNEL_PATHS, ids=[p.name for p in KERNEL_PATHS])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int16"])
def test_kernel_paths(dtype, path):
    rng = np.random.default_rng(seed_of("paths", dtype, path.name))
    a, axis = path.build(lambda shape: lse_data(rng, shape, dtype, neg_inf=0.01))
    for dec, exc in VARIANTS:
        check_logcumsumexp(call(a, axis, dec, exc), a, axis, dec, exc,
                           msg=f"{dtype} {path.name} decreasing={dec} exclusive={exc}")


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_short_lengths(dtype):
    for n in list(range(0, 40)) + [63, 64, 65, 127, 128, 129, 255, 256, 257]:
        rng = np.random.default_rng(seed_of("short", dtype, n))
        a = lse_data(rng, (3, n), dtype, neg_inf=0.05)
        for axis in (0, 1, None):
            for dec, exc in VARIANTS:
                check_logcumsumexp(call(a, axis, dec, exc), a, axis, dec, exc,
                                   msg=f"{dtype} n={n} axis={axis} decreasing={dec} exclusive={exc}")


def test_0d_and_empty():
    got = call(np.array(2.5))
    assert got.shape == (1,) and got.dtype == np.float64 and got[0] == 2.5
    assert call(np.array(2.5), exclusive=True)[0] == -np.inf
    for axis in (None, 0, 1):
        got = call(np.zeros((0, 3), np.float32), axis)
        assert got.dtype == np.float32 and got.size == 0


def test_dtype_argument():
    a = lse_data(np.random.default_rng(7), (6, 50), "float32")
    got = call(a, 1, True, True, dtype=np.float64)
    assert got.dtype == np.float64
    check_logcumsumexp(got, a, 1, True, True, dtype=np.float64)
    i = np.arange(-20, 20, dtype=np.int32)
    got = call(i, dtype=np.float32)
    assert got.dtype == np.float32
    check_logcumsumexp(got, i, dtype=np.float32)


# A long line's chunks are scanned from their bases, the earlier chunks' totals: one thread takes each total on the
# way where every block of the chunk is summed against a shift of 0, threads take it in a pass of its own. Values in
# range, above it, below it, and chunks of both kinds in one line: the same bits, and within the stated accuracy.
SHIFT_CASES = {
    "in range": lambda rng, n: rng.standard_normal(n),
    "above": lambda rng, n: 70.0 + 30.0 * rng.standard_normal(n),
    "below": lambda rng, n: rng.standard_normal(n) - 100.0,
    "by chunks": lambda rng, n: np.where(np.arange(n) // 50_000 % 2 == 1, 100.0, 1.0) * rng.standard_normal(n),
    "edges": lambda rng, n: np.where(rng.random(n) < 0.5, 79.99, -59.99) + 0.02 * rng.random(n),
}


@pytest.mark.usefixtures("restore_thread_count")
@pytest.mark.parametrize("case", SHIFT_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_chunk_totals_taken_on_the_way(dtype, case):
    rng = np.random.default_rng(seed_of("totals", dtype, case))
    a = SHIFT_CASES[case](rng, 300_000).astype(dtype)
    for dec, exc in VARIANTS:
        simdscan.set_num_threads(1)
        single = call(a, 0, dec, exc)
        check_logcumsumexp(single, a, 0, dec, exc, msg=f"{dtype} {case} decreasing={dec} exclusive={exc}")
        for threads in (2, 3):
            simdscan.set_num_threads(threads)
            assert_same_bits(call(a, 0, dec, exc), single, f"{dtype} {case} decreasing={dec} exclusive={exc}: "
                                                            f"{threads} threads vs 1")


# --------------------------------------------------------------------------
# out= and in place
# --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32", "bool"])
def test_out_of_any_strides(dtype):
    a = lse_data(np.random.default_rng(seed_of("out", dtype)), (6, 7), dtype, neg_inf=0.1)
    rdt = logcumsumexp_result_dtype(a.dtype)
    for axis in (None, 0, 1, -1):
        shape = (a.size,) if axis is None else a.shape
        for dec, exc in VARIANTS:
            out, buf, outside = stepped_reversed_out(shape, rdt, 57)
            assert call(a, axis, dec, exc, out=out) is out
            check_logcumsumexp(out, a, axis, dec, exc)
            assert np.all(buf[outside] == 57), "wrote outside out"


@pytest.mark.parametrize("layout", ["C", "fortran", "reversed", "stepped", "transposed"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_in_place(dtype, layout):
    base = lse_data(np.random.default_rng(seed_of("in place", dtype, layout)), (5, 4, 300), dtype, neg_inf=0.01)
    for axis in (0, 1, 2, -1):
        for direction, dec in DIRECTIONS[:2]:
            for exc in (False, True):
                a = apply_layout(base, layout)
                copy = a.copy()
                assert simdscan.logcumsumexp(a, axis, direction=direction, exclusive=exc, out=a) is a
                check_logcumsumexp(a, copy, axis, dec, exc,
                                   msg=f"in place {dtype} {layout} axis={axis} {direction} exclusive={exc}")


# --------------------------------------------------------------------------
# properties
# --------------------------------------------------------------------------
@given(
    dtype=st.sampled_from(FLOATS),
    shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=12),
    data=st.data(),
)
def test_any_values(dtype, shape, data):
    """Any mix of NaN, infinities, signed zeros, huge and tiny values, any axis."""
    dt = np.dtype(dtype)
    big = float(np.finfo(dt).max)
    elements = st.one_of(
        st.sampled_from([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e4, -1e4, big, -big]),
        st.floats(-1e4, 1e4, width=dt.itemsize * 8),
    )
    a = data.draw(hnp.arrays(dt, shape, elements=elements), label="a")
    axis = data.draw(st.sampled_from([None] + list(range(-len(shape), len(shape)))), label="axis")
    dec, exc = data.draw(st.booleans(), label="decreasing"), data.draw(st.booleans(), label="exclusive")
    if data.draw(st.booleans(), label="byteswapped"):
        a = a.astype(a.dtype.newbyteorder("S"))
    check_logcumsumexp(call(a, axis, dec, exc), a, axis, dec, exc)


@pytest.mark.usefixtures("restore_thread_count")
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("decreasing", [False, True])
@pytest.mark.parametrize("n", [33, 1000, 70_001, 140_003])  # past one and two chunks of float32 (and float64)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bits_do_not_depend_on_the_layout(dtype, n, decreasing, exclusive):
    """The same line gives the same bits contiguous (the direct path, each chunk's total in one call), gathered from
    a strided or reversed view, into a strided or reversed out, at every offset of out within a cache line, and split
    among threads: a line walked down memory mirrors one walked up, lane for lane."""
    x = lse_data(np.random.default_rng(seed_of("layout bits", dtype, n)), (n,), dtype)
    want = call(x, 0, decreasing, exclusive)
    wide = np.repeat(x, 3)
    inputs = {"strided in": wide[::3], "reversed view in": x[::-1].copy()[::-1]}
    for name, a in inputs.items():
        assert_same_bits(call(a, 0, decreasing, exclusive), want, f"{name} n={n} dec={decreasing} excl={exclusive}")
    for name, out in scattered_outs((n,), dtype).items():
        call(x, 0, decreasing, exclusive, out=out)
        assert_same_bits(out, want, f"{name} n={n} dec={decreasing} excl={exclusive}")
    for threads in (1, 3):
        simdscan.set_num_threads(threads)
        for name, a in inputs.items():
            got = call(a, 0, decreasing, exclusive)
            assert_same_bits(got, want, f"{name}, {threads} threads, n={n} dec={decreasing} excl={exclusive}")


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("decreasing", [False, True])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nan_bits_do_not_depend_on_where_out_sits(dtype, axis, decreasing, exclusive):
    """NaN (an input's, and inf - inf's) reaches every output with the same bits, sign included, whichever elements of
    a row or line the kernels take one at a time (out at every offset of a cache line, strided, reversed): the
    outer path's rows and the line path alike."""
    rng = np.random.default_rng(seed_of("nan bits", dtype, axis))
    x = rng.uniform(-3, 3, (60, 203)).astype(dtype)
    x[rng.random(x.shape) < 0.01] = np.nan
    x[rng.random(x.shape) < 0.02] = np.inf
    want = call(x, axis, decreasing, exclusive)
    assert np.isnan(want).any() and np.isinf(want).any()
    for name, out in scattered_outs(x.shape, dtype).items():
        call(x, axis, decreasing, exclusive, out=out)
        assert_same_bits(out, want, f"{name} axis={axis} dec={decreasing} excl={exclusive}")


# In place, each chunk's total (the next chunk's base) is taken from the input before the chunk's outputs overwrite
# it: lines past a chunk (32768 float64 elements, 65536 float32 and float16), every direction, one thread and three.
@pytest.mark.usefixtures("restore_thread_count")
@pytest.mark.parametrize("dtype", FLOATS)
def test_in_place_past_a_chunk(dtype):
    n = 2 * 65536 + 3
    a = lse_data(np.random.default_rng(seed_of("in place chunks", dtype)), n, dtype, neg_inf=0.01)
    a[0] = 10.0  # a total that the outputs over it would change
    for threads in (1, 3):
        simdscan.set_num_threads(threads)
        for dec, exc in VARIANTS:
            fresh = call(a, 0, dec, exc)
            check_logcumsumexp(fresh, a, 0, dec, exc, msg=f"{dtype} decreasing={dec} exclusive={exc}")
            inplace = a.copy()
            assert call(inplace, 0, dec, exc, out=inplace) is inplace
            assert_same_bits(inplace, fresh, f"in place {dtype} decreasing={dec} exclusive={exc} {threads} threads")


def test_in_place_issue_example():
    x = np.zeros(32769)
    x[0] = 1000.0
    assert simdscan.logcumsumexp(x, out=x)[-1] == 1000.0
