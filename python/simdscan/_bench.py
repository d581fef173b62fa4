"""simdscan benchmark: scan time as a multiple of a memory copy of the same array.

    python -m simdscan bench                   # full run (~2 minutes on 2 cores, ~5 GB of RAM at peak)
    python -m simdscan bench --quick           # sizes / 16, fewer repeats (CI)
    python -m simdscan bench --markdown        # the table as GitHub markdown
    python -m simdscan bench --only 4096       # workloads whose label contains "4096"
    python -m simdscan bench --png out.png     # also draw the bar chart (needs matplotlib)

(``python benchmarks/bench.py`` in a clone of the repository runs the same, with the same flags, and writes
the bar chart to benchmarks/results.png by default.)

Every time is the best of several repeats, each repeat a calibrated loop of >= --min-ms milliseconds.
The copy baseline (single-threaded ``np.copyto(out, x)``) is measured right before and after every
library in the same pass, so each ratio comes from one run on one machine state. The copy and every
library write into the same preallocated ``out`` (``out=``): no timing includes an allocation or
first-touch page faults, and all of them write to the same pages. PyTorch is timed too when it imports.
Before timing, every result is checked against a float64 / int64 NumPy reference: a mismatch is
flagged in the table and makes the benchmark exit with status 1.

Progress goes to stderr, ``[i/n] workload``: one line rewritten in place on a terminal, one line per
workload otherwise (a log); the table goes to stdout.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import math
import platform
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, TextIO

import numpy as np

import simdscan

# PyTorch, when it imports (loaded by run(), so that importing this module stays cheap); typed Any on purpose.
torch: Any = None


def _load_torch() -> None:
    global torch
    try:
        torch = importlib.import_module("torch")
    except ImportError:
        torch = None


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
        op = "cumprod " if self.op == "cumprod" else ""
        compensated = " compensated" if self.compensated else ""
        return f"{op}{short[self.dtype]} {dims}{flags}{compensated}{self.note}"


KIB64, MB400 = 64 * 1024, 400_000_000
WORKLOADS = [
    *(Workload((KIB64 // np.dtype(t).itemsize,), t) for t in ("float32", "float64", "int32", "int64")),
    *(Workload((MB400 // np.dtype(t).itemsize,), t, quick_shape=(MB400 // 16 // np.dtype(t).itemsize,))
      for t in ("float32", "float64", "int32", "int64")),
    Workload((4096, 4096), "float32", axis=0, quick_shape=(1024, 1024)),
    Workload((4096, 4096), "float32", axis=0, direction="decreasing", exclusive=True, quick_shape=(1024, 1024)),
    Workload((4096, 4096), "float32", axis=1, quick_shape=(1024, 1024)),
    Workload((1_000_000, 8), "float32", axis=1, quick_shape=(62_500, 8)),
    Workload((10_000_000,), "float32", quick_shape=(625_000,)),
    Workload((10_000_000,), "float32", direction="decreasing", exclusive=True, quick_shape=(625_000,)),
    Workload((10_000_000,), "float64", op="cumprod", quick_shape=(625_000,), note=" values ~1"),
    Workload((2048, 2048), "float16", axis=1, quick_shape=(512, 512)),
    Workload((10_000_000,), "float32", step=2, quick_shape=(625_000,)),
    Workload((16,), "float32"),
    # The compensated scan, against the plain rows above of the same shape.
    *(Workload((KIB64 // np.dtype(t).itemsize,), t, compensated=True) for t in ("float32", "float64")),
    *(Workload((MB400 // np.dtype(t).itemsize,), t, quick_shape=(MB400 // 16 // np.dtype(t).itemsize,),
               compensated=True) for t in ("float32", "float64")),
    Workload((4096, 4096), "float32", axis=0, quick_shape=(1024, 1024), compensated=True),
    Workload((1_000_000, 8), "float32", axis=1, quick_shape=(62_500, 8), compensated=True),
    Workload((10_000_000,), "float32", direction="decreasing", exclusive=True, quick_shape=(625_000,),
             compensated=True),
    Workload((2048, 2048), "float16", axis=1, quick_shape=(512, 512), compensated=True),
]


def human(n: int) -> str:
    """An element count, in millions from one million on.

    >>> human(65536), human(10_000_000)
    ('65536', '10M')
    """
    return f"{n / 1e6:.4g}M" if n >= 1_000_000 else str(n)


def make_input(w: Workload, shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
    """Small integer values (floats too), so every partial sum is exact in any summation order and the
    correctness check cannot be fooled by rounding; the speed of a scan does not depend on the values.
    cumprod gets 1 + 1e-9 * randn so the products stay near 1."""
    rng = np.random.default_rng(0)
    full = (shape[0] * w.step,) + shape[1:]
    x: np.ndarray[Any, Any]
    if w.op == "cumprod":
        x = 1.0 + 1e-9 * rng.standard_normal(full)
    else:
        hi = 1 if w.dtype == "float16" else 2  # a float16 row of 2048 stays exact at |sum| <= 2048
        x = rng.integers(-hi, hi + 1, size=full, dtype=np.int8)
    x = x.astype(w.dtype)
    return x[:: w.step] if w.step > 1 else x


def along(ndim: int, axis: int, sl: slice) -> tuple[slice, ...]:
    return tuple(sl if d == axis else slice(None) for d in range(ndim))


def numpy_scan(w: Workload, x: np.ndarray[Any, Any], out: np.ndarray[Any, Any], tmp: np.ndarray[Any, Any]) -> None:
    """NumPy as users write it, with the output dtype pinned (np.cumsum would widen int32 to int64).
    Decreasing + exclusive: flip the input (a view), scan into a scratch buffer, then copy it back flipped
    and shifted by one, with the identity at the end: the extra pass is what NumPy users pay."""
    scan: Callable[..., Any] = np.cumsum if w.op == "cumsum" else np.cumprod
    if w.direction == "increasing" and not w.exclusive:
        scan(x, axis=w.axis, dtype=out.dtype, out=out)
        return
    if w.direction != "decreasing" or not w.exclusive:
        raise NotImplementedError("only the workloads' flag combinations are wired up")
    scan(np.flip(x, w.axis), axis=w.axis, dtype=out.dtype, out=tmp)
    out[along(x.ndim, w.axis, slice(None, -1))] = np.flip(tmp, w.axis)[along(x.ndim, w.axis, slice(1, None))]
    out[along(x.ndim, w.axis, slice(-1, None))] = 0 if w.op == "cumsum" else 1


def torch_scan_fn(w: Workload, x: np.ndarray[Any, Any], out: np.ndarray[Any, Any]) -> Callable[[], object]:
    """The same recipe as numpy_scan in PyTorch (torch.flip copies: that is what users get)."""
    tx, tout, tmp = torch.from_numpy(x), torch.from_numpy(out), torch.from_numpy(np.empty_like(out))
    scan = torch.cumsum if w.op == "cumsum" else torch.cumprod
    d, n, dt = w.axis, x.shape[w.axis], tout.dtype
    if w.direction == "increasing" and not w.exclusive:
        return lambda: scan(tx, d, dtype=dt, out=tout)
    if w.direction != "decreasing" or not w.exclusive:
        raise NotImplementedError("only the workloads' flag combinations are wired up")

    def dec_excl() -> None:
        scan(torch.flip(tx, [d]), d, dtype=dt, out=tmp)
        tout.narrow(d, 0, n - 1).copy_(torch.flip(tmp.narrow(d, 0, n - 1), [d]))
        tout.narrow(d, n - 1, 1).fill_(0 if w.op == "cumsum" else 1)

    return dec_excl


def reference(w: Workload, x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    wide = np.float64 if np.dtype(w.dtype).kind == "f" else np.int64
    xw = x.astype(wide)
    ref = np.empty_like(xw)
    numpy_scan(w, xw, ref, np.empty_like(xw))
    return ref.astype(w.dtype)


def matches(res: np.ndarray[Any, Any], ref: np.ndarray[Any, Any]) -> bool:
    if res.dtype.kind in "iu":
        return bool(np.array_equal(res, ref))
    rtol = {"float16": 1e-2, "float32": 1e-4, "float64": 1e-7}[res.dtype.name]
    return bool(np.allclose(res.astype(np.float64), ref.astype(np.float64), rtol=rtol, atol=rtol))


@dataclass
class Candidate:
    name: str
    fn: Callable[[], object]
    threads: Optional[int] = None  # set on both simdscan and torch before each timed block (not timed)


def set_threads(n: Optional[int]) -> None:
    if n is not None:
        simdscan.set_num_threads(n)
        if torch is not None:
            torch.set_num_threads(n)


def best_times(cands: list[Candidate], copy: Callable[[], object], repeats: int, min_s: float) -> dict[str, float]:
    """Best seconds per call for each candidate and for "copy". A pass times copy, cand 1, copy, cand 2,
    ..., copy; the loop count of each is calibrated once (as timeit's autorange) to take >= min_s."""
    everyone = [Candidate("copy", copy)] + cands

    def timed(c: Candidate, loops: int) -> float:
        set_threads(c.threads)
        t0 = time.perf_counter()
        for _ in range(loops):
            c.fn()
        return time.perf_counter() - t0

    loops = {}
    for c in everyone:
        n = 1
        while (t := timed(c, n)) < min_s:
            n = max(2 * n, math.ceil(1.2 * n * min_s / max(t, 1e-9)))
        loops[c.name] = n
    best = {c.name: math.inf for c in everyone}
    for _ in range(repeats):
        for c in [c for cand in cands for c in (everyone[0], cand)] + [everyone[0]]:
            best[c.name] = min(best[c.name], timed(c, loops[c.name]) / loops[c.name])
    return best


class Progress:
    """``[i/n] label`` on a stream (stderr): rewritten in place with a carriage return when the stream is a
    terminal, one line per step otherwise, so that a log keeps every step.

    >>> import io
    >>> log = io.StringIO()
    >>> p = Progress(log)
    >>> p.step(1, 2, "f32 16")
    >>> p.note("  torch 1T skipped: no float16")
    >>> p.step(2, 2, "f64 16")
    >>> p.close()
    >>> print(log.getvalue(), end="")
    [1/2] f32 16
      torch 1T skipped: no float16
    [2/2] f64 16
    """

    def __init__(self, stream: Optional[TextIO] = None) -> None:
        self.stream = sys.stderr if stream is None else stream
        isatty = getattr(self.stream, "isatty", None)
        self.tty = bool(isatty()) if callable(isatty) else False
        self.shown = 0  # characters of the line now on a terminal (0: none)
        self.start = time.perf_counter()

    def _clear(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * self.shown + "\r")
            self.shown = 0

    def step(self, i: int, n: int, label: str) -> None:
        """Workload i of n (from 1) starts."""
        if self.tty:
            done = 20 * (i - 1) // n
            text = f"[{i}/{n}] [{'#' * done}{'.' * (20 - done)}] {time.perf_counter() - self.start:4.0f} s  {label}"
            self._clear()
            self.stream.write(text)
            self.shown = len(text)
        else:
            self.stream.write(f"[{i}/{n}] {label}\n")
        self.stream.flush()

    def note(self, message: str) -> None:
        """A line that stays (above the progress line on a terminal)."""
        self._clear()
        self.stream.write(message + "\n")
        self.stream.flush()

    def close(self) -> None:
        """Removes the progress line from a terminal."""
        self._clear()
        self.stream.flush()


def run_workload(
    w: Workload,
    quick: bool,
    repeats: int,
    min_s: float,
    all_threads: int,
    torch_all: Optional[int],
    note: Callable[[str], None] = lambda message: print(message, file=sys.stderr),
) -> tuple[int, dict[str, float], list[str]]:
    shape = w.quick_shape if quick and w.quick_shape else w.shape
    x = make_input(w, shape)
    out, tmp = np.empty(x.shape, x.dtype), np.empty(x.shape, x.dtype)  # one `out` for every library and the copy
    kw: dict[str, Any] = dict(axis=w.axis, direction=w.direction, exclusive=w.exclusive, out=out)
    if w.compensated:
        kw["compensated"] = True

    def simd() -> None:
        getattr(simdscan, w.op)(x, **kw)

    cands = [Candidate("simdscan 1T", simd, 1), Candidate("numpy", lambda: numpy_scan(w, x, out, tmp), 1)]
    if torch is not None:
        torch_fn = torch_scan_fn(w, x, out)
        cands.append(Candidate("torch 1T", torch_fn, 1))
    cands.append(Candidate("simdscan allT", simd, all_threads))
    if torch is not None:
        cands.append(Candidate("torch allT", torch_fn, torch_all))

    # Correctness guard: every candidate's output is checked before it is timed; a candidate that
    # raises (e.g. a dtype torch's CPU backend lacks) is left out and shows as n/a.
    ref = reference(w, x)
    ok: list[Candidate] = []
    bad: list[Candidate] = []
    for c in cands:
        out.fill(0)
        set_threads(c.threads)
        try:
            c.fn()
        except (RuntimeError, TypeError) as e:
            if not c.name.startswith("torch"):
                raise
            note(f"  {c.name} skipped: {e}")
            continue
        (ok if matches(out, ref) else bad).append(c)
    del ref
    gc.collect()
    times = best_times(ok + bad, lambda: np.copyto(out, x), repeats, min_s)
    return x.size, times, [c.name for c in bad]


def fmt_time(s: float) -> str:
    """Seconds, in s, ms or us with three significant digits.

    >>> fmt_time(0.0123), fmt_time(2.5e-6), fmt_time(150e-3)
    ('12.3 ms', '2.5 us', '150 ms')
    """
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if s >= scale or unit == "us":
            v = s / scale
            return f"{v:.3g} {unit}" if v < 100 else f"{v:.0f} {unit}"
    raise AssertionError("unreachable")


def fmt_ratio(r: Optional[float]) -> str:
    """A time ratio: two decimals below 10, one below 100.

    >>> fmt_ratio(1.234), fmt_ratio(12.34), fmt_ratio(123.4), fmt_ratio(None)
    ('1.23', '12.3', '123', 'n/a')
    """
    if r is None:
        return "n/a"
    return f"{r:.2f}" if r < 10 else f"{r:.1f}" if r < 100 else f"{r:.0f}"


def print_table(headers: list[str], rows: list[list[str]], markdown: bool) -> None:
    if markdown:
        print("| " + " | ".join(headers) + " |")
        print("|" + "|".join("---" if i == 0 else "---:" for i in range(len(headers))) + "|")
        for r in rows:
            print("| " + " | ".join(r) + " |")
        return
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(wd) if i == 0 else c.rjust(wd) for i, (c, wd) in enumerate(zip(cells, widths)))

    print(line(headers))
    print("  ".join("-" * wd for wd in widths))
    for r in rows:
        print(line(r))


