"""simdscan.dask's linear_recurrence, discounted_cumsum and ewm_mean, lazily, against the NumPy-level functions on the
computed arrays.

The state is carried across chunks as the pairs (A, B) of the chunks composed in the walk's order, then each chunk run
from its carry: every chunking (chunks of 1, uneven with empty chunks, one chunk, 2-D along each axis, 3-D, 0-d and
empty), both directions, inclusive and exclusive, ``initial`` (none, a scalar, a per-line NumPy array, broadcast, a
Dask array in chunks of its own), ``reset`` (none, sparse, at every chunk start, at every element; NumPy and Dask, bool
and 0/1 numbers) and ``a`` (a Python scalar, a NumPy array, broadcast, a Dask array in chunks of its own), in float32,
float64, complex128, integers (computed in float64) and float16 (computed in float32). Exact where every partial result
is exact (dyadic values: halves, and coefficients +-0.5, +-1, 2); random float64 within 1e-12 of the line's largest
|y|. ewm_mean in its four adjust / ignore_na modes, NaN runs across chunk boundaries, all-NaN chunks and lines. Also
the errors (the NumPy level's, while the graph is built; a Dask reset's values as it is computed) and laziness.
"""

import dask
import dask.array as da
import numpy as np
import pytest

import simdscan
import simdscan.dask as sdask
from dask_compare import EMPTY_CHUNK_CASES, EMPTY_CHUNK_IDS, TaskCounter
from data import seed_of
from recurrence_reference import check_close as check_against_loop
from recurrence_reference import pandas_ewm_mean, recurrence

DIRECTIONS = ("increasing", "decreasing")
INITIALS = ("none", "scalar", "lines", "broadcast", "dask")
RESETS = ("none", "sparse", "starts", "all", "dask", "dask-float")
COEFFICIENTS = ("scalar", "numpy", "broadcast", "dask")
DTYPES = ("float32", "float64", "complex128", "int16")

# (shape, chunks, axis): chunks of 1, uneven with empty chunks, one chunk, 2-D along either axis, 3-D
CASES = [
    ((13,), 1, 0),
    ((13,), ((3, 0, 5, 1, 0, 4),), -1),
    ((13,), 13, 0),
    ((6, 9), ((2, 0, 1, 3), (4, 5)), 0),
    ((6, 9), ((2, 0, 4), (4, 0, 1, 4)), 1),
    ((4, 3, 10), (2, (1, 2), (1, 4, 5)), 2),
    ((4, 5, 3), ((1, 3), 2, 2), 1),
]


def _case_id(case):
    return f"{case[0]}-{case[1]}-axis{case[2]}".replace(" ", "")


def computed(lazy):
    """The lazy result computed on the synchronous scheduler, unoptimized (small graphs run faster so)."""
    assert isinstance(lazy, da.Array), f"returned {type(lazy)!r}"
    (got,) = dask.compute(lazy, scheduler="sync", optimize_graph=False)
    return got


def halves(rng, shape, dtype):
    """Values k / 2 (k in -4..4), whose sums and products by +-0.5, +-1 and 2 stay exact; complex: both parts so."""
    values = rng.integers(-4, 5, size=shape) / 2.0
    if dtype == "complex128":
        return values + 1j * rng.integers(-4, 5, size=shape) / 2.0
    if dtype.startswith("int"):
        return rng.integers(-3, 4, size=shape).astype(dtype)
    return values.astype(dtype)


def coefficients(rng, shape, dtype):
    """Coefficients of the recurrence: +-0.5, +-1 (and 2 in float64 and complex, whose partial results stay exact)."""
    choices = [-1.0, -0.5, 0.5, 1.0] + ([2.0] if dtype in ("float64", "complex128") else [])
    a = rng.choice(choices, size=shape)
    if dtype == "complex128":
        return a * rng.choice([1, 1j, -1j], size=shape)
    if dtype.startswith("int"):
        return rng.choice([-1, 1, 2], size=shape).astype(dtype)
    return a.astype(dtype)


def chunk_starts(chunks):
    return np.cumsum(chunks)[:-1]


def along_axis(line, shape, axis):
    """A 1-D ``line`` along ``axis`` of an array of ``shape`` (broadcast over the other axes)."""
    ax = axis % len(shape)
    return line.reshape([-1 if k == ax else 1 for k in range(len(shape))])


