"""NumPy-only oracle for the simdscan test suite.

Nothing here imports simdscan.  The reference result of a scan is built only
from ``numpy.cumsum`` / ``numpy.cumprod`` with ``numpy.flip`` for the
decreasing direction and the identity shifted in for the exclusive variant:

* integers (and bool input, which is cast to the default integer first) are
  scanned *in the result dtype itself*, so NumPy wraps modulo 2**bits exactly
  as simdscan must; they are compared bit-exactly;
* floating types are scanned in a wide type (float64 / complex128) and the
  result of simdscan is accepted when it lies within the rounding-error bound
  of a recursive (sequential) scan:

    sum:   |got - exact| <= m * u * sum_{j in prefix} |x_j|
    prod:  |got - exact| <= gamma_m * prod_{j in prefix} |x_j|,
           gamma_m = m*u / (1 - m*u)

  where m is the number of terms of that output and u the unit roundoff of the
  accumulation type (float16 accumulates in float32, so u = 2**-24, and the
  final rounding to float16 adds half an float16 ulp).  The wide reference
  itself is not exact, so its own bound (u = 2**-53) is added as well.  For
  complex sums, real and imaginary parts are independent real sums and are
  checked componentwise; for complex products the per-multiplication relative
  error of a complex multiply is sqrt(2)*gamma_2 (Higham, Lemma 3.5), so the
  bound is (1 + sqrt(2)*gamma_2)**m - 1 instead of gamma_m.

NaN positions must match exactly and infinities must match exactly (value and
sign).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from compare import check_real, mismatch_report
from ops import SCANS

try:  # NumPy >= 2.0
    from numpy.lib.array_utils import normalize_axis_index
except ImportError:  # pragma: no cover - NumPy 1.x
    from numpy.core.multiarray import normalize_axis_index  # type: ignore

SUPPORTED_DTYPES = [
    np.dtype(name)
    for name in (
        "float16",
        "float32",
        "float64",
        "complex64",
        "complex128",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "bool",
    )
]
FLOAT_DTYPES = [d for d in SUPPORTED_DTYPES if d.kind in "fc"]
INT_DTYPES = [d for d in SUPPORTED_DTYPES if d.kind in "iu"]

#: the result dtype of a scan of bool input (numpy.cumsum's default integer)
DEFAULT_INT = np.cumsum(np.zeros(1, dtype=bool)).dtype

#: NumPy's own scans (tests/ops.py), which this oracle computes and test_sweep / test_threads_identical sweep
OPS = tuple(s.name for s in SCANS if s.numpy_name)
IDENTITY = {"cumsum": 0, "cumprod": 1}
_NP_FUNC = {"cumsum": np.cumsum, "cumprod": np.cumprod}

_U_REF = 2.0**-53  # unit roundoff of the wide reference (float64 / complex128)
_U_ACC = {  # unit roundoff of the type simdscan accumulates in
    "float16": 2.0**-24,  # accumulated in float32
    "float32": 2.0**-24,
    "float64": 2.0**-53,
    "complex64": 2.0**-24,
    "complex128": 2.0**-53,
}


# --------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------
def native(dt) -> np.dtype:
    """``dt`` in native byte order."""
    return np.dtype(dt).newbyteorder("=")


def result_dtype(in_dtype, dtype=None) -> np.dtype:
    """The dtype simdscan must return (contract: DirectML's rule, bool -> int)."""
    if dtype is not None:
        return native(dtype)
    in_dtype = np.dtype(in_dtype)
    if in_dtype == np.bool_:
        return DEFAULT_INT
    return native(in_dtype)


def prepare(a, axis=None, dtype=None):
    """Return ``(x, ax, rdt)``: the cast, native, line-shaped input, the
    normalised axis and the result dtype.  ``axis=None`` flattens in C order;
    a 0-d input behaves as shape (1,)."""
    a = np.asarray(a)
    rdt = result_dtype(a.dtype, dtype)
    x = a.astype(rdt)  # NumPy's cast, always a native-order copy
    if axis is None:
        x = x.reshape(-1)  # C order, whatever the memory layout
        ax = 0
    else:
        if x.ndim == 0:
            x = x.reshape(1)
        ax = normalize_axis_index(axis, x.ndim)
    return x, ax, rdt


def directional(func, x, axis, decreasing, exclusive, identity, dtype=None):
    """``func`` (np.cumsum / np.cumprod) along ``axis`` in the given
    direction, with the identity shifted in when ``exclusive``."""
    if decreasing:
        x = np.flip(x, axis)
    r = func(x, axis=axis, dtype=dtype)
    if exclusive:
        shifted = np.empty_like(r)
        first = [slice(None)] * r.ndim
        first[axis] = slice(0, 1)
        rest = [slice(None)] * r.ndim
        rest[axis] = slice(1, None)
        head = [slice(None)] * r.ndim
        head[axis] = slice(0, -1)
        shifted[tuple(first)] = identity
        shifted[tuple(rest)] = r[tuple(head)]
        r = shifted
    if decreasing:
        r = np.flip(r, axis)
    return np.ascontiguousarray(r)


def _gamma(m, u):
    mu = m * u
    return mu / (1.0 - mu)


def _complex_mul_gamma(m, u):
    # relative error of one complex multiply: sqrt(2) * gamma_2
    eps = math.sqrt(2.0) * (2.0 * u) / (1.0 - 2.0 * u)
    return np.expm1(m * np.log1p(eps))


# --------------------------------------------------------------------------
# the oracle
# --------------------------------------------------------------------------
class Expected:
    """Reference result of one scan.

    ``value``: exact result (integers, in the result dtype) or the wide
    reference (floats: float64 / complex128).  ``tol``: per-output absolute
    tolerance for floats (None for integers); for complex sums a pair
    (tol_real, tol_imag)."""

    def __init__(self, op, rdt, value, tol):
        self.op = op
        self.dtype = rdt
        self.value = value
        self.tol = tol

    @property
    def shape(self):
        return self.value.shape


def expected(op, a, axis=None, decreasing=False, exclusive=False, dtype=None):
    """The reference for ``simdscan.<op>(a, axis, direction, exclusive, dtype)``."""
    assert op in OPS, op
    x, ax, rdt = prepare(a, axis, dtype)
    func = _NP_FUNC[op]
    ident = IDENTITY[op]

    def scan(v, dt=None):
        return directional(func, v, ax, decreasing, exclusive, ident, dt)

    with np.errstate(all="ignore"):
        if rdt.kind in "iu":
            return Expected(op, rdt, scan(x, rdt), None)
        if rdt.kind not in "fc":  # pragma: no cover - test design error
            raise AssertionError(f"oracle: unsupported result dtype {rdt}")

        u_acc = _U_ACC[rdt.name]
        wide = np.complex128 if rdt.kind == "c" else np.float64
        xw = x.astype(wide)
        value = scan(xw, wide)
        m = directional(np.cumsum, np.ones(x.shape), ax, decreasing, exclusive, 0)

        if op == "cumsum":
            if rdt.kind == "c":
                tol = tuple(
                    m * (u_acc + _U_REF) * scan(np.abs(part), np.float64)
                    for part in (xw.real, xw.imag)
                )
            else:
                tol = m * (u_acc + _U_REF) * scan(np.abs(xw), np.float64)
        else:
            mag = scan(np.abs(xw), np.float64)
            if rdt.kind == "c":
                if not np.all(np.isfinite(xw)):  # pragma: no cover
                    raise AssertionError(
                        "oracle: complex products of non-finite values are not "
                        "specified; don't feed them to the oracle"
                    )
                g = _complex_mul_gamma(m, u_acc) + _complex_mul_gamma(m, _U_REF)
            else:
                g = _gamma(m, u_acc) + _gamma(m, _U_REF)
            tol = g * mag
    return Expected(op, rdt, value, tol)


def check_values(got, exp: Expected, msg=""):
    """Compare the values of ``got`` (any layout / byte order) with ``exp``."""
    got = np.asarray(got)
    if got.shape != exp.shape:
        raise AssertionError(f"{msg}\nshape: got {got.shape}, expected {exp.shape}")
    rdt = exp.dtype
    if rdt.kind in "iu":
        g = got.astype(rdt)
        if not np.array_equal(g, exp.value):
            raise AssertionError(
                f"{msg}\nvalues differ ({rdt}):\n"
                + mismatch_report(np.nonzero(g != exp.value), g, exp.value)
            )
        return
    f16 = rdt == np.float16
    if rdt.kind == "c":
        gw = got.astype(np.complex128)
        if exp.op == "cumsum":
            tr, ti = exp.tol
            check_real("real part: ", gw.real, exp.value.real, tr, False, msg)
            check_real("imag part: ", gw.imag, exp.value.imag, ti, False, msg)
        else:
            with np.errstate(all="ignore"):
                err = np.abs(gw - exp.value)
                bad = ~(err <= exp.tol)
            if bad.any():
                raise AssertionError(
                    f"{msg}\ncomplex product outside the rounding-error bound:\n"
                    + mismatch_report(np.nonzero(bad), gw, exp.value, exp.tol)
                )
        return
    check_real("", got.astype(np.float64), exp.value, exp.tol, f16, msg)


def check_scan(got, op, a, axis=None, decreasing=False, exclusive=False, dtype=None, msg=""):
    """Full check of a simdscan result: type, shape, dtype and values."""
    exp = expected(op, a, axis, decreasing, exclusive, dtype)
    where = msg or (
        f"{op}(shape={np.shape(a)}, in dtype={np.asarray(a).dtype}, axis={axis}, "
        f"decreasing={decreasing}, exclusive={exclusive}, dtype={dtype})"
    )
    if not isinstance(got, np.ndarray):
        raise AssertionError(f"{where}\nreturned {type(got)!r}, not a numpy.ndarray")
    if native(got.dtype) != exp.dtype:
        raise AssertionError(f"{where}\ndtype: got {got.dtype}, expected {exp.dtype}")
    check_values(got, exp, where)


# --------------------------------------------------------------------------
# layouts, and the paths of the core they lead to
# --------------------------------------------------------------------------
LAYOUTS = (  # swept by the tests of every layout
    "C",
    "fortran",
    "reversed",
    "stepped",
    "transposed",
    "broadcast",
    "byteswapped",
    "readonly",
)
# Also made by apply_layout, for PATHS: "stepped-unpadded" (the row pitch an even multiple of the row, as a
# view of every other element of a bigger array has) and "stepped-by-3".


def _every(base, step, pad):
    """base's values at every ``step``-th element, along each axis, of a zero array ``step`` times as large
    plus ``pad``."""
    big = np.zeros(tuple(step * s + pad for s in base.shape), dtype=base.dtype)
    view = big[tuple(slice(0, step * s, step) for s in base.shape)]
    view[...] = base
    return view


def apply_layout(base, layout):
    """An array with ``base``'s shape laid out as ``layout``.

    All layouts except "broadcast" hold exactly base's values; "broadcast"
    is np.broadcast_to of a smaller array taken from base (zero strides on
    the last axis and every second axis before it)."""
    base = np.ascontiguousarray(base)
    nd = base.ndim
    if layout == "C":
        return base.copy()
    if layout == "fortran":
        return np.asfortranarray(base)
    if layout == "reversed":
        rev = (slice(None, None, -1),) * nd
        return np.ascontiguousarray(base[rev])[rev]
    if layout == "stepped":
        return _every(base, 2, 1)
    if layout == "stepped-unpadded":
        return _every(base, 2, 0)
    if layout == "stepped-by-3":
        return _every(base, 3, 0)
    if layout == "transposed":
        perm = tuple(np.roll(np.arange(nd), 1).tolist())
        inv = tuple(np.argsort(perm).tolist())
        return np.ascontiguousarray(base.transpose(perm)).transpose(inv)
    if layout == "broadcast":
        small = tuple(
            1 if (nd - 1 - k) % 2 == 0 else s for k, s in enumerate(base.shape)
        )
        src = np.ascontiguousarray(base[tuple(slice(0, s) for s in small)])
        return np.broadcast_to(src, base.shape)
    if layout == "byteswapped":
        return base.astype(base.dtype.newbyteorder("S"))
    if layout == "readonly":
        r = base.copy()
        r.flags.writeable = False
        return r
    raise AssertionError(f"unknown layout {layout!r}")


class Path(NamedTuple):
    """A shape, scan axis and layout that send a scan down one path of the core."""

    name: str
    shape: tuple
    axis: int
    layout: str

    def build(self, values):
        """``(array, axis)``: ``values(shape)`` laid out as this path's layout."""
        return apply_layout(values(self.shape), self.layout), self.axis


PATHS = {  # by purpose: the sizes each purpose needs
    "exact": (  # one per path of the core, small enough for an exact reference
        Path("line-chunked", (150_000,), 0, "C"),  # longer than a chunk: later chunks carry a base
        Path("line-strided", (20_000,), 0, "stepped"),  # buffered lines
        Path("line-byteswapped", (20_000,), 0, "byteswapped"),
        Path("rows-packed", (1024, 8), 1, "C"),  # several rows per register
        Path("rows-pairs", (2048, 2), 1, "C"),
        Path("rows-odd", (300, 37), 1, "C"),
        Path("outer", (2000, 40), 0, "C"),  # whole rows, states kept in a carry row
        Path("outer-fortran", (40, 2000), 1, "fortran"),
        Path("outer-strided", (2000, 40), 0, "stepped-unpadded"),  # outer through staging
        Path("outer-byteswapped", (2000, 40), 0, "byteswapped"),
        Path("middle-axis", (20, 300, 12), 1, "transposed"),
    ),
    "threaded": (  # over 1 MiB in 4-byte types: every way the thread pool splits a scan
        Path("long_line", (2_000_003,), 0, "C"),  # several 256 KiB chunks and a partial tail chunk
        Path("few_long_lines", (3, 500_001), 1, "C"),  # lines in parallel, or chunks when threads > 3
        Path("many_lines", (2000, 700), 1, "C"),  # many lines shorter than a chunk
        Path("outer_wide", (24, 80_000), 0, "C"),  # rows wider than one column tile: tiles across threads
        Path("outer_blocks", (4, 200, 2000), 1, "C"),  # outer blocks across threads
        Path("strided", (1_200_007,), 0, "stepped-by-3"),  # the buffered (gather / scatter) path, chunked
    ),
    "kernels": (  # every kernel path, small: a long line is 2+ chunks for 1-byte types
        Path("long", (300_007,), 0, "C"),
        Path("rows8", (2000, 8), 1, "C"),  # packed short rows
        Path("rows37", (500, 37), 1, "C"),
        Path("outer", (37, 500), 0, "C"),
        Path("strided", (150_004,), 0, "stepped"),
        Path("byteswapped", (5000,), 0, "byteswapped"),
    ),
    "seconds-long": (  # 50 million float32 in one scan: long enough to watch another thread run meanwhile
        Path("line", (50_000_000,), 0, "C"),
        Path("outer", (5000, 10_000), 0, "C"),
        Path("strided", (25_000_000,), 0, "stepped"),
    ),
}


def snapshot(a):
    """Bytes and metadata of ``a`` (logical C order) to prove it unchanged."""
    a = np.asarray(a)
    return (a.dtype.str, a.shape, a.tobytes())


def assert_unchanged(a, snap, what="input"):
    now = snapshot(a)
    if now != snap:
        raise AssertionError(f"the {what} was modified")
