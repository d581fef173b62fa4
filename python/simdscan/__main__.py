"""``python -m simdscan``: a short demonstration (``demo``, the default) or build facts (``info``).

    python -m simdscan                 # = demo: DirectML's examples, computed now
    python -m simdscan info            # version, xsimd the build used, ISA tiers, threads, result cache

The benchmark is no part of the package: it lives in benchmarks/ of the source tree (benchmarks/bench.py).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable, Optional, Sequence

import numpy as np

import simdscan
from simdscan import _core

# DirectML's example tensor: sizes {1, 1, 3, 4}, FLOAT32.
DML_INPUT = np.array([[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]], dtype=np.float32).reshape(1, 1, 3, 4)

# The eight examples of DirectML's reference pages: label, operator, keyword arguments.
DML_EXAMPLES: tuple[tuple[str, Callable[..., np.ndarray[Any, Any]], dict[str, Any]], ...] = (
    ("sum  axis 3", simdscan.cumsum, {"axis": 3}),
    ("sum  axis 3 excl.", simdscan.cumsum, {"axis": 3, "exclusive": True}),
    ("sum  axis 3 decr.", simdscan.cumsum, {"axis": 3, "direction": "decreasing"}),
    ("sum  axis 2", simdscan.cumsum, {"axis": 2}),
    ("prod axis 3", simdscan.cumprod, {"axis": 3}),
    ("prod axis 3 excl.", simdscan.cumprod, {"axis": 3, "exclusive": True}),
    ("prod axis 3 decr.", simdscan.cumprod, {"axis": 3, "direction": "decreasing"}),
    ("prod axis 2", simdscan.cumprod, {"axis": 2}),
)


def _rows(a: np.ndarray[Any, Any]) -> str:
    """The (1, 1, 3, 4) tensor as DirectML's pages print it.

    >>> _rows(DML_INPUT)
    '[[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]]'
    >>> _rows(simdscan.cumsum(DML_INPUT, axis=3, direction="decreasing", exclusive=True))
    '[[9, 8, 5, 0], [18, 10, 3, 0], [12, 6, 4, 0]]'
    """
    return "[" + ", ".join("[" + ", ".join(f"{v:g}" for v in row) + "]" for row in a[0, 0]) + "]"


def demo(args: Optional[argparse.Namespace] = None) -> int:
    """Computes DirectML's eight examples now, and shows the float16 and int32 differences from NumPy.

    >>> demo()  # doctest: +ELLIPSIS
    simdscan ..., ISA ...
    <BLANKLINE>
    DirectML's examples, computed now (float32 in, sizes (1, 1, 3, 4)):
      input              [[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]]
      sum  axis 3        [[2, 3, 6, 11], [3, 11, 18, 21], [9, 15, 17, 21]]   (float32)
    ...
      prod axis 2        [[2, 1, 3, 5], [6, 8, 21, 15], [54, 48, 42, 60]]   (float32)
    ...
      simdscan.cumsum  4096   (float32 running total, rounded once per output)
      numpy.cumsum     2048   (float16 running total stalls at 2048)
    ...
    0
    """
    print(f"simdscan {simdscan.__version__}, ISA {simdscan.isa()}")
    print(f"\nDirectML's examples, computed now ({DML_INPUT.dtype} in, sizes {DML_INPUT.shape}):")
    print(f"  {'input':<18} {_rows(DML_INPUT)}")
    for label, op, kwargs in DML_EXAMPLES:
        result = op(DML_INPUT, **kwargs)
        print(f"  {label:<18} {_rows(result)}   ({result.dtype})")

    ones = np.ones(4096, dtype=np.float16)
    print("\nfloat16: the sum of 4096 ones")
    print(f"  simdscan.cumsum  {simdscan.cumsum(ones)[-1]:g}   (float32 running total, rounded once per output)")
    print(f"  numpy.cumsum     {np.cumsum(ones)[-1]:g}   (float16 running total stalls at 2048)")

    ints = np.arange(1, 5, dtype=np.int32)
    print("\nint32 keeps its dtype")
    print(f"  simdscan.cumsum  {simdscan.cumsum(ints).dtype}")
    print(f"  numpy.cumsum     {np.cumsum(ints).dtype}")
    return 0


def info(args: Optional[argparse.Namespace] = None) -> int:
    """Prints the version, the xsimd the extension was built with and where the build took it from (installed,
    pythran or directory), the ISA tiers, the choices made for the CPU (falling row walk, streaming threshold), the
    thread count and the result cache's size.

    >>> info()  # doctest: +ELLIPSIS
    simdscan        0...
    xsimd           ...
    ISA             ...
    supported ISAs  ...
    falling rows    ...
    streaming       ...
    threads         ...
    result cache    ...
    0
    """
    print(f"simdscan        {simdscan.__version__}")
    print(f"xsimd           {_core.xsimd_version} ({_core.xsimd_source})")
    print(f"ISA             {simdscan.isa()}")
    print(f"supported ISAs  {', '.join(simdscan.supported_isas())}")
    print(f"falling rows    walked {_core.falling_row_walk()} (SIMDSCAN_ROW_WALK=down|up forces either)")
    print(f"streaming       outputs past the caches from {_core.streaming_threshold() / 2**20:g} MiB read and written"
          " (SIMDSCAN_STREAMING_THRESHOLD=bytes forces another)")
    print(f"threads         {simdscan.get_num_threads()}")
    print(f"result cache    {simdscan.get_result_cache_size() / 2**20:g} MiB of freed results kept for new ones")
    return 0


def parser() -> argparse.ArgumentParser:
    """The command line: ``demo`` (the default), ``info``."""
    p = argparse.ArgumentParser(
        prog="python -m simdscan",
        description="Cumulative sum and product with DirectML semantics for NumPy arrays. The benchmark is not"
        " installed: it lives in benchmarks/ of the source tree (python benchmarks/bench.py).",
    )
    p.set_defaults(run=demo)
    commands = p.add_subparsers(title="commands")
    commands.add_parser("demo", help="compute DirectML's examples live (the default)").set_defaults(run=demo)
    commands.add_parser("info", help="print the version, xsimd, ISA tiers and threads").set_defaults(run=info)
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs ``python -m simdscan`` with ``argv`` (default: ``sys.argv[1:]``); returns the exit status.

    >>> main(["info"])  # doctest: +ELLIPSIS
    simdscan        ...
    result cache    ...
    0
    """
    args = parser().parse_args(argv)
    status: int = args.run(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
