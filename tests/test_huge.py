"""Scans over more than 2**31 elements: correct at the ends, around the 2**31
boundary, and everywhere in between.

The inputs are ones with a few "patches" of other values (at the start, around
element 2**31 and at the end), so every prefix has a closed form and a scan that
restarts, drops or repeats elements at 2**31 gives other values.  (With plain
ones, int8 sums repeat every 256 elements and 2**31 is a multiple of 256: an
index that wraps at 2**31 would go unnoticed.)  Besides the closed form at
sampled indices, the full result is checked chunk by chunk through its
differences: out[i] - out[i-1] must be the input element the scan added there.

Memory: at most about 6.5 GB at a time; every test frees its arrays before the
next one starts, failure or not.  Tests skip when the machine has not that much
memory available.
"""

from __future__ import annotations

import numpy as np
import pytest

import simdscan

pytestmark = [pytest.mark.slow, pytest.mark.kernels]

GiB = 1 << 30
B31 = 2**31
CHUNK = 1 << 26  # elements per chunk of the full checks


def _available_bytes():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def needs_memory(nbytes):
    avail = _available_bytes()
    if avail is not None and avail < nbytes + GiB:
        pytest.skip(f"needs {(nbytes + GiB) / GiB:.1f} GiB of available memory, "
                    f"the machine has {avail / GiB:.1f} GiB")


# --------------------------------------------------------------------------
# closed forms
# --------------------------------------------------------------------------
class PatchedOnes:
    """n ones, except the values ``patches`` = [(start, values), ...] (no overlaps).

    Patch values are odd, so products never reach 0 modulo 2**bits and every
    prefix product is invertible."""

    def __init__(self, n, dtype, patches):
        self.n = n
        self.dtype = np.dtype(dtype)
        self.bits = 8 * self.dtype.itemsize
        self.mod = 1 << self.bits
        self.patches = [(int(s), np.asarray(v, dtype=np.int64)) for s, v in patches]
        end = 0
        for s, v in sorted(self.patches, key=lambda p: p[0]):
            assert end <= s and s + len(v) <= n, "patches must not overlap"
            assert np.all(v % 2 == 1)
            end = s + len(v)

    def build(self):
        a = np.ones(self.n, dtype=self.dtype)
        for s, v in self.patches:
            a[s : s + len(v)] = v
        return a

    def chunk(self, s, e):
        """Values [s, e) in the dtype."""
        c = np.ones(e - s, dtype=self.dtype)
        for ps, v in self.patches:
            lo, hi = max(s, ps), min(e, ps + len(v))
            if lo < hi:
                c[lo - s : hi - s] = v[lo - ps : hi - ps]
        return c

    def prefix_sum(self, idx):
        """Exact sum of elements 0..i (0 for i = -1)."""
        idx = np.asarray(idx, dtype=np.int64)
        total = idx + 1
        for s, v in self.patches:
            dev = np.concatenate([[0], np.cumsum(v - 1)])  # dev[k]: deviation of the first k
            k = np.clip(idx - s + 1, 0, len(v))
            total = total + dev[k]
        return total

    def prefix_prod(self, idx):
        """Product of elements 0..i modulo 2**bits (1 for i = -1), as Python ints."""
        out = []
        for i in np.asarray(idx, dtype=np.int64).tolist():
            p = 1
            for s, v in self.patches:
                for x in v[: max(0, min(len(v), i - s + 1))].tolist():
                    p = p * x % self.mod
            out.append(p)
        return out

    def wrap(self, exact):
        """Exact integers (Python ints or int64) to the dtype, modulo 2**bits."""
        u = np.array([int(x) % self.mod for x in np.asarray(exact).tolist()], dtype=np.uint64)
        udt = np.dtype(f"u{self.dtype.itemsize}")
        return u.astype(udt).view(self.dtype) if self.dtype.kind == "i" else u.astype(self.dtype)

    def expected_sum(self, idx, decreasing, exclusive):
        idx = np.asarray(idx, dtype=np.int64)
        total = self.prefix_sum(self.n - 1)
        if not decreasing:
            v = self.prefix_sum(idx - 1) if exclusive else self.prefix_sum(idx)
        else:
            v = total - (self.prefix_sum(idx) if exclusive else self.prefix_sum(idx - 1))
        return self.wrap(v)

    def expected_prod(self, idx, decreasing, exclusive):
        idx = np.asarray(idx, dtype=np.int64)
        if not decreasing:
            return self.wrap(self.prefix_prod(idx - 1 if exclusive else idx))
        total = self.prefix_prod([self.n - 1])[0]
        before = self.prefix_prod(idx if exclusive else idx - 1)
        return self.wrap([total * pow(b, -1, self.mod) for b in before])


