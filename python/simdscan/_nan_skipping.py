"""Sums and products that skip NaN: nancumsum and nancumprod, with cumsum's flags.

Plain functions of NumPy arrays: simdscan's public ones are made from them in _public.py, by their entries in _ops.OPS
(whose ``fast`` names the calls each body hands straight to ``_core.scan``: keep the two in step)."""

from __future__ import annotations

from typing import Any, Optional, Union

import numpy as np

from ._axes import scan_along
from ._runtime import Direction


def nancumsum(a: Any, axis: Optional[int] = None, *, direction: Union[Direction, str] = "increasing",
              exclusive: bool = False, dtype: Any = None, out: Optional[np.ndarray] = None,
              compensated: bool = False, reset: Any = None, labels: Any = None) -> np.ndarray:
    """Cumulative sum counting NaN as zero, as :func:`numpy.nancumsum`, with every flag of :func:`cumsum`.

    The dtype is kept as :func:`cumsum` keeps it (NumPy widens small integers). The kernels skip NaN elements
    as they scan, with no copy of the input; a NaN that the running sum itself reaches (inf + -inf) stays.

    Examples
    --------
    >>> import numpy as np
    >>> import simdscan
    >>> x = np.array([1.0, np.nan, 2.0, 3.0], dtype=np.float32)
    >>> simdscan.nancumsum(x)
    array([1., 1., 3., 6.], dtype=float32)
    >>> simdscan.nancumsum(x, direction="decreasing", exclusive=True)
    array([5., 5., 3., 0.], dtype=float32)
    """
    return scan_along("add", True, a, axis, direction, exclusive, out, dtype, compensated, reset, labels)


def nancumprod(a: Any, axis: Optional[int] = None, *, direction: Union[Direction, str] = "increasing",
               exclusive: bool = False, dtype: Any = None, out: Optional[np.ndarray] = None,
               reset: Any = None, labels: Any = None) -> np.ndarray:
    """Cumulative product counting NaN as one, as :func:`numpy.nancumprod`, with the flags of :func:`cumprod`.

    Examples
    --------
    >>> import numpy as np
    >>> import simdscan
    >>> simdscan.nancumprod([2.0, np.nan, 3.0])
    array([2., 2., 6.])
    """
    return scan_along("multiply", True, a, axis, direction, exclusive, out, dtype, False, reset, labels)
