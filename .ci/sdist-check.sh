#!/usr/bin/env bash
# The source distribution as a user gets it: sdist -> wheel built OFFLINE against the system xsimd -> fresh venv.
# Usage: .ci/sdist-check.sh USER_VENV (the fresh venv of step 4, left for the caller: .ci/run tests it per tier).
#   1. a tools venv with `build`, `auditwheel` and the build-system requirements of pyproject.toml (from PyPI);
#   2. `python -m build --sdist` of this checkout, and a check that the sdist holds what a build needs;
#   3. `pip wheel --no-build-isolation --no-index --no-deps` of that sdist with no network at all (a proxy that
#      refuses every connection) and SIMDSCAN_XSIMD=system, so CMake must take the installed xsimd (Debian:
#      libxsimd-dev; .ci/install-packages.sh installs it); `auditwheel show` must find a manylinux policy for it;
#   4. a fresh venv without system site packages: pip installs the wheel (numpy from PyPI), and from outside the
#      checkout: import, the xsimd the build found, the typing files and no benchmark in the wheel,
#      `python -m simdscan` (demo), `info`; then the checkout's benchmarks/bench.py, one workload, against the wheel.
# The rest happens in one temporary directory, removed on exit; the checkout is left as it was. Exits non-zero
# on any failure. PYTHON picks the interpreter (default python3); CMAKE_PREFIX_PATH, if set, is honoured.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$PWD

user_venv=$1
PYTHON=${PYTHON:-python3}
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_PROGRESS_BAR=off
# PIP_QUIET (set by .ci/run) would hide the build output read below.
unset SKBUILD_BUILD_DIR PIP_NO_INDEX PIP_FIND_LINKS PIP_QUIET PYTHONPATH SIMDSCAN_ISA

