"""linear_recurrence, discounted_cumsum and ewm_mean along an outer axis whose rows are contiguous (time along axis 0
of a C-ordered (T, N) batch): the core walks each row of columns in turn, no transposing copy.

The README's rule (determinism): each column then has the bits of its own walk element by element, whatever the
array's width, the column's place in it, the tiles the core cuts the rows into, the thread count and where out
lies. For linear_recurrence those are the bits of a NumPy loop over the rows in the dtype (recurrence_reference.walked:
a multiply and an add per element, never fused); ewm_mean's are checked against pandas' DataFrame.ewm and for their
independence of the width, place, threads and out.
"""

import numpy as np
import pytest

import simdscan
from data import seed_of
from family_reference import assert_same_bits
from params import scattered_outs
from recurrence_reference import pandas_ewm_mean, walked, walks_rows

pytestmark = pytest.mark.kernels  # the outcome depends on the ISA tier and the xsimd version: CI runs these per tier

# Rows past the vector widths and the widths past the core's tiles (16 KiB of float64 or float32 states).
ROWS = 300
WIDTHS = (2, 7, 37, 2048 + 19, 4096 + 3)
VARIANTS = [(decreasing, exclusive) for decreasing in (False, True) for exclusive in (False, True)]


def a_of(kind, rng, shape, dtype):
    """The coefficient: a scalar, one per element, one per row (T, 1), or one per column (N,)."""
    if kind == "scalar":
        return 0.97
    sizes = {"array": shape, "per row": (shape[0], 1), "per column": shape[1:]}[kind]
    return rng.uniform(-1.0, 1.0, sizes).astype(dtype)


def reset_of(kind, rng, shape):
    if kind is None:
        return None
    return rng.random(shape if kind == "array" else (shape[0], 1)) < 0.03


@pytest.mark.parametrize("width", [63, 64])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("a_kind", ["scalar", "array", "per row", "per column"])
@pytest.mark.parametrize("reset_kind", [None, "array", "per row"])
def test_columns_are_the_loop_in_the_dtype(dtype, a_kind, reset_kind, width):
    """Every variant, with initial per column: exactly the NumPy loop over the rows in the dtype, into a new array
    and in place. 63 columns: on every tier's width an odd number of vectors (blocks of four and single ones) and
    columns beside them; 64: blocks of four vectors only, which walk bands of many rows (in place: no streaming
    stores, whose aligning head of columns would go one by one)."""
    rng = np.random.default_rng(seed_of("rows walk", dtype, a_kind, reset_kind, width))
    b = rng.standard_normal((ROWS, width)).astype(dtype)
    a = a_of(a_kind, rng, b.shape, dtype)
    reset = reset_of(reset_kind, rng, b.shape)
    initial = rng.standard_normal(width).astype(dtype)
    assert walks_rows(b, 0)
    for decreasing, exclusive in VARIANTS:
        direction = "decreasing" if decreasing else "increasing"
        where = f"{dtype} a {a_kind} reset {reset_kind} {direction} exclusive={exclusive}"
        want = walked(a, b, 0, decreasing, exclusive, initial, reset)
        got = simdscan.linear_recurrence(a, b, 0, direction=direction, exclusive=exclusive, initial=initial,
                                         reset=reset)
        assert_same_bits(got, want, where)
        y = b.copy()
        simdscan.linear_recurrence(a, y, 0, direction=direction, exclusive=exclusive, initial=initial, reset=reset,
                                   out=y)
        assert_same_bits(y, want, f"{where} in place")


def placed(columns, width, at):
    """An array of ``width`` columns holding ``columns`` (T, k) from column ``at`` on, random values elsewhere."""
    rng = np.random.default_rng(width + at)
    wide = rng.standard_normal((columns.shape[0], width)).astype(columns.dtype)
    wide[:, at:at + columns.shape[1]] = columns
    return wide


def with_gaps(rng, x):
    """x with NaN at scattered elements and a run of NaN down one column."""
    x = x.copy()
    x[rng.random(x.shape) < 0.1] = np.nan
    x[20:90, 1] = np.nan
    return x