def make_reset(pattern, rng, shape, chunks, axis):
    """(the NumPy reset, what is handed to simdscan.dask): none, sparse, every chunk start, every element; the Dask
    ones (bool, float 0 / 1) in chunks of their own."""
    if pattern == "none":
        return None, None
    if pattern == "starts":
        line = np.zeros(shape[axis], dtype=bool)
        line[chunk_starts(chunks[axis])] = True
        r = along_axis(line, shape, axis)
    elif pattern == "all":
        r = np.ones(shape, dtype=bool)
    else:
        r = rng.random(shape) < 0.2
    if pattern.startswith("dask"):
        values = r.astype(np.float64 if pattern == "dask-float" else bool)
        return r, da.from_array(values, chunks=tuple(max(1, -(-n // 2)) for n in values.shape))
    return r, r


def make_initial(kind, rng, line_shape, dtype):
    """(the NumPy initial, what is handed to simdscan.dask)."""
    if kind == "none":
        return None, None
    if kind == "scalar":
        return 1.5, 1.5
    value = halves(rng, line_shape if kind != "broadcast" else line_shape[-1:], dtype)
    if kind == "dask":
        return value, da.from_array(value, chunks=1)
    return value, value


def make_coefficient(kind, rng, shape, axis, dtype):
    """(the NumPy a, what is handed to simdscan.dask): a Python scalar, a full array, one broadcast along the axis, a
    Dask array in chunks of its own."""
    if kind == "scalar":
        return -0.5, -0.5
    if kind == "broadcast":
        a = along_axis(coefficients(rng, (shape[axis],), dtype), shape, axis)
        return a, a
    a = coefficients(rng, shape, dtype)
    return a, (da.from_array(a, chunks=2) if kind == "dask" else a)


def check_equal(got, want, where):
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype}, simdscan gives {want.dtype}"
    assert got.shape == want.shape, f"{where}: shape {got.shape}, simdscan gives {want.shape}"
    np.testing.assert_array_equal(got, want, err_msg=where)


# --------------------------------------------------------------------------
# linear_recurrence: the matrix, exact on dyadic values
# --------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=_case_id)
@pytest.mark.parametrize("dtype", DTYPES)
def test_linear_recurrence_matches_simdscan(dtype, case):
    """Every direction x exclusive x initial x reset, the coefficient's form by turns: bit for bit."""
    shape, chunks, axis = case
    rng = np.random.default_rng(seed_of("dask recurrence", dtype, case))
    b = halves(rng, shape, dtype)
    x = da.from_array(b, chunks=chunks)
    ax = axis % len(shape)
    line_shape = shape[:ax] + shape[ax + 1:]
    step = CASES.index(case)
    for direction in DIRECTIONS:
        for exclusive in (False, True):
            for initial_kind in INITIALS:
                for pattern in RESETS:
                    a_kind = COEFFICIENTS[step % len(COEFFICIENTS)]
                    step += 1
                    a, a_given = make_coefficient(a_kind, rng, shape, axis, dtype)
                    initial, initial_given = make_initial(initial_kind, rng, line_shape, dtype)
                    reset, reset_given = make_reset(pattern, rng, shape, x.chunks, ax)
                    lazy = sdask.linear_recurrence(a_given, x, axis, direction=direction, exclusive=exclusive,
                                                   initial=initial_given, reset=reset_given)
                    assert lazy.chunks == x.chunks
                    want = simdscan.linear_recurrence(a, b, axis, direction=direction, exclusive=exclusive,
                                                      initial=initial, reset=reset)
                    where = (f"linear_recurrence({dtype}, chunks={x.chunks}, axis={axis}, {direction}, "
                             f"exclusive={exclusive}, a {a_kind}, initial {initial_kind}, reset {pattern})")
                    check_equal(computed(lazy), want, where)


def test_dtypes_float16_weak_scalars_and_dtype_argument():
    """float16 carried in float32 and rounded once per output; Python scalars weak (float32 stays float32); NumPy
    scalars and integer arrays as the NumPy level types them; ``dtype=``; a complex scalar coefficient."""
    rng = np.random.default_rng(seed_of("dask recurrence dtypes"))
    b64 = halves(rng, (16,), "float64")  # (16 elements: 0.5**15 * 2 within float32's 24 bits)
    cases = [
        (0.5, b64.astype(np.float16), {}),
        (np.float64(0.5), b64.astype(np.float32), {}),
        (0.5, b64.astype(np.float32), {"initial": np.float64(1.5)}),
        (coefficients(rng, (16,), "int16"), b64.astype(np.float32), {}),
        (2, rng.integers(-3, 4, 16).astype(np.int8), {"initial": 1}),
        (0.5, b64, {"dtype": np.float32}),
        (0.5, b64, {"dtype": np.float16, "initial": 2.0}),
        (0.5j, b64.astype(np.float32), {"dtype": np.complex128}),
        (-0.5, rng.integers(0, 2, 16).astype(bool), {}),
    ]
    for a, b, kw in cases:
        for direction in DIRECTIONS:
            for reset in (None, np.arange(16) % 7 == 3):
                want = simdscan.linear_recurrence(a, b, direction=direction, reset=reset, **kw)
                got = computed(sdask.linear_recurrence(a, da.from_array(b, chunks=((4, 0, 5, 7),)),
                                                       direction=direction, reset=reset, **kw))
                check_equal(got, want, f"a={a!r} b {b.dtype} {kw} {direction} reset {reset is not None}")


def test_zero_d_and_empty():
    """A 0-d b runs as shape (1,); empty axes and empty lines give empty results (any reset values: none is read);
    ewm_mean and discounted_cumsum of 0-d and empty arrays."""
    for a, b, chunks, axis, kw in [
        (0.5, np.array(1.5), (), 0, {"initial": 2.0}),
        (np.array(0.5), np.array(-1.0), (), -1, {"reset": True, "exclusive": True}),
        (0.5, np.zeros(0), 3, 0, {"reset": np.zeros(0)}),
        (np.ones((3, 1)), np.zeros((3, 0)), 2, 1, {"initial": np.ones(3)}),
        (0.5, np.zeros((0, 4)), 2, 0, {"reset": np.array([2, 0, 0, 0])}),
        (0.5, np.zeros((0, 4)), 2, 1, {"initial": 1.0}),
    ]:
        for direction in DIRECTIONS:
            want = simdscan.linear_recurrence(a, b, axis, direction=direction, **kw)
            got = computed(sdask.linear_recurrence(a, da.from_array(b, chunks=chunks), axis, direction=direction,
                                                   **kw))
            check_equal(got, want, f"b shape {b.shape} axis {axis} {kw} {direction}")
    for data, chunks, axis in [(np.array(np.nan), (), 0), (np.array(2.5), (), -1), (np.zeros((0, 3)), 2, 0),
                               (np.zeros((3, 0), dtype=np.float32), 2, 0)]:
        for adjust in (False, True):
            # (an empty axis: no mean, in the data's floating dtype)
            want = np.empty(data.shape, data.dtype) if data.size == 0 else simdscan.ewm_mean(data, axis, alpha=0.5,
                                                                                            adjust=adjust)
            check_equal(computed(sdask.ewm_mean(da.from_array(data, chunks=chunks), axis, alpha=0.5, adjust=adjust)),
                        want, f"ewm_mean(shape {data.shape}, axis {axis}, adjust={adjust})")
        want = simdscan.discounted_cumsum(data, 0.5, axis, reset=True)
        got = computed(sdask.discounted_cumsum(da.from_array(data, chunks=chunks), 0.5, axis, reset=True))
        check_equal(got, want, f"discounted_cumsum(shape {data.shape}, axis {axis})")


def test_special_values_stay_in_their_segment():
    """inf and NaN in b or a reach the later elements of their segment only, across chunk boundaries, as on the
    whole array; a carry of inf through a chunk of a = 1."""
    b = np.array([1.0, np.inf, 1.0, 1.0, np.nan, 1.0, 1.0, 1.0, -np.inf, 1.0, 1.0, 1.0])
    a = np.array([0.5, 0.5, 1.0, 1.0, 0.5, 0.5, np.nan, 0.5, 1.0, 1.0, 0.0, 0.5])
    resets = [None, np.isin(np.arange(12), [2, 6, 8]), np.isin(np.arange(12), [3, 5, 7, 9])]
    for chunks in (1, ((3, 0, 1, 4, 4),), ((6, 6),)):
        for coefficient in (a, 1.0):
            for reset in resets:
                for direction in DIRECTIONS:
                    for exclusive in (False, True):
                        kw = dict(direction=direction, exclusive=exclusive, reset=reset)
                        want = simdscan.linear_recurrence(coefficient, b, **kw)
                        with np.errstate(invalid="ignore"):
                            got = computed(sdask.linear_recurrence(coefficient, da.from_array(b, chunks=chunks),
                                                                   **kw))
                        where = f"chunks={chunks} a={np.ndim(coefficient)}-d {kw}"
                        np.testing.assert_array_equal(got, want, err_msg=where)


def test_random_float64_within_the_accuracy_contract():
    """Random float64 a in [-1.05, 1.05] and b, 4000 elements in 40 uneven chunks, 2-D, sparse resets and per-line
    initial states, on Dask's default (threaded) scheduler: within 1e-12 of each line's largest |y| of simdscan on
    the whole array."""
    rng = np.random.default_rng(seed_of("dask recurrence random"))
    n = 4000
    cuts = np.sort(rng.choice(np.arange(1, n), 39, replace=False))
    chunks = (2, tuple(int(c) for c in np.diff(np.r_[0, cuts, n])))
    a = rng.uniform(-1.05, 1.05, (3, n))
    b = rng.normal(size=(3, n))
    initial = rng.normal(size=3)
    for reset in (None, rng.random((3, n)) < 0.003):
        for direction in DIRECTIONS:
            for exclusive in (False, True):
                for coefficient in (a, 0.999):
                    kw = dict(direction=direction, exclusive=exclusive, initial=initial, reset=reset)
                    want = simdscan.linear_recurrence(coefficient, b, **kw)
                    got = sdask.linear_recurrence(coefficient, da.from_array(b, chunks=chunks), **kw).compute()
                    scale = np.max(np.abs(want), axis=1, keepdims=True)
                    error = np.max(np.abs(got - want) / scale)
                    assert error <= 1e-12, f"{kw}, a {np.ndim(coefficient)}-d: off by {error:.3g} of the line's max"


# --------------------------------------------------------------------------
# |a| > 1: chunks whose product of a's overflows; a carry of inf past one whose product underflows
# --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_growing_a_past_a_chunk_whose_product_overflows(dtype):
    """A chunk whose product of a's overflows hands on the state its walk reaches, as the NumPy level does, never
    inf * 0 = NaN: a = 1.03 over chunks of 35 000 from a state of 0 gives exactly 0 and the 1 of b (discounted_cumsum
    too); a = 2 then 1 (powers of two, every value exact) from 0 and from a tiny initial, through an empty chunk, the
    state ending at 2**30. Every variant, a scalar, NumPy or Dask a, a reset in the last chunk: bit for bit as the
    NumPy level and the exact values."""
    b = np.zeros(70_000, dtype)
    for decreasing, exclusive in ((False, False), (True, False), (False, True), (True, True)):
        b[:] = 0
        b[0 if decreasing else -1] = 1
        direction = DIRECTIONS[decreasing]
        want = simdscan.linear_recurrence(1.03, b, direction=direction, exclusive=exclusive)
        np.testing.assert_array_equal(want, b if not exclusive else np.zeros_like(b), strict=True)
        got = computed(sdask.linear_recurrence(1.03, da.from_array(b, chunks=35_000), direction=direction,
                                               exclusive=exclusive))
        check_equal(got, want, f"{dtype} a=1.03 {direction} exclusive={exclusive}")
    got = computed(sdask.discounted_cumsum(da.from_array(b, chunks=35_000), 1.03))
    check_equal(got, simdscan.discounted_cumsum(b, 1.03), f"{dtype} discounted_cumsum gamma=1.03")

    wide = np.finfo(dtype).bits == 64
    n, chunks, tiny = (3000, (1100, 0, 1200, 700), 2.0 ** -1000) if wide else (400, (140, 0, 160, 100), 2.0 ** -100)
    doublings = int(-np.log2(tiny)) + 30  # past the type's range in the first chunk
    walk_a = np.ones(n)
    walk_a[:doublings] = 2
    walk_b = np.zeros(n)
    walk_b[-1] = 1
    reset = np.zeros(n, bool)
    reset[n - 50] = True
    for initial in (0.0, tiny):
        before = np.ldexp(initial, np.minimum(np.arange(n), doublings))
        for decreasing, exclusive in ((False, False), (True, False), (False, True), (True, True)):
            want_line = before if exclusive else np.r_[before[1:], before[-1] + 1]
            a, b, exact = ((x[::-1] if decreasing else x).astype(dtype) for x in (walk_a, walk_b, want_line))
            x = da.from_array(b, chunks=(chunks[::-1] if decreasing else chunks,))
            direction = DIRECTIONS[decreasing]
            for a_given in (a, da.from_array(a, chunks=250), 2.0):
                for r in (None, reset[::-1] if decreasing else reset):
                    kw = dict(direction=direction, exclusive=exclusive, initial=initial, reset=r)
                    a_numpy = a if np.ndim(a_given) else a_given
                    where = f"{dtype} a {type(a_given).__name__} initial={initial} {kw}"
                    want = simdscan.linear_recurrence(a_numpy, b, **kw)
                    check_equal(computed(sdask.linear_recurrence(a_given, x, **kw)), want, where)
                    if np.ndim(a_given) and r is None:
                        np.testing.assert_array_equal(want, exact, err_msg=where, strict=True)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_growing_a_from_a_tiny_state(dtype):
    """a = 1.03 (float32: 1.003), a scalar or an array, b and initial tiny (1e-300; float32: 1e-30), 45 000 elements
    in uneven chunks, some whose product of a's overflows: finite throughout (never inf * 1e-300 = inf), within the
    contract of the extended-precision loop relative to the running largest |y|, and of the NumPy level's result:
    within an ulp a vector, as a scalar a's powers drift (n / 2 ulps where a vector holds two elements: SSE2's
    float64, n / 4 its float32)."""
    rng = np.random.default_rng(seed_of("dask tiny state", dtype))
    wide = np.finfo(dtype).bits == 64
    growth, tiny, chunks = (1.03, 1e-300, (10_000, 26_000, 9000)) if wide else (1.003, 1e-30, (31_000, 14_000))
    n = sum(chunks)
    tol = float(np.finfo(dtype).eps) * n / (16 // np.dtype(dtype).itemsize)
    b = (tiny * rng.normal(size=n)).astype(dtype)
    x = da.from_array(b, chunks=(chunks,))
    coefficient = (growth * (1 + 1e-4 * rng.random(n))).astype(dtype)
    for a in (growth, coefficient, da.from_array(coefficient, chunks=7000)):
        a_numpy = coefficient if np.ndim(a) else a
        for decreasing, exclusive in ((False, False), (True, False), (False, True), (True, True)):
            kw = dict(direction=DIRECTIONS[decreasing], exclusive=exclusive, initial=tiny)
            where = f"{dtype} a {type(a).__name__} {kw}"
            got = computed(sdask.linear_recurrence(a, x, **kw))
            assert np.isfinite(got).all(), f"{where}: {np.count_nonzero(~np.isfinite(got))} outputs not finite"
            want = recurrence(a_numpy, b, decreasing=decreasing, exclusive=exclusive, initial=tiny)
            check_against_loop(got, want, dtype, decreasing=decreasing, scale="running", tol=tol, where=where)
            numpy_level = simdscan.linear_recurrence(a_numpy, b, **kw).astype(np.longdouble)
            check_against_loop(got, numpy_level, dtype, decreasing=decreasing, scale="running", tol=tol,
                               where=f"{where} against the NumPy level")


def test_infinite_carry_past_a_chunk_whose_product_underflows():
    """An infinity carried into a chunk whose product of a's underflows to 0 (0.5**2000) stays infinite, as the
    NumPy level keeps it (never 0 * inf = NaN): linear_recurrence in every variant; ewm_mean in its four modes, which
    takes the infinities as missing values (pandas' rule), as the NumPy level does."""
    rng = np.random.default_rng(seed_of("dask inf carry"))
    data = rng.normal(size=6000)
    data[100] = np.inf
    data[5900] = -np.inf
    x = da.from_array(data, chunks=2000)
    for decreasing, exclusive in ((False, False), (True, False), (False, True), (True, True)):
        kw = dict(direction=DIRECTIONS[decreasing], exclusive=exclusive)
        want = simdscan.linear_recurrence(0.5, data, **kw)
        assert np.isinf(want[200:5800]).all()
        check_equal(computed(sdask.linear_recurrence(0.5, x, **kw)), want, f"linear_recurrence {kw}")
    for adjust, ignore_na in MODES:
        kw = dict(alpha=0.5, adjust=adjust, ignore_na=ignore_na)
        want = simdscan.ewm_mean(data, **kw)
        assert np.isfinite(want).all()
        check_close(computed(sdask.ewm_mean(x, **kw)), want, 1e-12, f"ewm_mean {kw}")


# --------------------------------------------------------------------------
# discounted_cumsum
# --------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_discounted_cumsum_matches_simdscan(case):
    """Returns from the end, gamma a scalar, a NumPy array or a Dask one, resets at episode starts (NumPy, Dask), the
    dtypes by turns: bit for bit."""
    shape, chunks, axis = case
    rng = np.random.default_rng(seed_of("dask discounted", case))
    ax = axis % len(shape)
    step = CASES.index(case)
    for i in range(3):
        for pattern in RESETS:
            dtype = DTYPES[step % len(DTYPES)]
            step += 1
            rewards = halves(rng, shape, dtype)
            x = da.from_array(rewards, chunks=chunks)
            gamma = 0.5 if i == 0 else coefficients(rng, shape, dtype)
            reset, reset_given = make_reset(pattern, rng, shape, x.chunks, ax)
            given = da.from_array(gamma, chunks=3) if i == 2 else gamma
            lazy = sdask.discounted_cumsum(x, given, axis, reset=reset_given)
            want = simdscan.discounted_cumsum(rewards, gamma, axis, reset=reset)
            check_equal(computed(lazy), want, f"discounted_cumsum({dtype}, chunks={x.chunks}, gamma {i}, {pattern})")


# --------------------------------------------------------------------------
# ewm_mean
# --------------------------------------------------------------------------
MODES = [(adjust, ignore_na) for adjust in (True, False) for ignore_na in (False, True)]
MODE_IDS = [f"adjust={a}-ignore_na={i}" for a, i in MODES]
DECAYS = [{"com": 0.5}, {"span": 3.0}, {"halflife": 2.5}, {"alpha": 1.0}, {"alpha": 0.3}]


def check_close(got, want, rtol, where):
    """NaN where ``want`` has NaN; elsewhere within ``rtol`` of the line's (last axis) largest |want|."""
    assert got.dtype == want.dtype and got.shape == want.shape, f"{where}: {got.dtype} {got.shape}"
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=f"{where}: NaN places")
    g, w = np.nan_to_num(got.astype(np.float64)), np.nan_to_num(want.astype(np.float64))
    scale = np.max(np.abs(w), axis=-1, keepdims=True)
    bound = rtol * scale + (np.spacing(np.abs(np.nan_to_num(want))).astype(np.float64) if want.dtype == np.float16
                            else 0)
    assert np.all(np.abs(g - w) <= bound), f"{where}: off by {np.max(np.abs(g - w) - bound):.3g} beyond the bound"


def nan_patterns(rng, n):
    """NaN runs across chunk boundaries: leading NaNs over several chunks, scattered NaNs, a long run, none."""
    lead = np.arange(n) < n // 3
    scattered = rng.random(n) < 0.3
    run = (np.arange(n) > n // 4) & (np.arange(n) < 3 * n // 4)
    return {"leading": lead, "scattered": scattered, "run": run, "none": np.zeros(n, dtype=bool)}


@pytest.mark.parametrize("adjust, ignore_na", MODES, ids=MODE_IDS)
def test_ewm_mean_matches_simdscan(adjust, ignore_na):
    """1-D in chunks of 1, uneven with empty chunks, one chunk; 2-D along each axis (a line all NaN); 3-D; float64
    within 1e-12 of the line's largest |mean|, float32 and float16 (computed in float32) within 1e-5, integers as
    float64; every way of giving the decay."""
    rng = np.random.default_rng(seed_of("dask ewm", adjust, ignore_na))
    n = 29
    step = 0
    for chunks in (1, ((5, 0, 7, 1, 0, 16),), 29):
        for pattern, missing in nan_patterns(rng, n).items():
            for dtype in ("float64", "float32", "float16", "int32"):
                decay = DECAYS[step % len(DECAYS)]
                step += 1
                values = rng.normal(size=n) + 2
                data = values.astype(dtype) if dtype.startswith("int") else np.where(missing, np.nan, values)
                data = data.astype(dtype)
                kw = dict(adjust=adjust, ignore_na=ignore_na, **decay)
                want = simdscan.ewm_mean(data, **kw)
                got = computed(sdask.ewm_mean(da.from_array(data, chunks=chunks), **kw))
                rtol = 1e-12 if want.dtype == np.float64 else 1e-5
                check_close(got, want, rtol, f"ewm_mean({dtype}, chunks {chunks}, NaN {pattern}, {kw})")
    grid = rng.normal(size=(5, 12))
    grid[rng.random((5, 12)) < 0.3] = np.nan
    grid[2] = np.nan
    cube = np.where(rng.random((3, 4, 10)) < 0.3, np.nan, rng.normal(size=(3, 4, 10)))
    for data, chunks, axes in ((grid, ((2, 0, 3), (5, 1, 6)), (0, 1, -1)), (cube, (2, 3, (3, 0, 7)), (0, 1, 2))):
        for axis in axes:
            kw = dict(adjust=adjust, ignore_na=ignore_na, alpha=0.4)
            want = simdscan.ewm_mean(data, axis, **kw)
            got = computed(sdask.ewm_mean(da.from_array(data, chunks=chunks), axis, **kw))
            check_close(np.moveaxis(got, axis, -1), np.moveaxis(want, axis, -1), 1e-12,
                        f"ewm_mean(shape {data.shape}, axis {axis}, {kw})")


@pytest.mark.parametrize("adjust, ignore_na", MODES, ids=MODE_IDS)
def test_ewm_mean_infinities_are_missing_as_in_pandas(adjust, ignore_na):
    """+-inf is missing, as NaN (pandas' rule): leading infinities over chunks, both signs within a chunk and across
    boundaries, an all-infinite chunk; float64 within 1e-12 of pandas, float32 and float16 of the NumPy level."""
    pytest.importorskip("pandas")
    inf = np.inf
    data = np.array([inf, -inf, inf, 1.0, inf, 2.0, np.nan, -inf, 3.0, inf, inf, inf, 4.0, -inf, 5.0, inf])
    for chunks in (1, ((3, 0, 4, 2, 3, 4),), ((2, 9, 5),)):
        for decay in DECAYS:
            kw = dict(adjust=adjust, ignore_na=ignore_na, **decay)
            want = pandas_ewm_mean(data, **kw)  # (com == 1 with adjust=False: past pandas 3's special case)
            got = computed(sdask.ewm_mean(da.from_array(data, chunks=chunks), **kw))
            check_close(got, want, 1e-12, f"float64 chunks {chunks} {kw}")
            for dtype in ("float32", "float16"):
                narrow = data.astype(dtype)
                got = computed(sdask.ewm_mean(da.from_array(narrow, chunks=chunks), **kw))
                check_close(got, simdscan.ewm_mean(narrow, **kw), 1e-5, f"{dtype} chunks {chunks} {kw}")


@pytest.mark.parametrize("shape, chunks", EMPTY_CHUNK_CASES, ids=EMPTY_CHUNK_IDS)
def test_empty_chunks_beside_an_axis_of_length_1(shape, chunks):
    """Empty chunks such as (0, 1) on an axis of length 1, which Dask's elementwise broadcasting takes for a
    broadcast axis (ewm_mean(adjust=False) raised Missing dependency / Chunks do not add up): ewm_mean in every mode
    within 1e-12 of pandas, linear_recurrence (a, initial and reset as NumPy and as Dask arrays) and
    discounted_cumsum as simdscan has them, along each axis; the result in the input's chunks."""
    pytest.importorskip("pandas")
    rng = np.random.default_rng(seed_of("empty chunks", shape, chunks))
    data = rng.normal(size=shape) + 2
    data[rng.random(shape) < 0.2] = np.nan
    x = da.from_array(data, chunks=chunks)
    a = rng.choice([-0.5, 0.5, 1.0], size=shape)
    reset = rng.random(shape) < 0.3
    for axis in range(len(shape)):
        line_shape = shape[:axis] + shape[axis + 1:]
        initial = rng.integers(-2, 3, size=line_shape) / 2.0
        line_chunks = chunks[:axis] + chunks[axis + 1:]
        for adjust, ignore_na in MODES:
            kw = dict(alpha=0.3, adjust=adjust, ignore_na=ignore_na)
            lazy = sdask.ewm_mean(x, axis, **kw)
            assert lazy.chunks == x.chunks, f"ewm_mean {kw}: chunks {lazy.chunks}"
            check_close(np.moveaxis(computed(lazy), axis, -1), np.moveaxis(pandas_ewm_mean(data, axis, **kw), axis, -1),
                        1e-12, f"ewm_mean(chunks {chunks}, axis {axis}, {kw})")
        for lazy_operands in (False, True):
            given = dict(reset=reset, initial=initial)
            if lazy_operands:
                given = dict(reset=da.from_array(reset, chunks=chunks),
                             initial=da.from_array(initial, chunks=line_chunks))
            coefficient = da.from_array(a, chunks=chunks) if lazy_operands else a
            for direction in DIRECTIONS:
                lazy = sdask.linear_recurrence(coefficient, x, axis, direction=direction, **given)
                assert lazy.chunks == x.chunks
                want = simdscan.linear_recurrence(a, data, axis, direction=direction, reset=reset, initial=initial)
                check_equal(computed(lazy), want, f"linear_recurrence(chunks {chunks}, axis {axis}, {direction}, "
                                                  f"Dask operands {lazy_operands})")
            lazy = sdask.discounted_cumsum(x, coefficient, axis, reset=given["reset"])
            check_equal(computed(lazy), simdscan.discounted_cumsum(data, a, axis, reset=reset),
                        f"discounted_cumsum(chunks {chunks}, axis {axis}, Dask operands {lazy_operands})")


def test_ewm_mean_long_line_against_pandas():
    """A long line in 30 uneven chunks, NaN runs across their boundaries: within 1e-12 of pandas in every mode."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed_of("dask ewm pandas"))
    n = 3000
    data = rng.normal(size=n) + 5
    data[rng.random(n) < 0.2] = np.nan
    data[:150] = np.nan
    data[1000:1400] = np.nan
    cuts = np.sort(rng.choice(np.arange(1, n), 29, replace=False))
    x = da.from_array(data, chunks=(tuple(int(c) for c in np.diff(np.r_[0, cuts, n])),))
    for adjust, ignore_na in MODES:
        want = pd.Series(data).ewm(halflife=40.0, adjust=adjust, ignore_na=ignore_na).mean().to_numpy()
        got = computed(sdask.ewm_mean(x, halflife=40.0, adjust=adjust, ignore_na=ignore_na))
        check_close(got, want, 1e-12, f"adjust={adjust} ignore_na={ignore_na}")


@pytest.mark.parametrize("adjust, ignore_na", MODES, ids=MODE_IDS)
def test_ewm_mean_chunks_carry_the_core_state(adjust, ignore_na):
    """Chunks longer than the core's own (32768 elements), cut anywhere, each line's state carried from one to the next:
    a long line within 1e-12 of the NumPy level (a NaN run across a boundary, alpha 1 whose weights fall to 0 at a
    NaN); a table along axis 0 (its rows walked element by element) bit for bit, float32 and float16 too."""
    rng = np.random.default_rng(seed_of("dask ewm carried", adjust, ignore_na))
    n = 100_003
    data = rng.normal(size=n) + 3
    data[rng.random(n) < 0.25] = np.nan
    data[40_000:41_000] = np.nan
    for alpha in (0.001, 0.3, 1.0):
        kw = dict(adjust=adjust, ignore_na=ignore_na, alpha=alpha)
        want = simdscan.ewm_mean(data, **kw)
        for chunks in ((40_500, 59_503), (33_000, 7_000, 60_003)):
            got = computed(sdask.ewm_mean(da.from_array(data, chunks=(chunks,)), **kw))
            check_close(got, want, 1e-12, f"1-D chunks {chunks} {kw}")
        table = data[: 1000 * 100].reshape(1000, 100)
        for dtype in ("float64", "float32", "float16"):
            t = table.astype(dtype)
            lazy = sdask.ewm_mean(da.from_array(t, chunks=((300, 1, 699), (64, 36))), 0, **kw)
            check_equal(computed(lazy), simdscan.ewm_mean(t, 0, **kw), f"{dtype} table along axis 0 {kw}")


# --------------------------------------------------------------------------
# the NumPy-level functions hand Dask arrays over
# --------------------------------------------------------------------------
def test_numpy_level_functions_hand_dask_arrays_over():
    """simdscan.linear_recurrence with a Dask ``a``, and discounted_cumsum and ewm_mean of a Dask array, return lazy
    results (``out=``: TypeError)."""
    b = np.arange(1.0, 9.0)
    a = np.full(8, 0.5)
    x = da.from_array(b, chunks=3)
    lazy = simdscan.linear_recurrence(da.from_array(a, chunks=3), x, initial=1.0)
    assert isinstance(lazy, da.Array)
    check_equal(computed(lazy), simdscan.linear_recurrence(a, b, initial=1.0), "linear_recurrence")
    lazy = simdscan.discounted_cumsum(x, 0.5, reset=b > 4)
    assert isinstance(lazy, da.Array)
    check_equal(computed(lazy), simdscan.discounted_cumsum(b, 0.5, reset=b > 4), "discounted_cumsum")
    lazy = simdscan.ewm_mean(x, span=3.0)
    assert isinstance(lazy, da.Array)
    check_close(computed(lazy), simdscan.ewm_mean(b, span=3.0), 1e-12, "ewm_mean")
    with pytest.raises(TypeError, match="out="):
        simdscan.ewm_mean(x, span=3.0, out=np.empty(8))


# --------------------------------------------------------------------------
# laziness
# --------------------------------------------------------------------------
def test_lazy_nothing_computed_until_asked():
    """Building the graphs computes no task, nor any chunk of the data, of a Dask ``a``, ``initial`` or reset (a float
    one's values are checked as it is computed); computing one computes each chunk of the data once."""
    calls = []

    def produce(block, block_info=None):
        calls.append(block_info[None]["chunk-location"])
        return block

    b = np.arange(1.0, 61.0).reshape(6, 10) / 8
    reset = np.zeros((6, 10))
    reset[::2, 1::3] = 1
    x = da.from_array(b, chunks=(2, 3)).map_blocks(produce, dtype=b.dtype)
    a = da.from_array(np.full((6, 10), 0.5), chunks=(3, 4)).map_blocks(produce, dtype=b.dtype)
    initial = da.from_array(np.ones(6), chunks=4).map_blocks(produce, dtype=b.dtype)
    lazy_reset = da.from_array(reset, chunks=(4, 5)).map_blocks(produce, dtype=reset.dtype)
    with TaskCounter() as counter:
        results = [sdask.linear_recurrence(a, x, 1, direction=d, exclusive=True, initial=initial, reset=lazy_reset)
                   for d in DIRECTIONS]
        results += [sdask.linear_recurrence(0.5, x, axis, initial=1.0, reset=reset) for axis in (0, 1)]
        results += [sdask.discounted_cumsum(x, a, 0, reset=lazy_reset), sdask.discounted_cumsum(x, 0.9)]
        results += [sdask.ewm_mean(x, axis, alpha=0.5, adjust=adjust, ignore_na=ignore_na)
                    for axis in (0, 1) for adjust, ignore_na in MODES]
        results.append(simdscan.ewm_mean(x, span=4.0))
        assert counter.tasks == 0
    assert calls == []
    got = results[2].compute(scheduler="sync")  # a scalar a, a NumPy reset: the data's 12 chunks, each once
    assert len(calls) == 12
    np.testing.assert_array_equal(got, simdscan.linear_recurrence(0.5, b, 0, initial=1.0, reset=reset))


# --------------------------------------------------------------------------
# errors: the NumPy level's, while the graph is built (a Dask reset's values: when it is computed)
# --------------------------------------------------------------------------
def same_error(function, args, kw, lazy_args=None, lazy_kw=None):
    """``function`` raises the same exception, with the same message, on the Dask operands (``lazy_args``,
    ``lazy_kw``: Dask stand-ins, default the NumPy ones with the first wrapped) as simdscan's on the NumPy ones."""
    with pytest.raises(Exception) as eager:
        getattr(simdscan, function)(*args, **kw)
    if lazy_args is None:
        position = 1 if function == "linear_recurrence" else 0
        lazy_args = list(args)
        lazy_args[position] = da.from_array(np.asarray(args[position]), chunks=2)
    with pytest.raises(eager.type) as lazy:
        getattr(sdask, function)(*lazy_args, **(kw if lazy_kw is None else lazy_kw))
    assert str(lazy.value) == str(eager.value), (function, kw)
    return lazy.value


def test_linear_recurrence_errors_match_simdscan():
    b = np.ones((3, 4))
    a = np.full((3, 4), 0.5)
    wrap = lambda v: da.from_array(np.asarray(v), chunks=2)  # noqa: E731
    assert isinstance(same_error("linear_recurrence", (0.5, b.astype("U1")), {}), TypeError)
    assert isinstance(same_error("linear_recurrence", (np.array(["x"]), b), {}), TypeError)
    assert isinstance(same_error("linear_recurrence", (a.astype(np.longdouble), b), {}), TypeError)
    assert isinstance(same_error("linear_recurrence", (0.5, b), {"dtype": np.int32}), TypeError)
    assert isinstance(same_error("linear_recurrence", (0.5, b), {"initial": np.array(["x"])}), TypeError)
    assert isinstance(same_error("linear_recurrence", (0.5, b), {"direction": "up"}), ValueError)
    assert isinstance(same_error("linear_recurrence", (0.5, b), {"direction": 1}), TypeError)
    assert isinstance(same_error("linear_recurrence", (0.5, b, 2), {}), np.exceptions.AxisError)
    for shape in ((4, 4), (3, 1, 4), (2,)):
        args = (np.full(shape, 0.5), b)
        assert isinstance(same_error("linear_recurrence", args, {}), ValueError)
        assert isinstance(same_error("linear_recurrence", args, {}, [wrap(args[0]), wrap(b)]), ValueError)
    for shape in ((4,), (2, 3), (3, 1, 1)):
        initial = np.zeros(shape)
        assert isinstance(same_error("linear_recurrence", (0.5, b), {"initial": initial}), ValueError)
        assert isinstance(same_error("linear_recurrence", (0.5, b), {"initial": initial}, None,
                                     {"initial": wrap(initial)}), ValueError)
    for reset in ([[0, 2, 0, 0]], np.array([0.0, 0.5, 1.0, 1.0]), [0, 1, np.nan, 0], np.zeros((2, 4)),
                  np.zeros((3, 4), dtype=np.complex64)):
        error = same_error("linear_recurrence", (0.5, b), {"reset": reset})
        assert isinstance(error, TypeError if np.asarray(reset).dtype.kind == "c" else ValueError)
    # a Dask reset's shape and dtype at once; its values as it is computed
    for reset in (np.zeros((2, 4)), np.zeros((3, 4), dtype=np.complex64)):
        same_error("linear_recurrence", (0.5, b), {"reset": reset}, None, {"reset": wrap(reset)})
    for bad in (2.0, np.nan, -1.0):
        reset = np.zeros((3, 4))
        reset[1, 2] = bad
        lazy = sdask.linear_recurrence(0.5, da.from_array(b, chunks=2), reset=wrap(reset))
        with pytest.raises(ValueError, match="reset holds values other than 0 and 1"):
            computed(lazy)
    # the first error of several is the NumPy level's: the dtype before the axis, the axis before the shapes
    assert isinstance(same_error("linear_recurrence", (np.array(["x"]), b, 5), {}), TypeError)
    assert isinstance(same_error("linear_recurrence", (np.ones(7), b, 5), {}), np.exceptions.AxisError)
    assert isinstance(same_error("linear_recurrence", (np.ones(7), b), {"initial": np.ones(5)}), ValueError)
    with pytest.raises(ValueError, match="compute_chunk_sizes"):
        values = da.from_array(np.arange(10.0), chunks=3)
        sdask.linear_recurrence(0.5, values[values > 4])


def test_discounted_cumsum_and_ewm_errors_match_simdscan():
    x = np.ones(6)
    assert isinstance(same_error("discounted_cumsum", (x, np.ones(4)), {}), ValueError)
    assert isinstance(same_error("discounted_cumsum", (x, 0.5), {"reset": [0, 3, 0, 0, 0, 0]}), ValueError)
    assert isinstance(same_error("discounted_cumsum", (x, 0.5, 1), {}), np.exceptions.AxisError)
    for kw in ({}, {"com": 1.0, "span": 2.0}, {"com": -1.0}, {"span": 0.5}, {"halflife": 0.0}, {"alpha": 0.0},
               {"alpha": 1.5}):
        assert isinstance(same_error("ewm_mean", (x,), kw), ValueError)
    assert isinstance(same_error("ewm_mean", (x.astype(np.complex128),), {"alpha": 0.5}), TypeError)
    assert isinstance(same_error("ewm_mean", (x.astype("U1"),), {"alpha": 0.5}), TypeError)
    assert isinstance(same_error("ewm_mean", (x, 1), {"alpha": 0.5}), np.exceptions.AxisError)
    # the decay is checked before the data, as in the NumPy level
    assert isinstance(same_error("ewm_mean", (x.astype(np.complex128),), {"alpha": 2.0}), ValueError)