step() { printf '\n---- [sdist-check %3ds] %s\n' "$SECONDS" "$*"; }
die() { printf '\nSDIST CHECK FAILED [%ds]: %s\n' "$SECONDS" "$*" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/simdscan-sdist-check.XXXXXX")
trap 'rm -rf "$work"' EXIT

step "tools venv: build, auditwheel + the build-system requirements (PyPI)"
"$PYTHON" -m venv "$work/tools"
tools=$work/tools/bin/python
"$tools" -m pip install -q --upgrade pip build auditwheel
mapfile -t requires < <("$tools" -c 'import build; print("\n".join(sorted(build.ProjectBuilder(".").build_system_requires)))')
((${#requires[@]})) || die "pyproject.toml names no build-system requirements"
"$tools" -m pip install -q "${requires[@]}"
echo "installed: ${requires[*]}"

step "python -m build --sdist"
"$tools" -m build --sdist --no-isolation --outdir "$work/dist" . >"$work/sdist.log" 2>&1 \
  || { tail -n 40 "$work/sdist.log"; die "python -m build --sdist failed"; }
sdists=("$work"/dist/simdscan-*.tar.gz)
((${#sdists[@]} == 1)) && [ -f "${sdists[0]}" ] || die "expected one sdist in $work/dist, found: ${sdists[*]}"
sdist=${sdists[0]}
echo "$(basename "$sdist"): $(du -h "$sdist" | cut -f1)"
tar -tzf "$sdist" | sed 's|^[^/]*/||' >"$work/sdist-files"
for needed in pyproject.toml CMakeLists.txt README.md PKG-INFO build_backend/simdscan_build_backend.py \
              python/simdscan/__init__.py python/simdscan/__main__.py \
              python/simdscan/dask.py python/simdscan/_core.cpp python/simdscan/_arrays.hpp python/simdscan/_core.pyi \
              python/simdscan/py.typed \
              src/simdscan/executor.cpp src/simdscan/operators.cpp src/simdscan/plan.cpp src/simdscan/parallel.cpp src/simdscan/dispatch.cpp \
              src/simdscan/kernels_family.cpp.in src/simdscan/kernels_tier.cpp.in \
              src/simdscan/recurrences/jobs.cpp src/simdscan/recurrences/state_paths.hpp \
              src/simdscan/families/sums.hpp cmake/tiers.cmake cmake/tier_build.cmake; do
  grep -qxF "$needed" "$work/sdist-files" || die "the sdist lacks $needed"
done
if grep -E '^(build|dist|\.ci-venv[^/]*)/|\.(so|o|a|whl)$' "$work/sdist-files"; then
  die "the sdist holds build outputs (above)"
fi
echo "$(wc -l <"$work/sdist-files") files; the build's sources, stubs and py.typed are in"

step "wheel from the sdist, offline (no index, no network), SIMDSCAN_XSIMD=system"
(
  export http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 HTTP_PROXY=http://127.0.0.1:9 \
         HTTPS_PROXY=http://127.0.0.1:9 ALL_PROXY=http://127.0.0.1:9 all_proxy=http://127.0.0.1:9
  unset no_proxy NO_PROXY
  export SKBUILD_BUILD_DIR=$work/build
  "$tools" -m pip wheel -v --no-build-isolation --no-index --no-deps --wheel-dir "$work/wheels" \
    -Ccmake.define.SIMDSCAN_XSIMD=system "$sdist"
) >"$work/wheel.log" 2>&1 || { tail -n 60 "$work/wheel.log"; die "the offline wheel build failed (no installed xsimd?)"; }
built_with=$(sed -n 's/.*simdscan: using xsimd \([0-9][0-9.]*\) (installed).*/\1/p' "$work/wheel.log" | tail -n 1)
[ -n "$built_with" ] || { tail -n 60 "$work/wheel.log"; die "the build log does not say which xsimd it used"; }
wheels=("$work"/wheels/simdscan-*.whl)
((${#wheels[@]} == 1)) && [ -f "${wheels[0]}" ] || die "expected one wheel in $work/wheels, found: ${wheels[*]}"
wheel=${wheels[0]}
echo "$(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB), built against the installed xsimd $built_with"
"$work/tools/bin/auditwheel" show "$wheel" | tee "$work/auditwheel.log"
grep -qE 'manylinux_[0-9]+_[0-9]+_' "$work/auditwheel.log" || die "auditwheel finds no manylinux policy for the wheel"

step "fresh venv (no system site packages): pip install the wheel (numpy from PyPI)"
rm -rf "$user_venv"
"$PYTHON" -m venv "$user_venv"
user=$user_venv/bin/python
"$user" -m pip install -q "$wheel"
"$user" -m pip list 2>/dev/null | grep -iE '^(simdscan|numpy) '

step "import, xsimd, typing files, python -m simdscan (demo, info), benchmarks/bench.py"
cd "$work"  # away from the checkout: only the installed package can be imported
"$user" - "$user_venv" "$built_with" <<'EOF'
import importlib.resources, os, sys

import simdscan
from simdscan import _core

venv, built_with = sys.argv[1:]
where = os.path.realpath(simdscan.__file__)
assert where.startswith(os.path.realpath(venv) + os.sep), f"simdscan imported from {where}, not from {venv}"
assert "dask" not in sys.modules, "import simdscan imported dask"
assert _core.xsimd_version == built_with, f"_core.xsimd_version {_core.xsimd_version!r} != {built_with!r} (build log)"
assert _core.xsimd_source == "installed", f"_core.xsimd_source is {_core.xsimd_source!r}, not 'installed'"
for name in ("py.typed", "_core.pyi", "__main__.py", "dask.py"):
    assert importlib.resources.files("simdscan").joinpath(name).is_file(), f"the wheel lacks simdscan/{name}"
benchmark = [p.name for p in importlib.resources.files("simdscan").iterdir() if "bench" in p.name]
assert not benchmark, f"the wheel ships benchmark code: simdscan/{benchmark}"
assert simdscan.cumsum([1, 2, 3, 4], direction="decreasing", exclusive=True).tolist() == [9, 7, 4, 0]
print(f"simdscan {simdscan.__version__} from {where}: xsimd {_core.xsimd_version}, ISA {simdscan.isa()}")
EOF
"$user" -m simdscan >"$work/demo.out" || die "python -m simdscan failed"
cat "$work/demo.out"
grep -qF "sum  axis 3 decr.  [[11, 9, 8, 5], [21, 18, 10, 3], [21, 12, 6, 4]]" "$work/demo.out" \
  || die "python -m simdscan did not print DirectML's decreasing example"
"$user" -m simdscan info || die "python -m simdscan info failed"
# The checkout's benchmark against the installed wheel (benchmarks/ holds no simdscan), leaving no __pycache__ there.
PYTHONDONTWRITEBYTECODE=1 "$user" "$checkout/benchmarks/bench.py" --only "f32 16" --repeats 1 --min-ms 1 || die "benchmarks/bench.py failed"
[ -z "$(ls -A "$work" | grep -vxE 'tools|dist|build|wheels|sdist.log|sdist-files|wheel.log|auditwheel.log|demo.out')" ] \
  || die "python -m simdscan or the benchmark wrote files into its working directory"

step "sdist check passed: $(basename "$sdist") -> offline $(basename "$wheel") -> fresh venv"