def sample_indices(n):
    """Both ends, around 2**31 (and 2**32 when present), and 257 spread points."""
    parts = [np.arange(0, 70), np.arange(n - 70, n), np.linspace(0, n - 1, 257).astype(np.int64)]
    for b in (B31, 2 * B31):
        if b < n:
            parts.append(np.arange(b - 40, b + 40))
    idx = np.unique(np.concatenate(parts))
    return idx[(idx >= 0) & (idx < n)]


def check_samples(r, idx, want, what):
    got = r[idx]
    bad = np.nonzero(got != want)[0]
    if bad.size:
        lines = [f"  [{int(idx[k])}]: got {got[k]!r}, expected {want[k]!r}" for k in bad[:10]]
        raise AssertionError(f"{what}: {bad.size} of {idx.size} sampled elements wrong:\n" + "\n".join(lines))


def check_sum_differences(r, known, decreasing, exclusive, what):
    """Every step of a 1-D sum: r[i] - r[i-1] is the element added there."""
    n = r.shape[0]
    for s in range(0, n - 1, CHUNK):
        e = min(s + CHUNK, n - 1)
        d = r[s + 1 : e + 1] - r[s:e]  # wraps like the scan
        if not decreasing:
            want = known.chunk(s, e) if exclusive else known.chunk(s + 1, e + 1)
        else:
            want = np.negative(known.chunk(s + 1, e + 1) if exclusive else known.chunk(s, e))
        if not np.array_equal(d, want):
            k = int(np.nonzero(d != want)[0][0])
            raise AssertionError(
                f"{what}: out[{s + k + 1}] - out[{s + k}] = {d[k]!r}, expected {want[k]!r}"
            )


# --------------------------------------------------------------------------
# (a) 3e9 int8 elements, one line
# --------------------------------------------------------------------------
N3E9 = 3_000_000_000
PATTERN = np.array([3, -1, 5, 7, -3, 1, -5, 3, 9, -7, 1, 1, -1, 3, 5, 7], dtype=np.int64)


def _patches(n):
    return [
        (0, PATTERN),
        (B31 - 8, np.roll(PATTERN, 3)),
        (n - 16, np.roll(PATTERN, 7)),
    ]


