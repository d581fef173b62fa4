"""The running log-sum-exp: logcumsumexp, log(cumsum(exp(a))) without overflow or underflow.

Plain functions of NumPy arrays: simdscan's public ones are made from them in _public.py, by their entries in _ops.OPS
(whose ``fast`` names the calls each body hands straight to ``_core.scan``: keep the two in step)."""

from __future__ import annotations

from typing import Any, Optional, Union

import numpy as np

from ._axes import scan_along
from ._runtime import Direction


def logcumsumexp(a: Any, axis: Optional[int] = None, *, direction: Union[Direction, str] = "increasing",
                 exclusive: bool = False, dtype: Any = None, out: Optional[np.ndarray] = None,
                 reset: Any = None, labels: Any = None) -> np.ndarray:
    """log(cumsum(exp(a))) along an axis, computed stably, with the flags of :func:`cumsum`.

    Block by block (a few hundred elements): the running sum of exp(x - shift) against one shift per block, and
    shift + log(sum) per output, so nothing overflows or underflows: inputs of magnitude 1e4 give finite results.
    float16 and float32 are summed in float32 within a block (within about 1e-7 of ``|result| + 1``), float64 in
    float64; the running value between blocks is kept in double precision. The columns along an outer axis and the
    groups of ``labels``, which take their elements one at a time, each keep a compensated double sum of
    exp(x - shift) against a shift of their own: within 2.5e-15 of ``|result| + 1`` in float64 as the blocks are,
    and a group has the bits of the group gathered and scanned with one label, not of its block-by-block scan.

    Parameters
    ----------
    a, axis, direction, exclusive, out, reset, labels
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
    return scan_along("logaddexp", False, a, axis, direction, exclusive, out, dtype, False, reset, labels)
