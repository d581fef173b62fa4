"""What the benchmark scans: the workloads, their inputs and outputs, NumPy's and PyTorch's recipes, the reference.

Every buffer a workload writes (``out``, and the scratch array of NumPy's and PyTorch's decreasing + exclusive
recipe) starts half a page (2048 bytes mod 4096) after its input: with equal low 12 address bits, glibc's
memmove (the copy baseline) and the loads of a scan run into 4K aliasing and slow down for no reason of their own.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

PAGE = 4096
HALF_PAGE = PAGE // 2


def load_torch() -> Any:
    """PyTorch when it imports, else None (typed Any: torch is optional and untyped here)."""
    try:
        return importlib.import_module("torch")
    except ImportError:
        return None


def load_scipy_signal() -> Any:
    """scipy.signal when it imports, else None: lfilter, the peer of the linear recurrence rows."""
    try:
        return importlib.import_module("scipy.signal")
    except ImportError:
        return None


def load_pandas() -> Any:
    """pandas when it imports, else None: the peer of the segmented and grouped rows."""
    try:
        return importlib.import_module("pandas")
    except ImportError:
        return None


@dataclass(frozen=True)
class Workload:
    shape: tuple[int, ...]  # the shape that is scanned (for step > 1: the view's shape)
    dtype: str
    axis: int = 0
    op: str = "cumsum"
    direction: str = "increasing"
    exclusive: bool = False
    step: int = 1  # > 1: scan the strided view x[::step] of a larger contiguous array
    quick_shape: Optional[tuple[int, ...]] = None  # shape under --quick; None: the same as shape
    note: str = ""  # added to the label
    compensated: bool = False  # simdscan's compensated cumsum (NumPy and torch run their plain scans)
    byteswapped: bool = False  # input and output stored in the opposite byte order to the machine's
    # No out=: each library returns a new array, and the copy it is measured against is x.copy(). simdscan makes
    # each result in the memory the one before it freed (its result cache), as in a loop or a notebook cell run
    # again; with kept_results=False the cache is off, and the kernel maps and zeroes every result's pages anew.
    new_result: bool = False
    kept_results: bool = True
    segments: int = 0  # > 0: a segmented scan (reset=) of a 1-D input, this many segments of random lengths
    labels: int = 0  # > 0: a grouped scan (labels=) of a 1-D input, labels drawn at random from this many
    limit: int = 0  # > 0: ffill's limit (pandas': at most this many NaN in a row filled)
    transposed: bool = False  # the input (and reset, out) the transpose of a C-ordered array of the reversed shape

    def label(self, quick: bool) -> str:
        """The workload's name in the table.

        >>> Workload((4096, 4096), "float32", axis=0, direction="decreasing", exclusive=True).label(quick=False)
        'f32 4096x4096 axis 0 dec excl'
        """
        shape = self.quick_shape if quick and self.quick_shape else self.shape
        short = {"float16": "f16", "float32": "f32", "float64": "f64", "int32": "i32", "int64": "i64"}
        if self.step > 1:
            dims = f"x[::{self.step}] of {human(shape[0] * self.step)}"
        elif len(shape) == 1:
            nbytes = shape[0] * np.dtype(self.dtype).itemsize
            size = f"{nbytes // 1024} KiB" if nbytes < 1_000_000 else f"{nbytes / 1e6:.4g} MB"
            dims = f"{human(shape[0])} ({size})" if shape[0] > 16 else str(shape[0])
        else:
            dims = "x".join(str(d) for d in shape) + f" axis {self.axis}"
        flags = (" dec" if self.direction == "decreasing" else "") + (" excl" if self.exclusive else "")
        op = "" if self.op == "cumsum" else f"{self.op} "
        compensated = " compensated" if self.compensated else ""
        swapped = " byte-swapped" if self.byteswapped else ""
        new_result = (" new result" + ("" if self.kept_results else " cache off")) if self.new_result else ""
        segments = f" {self.segments} segments" if self.segments else ""
        labels = f" {self.labels} labels" if self.labels else ""
        transposed = " transposed" if self.transposed else ""
        return (f"{op}{short[self.dtype]} {dims}{transposed}{flags}{compensated}{swapped}{new_result}{segments}{labels}"
                f"{self.note}")


KIB64, MB400 = 64 * 1024, 400_000_000
WORKLOADS = [
    *(Workload((KIB64 // np.dtype(t).itemsize,), t) for t in ("float32", "float64", "int32", "int64")),
    *(Workload((MB400 // np.dtype(t).itemsize,), t, quick_shape=(MB400 // 16 // np.dtype(t).itemsize,))
      for t in ("float32", "float64", "int32", "int64")),
    Workload((4096, 4096), "float32", axis=0, quick_shape=(1024, 1024)),
    Workload((4096, 4096), "float32", axis=0, direction="decreasing", exclusive=True, quick_shape=(1024, 1024)),
    Workload((4096, 4096), "float32", axis=1, quick_shape=(1024, 1024)),
    Workload((4096, 4096), "float32", axis=0, quick_shape=(1024, 1024), byteswapped=True),
    Workload((1_000_000, 8), "float32", axis=1, quick_shape=(62_500, 8)),
    Workload((65536, 256), "float32", axis=1, quick_shape=(4096, 256)),
    Workload((10_000_000,), "float32", quick_shape=(625_000,)),
    Workload((10_000_000,), "float32", direction="decreasing", exclusive=True, quick_shape=(625_000,)),
    Workload((10_000_000,), "float64", op="cumprod", quick_shape=(625_000,), note=" values ~1"),
    Workload((2048, 2048), "float16", axis=1, quick_shape=(512, 512)),
    Workload((10_000_000,), "float32", step=2, quick_shape=(625_000,)),
    Workload((16,), "float32"),
    # Without out=, against the 400 MB float32 row above (with out=) and against x.copy().
    *(Workload((MB400 // 4,), "float32", quick_shape=(MB400 // 64,), new_result=True, kept_results=kept)
      for kept in (True, False)),
    # The compensated scan, against the plain rows above of the same shape.
    *(Workload((KIB64 // np.dtype(t).itemsize,), t, compensated=True) for t in ("float32", "float64")),
    *(Workload((MB400 // np.dtype(t).itemsize,), t, quick_shape=(MB400 // 16 // np.dtype(t).itemsize,),
               compensated=True) for t in ("float32", "float64")),
    Workload((4096, 4096), "float32", axis=0, quick_shape=(1024, 1024), compensated=True),
    Workload((1_000_000, 8), "float32", axis=1, quick_shape=(62_500, 8), compensated=True),
    Workload((10_000_000,), "float32", direction="decreasing", exclusive=True, quick_shape=(625_000,),
             compensated=True),
    Workload((2048, 2048), "float16", axis=1, quick_shape=(512, 512), compensated=True),
    # The rest of the scan family.
    *(Workload((KIB64 // 4,), t, op=op) for op in ("cummax", "cummin") for t in ("float32", "int32")),
    *(Workload((MB400 // 4,), t, op="cummax", quick_shape=(MB400 // 64,)) for t in ("float32", "int32")),
    *(Workload((4096, 4096), "float32", axis=axis, op="cummax", quick_shape=(1024, 1024)) for axis in (0, 1)),
    Workload((KIB64 // 4,), "float32", op="cummax", note=" indices"),
    Workload((1 << 20,), "float32", op="cummax", note=" indices"),
    Workload((MB400 // 4,), "float32", op="cummax", quick_shape=(MB400 // 64,), note=" indices"),
    *(Workload((4096, 4096), "float32", axis=axis, op="cummax", quick_shape=(1024, 1024), note=" indices")
      for axis in (0, 1)),
    *(Workload((1 << 20,), t, op="logcumsumexp") for t in ("float32", "float64")),
    Workload((1000, 1000), "float32", axis=1, op="logcumsumexp"),
    Workload((1 << 20,), "float32", note=" 10% NaN"),
    Workload((1 << 20,), "float32", op="nancumsum", note=" 10% NaN"),
    # Segmented scans (reset=), against NumPy's scan of each segment in a loop.
    *(Workload((10_000_000,), "float64", op=op, quick_shape=(625_000,), segments=1000) for op in ("cumsum", "cummax")),
    Workload((10_000_000,), "float64", op="ffill", quick_shape=(625_000,), note=" 10% NaN"),
    Workload((10_000_000,), "float64", op="ffill", quick_shape=(625_000,), limit=3, note=" 30% NaN limit=3"),
    Workload((10_000, 1000), "float64", axis=0, op="ffill", quick_shape=(2500, 250), note=" 30% NaN"),
    Workload((10_000, 1000), "float64", axis=0, op="ffill", quick_shape=(2500, 250), limit=3, note=" 30% NaN limit=3"),
    # A grouped scan (labels=), against NumPy's recipe: a stable sort by label, a segmented scan, and back.
    Workload((10_000_000,), "float64", quick_shape=(625_000,), labels=1000),
    # Linear recurrences (NumPy has none: scipy.signal.lfilter and pandas' ewm are the peers).
    Workload((10_000_000,), "float64", op="linear_recurrence", quick_shape=(625_000,), note=" a=0.99"),
    Workload((10_000_000,), "float64", op="linear_recurrence", quick_shape=(625_000,), note=" array a"),
    Workload((10_000_000,), "float64", op="discounted_cumsum", quick_shape=(625_000,), segments=1000,
             note=" gamma=0.99"),
    Workload((10_000_000,), "float64", op="ewm_mean", quick_shape=(625_000,), note=" alpha=0.01"),
    Workload((10_000_000,), "float64", op="ewm_mean", quick_shape=(625_000,), note=" alpha=0.01 adjust=False"),
    Workload((10_000_000,), "float64", op="linear_recurrence", step=2, quick_shape=(625_000,), note=" a=0.99"),
    # Stored otherwise than computed: float16 (in float32) and byte-swapped, converted a chunk at a time.
    Workload((10_000_000,), "float16", op="linear_recurrence", quick_shape=(625_000,), note=" a=0.99"),
    Workload((10_000_000,), "float64", op="ewm_mean", byteswapped=True, quick_shape=(625_000,), note=" alpha=0.01"),
    # Along an outer axis: a DataFrame's columns, and rewards of a batch of environments, time along axis 0 (its
    # segments: episodes of each column, on average, begun at random rows).
    Workload((10_000, 1000), "float64", axis=0, op="linear_recurrence", quick_shape=(2500, 250), note=" a=0.99"),
    Workload((10_000, 1000), "float64", axis=0, op="ewm_mean", quick_shape=(2500, 250), note=" alpha=0.01"),
    Workload((10_000, 1000), "float64", axis=0, op="ewm_mean", quick_shape=(2500, 250),
             note=" alpha=0.01 adjust=False"),
    Workload((10_000, 1000), "float16", axis=0, op="ewm_mean", quick_shape=(2500, 250), note=" alpha=0.01"),
    *(Workload(shape, "float32", axis=0, op="discounted_cumsum", segments=shape[0] // 200 + 1, note=" gamma=0.99")
      for shape in ((128, 4096), (2048, 64))),
    # The same batch's transpose along axis 1 (environments by time: the same memory, walked as its rows).
    Workload((4096, 128), "float32", axis=1, op="discounted_cumsum", segments=1, transposed=True, note=" gamma=0.99"),
]

#: the rows NumPy has no scan for: their check is a sequential float64 loop (recurrence_reference)
RECURRENCES = ("linear_recurrence", "discounted_cumsum", "ewm_mean")


def human(n: int) -> str:
    """An element count, in millions from one million on.

    >>> human(65536), human(10_000_000)
    ('65536', '10M')
    """
    return f"{n / 1e6:.4g}M" if n >= 1_000_000 else str(n)


def make_input(w: Workload, shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
    """Small integer values (floats too), so every partial sum is exact in any summation order and the
    correctness check cannot be fooled by rounding; the speed of a scan does not depend on the values.
    cumprod gets 1 + 1e-9 * randn so the products stay near 1; extrema and logcumsumexp get randn (times 1000 for
    extrema, so that integers differ); the NaN rows get NaN at 10% of the places."""
    rng = np.random.default_rng(0)
    full = (shape[0] * w.step,) + shape[1:]
    full = full[::-1] if w.transposed else full
    x: np.ndarray[Any, Any]
    if w.op == "cumprod":
        x = 1.0 + 1e-9 * rng.standard_normal(full)
    elif w.op in ("cummax", "cummin"):
        x = 1000 * rng.standard_normal(full)
    elif w.op == "logcumsumexp" or w.op in RECURRENCES:
        x = rng.standard_normal(full)
    else:
        hi = 1 if w.dtype == "float16" else 2  # a float16 row of 2048 stays exact at |sum| <= 2048
        x = rng.integers(-hi, hi + 1, size=full, dtype=np.int8)
    x = x.astype(np.dtype(w.dtype).newbyteorder() if w.byteswapped else w.dtype)
    if "NaN" in w.note:
        x[rng.random(full) < (0.3 if "30% NaN" in w.note else 0.1)] = np.nan
    if w.transposed:
        return x.T
    return x[:: w.step] if w.step > 1 else x


def segment_bounds(w: Workload, n: int) -> np.ndarray[Any, Any]:
    """The first index of each of a segmented workload's segments along its n elements, then n.

    >>> segment_bounds(Workload((100,), "float64", segments=4), 100).tolist()[::4]
    [0, 100]
    """
    starts = np.random.default_rng(1).choice(np.arange(1, n), w.segments - 1, replace=False)
    return np.concatenate(([0], np.sort(starts), [n]))


def make_reset(w: Workload, shape: tuple[int, ...]) -> Optional[np.ndarray[Any, Any]]:
    """A segmented workload's reset= (True where a segment begins), else None."""
    if not w.segments:
        return None
    if len(shape) > 1:  # each column's episodes begun at random rows
        drawn = np.random.default_rng(1).random(shape[::-1] if w.transposed else shape)
        return np.asarray((drawn.T if w.transposed else drawn) < (w.segments - 1) / shape[w.axis])
    reset = np.zeros(shape, bool)
    reset[segment_bounds(w, shape[0])[:-1]] = True
    return reset


