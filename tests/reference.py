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
import zlib

import numpy as np

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

OPS = ("cumsum", "cumprod")
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


def _fmt_mismatch(idx, got, want, tol=None):
    lines = []
    for k, i in enumerate(zip(*idx)):
        if k == 8:
            lines.append(f"    ... ({len(idx[0])} mismatching elements in all)")
            break
        i = tuple(int(v) for v in i)
        s = f"    at {i}: got {got[i].item()!r}, expected {want[i].item()!r}"
        if tol is not None:
            s += f" (tolerance {tol[i].item()!r})"
        lines.append(s)
    return "\n".join(lines)


def _check_real(label, got_w, want, tol, half_ulp_f16, msg):
    """got_w, want: float64 arrays of one shape; tol: float64 array."""
    problems = []
    gnan, wnan = np.isnan(got_w), np.isnan(want)
    if not np.array_equal(gnan, wnan):
        problems.append(
            f"{label}NaN positions differ:\n"
            + _fmt_mismatch(np.nonzero(gnan != wnan), got_w, want)
        )
    winf = np.isinf(want)
    bad_inf = (np.isinf(got_w) != winf) | (winf & (got_w != want))
    if bad_inf.any():
        problems.append(
            f"{label}infinities differ:\n"
            + _fmt_mismatch(np.nonzero(bad_inf), got_w, want)
        )
    fin = np.isfinite(want)
    with np.errstate(all="ignore"):
        t = np.array(tol, dtype=np.float64, copy=True)
        if half_ulp_f16:
            big = np.maximum(np.abs(got_w), np.abs(want))
            t = t + 0.5 * np.spacing(big.astype(np.float16)).astype(np.float64)
        err = np.abs(got_w - want)
        bad = fin & ~(err <= t)
    if bad.any():
        problems.append(
            f"{label}outside the rounding-error bound:\n"
            + _fmt_mismatch(np.nonzero(bad), got_w, want, t)
        )
    if problems:
        raise AssertionError(msg + "\n" + "\n".join(problems))


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
                + _fmt_mismatch(np.nonzero(g != exp.value), g, exp.value)
            )
        return
    f16 = rdt == np.float16
    if rdt.kind == "c":
        gw = got.astype(np.complex128)
        if exp.op == "cumsum":
            tr, ti = exp.tol
            _check_real("real part: ", gw.real, exp.value.real, tr, False, msg)
            _check_real("imag part: ", gw.imag, exp.value.imag, ti, False, msg)
        else:
            with np.errstate(all="ignore"):
                err = np.abs(gw - exp.value)
                bad = ~(err <= exp.tol)
            if bad.any():
                raise AssertionError(
                    f"{msg}\ncomplex product outside the rounding-error bound:\n"
                    + _fmt_mismatch(np.nonzero(bad), gw, exp.value, exp.tol)
                )
        return
    _check_real("", got.astype(np.float64), exp.value, exp.tol, f16, msg)


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
# data and layouts
# --------------------------------------------------------------------------
def seed_of(*parts) -> int:
    """A stable seed derived from test parameters."""
    return zlib.crc32(repr(parts).encode())


# --------------------------------------------------------------------------
# --------------------------------------------------------------------------
def make_data(rng, shape, dtype, op, line=None):
    """Deterministic test data of ``shape`` and ``dtype`` for ``op``.

    Integers are small (-3..3, 0..3 unsigned, 0/1 bool).  Float sums use
    values in [-3, 3]; float products use magnitudes 2**t with random sign,
    t in [-s, s], s = min(1, 4/sqrt(line)) so long lines neither overflow nor
    underflow (float16 included).  ``line`` defaults to the total size."""
    dtype = np.dtype(dtype)
    size = int(np.prod(shape, dtype=np.int64))
    if line is None:
        line = max(size, 1)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype.kind == "u":
        return rng.integers(0, 4, size=shape).astype(dtype)
    if dtype.kind == "i":
        return rng.integers(-3, 4, size=shape).astype(dtype)

    def real(n_shape):
        if op == "cumsum":
            return rng.uniform(-3.0, 3.0, size=n_shape)
        s = min(1.0, 4.0 / math.sqrt(line))
        mag = np.exp2(rng.uniform(-s, s, size=n_shape))
        sign = np.where(rng.integers(0, 2, size=n_shape) == 1, -1.0, 1.0)
        return mag * sign

    if dtype.kind == "c":
        if op == "cumsum":
            v = real(shape) + 1j * real(shape)
        else:
            s = min(1.0, 4.0 / math.sqrt(line))
            mag = np.exp2(rng.uniform(-s, s, size=shape))
            v = mag * np.exp(1j * rng.uniform(-np.pi, np.pi, size=shape))
        return v.astype(dtype)
    return real(shape).astype(dtype)


