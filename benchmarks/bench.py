#!/usr/bin/env python
"""simdscan benchmark: scan time as a multiple of a memory copy of the same array.

    python benchmarks/bench.py                 # full run (~2 minutes on 2 cores, ~5 GB of RAM at peak)
    python benchmarks/bench.py --quick         # sizes / 16, fewer repeats (CI)
    python benchmarks/bench.py --markdown      # the table as GitHub markdown
    python benchmarks/bench.py --only 4096     # workloads whose label contains "4096"
    python benchmarks/bench.py --png out.png   # where to write the bar chart (needs matplotlib)
    python benchmarks/bench.py --tiers         # simdscan under each ISA tier the CPU has, interleaved (no chart)

A full run (neither --quick nor --only) draws its bar chart to benchmarks/results.png unless --png says where.
It runs against the simdscan that Python imports (the installed wheel); the benchmark itself ships in no wheel.

Every time is the best of several repeats, each repeat a calibrated loop of >= --min-ms milliseconds.
The copy baseline (single-threaded ``np.copyto(out, x)``) is measured right before and after every
library in the same pass, so each ratio comes from one run on one machine state. The copy and every
library write into the same preallocated ``out`` (``out=``): no timing includes an allocation or
first-touch page faults, and all of them write to the same pages, which start half a page (2048 bytes
mod 4096) after the input's, away from 4K aliasing (workloads.py). The "new result" row is the exception:
there every library returns a new array, as without ``out=`` in a notebook, and the copy is ``x.copy()``.
PyTorch is timed too when it imports, and pandas and SciPy on the rows they have a scan for (segmented and grouped
scans, forward fill, pandas' ewm, lfilter); NumPy has no linear recurrence (n/a on those rows).
Before timing, every result is checked against a float64 / int64 NumPy reference: a mismatch is
flagged in the table and makes the benchmark exit with status 1.

Progress goes to stderr, ``[i/n] workload``: one line rewritten in place on a terminal, one line per
workload otherwise (a log); the table goes to stdout.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import sys
import time
from pathlib import Path
from typing import Optional, Sequence, TextIO

import numpy as np

import simdscan
from chart import write_png
from timing import result_cache_for, run_workload
from workloads import WORKLOADS, load_torch

DEFAULT_PNG = Path(__file__).with_name("results.png")


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


def tiers_rows(results: list[tuple[str, int, dict[str, float], list[str]]], tiers: list[str],
               chosen: str) -> tuple[list[str], list[list[str]]]:
    """--tiers' table: per workload, each tier's time / copy, then each other tier's time / the chosen tier's.

    >>> headers, rows = tiers_rows([("f32 16", 16, {"copy": 1.0, "simdscan 1T sse2": 3.0,
    ...                                              "simdscan 1T avx2": 2.0}, [])], ["sse2", "avx2"], "avx2")
    >>> headers
    ['workload', 'copy 1T', 'sse2/copy', 'avx2/copy', 'sse2/avx2', 'check']
    >>> rows
    [['f32 16', '1 s', '3.00', '2.00', '1.50', 'ok']]
    """
    others = [isa for isa in tiers if isa != chosen]
    headers = ["workload", "copy 1T", *(f"{isa}/copy" for isa in tiers), *(f"{isa}/{chosen}" for isa in others),
               "check"]
    rows = []
    for label, _, t, bad in results:
        time_of = {isa: t[f"simdscan 1T {isa}"] for isa in tiers}
        rows.append([("!! " if bad else "") + label, fmt_time(t["copy"]),
                     *(fmt_ratio(time_of[isa] / t["copy"]) for isa in tiers),
                     *(fmt_ratio(time_of[isa] / time_of[chosen]) for isa in others),
                     "MISMATCH: " + ", ".join(bad) if bad else "ok"])
    return headers, rows


def cpu_model() -> str:
    """The CPU's model name, family and model numbers (which tell AMD's Zen generations apart) and logical CPUs."""
    fields: dict[str, str] = {}
    try:
        for ln in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = ln.partition(":")
            fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    name = fields.get("model name") or platform.processor() or platform.machine()
    numbers = f" (family {fields['cpu family']}, model {fields['model']})" if "cpu family" in fields else ""
    return f"{name}{numbers}, {os.cpu_count()} logical CPUs"


def parser() -> argparse.ArgumentParser:
    """The benchmark's flags."""
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("--quick", action="store_true", help="large sizes / 16, fewer repeats (< 1 min)")
    p.add_argument("--png", metavar="PATH", default=None,
                   help=f"bar chart to write (default {DEFAULT_PNG}; --quick and --only write one only if given)")
    p.add_argument("--markdown", action="store_true", help="print the table as GitHub markdown")
    p.add_argument("--only", metavar="SUBSTRING", help="run only workloads whose label contains it")
    p.add_argument("--repeats", type=int, help="timed repeats per measurement (default 5; --quick 3)")
    p.add_argument("--min-ms", type=float, help="minimum length of one repeat (default 20; --quick 5)")
    p.add_argument("--tiers", action="store_true",
                   help="simdscan alone, one thread, under every ISA tier the CPU supports, their repeats interleaved "
                        "(the measurement behind dispatch's choice of the best tier); no chart")
    return p