def test_int8_three_billion_all_four_modes():
    needs_memory(2 * N3E9)
    known = PatchedOnes(N3E9, np.int8, _patches(N3E9))
    idx = sample_indices(N3E9)
    a = r = None
    try:
        a = known.build()
        a_sample = a[idx].copy()
        for k, (decreasing, exclusive) in enumerate(
            [(False, False), (True, True), (False, True), (True, False)]
        ):
            what = f"cumsum int8 n=3e9 decreasing={decreasing} exclusive={exclusive}"
            direction = "decreasing" if decreasing else "increasing"
            if r is None:  # the first scan allocates its result, the others write to out=
                r = simdscan.cumsum(a, direction=direction, exclusive=exclusive)
                assert r.dtype == np.int8 and r.shape == (N3E9,)
            else:
                assert simdscan.cumsum(a, 0, direction=direction, exclusive=exclusive, out=r) is r
            check_samples(r, idx, known.expected_sum(idx, decreasing, exclusive), what)
            check_sum_differences(r, known, decreasing, exclusive, what)
        # products of odd values: units modulo 256, so every prefix product has a closed form
        for decreasing, exclusive in [(False, False), (True, True)]:
            direction = "decreasing" if decreasing else "increasing"
            simdscan.cumprod(a, direction=direction, exclusive=exclusive, out=r)
            check_samples(r, idx, known.expected_prod(idx, decreasing, exclusive),
                          f"cumprod int8 n=3e9 decreasing={decreasing} exclusive={exclusive}")
        # the input is untouched
        check_samples(a, idx, a_sample, "input after the scans")
        assert np.array_equal(a[:16], PATTERN.astype(np.int8))
        del r
        r = None
        # in place: the direct path with input == output
        assert simdscan.cumsum(a, out=a) is a
        check_samples(a, idx, known.expected_sum(idx, False, False), "in-place cumsum int8 n=3e9")
    finally:
        del a, r


# --------------------------------------------------------------------------
# (b) a broadcast (zero-stride) view of 2**31 + 17 elements
# --------------------------------------------------------------------------
def test_uint8_broadcast_view_over_2_31():
    n = B31 + 17
    needs_memory(n)
    x = np.broadcast_to(np.uint8(1), (n,))
    assert x.strides == (0,)
    idx = sample_indices(n)
    i = idx.astype(np.int64)
    r = None
    try:
        r = simdscan.cumsum(x)
        assert r.dtype == np.uint8 and r.shape == (n,)
        check_samples(r, idx, ((i + 1) % 256).astype(np.uint8), "cumsum of broadcast ones")
        # all steps are +1 (mod 256)
        for s in range(0, n - 1, CHUNK):
            e = min(s + CHUNK, n - 1)
            d = r[s + 1 : e + 1] - r[s:e]
            assert np.all(d == 1), f"a step other than +1 in [{s}, {e})"
        simdscan.cumsum(x, direction="decreasing", exclusive=True, out=r)
        check_samples(r, idx, ((n - 1 - i) % 256).astype(np.uint8),
                      "decreasing exclusive cumsum of broadcast ones")
        # 3**k modulo 256 has period 64, which 2**31 is a multiple of: check both ends and
        # the boundary with the closed form anyway, the differences above cover the middle
        y = np.broadcast_to(np.uint8(3), (n,))
        simdscan.cumprod(y, direction="decreasing", out=r)
        want = np.array([pow(3, n - int(k), 256) for k in idx], dtype=np.uint8)
        check_samples(r, idx, want, "decreasing cumprod of broadcast threes")
    finally:
        del r


