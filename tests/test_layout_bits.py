"""Which layouts share bits (README, "Accuracy and determinism"; docs/accuracy.md): a float sum, product, NaN-skipping
sum or product, or log-sum-exp groups its operations along the line (each line has the bits of the same line scanned
as a contiguous 1-D array) unless another axis of at least 8 elements lies closer together than the scan axis in both
the input and `out` (then row after row: NumPy's own order along such an axis). Neither the thread count nor where
the input and `out` sit in memory changes a bit."""

import numpy as np
import pytest

import simdscan
from data import seed_of

pytestmark = pytest.mark.kernels  # the vectors' width is the tier's

OPS = ["cumsum", "cumprod", "nancumsum", "nancumprod", "logcumsumexp"]
FLOATS = ["float16", "float32", "float64"]
# The row-after-row order as NumPy computes it, for the ops NumPy has bit for bit (logcumsumexp: simdscan's own
# row-after-row scan of a C-ordered array, the canonical layout of that order).
NUMPY_ROWS = {"cumsum": np.cumsum, "cumprod": np.cumprod, "nancumsum": np.nancumsum, "nancumprod": np.nancumprod}


def values(rng, op, shape, dtype):
    x = 1.0 + 0.01 * rng.standard_normal(shape) if op.endswith("prod") else rng.standard_normal(shape)
    x = x.astype(dtype)
    if op.startswith("nan"):
        x[rng.random(shape) < 0.1] = np.nan
    return x


def bits(a):
    return np.ascontiguousarray(a).view(np.uint8)


def placed(shape, dtype, offset):
    """An uninitialised C-ordered array `offset` bytes into a buffer (so at any alignment)."""
    dtype = np.dtype(dtype)
    buffer = np.empty(int(np.prod(shape)) * dtype.itemsize + offset, np.uint8)
    return buffer[offset:].view(dtype).reshape(shape)


def line_by_line(op, x, axis, **flags):
    """Each line scanned as a contiguous 1-D array of its own."""
    moved = np.moveaxis(x, axis, -1)
    out = np.empty(moved.shape, x.dtype)
    for index in np.ndindex(moved.shape[:-1]):
        out[index] = getattr(simdscan, op)(np.ascontiguousarray(moved[index]), **flags)
    return np.moveaxis(out, -1, axis)


def row_after_row(op, x, axis):
    """The scan axis first, the others merged in C order: the canonical row-after-row layout."""
    moved = np.moveaxis(x, axis, 0)
    rows = np.ascontiguousarray(moved).reshape(moved.shape[0], -1)
    numpy_has_the_bits = op in NUMPY_ROWS and x.dtype != np.float16  # float16 adds in float32 here
    scanned = NUMPY_ROWS[op](rows, axis=0) if numpy_has_the_bits else getattr(simdscan, op)(rows, 0)
    return np.moveaxis(scanned.reshape(moved.shape), 0, axis)


def order_of(shape, axis, in_strides, out_strides):
    """'rows' where the innermost other axis (merged with its contiguous neighbours in both arrays) has at least 8
    elements and lies closer together than the scan axis in both arrays, else 'line'."""
    others = [d for d in range(len(shape)) if d != axis and shape[d] > 1]
    if shape[axis] <= 1 or not others:
        return "line"
    others.sort(key=lambda d: abs(in_strides[d]))
    inner = others[0]
    size = shape[inner]
    for d in others[1:]:  # merge outward while both arrays are contiguous across the pair
        previous = inner
        if (in_strides[d] == in_strides[previous] * shape[previous]
                and out_strides[d] == out_strides[previous] * shape[previous]):
            size *= shape[d]
            inner = d
        else:
            break
    closer = (abs(in_strides[others[0]]) < abs(in_strides[axis])
              and abs(out_strides[others[0]]) < abs(out_strides[axis]))
    return "rows" if size >= 8 and closer else "line"


LAYOUTS = ["C", "F", "strided", "reversed"]


def laid_out(x, layout):
    if layout == "C":
        return x.copy()
    if layout == "F":
        return np.asfortranarray(x)
    if layout == "strided":
        wide = np.zeros(x.shape[:-1] + (2 * x.shape[-1],), x.dtype)
        wide[..., ::2] = x
        return wide[..., ::2]
    flipped = x[..., ::-1].copy()
    return flipped[..., ::-1]


CASES = [((1000, 16), 0), ((1000, 16), 1), ((16, 1000), 0), ((16, 1000), 1), ((2, 4), 1), ((6, 8), 1), ((3, 8), 0),
         ((2, 4), 0), ((50, 3), 1), ((3, 2, 4), 0), ((3, 2, 2), 0), ((5, 7, 9), 1), ((2, 70_000), 1)]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", OPS)
def test_each_layout_takes_the_order_the_rule_names(op, dtype):
    rng = np.random.default_rng(seed_of("layout bits", op, dtype))
    for shape, axis in CASES:
        x = values(rng, op, shape, dtype)
        for layout in LAYOUTS:
            a = laid_out(x, layout)
            for out_layout in ("fresh", "F", "placed"):
                if out_layout == "fresh":
                    got = getattr(simdscan, op)(a, axis)
                    out_strides = got.strides
                else:
                    got = np.asfortranarray(np.empty(shape, x.dtype)) if out_layout == "F" else placed(shape, x.dtype, 3)
                    getattr(simdscan, op)(a, axis, out=got)
                    out_strides = got.strides
                order = order_of(shape, axis, a.strides, out_strides)
                want = row_after_row(op, x, axis) if order == "rows" else line_by_line(op, x, axis)
                assert np.array_equal(bits(got), bits(want)), (op, dtype, shape, axis, layout, out_layout, order)


@pytest.mark.usefixtures("restore_thread_count")
@pytest.mark.parametrize("op", OPS)
def test_neither_threads_nor_addresses_change_a_bit(op):
    rng = np.random.default_rng(seed_of("addresses", op))
    for dtype in FLOATS:
        for shape, axis in [((6, 2), 1), ((6, 4), 1), ((6, 8), 1), ((6, 16), 1), ((40, 16), 0), ((3, 70_001), 1),
                            ((70_001, 3), 0), ((5,), 0), ((131_075,), 0)]:
            x = values(rng, op, shape, dtype)
            for direction in ("increasing", "decreasing"):
                for exclusive in (False, True):
                    simdscan.set_num_threads(1)
                    want = getattr(simdscan, op)(x, axis, direction=direction, exclusive=exclusive)
                    for offset in (1, 2, 4, 8):
                        for threads in (1, 3):
                            simdscan.set_num_threads(threads)
                            source = placed(shape, dtype, offset)
                            source[...] = x
                            got = placed(shape, want.dtype, 8 - offset + 1)
                            getattr(simdscan, op)(source, axis, direction=direction, exclusive=exclusive, out=got)
                            assert np.array_equal(bits(got), bits(want)), (op, dtype, shape, axis, direction,
                                                                           exclusive, offset, threads)


def test_a_row_of_one_vector_has_its_lines_bits():
    rows = np.array([[0.1, 0.2, 0.3, 0.4]] * 2)
    line = simdscan.cumsum(rows[0])
    assert np.array_equal(bits(simdscan.cumsum(rows, axis=1)[0]), bits(line))
    for n in range(1, 40):
        x = np.random.default_rng(n).standard_normal((3, n))
        for direction in ("increasing", "decreasing"):
            got = simdscan.cumsum(x, axis=1, direction=direction)
            assert np.array_equal(bits(got[1]), bits(simdscan.cumsum(x[1].copy(), direction=direction))), n
