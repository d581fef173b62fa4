"""simdscan.dask.linear_recurrence and discounted_cumsum: ``axis=None`` and the result dtype with an ``initial`` of
another dtype, against the NumPy form (test_recurrence_details.py checks that against the reference loop) over
several chunkings."""

import dask
import dask.array as da
import numpy as np
import pytest

import simdscan
import simdscan.dask as sdask
from data import seed_of
from family_reference import assert_same_bits
from recurrence_reference import BAD_AXIS_NONE, check_flat, coefficients, terms


BAD_WITHOUT_OUT = [case for case in BAD_AXIS_NONE if "out" not in case[2]]  # (the Dask form takes no out=)


@pytest.mark.parametrize("name, error, kw", BAD_WITHOUT_OUT, ids=[c[0] for c in BAD_WITHOUT_OUT])
def test_dask_axis_none_errors(name, error, kw):
    """Each bad argument raises what the NumPy form raises for it, while the graph is built."""
    rng = np.random.default_rng(seed_of("axis None errors"))
    kw = dict(kw)
    a = kw.pop("a", coefficients(rng, (3, 4), "float64"))
    b = terms(rng, (3, 4), "float64")
    with pytest.raises(error):
        sdask.linear_recurrence(a, da.from_array(b, chunks=2), axis=None, **kw)
    if name == "reset 2":
        return  # (a Dask reset's values are checked as it is computed)
    with pytest.raises(error):  # a (and the others) as Dask arrays too
        sdask.linear_recurrence(da.from_array(a, chunks=2) if np.ndim(a) else a, da.from_array(b, chunks=2),
                                axis=None, **{k: da.from_array(v, chunks=2) if np.ndim(v) else v
                                              for k, v in kw.items()})


def test_dask_complex_initial_with_a_real_result_raises():
    b = np.ones((4, 9))
    for axis in (0, 1, None):
        with pytest.raises(TypeError):
            sdask.linear_recurrence(0.5, da.from_array(b, chunks=2), axis, initial=np.complex128(1))


# --------------------------------------------------------------------------
# axis=None: the Dask form
# --------------------------------------------------------------------------
def computed(lazy):
    assert isinstance(lazy, da.Array), f"returned {type(lazy)!r}"
    (got,) = dask.compute(lazy, scheduler="sync", optimize_graph=False)
    return got


def halves(rng, shape, dtype):
    """k / 2 (k in -4..4): the recurrence of them with coefficients 0 and +-1 is exact, in any order (with +-0.5 it is
    not: a chain of 60 spans more digits than float32 holds)."""
    values = rng.integers(-4, 5, size=shape) / 2.0
    if np.dtype(dtype).kind == "c":
        values = values + 1j * rng.integers(-4, 5, size=shape) / 2.0
    return values.astype(dtype)


def dyadic_coefficients(rng, shape, dtype):
    return rng.choice([-1.0, 0.0, 1.0], size=shape).astype(dtype)


# (shape, chunks): one chunk, blocks, rows, columns (ravel rechunks), uneven with empty chunks, 3-D
DASK_CASES = [
    ((6, 10), (6, 10)),
    ((6, 10), (2, 3)),
    ((6, 10), (1, 10)),
    ((6, 10), (6, 1)),
    ((6, 10), ((2, 0, 4), (3, 0, 7))),
    ((4, 3, 5), (2, (1, 2), (4, 1))),
]


@pytest.mark.parametrize("case", DASK_CASES, ids=[f"{s}-{c}".replace(" ", "") for s, c in DASK_CASES])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_dask_axis_none_matches_numpy(dtype, case):
    """simdscan.dask.linear_recurrence(axis=None) computed: bit for bit the NumPy form's (dyadic values, exact in any
    order), 1-D, for a (scalar, NumPy full and broadcast, Dask in chunks of its own), initial (none, scalar, 0-d NumPy
    and Dask) and reset (none, NumPy full and broadcast, Dask), both directions, inclusive and exclusive."""
    shape, chunks = case
    rng = np.random.default_rng(seed_of("dask axis None", dtype, case))
    b = halves(rng, shape, dtype)
    x = da.from_array(b, chunks=chunks)
    full_a = dyadic_coefficients(rng, shape, dtype)
    a_forms = [("scalar", -1.0, -1.0), ("numpy", full_a, full_a),
               ("broadcast", full_a[:1], full_a[:1]), ("dask", full_a, da.from_array(full_a, chunks=3))]
    r = rng.random(shape) < 0.2
    reset_forms = [("none", None, None), ("numpy", r, r), ("broadcast", r[..., :1], r[..., :1]),
                   ("dask", r, da.from_array(r.astype(np.float64), chunks=4))]
    initial_forms = [("none", None, None), ("scalar", 1.5, 1.5), ("0-d", np.array(-2.0, dtype), np.array(-2.0, dtype)),
                     ("dask 0-d", np.array(0.5, dtype), da.from_array(np.array(0.5, dtype)))]
    step = 0
    for direction in ("increasing", "decreasing"):
        for exclusive in (False, True):
            for reset_name, reset, reset_given in reset_forms:
                for initial_name, initial, initial_given in initial_forms:
                    a_name, a, a_given = a_forms[step % len(a_forms)]
                    step += 1
                    lazy = sdask.linear_recurrence(a_given, x, axis=None, direction=direction, exclusive=exclusive,
                                                   initial=initial_given, reset=reset_given)
                    want = simdscan.linear_recurrence(a, b, axis=None, direction=direction, exclusive=exclusive,
                                                      initial=initial, reset=reset)
                    where = (f"{dtype} chunks={chunks} {direction} exclusive={exclusive} a {a_name}, "
                             f"reset {reset_name}, initial {initial_name}")
                    assert lazy.shape == (b.size,) and lazy.dtype == want.dtype, where
                    got = computed(lazy)
                    assert_same_bits(got, want, where)
                    check_flat(got, a, b, direction == "decreasing", exclusive, initial, reset, where=where)


