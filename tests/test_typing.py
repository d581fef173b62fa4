"""Typing: the stubs (_core.pyi, py.typed) and the typed Python of simdscan, seen by ``mypy --strict``.

tests/typing_usage.py uses every public name with realistic types and ``assert_type`` checks; it must pass
``python -m mypy --strict`` and run. A second, deliberately wrong program must fail with the errors the
annotations promise, so that a stub which degraded to ``Any`` cannot pass unnoticed.

mypy is configured by command-line flags only (``--config-file=`` ignores any config file). It reads simdscan
from this checkout's python/ directory (MYPYPATH), the sources a wheel is built from, with
``--follow-imports=silent``: errors inside simdscan's own modules are not reported here, as they are not to a
user of the installed package; only the programs' own errors count.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
USAGE = HERE / "typing_usage.py"
SOURCES = ROOT / "python"


@pytest.fixture(scope="module")
def mypy_cache(request, tmp_path_factory):
    """mypy's cache: kept in pytest's cache directory between runs when there is one."""
    cache = getattr(request.config, "cache", None)
    if cache is not None:
        return Path(cache.mkdir("mypy"))
    return tmp_path_factory.mktemp("mypy-cache")


def run_mypy(target: Path, cache: Path) -> subprocess.CompletedProcess:
    assert (SOURCES / "simdscan" / "py.typed").is_file(), f"no {SOURCES}/simdscan/py.typed"
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "PYTHONMALLOC", "MYPYPATH")}
    env["MYPYPATH"] = str(SOURCES)  # (mypy runs none of simdscan's code: no sanitizer runtime)
    command = [
        sys.executable, "-m", "mypy",
        "--strict",
        "--config-file=",
        "--follow-imports=silent",
        "--show-error-codes",
        "--no-color-output",
        "--cache-dir", str(cache),
        str(target),
    ]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)


@pytest.mark.exhaustive  # mypy takes tens of seconds
def test_usage_passes_mypy_strict(mypy_cache):
    result = run_mypy(USAGE, mypy_cache)
    assert result.returncode == 0, f"mypy --strict {USAGE.name}:\n{result.stdout}{result.stderr}"
    assert "Success: no issues found in 1 source file" in result.stdout


def test_usage_runs(tmp_path):
    """The usage file's plain asserts hold at run time (in a subprocess: it sets the thread count)."""
    result = subprocess.run([sys.executable, "-W", "error", str(USAGE)], cwd=tmp_path, check=False,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("simdscan ")  # its last call: python -m simdscan info


# Each line must draw the error codes named after it.
WRONG = """\
import numpy as np
import numpy.typing as npt
import dask.array as da
import simdscan
import simdscan.dask
x = np.arange(4.0)
simdscan.cumsum(x, direction=1)                      # E: arg-type
simdscan.cumprod(x, axis="0")                        # E: arg-type
simdscan.cumsum(x, 0, "increasing")                  # E: call-arg
simdscan.cumsum(x, out=[0.0, 0.0, 0.0, 0.0])         # E: arg-type
n: str = simdscan.get_num_threads()                  # E: assignment
simdscan.set_num_threads("4")                        # E: arg-type
isas: list[int] = simdscan.supported_isas()          # E: assignment
tier: int = simdscan.isa()                           # E: assignment
version: int = simdscan.__version__                  # E: assignment
simdscan.Direction.SIDEWAYS                          # E: attr-defined
s: str = simdscan.cumsum(x)                          # E: assignment
simdscan.dask.cumsum(da.ones(3), out=None)           # E: call-arg
r: np.ndarray = simdscan.dask.cumprod(da.ones(3))    # E: assignment
simdscan.dask.cumsum(da.ones(3), direction=None)     # E: arg-type
"""


@pytest.mark.exhaustive
def test_wrong_usage_fails_mypy_strict(tmp_path, mypy_cache):
    """The annotations are not Any: each wrong call draws its error, on its own line."""
    wrong = tmp_path / "wrong_usage.py"
    wrong.write_text(WRONG)
    result = run_mypy(wrong, mypy_cache)
    assert result.returncode == 1, result.stdout + result.stderr
    errors: dict[int, set[str]] = {}
    # (By file name, not path: mypy's cache may replay an unchanged file's errors under the path it had before.)
    for match in re.finditer(rf"^.*{wrong.name}:(\d+): error: .*\[([a-z-]+)\]$", result.stdout, re.MULTILINE):
        errors.setdefault(int(match[1]), set()).add(match[2])
    expected = {
        lineno: {line.split("# E:")[1].strip()}
        for lineno, line in enumerate(WRONG.splitlines(), 1)
        if "# E:" in line
    }
    assert errors == expected, f"mypy's errors by line {errors} != expected {expected}:\n{result.stdout}"
