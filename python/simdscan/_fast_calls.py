"""The public scans as builtins: each call that its Python function's body hands straight to the core is made in
C++ without the Python frame, every other call (and every error) by the function itself."""

from __future__ import annotations

import inspect
from typing import Any, Callable, Tuple, TypeVar, cast

import numpy as np

from . import _core, _runtime  # (_runtime initialises the core)
from ._array_types import takes_array_types

Function = TypeVar("Function", bound=Callable[..., Any])

def fast_calls(op: str, keywords: Tuple[str, ...], skip_nan: bool = False) -> Callable[[Function], Function]:
    """Decorates a public scan whose body, for an ``axis`` that is not a tuple (or is a pair that scan_axes would hand
    the core as it is: _core.cpp's is_checked_pair) and only ``keywords`` among its keyword arguments, amounts to
    ``_core.scan(op, a, axis, direction, exclusive, dtype, out, compensated, skip_nan)`` (None and False for the ones
    it lacks: _axes.scan_along). The result is a Python front (_ndarrays_to) with the function's name, signature,
    defaults and docstring: it calls a builtin made by _core.fast_scan for an exact ndarray ``a``, and the function
    (which takes subclasses, masked and Dask arrays: _array_types) for anything else. A 16-element cumsum took 460 ns
    through the Python function, 660 ns with its flags as ``**kwargs`` (Zen 4); 296-320 ns through the builtin alone
    and 490-650 ns through the front (a shared 2-core machine, 2026-11-28)."""

    def make(function: Function) -> Function:
        signature = inspect.signature(function)
        defaults = {name: signature.parameters[name].default for name in ("axis", *keywords)}
        bare = signature.replace(parameters=[p.replace(annotation=p.empty) for p in signature.parameters.values()],
                                 return_annotation=signature.empty)
        doc = f"{function.__name__}{bare}\n--\n\n{function.__doc__ or ''}"
        general = takes_array_types(function)
        fast = _core.fast_scan(general, op, defaults, skip_nan, doc)
        return cast(Function, _ndarrays_to(fast, general, bare, keywords, function))

    return make


def _ndarrays_to(fast: Callable[..., Any], general: Callable[..., Any], signature: inspect.Signature,
                 keywords: Tuple[str, ...], function: Callable[..., Any]) -> Callable[..., Any]:
    """A Python function of ``signature`` that hands an exact ndarray, with only ``keywords`` among its keyword
    arguments away from their defaults, to ``fast``, and any other call to ``general``: the core's fast path would
    read a subclass, masked or Dask array through numpy.asarray and lose what it is. Written out as source because
    forwarding ``*args, **kwargs`` cost a 16-element call about 300 ns more."""
    parameters = list(signature.parameters.values())
    defaults = {p.name: p.default for p in parameters if p.default is not p.empty}
    listed = []
    for p in parameters:
        if p.kind is p.KEYWORD_ONLY and "*" not in listed:
            listed.append("*")
        listed.append(f"{p.name}=_defaults[{p.name!r}]" if p.name in defaults else p.name)

    def passing(names: list[str]) -> str:
        return ", ".join(name if name in ("a", "axis") else f"{name}={name}" for name in names)

    names = [p.name for p in parameters]
    plain = " and ".join(["type(a) is _ndarray"] + [f"{name} is _defaults[{name!r}]" for name in names[2:]
                                                    if name not in keywords])
    source = (f"def {function.__name__}({', '.join(listed)}):\n"
              f"    if {plain}:\n        return _fast({passing(['a', 'axis', *keywords])})\n"
              f"    return _general({passing(names)})\n")
    namespace: dict[str, Any] = {"_defaults": defaults, "_ndarray": np.ndarray, "_fast": fast, "_general": general}
    exec(source, namespace)  # noqa: S102 (source made above from the signature's own names)
    front = namespace[function.__name__]
    front.__doc__ = function.__doc__
    front.__qualname__ = function.__qualname__
    front.__module__ = function.__module__
    front.__wrapped__ = function
    return cast(Callable[..., Any], front)
