#!/usr/bin/env bash
# Installs the Debian packages CI needs, from the machine's own configured apt sources. Idempotent: a rerun on a
# machine that has everything changes nothing and touches no network. Usage: .ci/install-packages.sh [PACKAGE...]:
# with no argument, everything below; with some, only those (.ci/arm64-check.sh and .ci/windows-check.sh, run alone).
#   - a C++ compiler and make, Python's venv and headers when the interpreter lacks them;
#   - libxsimd-dev (Debian 12: xsimd 8.1.0), the system xsimd of CI's "installed xsimd" build;
#   - clang and libclang-rt-14-dev (its sanitizer runtimes), for CI's Clang sanitizer build; g++-aarch64-linux-gnu
#     and qemu-user, for the arm64 (NEON) core check;
#     g++-mingw-w64-x86-64-posix, for the Windows core check;
#   - ccache, which the fresh-machine check's second build (the README's test command, after its install command)
#     takes its objects from.
# The newer xsimd that CI also builds against comes with the `pythran` package from PyPI (the build backend asks for
# it where no xsimd is installed: build_backend/simdscan_build_backend.py).
set -euo pipefail

SUDO=()
if [ "$(id -u)" -ne 0 ]; then SUDO=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
APT=("${SUDO[@]}" apt-get -q -o Dpkg::Use-Pty=0 -o DPkg::Lock::Timeout=300)

installed() { [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]; }

wanted=("$@")
if ((! $#)); then
  wanted=(g++ make ccache libxsimd-dev clang libclang-rt-14-dev g++-aarch64-linux-gnu qemu-user g++-mingw-w64-x86-64-posix)
  # python3 may be a pyenv or other non-Debian build; ask Debian for venv/pip/headers only if it lacks them.
  python3 -c 'import ensurepip, venv' 2>/dev/null || wanted+=(python3-venv)
  python3 -m pip --version >/dev/null 2>&1 || wanted+=(python3-pip)
  [ -f "$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)/Python.h" ] \
    || wanted+=(python3-dev)
fi

missing=()
for pkg in "${wanted[@]}"; do
  installed "$pkg" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "install-packages: installing ${missing[*]}"
  "${APT[@]}" update
  "${APT[@]}" install -y --no-install-recommends "${missing[@]}"
fi
((! $#)) || exit 0
echo "install-packages: libxsimd-dev $(dpkg-query -W -f='${Version}' libxsimd-dev)," \
  "$(clang++ --version | head -n 1), $(g++ --version | head -n 1)"
