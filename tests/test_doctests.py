"""The examples in simdscan's docstrings run as written (doctest).

simdscan (cumsum, cumprod and the rest of the API), simdscan.dask, simdscan.__main__ (python -m simdscan) and
simdscan._bench (python -m simdscan bench): each module must have examples, and every one of them must pass.
"""

import doctest
import importlib

import pytest

MODULES = ["simdscan", "simdscan.dask", "simdscan.__main__", "simdscan._bench"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, monkeypatch):
    monkeypatch.delenv("SIMDSCAN_NUM_THREADS", raising=False)
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS, verbose=False)
    assert result.attempted > 0, f"{name} has no docstring examples"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed (report above)"


def test_cumsum_help_explains_every_flag():
    """help(simdscan.cumsum) documents each parameter and draws the four cases; cumprod points to it."""
    import simdscan

    doc = simdscan.cumsum.__doc__ or ""
    for parameter in ("a : ", "axis : ", "direction : ", "exclusive : ", "dtype : ", "out : "):
        assert f"\n    {parameter}" in doc, f"cumsum's docstring does not describe {parameter.strip(' :')}"
    for case in ("increasing, inclusive", "increasing, exclusive", "decreasing, inclusive", "decreasing, exclusive"):
        assert case in doc, f"cumsum's docstring lacks the case {case!r}"
    assert "[9, 7, 4, 0]" in doc and "[24, 12, 4, 1]" in doc
    assert "help(simdscan.cumsum)" in (simdscan.cumprod.__doc__ or "")
