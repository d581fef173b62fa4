"""Shared pytest configuration for the simdscan test suite.

Hypothesis profiles: "quick" (25 examples, the default selection's), "default"
(100, with --exhaustive) and "ci" (2000), all without deadline; choose with the
environment variable HYPOTHESIS_PROFILE.

The tests marked ``slow`` (arrays of several GB, long stress runs) are skipped
unless pytest is given ``--run-slow``; CI's fresh-machine phase passes it (through
PYTEST_ADDOPTS), so that CI runs every one of them.

By default a parametrized test runs a covering selection of its cases: every value
of every parameter that names kinds (at most 16 values: functions, dtypes, layouts,
flags) at least once (the README's test command, a few minutes on two cores);
``--exhaustive`` runs every case (CI's exhaustive run passes it); ``--exhaustive
--after-default`` every case the default run left out, for a run that follows
it (CI's does): the slow tests, and the property tests and differential seeds
again, under the longer Hypothesis profile and seed count such a run gives.
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
settings.register_profile("quick", max_examples=25, **_COMMON)
settings.register_profile("default", max_examples=100, **_COMMON)
settings.register_profile("ci", max_examples=2000, **_COMMON)


def pytest_configure(config):
    # Unless named: the default selection's short profile, every case's the default one.
    profile = "default" if config.getoption("--exhaustive") else "quick"
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", profile))


SLOW_REASON = "slow: allocates several GB or runs long; run with --run-slow (only them: --run-slow -m slow)"


def pytest_addoption(parser):
    parser.addoption("--run-slow", action="store_true", default=False,
                     help="also run the tests marked slow (arrays of several GB, long stress runs)")
    parser.addoption("--exhaustive", action="store_true", default=False,
                     help="run every case of each parametrized test, not a selection that takes every value of "
                          "each parameter naming kinds at least once")
    parser.addoption("--after-default", action="store_true", default=False,
                     help="with --exhaustive: leave out the tests the default run has run (property tests and "
                          "differential seeds excepted), for a run that follows the default one")
    # tests/test_differential.py: how many seeds a family runs (also SIMDSCAN_DIFFERENTIAL_CASES), or one seed only
    parser.addoption("--differential-cases", type=int, default=None, help="seeds 0..N-1 for each differential family")
    parser.addoption("--differential-seed", type=int, default=None, help="only this seed of each differential family")


def parameter_values(case):
    """A case's (parameter, value) pairs; a value that cannot be hashed is known by its identity."""
    pairs = set()
    for name, value in case.callspec.params.items():
        try:
            hash(value)
        except TypeError:
            value = id(value)
        pairs.add((name, type(value).__name__, value))
    return pairs


# A parameter of at most this many values, each a name, a number, a flag, a dtype or a function, names kinds
# (functions, dtypes, layouts, flags, directions, axes): the default selection takes each of them. Tables of cases
# (shapes, chunks, tuples of arguments) and longer lists are taken where those cases fall.
KINDS_AT_MOST = 16
KIND_TYPES = (str, bool, int, float, type(None), np.dtype, type)


def covering_cases(cases):
    """Cases of one parametrized test, chosen greedily until each value of each parameter that names kinds is taken
    at least once: the case taking the most values not yet taken first, the earlier on ties."""
    values = [parameter_values(case) for case in cases]
    counts, tables = {}, set()
    for case in cases:
        for name, value in case.callspec.params.items():
            if not isinstance(value, KIND_TYPES) and not callable(value):
                tables.add(name)
    for name, *_ in set().union(*values):
        counts[name] = counts.get(name, 0) + 1
    # (Every differential seed: their number is that module's own, --differential-cases.)
    untaken = {value for value in set().union(*values)
               if (counts[value[0]] <= KINDS_AT_MOST and value[0] not in tables) or value[0] == "seed"}
    chosen = [cases[0]]
    untaken -= values[0]
    while untaken:
        best = max(range(len(cases)), key=lambda k: len(untaken & values[k]))
        chosen.append(cases[best])
        untaken -= values[best]
    return chosen


def default_selection(items):
    """The parametrized cases the default selection runs, and those it leaves out (the tests marked exhaustive)."""
    by_test = {}
    for item in items:
        if hasattr(item, "callspec"):
            by_test.setdefault((item.path, item.originalname, item.cls), []).append(item)
    kept = {id(case) for cases in by_test.values() for case in covering_cases(cases)}
    return [item for item in items if (hasattr(item, "callspec") and id(item) not in kept)
            or item.get_closest_marker("exhaustive") is not None]


def runs_again_after_default(item):
    """A test that a run after the default one takes again: a slow one (the default run skips them), a property test
    (the longer profile finds more) or a differential seed (the default run's seeds are fewer, numbered as these)."""
    return (item.get_closest_marker("slow") is not None or getattr(item.obj, "is_hypothesis_test", False)
            or (hasattr(item, "callspec") and "seed" in item.callspec.params))


def deselect(config, items, left_out):
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        left_out_ids = {id(item) for item in left_out}
        items[:] = [item for item in items if id(item) not in left_out_ids]


def pytest_collection_modifyitems(config, items):
    if not config.getoption("--exhaustive"):
        deselect(config, items, default_selection(items))
    elif config.getoption("--after-default"):
        not_default = {id(item) for item in default_selection(items)}
        deselect(config, items, [item for item in items
                                 if id(item) not in not_default and not runs_again_after_default(item)])
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason=SLOW_REASON)
    for item in items:
        if item.get_closest_marker("slow") is not None:
            item.add_marker(skip)


def pytest_report_header(config):
    if not config.getoption("--exhaustive"):
        return "simdscan: each parametrized test's covering selection of cases (every case: --exhaustive)"
    return None


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
