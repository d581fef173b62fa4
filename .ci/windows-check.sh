#!/usr/bin/env bash
# Windows x86-64: CMake cross-builds the core, every ISA tier included, and its Python-free check
# (tests/native/core_check.cpp) with Debian's mingw-w64 GCC and warnings as errors, against the system xsimd.
# Compile and link only: nothing here runs Windows programs, so at -O1, the quicker build (the Linux builds' -O3 meets
# the warnings that depend on optimisation).
set -euo pipefail
cd "$(dirname "$0")/.."

bash .ci/install-packages.sh g++-mingw-w64-x86-64-posix libxsimd-dev

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/xsimd8"
cp -r /usr/include/xsimd "$work/xsimd8/"  # not -I/usr/include: the host's libc headers must stay out

build=$work/build
# The posix-threads flavour of mingw-w64: std::thread and std::mutex need it.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG" \
  -DCMAKE_SYSTEM_NAME=Windows -DCMAKE_SYSTEM_PROCESSOR=AMD64 -DCMAKE_CXX_COMPILER=x86_64-w64-mingw32-g++-posix \
  -DCMAKE_EXE_LINKER_FLAGS=-static \
  -DSIMDSCAN_PYTHON=OFF -DSIMDSCAN_NATIVE_CHECK=ON -DSIMDSCAN_WERROR=ON -DSIMDSCAN_XSIMD="$work/xsimd8" >"$build.log" \
  || { cat "$build.log"; exit 1; }
cmake --build "$build" --target core_check
file "$build/core_check.exe"
