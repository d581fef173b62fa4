"""The scans simdscan exports, one entry each, with what each takes: the one list that the error, Dask, thread and
digest tests read, so that a new scan gets their sweeps by being listed here (and its reference added where a test
compares values: family_reference.py). NumPy 2's spellings cumulative_sum and cumulative_prod, cumsum's and cumprod's
kernels behind another signature, are not listed (test_numpy_compat and test_array_api sweep them)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Scan:
    name: str  # the function in simdscan (and simdscan.dask)
    ordered: bool = False  # needs an order: complex input is a TypeError
    indices: bool = False  # takes return_indices=True
    compensated: bool = False  # takes compensated=True
    counts: bool = False  # a sum or product: bool input counts, in NumPy's default integer
    floating: bool = False  # computes in floating types: integer and bool input give float64
    skips_nan: bool = False  # NaN counts as the identity (integers have none to skip)
    numpy_name: bool = False  # one of NumPy's own names, swept against NumPy itself (test_sweep)

    def takes(self, dtype) -> bool:
        """Whether the scan takes input of ``dtype`` (of simdscan's supported dtypes)."""
        return not (self.ordered and np.dtype(dtype).kind == "c")

    def result_dtype(self, dtype) -> np.dtype:
        """The result's dtype for input of ``dtype`` without dtype=."""
        dtype = np.dtype(dtype)
        if self.floating and dtype.kind != "f":
            return np.dtype(np.float64)
        if self.counts and dtype == np.bool_:
            return np.cumsum(np.zeros(1, dtype=bool)).dtype
        return dtype

    def variants(self) -> list[dict]:
        """The keyword sets that choose another kernel: none, and each flag the scan takes."""
        return [{}, *([{"compensated": True}] if self.compensated else []),
                *([{"return_indices": True}] if self.indices else [])]


SCANS = (
    Scan("cumsum", counts=True, compensated=True, numpy_name=True),
    Scan("cumprod", counts=True, numpy_name=True),
    Scan("cummax", ordered=True, indices=True),
    Scan("cummin", ordered=True, indices=True),
    Scan("nancumsum", counts=True, compensated=True, skips_nan=True),
    Scan("nancumprod", counts=True, skips_nan=True),
    Scan("nancummax", ordered=True, skips_nan=True),
    Scan("nancummin", ordered=True, skips_nan=True),
    Scan("logcumsumexp", ordered=True, floating=True),
)
BY_NAME = {s.name: s for s in SCANS}

#: the scans beyond NumPy's own names (test_family_*, test_dask_family)
FAMILY = tuple(s.name for s in SCANS if not s.numpy_name)
#: those that refuse complex input
ORDERED = tuple(s.name for s in SCANS if s.ordered and not s.numpy_name)
#: those that take return_indices
INDEXED = tuple(s.name for s in SCANS if s.indices)
