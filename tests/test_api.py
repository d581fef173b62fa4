"""The small API surface: __version__, the build's xsimd, isa(), Direction, argument names and the signature."""

import inspect

import numpy as np
import pytest

import simdscan
from params import func
from reference import OPS, check_scan

pytestmark = pytest.mark.kernels  # the outcome depends on the ISA tier and the xsimd version: CI runs these per tier


def test_version_is_a_nonempty_string():
    assert isinstance(simdscan.__version__, str) and simdscan.__version__.strip()


def test_build_names_its_xsimd_version_and_source(capsys):
    from simdscan import __main__, _core

    version = tuple(int(part) for part in _core.xsimd_version.split("."))
    assert len(version) == 3 and version >= (8, 1, 0)
    assert _core.xsimd_source in ("installed", "pythran", "directory")  # CMakeLists.txt: SIMDSCAN_XSIMD
    assert __main__.info() == 0
    assert f"xsimd           {_core.xsimd_version} ({_core.xsimd_source})\n" in capsys.readouterr().out


def test_isa_returns_a_nonempty_string():
    isa = simdscan.isa()
    assert isinstance(isa, str) and isa.strip()
    assert simdscan.isa() == isa  # stable


def test_direction_members():
    inc, dec = simdscan.Direction.INCREASING, simdscan.Direction.DECREASING
    assert isinstance(inc, simdscan.Direction)
    assert isinstance(dec, simdscan.Direction)
    assert inc != dec
    assert inc == simdscan.Direction.INCREASING
    assert inc.name == "INCREASING" and dec.name == "DECREASING"


@pytest.mark.parametrize("op", OPS)
def test_direction_members_are_accepted_and_equal_to_strings(op):
    a = np.array([[2, 1, 3, 5], [3, 8, 7, 3]], dtype=np.int32)
    for member, text in ((simdscan.Direction.INCREASING, "increasing"),
                         (simdscan.Direction.DECREASING, "decreasing")):
        for exclusive in (False, True):
            x = func(op)(a, 1, direction=member, exclusive=exclusive)
            y = func(op)(a, 1, direction=text, exclusive=exclusive)
            np.testing.assert_array_equal(x, y, strict=True)
    # the default is increasing
    np.testing.assert_array_equal(func(op)(a, 1), func(op)(a, 1, direction="increasing"), strict=True)


@pytest.mark.parametrize("op", OPS)
def test_argument_names(op):
    """The exact API: a and axis by name too; defaults as documented."""
    a = np.array([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(func(op)(a=a, axis=0), func(op)(a, 0), strict=True)
    got = func(op)(a=a, axis=None, direction="increasing", exclusive=False, dtype=None, out=None)
    check_scan(got, op, a)


def test_signature_when_introspectable():
    """If the functions expose a signature, it is the documented one."""
    for op in OPS:
        try:
            sig = inspect.signature(getattr(simdscan, op))
        except (TypeError, ValueError):
            continue  # builtins without text signature: covered by test_argument_names
        params = list(sig.parameters.values())
        compensated = ["compensated"] if op == "cumsum" else []
        keywords = ["direction", "exclusive", "dtype", "out", *compensated, "reset", "labels"]
        assert [p.name for p in params] == ["a", "axis", *keywords]
        assert [p.kind for p in params[2:]] == [inspect.Parameter.KEYWORD_ONLY] * len(keywords)
