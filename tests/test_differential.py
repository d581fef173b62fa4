"""Differential tests: random cases of every scan family against references that do not use simdscan.

Families (one generator each): dense (the nine scans), reset=, labels=, ffill, linear_recurrence/discounted_cumsum,
ewm_mean, and simdscan.dask. A case is drawn from its seed: dtype, shape (0-d to 3-D, lines at and past the 32768 /
65536-element chunks and the staging buffers), axis, direction, exclusive, data (signed zeros and NaNs, infinities,
huge and subnormal values, ties), the input's layout (C, Fortran, reversed, strided, transposed, misaligned,
byte-swapped, broadcast, read-only) and the family's own operands (resets, labels, limits, coefficients, chunks).

References: NumPy in float64 / np.longdouble within reference.py's rounding-error bounds (exact for integers, extrema
and their indices, fills); logcumsumexp within family_reference's tolerance, or the documented 2.5e-15 for float64 on
random normal values; a np.longdouble loop and scipy.signal.lfilter for recurrences; pandas for grouped sums and
extrema, fills with limit= and ewm_mean. Every NumPy-level case must also give the same bits with 1, 2 and 3 threads,
into an out= at an odd place (misaligned, offset, strided, reversed, byte-swapped) and in place, the bytes around out=
and the inputs untouched. Plain floating sums, products and logcumsumexp add in another order along an outer axis of
memory than along a contiguous one: their bits are compared where out= keeps the fresh result's memory order, and an
out= of another order is held to the reference. simdscan.dask: exact results as the NumPy level's, others as the
references'.

A failure names its family, seed and drawn parameters. Run modes (options in tests/conftest.py):
  default                                   DEFAULT_CASES seeds a family (the module in about 15 s on two cores)
  --differential-cases=N                    seeds 0..N-1 of every family (or SIMDSCAN_DIFFERENTIAL_CASES=N)
  --differential-seed=S -k test_<family>    that one case (or SIMDSCAN_DIFFERENTIAL_SEED=S)
"""

from __future__ import annotations

import os
import zlib

import numpy as np
import pandas as pd
import pytest

import simdscan
from compare import check_real, mismatch_report
from exact_sums import check_compensated
from family_reference import (
    EXTREMA_OPS,
    LOGCUMSUMEXP_RTOL,
    NAN_OPS,
    assert_same_bits,
    expected_logcumsumexp,
    expected_nan_scan,
    extremum_identity,
    extremum_indices_fast,
    nan_as_identity,
)
from group_reference import _check_bounded, check_grouped, expected_grouped, from_lines, label_lines
from recurrence_reference import (
    check_close,
    compute_dtype,
    lfilter_recurrence,
    line_shape,
    recurrence,
    result_dtype,
    walks_rows,
)
from reference import check_values, directional, expected, native, prepare
from segment_reference import as_lines, check_segmented, result_shape
from test_ewm import check_ewm

pytestmark = [pytest.mark.kernels, pytest.mark.usefixtures("restore_thread_count")]

#: seeds a family runs by default (the module in about 15 s on two cores); the long mode sets one count for all
# Cases that find a defect not fixed yet (strict: each fails until its fix lands, then must lose its entry).
OPEN = {
    ("dense", 279): "complex128 cumsum: a NaN's sign depends on the path out's placement picks (a + b or b + a)",
}
DEFAULT_CASES = {"dense": 150, "reset": 60, "labels": 40, "ffill": 60, "recurrence": 50, "ewm": 30, "dask": 90}
THREADS = (1, 2, 3)
#: line lengths at the chunks (32768 float64, 65536 float32/float16 elements) and staging buffers
LONG = (1, 7, 4095, 4096, 4097, 8192, 16384, 32767, 32768, 32769, 65535, 65536, 65537, 100000)
LONG_WEIGHTS = np.array([1, 1, 2, 1, 2, 1, 1, 2, 1, 3, 2, 1, 3, 3]) / 24  # most past a chunk
SMALL = (0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 65, 130, 257)
OPS = ("cumsum", "cumprod", "nancumsum", "nancumprod", "cummax", "cummin", "nancummax", "nancummin", "logcumsumexp")
ROLE = {"cumsum": "sum", "nancumsum": "sum", "cumprod": "prod", "nancumprod": "prod", "logcumsumexp": "log"}
FLOATS = ("float16", "float32", "float64")
COMPLEX = ("complex64", "complex128")
INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
ALL = FLOATS + COMPLEX + INTS + ("bool",)
#: logcumsumexp's documented accuracy on random normal values (docs/guide.md), relative to |reference| + 1: float64's
#: 2.5e-15 (some 20 ulps); float32's 1.2e-7 is two ulps, a sample's maximum rather than a bound: the suite's 1e-6
NORMAL_LCSE_RTOL = {**LOGCUMSUMEXP_RTOL, "float64": 2.5e-15}
DIRECTIONS = ("increasing", "decreasing", simdscan.Direction.INCREASING, simdscan.Direction.DECREASING)


# --------------------------------------------------------------------------
# seeds and cases
# --------------------------------------------------------------------------
def _setting(config, option, env):
    value = config.getoption(option, default=None)
    return value if value is not None else (int(os.environ[env]) if os.environ.get(env) else None)


def pytest_generate_tests(metafunc):
    if "seed" in metafunc.fixturenames:
        only = _setting(metafunc.config, "--differential-seed", "SIMDSCAN_DIFFERENTIAL_SEED")
        count = _setting(metafunc.config, "--differential-cases", "SIMDSCAN_DIFFERENTIAL_CASES")
        family = metafunc.function.__name__[len("test_"):]
        seeds = [only] if only is not None else range(count or DEFAULT_CASES[family])
        open_marks = {seed: pytest.mark.xfail(strict=True, reason=reason)
                      for (f, seed), reason in OPEN.items() if f == family}
        metafunc.parametrize("seed", [pytest.param(seed, marks=open_marks[seed]) if seed in open_marks else seed
                                      for seed in seeds])


class Case:
    """One random case: its generator and the parameters drawn, which any failure reports (as a context manager)."""

    def __init__(self, family, seed):
        self.family, self.seed = family, seed
        self.rng = np.random.default_rng([zlib.crc32(family.encode()), seed])
        self.params = {}

    def pick(self, name, options, p=None):
        value = options[int(self.rng.choice(len(options), p=p))]
        self.params[name] = value
        return value

    def note(self, name, value):
        self.params[name] = value
        return value

    def chance(self, p):
        return bool(self.rng.random() < p)

    def __str__(self):
        drawn = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return (f"[{self.family} seed={self.seed}] {drawn}\n  rerun: SIMDSCAN_DIFFERENTIAL_SEED={self.seed} "
                f"python -m pytest tests/test_differential.py -k test_{self.family}")

    def __enter__(self):
        return self

    def __exit__(self, kind, error, tb):
        if isinstance(error, (Exception, pytest.fail.Exception)):  # failures and errors, not skips or interrupts
            raise AssertionError(f"{self}\n{type(error).__name__}: {error}") from error
        return False


def is_decreasing(direction):
    """Whether a direction argument (string or Direction) means decreasing."""
    return direction in ("decreasing", simdscan.Direction.DECREASING)


