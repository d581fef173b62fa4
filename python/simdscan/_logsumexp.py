"""The running log-sum-exp: logcumsumexp, log(cumsum(exp(a))) without overflow or underflow."""

from __future__ import annotations

from typing import Any, Optional, Union

import numpy as np

from . import _core
from ._runtime import Direction


def logcumsumexp(
    a: Any,
    axis: Optional[int] = None,
    *,
    direction: Union[Direction, str] = "increasing",
    exclusive: bool = False,
    dtype: Any = None,
    out: Optional[np.ndarray] = None,
) -> np.ndarray:
    """log(cumsum(exp(a))) along an axis, computed stably, with the flags of :func:`cumsum`.

    Each step adds the larger operand to log1p(exp(-|a - b|)) (``numpy.logaddexp``'s formula), vectorized, so
    nothing overflows or underflows: inputs of magnitude 1e4 give finite results. The running value is kept in
    double precision for float16, float32 and float64 alike, and rounded once per output.

    Parameters
    ----------
    a, axis, direction, exclusive, out
        As :func:`cumsum`. ``-inf`` elements are the identity (exp(-inf) = 0); ``+inf`` gives ``+inf`` from there
        on; NaN propagates; an exclusive scan writes ``-inf`` first.
    dtype : floating data-type, optional
        The dtype to compute and return. Default: the input's, except that integer and bool input is computed and
        returned in float64 (as :func:`numpy.logaddexp` does). Complex: TypeError.

    Examples
    --------
    >>> import numpy as np
    >>> import simdscan
    >>> simdscan.logcumsumexp(np.log([1.0, 2.0, 3.0]))
    array([0.        , 1.09861229, 1.79175947])
    >>> simdscan.logcumsumexp(np.array([1e4, 1e4], dtype=np.float32))
    array([10000.   , 10000.693], dtype=float32)
    >>> simdscan.logcumsumexp([0, 0], exclusive=True)
    array([-inf,   0.])
    """
    return _core.scan("logaddexp", a, axis, direction, exclusive, dtype, out, False, False)