FAMILIES = {
    "linear_recurrence": lambda x, **kw: simdscan.linear_recurrence(0.9, x, 0, initial=0.5, **kw),
    "discounted_cumsum": lambda x, **kw: simdscan.discounted_cumsum(x, 0.99, 0, **kw),
    "ewm_mean": lambda x, **kw: simdscan.ewm_mean(x, 0, alpha=0.05, **kw),
    "ewm_mean ignore_na": lambda x, **kw: simdscan.ewm_mean(x, 0, alpha=0.05, ignore_na=True, **kw),
    "ewm_mean adjust=False": lambda x, **kw: simdscan.ewm_mean(x, 0, alpha=0.05, adjust=False, **kw),
    "ewm_mean adjust=False ignore_na": lambda x, **kw: simdscan.ewm_mean(x, 0, span=9.0, adjust=False,
                                                                         ignore_na=True, **kw),
}


@pytest.mark.usefixtures("restore_thread_count")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("family", list(FAMILIES))
def test_a_column_has_the_same_bits_at_any_width_place_thread_count_and_out(family, dtype):
    """Three columns (one with a long run of NaN) placed among 2 to 4099 others, at the start, across a tile's edge
    and at the end, on 1 to 3 threads, written to a new array, to out at every offset and in place: the same bits."""
    call = FAMILIES[family]
    rng = np.random.default_rng(seed_of("rows width", family, dtype))
    columns = with_gaps(rng, rng.uniform(0.1, 2.0, (ROWS, 3)).astype(dtype))
    simdscan.set_num_threads(1)
    want = call(placed(columns, 3, 0))
    for width in WIDTHS:
        for at in sorted({0, min(width, 2048) - 2, width - 3} & set(range(width - 2))):
            x = placed(columns, width, at)
            for threads in (1, 2, 3):
                simdscan.set_num_threads(threads)
                where = f"{family} {dtype} width {width} at {at} {threads} threads"
                assert_same_bits(call(x)[:, at:at + 3], want, where)
            y = x.copy()
            assert call(y, out=y) is y
            assert_same_bits(y[:, at:at + 3], want, f"{family} {dtype} width {width} at {at} in place")
    x = placed(columns, 37, 5)
    for name, out in scattered_outs(x.shape, dtype).items():
        assert call(x, out=out) is out
        assert_same_bits(out[:, 5:8], want, f"{family} {dtype} out {name}")


@pytest.mark.usefixtures("restore_thread_count")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("family", list(FAMILIES) + ["ffill limit=2"])
def test_tiles_from_where_out_meets_a_cache_line(family, dtype):
    """Rows of 256 columns (a multiple of 64 bytes apart) written to out at every element offset within a cache
    line, on 1 to 4 threads: the tiles begin where out's rows meet a cache line (the first takes the columns before),
    and every column keeps the bits of its walk on one thread into a new array."""
    call = FAMILIES.get(family, lambda x, **kw: simdscan.ffill(x, 0, limit=2, **kw))
    rng = np.random.default_rng(seed_of("rows tiles", family, dtype))
    x = with_gaps(rng, rng.uniform(0.1, 2.0, (ROWS, 256)).astype(dtype))
    simdscan.set_num_threads(1)
    want = call(x)
    size = x.dtype.itemsize
    for offset in range(0, 64, size):
        buffer = np.empty(x.nbytes + 128, np.uint8)
        start = (-buffer.ctypes.data) % 64 + offset
        out = buffer[start:start + x.nbytes].view(x.dtype).reshape(x.shape)
        for threads in (1, 2, 3, 4):
            simdscan.set_num_threads(threads)
            assert call(x, out=out) is out
            assert_same_bits(out, want, f"{family} {dtype} out at {offset} bytes past a cache line, {threads} threads")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("adjust", [True, False])
@pytest.mark.parametrize("ignore_na", [False, True])
@pytest.mark.parametrize("halflife", [7.0, 1.0])
def test_ewm_mean_along_the_rows_matches_pandas(dtype, adjust, ignore_na, halflife):
    """A (T, N) frame with NaN gaps and runs, along axis 0: pandas' DataFrame.ewm(...).mean(), column by column
    (halflife 1: a run of 70 NaN leaves a column's weights few, mid-band)."""
    rng = np.random.default_rng(seed_of("rows ewm", dtype, adjust, ignore_na))
    x = with_gaps(rng, rng.uniform(0.1, 2.0, (ROWS, 45)).astype(dtype))
    x[:10, 3] = np.nan  # a column whose first values are missing
    got = simdscan.ewm_mean(x, 0, halflife=halflife, adjust=adjust, ignore_na=ignore_na)
    want = pandas_ewm_mean(x, 0, halflife=halflife, adjust=adjust, ignore_na=ignore_na)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-12 if dtype == "float64" else 1e-5, equal_nan=True)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_out_given_allocates_no_full_size_array(family):
    """With out= laid out as the walk takes it, no array of the input's size is made (NumPy's allocations, which
    tracemalloc sees: an out= of another layout costs a full-size one)."""
    import tracemalloc

    x = np.random.default_rng(seed_of("rows memory", family)).uniform(0.1, 2.0, (2000, 500))
    out = np.empty_like(x)
    FAMILIES[family](x, out=out)  # (the first call's imports and caches aside)
    tracemalloc.start()
    try:
        FAMILIES[family](x, out=out)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < x.nbytes // 8, f"{family}: {peak} bytes traced for an input of {x.nbytes}"


