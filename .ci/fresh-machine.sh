#!/usr/bin/env bash
# The README's two commands as a new user runs them: a fresh clone of HEAD, a clean venv, and no installed xsimd
# visible, so the build must take xsimd from the `pythran` package (CMakeLists.txt: SIMDSCAN_XSIMD=auto).
# Usage: .ci/fresh-machine.sh VENV CLONE (both created here, left for the caller: .ci/run benchmarks from them).
# The script re-runs itself in a private mount namespace (unshare -m, root) where an empty directory is
# bind-mounted over every installed xsimd header and CMake-config directory under /usr; nothing outside changes.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=$1 clone=$2

die() { printf '\nFRESH-MACHINE CHECK FAILED [%ds]: %s\n' "$SECONDS" "$*" >&2; exit 1; }

if [ -z "${SIMDSCAN_HIDDEN_XSIMD+set}" ]; then
  hidden=$(find /usr -maxdepth 6 -type d \( -path '*/include/xsimd' -o -path '*/cmake/xsimd' \) -print | tr '\n' ' ')
  exec unshare --mount --propagation private -- env SIMDSCAN_HIDDEN_XSIMD="$hidden" bash "$0" "$@"
fi

empty=$(mktemp -d)
for dir in $SIMDSCAN_HIDDEN_XSIMD; do
  mount --bind "$empty" "$dir"
  echo "hidden: $dir"
done
if echo '#include <xsimd/xsimd.hpp>' | g++ -std=c++17 -fsyntax-only -x c++ - 2>/dev/null; then
  die "an installed xsimd is still visible to the compiler"
fi

rm -rf "$venv" "$clone"
# Each pip install builds in a new isolated environment, which makes scikit-build-core clear the build directory: the
# test command would compile what the install command just compiled. An empty ccache serves the second build the first
# one's objects (the first is as cold as on a fresh machine).
export CCACHE_DIR=$(mktemp -d) CMAKE_CXX_COMPILER_LAUNCHER=ccache
git clone -q --no-hardlinks "$PWD" "$clone"  # HEAD: what CI's own clean clone of main holds
python3 -m venv "$venv"
export VIRTUAL_ENV=$venv PATH=$venv/bin:$PATH
unset SKBUILD_BUILD_DIR CMAKE_PREFIX_PATH SIMDSCAN_ISA
cd "$clone"

# The README's commands, read from the README itself.
commands=$(bash .ci/readme-commands.sh) || die "README.md lacks a Set-up command (above)"
install_cmd=${commands%%$'\n'*} test_cmd=${commands#*$'\n'}

echo "+ $install_cmd"
bash -c "$install_cmd" || die "$install_cmd"
source=$(python -c 'import simdscan._core as c; print(c.xsimd_source, c.xsimd_version)')
[ "${source%% *}" = pythran ] || die "the build took xsimd '$source', not the pythran package's headers"
echo "xsimd: $source"

# The test command exactly as a user runs it (one process, no options, the default selection of tests/conftest.py):
# pytest's own time, after the install, within 5 minutes of the reference machine (a 2-core 2.0 GHz Xeon), scaled by
# how much slower this machine runs the same pure-Python loop (REFERENCE_LOOP_S, measured there).
readonly DEFAULT_RUN_LIMIT_S=300 REFERENCE_LOOP_S=0.32
loop_s=$(python -c 'import time
t = time.perf_counter(); sum(i * i for i in range(5_000_000)); print(round(time.perf_counter() - t, 3))')
limit_s=$(python -c "print(round($DEFAULT_RUN_LIMIT_S * max(1.0, $loop_s / $REFERENCE_LOOP_S)))")
log=$(mktemp)
echo "+ $test_cmd   (this machine's loop: ${loop_s}s against ${REFERENCE_LOOP_S}s; limit ${limit_s}s)"
bash -c "$test_cmd" 2>&1 | tee "$log" || die "$test_cmd"
default_s=$(sed -n 's/^=* .* in \([0-9.]*\)s.*=*$/\1/p' "$log" | tail -n 1)
[ -n "$default_s" ] || die "pytest's summary line (its time) is missing from the default run"
echo "default run: ${default_s}s of pytest (limit ${limit_s}s)"
python -c "import sys; sys.exit($default_s > $limit_s)" || die "the default test run took ${default_s}s, past ${limit_s}s"

# Then every case the default run left out: the slow tests and the exhaustive parametrizations are off unless asked
# for (tests/conftest.py), and the property tests and differential seeds run again, longer; this phase is where CI
# runs them, on every core that .ci/run allows (PYTEST_XDIST_AUTO_NUM_WORKERS, which `-n auto` reads).
echo "+ HYPOTHESIS_PROFILE=ci python -m pytest --run-slow --exhaustive --after-default --differential-cases=300 -n auto"
HYPOTHESIS_PROFILE=ci python -m pytest --run-slow --exhaustive --after-default --differential-cases=300 -n auto ||
  die "the exhaustive test run failed"
ccache --show-stats | grep -iE 'hits|misses' || true
