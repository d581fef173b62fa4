#!/usr/bin/env bash
# The arm64 (neon) tier: CMake cross-builds the core and its Python-free check (SIMDSCAN_PYTHON=OFF,
# SIMDSCAN_NATIVE_CHECK=ON: tests/native/core_check.cpp) against each xsimd, the system's and the one in the
# `pythran` package from PyPI, with warnings as errors, and runs the check under qemu-user (on every tier the build
# has and qemu's CPU runs: NEON, the only arm64 one).
set -euo pipefail
cd "$(dirname "$0")/.."

bash .ci/install-packages.sh g++-aarch64-linux-gnu qemu-user libxsimd-dev

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The system xsimd lives in /usr/include beside the host's libc headers, which must not reach the cross compiler.
mkdir -p "$work/xsimd8"
cp -r /usr/include/xsimd "$work/xsimd8/"
python3 -m pip install -q --no-deps --target "$work/pythran" pythran

for include in "$work/xsimd8" "$work/pythran/pythran"; do
  build=$work/build-$(basename "$include")
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_SYSTEM_NAME=Linux \
    -DCMAKE_SYSTEM_PROCESSOR=aarch64 -DCMAKE_CXX_COMPILER=aarch64-linux-gnu-g++ -DCMAKE_EXE_LINKER_FLAGS=-static \
    -DSIMDSCAN_PYTHON=OFF -DSIMDSCAN_NATIVE_CHECK=ON -DSIMDSCAN_WERROR=ON -DSIMDSCAN_XSIMD="$include" >"$build.log" \
    || { cat "$build.log"; exit 1; }
  cmake --build "$build" --target core_check
  printf 'xsimd %s:\n' "$(sed -n 's/.*using xsimd \([0-9.]*\).*/\1/p' "$build.log")"
  qemu-aarch64 "$build/core_check"
done
