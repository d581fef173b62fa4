"""Comparisons that fail with a readable report: a result against the oracle's values and bounds (reference.py),
or against another result bit for bit."""

from __future__ import annotations

import numpy as np


def mismatch_report(idx, got, want, tol=None):
    """Lines naming the first eight mismatching elements at the indices ``idx`` (as np.nonzero gives them)."""
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


def check_real(label, got_w, want, tol, half_ulp_f16, msg):
    """NaNs and infinities where ``want`` has them, finite outputs within ``tol`` (plus half a float16 ulp when
    ``half_ulp_f16``) of it; got_w, want: float64 arrays of one shape; tol: float64 array."""
    problems = []
    gnan, wnan = np.isnan(got_w), np.isnan(want)
    if not np.array_equal(gnan, wnan):
        problems.append(
            f"{label}NaN positions differ:\n"
            + mismatch_report(np.nonzero(gnan != wnan), got_w, want)
        )
    winf = np.isinf(want)
    bad_inf = (np.isinf(got_w) != winf) | (winf & (got_w != want))
    if bad_inf.any():
        problems.append(
            f"{label}infinities differ:\n"
            + mismatch_report(np.nonzero(bad_inf), got_w, want)
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
            + mismatch_report(np.nonzero(bad), got_w, want, t)
        )
    if problems:
        raise AssertionError(msg + "\n" + "\n".join(problems))


def assert_bit_identical(got, want, where):
    """Same dtype, shape and bytes (so -0.0 and +0.0, and NaN payloads, count)."""
    assert isinstance(got, np.ndarray), f"{where}: returned {type(got)!r}"
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype}, expected {want.dtype}"
    assert got.shape == want.shape, f"{where}: shape {got.shape}, expected {want.shape}"
    if got.tobytes() == want.tobytes():  # the same bytes: the same values, NaN where NaN
        return
    same_values = np.array_equal(got, want)
    g = np.ascontiguousarray(got).reshape(-1).view(np.uint8).reshape(got.size, got.itemsize)
    w = np.ascontiguousarray(want).reshape(-1).view(np.uint8).reshape(want.size, want.itemsize)
    bad = np.nonzero((g != w).any(axis=1))[0]
    first = np.unravel_index(int(bad[0]), got.shape)
    raise AssertionError(
        f"{where}: not bit-identical (array_equal={same_values}); {bad.size} of {got.size} elements differ, "
        f"first at {tuple(int(i) for i in first)}: got {got[first]!r}, expected {want[first]!r}"
    )