@pytest.mark.parametrize("chunks", [(7, 11), (1, 33), (14, 1), ((3, 0, 11), (20, 13))])
def test_dask_axis_none_random_floats(chunks):
    """Random float64 data (not exact in every order): within the loop's tolerance, as the NumPy form."""
    rng = np.random.default_rng(seed_of("dask axis None random", chunks))
    b, a = terms(rng, (14, 33), "float64"), coefficients(rng, (14, 33), "float64")
    r = rng.random(b.shape) < 0.05
    x = da.from_array(b, chunks=chunks)
    for decreasing in (False, True):
        direction = "decreasing" if decreasing else "increasing"
        for a_given in (a, da.from_array(a, chunks=5), 0.99):
            got = computed(sdask.linear_recurrence(a_given, x, axis=None, direction=direction, initial=0.25, reset=r))
            check_flat(got, a if np.ndim(a_given) else 0.99, b, decreasing, initial=0.25, reset=r,
                       where=f"chunks={chunks} {direction}")
        got = computed(sdask.discounted_cumsum(x, a, axis=None, reset=r))
        check_flat(got, a, b, True, reset=r, where=f"discounted_cumsum chunks={chunks}")
    # the top-level function hands a Dask b to the Dask form
    got = simdscan.discounted_cumsum(x, 0.9, axis=None)
    assert isinstance(got, da.Array)
    check_flat(computed(got), 0.9, b, True, where="simdscan.discounted_cumsum of a Dask array")


def test_dask_axis_none_zero_d_and_empty():
    for b, kw in [(np.array(1.5), {"initial": 2.0}), (np.zeros((0, 4)), {}), (np.zeros((3, 0)), {"reset": True})]:
        want = simdscan.linear_recurrence(0.5, b, axis=None, **kw)
        got = computed(sdask.linear_recurrence(0.5, da.from_array(b), axis=None, **kw))
        assert_same_bits(got, want, f"{b.shape}")




REAL_AB_DTYPES = [("float32", "float32"), ("float64", "float64"), ("float32", "float64"), ("float64", "float32")]


@pytest.mark.parametrize("a_dtype, b_dtype", REAL_AB_DTYPES, ids=["-".join(p) for p in REAL_AB_DTYPES])
def test_dask_initial_takes_no_part_in_the_dtype(a_dtype, b_dtype):
    """The Dask form: the lazy result's dtype (nothing computed) and its values, the NumPy form's, for initial a NumPy
    array, a NumPy scalar and a Dask array of other dtypes."""
    rng = np.random.default_rng(seed_of("dask initial dtype", a_dtype, b_dtype))
    shape = (4, 12)
    b, a = halves(rng, shape, b_dtype), dyadic_coefficients(rng, shape, a_dtype)
    x = da.from_array(b, chunks=(2, 5))
    want_dtype = np.result_type(a, b)
    for initial_dtype in ("float16", "float32", "float64", "int32", "bool", "complex128"):
        lines = halves(rng, (4,), "float64").astype(initial_dtype)
        for name, initial, given in [("numpy", lines, lines), ("dask", lines, da.from_array(lines, chunks=3)),
                                     ("scalar", lines[1], lines[1])]:
            where = f"a {a_dtype}, b {b_dtype}, initial {initial_dtype} {name}"
            if np.dtype(initial_dtype).kind == "c":
                with pytest.raises(TypeError):
                    sdask.linear_recurrence(a, x, initial=given)
                continue
            for direction in ("increasing", "decreasing"):
                lazy = sdask.linear_recurrence(a, x, initial=given, direction=direction)
                assert lazy.dtype == want_dtype, f"{where}: lazy dtype {lazy.dtype}"
                want = simdscan.linear_recurrence(a, b, initial=initial, direction=direction)
                assert want.dtype == want_dtype, where
                assert_same_bits(computed(lazy), want, where)
        if np.dtype(initial_dtype).kind != "c":
            lazy = sdask.linear_recurrence(a, x, initial=lines, dtype=np.float32)
            assert lazy.dtype == np.float32
            assert_same_bits(computed(lazy), simdscan.linear_recurrence(a, b, initial=lines, dtype=np.float32),
                             f"dtype=float32 initial {initial_dtype}")
