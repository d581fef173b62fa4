"""The public scans as builtins: each call that its Python function's body hands straight to the core is made in
C++ without the Python frame, every other call (and every error) by the function itself."""

from __future__ import annotations

import inspect
from typing import Any, Callable

from . import _core, _runtime  # (_runtime initialises the core)
from ._ops import Op


def fast_calls(op: Op, dispatch: Callable[..., Any]) -> Callable[..., Any]:
    """The builtin of ``op``, which has ``op.fast``: its plain function's body, for an ``axis`` that is not a tuple (or
    is a pair that scan_axes would hand the core as it is: _core.cpp's is_checked_pair) and only ``op.fast.keywords``
    among its keyword arguments, amounts to ``_core.scan(op.fast.core, a, axis, direction, exclusive, dtype, out,
    compensated, op.skips_nan)`` (None and False for the ones it lacks: _axes.scan_along), for an exact ndarray ``a``.
    The result is a builtin with the function's name, signature, defaults and docstring (``help`` and
    ``inspect.signature`` show them), which hands every other call, and every input that is not exactly an ndarray, to
    ``dispatch`` (the function taking subclasses, masked and Dask arrays: _array_types); a 16-element cumsum took
    460 ns through the Python function, 660 ns with its flags as ``**kwargs``."""
    assert op.fast is not None, op.name
    function = op.function
    signature = inspect.signature(function)
    defaults = {name: signature.parameters[name].default for name in ("axis", *op.fast.keywords)}
    bare = signature.replace(parameters=[p.replace(annotation=p.empty) for p in signature.parameters.values()],
                             return_annotation=signature.empty)
    doc = f"{function.__name__}{bare}\n--\n\n{function.__doc__ or ''}"
    made: Callable[..., Any] = _core.fast_scan(dispatch, op.fast.core, defaults, op.skips_nan, doc)
    return made
