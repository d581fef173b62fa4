"""The build backend: scikit-build-core's, asking for `pythran` only when CMake will not find an installed xsimd.

CMakeLists.txt (SIMDSCAN_XSIMD) takes xsimd from an installed copy (Debian's libxsimd-dev, conda-forge's xsimd) or
else from the headers bundled in the `pythran` package; pythran brings NumPy and four more packages into the
isolated build environment, seconds of every build that has an installed xsimd and never reads them. So pythran is
a requirement of the build when SIMDSCAN_XSIMD is `pythran`, or `auto` (the default) with no xsimd CMake config in
the prefixes CMake searches; `system` and a directory need none.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from scikit_build_core.build import (  # noqa: F401  (the hooks this backend passes on unchanged)
    build_editable,
    build_sdist,
    build_wheel,
    get_requires_for_build_sdist,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)
from scikit_build_core.build import get_requires_for_build_editable as _skbuild_requires_editable
from scikit_build_core.build import get_requires_for_build_wheel as _skbuild_requires_wheel

PYTHRAN_REQUIREMENT = "pythran>=0.16"

# -DSIMDSCAN_XSIMD=VALUE or SIMDSCAN_XSIMD[:TYPE]=VALUE, as CMAKE_ARGS, SKBUILD_CMAKE_ARGS/DEFINE, cmake.args write it.
_SETTING = re.compile(r"SIMDSCAN_XSIMD(?::\w+)?=([^\s;\"']+)")
# Where find_package(xsimd CONFIG) looks under a prefix (CMake's search procedure, the directories xsimd installs to).
_CONFIG_DIRS = ("lib/cmake/xsimd", "lib64/cmake/xsimd", "lib/*/cmake/xsimd", "share/cmake/xsimd")
_CONFIG_FILES = ("xsimdConfig.cmake", "xsimd-config.cmake")
# Fewer prefixes than CMake searches, never more: an xsimd found here and not by CMake would fail the build.
SYSTEM_PREFIXES = (Path("/usr/local"), Path("/usr"))


def xsimd_setting(config_settings: dict | None) -> str:
    """SIMDSCAN_XSIMD as this build sets it: config settings first, then the environment; `auto` when unset."""
    settings = config_settings or {}
    direct = settings.get("cmake.define.SIMDSCAN_XSIMD")
    if isinstance(direct, str):
        return direct
    texts = [" ".join(value) if isinstance(value, list) else str(value) for value in settings.values()]
    texts += [os.environ.get(name, "") for name in ("SKBUILD_CMAKE_DEFINE", "SKBUILD_CMAKE_ARGS", "CMAKE_ARGS")]
    for text in texts:
        match = _SETTING.search(text)
        if match:
            return match.group(1)
    return "auto"


def search_prefixes() -> list[Path]:
    """Prefixes find_package searches: CMAKE_PREFIX_PATH, the parent of each PATH entry in bin, the system's."""
    prefixes = [Path(p) for p in os.environ.get("CMAKE_PREFIX_PATH", "").split(os.pathsep) if p]
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        if Path(entry).name in ("bin", "sbin"):
            prefixes.append(Path(entry).parent)
    return prefixes + list(SYSTEM_PREFIXES)


def has_installed_xsimd() -> bool:
    """Whether an xsimd CMake config lies where CMakeLists.txt's find_package(xsimd CONFIG) finds it."""
    for prefix in search_prefixes():
        for pattern in _CONFIG_DIRS:
            for directory in prefix.glob(pattern):
                if any((directory / name).is_file() for name in _CONFIG_FILES):
                    return True
    return False


def needs_pythran(config_settings: dict | None) -> bool:
    setting = xsimd_setting(config_settings)
    if setting == "pythran":
        return True
    if setting == "auto":
        return not has_installed_xsimd()
    return False  # `system`, or a directory holding xsimd/xsimd.hpp


def _pythran_if_needed(config_settings: dict | None) -> list[str]:
    return [PYTHRAN_REQUIREMENT] if needs_pythran(config_settings) else []


def get_requires_for_build_wheel(config_settings: dict | None = None) -> list[str]:
    return _skbuild_requires_wheel(config_settings) + _pythran_if_needed(config_settings)


def get_requires_for_build_editable(config_settings: dict | None = None) -> list[str]:
    return _skbuild_requires_editable(config_settings) + _pythran_if_needed(config_settings)