@pytest.mark.usefixtures("restore_thread_count")
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_strided_lines_are_staged_with_the_bits_of_contiguous_ones(dtype):
    """A view stepped by 2 (and reversed, by -3) along a line of several chunks (32768 elements), with an array a,
    resets and out stepped as well: each chunk gathered and scattered by the core, no copy of the input made in
    Python, and the bits of the contiguous copies' on 1 to 3 threads."""
    import tracemalloc

    rng = np.random.default_rng(seed_of("staged lines", dtype))
    n = 3 * 32768 + 101
    big = rng.uniform(-1.0, 1.0, 3 * n).astype(dtype)
    coefficients = rng.uniform(0.5, 1.0, 2 * n).astype(dtype)
    reset = rng.random(2 * n) < 1e-4
    for step in (2, -3):
        b, a, r = big[::step][:n], coefficients[::2][:n], reset[::2][:n]
        want = simdscan.linear_recurrence(a.copy(), b.copy(), initial=0.5, reset=r.copy())
        for threads in (1, 2, 3):
            simdscan.set_num_threads(threads)
            out = np.empty(2 * n, dtype)[::2]
            tracemalloc.start()
            try:
                got = simdscan.linear_recurrence(a, b, initial=0.5, reset=r, out=out)
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
            assert got is out
            assert_same_bits(got, want, f"{dtype} step {step} {threads} threads")
            assert peak < b.nbytes // 8, f"{peak} bytes traced for a line of {b.nbytes}"


def _laid_out(values, layout):
    """``values`` (T, N) in another layout of its columns: Fortran order, reversed, or every other column of a wider
    buffer."""
    if layout == "fortran":
        return np.asfortranarray(values)
    if layout == "reversed columns":
        return np.ascontiguousarray(values[:, ::-1])[:, ::-1]
    wide = np.zeros((values.shape[0], 2 * values.shape[1]), values.dtype)
    wide[:, ::2] = values
    return wide[:, ::2]


@pytest.mark.parametrize("family", ["linear_recurrence", "ewm_mean"])
@pytest.mark.parametrize("layout", ["fortran", "reversed columns", "stepped columns"])
def test_operands_not_laid_out_as_b_keep_the_rows_bits(family, layout):
    """b C-ordered along axis 0 (its rows walked), out, a and reset laid out otherwise (the core reads or writes them
    through copies): the bits of the walk, as with C-ordered operands; out's other elements and the inputs
    untouched."""
    rng = np.random.default_rng(seed_of("operands not as b", family, layout))
    b = rng.standard_normal((ROWS, 37))
    a = rng.uniform(-1.0, 1.0, b.shape)
    reset = rng.random(b.shape) < 0.03
    initial = rng.standard_normal(37)
    assert walks_rows(b, 0)
    for direction in ("increasing", "decreasing"):
        if family == "ewm_mean":
            want = simdscan.ewm_mean(b, 0, alpha=0.05)
            out = _laid_out(np.full(b.shape, 7.0), layout)
            got = simdscan.ewm_mean(b, 0, alpha=0.05, out=out)
        else:
            want = walked(a, b, 0, direction == "decreasing", False, initial, reset)
            out = _laid_out(np.full(b.shape, 7.0), layout)
            got = simdscan.linear_recurrence(_laid_out(a, layout), b, 0, direction=direction, initial=initial,
                                             reset=_laid_out(reset, layout), out=out)
        assert got is out
        assert_same_bits(np.array(got), want, f"{family} {layout} {direction}")
        if layout == "stepped columns":
            assert (out.base[:, 1::2] == 0).all()


