"""Timing one workload: every library's result checked, then its best time beside a copy of the same array."""

from __future__ import annotations

import contextlib
import gc
import math
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Optional, Sequence

import numpy as np

import simdscan
from workloads import (RECURRENCES, Workload, empty_output, load_pandas, load_scipy_signal, make_input, make_labels,
                       make_reset, matches, numpy_new_result, numpy_scan, pandas_scan_fn, recurrence_coefficients,
                       reference, scipy_scan_fn, torch_scan_fn)


@dataclass
class Candidate:
    name: str
    fn: Callable[[], object]
    threads: Optional[int] = None  # set on both simdscan and torch before each timed block (not timed)
    isa: Optional[str] = None  # simdscan's ISA tier, selected before each timed block (not timed)


def set_threads(n: Optional[int], torch: Any) -> None:
    """n threads for simdscan and (when loaded) torch; None leaves both as they are."""
    if n is not None:
        simdscan.set_num_threads(n)
        if torch is not None:
            torch.set_num_threads(n)


def prepare(c: Candidate, torch: Any) -> None:
    """The candidate's threads and ISA tier, set before it runs."""
    set_threads(c.threads, torch)
    if c.isa is not None:
        simdscan._core.select_isa(c.isa)


def best_times(cands: list[Candidate], copy: Callable[[], object], repeats: int, min_s: float,
               torch: Any) -> dict[str, float]:
    """Best seconds per call for each candidate and for "copy". A pass times copy, cand 1, copy, cand 2,
    ..., copy; the loop count of each is calibrated once (as timeit's autorange) to take >= min_s."""
    everyone = [Candidate("copy", copy)] + cands

    def timed(c: Candidate, loops: int) -> float:
        prepare(c, torch)
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


@contextlib.contextmanager
def result_cache_for(w: Workload) -> Iterator[None]:
    """simdscan's result cache as the workload asks: as it is set, or off (kept_results=False)."""
    kept = simdscan.get_result_cache_size()
    simdscan.set_result_cache_size(kept if w.kept_results else 0)
    try:
        yield
    finally:
        simdscan.set_result_cache_size(kept)


def simdscan_call(w: Workload, x: np.ndarray[Any, Any], out: np.ndarray[Any, Any]) -> Callable[[], object]:
    """simdscan's scan of the workload as users write it, its flags as keywords, as numpy_scan calls NumPy: passed
    as ``**kwargs`` they cost CPython about 180 ns more a call for any callee (np.copyto as much), a tenth of a
    64 KiB scan."""
    scan = getattr(simdscan, w.op)
    axis, direction, exclusive = w.axis, w.direction, w.exclusive
    reset = make_reset(w, x.shape)
    labels = make_labels(w, x.shape)
    if w.op == "ffill":
        limit = w.limit or None
        return lambda: scan(x, axis=axis, direction=direction, limit=limit, out=out)
    if w.op == "ewm_mean":
        adjust = "adjust=False" not in w.note
        return lambda: scan(x, axis, alpha=0.01, adjust=adjust, out=out)
    if w.op in RECURRENCES:
        a = recurrence_coefficients(w, x.shape)
        if w.op == "linear_recurrence":
            return lambda: scan(a, x, axis, out=out)
        return lambda: scan(x, a, axis, reset=reset, out=out)
    if reset is not None:
        return lambda: scan(x, axis=axis, direction=direction, exclusive=exclusive, out=out, reset=reset)
    if labels is not None:
        return lambda: scan(x, axis=axis, direction=direction, exclusive=exclusive, out=out, labels=labels)
    if "indices" in w.note:
        # The indices half a page from the input as well: at a few hundred bytes (mod 4096) from it, a 64 KiB scan
        # with indices took 4.8 us against 3.4 us on Zen 4.
        pair = (out, empty_output(x, np.intp))
        return lambda: scan(x, axis=axis, direction=direction, exclusive=exclusive, out=pair, return_indices=True)
    if w.new_result and w.compensated:
        return lambda: scan(x, axis=axis, direction=direction, exclusive=exclusive, compensated=True)
    if w.new_result:
        return lambda: scan(x, axis=axis, direction=direction, exclusive=exclusive)
    if w.compensated:
        return lambda: scan(x, axis=axis, direction=direction, exclusive=exclusive, out=out, compensated=True)
    return lambda: scan(x, axis=axis, direction=direction, exclusive=exclusive, out=out)


def run_workload(
    w: Workload,
    quick: bool,
    repeats: int,
    min_s: float,
    all_threads: int,
    torch: Any,
    torch_all: Optional[int],
    note: Callable[[str], None] = lambda message: print(message, file=sys.stderr),
    tiers: Sequence[str] = (),
) -> tuple[int, dict[str, float], list[str]]:
    """Element count, best seconds per library (and "copy"), and the libraries whose result was wrong. With
    `tiers`, simdscan alone at one thread under each of those ISA tiers ("simdscan 1T <tier>"), their repeats
    interleaved."""
    shape = w.quick_shape if quick and w.quick_shape else w.shape
    x = make_input(w, shape)
    out, tmp = empty_output(x), empty_output(x)  # one `out` for every library and the copy
    simd = simdscan_call(w, x, out)

    def numpy() -> object:
        if w.new_result:
            return numpy_new_result(w, x)
        numpy_scan(w, x, out, tmp)
        return out

    cands: list[Candidate]
    if tiers:
        cands = [Candidate(f"simdscan 1T {isa}", simd, 1, isa) for isa in tiers]
    else:
        cands = [Candidate("simdscan 1T", simd, 1)]
        if w.op not in RECURRENCES:  # NumPy has no linear recurrence
            cands.append(Candidate("numpy", numpy, 1))
        torch_fn = None
        if torch is not None:
            try:
                torch_fn = torch_scan_fn(torch, w, x, out, tmp)
            except TypeError as e:
                note(f"  torch skipped: {e}")
        if torch_fn is not None:
            cands.append(Candidate("torch 1T", torch_fn, 1))
        for name, library, scan_fn in (("pandas", load_pandas(), pandas_scan_fn),
                                       ("scipy", load_scipy_signal(), scipy_scan_fn)):
            if library is not None:
                try:
                    cands.append(Candidate(name, scan_fn(library, w, x, out), 1))
                except TypeError:
                    pass  # a row the library has no scan for
        cands.append(Candidate("simdscan allT", simd, all_threads))
        if torch_fn is not None:
            cands.append(Candidate("torch allT", torch_fn, torch_all))

    # Correctness guard: every candidate's output is checked before it is timed; a candidate that
    # raises (e.g. a dtype torch's CPU backend lacks) is left out and shows as n/a.
    ref = reference(w, x)
    ok: list[Candidate] = []
    bad: list[Candidate] = []
    for c in cands:
        out.fill(0)
        prepare(c, torch)
        try:
            result = c.fn()
        except (RuntimeError, TypeError) as e:
            if not c.name.startswith("torch"):
                raise
            note(f"  {c.name} skipped: {e}")
            continue
        (ok if matches(np.asarray(result) if w.new_result else out, ref) else bad).append(c)
        del result
    del ref
    gc.collect()
    copy: Callable[[], object] = x.copy if w.new_result else lambda: np.copyto(out, x)
    times = best_times(ok + bad, copy, repeats, min_s, torch)
    return x.size, times, [c.name for c in bad]
