"""``python -m simdscan``: a short demonstration (``demo``, the default) or build facts (``info``)."""

import argparse

import numpy as np

import simdscan
from simdscan import _core

# DirectML's example tensor: sizes {1, 1, 3, 4}, FLOAT32.
DML_INPUT = np.array([[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]], dtype=np.float32).reshape(1, 1, 3, 4)

# The eight examples of DirectML's reference pages: label, operator, keyword arguments.
DML_EXAMPLES = (
    ("sum  axis 3", simdscan.cumsum, {"axis": 3}),
    ("sum  axis 3 excl.", simdscan.cumsum, {"axis": 3, "exclusive": True}),
    ("sum  axis 3 decr.", simdscan.cumsum, {"axis": 3, "direction": "decreasing"}),
    ("sum  axis 2", simdscan.cumsum, {"axis": 2}),
    ("prod axis 3", simdscan.cumprod, {"axis": 3}),
    ("prod axis 3 excl.", simdscan.cumprod, {"axis": 3, "exclusive": True}),
    ("prod axis 3 decr.", simdscan.cumprod, {"axis": 3, "direction": "decreasing"}),
    ("prod axis 2", simdscan.cumprod, {"axis": 2}),
)


def _rows(a):
    """The (1, 1, 3, 4) tensor as DirectML's pages print it: [[2, 1, 3, 5], ...]."""
    return "[" + ", ".join("[" + ", ".join(f"{v:g}" for v in row) + "]" for row in a[0, 0]) + "]"


def demo():
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


def info():
    print(f"simdscan        {simdscan.__version__}")
    print(f"xsimd           {_core.xsimd_version}")
    print(f"ISA             {simdscan.isa()}")
    print(f"supported ISAs  {', '.join(simdscan.supported_isas())}")
    get_num_threads = getattr(simdscan, "get_num_threads", None)
    if get_num_threads is not None:
        print(f"threads         {get_num_threads()}")


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m simdscan",
        description="Cumulative sum and product with DirectML semantics for NumPy arrays.",
    )
    parser.set_defaults(run=demo)
    commands = parser.add_subparsers(title="commands")
    commands.add_parser("demo", help="compute DirectML's examples live (the default)").set_defaults(run=demo)
    commands.add_parser("info", help="print the version, xsimd, ISA tiers and threads").set_defaults(run=info)
    parser.parse_args(argv).run()


if __name__ == "__main__":
    main()