#: the recurrences' families on a (T, N) batch along axis 0, each called as fn(x, axis, out=...)
BATCH_CALLS = {
    "linear_recurrence": lambda x, axis, reset, out: simdscan.linear_recurrence(0.97, x, axis, reset=reset, out=out),
    "discounted_cumsum": lambda x, axis, reset, out: simdscan.discounted_cumsum(x, 0.99, axis, reset=reset, out=out),
    "ewm_mean": lambda x, axis, reset, out: simdscan.ewm_mean(x, axis, alpha=0.1, out=out),
    "ewm_mean adjust=False": lambda x, axis, reset, out: simdscan.ewm_mean(x, axis, alpha=0.1, adjust=False,
                                                                           out=out),
    "ffill limit=2": lambda x, axis, reset, out: simdscan.ffill(x, axis, limit=2, out=out),
}


@pytest.mark.usefixtures("restore_thread_count")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("family", list(BATCH_CALLS))
def test_a_transposed_batch_walks_its_rows(family, dtype):
    """A (T, N) batch along axis 0 and its transpose (N, T) along axis 1 (the same memory), or a Fortran-ordered
    (N, T) copy: the rows walked either way, the same bits (the README's rule: the axes closer together in memory
    than the scan axis), into an out of either layout, on 1 and 3 threads; linear_recurrence's are the loop's."""
    rng = np.random.default_rng(seed_of("transposed batch", family, dtype))
    x = rng.standard_normal((300, 4096 + 3)).astype(dtype)
    x[rng.random(x.shape) < 0.2] = np.nan if family.startswith(("ewm", "ffill")) else 0
    reset = rng.random(x.shape) < 0.02
    call = BATCH_CALLS[family]
    want = call(x, 0, reset, None)
    if family == "linear_recurrence":
        assert_same_bits(want, walked(0.97, x, 0, False, False, None, reset), "the loop over the rows")
    for threads in (1, 3):
        simdscan.set_num_threads(threads)
        for name, (given, flags) in {"transposed": (x.T, reset.T),
                                     "fortran": (np.asfortranarray(x.T), np.asfortranarray(reset.T))}.items():
            assert walks_rows(given, 1)
            for out in (np.empty_like(given), np.empty(given.shape, dtype)):
                got = call(given, 1, flags, out)
                assert_same_bits(got.T, want, f"{family} {name} into {out.flags.f_contiguous and 'F' or 'C'} out, "
                                              f"{threads} threads")


@pytest.mark.usefixtures("restore_thread_count")
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex64"])
def test_interleaved_lines_keep_their_one_dimensional_bits(dtype):
    """Lines closer together in memory than their elements but not one contiguous run (every other line of a
    Fortran-ordered array, reversed too), walked by lines (the README's rule): the core gathers blocks of real ones
    side by side (complex ones line by line); each line's bits are its contiguous copy's, for every variant, with an
    array a and resets, in place, on 1 and 3 threads, lines short (many to a block) and past a chunk (one at a
    time)."""
    rng = np.random.default_rng(seed_of("interleaved lines", dtype))
    for lines, n in ((700, 150), (6, 70_000)):
        wide = np.asfortranarray(rng.uniform(-1.0, 1.0, (2 * lines, n)).astype(dtype))
        coefficients = np.asfortranarray(rng.uniform(0.5, 1.0, (2 * lines, n)).astype(dtype))
        flags = np.asfortranarray(rng.random((2 * lines, n)) < 0.01)
        for step in (2, -2):
            b, a, reset = wide[::step], coefficients[::step], flags[::step]
            assert not walks_rows(b, 1)
            for decreasing, exclusive in VARIANTS:
                direction = "decreasing" if decreasing else "increasing"
                kw = dict(direction=direction, exclusive=exclusive, initial=0.25)
                want = simdscan.linear_recurrence(a.copy(), b.copy(), 1, reset=reset.copy(), **kw)
                for threads in (1, 3):
                    simdscan.set_num_threads(threads)
                    where = f"{dtype} ({lines}, {n}) step {step} {direction} exclusive={exclusive} {threads} threads"
                    assert_same_bits(simdscan.linear_recurrence(a, b, 1, reset=reset, **kw), want, where)
                    in_place = np.asfortranarray(wide.copy())[::step]
                    simdscan.linear_recurrence(a, in_place, 1, reset=reset, out=in_place, **kw)
                    assert_same_bits(in_place, want, "in place " + where)
            mean = simdscan.ewm_mean(b, 1, alpha=0.05) if dtype != "complex64" else None
            if mean is not None:
                assert_same_bits(mean, simdscan.ewm_mean(b.copy(), 1, alpha=0.05), f"ewm_mean {dtype} step {step}")