def recurrence_coefficients(w: Workload, shape: tuple[int, ...]) -> Any:
    """A recurrence row's a (gamma for discounted_cumsum): 0.99, or drawn uniformly from [-1, 1] for " array a"."""
    if "array a" in w.note:
        return np.random.default_rng(3).uniform(-1.0, 1.0, size=shape)
    return 0.99


def recurrence_reference(w: Workload, x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """A recurrence row's result by a sequential float64 loop (pandas' formula for ewm_mean, adjust=True); along
    another axis than the last, a row at a time (the axis moved first)."""
    a = np.broadcast_to(recurrence_coefficients(w, x.shape), x.shape)
    b = x.astype(np.float64)
    y = np.empty_like(b)
    if b.ndim > 1:
        reset = make_reset(w, x.shape)
        a, b, y = (np.moveaxis(v, w.axis, 0) for v in (a, b, y))
        reset = None if reset is None else np.moveaxis(reset, w.axis, 0)
        totals = weights = np.zeros(b.shape[1:])
        for i in range(len(b)) if w.op != "discounted_cumsum" else range(len(b) - 1, -1, -1):
            if w.op == "ewm_mean" and "adjust=False" in w.note:
                y[i] = totals = 0.99 * totals + 0.01 * b[i] if i else b[i]
                continue
            if w.op == "ewm_mean":
                totals, weights = 0.99 * totals + b[i], 0.99 * weights + 1.0
                y[i] = totals / weights
                continue
            if w.op == "discounted_cumsum" and reset is not None and i + 1 < len(b):
                totals = np.where(reset[i + 1], 0.0, totals)
            y[i] = totals = a[i] * totals + b[i]
        return np.moveaxis(y, 0, w.axis)
    if w.op == "ewm_mean" and "adjust=False" in w.note:
        mean = b[0]
        for i, value in enumerate(b.tolist()):
            y[i] = mean = 0.99 * mean + 0.01 * value if i else value
        return y
    if w.op == "ewm_mean":
        totals = weights = 0.0
        for i, value in enumerate(b.tolist()):
            totals, weights = 0.99 * totals + value, 0.99 * weights + 1.0
            y[i] = totals / weights
        return y
    reset = make_reset(w, x.shape)
    starts = set() if reset is None else set(np.flatnonzero(reset).tolist())
    state = 0.0
    order = range(len(b) - 1, -1, -1) if w.op == "discounted_cumsum" else range(len(b))
    coefficients, values = a.tolist(), b.tolist()
    for i in order:
        if w.op == "discounted_cumsum" and i + 1 in starts:
            state = 0.0
        state = coefficients[i] * state + values[i]
        y[i] = state
    return y


def scipy_scan_fn(signal: Any, w: Workload, x: np.ndarray[Any, Any],
                  out: np.ndarray[Any, Any]) -> Callable[[], object]:
    """scipy.signal.lfilter as users write a recurrence with a scalar a (on the reversed array for discounted
    returns, which it cannot cut at episodes), its result copied into ``out`` for the check."""
    a = recurrence_coefficients(w, x.shape)
    if w.op == "linear_recurrence" and np.ndim(a) == 0:
        return lambda: np.copyto(out, signal.lfilter([1.0], [1.0, -a], x, axis=w.axis))
    raise TypeError("lfilter has one scalar coefficient and no segments")


def make_labels(w: Workload, shape: tuple[int, ...]) -> Optional[np.ndarray[Any, Any]]:
    """A grouped workload's labels= (int64, drawn uniformly from w.labels values), else None."""
    if not w.labels:
        return None
    return np.random.default_rng(2).integers(0, w.labels, size=shape)


def empty_output(x: np.ndarray[Any, Any], dtype: Any = None) -> np.ndarray[Any, Any]:
    """A contiguous array of x's shape and dtype (or ``dtype``: the indices of cummax) whose first byte lies
    HALF_PAGE bytes (mod PAGE) after x's: C-ordered, or Fortran-ordered where x is (and not C-ordered).

    >>> x = np.zeros((3, 5), np.float32)
    >>> out = empty_output(x)
    >>> (out.shape, out.dtype, out.flags.c_contiguous, out.flags.aligned)
    ((3, 5), dtype('float32'), True, True)
    >>> (out.ctypes.data - x.ctypes.data) % PAGE
    2048
    >>> indices = empty_output(x, np.intp)
    >>> (indices.dtype == np.intp, (indices.ctypes.data - x.ctypes.data) % PAGE)
    (True, 2048)
    """
    if x.flags.f_contiguous and not x.flags.c_contiguous:
        return empty_output(x.T, dtype).T
    dtype = x.dtype if dtype is None else np.dtype(dtype)
    nbytes = x.size * dtype.itemsize
    raw = np.empty(nbytes + PAGE, np.uint8)
    start = (x.ctypes.data + HALF_PAGE - raw.ctypes.data) % PAGE
    out: np.ndarray[Any, Any] = raw[start : start + nbytes].view(dtype).reshape(x.shape)
    return out


def along(ndim: int, axis: int, sl: slice) -> tuple[slice, ...]:
    return tuple(sl if d == axis else slice(None) for d in range(ndim))


# NumPy's scans for the rest of the family: ufunc accumulations, increasing and inclusive only.
FAMILY_UFUNCS = {"cummax": np.maximum, "cummin": np.minimum, "logcumsumexp": np.logaddexp}


def numpy_scan(w: Workload, x: np.ndarray[Any, Any], out: np.ndarray[Any, Any], tmp: np.ndarray[Any, Any]) -> None:
    """NumPy as users write it, with the output dtype pinned (np.cumsum would widen int32 to int64).
    Decreasing + exclusive: flip the input (a view), scan into a scratch buffer, then copy it back flipped
    and shifted by one, with the identity at the end: the extra pass is what NumPy users pay."""
    if w.segments:
        bounds = segment_bounds(w, x.shape[0])
        for begin, end in zip(bounds[:-1], bounds[1:]):
            piece = Workload((end - begin,), w.dtype, op=w.op)
            numpy_scan(piece, x[begin:end], out[begin:end], tmp[begin:end])
        return
    labels = make_labels(w, x.shape)
    if labels is not None:  # cumsum: each group's elements together, their segmented scan, and back in place
        order = np.argsort(labels, kind="stable")
        grouped = x[order]
        totals = np.cumsum(grouped, dtype=out.dtype)
        starts = np.flatnonzero(np.diff(labels[order], prepend=labels[order[0]] - 1))
        before = np.repeat(totals[starts] - grouped[starts], np.diff(np.append(starts, x.shape[0])))
        out[order] = totals - before
        return
    if w.op in FAMILY_UFUNCS:
        FAMILY_UFUNCS[w.op].accumulate(x, axis=w.axis, out=out)
        return
    if w.op == "ffill":  # the usual recipe: each element's index, or 0 at NaN, run through a maximum (along axis 0)
        places = np.arange(x.shape[0]).reshape((-1,) + (1,) * (x.ndim - 1))
        index = np.where(np.isnan(x), 0, places)
        np.maximum.accumulate(index, axis=0, out=index)
        np.copyto(out, np.take_along_axis(x, index, axis=0))
        if w.limit:  # the NaN more than `limit` places after their number stay
            np.copyto(out, x, where=places - index > w.limit)
        return
    scan: Callable[..., Any] = {"cumsum": np.cumsum, "cumprod": np.cumprod, "nancumsum": np.nancumsum}[w.op]
    if w.direction == "increasing" and not w.exclusive:
        scan(x, axis=w.axis, dtype=out.dtype, out=out)
        return
    if w.direction != "decreasing" or not w.exclusive:
        raise NotImplementedError("only the workloads' flag combinations are wired up")
    scan(np.flip(x, w.axis), axis=w.axis, dtype=out.dtype, out=tmp)
    out[along(x.ndim, w.axis, slice(None, -1))] = np.flip(tmp, w.axis)[along(x.ndim, w.axis, slice(1, None))]
    out[along(x.ndim, w.axis, slice(-1, None))] = 0 if w.op == "cumsum" else 1


def numpy_new_result(w: Workload, x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """NumPy's scan into a new array of x's dtype (a new_result workload: cumsum, increasing, inclusive)."""
    if w.op != "cumsum" or w.direction != "increasing" or w.exclusive:
        raise NotImplementedError("only the workloads' flag combinations are wired up")
    result: np.ndarray[Any, Any] = np.cumsum(x, axis=w.axis, dtype=x.dtype)
    return result


def torch_scan_fn(torch: Any, w: Workload, x: np.ndarray[Any, Any], out: np.ndarray[Any, Any],
                  tmp: np.ndarray[Any, Any]) -> Callable[[], object]:
    """The same recipe as numpy_scan in PyTorch (torch.flip copies: that is what users get)."""
    if not (x.dtype.isnative and out.dtype.isnative):
        raise TypeError("torch takes arrays in native byte order only")
    if w.segments or w.labels or w.op == "ffill" or w.op in RECURRENCES:
        raise TypeError("torch has no segmented or grouped scan, forward fill nor linear recurrence")
    tx, tout, ttmp = torch.from_numpy(x), torch.from_numpy(out), torch.from_numpy(tmp)
    d, n, dt = w.axis, x.shape[w.axis], tout.dtype
    if w.new_result:
        if w.op != "cumsum" or w.direction != "increasing" or w.exclusive:
            raise NotImplementedError("only the workloads' flag combinations are wired up")
        return lambda: torch.cumsum(tx, d, dtype=dt)
    if w.op in ("cummax", "cummin"):
        indices = torch.empty(x.shape, dtype=torch.int64)
        extremum = torch.cummax if w.op == "cummax" else torch.cummin
        return lambda: extremum(tx, d, out=(tout, indices))
    if w.op == "logcumsumexp":
        return lambda: torch.logcumsumexp(tx, d, out=tout)
    if w.op == "nancumsum":
        raise TypeError("torch has no nancumsum")
    scan = torch.cumsum if w.op == "cumsum" else torch.cumprod
    if w.direction == "increasing" and not w.exclusive:
        return lambda: scan(tx, d, dtype=dt, out=tout)
    if w.direction != "decreasing" or not w.exclusive:
        raise NotImplementedError("only the workloads' flag combinations are wired up")

    def dec_excl() -> None:
        scan(torch.flip(tx, [d]), d, dtype=dt, out=ttmp)
        tout.narrow(d, 0, n - 1).copy_(torch.flip(ttmp.narrow(d, 0, n - 1), [d]))
        tout.narrow(d, n - 1, 1).fill_(0 if w.op == "cumsum" else 1)

    return dec_excl


def pandas_scan_fn(pandas: Any, w: Workload, x: np.ndarray[Any, Any],
                   out: np.ndarray[Any, Any]) -> Callable[[], object]:
    """pandas as users write it, for the segmented and grouped rows and ffill (a groupby by segment number or label;
    Series.ffill), its result copied into ``out`` for the check (pandas returns a new Series)."""
    if not (w.segments or w.labels or w.op in ("ffill", "ewm_mean")):
        raise TypeError("pandas rows are the segmented and grouped scans, ffill and ewm_mean")
    limit = w.limit or None
    if not x.dtype.isnative:  # (pandas' kernels take native order only: the data as a user would convert it, untimed)
        x = x.astype(x.dtype.newbyteorder("="))
    if x.ndim > 1:
        if w.op not in ("ewm_mean", "ffill") or w.axis != 0:
            raise TypeError("pandas' rows of 2-D arrays: ewm_mean and ffill along axis 0 (a DataFrame's columns)")
        frame = pandas.DataFrame(x, copy=False)
        if w.op == "ffill":
            return lambda: np.copyto(out, frame.ffill(limit=limit).to_numpy())
        frame_adjust = "adjust=False" not in w.note
        return lambda: np.copyto(out, frame.ewm(alpha=0.01, adjust=frame_adjust).mean().to_numpy())
    series = pandas.Series(x, copy=False)
    labels = make_labels(w, x.shape)
    if w.segments:
        labels = np.cumsum(make_reset(w, x.shape))
    if w.op == "ffill" and labels is None:
        return lambda: np.copyto(out, series.ffill(limit=limit).to_numpy())
    if w.op == "ewm_mean":
        adjust = "adjust=False" not in w.note
        return lambda: np.copyto(out, series.ewm(alpha=0.01, adjust=adjust).mean().to_numpy())
    if labels is None or w.op not in ("cumsum", "cummax"):
        raise TypeError("pandas rows are the segmented and grouped scans and ffill")
    grouped = series.groupby(labels)
    scan = grouped.cumsum if w.op == "cumsum" else grouped.cummax
    return lambda: np.copyto(out, scan().to_numpy())


def reference(w: Workload, x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    if w.op in RECURRENCES:
        return recurrence_reference(w, x)
    wide = np.float64 if np.dtype(w.dtype).kind == "f" else np.int64
    xw = x.astype(wide)
    ref = np.empty_like(xw)
    numpy_scan(w, xw, ref, np.empty_like(xw))
    return ref.astype(w.dtype)


def matches(res: np.ndarray[Any, Any], ref: np.ndarray[Any, Any]) -> bool:
    if res.dtype.kind in "iu":
        return bool(np.array_equal(res, ref))
    rtol = {"float16": 1e-2, "float32": 1e-4, "float64": 1e-7}[res.dtype.name]
    return bool(np.allclose(res.astype(np.float64), ref.astype(np.float64), rtol=rtol, atol=rtol, equal_nan=True))