def cpu_model() -> str:
    try:
        for ln in Path("/proc/cpuinfo").read_text().splitlines():
            if ln.startswith("model name"):
                return ln.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def write_png(path: Path, labels: list[str], series: dict[str, list[Optional[float]]], title: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("note: matplotlib is not installed (pip install matplotlib): no PNG written", file=sys.stderr)
        return
    n, k = len(labels), len(series)
    height = 0.8 / k
    fig, ax = plt.subplots(figsize=(12, 2.5 + 0.15 * n * k))
    for j, (name, vals) in enumerate(series.items()):
        ys = [i + (j - (k - 1) / 2) * height for i in range(n)]
        ax.barh([y for y, v in zip(ys, vals) if v], [v for v in vals if v], height=height, label=name)
    ax.axvline(1.0, color="black", linewidth=1, label="copy = 1.0")
    ax.set_xscale("log")
    ax.set_yticks(range(n), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("time / single-threaded np.copyto time of the same array (lower is better)")
    ax.set_title("\n".join(textwrap.fill(part, 150) for part in title.split("\n")), fontsize=8)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.grid(axis="x", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"wrote {path}", file=sys.stderr)


def add_arguments(p: argparse.ArgumentParser, default_png: Optional[Path] = None) -> None:
    """The benchmark's flags (``python -m simdscan bench`` and ``benchmarks/bench.py`` share them)."""
    p.add_argument("--quick", action="store_true", help="large sizes / 16, fewer repeats (< 1 min)")
    png_help = (f"bar chart to write (default {default_png}; --quick writes one only if given)" if default_png
                else "bar chart to write (needs matplotlib; none unless given)")
    p.add_argument("--png", metavar="PATH", default=None, help=png_help)
    p.add_argument("--markdown", action="store_true", help="print the table as GitHub markdown")
    p.add_argument("--only", metavar="SUBSTRING", help="run only workloads whose label contains it")
    p.add_argument("--repeats", type=int, help="timed repeats per measurement (default 5; --quick 3)")
    p.add_argument("--min-ms", type=float, help="minimum length of one repeat (default 20; --quick 5)")


def run(args: argparse.Namespace, default_png: Optional[Path] = None) -> int:
    """Runs the benchmark for parsed flags (see :func:`add_arguments`); returns the exit status."""
    _load_torch()
    repeats = args.repeats or (3 if args.quick else 5)
    min_s = (args.min_ms or (5 if args.quick else 20)) / 1e3
    # A partial run (--quick, --only) leaves the full run's chart alone.
    png = args.png if args.png is not None else (
        None if args.quick or args.only or default_png is None else str(default_png))

    all_threads = simdscan.get_num_threads()  # the default, saved before anything changes it
    torch_all = torch.get_num_threads() if torch is not None else None
    todo = [w for w in WORKLOADS if not args.only or args.only in w.label(args.quick)]
    if not todo:
        print(f"no workload label contains {args.only!r}", file=sys.stderr)
        return 2

    header = (f"simdscan {simdscan.__version__} ({simdscan.isa()}, {all_threads} threads), numpy {np.__version__}, "
              + (f"torch {torch.__version__} ({torch_all} threads)" if torch is not None else "torch not installed")
              + f", Python {platform.python_version()}, CPU: {cpu_model()}" + (", --quick" if args.quick else ""))
    note = (f"each time: best of {repeats} repeats of a loop of >= {min_s * 1e3:g} ms; X/copy = time / time of a "
            f"single-threaded np.copyto(out, x) of the same array, measured in the same pass (lower is better); "
            f"1T = 1 thread, allT = {all_threads} simdscan / {torch_all} torch threads")

    results = []
    progress = Progress()
    try:
        for i, w in enumerate(todo, 1):
            progress.step(i, len(todo), w.label(args.quick))
            results.append((w.label(args.quick),
                            *run_workload(w, args.quick, repeats, min_s, all_threads, torch_all, progress.note)))
            gc.collect()
    finally:
        progress.close()
        set_threads(all_threads)
        if torch is not None:
            torch.set_num_threads(torch_all)

    names = ["simdscan 1T", "numpy"] + (["torch 1T"] if torch else []) + ["simdscan allT"] + (["torch allT"] if torch else [])
    headers = ["workload", "n elems", "copy 1T", "simdscan 1T", *(f"{n}/copy" for n in names),
               "simdscan Gelem/s 1T", "simdscan 1T vs numpy", "check"]
    rows: list[list[str]] = []
    series: dict[str, list[Optional[float]]] = {
        n: [] for n in ("simdscan 1T", "numpy", "torch 1T", "simdscan allT") if n in names
    }
    for label, n, t, bad in results:
        ratio = {k: t[k] / t["copy"] if k in t else None for k in names}
        rows.append([("!! " if bad else "") + label, str(n), fmt_time(t["copy"]), fmt_time(t["simdscan 1T"]),
                     *(fmt_ratio(ratio[k]) for k in names), f"{n / t['simdscan 1T'] / 1e9:.2f}",
                     f"{t['numpy'] / t['simdscan 1T']:.1f}x", "MISMATCH: " + ", ".join(bad) if bad else "ok"])
        for k in series:
            series[k].append(ratio[k])

    print(header)
    print(note)
    print()
    print_table(headers, rows, args.markdown)
    sys.stdout.flush()
    if png:
        write_png(Path(png), [r[0] for r in rows], series, header + "\n" + note)
    if any(bad for *_, bad in results):
        print("\nWARNING: some results did not match the NumPy reference (rows marked !!)")
        return 1
    return 0


def main(argv: Optional[Sequence[str]] = None, *, prog: Optional[str] = None,
         default_png: Optional[Path] = None) -> int:
    """Parses ``argv`` (default: ``sys.argv[1:]``), runs the benchmark, returns the exit status.

    ``default_png``: where a full run (neither --quick nor --only) draws its bar chart when --png is not
    given; None draws none."""
    p = argparse.ArgumentParser(prog=prog, description=(__doc__ or "").split("\n")[0])
    add_arguments(p, default_png)
    return run(p.parse_args(argv), default_png)
