"""Shared pytest configuration for the simdscan test suite.

Hypothesis profiles: "default" (100 examples) and "ci" (2000 examples), both
without deadline; choose with the environment variable HYPOTHESIS_PROFILE.

The tests marked ``slow`` (arrays of several GB, long stress runs) are skipped
unless pytest is given ``--run-slow``; CI's fresh-machine phase passes it (through
PYTEST_ADDOPTS), so that CI runs every one of them.
"""

import os
import sys
import warnings
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

import simdscan

# make the NumPy-only oracle (tests/reference.py) importable whatever the
# import mode pytest runs in
_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from params import TESTS_STREAMING_THRESHOLD  # noqa: E402 (importable from here on)

# Hypothesis' pytest plugin imports hypothesis.extra._patching (and through it
# libcst, where installed) only while reporting a *failing* property test; in
# some environments that import emits a DeprecationWarning, which `-W error`
# turns into an INTERNALERROR that aborts the whole run and hides the failure.
# Import it once here, with warnings silenced, so a failure is reported normally.
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    try:
        import hypothesis.extra._patching  # noqa: F401
    except ImportError:
        pass

_COMMON = dict(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("default", max_examples=100, **_COMMON)
settings.register_profile("ci", max_examples=2000, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

SLOW_REASON = "slow: allocates several GB or runs long; run with --run-slow (only them: --run-slow -m slow)"


def pytest_addoption(parser):
    parser.addoption("--run-slow", action="store_true", default=False,
                     help="also run the tests marked slow (arrays of several GB, long stress runs)")
    # tests/test_differential.py: how many seeds a family runs (also SIMDSCAN_DIFFERENTIAL_CASES), or one seed only
    parser.addoption("--differential-cases", type=int, default=None, help="seeds 0..N-1 for each differential family")
    parser.addoption("--differential-seed", type=int, default=None, help="only this seed of each differential family")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason=SLOW_REASON)
    for item in items:
        if item.get_closest_marker("slow") is not None:
            item.add_marker(skip)


@pytest.fixture(autouse=True, scope="session")
def streaming_threshold_for_the_tests():
    """params.TESTS_STREAMING_THRESHOLD on every CPU, whatever its own choice: each test reaches the same paths
    everywhere."""
    saved = simdscan._core.streaming_threshold()
    simdscan._core.select_streaming_threshold(TESTS_STREAMING_THRESHOLD)
    yield TESTS_STREAMING_THRESHOLD
    simdscan._core.select_streaming_threshold(saved)


@pytest.fixture
def rng(request):
    """A NumPy generator seeded from the test's node id (deterministic)."""
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


@pytest.fixture
def restore_thread_count():
    """Tests that change the thread count put it back afterwards."""
    saved = simdscan.get_num_threads()
    yield saved
    simdscan.set_num_threads(saved)