# --------------------------------------------------------------------------
# shapes, layouts and out= placement (shared by every family)
# --------------------------------------------------------------------------
def draw_shape(case, ndims=(0, 1, 2, 3), p_long=0.4, budget=300_000):
    """A shape of small dimensions, one of them (with probability ``p_long``) a length of LONG."""
    weights = np.array([{0: 0.08, 1: 0.44, 2: 0.33, 3: 0.15}[d] for d in ndims])
    ndim = case.pick("ndim", ndims, weights / weights.sum())
    shape = [int(case.rng.choice(SMALL)) for _ in range(ndim)]
    if ndim and case.chance(p_long):
        k = int(case.rng.integers(ndim))
        shape[k] = int(case.rng.choice(LONG, p=LONG_WEIGHTS))
        for j in range(ndim):  # the other axes short enough for the budget
            if j != k:
                shape[j] = min(shape[j], max(1, budget // shape[k] // 2 ** (ndim - 1)))
    return case.note("shape", tuple(shape))


def draw_axis(case, shape, allow_none=True):
    """None, an axis or a negative one; half the time the long axis where there is one."""
    nd = max(len(shape), 1)
    options = ([None] if allow_none else []) + list(range(nd)) + list(range(-nd, 0))
    axis = case.pick("axis", options)
    if axis is not None and len(shape) and shape[axis] >= 4096 and case.chance(0.5):
        axis = case.note("axis", int(np.argmax(shape)))  # favour the long axis
    return axis


def memory_order(a):
    """The axes of ``a`` from the slowest in memory to the fastest, and whether one of them repeats (stride 0)."""
    order = sorted(range(np.ndim(a)), key=lambda k: -abs(a.strides[k]))
    return order, any(s == 0 and n > 1 for s, n in zip(a.strides, a.shape))


def strided_view(rng, shape, dtype, kind, order=None):
    """An array of ``shape`` laid out as ``kind`` (its axes in ``order``, slowest first, C's by default) inside a
    larger buffer of random bytes: ``(view, buffer, start, strides)``."""
    dt, nd = np.dtype(dtype), len(shape)
    item, steps = dt.itemsize, [1] * nd
    order = list(range(nd)) if order is None else list(order)
    if kind == "F":
        order = order[::-1]
    elif kind == "transposed":
        order = [int(v) for v in rng.permutation(nd)]
    elif kind == "reversed":
        steps = [-1] * nd
    elif kind == "strided":
        steps = [int(v) for v in rng.choice([-3, -2, -1, 1, 2, 3], nd)]
    strides, stride = [0] * nd, item
    for ax in reversed(order):  # the last axis of ``order`` varies fastest
        strides[ax] = stride * steps[ax]
        stride *= max(shape[ax], 1) * abs(steps[ax])
    offset = int(rng.integers(0, 4)) * item + (1 if kind == "misaligned" and item > 1 else 0)
    start = offset + sum((n - 1) * -s for n, s in zip(shape, strides) if s < 0 and n > 0)
    buf = np.full(offset + stride + 2 * item + 16, rng.integers(0, 256), np.uint8)  # a byte pattern around it
    return np.ndarray(shape, dt, buffer=buf, offset=start, strides=strides), buf, start, strides


def covered(buf, shape, item, start, strides):
    """The bytes of ``buf`` that the view (start, strides) of items of ``item`` bytes covers."""
    mask = np.zeros(buf.shape, np.uint8)
    np.ndarray(tuple(shape) + (item,), np.uint8, buffer=mask, offset=start, strides=tuple(strides) + (1,))[...] = 1
    return mask.astype(bool)


LAYOUTS = ("C", "F", "reversed", "strided", "transposed", "misaligned", "broadcast", "readonly")
#: out= placements that keep the memory order of the axes (C: at an element offset of the buffer)
SAME_ORDER = ("misaligned", "C", "reversed", "strided")


def lay_out(case, values, name="layout", writable=False, order=None, broadcast=True):
    """``values`` in a new array of a random layout (possibly byte-swapped); "broadcast" repeats one slice of them
    (not for products, whose repeated factors would overflow); with ``order``, only the placements that keep that
    memory order."""
    kinds = LAYOUTS[:6] if writable else LAYOUTS if broadcast else LAYOUTS[:6] + LAYOUTS[7:]
    kind = case.pick(name, SAME_ORDER if order is not None else kinds)
    dt = values.dtype
    if dt.itemsize > 1 and dt.kind != "b" and case.chance(0.2):
        dt = dt.newbyteorder("S")
        case.note(name, f"{kind}+byteswapped")
    if kind == "broadcast":
        if values.ndim == 0 or values.size == 0:
            return np.asarray(values, dt)
        ax = int(case.rng.integers(values.ndim))
        return np.broadcast_to(np.take(values, [0], axis=ax).astype(dt), values.shape)
    a = strided_view(case.rng, values.shape, dt, "C" if kind == "readonly" else kind, order)[0]
    a[...] = values
    if kind == "readonly":
        a.flags.writeable = False
    return a


class OutSlot:
    """An out= of ``shape`` and ``dtype`` at an odd place (misaligned, at an offset, strided, reversed; with no
    ``order``, also Fortran or transposed) in a buffer whose other bytes must stay as they were."""

    def __init__(self, case, shape, dtype, name="out", order=None):
        kind = case.pick(name, SAME_ORDER if order is not None else SAME_ORDER + ("F", "transposed"))
        dt = np.dtype(dtype)
        if dt.itemsize > 1 and dt.kind not in "bi" and case.chance(0.15):  # indices (intp) take native order only
            dt = dt.newbyteorder("S")
            case.note(name, f"{kind}+byteswapped")
        self.view, self.buf, start, strides = strided_view(case.rng, shape, dt, kind, order)
        self.outside = ~covered(self.buf, shape, dt.itemsize, start, strides)
        self.before = self.buf[self.outside].copy()

    def check_untouched(self, where):
        assert np.array_equal(self.buf[self.outside], self.before), f"{where}: bytes around out= were written"


def same_bits(got, want, where, nan_bits=True):
    """Bit for bit, whatever the byte order of ``got`` (``nan_bits=False``: any NaN for a NaN); pairs element-wise."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), f"{where}: returned {type(got)!r}"
        for k, (g, w) in enumerate(zip(got, want)):
            same_bits(g, w, f"{where} [{k}]", nan_bits)
        return
    assert isinstance(got, np.ndarray), f"{where}: returned {type(got)!r}"
    got, want = np.asarray(got, native(got.dtype)), np.asarray(want, native(want.dtype))
    if not nan_bits and want.dtype.kind in "fc" and got.dtype == want.dtype and got.shape == want.shape:
        real = want.dtype.type(0).real.dtype
        g, w = (np.ascontiguousarray(v).view(real) for v in (got, want))  # the parts of complex numbers
        same = (g.view(f"u{real.itemsize}") == w.view(f"u{real.itemsize}")) | (np.isnan(g) & np.isnan(w))
        assert same.all(), f"{where}: values or signs differ:\n" + mismatch_report(np.nonzero(~same), g, w)
        return
    assert_same_bits(got, want, where)


def check_bools(got, where):
    """A bool result holds only the bytes 0 and 1."""
    for part in got if isinstance(got, tuple) else (got,):
        if part.dtype == np.bool_ and part.size:
            raw = np.ascontiguousarray(part).view(np.uint8)
            assert raw.max() <= 1, f"{where}: bool result holds byte {raw.max():#x} at {np.argmax(raw > 1)}"


def snapshot(*arrays):
    """The shapes and bytes of the array arguments, to prove them unchanged."""
    return [None if a is None or np.isscalar(a) else (np.asarray(a).shape, np.asarray(a).tobytes()) for a in arrays]


def into_slots(case, call, args, fresh, name, order):
    """``call(*args, out=...)`` into odd out= slots (a pair for pairs): returns what it wrote, the bytes around
    untouched and ``out`` returned."""
    parts = fresh if isinstance(fresh, tuple) else (fresh,)
    slots = [OutSlot(case, p.shape, p.dtype, f"{name}{k}", order) for k, p in enumerate(parts)]
    out = tuple(s.view for s in slots) if isinstance(fresh, tuple) else slots[0].view
    got = call(*args, out=out)
    assert got is out or (isinstance(out, tuple) and all(g is o for g, o in zip(got, out))), f"{name}: not returned"
    for s in slots:
        s.check_untouched(name)
    return out


def consistency(case, call, args, fresh, in_place=None, check=None, walk=None):
    """``call(*args)`` gives ``fresh``'s bits with 1, 2 and 3 threads, into an odd out= and in place (``in_place()``:
    ``(args, out)`` or None); the inputs stay unchanged. With ``check`` (floating sums, products and logcumsumexp of
    the plain scans, whose kernels add in NumPy's order along an outer axis of memory and vector by vector along a
    contiguous one) bits are compared only where the memory order is fresh's, and other orders are given to
    ``check``. ``walk`` (walks, check) for a recurrence: in place into an array that the core walks otherwise than
    args[0] (walks differs: the README's rule), the result is given to the check instead."""
    before = snapshot(*args)
    for threads in THREADS:
        simdscan.set_num_threads(threads)
        same_bits(call(*args), fresh, f"{threads} threads")
    simdscan.set_num_threads(int(case.rng.choice(THREADS)))
    order = None if check is None else memory_order(fresh)[0]
    same_bits(into_slots(case, call, args, fresh, "out", order), fresh, "into out=")
    if check is not None:
        check(into_slots(case, call, args, fresh, "other_out", None), "into out= of another order")
    assert snapshot(*args) == before, "an input was modified"
    made = None if in_place is None else in_place()
    if made is not None:
        args2, target = made
        got = call(*args2, out=target)
        values = target[0] if isinstance(target, tuple) else target
        if walk is not None and walk[0](values) != walk[0](args[0]):
            walk[1](got, "in place, another walk")
        elif check is None or memory_order(values) == memory_order(args[0]) == (order, False):  # the same path
            same_bits(got, fresh, "in place")
        else:
            check(got, "in place, another order")
    check_bools(fresh, "result")


# --------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------
def specials(dt, role):
    """The special values of a role for the real dtype ``dt``: signed zeros, infinities, NaN, and (where an order
    of additions cannot overflow) huge and subnormal ones."""
    info = np.finfo(dt)
    base = [0.0, -0.0, np.inf, -np.inf, np.nan]
    if role == "sum":
        huge = {"float16": 1000.0, "float32": 1e36, "float64": 1e300}[dt.name]
        return base + [float(info.smallest_subnormal), -float(info.smallest_subnormal)], huge
    if role == "prod":
        return base + [1.0, -1.0], None
    extremes = [float(info.max), float(info.smallest_subnormal)]
    return base + extremes + [-v for v in extremes], None


def real_values(case, role, dt, shape):
    """Real float values for ``role`` (sum, prod, order, log, fill); returns (values, whether random normal)."""
    rng = case.rng
    kinds = {"sum": ("normal", "ints", "spread", "specials"), "prod": ("near_one", "powers", "specials"),
             "order": ("walk", "zeros", "normal", "specials"), "log": ("normal", "wide", "specials"),
             "fill": ("eighths", "specials")}[role]
    weights = {"order": (0.3, 0.3, 0.2, 0.2), "log": (0.5, 0.25, 0.25)}.get(role, (1,) * len(kinds))
    kind = case.pick("data", kinds, np.array(weights) / sum(weights))
    if kind == "normal":
        return rng.standard_normal(shape).astype(dt), True
    if kind == "ints":
        v = rng.integers(-3, 4, shape).astype(dt)
    elif kind == "spread":
        v = np.where(rng.random(shape) < 0.75, 1.0, -1.0) * rng.uniform(0.5, 1, shape) * np.exp2(
            rng.integers(-8 if dt == np.float16 else -30, 4, shape))
    elif kind == "near_one":
        v = 1.0 + 1e-3 * rng.uniform(-1, 1, shape)
    elif kind == "powers":  # long lines neither overflow nor underflow
        s = min(1.0, 4.0 / np.sqrt(max(np.prod(shape), 1)))
        v = np.exp2(rng.uniform(-s, s, shape)) * np.where(rng.random(shape) < 0.5, -1.0, 1.0)
    elif kind == "walk":  # plateaus and ties
        v = np.cumsum(rng.integers(-2, 3, shape), axis=-1) if len(shape) else rng.integers(-2, 3, shape)
    elif kind == "zeros":
        v = rng.choice(np.array([0.0, -0.0, 1.0, -1.0]), shape, p=[0.4, 0.4, 0.1, 0.1])
    elif kind == "wide":
        v = rng.uniform(-1, 1, shape) * 10.0 ** rng.integers(0, 5 if dt == np.float64 else 3, shape)
    elif kind == "eighths":
        v = rng.integers(-999, 1000, shape) / 8
    else:  # specials sprinkled over normal values (over values near 1 for products, which stay in range)
        v = 1.0 + 1e-3 * rng.uniform(-1, 1, shape) if role == "prod" else rng.standard_normal(shape)
    v = np.asarray(v, np.float64)
    if kind in ("specials", "eighths", "walk", "wide") and v.size:
        pool, huge = specials(dt, "order" if role in ("log", "fill") else role)
        density = case.pick("special_density", (1e-4, 0.01, 0.2))
        at = rng.random(shape) < density
        v[at] = rng.choice(np.array(pool), int(at.sum()))
        if huge is not None:  # at most 40 huge values: no order of additions overflows
            flat = v.reshape(-1)
            flat[rng.integers(0, v.size, int(rng.integers(0, 41)))] = huge * rng.choice([-1.0, 1.0])
    with np.errstate(over="ignore"):
        return v.astype(dt), False


def draw_values(case, role, dtype, shape, nan=0.0):
    """Values of ``dtype`` for ``role``, NaN with probability ``nan``: (array, whether random normal)."""
    dt, rng = np.dtype(dtype), case.rng
    if dt == np.bool_:
        return rng.random(shape) < case.pick("p_true", (0.1, 0.5, 0.9)), False
    if dt.kind in "iu":
        info = np.iinfo(dt)
        if case.pick("data", ("small", "full")) == "full":
            return rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True), False
        low = 0 if dt.kind == "u" else -3
        if role == "prod":  # odd units: a product never collapses to 0
            return rng.choice(np.array([1, 3, 5, 7], dt), shape) * dt.type(1), False
        return rng.integers(low, 4, shape).astype(dt), False
    if dt.kind == "c":
        part = dt.type(0).real.dtype
        if role == "prod":  # complex products: finite only (the bounds take no others)
            re, normal = real_values(case, "prod", part, shape)
            im = np.where(re == 0, 0, 1e-3 * rng.uniform(-1, 1, shape)).astype(part)  # a zero factor stays 0
            re[~np.isfinite(re)] = 1
            v = re + 1j * im
        else:
            re, normal = real_values(case, role, part, shape)
            im, _ = real_values(case, role, part, shape)
            v = np.empty(shape, dt)
            v.real, v.imag = re, im
    else:
        v, normal = real_values(case, role, dt, shape)
    v = np.asarray(v, dt)
    if nan and v.size:  # NaNs of either sign (complex: in either part or both)
        at = rng.random(shape) < nan
        signed = np.where(rng.random(int(at.sum())) < 0.5, np.nan, -np.nan)
        if dt.kind == "c":
            part = rng.integers(0, 3, int(at.sum()))
            v.real[at] = np.where(part != 1, signed, v.real[at])
            v.imag[at] = np.where(part != 0, signed, v.imag[at])
        else:
            v[at] = signed
    return v, normal


def draw_dtype(case, options=ALL):
    """Floats three times as often as an integer type, complex and bool in between."""
    weights = np.array([3.0 if d in FLOATS else 1.5 if d in COMPLEX else 1.0 if d == "bool" else 0.6
                        for d in options])
    return np.dtype(case.pick("dtype", options, weights / weights.sum()))


def cap_lines(case, shape, axis, max_lines):
    """``shape`` with its other axes than ``axis`` cut down (the largest first) to at most ``max_lines`` lines."""
    shape = list(shape)
    others = [k for k in range(len(shape)) if axis is not None and k != axis % len(shape)]
    while others and int(np.prod([shape[k] for k in others])) > max_lines:
        k = max(others, key=lambda j: shape[j])
        shape[k] = max(1, shape[k] // 4)
    return case.note("shape", tuple(shape))


# --------------------------------------------------------------------------
# references of the plain scans
# --------------------------------------------------------------------------
def extremum_sources(op, a, axis, decreasing, exclusive):
    """For every output of a running extremum, the position along the axis of the element whose bits it holds (the
    latest among equal ones, the first NaN's for cummax/cummin after a NaN), -1 for the identity (or the NaN of a
    nan-extremum before any number)."""
    if op in EXTREMA_OPS:
        return extremum_indices_fast(op, a, axis, decreasing, exclusive)
    x, ax, _ = prepare(a, axis, native(np.asarray(a).dtype))
    if x.size == 0:
        return np.zeros(x.shape, np.intp)
    n = x.shape[ax]
    pos = np.arange(n).reshape([n if k == ax else 1 for k in range(x.ndim)])
    ufunc = np.fmax if op == "nancummax" else np.fmin

    def in_scan_order(y, axis, dtype=None):
        with np.errstate(invalid="ignore"):
            record = y == ufunc.accumulate(y, axis=axis)
        return np.maximum.accumulate(np.where(record, pos, -1), axis=axis)

    idx = directional(in_scan_order, x, ax, decreasing, exclusive, -1)
    return np.where(idx >= 0, n - 1 - idx, idx) if decreasing else idx


def check_extremum_bits(got, op, a, axis, decreasing, exclusive, where):
    """Each output holds the bits of the element its source names (the identity's for -1; NaN stays NaN)."""
    x, ax, rdt = prepare(a, axis, native(np.asarray(a).dtype))
    idx = extremum_sources(op, a, axis, decreasing, exclusive)
    want = np.take_along_axis(x, np.maximum(idx, 0), axis=ax) if x.size else x.copy()
    ident = extremum_identity(op, rdt)
    if op.startswith("nan") and rdt.kind == "f":  # no number yet: NaN, or the identity before the first element
        want = np.where(idx < 0, np.nan, want).astype(rdt)
        first = [slice(None)] * x.ndim
        first[ax] = -1 if decreasing else 0
        if exclusive and x.size:
            want[tuple(first)] = ident
    else:
        want = np.where(idx < 0, ident, want).astype(rdt)
    g = np.asarray(got, rdt).reshape(want.shape)
    gb, wb = (np.ascontiguousarray(v).view(f"u{rdt.itemsize}") for v in (g, want))
    same = gb == wb
    if rdt.kind == "f":
        same |= np.isnan(g) & np.isnan(want)
    if not same.all():
        raise AssertionError(f"{where}: values or their bits differ from the elements they come from:\n"
                             + mismatch_report(np.nonzero(~same), gb, wb))


def check_zero_signs(got, want, where):
    """Where the result and the wide reference are both zero, the same sign (a sum is -0.0 only when all its terms
    are; a product's sign is its factors')."""
    g = np.asarray(got, np.float64)
    both = (g == 0) & (want == 0)
    bad = both & (np.signbit(g) != np.signbit(want))
    if bad.any():
        raise AssertionError(f"{where}: signs of zero differ:\n" + mismatch_report(np.nonzero(bad), g, want))


def check_logcumsumexp(got, want, rtol, where, slack=0.0):
    """NaN and infinities as the np.longdouble reference, finite outputs within (rtol + slack)(|ref| + 1) plus the
    reference's own rounding to float64 (and half a float16 ulp)."""
    w = want.astype(np.float64)
    with np.errstate(over="ignore"):
        tol = (rtol + slack) * (np.abs(w) + 1) + np.spacing(np.abs(w)) / 2
    check_real("", np.asarray(got, np.float64), w, tol, native(np.asarray(got).dtype) == np.float16, where)


def check_scan(got, op, a, axis, dec, exc, dtype=None, normal=False, compensated=False, where="", slack=0.0):
    """``got`` (values, or a pair with indices) of simdscan.<op>(a, axis, ...) against the NumPy references."""
    values, idx = got if isinstance(got, tuple) else (got, None)
    if op == "logcumsumexp":
        rdt, want = expected_logcumsumexp(a, axis, dec, exc, dtype)
        assert native(values.dtype) == rdt and values.shape == want.shape, f"{where}: {values.dtype} {values.shape}"
        rtol = (NORMAL_LCSE_RTOL if normal else LOGCUMSUMEXP_RTOL)[rdt.name]
        check_logcumsumexp(values, want, rtol, where, slack)
    elif op in ("cumsum", "cumprod", "nancumsum", "nancumprod"):
        exp = (expected_nan_scan if op in NAN_OPS else expected)(op, a, axis, dec, exc, dtype)
        assert native(values.dtype) == exp.dtype, f"{where}: dtype {values.dtype}, expected {exp.dtype}"
        if compensated:
            x, ax, _ = prepare(nan_as_identity(op, a) if op in NAN_OPS else a, axis, dtype)
            check_compensated(np.asarray(values).reshape(x.shape), x, ax, dec, exc, msg=where)
        else:
            check_values(values, exp, where)
        if exp.dtype.kind == "f":
            check_zero_signs(values, exp.value, where)
    else:
        check_extremum_bits(values, op, a, axis, dec, exc, where)
    if idx is not None:
        want = extremum_indices_fast(op, a, axis, dec, exc)
        assert idx.dtype == np.intp and np.array_equal(idx, want), (
            f"{where}: indices differ:\n" + mismatch_report(np.nonzero(idx != want), idx, want))


def check_value_matches_index(got, a, axis, where):
    """With return_indices, a value has the bits of the element its index names (the sign of a zero included)."""
    values, idx = got
    x = as_lines(np.asarray(a), axis)
    v, i = as_lines(values, axis), as_lines(idx, axis)
    named = np.take_along_axis(x, np.maximum(i, 0), axis=1) if x.size else x
    if x.dtype.kind == "f":
        ok = (i < 0) | (np.isnan(v) & np.isnan(named)) | ((v == named) & (np.signbit(v) == np.signbit(named)))
    else:
        ok = (i < 0) | (v == named)
    if not np.all(ok):
        raise AssertionError(f"{where}: values are not the elements their indices name:\n"
                             + mismatch_report(np.nonzero(~ok), v, named))


# --------------------------------------------------------------------------
# family: plain scans
# --------------------------------------------------------------------------
def draw_scan(case, ops=OPS):
    """op, input dtype and keywords (direction, exclusive, now and then dtype= or return_indices)."""
    weights = np.array([2.0 if name == "logcumsumexp" else 1.0 for name in ops])  # its own kernels and paths
    op = case.pick("op", ops, weights / weights.sum())
    ordered = op not in ("cumsum", "cumprod", "nancumsum", "nancumprod")
    dt = draw_dtype(case, tuple(d for d in ALL if not (ordered and d in COMPLEX)))
    kw = {"direction": case.pick("direction", DIRECTIONS), "exclusive": case.pick("exclusive", (False, True))}
    if op in ("cumsum", "cumprod", "nancumsum", "nancumprod") and case.chance(0.15):
        to_float = () if ROLE[op] == "prod" else ("float64",)  # integer products in float64 overflow in any order
        widen = {"e": ("float32", "float64"), "f": ("float64",), "d": ("float64",), "c": ("complex128",),
                 "i": ("int64",) + to_float, "u": ("int32", "uint64") + to_float, "b": ("int8", "int64")}
        widen = widen[dt.char] if dt.kind == "f" else widen[dt.kind]
        kw["dtype"] = np.dtype(case.pick("dtype_kw", widen))
    if op in EXTREMA_OPS and case.chance(0.4):
        kw["return_indices"] = True
    return op, dt, kw


def nan_density(case, op, dt):
    """NaN's probability: for the nan-scans, and now and then for the others (not complex products: no bound)."""
    if dt.kind in "fc" and (op.startswith("nan") or case.chance(0.15)) and not (op == "cumprod" and dt.kind == "c"):
        return case.pick("nan", (0.0, 0.01, 0.3, 1.0))
    return 0.0


def may_broadcast(op, dt):
    """Whether a broadcast input (a slice repeated) keeps the scan in range: not for products, nor float16 sums."""
    return ROLE.get(op) != "prod" and not (ROLE.get(op) == "sum" and dt == np.float16)


def draw_compensated(case, op, x, kw):
    """compensated=True now and then for sums of finite values (exact_sums' bound takes no others)."""
    finite = np.isfinite(nan_as_identity(op, x) if op in NAN_OPS else x).all() if x.dtype.kind in "fc" else False
    if op in ("cumsum", "nancumsum") and finite and 0 < x.size <= 20_000 and "dtype" not in kw and case.chance(0.3):
        kw["compensated"] = case.note("compensated", True)


def scan_in_place(case, op, a, kw, fresh):
    """``(args, out)`` for the scan in place, or None where the result cannot overwrite the input."""
    values = fresh[0] if isinstance(fresh, tuple) else fresh
    if native(values.dtype) != native(a.dtype) or values.shape != a.shape or np.ndim(a) == 0:
        return None

    def make():
        x = lay_out(case, np.asarray(a, native(a.dtype)), "in_place_layout", writable=True)
        if isinstance(fresh, tuple):
            return (x,), (x, np.empty(fresh[1].shape, np.intp))
        return (x,), x
    return make


def test_dense(seed):
    with Case("dense", seed) as case:
        op, dt, kw = draw_scan(case)
        shape = draw_shape(case)
        axis = draw_axis(case, shape)
        x, normal = draw_values(case, ROLE.get(op, "order"), dt, shape, nan_density(case, op, dt))
        draw_compensated(case, op, x, kw)
        a = lay_out(case, x, broadcast=may_broadcast(op, dt))
        fn = getattr(simdscan, op)

        def call(arr, out=None):
            return fn(arr, axis, out=out, **kw)

        normal = normal and not case.params["layout"].startswith("broadcast")  # a broadcast repeats its values

        def check(got, where):
            check_scan(got, op, a, axis, is_decreasing(kw["direction"]), kw["exclusive"], kw.get("dtype"), normal,
                       kw.get("compensated", False), where=where)

        simdscan.set_num_threads(int(case.rng.choice(THREADS)))
        fresh = call(a)
        check(fresh, "result")
        rounds = op not in EXTREMA_OPS + ("nancummax", "nancummin") and native(fresh.dtype).kind in "fc"
        consistency(case, call, (a,), fresh, scan_in_place(case, op, a, kw, fresh), check if rounds else None)


# --------------------------------------------------------------------------
# family: reset= segments
# --------------------------------------------------------------------------
def draw_reset(case, shape, axis):
    """Reset flags for ``shape``: none, sparse, dense, every element or periodic (around 4 KiB segments), full or
    broadcast, as bool, integer or float 0/1; a 0-d input gets a scalar."""
    rng = case.rng
    pattern = case.pick("reset", ("sparse", "dense", "every", "periodic", "none"))
    if len(shape) == 0:
        flags = np.asarray(rng.random() < 0.5)
    else:
        rshape = list(shape)
        if case.chance(0.3):  # broadcast along the other axes
            for k in range(len(shape)):
                if axis is None or k != axis % len(shape):
                    rshape[k] = 1 if case.chance(0.5) else rshape[k]
        if pattern == "periodic":
            period = case.pick("period", (1, 2, 511, 512, 513, 2047, 2048, 4096, 4097, 32768))
            flags = (np.indices(rshape).sum(axis=0) % period == 0) if rshape else np.asarray(True)
        else:
            p = {"sparse": 1e-3, "dense": 0.3, "every": 1.0, "none": 0.0}[pattern]
            flags = rng.random(rshape) < p
    form = case.pick("reset_form", ("bool", "int8", "int64", "uint8", "float64", "python"))
    if form == "python" and 0 not in np.shape(flags):  # a list cannot hold an empty axis
        return flags.tolist()
    if form == "python":
        form = case.note("reset_form", "bool")
    return flags.astype(form)


def test_reset(seed):
    with Case("reset", seed) as case:
        op, dt, kw = draw_scan(case)
        shape = draw_shape(case)
        axis = draw_axis(case, shape)
        shape = cap_lines(case, shape, axis, 2000)  # the reference walks the segments line by line
        x, normal = draw_values(case, ROLE.get(op, "order"), dt, shape, nan_density(case, op, dt))
        reset = draw_reset(case, shape, axis)
        a = lay_out(case, x, broadcast=may_broadcast(op, dt))
        normal = normal and not case.params["layout"].startswith("broadcast")  # a broadcast repeats its values
        fn = getattr(simdscan, op)

        def call(arr, out=None):
            return fn(arr, axis, reset=reset, out=out, **kw)

        simdscan.set_num_threads(int(case.rng.choice(THREADS)))
        fresh = call(a)
        dec, exc = is_decreasing(kw["direction"]), kw["exclusive"]
        flags = np.broadcast_to(np.asarray(reset, dtype=np.float64) != 0, np.shape(a))
        if op == "logcumsumexp":  # one group a segment, against the longdouble reference with the documented bound
            want = expected_grouped(op, a, segment_ids(flags, axis), axis, dec, exc)
            rtol = (NORMAL_LCSE_RTOL if normal else LOGCUMSUMEXP_RTOL)[native(fresh.dtype).name]
            check_logcumsumexp(fresh, want, rtol, "result")
        else:
            check_segmented(fresh, op, a, flags, axis, dec, exc, kw.get("dtype"), where="result")
        if kw.get("return_indices"):
            check_value_matches_index(fresh, a, axis, "result")
        consistency(case, call, (a,), fresh, scan_in_place(case, op, a, kw, fresh))


def segment_ids(flags, axis):
    """Segment numbers of the input's shape (the C-order flattening for axis=None): labels with one group a
    segment, for the references of the grouped scans."""
    flags = np.asarray(flags)
    if flags.ndim == 0:
        return np.zeros((), np.int64)
    if axis is None:
        return np.cumsum(flags.reshape(-1)).reshape(flags.shape)
    return np.cumsum(flags, axis=axis)


# --------------------------------------------------------------------------
# family: labels= groups
# --------------------------------------------------------------------------
def draw_labels(case, shape, axis, lines_budget=4000):
    """Integer labels for ``shape``: sorted or random, few or many groups, small or huge values (a hash table past
    65535, uint64 past 2**63), full or broadcast; returns (labels, a negative one was planted)."""
    rng = case.rng
    ldt = np.dtype(case.pick("label_dtype", ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint64")))
    n = max(int(np.prod(shape)), 1)
    line = shape[axis] if (axis is not None and len(shape)) else n
    lines = max(n // max(line, 1), 1)
    count = case.pick("groups", ("one", "few", "many"))
    groups = {"one": 1, "few": int(rng.integers(2, 5)), "many": max(2, min(line, lines_budget // lines, 3000))}[count]
    if ldt.itemsize == 1:
        groups = min(groups, 100)
    offset = case.pick("label_values", ("small", "huge")) if ldt.itemsize >= 4 else "small"
    table = np.sort(rng.choice(min(4 * groups, int(np.iinfo(ldt).max) + 1), groups, replace=False)).astype(np.uint64)
    if offset == "huge":  # past 65535 (a hash table), past 2**40, past 2**63 for uint64
        step, base = (7, 65536) if ldt.itemsize == 4 else (2**20 + 7, 2**63 if ldt == np.uint64 else 2**40)
        table = table * np.uint64(step) + np.uint64(base)
    lshape = list(shape)
    if len(shape) and case.chance(0.25):
        for k in range(len(shape)):
            if axis is None or k != axis % len(shape):
                lshape[k] = 1
    ids = rng.integers(0, groups, lshape)
    if case.pick("label_order", ("random", "sorted")) == "sorted" and len(lshape):
        ids = np.sort(ids, axis=-1 if axis is None else axis)
    labels = np.array(table[ids], dtype=ldt)
    negative = ldt.kind == "i" and np.size(labels) and case.chance(0.08)
    if negative:
        labels[np.unravel_index(int(rng.integers(np.size(labels))), labels.shape)] = -1 - int(rng.integers(0, 3))
    return labels, negative


def pandas_grouped(op, a, labels, axis, dec, exc):
    """pandas' groupby(line, label).cumsum() / cummax() / cummin() in the walk's order, shifted for exclusive
    (float64 / int64 values without NaN)."""
    x = as_lines(np.asarray(a), axis).astype(native(np.asarray(a).dtype))
    lab = label_lines(labels, np.shape(a), axis)
    walk = slice(None, None, -1) if dec else slice(None)
    lines, n = x.shape
    frame = pd.DataFrame({"line": np.repeat(np.arange(lines), n), "label": lab[:, walk].reshape(-1),
                          "x": x[:, walk].reshape(-1), "abs": np.abs(x[:, walk]).reshape(-1)})
    grouped = frame.groupby(["line", "label"], sort=False)
    r = getattr(grouped["x"], op)().to_numpy()
    s = grouped["abs"].cumsum().to_numpy() if op == "cumsum" else None
    m = grouped.cumcount().to_numpy() + 1
    if exc:
        ident = {"cumsum": 0, "cummax": extremum_identity("cummax", x.dtype),
                 "cummin": extremum_identity("cummin", x.dtype)}[op]
        shift = frame.assign(r=r, s=s if s is not None else 0).groupby(["line", "label"], sort=False)
        r = shift["r"].shift(1).fillna(ident).to_numpy().astype(x.dtype) if x.dtype.kind == "f" else \
            shift["r"].shift(1, fill_value=ident).to_numpy()
        s = shift["s"].shift(1).fillna(0).to_numpy() if s is not None else None
        m = m - 1
    back = (lambda v: from_lines(np.asarray(v).reshape(lines, n)[:, walk], np.shape(a), axis))
    return back(r), (back(s) if s is not None else None), back(m)


def check_pandas_grouped(got, op, a, labels, axis, dec, exc):
    """Against pandas: integers and extrema exactly, float64 sums within both sums' bounds (2 m u sum|x|)."""
    want, s, m = pandas_grouped(op, a, labels, axis, dec, exc)
    values = got[0] if isinstance(got, tuple) else got
    g = np.asarray(values, native(values.dtype)).reshape(want.shape)
    if op == "cumsum" and g.dtype.kind == "f":
        tol = 2 * m * 2.0**-53 * s * (1 + 1e-12)
        check_real("pandas: ", g, want.astype(np.float64), tol, False, "against pandas")
    else:
        assert np.array_equal(g, want.astype(g.dtype)), "against pandas:\n" + mismatch_report(
            np.nonzero(g != want), g, want)


def test_labels(seed):
    with Case("labels", seed) as case:
        op, dt, kw = draw_scan(case)
        shape = draw_shape(case, budget=150_000)
        axis = draw_axis(case, shape)
        shape = cap_lines(case, shape, axis, 1000)  # the references go group by group
        x, normal = draw_values(case, ROLE.get(op, "order"), dt, shape, nan_density(case, op, dt))
        draw_compensated(case, op, x, kw)
        labels, negative = draw_labels(case, shape, axis)
        a = lay_out(case, x, broadcast=may_broadcast(op, dt))
        normal = normal and not case.params["layout"].startswith("broadcast")  # a broadcast repeats its values
        fn = getattr(simdscan, op)

        def call(arr, out=None):
            return fn(arr, axis, labels=labels, out=out, **kw)

        simdscan.set_num_threads(int(case.rng.choice(THREADS)))
        if negative:  # ValueError, leaving the input and out= untouched
            probe = fn(a, axis, labels=np.abs(labels.astype(np.int64)).astype(labels.dtype), **kw)
            slots = [OutSlot(case, p.shape, p.dtype, f"out{k}") for k, p in enumerate(
                probe if isinstance(probe, tuple) else (probe,))]
            before = snapshot(a)
            with pytest.raises(ValueError):
                call(a, out=tuple(s.view for s in slots) if len(slots) == 2 else slots[0].view)
            for slot in slots:
                slot.check_untouched("negative label")
            assert snapshot(a) == before, "negative label: the input was modified"
            return
        fresh = call(a)
        dec, exc = is_decreasing(kw["direction"]), kw["exclusive"]
        if op == "logcumsumexp":
            want = expected_grouped(op, a, labels, axis, dec, exc)
            check_logcumsumexp(fresh, want, (NORMAL_LCSE_RTOL if normal else LOGCUMSUMEXP_RTOL)[fresh.dtype.name],
                               "result")
        else:
            check_grouped(fresh, op, a, labels, axis, dec, exc, kw.get("dtype"), kw.get("compensated", False),
                          where="result")
        if kw.get("return_indices"):
            check_value_matches_index(fresh, a, axis, "result")
        if op in ("cumsum", "cummax", "cummin") and native(dt).name in ("float64", "int64") and "dtype" not in kw \
                and not np.isnan(x).any() and (op != "cumsum" or np.isfinite(x).all()):
            check_pandas_grouped(fresh, op, a, labels, axis, dec, exc)
        consistency(case, call, (a,), fresh, scan_in_place(case, op, a, kw, fresh))


# --------------------------------------------------------------------------
# family: ffill
# --------------------------------------------------------------------------
def pandas_fill(a, keys, axis, dec, limit):
    """``(src, leading)`` as lines: the position each element takes its value from, by pandas'
    groupby(line, key).ffill(limit=) of the positions of the numbers in the walk's order (keys: labels or segment
    numbers of the input's shape); and the missing elements before any number of their group."""
    x = as_lines(np.asarray(a), axis)
    k = label_lines(keys, np.shape(a), axis)
    lines, n = x.shape
    missing = np.isnan(x) if x.dtype.kind in "fc" else np.zeros(x.shape, bool)
    pos = np.where(missing, np.nan, np.arange(n, dtype=np.float64))
    walk = slice(None, None, -1) if dec else slice(None)
    frame = pd.DataFrame({"line": np.repeat(np.arange(lines), n), "key": k[:, walk].reshape(-1),
                          "src": pos[:, walk].reshape(-1)})
    grouped = frame.groupby(["line", "key"], sort=False)["src"]
    filled = grouped.ffill(limit=limit).to_numpy().reshape(lines, n)[:, walk]
    anywhere = grouped.ffill().to_numpy().reshape(lines, n)[:, walk]
    own = np.broadcast_to(np.arange(n), (lines, n))
    return np.where(np.isnan(filled), own, filled).astype(np.intp), missing & np.isnan(anywhere)


def check_fill(got, a, keys, axis, dec, limit, where):
    """The bits of the element pandas names (the element's own where it stays), NaN where no number came before."""
    x = as_lines(np.asarray(a), axis).astype(native(np.asarray(a).dtype))
    src, leading = pandas_fill(a, keys, axis, dec, limit)
    want = np.take_along_axis(x, src, axis=1)
    g = as_lines(np.asarray(got, native(got.dtype)), axis)
    assert g.shape == want.shape and g.dtype == want.dtype, f"{where}: {got.dtype} {got.shape}"
    if g.size == 0:
        return
    raw = lambda v: np.ascontiguousarray(v).view(np.uint8).reshape(v.shape + (-1,))  # noqa: E731
    same = (raw(g) == raw(want)).all(axis=-1) | (leading & np.isnan(g))
    if not same.all():
        raise AssertionError(f"{where}: fill differs from pandas':\n" + mismatch_report(np.nonzero(~same), g, want))


def draw_fill(case):
    """dtype, shape, axis, values with NaN (scattered, in runs or everywhere), keywords and the groups' keys."""
    rng = case.rng
    dt = draw_dtype(case, FLOATS + COMPLEX + FLOATS + ("int32", "uint8", "bool"))
    shape = draw_shape(case, budget=150_000)
    axis = draw_axis(case, shape)
    shape = cap_lines(case, shape, axis, 2000)
    x, _ = draw_values(case, "fill", dt, shape)
    if dt.kind in "fc" and x.size:
        missing = case.pick("missing", ("scattered", "runs", "all"))
        flat = x.reshape(-1)
        if missing == "scattered":
            at = rng.random(flat.size) < case.pick("nan", (0.05, 0.5, 0.9))
        elif missing == "runs":  # runs of NaN and of numbers, of mean length 1 / toggle
            at = np.cumsum(rng.random(flat.size) < case.pick("toggle", (0.5, 0.05, 0.001))) % 2 == 1
        else:
            at = np.ones(flat.size, bool)
        pool = [np.nan, -np.nan] if dt.kind == "f" else [complex(np.nan, 1), complex(1, -np.nan), complex(-np.nan, 0)]
        flat[at] = rng.choice(np.array(pool), int(at.sum()))
    kw = {"direction": case.pick("direction", DIRECTIONS), "limit": case.pick("limit", (None, None, 1, 2, 3, 1000))}
    grouping, negative = case.pick("grouping", ("none", "reset", "labels")), False
    if grouping == "reset":
        kw["reset"] = draw_reset(case, shape, axis)
        keys = segment_ids(np.broadcast_to(np.asarray(kw["reset"], np.float64) != 0, shape), axis)
    elif grouping == "labels":
        kw["labels"], negative = draw_labels(case, shape, axis)
        keys = kw["labels"]
    else:
        keys = np.zeros((), np.int8)
    return dt, axis, x, kw, keys, negative


def test_ffill(seed):
    with Case("ffill", seed) as case:
        dt, axis, x, kw, keys, negative = draw_fill(case)
        a = lay_out(case, x)

        def call(arr, out=None):
            return simdscan.ffill(arr, axis, out=out, **kw)

        simdscan.set_num_threads(int(case.rng.choice(THREADS)))
        if negative:
            slot = OutSlot(case, result_shape(a, axis), dt)
            before = snapshot(a)
            with pytest.raises(ValueError):
                call(a, out=slot.view)
            slot.check_untouched("negative label")
            assert snapshot(a) == before
            return
        fresh = call(a)
        check_fill(fresh, a, keys, axis, is_decreasing(kw["direction"]), kw["limit"], "result")
        consistency(case, call, (a,), fresh, scan_in_place(case, "ffill", a, kw, fresh))


# --------------------------------------------------------------------------
# family: linear_recurrence / discounted_cumsum
# --------------------------------------------------------------------------
def draw_recurrence(case):
    """(discounted, a, b, axis, keywords, growth) of a linear recurrence or a discounted cumsum."""
    rng = case.rng
    discounted = case.chance(0.3)
    bdt = draw_dtype(case, FLOATS + COMPLEX + FLOATS + ("int32", "bool"))
    shape = draw_shape(case, ndims=(1, 1, 2, 3), p_long=0.5, budget=120_000)
    axis = case.pick("axis", tuple(range(len(shape))) + tuple(range(-len(shape), 0)))
    if shape[axis] < 4096 and max(shape) >= 4096 and case.chance(0.5):
        axis = case.note("axis", int(np.argmax(shape)))
    shape = cap_lines(case, shape, axis, 3000)  # the loop reference steps through the lines together
    n, ax = shape[axis], axis % len(shape)
    kw = {} if discounted else {"direction": case.pick("direction", DIRECTIONS),
                                "exclusive": case.pick("exclusive", (False, True))}
    dec = discounted or is_decreasing(kw["direction"])
    nan = case.pick("nan", (0.0, 0.0, 1e-3, 0.05)) if bdt.kind in "fc" else 0.0
    b, _ = draw_values(case, "sum", bdt, shape, nan=nan)
    if bdt.kind in "fc":  # no subnormals (the relative bound has no absolute floor); float16 within +-10
        b[(b != 0) & (np.abs(b) < np.finfo(b.dtype).tiny)] = 0
        b = np.where(np.abs(b) > 10, np.sign(b) * 10, b).astype(bdt) if bdt == np.float16 else b
    cdt = bdt if bdt.kind in "fc" else np.dtype(np.float64)  # a's dtype: b's, float64 for integer b
    real = np.dtype(cdt.type(0).real.dtype)
    kind = case.pick("a", ("decay", "tiny", "near_one", "growing", "zero_prefix", "scalar"),
                     [0.15, 0.1, 0.1, 0.2, 0.3, 0.15])
    single = compute_dtype(result_dtype(1.0, b)) in (np.float32, np.complex64)  # computed in single precision
    if kind == "growing" and single and n > 16384:  # past that a float32 loop itself misses 1e-5 of its growing y
        kind = case.note("a", "decay")
    ashape = shape if case.chance(0.8) else tuple(n if k == ax else 1 for k in range(len(shape)))
    if kind == "decay":
        a = rng.uniform(-1, 1, ashape)
    elif kind == "tiny":  # products underflow within a vector
        a = 10.0 ** rng.uniform(-8, -1, ashape) * rng.choice([-1.0, 1.0], ashape)
    elif kind == "near_one":
        a = 1 - rng.uniform(0, 1e-3, ashape)
    elif kind == "growing":  # |a| in [1, 1 + g]: growth at most e**40, and a third of the result type's range
        reach = 3.5 if bdt == np.float16 else 5.0 if single else 40.0
        a = rng.uniform(1, 1 + min(0.1, reach / max(n, 1)), ashape) * rng.choice([-1.0, 1.0], ashape)
    elif kind == "zero_prefix":  # b is 0 for a head of the walk where a reaches 1.1: the state stays 0 there
        k = min(n, 32768 + int(rng.integers(0, 100))) if case.chance(0.5) else int(rng.integers(0, n + 1))
        idx = np.arange(n).reshape([n if j == ax else 1 for j in range(len(shape))])
        head = idx >= n - k if dec else idx < k
        a = np.where(head, rng.uniform(1.0, 1.1, shape), rng.uniform(-1, 1, shape))
        b = np.where(head, np.zeros((), bdt), b).astype(bdt)
    else:
        a = complex(*rng.uniform(-0.7, 0.7, 2)) if cdt.kind == "c" and case.chance(0.5) else float(
            rng.uniform(-1, 1))
    if isinstance(a, np.ndarray):
        a = a.astype(real)
        if cdt.kind == "c" and case.chance(0.5):  # any phase
            a = (a * np.exp(1j * rng.uniform(-np.pi, np.pi, a.shape))).astype(cdt)
    if not discounted:
        init = case.pick("initial", ("none", "scalar", "array", "view_of_out", "view_of_out")
                         if kind != "zero_prefix" else ("none",))  # a state of 0 through the growing head
        if init == "scalar":
            kw["initial"] = float(rng.uniform(-2, 2))
        elif init == "array":
            kw["initial"] = rng.uniform(-2, 2, line_shape(shape, axis)).astype(cdt)
        elif init == "view_of_out":
            kw["initial"] = "view_of_out"
    if case.chance(0.5):
        kw["reset"] = draw_reset(case, shape, axis)
    return discounted, a, b, axis, kw, kind in ("growing", "zero_prefix")


def with_initial(y, initial, axis, decreasing):
    """``y`` with the state before the walk (``initial``, 0 by default) first in the walk: the scales start there."""
    init = np.broadcast_to(np.asarray(0 if initial is None else initial), line_shape(y.shape, axis))
    init = np.expand_dims(init, axis).astype(y.dtype)
    return np.concatenate((y, init) if decreasing else (init, y), axis=axis)


def test_recurrence(seed):
    with Case("recurrence", seed) as case:
        discounted, a, b, axis, kw, growth = draw_recurrence(case)
        view_init = isinstance(kw.get("initial"), str) and b.shape[axis] > 1  # "view_of_out"
        if isinstance(kw.get("initial"), str) and not view_init:
            kw["initial"] = case.note("initial", None)
        dec = discounted or is_decreasing(kw.get("direction", "increasing"))
        rdt = result_dtype(a, b)
        n = b.shape[axis]
        at = [slice(None)] * b.ndim
        at[axis] = int(case.rng.integers(0, n - 1)) + (0 if dec else 1) if n > 1 else 0  # not walked first
        at = tuple(at) + (Ellipsis,)  # initial's place in out= where it views it (0-d views for 1-D)
        bl = lay_out(case, b, "b_layout", broadcast=not growth)  # a repeated b would outgrow a growing a
        al = lay_out(case, a, "a_layout", broadcast=not growth) if isinstance(a, np.ndarray) and case.chance(0.5) else a
        b, a = np.asarray(bl, native(b.dtype)), (np.asarray(al, native(al.dtype)) if isinstance(al, np.ndarray) else a)
        if view_init:  # the fresh call's initial: the values out= will hold there (b's, in place)
            kw["initial"] = b[at].astype(rdt) if n else None

        def call(a_, b_, out=None, **extra):
            if discounted:
                return simdscan.discounted_cumsum(b_, a_, axis, out=out, **{**kw, **extra})
            return simdscan.linear_recurrence(a_, b_, axis, out=out, **{**kw, **extra})

        simdscan.set_num_threads(int(case.rng.choice(THREADS)))
        fresh = call(al, bl)
        reset = kw.get("reset")
        flags = None if reset is None else np.broadcast_to(np.asarray(reset, np.float64) != 0, b.shape)
        loop = recurrence(a, b, axis, dec, kw.get("exclusive", False), kw.get("initial"), flags)

        def check(y, where):
            got, want = (with_initial(v, kw.get("initial"), axis, dec) for v in (y.astype(rdt), loop))
            if rdt.kind == "c" and not np.isfinite(want).all():  # complex inf - inf: NaN or inf by the operations' order
                finite = np.isfinite(want)
                assert np.array_equal(np.isfinite(got), finite), f"{where}: non-finite elsewhere than the loop's"
                got, want = np.where(finite, got, 0).astype(rdt), np.where(finite, want, 0)
            check_close(got, want, rdt, axis, dec, "running" if growth else "line", where)

        check(fresh, "result")
        if isinstance(a, float) and reset is None and not kw.get("exclusive") and b.ndim == 1 and n and \
                np.isfinite(b).all():  # lfilter meets inf - inf in its own order
            cdt = compute_dtype(rdt)  # scipy's filter of the values simdscan reads: the same y within the bound
            init = kw.get("initial")
            y = lfilter_recurrence(cdt.type(a), b.astype(cdt).reshape(1, -1), dec,
                                   None if init is None else np.reshape(np.asarray(init).astype(cdt), 1))
            check_close(fresh, y.reshape(b.shape), rdt, axis, dec, "line", "lfilter")

        def in_place():
            if native(rdt) != native(b.dtype):
                return None
            target = lay_out(case, b, "in_place_layout", writable=True)
            return (al, target), target, ({"initial": target[at]} if view_init and n else {})

        consistency_recurrence(case, call, (al, bl), fresh, in_place, view_init and n, at, kw,
                               (lambda x: walks_rows(x, axis), check))


def consistency_recurrence(case, call, args, fresh, in_place, view_init, at, kw, walk):
    """``consistency`` for a recurrence, whose initial may also be a view of the out= it writes (at ``at``); ``walk``:
    (walks, check), b's walk (the README's rule) and the check of a result that another walk gives."""
    consistency(case, call, args, fresh)
    if view_init:  # out= at an odd place, holding initial's values where initial views it
        slot = OutSlot(case, fresh.shape, fresh.dtype, "out_holding_initial")
        slot.view[at] = kw["initial"]
        same_bits(call(*args, out=slot.view, initial=slot.view[at]), fresh, "initial a view of out=")
    made = in_place()
    if made is not None:
        args2, target, extra = made
        where = "in place" + (", initial a view of out" if extra else "")
        walks, check = walk
        if walks(target) == walks(args[1]):
            same_bits(call(*args2, out=target, **extra), fresh, where)
        else:
            check(call(*args2, out=target, **extra), where + ", another walk")


# --------------------------------------------------------------------------
# family: ewm_mean
# --------------------------------------------------------------------------
def draw_ewm(case, dt, shape):
    """Values (positive or signed, NaN runs, infinities) and pandas' parameters."""
    rng = case.rng
    signed = case.pick("values", ("positive", "signed")) == "signed"
    x = rng.uniform(-2 if signed else 1, 2, shape)
    x[rng.random(shape) < case.pick("nan", (0.0, 0.05, 0.5))] = np.nan
    if case.note("infinities", case.chance(0.15)) and x.size:  # pandas takes an infinity for a missing value
        at = rng.random(shape) < 0.01
        at.reshape(-1)[rng.integers(x.size)] = True
        x[at] = rng.choice([np.inf, -np.inf], int(at.sum()))
    if dt.kind in "iu":
        x = np.nan_to_num(x * 10, nan=0, posinf=5, neginf=-5)
    decay = case.pick("decay", ("com", "span", "halflife", "alpha"))
    value = {"com": rng.choice([0.0, 0.5, 1.0, 9.0, 200.0]), "span": rng.choice([1.0, 3.0, 40.0]),
             "halflife": rng.choice([0.7, 10.0]), "alpha": rng.choice([0.05, 0.5, 1.0, 1e-3])}[decay]
    params = {decay: float(value), "adjust": case.pick("adjust", (True, False)),
              "ignore_na": case.pick("ignore_na", (False, True))}
    return x.astype(dt), params, "line" if signed else "element"


def test_ewm(seed):
    with Case("ewm", seed) as case:
        dt = draw_dtype(case, FLOATS + ("float64", "int32", "int64"))
        shape = draw_shape(case, ndims=(1, 2, 3), budget=100_000)
        axis = case.pick("axis", tuple(range(len(shape))) + (-1,))
        shape = cap_lines(case, shape, axis, 500)  # pandas: one column a line
        x, params, relative = draw_ewm(case, dt, shape)
        a = lay_out(case, x)

        def call(arr, out=None):
            return simdscan.ewm_mean(arr, axis, out=out, **params)

        simdscan.set_num_threads(int(case.rng.choice(THREADS)))
        fresh = call(a)
        check_ewm(fresh, np.asarray(a), axis, "result", relative, **params)
        consistency(case, call, (a,), fresh, scan_in_place(case, "ewm", a, {}, fresh),
                    walk=(lambda y: walks_rows(y, axis),
                          lambda got, where: check_ewm(np.asarray(got, native(got.dtype)), np.asarray(a), axis, where,
                                                       relative, **params)))


# --------------------------------------------------------------------------
# family: simdscan.dask against the NumPy level and the references
# --------------------------------------------------------------------------
def draw_chunks(case, shape):
    """Chunks of every axis: 1 to 5 pieces at random cuts, empty and one-element chunks included."""
    chunks = []
    for n in shape:
        pieces = int(case.rng.integers(1, 6))
        cuts = np.sort(case.rng.integers(0, n + 1, pieces - 1))
        if n and case.chance(0.2):
            cuts = np.concatenate([[0], cuts])  # an empty first chunk
        edges = np.concatenate([[0], cuts, [n]])
        chunks.append(tuple(int(v) for v in np.diff(edges)))
    return case.note("chunks", tuple(chunks))


def draw_dask(case, shape, axis):
    """(function name, x, keywords, extra operands: a, reset or labels, whether random normal, ewm's relative)."""
    what = case.pick("function", ("scan", "scan", "scan", "reset", "labels", "ffill", "recurrence", "ewm"))
    kw, extra, normal, relative = {}, {}, False, None
    if what in ("scan", "reset", "labels"):
        name, dt, kw = draw_scan(case)
        x, normal = draw_values(case, ROLE.get(name, "order"), dt, shape, nan_density(case, name, dt))
        if what == "reset":
            extra["reset"] = draw_reset(case, shape, axis)
        elif what == "labels":
            labels, negative = draw_labels(case, shape, axis, lines_budget=2000)
            extra["labels"] = np.abs(labels.astype(np.int64)).astype(labels.dtype) if negative else labels
    elif what == "ffill":
        name, dt = "ffill", draw_dtype(case, FLOATS + COMPLEX + ("int32",))
        x, _ = draw_values(case, "fill", dt, shape, nan=case.pick("nan", (0.1, 0.6, 0.95)))
        kw = {"direction": case.pick("direction", DIRECTIONS), "limit": case.pick("limit", (None, 1, 3))}
        if case.chance(0.4):
            extra["reset"] = draw_reset(case, shape, axis)
    elif what == "recurrence":
        name, dt = "linear_recurrence", draw_dtype(case, ("float32", "float64", "complex128"))
        x, _ = draw_values(case, "sum", dt, shape)
        x[np.isinf(x) if dt.kind == "c" else np.zeros(shape, bool)] = 0  # complex inf - inf: order-dependent
        x[(x != 0) & (np.abs(x) < np.finfo(x.dtype).tiny)] = 0  # the relative bound has no absolute floor
        kw = {"direction": case.pick("direction", DIRECTIONS), "exclusive": case.pick("exclusive", (False, True))}
        extra["a"] = case.rng.uniform(-1, 1, shape).astype(dt.type(0).real.dtype) if case.chance(0.5) else float(
            case.rng.uniform(-1, 1))
    else:
        name, dt = "ewm_mean", draw_dtype(case, ("float32", "float64"))
        x, kw, relative = draw_ewm(case, dt, shape)
    return name, x, kw, extra, normal, relative


def check_dask(got, whole, name, x, axis, kw, extra, normal, relative, boundaries):
    """Exact results: the NumPy level's bits; rounded ones: the references' bounds (logcumsumexp: plus one rounding
    of logaddexp per chunk boundary)."""
    values, wvalues = (got[0], whole[0]) if isinstance(got, tuple) else (got, whole)
    rounds = name in ("linear_recurrence", "ewm_mean", "logcumsumexp") or (
        name in ("cumsum", "cumprod", "nancumsum", "nancumprod") and native(wvalues.dtype).kind in "fc")
    if not rounds:
        same_bits(got, whole, "dask against the NumPy level", nan_bits=False)  # NaN payloads aside
        return
    assert values.dtype == wvalues.dtype and values.shape == wvalues.shape, f"dask: {values.dtype} {values.shape}"
    dec, exc = is_decreasing(kw.get("direction", "increasing")), kw.get("exclusive", False)
    flags = np.broadcast_to(np.asarray(extra["reset"], np.float64) != 0, x.shape) if "reset" in extra else None
    if name == "ewm_mean":
        check_ewm(values, x, axis, "dask", relative, **kw)
    elif name == "linear_recurrence":
        check_close(values, recurrence(extra["a"], x, axis, dec, exc), wvalues.dtype, axis, dec, "line", "dask")
    elif name == "logcumsumexp":
        if "labels" in extra or flags is not None:
            groups = extra["labels"] if "labels" in extra else segment_ids(flags, axis)
            want = expected_grouped(name, x, groups, axis, dec, exc)
        else:
            want = expected_logcumsumexp(x, axis, dec, exc)[1]
        rtol = (NORMAL_LCSE_RTOL if normal else LOGCUMSUMEXP_RTOL)[wvalues.dtype.name]
        check_logcumsumexp(values, want, rtol, "dask", (boundaries + 1) * 4 * np.finfo(wvalues.dtype).eps)
    elif "labels" in extra:
        _check_bounded(values, name, x, extra["labels"], axis, dec, exc, kw.get("dtype"), False, "dask")
    elif flags is not None:
        check_segmented(values, name, x, flags, axis, dec, exc, kw.get("dtype"), where="dask")
    else:
        check_scan(values, name, x, axis, dec, exc, kw.get("dtype"), normal, where="dask")


def test_dask(seed):
    da = pytest.importorskip("dask.array")
    import simdscan.dask as sdask

    with Case("dask", seed) as case:
        shape = draw_shape(case, ndims=(1, 2, 3), p_long=0.2, budget=100_000)
        axis = case.pick("axis", tuple(range(len(shape))) + (-1,))
        shape = cap_lines(case, shape, axis, 500)
        chunks = draw_chunks(case, shape)
        name, x, kw, extra, normal, relative = draw_dask(case, shape, axis)
        lazy = {k: da.from_array(np.broadcast_to(v, shape), chunks=chunks) if np.ndim(v) and case.chance(0.5) else v
                for k, v in extra.items()}  # NumPy or Dask operands
        if name == "linear_recurrence":
            got = sdask.linear_recurrence(lazy["a"], da.from_array(x, chunks=chunks), axis, **kw)
            whole = simdscan.linear_recurrence(extra["a"], x, axis, **kw)
        else:
            got = getattr(sdask, name)(da.from_array(x, chunks=chunks), axis, **kw, **lazy)
            whole = getattr(simdscan, name)(x, axis, **kw, **extra)
        got = tuple(g.compute(scheduler="synchronous") for g in got) if isinstance(got, tuple) else got.compute(
            scheduler="synchronous")
        boundaries = sum(1 for c in chunks[axis] if c) - 1
        check_dask(got, whole, name, x, axis, kw, extra, normal, relative, boundaries)
