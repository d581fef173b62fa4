#!/usr/bin/env python
"""simdscan benchmark: scan time as a multiple of a memory copy of the same array.

    python benchmarks/bench.py                 # full run (~2 minutes on 2 cores, ~5 GB of RAM at peak)
    python benchmarks/bench.py --quick         # sizes / 16, fewer repeats (CI)
    python benchmarks/bench.py --markdown      # the table as GitHub markdown
    python benchmarks/bench.py --only 4096     # workloads whose label contains "4096"
    python benchmarks/bench.py --png out.png   # where to write the bar chart (needs matplotlib)

The benchmark itself lives in the package (simdscan/_bench.py), so that ``python -m simdscan bench`` runs it
from an installed wheel; this script is that, plus a bar chart in benchmarks/results.png after a full run.
"""

import sys
from pathlib import Path

from simdscan._bench import main

if __name__ == "__main__":
    sys.exit(main(default_png=Path(__file__).with_name("results.png")))
