"""Thread scaling of simdscan against a copy of the same bytes with the same number of threads.

    python benchmarks/thread_scaling.py [--mb 400] [--threads 1,2,4,8,16]

For each thread count t: simdscan.cumsum of a 1-D float32 array (and a 4096-column 2-D one along axis 0, and a
1-D float64 one of the same bytes in 1000 segments, reset=), simdscan.linear_recurrence of a 1-D float64 one with
a = 0.99 and simdscan.ewm_mean of it (alpha 0.01, both adjust modes), both along axis 0 of a 1000-column one too,
simdscan.ffill(limit=3) of them with 30% NaN, and discounted_cumsum along axis 0 of the 4096-column float32 one
(episodes of 200 steps), with set_num_threads(t), against a t-thread copy of the same array (NumPy copies of t
contiguous slices from a thread pool; np.copyto releases the GIL). Both write into preallocated outputs, so
allocation is not timed.
"""

from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Optional

import numpy as np

import simdscan


def best_time(run: Callable[[], object], repeats: int = 7) -> float:
    run()  # warm-up: page faults of the output land here
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def threaded_copy(pool: ThreadPoolExecutor, threads: int, src: np.ndarray, dst: np.ndarray) -> Callable[[], None]:
    flat_src, flat_dst = src.reshape(-1), dst.reshape(-1)
    bounds = np.linspace(0, flat_src.size, threads + 1).astype(np.int64)
    slices = [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]

    def run() -> None:
        list(pool.map(lambda s: np.copyto(flat_dst[s], flat_src[s]), slices))

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=int, default=400, help="array size in MB (default 400)")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    default_threads = sorted({t for t in (1, 2, 4, 8, 16, cores) if t <= cores})
    parser.add_argument("--threads", default=",".join(map(str, default_threads)))
    args = parser.parse_args()
    thread_counts = [int(t) for t in args.threads.split(",")]

    n = args.mb * 1_000_000 // 4
    rng = np.random.default_rng(0)
    segmented = rng.random(n // 2)
    reset = np.zeros(segmented.size, bool)
    reset[rng.choice(segmented.size, 999, replace=False)] = True
    recurrence = rng.standard_normal(n // 2)

    def cumsum(x: np.ndarray, axis: int, segments: Optional[np.ndarray] = None) -> Callable[[np.ndarray], object]:
        return lambda out: simdscan.cumsum(x, axis, out=out, reset=segments)

    workloads: dict[str, tuple[np.ndarray, Callable[[np.ndarray], object]]] = {}
    for name, x, axis, segments in (
        ("1-D f32", rng.random(n, dtype=np.float32), 0, None),
        ("2-D f32 (n/4096, 4096) axis 0", rng.random((n // 4096, 4096), dtype=np.float32), 0, None),
        ("1-D f64 1000 segments", segmented, 0, reset),
    ):
        workloads[name] = (x, cumsum(x, axis, segments))
    table = recurrence.reshape(-1, 1000)
    for name, x, axis in (("1-D f64", recurrence, 0), ("2-D f64 (n/8000, 1000) axis 0", table, 0)):
        workloads[f"{name} linear_recurrence a=0.99"] = (
            x, lambda out, x=x, axis=axis: simdscan.linear_recurrence(0.99, x, axis, out=out))
        for adjust in (True, False):
            workloads[f"{name} ewm_mean adjust={adjust}"] = (
                x, lambda out, x=x, axis=axis, adjust=adjust: simdscan.ewm_mean(x, axis, alpha=0.01, adjust=adjust,
                                                                                out=out))
    gappy = np.where(rng.random(recurrence.size) < 0.3, np.nan, recurrence)
    for name, x in (("1-D f64", gappy), ("2-D f64 (n/8000, 1000) axis 0", gappy.reshape(-1, 1000))):
        workloads[f"{name} ffill limit=3"] = (x, lambda out, x=x: simdscan.ffill(x, 0, limit=3, out=out))
    rewards = workloads["2-D f32 (n/4096, 4096) axis 0"][0]
    episodes = rng.random(rewards.shape) < 1 / 200
    workloads["2-D f32 (n/4096, 4096) axis 0 discounted_cumsum reset="] = (
        rewards, lambda out: simdscan.discounted_cumsum(rewards, 0.99, 0, reset=episodes, out=out))
    print(f"simdscan {simdscan.__version__}, isa {simdscan.isa()}, {cores} cores, {args.mb} MB float32")
    print(f"{'workload':56s} {'threads':>7s} {'copy ms':>9s} {'scan ms':>9s} {'scan/copy':>9s} {'GB/s scan':>9s}")
    with ThreadPoolExecutor(max(thread_counts)) as pool:
        for name, (x, scan) in workloads.items():
            out = np.empty_like(x)
            dst = np.empty_like(x)
            reference = None
            for threads in thread_counts:
                simdscan.set_num_threads(threads)
                copy_s = best_time(threaded_copy(pool, threads, x, dst))
                scan_s = best_time(lambda: scan(out))
                if reference is None:
                    reference = out.copy()
                elif not np.array_equal(reference.view(np.uint8), out.view(np.uint8)):  # the bits (NaN included)
                    raise SystemExit(f"{name}: the result with {threads} threads differs from the 1-thread result")
                print(f"{name:56s} {threads:7d} {copy_s * 1e3:9.2f} {scan_s * 1e3:9.2f} {scan_s / copy_s:9.2f} "
                      f"{2 * x.nbytes / scan_s / 1e9:9.1f}")


if __name__ == "__main__":
    main()
