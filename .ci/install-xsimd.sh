#!/usr/bin/env bash
# Installs what building and testing simdscan needs on Debian 12 (bookworm). Idempotent: a rerun on a
# machine that already has everything changes nothing and touches no network.
#   - apt: a C++ compiler, make, Python's venv and headers, and libxsimd-dev 8.1.0 (the system xsimd);
#   - Debian 13's libxsimd-dev 13.2.0 and the xtl-dev it depends on, unpacked into /opt/xsimd13 without
#     adding trixie to the system's apt sources; select them with CMAKE_PREFIX_PATH=/opt/xsimd13/usr.
# The Python build dependencies (scikit-build-core, pybind11, numpy, pytest, hypothesis) come from PyPI
# through pip when the package is installed.
set -euo pipefail

readonly XSIMD8_VERSION=8.1.0
readonly XSIMD13_VERSION=13.2.0
readonly XSIMD13_PREFIX=${XSIMD13_PREFIX:-/opt/xsimd13}

SUDO=()
if [ "$(id -u)" -ne 0 ]; then SUDO=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
APT=("${SUDO[@]}" apt-get -q -o Dpkg::Use-Pty=0 -o DPkg::Lock::Timeout=300)

pkg_version() {  # the installed version of a Debian package, or nothing
  [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ] || return 0
  dpkg-query -W -f='${Version}' "$1"
}

apt_updated=false
apt_update_once() {
  if ! $apt_updated; then "${APT[@]}" update; apt_updated=true; fi
}

# --- system packages -------------------------------------------------------------------------------
wanted=(g++ make libxsimd-dev)
# python3 may be a pyenv or other non-Debian build; ask Debian for venv/pip/headers only if it lacks them.
python3 -c 'import ensurepip, venv' 2>/dev/null || wanted+=(python3-venv)
python3 -m pip --version >/dev/null 2>&1 || wanted+=(python3-pip)
[ -f "$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)/Python.h" ] \
  || wanted+=(python3-dev)

missing=()
for pkg in "${wanted[@]}"; do
  [ -n "$(pkg_version "$pkg")" ] || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-xsimd: installing ${missing[*]}"
  apt_update_once
  "${APT[@]}" install -y --no-install-recommends "${missing[@]}"
fi

installed=$(pkg_version libxsimd-dev)
case $installed in
  "$XSIMD8_VERSION"-*) echo "install-xsimd: system libxsimd-dev $installed" ;;
  *) echo "install-xsimd: expected system libxsimd-dev $XSIMD8_VERSION, found '$installed'" >&2; exit 1 ;;
esac

# --- xsimd 13 from Debian 13, beside the system one -----------------------------------------------
# Debian 13's libxsimd-dev depends on xtl-dev, and its CMake config requires xtl (find_dependency), so
# both are unpacked into the same prefix, as `apt-get install libxsimd-dev` on Debian 13 would install.
xsimd13_version() {
  sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' \
    "$XSIMD13_PREFIX/usr/share/cmake/xsimd/xsimdConfigVersion.cmake" 2>/dev/null || true
}
xsimd13_ready() {
  [ "$(xsimd13_version)" = "$XSIMD13_VERSION" ] && [ -f "$XSIMD13_PREFIX/usr/share/cmake/xtl/xtlConfig.cmake" ]
}

if ! xsimd13_ready; then
  echo "install-xsimd: fetching Debian 13's libxsimd-dev $XSIMD13_VERSION and xtl-dev into $XSIMD13_PREFIX"
  work=$(mktemp -d /tmp/simdscan-trixie.XXXXXX)
  trap 'rm -rf "$work"' EXIT
  echo "deb http://deb.debian.org/debian trixie main" >"$work/trixie.list"
  mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/deb" "$work/root"
  # Own sources, lists and cache, all under $work: the system's apt configuration and state stay
  # untouched, so this part needs no root and runs apt as the current user.
  TRIXIE=(-o Dir::Etc::SourceList="$work/trixie.list" -o Dir::Etc::SourceParts=/dev/null
          -o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache"
          -o APT::Sandbox::User="$(id -un)")
  apt-get -q "${TRIXIE[@]}" update
  version=$(apt-cache "${TRIXIE[@]}" madison libxsimd-dev \
            | awk -v want="$XSIMD13_VERSION-" '$3 ~ "^"want {print $3; exit}')
  if [ -z "$version" ]; then
    echo "install-xsimd: Debian 13 offers no libxsimd-dev $XSIMD13_VERSION-*" >&2
    apt-cache "${TRIXIE[@]}" madison libxsimd-dev >&2 || true
    exit 1
  fi
  (cd "$work/deb" && apt-get -q "${TRIXIE[@]}" download "libxsimd-dev=$version" xtl-dev)
  for deb in "$work"/deb/*.deb; do dpkg-deb -x "$deb" "$work/root"; done
  "${SUDO[@]}" rm -rf "$XSIMD13_PREFIX"
  "${SUDO[@]}" mkdir -p "$(dirname "$XSIMD13_PREFIX")"
  "${SUDO[@]}" cp -a "$work/root" "$XSIMD13_PREFIX"
  xsimd13_ready || {
    echo "install-xsimd: $XSIMD13_PREFIX lacks xsimd $XSIMD13_VERSION or xtl after unpacking" >&2
    exit 1
  }
fi
echo "install-xsimd: xsimd $XSIMD13_VERSION and xtl at $XSIMD13_PREFIX/usr" \
  "(CMAKE_PREFIX_PATH=$XSIMD13_PREFIX/usr)"