def run(args: argparse.Namespace) -> int:
    """Runs the benchmark for parsed flags (see :func:`parser`); returns the exit status."""
    torch = load_torch()
    repeats = args.repeats or (3 if args.quick else 5)
    min_s = (args.min_ms or (5 if args.quick else 20)) / 1e3
    # A partial run (--quick, --only) leaves the full run's chart alone.
    png = args.png if args.png is not None else (None if args.quick or args.only or args.tiers else str(DEFAULT_PNG))
    tiers = simdscan.supported_isas() if args.tiers else []
    chosen_isa = simdscan.isa()

    all_threads = simdscan.get_num_threads()  # the default, saved before anything changes it
    torch_all = torch.get_num_threads() if torch is not None else None
    todo = [w for w in WORKLOADS if not args.only or args.only in w.label(args.quick)]
    if not todo:
        print(f"no workload label contains {args.only!r}", file=sys.stderr)
        return 2

    streamed_mib = simdscan._core.streaming_threshold() / 2**20
    header = (f"simdscan {simdscan.__version__} ({simdscan.isa()}, {all_threads} threads, falling rows walked "
              f"{simdscan._core.falling_row_walk()}, streamed from {streamed_mib:g} MiB), numpy {np.__version__}, "
              + (f"torch {torch.__version__} ({torch_all} threads)" if torch is not None else "torch not installed")
              + f", Python {platform.python_version()}, CPU: {cpu_model()}" + (", --quick" if args.quick else "")
              + time.strftime(", run %Y-%m-%d %H:%M UTC", time.gmtime()))
    note = (f"each time: best of {repeats} repeats of a loop of >= {min_s * 1e3:g} ms; X/copy = time / time of a "
            f"single-threaded np.copyto(out, x) of the same array (x.copy() in the new result rows), measured in the same "
            f"pass (lower is better); "
            f"1T = 1 thread, allT = {all_threads} simdscan / {torch_all} torch threads")

    results = []
    progress = Progress()
    try:
        for i, w in enumerate(todo, 1):
            progress.step(i, len(todo), w.label(args.quick))
            with result_cache_for(w):
                results.append((w.label(args.quick), *run_workload(w, args.quick, repeats, min_s, all_threads, torch,
                                                                   torch_all, progress.note, tiers)))
            gc.collect()
    finally:
        progress.close()
        simdscan._core.select_isa(chosen_isa)
        simdscan.set_num_threads(all_threads)
        if torch is not None:
            torch.set_num_threads(torch_all)

    if tiers:
        print(header)
        print(f"each time: best of {repeats} repeats of a loop of >= {min_s * 1e3:g} ms, one thread, each tier "
              f"selected before its loop and the tiers' loops interleaved; X/copy = time / time of a single-threaded "
              f"np.copyto(out, x) of the same array; X/{chosen_isa} = time / time under the tier dispatch chose")
        print()
        print_table(*tiers_rows(results, tiers, chosen_isa), args.markdown)
        return 1 if any(bad for *_, bad in results) else 0
    # pandas and SciPy where they have the row's scan (segmented, grouped, ffill, recurrences): n/a elsewhere.
    peers = [name for name in ("pandas", "scipy") if any(name in t for _, _, t, _ in results)]
    names = (["simdscan 1T", "numpy"] + (["torch 1T"] if torch else []) + peers + ["simdscan allT"] +
             (["torch allT"] if torch else []))
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
                     f"{t['numpy'] / t['simdscan 1T']:.1f}x" if "numpy" in t else "n/a",
                     "MISMATCH: " + ", ".join(bad) if bad else "ok"])
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
        print("\nWARNING: some results did not match the reference (rows marked !!)")
    # Another library's result off the float64 reference (NumPy's float32 logaddexp drifts) is its own matter.
    return 1 if any(name.startswith("simdscan") for *_, bad in results for name in bad) else 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Parses ``argv`` (default: ``sys.argv[1:]``), runs the benchmark, returns the exit status."""
    return run(parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