LAYOUTS = (
    "C",
    "fortran",
    "reversed",
    "stepped",
    "transposed",
    "broadcast",
    "byteswapped",
    "readonly",
)


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
        big = np.zeros(tuple(2 * s + 1 for s in base.shape), dtype=base.dtype)
        big[tuple(slice(0, 2 * s, 2) for s in base.shape)] = base
        return big[tuple(slice(0, 2 * s, 2) for s in base.shape)]
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


def snapshot(a):
    """Bytes and metadata of ``a`` (logical C order) to prove it unchanged."""
    a = np.asarray(a)
    return (a.dtype.str, a.shape, a.tobytes())


def assert_unchanged(a, snap, what="input"):
    now = snapshot(a)
    if now != snap:
        raise AssertionError(f"the {what} was modified")


# --------------------------------------------------------------------------
# exact prefixes, for the compensated scan's bound
# --------------------------------------------------------------------------
UNIT_ROUNDOFF_BITS = {"e": 11, "f": 24, "d": 53}  # u = 2**-bits, by the (real) result dtype's char


def _exact_ints(arrays):
    """Finite float arrays as exact Python ints (object arrays) on one common scale 2**-shift."""
    parts = []
    for a in arrays:
        m, e = np.frexp(np.asarray(a, dtype=np.float64))
        parts.append(((m * 2.0**53).astype(np.int64), e.astype(np.int64) - 53))
    low = min(int(e.min()) for _, e in parts if e.size)
    return [
        np.array([int(v) << int(s) for v, s in zip(m.ravel().tolist(), (e - low).ravel().tolist())],
                 dtype=object).reshape(m.shape)
        for m, e in parts
    ]


def _scan_order(x, axis, decreasing, exclusive):
    """The exact (object-int) scan of x along axis, and each output's number of terms."""
    x = np.moveaxis(x, axis, -1)
    if decreasing:
        x = x[..., ::-1]
    s = np.cumsum(x, axis=-1)
    terms = np.arange(1, x.shape[-1] + 1, dtype=np.int64)
    if exclusive:
        s = np.concatenate([np.zeros(s.shape[:-1] + (1,), dtype=object), s[..., :-1]], axis=-1)
        terms = terms - 1
    if decreasing:
        s = s[..., ::-1]
        terms = terms[::-1]
    return np.moveaxis(s, -1, axis), np.moveaxis(np.broadcast_to(terms, s.shape), -1, axis)


def check_compensated(got, a, axis, decreasing=False, exclusive=False, msg=""):
    """Every output of a compensated sum within 2u*sum|x_j| + 4*m*u**2*sum|x_j| of the exact prefix.

    Exact arithmetic on Python ints: u is the result dtype's unit roundoff, m the output's number of terms;
    complex parts are checked as the two real sums they are. ``a`` must be finite."""
    got = np.asarray(got)
    a = np.asarray(a).astype(got.dtype)
    bits = UNIT_ROUNDOFF_BITS[got.real.dtype.char]
    pairs = [(got.real, a.real), (got.imag, a.imag)] if got.dtype.kind == "c" else [(got, a)]
    for part, (g, x) in zip(("real", "imag"), pairs):
        g_int, x_int = _exact_ints([g, x])
        exact, terms = _scan_order(x_int, axis, decreasing, exclusive)
        total_abs, _ = _scan_order(np.abs(x_int), axis, decreasing, exclusive)
        err = np.abs(g_int - exact)
        allowed = total_abs * (2 * (1 << bits) + 4 * terms.astype(object))
        ok = err * (1 << (2 * bits)) <= allowed
        if not np.all(ok):
            idx = np.argwhere(~ok.astype(bool))[0]
            i = tuple(idx.tolist())
            raise AssertionError(
                f"{msg} {part} part at {i}: error {float(err[i]) / float(total_abs[i] or 1):.3g} * sum|x| "
                f"exceeds the compensated bound (u = 2**-{bits}, m = {terms[i]}); "
                f"{np.count_nonzero(~ok.astype(bool))} outputs out of bound"
            )


def spread_values(rng, shape, dtype):
    """Finite values over a few binades, three in four positive: sums that drift (so a plain scan's error grows
    with the length) and cancel in places."""
    real = np.dtype(dtype).type(0).real.dtype
    span = (-8, -3) if real == np.float16 else (-3, 3)  # float16 sums of 10**5 terms stay below 65504

    def part():
        sign = np.where(rng.random(shape) < 0.75, 1.0, -1.0)
        return sign * rng.uniform(0.5, 1.0, shape) * np.exp2(rng.integers(*span, size=shape))

    v = part() + 1j * part() if np.dtype(dtype).kind == "c" else part()
    return v.astype(dtype)
