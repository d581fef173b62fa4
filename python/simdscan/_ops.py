"""The one table of simdscan's public ops (:data:`OPS`): for each, its public name, the plain function of its family
module, the identity its masked elements stand for, its NumPy counterpart, and what the builtin of its fast calls
(``_fast_calls.py``) and the chunked scans of :mod:`simdscan.dask` (``_dask_chunks.py``) need to know of it.

The family modules (``_arithmetic.py``, ``_extrema.py``, ...) define plain functions of NumPy arrays and know nothing
of this table; ``_public.py`` makes each public function from its entry, and the masked-array rule
(``_array_types.py``) and the Dask layer read it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional, Tuple

import numpy as np

from . import _arithmetic, _array_api, _extrema, _fill, _logsumexp, _nan_skipping, _recurrence

# The identities (what a masked element is scanned as, by the dtype it is scanned in)
ZERO = "zero"
ONE = "one"
LOWEST = "lowest"  # the dtype's lowest value: -inf, iinfo.min, False
HIGHEST = "highest"  # its highest: inf, iinfo.max, True
MISSING = "missing"  # NaN, as a missing value (integers have none: any value, it is masked anyway)

_CUMSUM_KEYWORDS = ("direction", "exclusive", "dtype", "out", "compensated")
_CUMPROD_KEYWORDS = ("direction", "exclusive", "dtype", "out")
_EXTREMUM_KEYWORDS = ("direction", "exclusive", "out")


@dataclass(frozen=True)
class FastCall:
    """The calls of an op that its builtin makes in C++ (``_core.fast_scan``): those that its function's body, for an
    exact ndarray, an ``axis`` that is not a tuple (or a pair the core takes as it is) and only ``keywords`` among its
    keyword arguments, hands straight to ``_core.scan(core, a, axis, direction, exclusive, dtype, out, compensated,
    skip_nan)`` (None and False for those it lacks; skip_nan: :attr:`Op.skips_nan`)."""

    core: str  # the core's name of the op (a ufunc's: "add", "maximum", ...)
    keywords: Tuple[str, ...]


@dataclass(frozen=True)
class Op:
    """One public op of simdscan (and of :mod:`simdscan.dask`, under the same name)."""

    name: str  # the public name
    function: Callable[..., Any]  # the plain function (its family module's): NumPy arrays and array_likes
    identity: Optional[str]  # ZERO, ONE, LOWEST, HIGHEST or MISSING: a masked element's value; None: no masked array
    numpy: Optional[Callable[..., Any]]  # NumPy's function of the same scan (where it has one)
    array: Optional[str] = None  # the argument whose type picks the path (subclass, masked, Dask), where not the first
    floating: bool = False  # integer and bool data are computed as floats (so masked ones are cast before -inf, NaN)
    casts: bool = False  # takes dtype= (the chunked scans: it may accumulate in a wider dtype than it returns)
    skips_nan: bool = False  # NaN is skipped, counted as the identity
    ufunc: Optional[np.ufunc] = None  # the chunked scans: ufunc(carry, later) joins a carry to what follows it
    fast: Optional[FastCall] = None  # the calls its builtin makes in C++ (None: no builtin, the Python function)

    @property
    def takes_masked(self) -> bool:
        """Whether the op takes a masked array (a linear recurrence does not: no value of b leaves its state alone)."""
        return self.identity is not None

    def identity_of(self, dtype: np.dtype) -> Any:
        """The value of ``dtype`` that stands for a masked element (the op leaves its running value unchanged by it;
        ffill and ewm_mean: a missing one)."""
        if self.identity == MISSING:
            return np.nan if dtype.kind in "fc" else 0
        if self.identity in (ZERO, ONE):
            return 0 if self.identity == ZERO else 1
        if self.identity not in (LOWEST, HIGHEST):
            raise TypeError(f"simdscan.{self.name} takes no masked array")
        lowest = self.identity == LOWEST
        if dtype.kind == "b":
            return not lowest
        if dtype.kind in "iu":
            limits = np.iinfo(dtype)
            return limits.min if lowest else limits.max
        return -np.inf if lowest else np.inf


OPS: Dict[str, Op] = {op.name: op for op in (
    Op("cumsum", _arithmetic.cumsum, ZERO, np.cumsum, casts=True, ufunc=np.add,
       fast=FastCall("add", _CUMSUM_KEYWORDS)),
    Op("cumprod", _arithmetic.cumprod, ONE, np.cumprod, casts=True, ufunc=np.multiply,
       fast=FastCall("multiply", _CUMPROD_KEYWORDS)),
    Op("cummax", _extrema.cummax, LOWEST, np.maximum.accumulate, ufunc=np.maximum,
       fast=FastCall("maximum", _EXTREMUM_KEYWORDS)),
    Op("cummin", _extrema.cummin, HIGHEST, np.minimum.accumulate, ufunc=np.minimum,
       fast=FastCall("minimum", _EXTREMUM_KEYWORDS)),
    # NaN-skipping extrema: an all-NaN chunk's total is NaN, which fmax / fmin skip, so it never poisons a carry
    Op("nancummax", _extrema.nancummax, LOWEST, np.fmax.accumulate, skips_nan=True, ufunc=np.fmax,
       fast=FastCall("maximum", _EXTREMUM_KEYWORDS)),
    Op("nancummin", _extrema.nancummin, HIGHEST, np.fmin.accumulate, skips_nan=True, ufunc=np.fmin,
       fast=FastCall("minimum", _EXTREMUM_KEYWORDS)),
    # (their chunk totals are NaN-free sums and products)
    Op("nancumsum", _nan_skipping.nancumsum, ZERO, np.nancumsum, casts=True, skips_nan=True, ufunc=np.add,
       fast=FastCall("add", _CUMSUM_KEYWORDS)),
    Op("nancumprod", _nan_skipping.nancumprod, ONE, np.nancumprod, casts=True, skips_nan=True, ufunc=np.multiply,
       fast=FastCall("multiply", _CUMPROD_KEYWORDS)),
    Op("logcumsumexp", _logsumexp.logcumsumexp, LOWEST, np.logaddexp.accumulate, floating=True, casts=True,
       ufunc=np.logaddexp, fast=FastCall("logaddexp", _CUMPROD_KEYWORDS)),
    # NumPy 2.1's names (simdscan.dask scans them as cumsum and cumprod)
    Op("cumulative_sum", _array_api.cumulative_sum, ZERO, getattr(np, "cumulative_sum", None), casts=True),
    Op("cumulative_prod", _array_api.cumulative_prod, ONE, getattr(np, "cumulative_prod", None), casts=True),
    Op("ffill", _fill.ffill, MISSING, None),
    Op("linear_recurrence", _recurrence.linear_recurrence, None, None, array="b", casts=True),
    Op("discounted_cumsum", _recurrence.discounted_cumsum, None, None),
    Op("ewm_mean", _recurrence.ewm_mean, MISSING, None, floating=True),
)}