# --------------------------------------------------------------------------
# (c) byte offsets past 2**32: 2**31 + 17 int16 elements, scanned in place
# --------------------------------------------------------------------------
def test_int16_in_place_past_4_gib():
    n = B31 + 17
    needs_memory(2 * n)
    patches = [(0, PATTERN), (B31 // 2 - 8, PATTERN[::-1]), (B31 - 8, np.roll(PATTERN, 5)),
               (n - 8, np.roll(PATTERN, 11)[:8])]
    known = PatchedOnes(n, np.int16, patches)
    idx = sample_indices(n)
    a = None
    try:
        a = known.build()
        assert a.nbytes > 2**32
        assert simdscan.cumsum(a, out=a) is a
        check_samples(a, idx, known.expected_sum(idx, False, False), "in-place cumsum int16 n=2**31+17")
        check_sum_differences(a, known, False, False, "in-place cumsum int16 n=2**31+17")
    finally:
        del a


# --------------------------------------------------------------------------
# (d) 2-D: lines x line length past 2**31
# --------------------------------------------------------------------------
def test_int8_2d_both_axes_and_flattened():
    L = 2**30 + 5
    shape = (3, L)
    needs_memory(2 * 3 * L)
    cols = np.unique(np.concatenate([
        np.arange(0, 40), np.arange(L - 40, L),
        # flat index 2**31 lies in row 1 at column 2**31 - L = L - 10; row 2 starts at flat 2**31 + 10
        np.arange(B31 - L - 40, B31 - L + 10),
        np.linspace(0, L - 1, 129).astype(np.int64),
    ]))
    assert cols.max() < L
    j = cols.astype(np.int64)
    a = r = None

    def wrap8(v):
        return (np.asarray(v, dtype=np.int64) % 256).astype(np.uint8).view(np.int8)

    try:
        a = np.empty(shape, dtype=np.int8)
        for k in range(3):
            a[k] = k + 1

        # along axis 1: three lines of 2**30 + 5, the last starting past flat element 2**31
        r = simdscan.cumsum(a, 1)
        assert r.shape == shape and r.dtype == np.int8
        for k in range(3):
            check_samples(r[k], cols, wrap8((k + 1) * (j + 1)), f"cumsum axis=1 row {k}")
            for s in range(0, L - 1, CHUNK):
                e = min(s + CHUNK, L - 1)
                assert np.all(r[k, s + 1 : e + 1] - r[k, s:e] == k + 1), f"row {k}, columns [{s}, {e}]"
        simdscan.cumsum(a, -1, direction="decreasing", exclusive=True, out=r)
        for k in range(3):
            check_samples(r[k], cols, wrap8((k + 1) * (L - 1 - j)), f"decreasing exclusive axis=1 row {k}")

        # along axis 0: 2**30 + 5 lines of 3
        for decreasing, want in ((False, [1, 3, 6]), (True, [6, 5, 3])):
            simdscan.cumsum(a, 0, direction="decreasing" if decreasing else "increasing", out=r)
            for k in range(3):
                check_samples(r[k], cols, wrap8(np.full(j.shape, want[k])),
                              f"cumsum axis=0 decreasing={decreasing} row {k}")
                for s in range(0, L, CHUNK):
                    e = min(s + CHUNK, L)
                    assert np.all(r[k, s:e] == want[k]), f"axis=0, row {k}, columns [{s}, {e})"
        simdscan.cumprod(a, 0, exclusive=True, out=r)
        for k, want in enumerate([1, 1, 2]):
            check_samples(r[k], cols, wrap8(np.full(j.shape, want)), f"cumprod axis=0 exclusive row {k}")

        # flattened (axis=None): one line of 3 * (2**30 + 5) elements
        flat = r.reshape(-1)
        assert simdscan.cumsum(a, out=flat) is flat
        n = 3 * L
        fidx = sample_indices(n)
        f = fidx.astype(np.int64)
        row, col = f // L, f % L
        prefix_rows = np.array([0, L, 3 * L], dtype=np.int64)  # sum of the rows before
        check_samples(flat, fidx, wrap8(prefix_rows[row] + (row + 1) * (col + 1)), "flattened cumsum")
        # the input is untouched
        for k in range(3):
            assert np.all(a[k, cols] == k + 1)
    finally:
        del a, r


# --------------------------------------------------------------------------
# the closed forms above, against NumPy on a small array of the same make
# --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.uint8])
def test_closed_forms_match_numpy(dtype):
    from reference import expected

    n = 5000
    known = PatchedOnes(n, dtype, [(0, PATTERN), (2000, PATTERN[::-1]), (n - 16, np.roll(PATTERN, 3))])
    a = known.build()
    idx = sample_indices(n)
    for op, form in (("cumsum", known.expected_sum), ("cumprod", known.expected_prod)):
        for decreasing in (False, True):
            for exclusive in (False, True):
                want = expected(op, a, 0, decreasing, exclusive).value
                assert np.array_equal(form(idx, decreasing, exclusive), want[idx]), (op, decreasing, exclusive)
    chunk = known.chunk(1990, 2030)
    assert np.array_equal(chunk, a[1990:2030])
