"""Exact prefix sums on Python integers: the bound every output of a compensated sum must meet (NumPy only)."""

from __future__ import annotations

import numpy as np

from reference import directional

UNIT_ROUNDOFF_BITS = {"e": 11, "f": 24, "d": 53}  # u = 2**-bits, by the (real) result dtype's char


def exact_scale(arrays) -> int:
    """``low`` such that every value of the finite float ``arrays`` is a whole multiple of 2**low."""
    return min(int(np.frexp(np.asarray(a, dtype=np.float64))[1].min()) for a in arrays if np.size(a)) - 53


def as_exact_ints(a, low):
    """The finite float array ``a`` as exact Python ints (an object array) in units of 2**low."""
    m, e = np.frexp(np.asarray(a, dtype=np.float64))
    mantissas = (m * 2.0**53).astype(np.int64).ravel().tolist()
    shifts = (e.astype(np.int64) - 53 - low).ravel().tolist()
    return np.array([int(v) << int(s) for v, s in zip(mantissas, shifts)], dtype=object).reshape(m.shape)


def check_compensated(got, a, axis, decreasing=False, exclusive=False, msg=""):
    """Every output of a compensated sum within 2u*sum|x_j| + 4*m*u**2*sum|x_j| of the exact prefix.

    Exact arithmetic on Python ints: u is the result dtype's unit roundoff, m the output's number of terms;
    complex parts are checked as the two real sums they are. ``a`` must be finite."""
    got = np.asarray(got)
    a = np.asarray(a).astype(got.dtype)
    bits = UNIT_ROUNDOFF_BITS[got.real.dtype.char]
    pairs = [(got.real, a.real), (got.imag, a.imag)] if got.dtype.kind == "c" else [(got, a)]
    terms = directional(np.cumsum, np.ones(a.shape, dtype=np.int64), axis, decreasing, exclusive, 0)
    for part, (g, x) in zip(("real", "imag"), pairs):
        low = exact_scale([g, x])
        g_int, x_int = as_exact_ints(g, low), as_exact_ints(x, low)
        exact = directional(np.cumsum, x_int, axis, decreasing, exclusive, 0)
        total_abs = directional(np.cumsum, np.abs(x_int), axis, decreasing, exclusive, 0)
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
