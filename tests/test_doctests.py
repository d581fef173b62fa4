"""The examples in simdscan's docstrings run as written (doctest).

simdscan (cumsum, cumprod and the rest of the API), simdscan.dask, simdscan.__main__ (python -m simdscan), and
the benchmark's modules in benchmarks/ of the source tree (imported from there, as `python benchmarks/bench.py`
does: they are no part of the package): each module must have examples, and every one of them must pass.
"""

import doctest
import importlib
import re
from pathlib import Path

import numpy as np
import pytest

import simdscan

MODULES = ["simdscan", "simdscan.dask", "simdscan.__main__"]
BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
BENCHMARK_MODULES = ["workloads", "bench", "summed_area"]
ROOT = Path(__file__).resolve().parent.parent
PAGES = ["README.md", "docs/guide.md", "docs/accuracy.md", "docs/design.md"]


def check_examples(name, module):
    # np and simdscan are at hand in every example, as in NumPy's doctests.
    result = doctest.testmod(module, extraglobs={"np": np, "simdscan": simdscan},
                             optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS, verbose=False)
    assert result.attempted > 0, f"{name} has no docstring examples"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed (report above)"


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, monkeypatch):
    monkeypatch.delenv("SIMDSCAN_NUM_THREADS", raising=False)
    check_examples(name, importlib.import_module(name))


@pytest.mark.parametrize("name", BENCHMARK_MODULES)
def test_benchmark_docstring_examples(name, monkeypatch):
    monkeypatch.delenv("SIMDSCAN_NUM_THREADS", raising=False)
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # the benchmark's modules import each other by their file names
    check_examples(f"benchmarks/{name}.py", importlib.import_module(name))


@pytest.mark.parametrize("page", PAGES)
def test_page_examples(page):
    """The ``>>>`` examples of the README and the docs' pages run as written (their code fences taken out, np and
    simdscan at hand); the result cache size that one of them sets is restored after."""
    path = ROOT / page
    text = re.sub(r"^```.*$", "", path.read_text(encoding="utf-8"), flags=re.M)
    test = doctest.DocTestParser().get_doctest(text, {"np": np, "simdscan": simdscan}, page, str(path), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    before = simdscan.get_result_cache_size()
    try:
        result = runner.run(test)
    finally:
        simdscan.set_result_cache_size(before)
    assert result.attempted > 0 and result.failed == 0, f"{result.failed} examples of {page} failed (report above)"


def test_cumsum_help_explains_every_flag():
    """help(simdscan.cumsum) documents each parameter and draws the four cases; cumprod points to it."""
    doc = simdscan.cumsum.__doc__ or ""
    for parameter in ("a : ", "axis : ", "direction : ", "exclusive : ", "dtype : ", "out : "):
        assert f"\n    {parameter}" in doc, f"cumsum's docstring does not describe {parameter.strip(' :')}"
    for case in ("increasing, inclusive", "increasing, exclusive", "decreasing, inclusive", "decreasing, exclusive"):
        assert case in doc, f"cumsum's docstring lacks the case {case!r}"
    assert "[9, 7, 4, 0]" in doc and "[24, 12, 4, 1]" in doc
    assert "help(simdscan.cumsum)" in (simdscan.cumprod.__doc__ or "")
