"""simdscan.ewm_mean: pandas' ``Series.ewm(com= | span= | halflife= | alpha=, adjust=, ignore_na=).mean()``
(min_periods 0) along every line of an array.

Checked against pandas itself (recurrence_reference.pandas_ewm_mean: a DataFrame with one column per line): float64
results within 1e-12 relative of pandas (element by element on positive data; relative to the line's largest |mean|
on signed data, where a mean may cancel to near 0); float32 and float16 results (computed in float32) within 1e-5
relative (float16: plus half a float16 ulp); integer inputs give float64. NaNs as pandas has them in both ignore_na
modes (leading NaNs, runs, all NaN); every way of giving the decay, both adjust modes, each axis of 2-D and 3-D
arrays, every layout of the input and of out, in place; the same bits for 1, 2 and 4 threads; and the errors (none or
two of com / span / halflife / alpha, values pandas refuses), which leave the input and out alone.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, note
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import simdscan
from compare import mismatch_report
from data import seed_of
from family_reference import assert_same_bits
from params import scattered_outs, stepped_reversed_out
from recurrence_reference import as_walked_by, ewm_result_dtype, pandas_ewm_mean, scales
from reference import LAYOUTS, apply_layout, assert_unchanged, snapshot

pytestmark = pytest.mark.kernels  # the outcome depends on the ISA tier and the xsimd version: CI runs these per tier

NAN = np.nan
THREAD_COUNTS = (1, 2, 4)
#: (keyword, values): every way of giving the decay, values pandas takes (including the edges, alpha = 1)
DECAYS = [
    ("com", 0.5), ("com", 9.0), ("com", 0.0),
    ("span", 1.0), ("span", 3.0), ("span", 40.0),
    ("halflife", 0.7), ("halflife", 10.0),
    ("alpha", 0.05), ("alpha", 0.5), ("alpha", 1.0),
]
DECAY_IDS = [f"{k}={v}" for k, v in DECAYS]
MODES = [(adjust, ignore_na) for adjust in (True, False) for ignore_na in (False, True)]
MODE_IDS = [f"adjust={a}-ignore_na={i}" for a, i in MODES]
TOLERANCE = {"float64": 1e-12, "float32": 1e-5, "float16": 1e-5}
IN_PLACE_LAYOUTS = ["C", "fortran", "reversed", "stepped", "transposed"]


def check_ewm(got, x, axis=-1, where="", relative="element", **params):
    """``got`` is ewm_mean(x, axis, **params): x's shape, the result dtype, NaN where pandas has NaN, and within the
    tolerance of the computing type, relative to each element (``relative="element"``) or to the largest |mean| of
    its line (``"line"``); a float16 result half a float16 ulp more."""
    x = np.asarray(x)
    rdt = ewm_result_dtype(x.dtype)
    assert isinstance(got, np.ndarray), f"{where}: returned {type(got)!r}"
    assert got.dtype == rdt, f"{where}: dtype {got.dtype}, expected {rdt}"
    assert got.shape == x.shape, f"{where}: shape {got.shape}, expected {x.shape}"
    want = pandas_ewm_mean(x, axis, **params)
    g = got.astype(np.float64)
    problems = []
    if not np.array_equal(np.isnan(g), np.isnan(want)):
        problems.append("NaN positions differ:\n" + mismatch_report(np.nonzero(np.isnan(g) != np.isnan(want)), g,
                                                                   want))
    tol = TOLERANCE["float64" if rdt == np.float64 else rdt.name]
    known = ~np.isnan(want)
    with np.errstate(invalid="ignore"):
        if relative == "element":
            t = tol * np.abs(want)
        else:
            t = tol * scales(want, axis).astype(np.float64) if x.ndim else tol * np.abs(want)
        if rdt == np.float16:
            t = t + 0.5 * np.spacing(np.maximum(np.abs(g), np.abs(want)).astype(np.float16)).astype(np.float64)
        bad = known & ~(np.abs(g - want) <= t)
    if bad.any():
        problems.append(f"outside {tol:g} relative ({relative}) of pandas:\n"
                        + mismatch_report(np.nonzero(bad), g, want, t))
    if problems:
        raise AssertionError(f"{where} {params}\n" + "\n".join(problems))


def positive(rng, shape, dtype="float64"):
    """Values in [1, 2]: means that never cancel, checked element by element."""
    return rng.uniform(1.0, 2.0, shape).astype(dtype)


def with_nans(rng, x, pattern):
    """``x`` with NaNs along its last axis: none, leading, scattered, runs, trailing, all."""
    x = x.copy()
    n = x.shape[-1]
    if pattern == "leading":
        x[..., :5] = NAN
    elif pattern == "scattered":
        x[rng.random(x.shape) < 0.2] = NAN
    elif pattern == "runs":
        for start in range(3, n, 37):
            x[..., start:start + 1 + start % 11] = NAN
        x[..., 0] = NAN
    elif pattern == "trailing":
        x[..., n // 2:] = NAN
    elif pattern == "all":
        x[...] = NAN
    return x


NAN_PATTERNS = ["none", "leading", "scattered", "runs", "trailing", "all"]


# --------------------------------------------------------------------------
# by hand
# --------------------------------------------------------------------------
def test_by_hand():
    """alpha = 1/2 on [1, 2, 3]: adjust=True, the weighted means (1, (1/2 + 2)/(3/2), (1/4 + 1 + 3)/(7/4));
    adjust=False, 1, 1.5, 2.25; a NaN carries the last mean (and counts as a step unless ignore_na)."""
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(simdscan.ewm_mean(x, alpha=0.5), [1, 5 / 3, 17 / 7], rtol=1e-15)
    np.testing.assert_array_equal(simdscan.ewm_mean(x, alpha=0.5, adjust=False), [1, 1.5, 2.25])
    np.testing.assert_allclose(simdscan.ewm_mean(x, com=1.0), [1, 5 / 3, 17 / 7], rtol=1e-15)
    np.testing.assert_allclose(simdscan.ewm_mean(x, span=3.0), [1, 5 / 3, 17 / 7], rtol=1e-15)
    np.testing.assert_allclose(simdscan.ewm_mean(x, halflife=1.0), [1, 5 / 3, 17 / 7], rtol=1e-15)
    y = np.array([NAN, 1.0, NAN, NAN, 3.0, NAN])
    for adjust, ignore_na, want in ((True, True, [NAN, 1, 1, 1, 7 / 3, 7 / 3]),
                                    (True, False, [NAN, 1, 1, 1, 25 / 9, 25 / 9]),
                                    (False, True, [NAN, 1, 1, 1, 2, 2]),
                                    (False, False, [NAN, 1, 1, 1, 2.6, 2.6])):  # (1/8 + 3/2) / (1/8 + 1/2)
        np.testing.assert_allclose(simdscan.ewm_mean(y, alpha=0.5, adjust=adjust, ignore_na=ignore_na), want,
                                   rtol=1e-15, err_msg=f"adjust={adjust} ignore_na={ignore_na}")
    np.testing.assert_array_equal(simdscan.ewm_mean(np.full(4, NAN), alpha=0.5), np.full(4, NAN))
    np.testing.assert_array_equal(simdscan.ewm_mean(np.full(4, 2.5), alpha=0.3), np.full(4, 2.5))


# --------------------------------------------------------------------------
# against pandas
# --------------------------------------------------------------------------
@pytest.mark.parametrize("adjust, ignore_na", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("key, value", DECAYS, ids=DECAY_IDS)
def test_matches_pandas(key, value, adjust, ignore_na):
    """1-D lines of 500 with every NaN pattern, positive (element-wise 1e-12) and signed (1e-12 of the line's
    largest |mean|)."""
    rng = np.random.default_rng(seed_of("pandas", key, value, adjust, ignore_na))
    params = {key: value, "adjust": adjust, "ignore_na": ignore_na}
    for pattern in NAN_PATTERNS:
        for relative, x in (("element", positive(rng, 500)), ("line", rng.uniform(-3, 3, 500))):
            x = with_nans(rng, x, pattern)
            snap = snapshot(x)
            check_ewm(simdscan.ewm_mean(x, **params), x, where=f"{pattern} {relative}", relative=relative, **params)
            assert_unchanged(x, snap)


@pytest.mark.parametrize("adjust, ignore_na", MODES, ids=MODE_IDS)
def test_long_lines(adjust, ignore_na):
    """10**5 values with small and large alpha, scattered NaNs: within 1e-12 of pandas element by element."""
    rng = np.random.default_rng(seed_of("long", adjust, ignore_na))
    x = with_nans(rng, positive(rng, 100_000), "scattered")
    for params in ({"alpha": 1e-4}, {"halflife": 50.0}, {"span": 2.0}):
        params = dict(params, adjust=adjust, ignore_na=ignore_na)
        check_ewm(simdscan.ewm_mean(x, **params), x, **params)


@pytest.mark.parametrize("adjust, ignore_na", MODES, ids=MODE_IDS)
def test_two_dimensional_along_each_axis(adjust, ignore_na):
    """A (60, 70) array along axis 0 (as pandas' DataFrame.ewm, column by column), axis 1 and -1 (as the
    transposed frame), and a 3-D array along its middle axis; NaN patterns differing by line."""
    rng = np.random.default_rng(seed_of("2-D", adjust, ignore_na))
    x = positive(rng, (60, 70))
    x[rng.random(x.shape) < 0.1] = NAN
    x[:4, 3] = NAN  # a column with leading NaNs
    x[5, :] = NAN
    x[:, 6] = NAN
    params = {"com": 4.0, "adjust": adjust, "ignore_na": ignore_na}
    frame = pd.DataFrame(x).ewm(**params).mean().to_numpy()
    np.testing.assert_allclose(simdscan.ewm_mean(x, 0, **params), frame, rtol=1e-12, atol=0, equal_nan=True)
    frame_t = pd.DataFrame(x.T).ewm(**params).mean().to_numpy().T
    for axis in (1, -1):
        np.testing.assert_allclose(simdscan.ewm_mean(x, axis, **params), frame_t, rtol=1e-12, atol=0, equal_nan=True)
    assert_same_bits(simdscan.ewm_mean(x, **params), simdscan.ewm_mean(x, 1, **params), "axis=-1 is the default")
    cube = with_nans(rng, positive(rng, (3, 40, 5)), "scattered")
    for axis in (0, 1, 2, -2):
        check_ewm(simdscan.ewm_mean(cube, axis, **params), cube, axis, where=f"3-D axis={axis}", **params)


DTYPES = ["float64", "float32", "float16", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


@pytest.mark.parametrize("adjust, ignore_na", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_dtypes(dtype, adjust, ignore_na):
    """The result keeps a floating input's dtype (float32 and float16 computed in float32, within 1e-5 relative of
    pandas on the same values) and is float64 for integers (within 1e-12)."""
    rng = np.random.default_rng(seed_of("dtypes", dtype, adjust, ignore_na))
    if np.dtype(dtype).kind == "f":
        x = with_nans(rng, positive(rng, (4, 300), dtype), "scattered")
    else:
        x = rng.integers(1, 100, (4, 300)).astype(dtype)
    for params in ({"alpha": 0.02}, {"span": 5.0}):
        params = dict(params, adjust=adjust, ignore_na=ignore_na)
        for axis in (0, 1):
            got = simdscan.ewm_mean(x, axis, **params)
            check_ewm(got, x, axis, where=f"{dtype} axis={axis}", **params)


@pytest.mark.parametrize("adjust, ignore_na", MODES, ids=MODE_IDS)
def test_long_nan_runs_keep_the_last_mean(adjust, ignore_na):
    """A run of NaNs long enough for the decayed weights to underflow to 0 (0.1**400, 0.5**1100): each mean in the
    run is still the last one within the tolerance, as pandas has it (never 0 / 0, nor the precision of subnormal
    weights), and the next observation follows pandas."""
    rng = np.random.default_rng(seed_of("long NaN run", adjust, ignore_na))
    for alpha, run in ((0.9, 400), (0.5, 1100), (0.999, 150)):
        x = positive(rng, 3 * run)
        x[run:2 * run] = NAN
        params = {"alpha": alpha, "adjust": adjust, "ignore_na": ignore_na}
        got = simdscan.ewm_mean(x, **params)
        check_ewm(got, x, where=f"alpha={alpha} run={run}", **params)


INF = np.inf
#: lines with infinities, which pandas takes as missing (NaN): inside, leading, all, -inf, +inf then -inf, with NaN
INFINITE_LINES = [
    [1.0, INF, 2.0, 3.0],
    [INF, 1.0, 2.0],
    [-INF, -INF, 4.0, NAN, 5.0],
    [INF, INF, INF],
    [-INF],
    [1.0, INF, -INF, 2.0, 3.0],
    [1.0, -INF, 2.0, INF, NAN, 3.0],
    [NAN, INF, NAN, 5.0, -INF, 6.0],
    [2.0, 3.0, INF],
]


@pytest.mark.parametrize("adjust, ignore_na", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_infinities_are_missing_as_in_pandas(dtype, adjust, ignore_na):
    """+-inf is a missing value, as pandas' ewm takes it (as NaN): by hand, the lines of INFINITE_LINES, random lines
    with both infinities and NaN (1-D, 2-D along each axis, written to out, in place), every way of giving the decay
    (alpha = 0.5 included: com == 1); the means those of the input with NaN for each infinity, bit for bit, and the
    input untouched. (An infinity once entered the weighted sums: inf from there on, NaN after inf and -inf.)"""
    if (dtype, adjust, ignore_na) == ("float64", True, False):
        np.testing.assert_allclose(simdscan.ewm_mean([1.0, INF, 2.0, 3.0], alpha=0.5), [1, 1, 1.8, 33 / 13],
                                   rtol=1e-15)
    rng = np.random.default_rng(seed_of("infinities", dtype, adjust, ignore_na))
    random_lines = rng.uniform(-3, 3, (3, 40))
    pick = rng.random(random_lines.shape)
    random_lines[pick < 0.1] = INF
    random_lines[(pick >= 0.1) & (pick < 0.2)] = -INF
    random_lines[(pick >= 0.2) & (pick < 0.3)] = NAN
    random_lines[1, :6] = INF  # a line that opens with infinities
    for step, (key, value) in enumerate(DECAYS):
        params = {key: value, "adjust": adjust, "ignore_na": ignore_na}
        for line in INFINITE_LINES:
            x = np.array(line, dtype)
            snap = snapshot(x)
            got = simdscan.ewm_mean(x, **params)
            check_ewm(got, x, where=f"{line}", relative="line", **params)
            assert_same_bits(got, simdscan.ewm_mean(np.where(np.isinf(x), NAN, x), **params), f"{line} as NaN")
            assert_unchanged(x, snap)
        x = random_lines.astype(dtype)
        as_nan = np.where(np.isinf(x), NAN, x)
        for axis in (0, 1):
            want = simdscan.ewm_mean(as_nan, axis, **params)
            got = simdscan.ewm_mean(x, axis, **params)
            check_ewm(got, x, axis, where=f"random axis={axis}", relative="line", **params)
            assert_same_bits(got, want, f"random axis={axis} as NaN")
            out = np.full(x.shape, 7, dtype)
            assert simdscan.ewm_mean(x, axis, out=out, **params) is out
            assert_same_bits(out, want, f"random axis={axis} out=")
            if step % 3 == 0:
                in_place = x.copy()
                assert simdscan.ewm_mean(in_place, axis, out=in_place, **params) is in_place
                assert_same_bits(in_place, want, f"random axis={axis} in place")


def test_alpha_one_is_the_input_filled_forward():
    """alpha = 1 (com = 0, span = 1): each mean is the last value seen (leading NaNs stay NaN), as pandas says."""
    rng = np.random.default_rng(seed_of("alpha 1"))
    x = with_nans(rng, positive(rng, 200), "runs")
    want = pd.Series(x).ffill().to_numpy()
    for params in ({"alpha": 1.0}, {"com": 0.0}, {"span": 1.0}):
        for adjust in (True, False):
            for ignore_na in (True, False):
                np.testing.assert_array_equal(simdscan.ewm_mean(x, adjust=adjust, ignore_na=ignore_na, **params),
                                              want, err_msg=f"{params} adjust={adjust} ignore_na={ignore_na}")


@given(x=hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=2, min_side=0, max_side=12),
                    elements=st.sampled_from([NAN, NAN, 1.0, 2.0, 1.5, 7.0, 3.25])),
       data=st.data())
def test_any_array_matches_pandas(x, data):
    """Any small array of positive numbers and NaNs, any axis, decay and mode, returned or written to an out."""
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    key = data.draw(st.sampled_from(["com", "span", "halflife", "alpha"]), label="key")
    value = data.draw({"com": st.sampled_from([0.0, 0.5, 3.0]), "span": st.sampled_from([1.0, 1.5, 10.0]),
                       "halflife": st.sampled_from([0.3, 1.0, 8.0]),
                       "alpha": st.sampled_from([0.01, 0.3, 1.0])}[key], label="value")
    params = {key: value, "adjust": data.draw(st.booleans(), label="adjust"),
              "ignore_na": data.draw(st.booleans(), label="ignore_na")}
    use_out = data.draw(st.booleans(), label="out")
    note(f"x={x!r}")
    out = np.full(x.shape, 7.0) if use_out else None
    got = simdscan.ewm_mean(x, axis, out=out, **params)
    if use_out:
        assert got is out
    check_ewm(got, x, axis, **params)


# --------------------------------------------------------------------------
# layouts, out= and in place
# --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float64", "float32", "int16"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_layouts(layout, dtype):
    """The input in any layout: the bits of its copy walked the same way (the README's rule), within pandas' values;
    the input untouched."""
    rng = np.random.default_rng(seed_of("layouts", layout, dtype))
    base = positive(rng, (9, 41), "float64")
    if dtype == "int16":
        base = np.round(base * 10).astype(dtype)
    else:
        base = with_nans(rng, base, "scattered").astype(dtype)
    x = apply_layout(base, layout)
    snap = snapshot(x)
    for axis in (0, 1, -1):
        c = as_walked_by(x, x, axis)
        for adjust, ignore_na in MODES:
            params = {"halflife": 3.0, "adjust": adjust, "ignore_na": ignore_na}
            got = simdscan.ewm_mean(x, axis, **params)
            assert_same_bits(got, simdscan.ewm_mean(c, axis, **params), f"{layout} axis={axis} {params}")
            check_ewm(got, c, axis, where=f"{layout} axis={axis}", **params)
    assert_unchanged(x, snap)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_out_of_any_layout(dtype):
    """out at every offset within a cache line, stepped, reversed, and inside a buffer whose other elements stay as
    they were: returned, holding the bits of the result without out."""
    rng = np.random.default_rng(seed_of("out", dtype))
    x = with_nans(rng, positive(rng, (7, 37), dtype), "scattered")
    for k, (name, out) in enumerate(scattered_outs(x.shape, dtype).items()):
        axis = k % 2
        params = {"alpha": 0.1, "adjust": k % 3 != 0, "ignore_na": k % 4 == 0}
        assert simdscan.ewm_mean(x, axis, out=out, **params) is out, name
        assert_same_bits(out, simdscan.ewm_mean(x, axis, **params), f"{dtype} {name}")
    view, buf, outside = stepped_reversed_out(x.shape, dtype, 57)
    assert simdscan.ewm_mean(x, 0, span=4.0, out=view) is view
    assert_same_bits(view, simdscan.ewm_mean(x, 0, span=4.0), "stepped reversed out")
    assert (buf[outside] == 57).all(), "elements of out's buffer outside out were written"
    ints = np.arange(12, dtype=np.int32).reshape(3, 4)
    out = np.empty((3, 4))
    assert simdscan.ewm_mean(ints, alpha=0.5, out=out) is out
    assert_same_bits(out, simdscan.ewm_mean(ints, alpha=0.5), "out for an integer input")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("layout", IN_PLACE_LAYOUTS)
def test_in_place(layout, dtype):
    rng = np.random.default_rng(seed_of("in place", layout, dtype))
    base = with_nans(rng, positive(rng, (6, 50), dtype), "runs")
    for axis in (0, 1, -1):
        for adjust, ignore_na in MODES:
            params = {"com": 2.0, "adjust": adjust, "ignore_na": ignore_na}
            x = apply_layout(base, layout)
            want = simdscan.ewm_mean(as_walked_by(base, x, axis), axis, **params)
            assert simdscan.ewm_mean(x, axis, out=x, **params) is x
            assert_same_bits(x, want, f"in place {layout} axis={axis} {params}")


def test_empty():
    for shape, axis in (((0,), 0), ((3, 0), -1), ((0, 4), -1), ((0, 4), 0)):
        for dtype, rdt in (("float32", "float32"), ("int8", "float64")):
            got = simdscan.ewm_mean(np.zeros(shape, dtype), axis, alpha=0.5)
            assert got.shape == shape and got.dtype == rdt


# --------------------------------------------------------------------------
# threads
# --------------------------------------------------------------------------
@pytest.mark.threads
@pytest.mark.usefixtures("restore_thread_count")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape, axis", [((300_000,), 0), ((3, 100_000), 1), ((400, 1000), 1), ((1000, 400), 0)],
                         ids=["long_line", "few_long_lines", "many_lines", "outer"])
def test_thread_count_does_not_change_a_bit(shape, axis, dtype):
    """Inputs over 1 MiB: 1, 2 and 4 threads give the same bits in every mode; one line checked against pandas."""
    rng = np.random.default_rng(seed_of("threads", shape, dtype))
    x = positive(rng, shape, dtype)
    x[rng.random(shape) < 0.01] = NAN
    assert x.nbytes > 1 << 20
    for k, (adjust, ignore_na) in enumerate(MODES):
        params = {"alpha": 0.001 if k % 2 else 0.3, "adjust": adjust, "ignore_na": ignore_na}
        simdscan.set_num_threads(1)
        single = simdscan.ewm_mean(x, axis, **params)
        if k == 0:
            line = np.moveaxis(x, axis, -1).reshape(-1, shape[axis])[-1]
            check_ewm(np.moveaxis(single, axis, -1).reshape(-1, shape[axis])[-1], line, **params)
        for threads in THREAD_COUNTS[1:]:
            simdscan.set_num_threads(threads)
            assert_same_bits(simdscan.ewm_mean(x, axis, **params), single, f"{params}: {threads} threads vs 1")


CHUNK = 1 << 15  # the core's chunk of a line (recurrences/state_paths.hpp): a long line's state handed on at these places


def chunked_line(rng, pattern, dtype):
    """A line of five chunks and a bit, its NaNs placed against the chunks' edges: a chunk that starts with a run, one
    wholly missing, a run long enough to age the weights past few_weights across an edge, and 30% scattered."""
    x = positive(rng, 5 * CHUNK + 123, dtype)
    if pattern == "scattered":
        x[rng.random(x.size) < 0.3] = NAN
    else:
        x[:CHUNK + 17] = NAN  # no value in the first chunk
        x[2 * CHUNK:3 * CHUNK] = NAN  # a chunk wholly missing, and the next starting after it
        x[4 * CHUNK - 1500:4 * CHUNK + 700] = NAN  # alpha 0.5: weights of 0.5**2200 at the edge
    return x


@pytest.mark.threads
@pytest.mark.usefixtures("restore_thread_count")
@pytest.mark.parametrize("pattern", ["scattered", "edges"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("adjust, ignore_na", MODES, ids=MODE_IDS)
def test_a_line_of_many_chunks_on_any_thread_count(adjust, ignore_na, dtype, pattern):
    """One line of several chunks, walked on 1 to 4 threads (one thread each chunk in turn; more: the chunks'
    compositions first, then their outputs): the same bits, within the tolerance of pandas, each missing value's
    output the one before it bit for bit across the chunks' edges, in place and strided alike."""
    rng = np.random.default_rng(seed_of("ewm chunks", adjust, ignore_na, dtype, pattern))
    x = chunked_line(rng, pattern, dtype)
    # (float32's adjust=False drifts past 1e-5 from pandas with alpha below 1e-2 on any line: docs/accuracy.md.)
    for alpha in (0.5, 0.01) if dtype == "float32" else (0.5, 0.01, 1e-4):
        params = {"alpha": alpha, "adjust": adjust, "ignore_na": ignore_na}
        got = {}
        for threads in (1, 2, 3, 4):
            simdscan.set_num_threads(threads)
            got[threads] = simdscan.ewm_mean(x, **params)
            if threads > 1:
                assert_same_bits(got[threads], got[1], f"{params}: {threads} threads against 1")
        check_ewm(got[1], x, where=pattern, **params)
        missing = np.isnan(x[1:]) & ~np.isnan(got[1][:-1])
        assert_same_bits(got[1][1:][missing], got[1][:-1][missing], f"{params}: a missing value's output")
        simdscan.set_num_threads(3)
        wide = np.full(2 * x.size, 7.0, dtype)
        wide[::2] = x
        out = np.zeros(3 * x.size, dtype)[::3]
        simdscan.ewm_mean(wide[::2], out=out, **params)
        assert_same_bits(out, got[1], f"{params}: strided in and out")
        in_place = x.copy()
        simdscan.ewm_mean(in_place, out=in_place, **params)
        assert_same_bits(in_place, got[1], f"{params}: in place")


# --------------------------------------------------------------------------
# errors: the input and out untouched
# --------------------------------------------------------------------------
BAD_PARAMETERS = [
    ("none", {}),
    ("com and span", {"com": 1.0, "span": 3.0}),
    ("alpha and halflife", {"alpha": 0.5, "halflife": 2.0}),
    ("all four", {"com": 1.0, "span": 3.0, "halflife": 2.0, "alpha": 0.5}),
    ("com < 0", {"com": -0.5}),
    ("span < 1", {"span": 0.5}),
    ("span 0", {"span": 0.0}),
    ("halflife 0", {"halflife": 0.0}),
    ("halflife < 0", {"halflife": -1.0}),
    ("alpha 0", {"alpha": 0.0}),
    ("alpha > 1", {"alpha": 1.5}),
    ("alpha < 0", {"alpha": -0.1}),
]


@pytest.mark.parametrize("name, params", BAD_PARAMETERS, ids=[n for n, _ in BAD_PARAMETERS])
def test_bad_decay_is_value_error(name, params):
    """None or two of com / span / halflife / alpha, or a value pandas refuses: ValueError (as pandas raises), with
    the input, out and an in-place input left as they were."""
    with pytest.raises(ValueError):
        pd.Series([1.0, 2.0]).ewm(**params)  # pandas agrees
    x = np.array([[1.0, NAN, 3.0], [4.0, 5.0, 6.0]])
    out = np.full(x.shape, 7.0)
    for kw in ({}, {"out": out}, {"out": x}):
        snaps = [(x, snapshot(x)), (out, snapshot(out))]
        with pytest.raises(ValueError):
            simdscan.ewm_mean(x, **params, **kw)
        for a, snap in snaps:
            assert_unchanged(a, snap)


def test_other_errors():
    """A bad axis (AxisError), out of another shape (ValueError) or dtype (TypeError): nothing written."""
    x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    snap = snapshot(x)
    with pytest.raises(np.exceptions.AxisError):
        simdscan.ewm_mean(x, 2, alpha=0.5)
    out = np.full((3, 2), 7.0)
    with pytest.raises(ValueError):
        simdscan.ewm_mean(x, alpha=0.5, out=out)
    assert (out == 7).all()
    out = np.full((2, 3), 7, np.float32)
    with pytest.raises(TypeError):
        simdscan.ewm_mean(x, alpha=0.5, out=out)
    assert (out == 7).all()
    assert_unchanged(x, snap)
    with pytest.raises(TypeError):
        simdscan.ewm_mean(x, -1, 0.5)  # the decay is keyword-only


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("ignore_na", [False, True])
def test_a_missing_value_repeats_the_mean_before_it_exactly(dtype, ignore_na):
    """pandas' rule: at a missing value the mean is the one before it, bit for bit (not the aged sums' quotient, an
    ulp away), on a line (its vectors and its elements) and along the rows of a (T, N) batch; the single value of
    the issue's example stays 3.0."""
    assert simdscan.ewm_mean(np.array([np.nan, np.nan, 3.0, np.nan], dtype), alpha=0.3)[3] == 3.0
    rng = np.random.default_rng(seed_of("ewm missing repeats", dtype, ignore_na))
    x = rng.standard_normal((3000, 37)).astype(dtype)
    x[rng.random(x.shape) < 0.3] = np.nan
    x[:40] = np.nan  # a leading gap: NaN until each column's first value
    for got, values in ((simdscan.ewm_mean(x.T.copy(), alpha=0.05, ignore_na=ignore_na), x.T),
                        (simdscan.ewm_mean(x, 0, alpha=0.05, ignore_na=ignore_na).T, x.T)):
        missing = np.isnan(values[:, 1:])
        assert_same_bits(got[:, 1:][missing], got[:, :-1][missing], f"{dtype} ignore_na={ignore_na}")
        want = pd.DataFrame(values.T.astype(np.float64)).ewm(alpha=0.05, ignore_na=ignore_na).mean().to_numpy().T
        np.testing.assert_allclose(got, want, rtol=1e-4 if dtype == "float32" else 1e-9, atol=1e-6)
