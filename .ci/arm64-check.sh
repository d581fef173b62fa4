#!/usr/bin/env bash
# The arm64 (neon) tier: CMake cross-builds the core and its Python-free check (SIMDSCAN_PYTHON=OFF,
# SIMDSCAN_NATIVE_CHECK=ON: tests/native/core_check.cpp) against the xsimd in the `pythran` package from PyPI (the
# wheels' route; Debian's xsimd 8.1 is built and tested on x86-64 in the installed-xsimd phase), with warnings as
# errors, and runs the check under qemu-user (on every tier the build has and qemu's CPU runs: NEON, the only arm64
# one).
set -euo pipefail
cd "$(dirname "$0")/.."

bash .ci/install-packages.sh g++-aarch64-linux-gnu qemu-user

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m pip install -q --no-deps --target "$work/pythran" pythran

build=$work/build
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_SYSTEM_NAME=Linux \
  -DCMAKE_SYSTEM_PROCESSOR=aarch64 -DCMAKE_CXX_COMPILER=aarch64-linux-gnu-g++ -DCMAKE_EXE_LINKER_FLAGS=-static \
  -DSIMDSCAN_PYTHON=OFF -DSIMDSCAN_NATIVE_CHECK=ON -DSIMDSCAN_WERROR=ON -DSIMDSCAN_XSIMD="$work/pythran/pythran" \
  >"$build.log" || { cat "$build.log"; exit 1; }
cmake --build "$build" --target core_check
printf 'xsimd %s:\n' "$(sed -n 's/.*using xsimd \([0-9.]*\).*/\1/p' "$build.log")"
qemu-aarch64 "$build/core_check"
