"""The benchmark's bar chart: each library's time / copy time per workload, drawn to a PNG (needs matplotlib)."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Optional


def write_png(path: Path, labels: list[str], series: dict[str, list[Optional[float]]], title: str) -> None:
    """One horizontal bar per workload and library on a log axis, with the copy at 1.0; a note, no PNG, when
    matplotlib is missing."""
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
