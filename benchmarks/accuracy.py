"""Error of float32 running sums against their length: NumPy, simdscan plain and compensated, a float64 cast.

    python benchmarks/accuracy.py            # prints the table, writes benchmarks/accuracy.png

Data: uniform [0, 1) float32 values (a sum that only grows, where rounding errors accumulate). For each
length n, the error is the largest |out[i] - S[i]| / S[i] over all outputs, in units of float32's unit
roundoff u = 2**-24, S being the exact prefix (long double accumulation of the float32 values: its own
error, below n * 2**-64, is far under the float32 errors shown)."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import simdscan

U = 2.0**-24


def errors(n: int, rng: np.random.Generator) -> dict[str, float]:
    x = rng.random(n, dtype=np.float32)
    exact = np.cumsum(x.astype(np.longdouble))
    candidates = {
        "numpy float32": np.cumsum(x),
        "simdscan plain": simdscan.cumsum(x),
        "simdscan compensated": simdscan.cumsum(x, compensated=True),
        "float64 cast, rounded": np.cumsum(x.astype(np.float64)).astype(np.float32),
    }
    return {k: float(np.max(np.abs(v.astype(np.longdouble) - exact) / exact)) / U for k, v in candidates.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--png", default=str(Path(__file__).with_name("accuracy.png")))
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    lengths = [10**k for k in range(2, 9)]
    table = {n: errors(n, rng) for n in lengths}
    names = list(next(iter(table.values())))
    print("max relative error / u (u = 2**-24), uniform [0, 1) float32")
    print(f"{'n':>10} " + " ".join(f"{k:>22}" for k in names))
    for n, row in table.items():
        print(f"{n:>10} " + " ".join(f"{row[k]:>22.3g}" for k in names))

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for k, style in zip(names, ("o-", "s-", "^-", "x--")):
        ax.loglog(lengths, [max(table[n][k], 1e-3) for n in lengths], style, label=k)
    ax.axhline(2, color="grey", lw=0.8, ls=":")
    ax.text(lengths[0], 2.3, "2u: the compensated bound", color="grey", fontsize=8)
    ax.set_xlabel("length n")
    ax.set_ylabel("max relative error of out[i], in units of u = 2**-24")
    ax.set_title("float32 running sums of uniform [0, 1) values")
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.png, dpi=110)
    print(f"wrote {args.png}")


if __name__ == "__main__":
    main()
