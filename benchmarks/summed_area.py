"""Summed-area tables (integral images): simdscan against NumPy's nested cumsum and OpenCV's cv2.integral.

    python benchmarks/summed_area.py [--threads 1]

Every library writes into a preallocated (H + 1, W + 1) table with a zero first row and column, cv2.integral's
layout (simdscan and NumPy into its [1:, 1:] view); cv2 is skipped when opencv-python(-headless) is not installed.
simdscan runs both orders of the axes: axis=(0, 1), the columns first, and axis=(1, 0), each row first as cv2.integral
sums it (float tables differ in rounding between the orders; uint8 rows are summed exactly, the same either way).
Times are the best of interleaved repetitions, each also shown against np.copyto of the input into an array of the
result's dtype, the result's bytes written once, in the same run. Outputs start half a page (mod 4096) after the
input, away from glibc's 4K-aliasing memmove slowdown.
"""

from __future__ import annotations

import argparse
import importlib
import time
from typing import Any, Callable

import numpy as np

import simdscan
from workloads import HALF_PAGE, PAGE

CASES = [(shape, source, result) for shape in ((4096, 4096), (1024, 1024), (256, 256))
         for source, result in (("float32", "float32"), ("float64", "float64"), ("uint8", "int32"),
                                ("uint8", "float64"))]


def table_after(x: np.ndarray[Any, Any], dtype: str) -> np.ndarray[Any, Any]:
    """A zeroed (H + 1, W + 1) array of dtype whose [1:, 1:] view starts half a page (mod 4096) after x.

    >>> x = np.ones((3, 5), np.uint8)
    >>> table = table_after(x, "int32")
    >>> table.shape, table.dtype.name, int(table.sum()), (table[1:, 1:].ctypes.data - x.ctypes.data) % PAGE
    ((4, 6), 'int32', 0, 2048)
    """
    h, w = x.shape
    itemsize = np.dtype(dtype).itemsize
    nbytes = (h + 1) * (w + 1) * itemsize
    raw = np.zeros(nbytes + PAGE, np.uint8)
    inner = (w + 2) * itemsize  # the [1, 1] element's offset
    start = (x.ctypes.data + HALF_PAGE - inner - raw.ctypes.data) % PAGE
    table: np.ndarray[Any, Any] = raw[start : start + nbytes].view(dtype).reshape(h + 1, w + 1)
    return table


def best_times(runs: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """Each run's best time over `repeats` rounds, the runs interleaved within each round, in an order rotated from
    round to round. Each timed call follows an untimed one of the same run, so that it meets its own lines in the
    caches, not the megabytes of dirty lines that the run before it left to be written back (Intel Xeon, 1024x1024
    uint8 to int32: simdscan took 0.54-0.58 ms after the copy, 0.25-0.27 after its own call)."""
    best = {name: float("inf") for name in runs}
    names = list(runs)
    for round_ in range(repeats):
        for name in names[round_ % len(names):] + names[: round_ % len(names)]:
            run = runs[name]
            run()
            start = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=1, help="threads for simdscan and cv2 (default 1)")
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    try:
        cv2: Any = importlib.import_module("cv2")
        cv2.setNumThreads(args.threads)
    except ImportError:
        cv2 = None
    simdscan.set_num_threads(args.threads)
    print(f"simdscan {simdscan.__version__} ({simdscan.isa()}, {args.threads} threads), numpy {np.__version__}, "
          f"cv2 {cv2.__version__ if cv2 else 'not installed'}; best of {args.repeats} interleaved rounds, ms (x copy)")
    print(f"{'image':>11} {'source -> result':>18} {'copy':>8} {'simdscan (0, 1)':>15} {'simdscan (1, 0)':>15} "
          f"{'numpy':>15} {'cv2':>15}")
    rng = np.random.default_rng(0)
    for shape, source, result in CASES:
        x = (rng.random(shape) * 255).astype(source)
        tables = {name: table_after(x, result) for name in ("simdscan", "simdscan rows first", "numpy", "cv2", "copy")}
        scratch = np.empty(shape, result)
        runs: dict[str, Callable[[], object]] = {
            "copy": lambda: np.copyto(tables["copy"][1:, 1:], x, casting="unsafe"),
            "simdscan": lambda: simdscan.cumsum(x, axis=(0, 1), dtype=result, out=tables["simdscan"][1:, 1:]),
            "simdscan rows first": lambda: simdscan.cumsum(x, axis=(1, 0), dtype=result,
                                                           out=tables["simdscan rows first"][1:, 1:]),
            "numpy": lambda: np.cumsum(np.cumsum(x, axis=0, dtype=result, out=scratch), axis=1,
                                       out=tables["numpy"][1:, 1:]),
        }
        if cv2 is not None:
            depth = {"float32": cv2.CV_32F, "float64": cv2.CV_64F, "int32": cv2.CV_32S}[result]
            runs["cv2"] = lambda: cv2.integral(x, sum=tables["cv2"], sdepth=depth)
        times = best_times(runs, args.repeats)
        for name in runs:
            if name != "copy":  # the orders of the axes: floats agree within rounding, integers exactly
                np.testing.assert_allclose(tables[name], tables["numpy"], rtol=1e-4, err_msg=name)
        cells = [f"{times[n] * 1e3:7.3f} ({times[n] / times['copy']:4.1f})" if n in times else f"{'-':>15}"
                 for n in ("simdscan", "simdscan rows first", "numpy", "cv2")]
        print(f"{'x'.join(map(str, shape)):>11} {source + ' -> ' + result:>18} {times['copy'] * 1e3:8.3f} "
              + " ".join(cells))


if __name__ == "__main__":
    main()
