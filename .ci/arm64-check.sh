#!/usr/bin/env bash
# The arm64 (neon) tier: cross-compiles the core with tests/native/core_check.cpp against each xsimd and runs it
# under qemu-user. Python is not involved: the core's API is checked directly.
# (-Wno-psabi: GCC notes an old ABI change for std::pair arguments inside xsimd 13 on arm64.)
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v aarch64-linux-gnu-g++ >/dev/null || missing+=(g++-aarch64-linux-gnu)
command -v qemu-aarch64 >/dev/null || missing+=(qemu-user)
if ((${#missing[@]})); then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The system xsimd lives in /usr/include beside the host's libc headers, which must not reach the cross compiler.
mkdir -p "$work/xsimd8"
cp -r /usr/include/xsimd "$work/xsimd8/"

for include in "$work/xsimd8" /opt/xsimd13/usr/include; do
  aarch64-linux-gnu-g++ -std=c++17 -O2 -Wall -Wextra -Werror -Wno-psabi -ffp-contract=off -fno-tree-vectorize -static -pthread \
    -DSIMDSCAN_XSIMD_VERSION='"cross"' -Isrc -I"$include" \
    src/simdscan/executor.cpp src/simdscan/dispatch.cpp src/simdscan/thread_pool.cpp \
    src/simdscan/kernels_baseline.cpp tests/native/core_check.cpp -o "$work/core_check"
  printf 'xsimd from %s: ' "$include"
  qemu-aarch64 "$work/core_check"
done
