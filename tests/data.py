"""Deterministic test data: small values for exact scans, near-one values for long products, spread values for
the compensated bound (NumPy only, like reference.py)."""

from __future__ import annotations

import math
import zlib

import numpy as np


def seed_of(*parts) -> int:
    """A stable seed derived from test parameters."""
    return zlib.crc32(repr(parts).encode())


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


def scan_data(rng, shape, dtype, op):
    """Data that keeps long scans meaningful: small values for sums; for products, odd integers (units modulo
    2**bits, so a product never collapses to 0) and floats near 1 (1 + 1e-3 * uniform(-1, 1))."""
    dtype = np.dtype(dtype)
    if op == "cumsum":
        return make_data(rng, shape, dtype, "cumsum")
    if dtype.kind == "u":
        return rng.choice(np.array([1, 3, 5, 253, 255], dtype=np.uint64), size=shape).astype(dtype)
    if dtype.kind == "i":
        return rng.choice(np.array([-3, -1, 1, 3]), size=shape).astype(dtype)
    if dtype.kind == "c":
        return (1.0 + 1e-3 * rng.uniform(-1, 1, shape) + 1e-3j * rng.uniform(-1, 1, shape)).astype(dtype)
    return (1.0 + 1e-3 * rng.uniform(-1, 1, shape)).astype(dtype)


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
