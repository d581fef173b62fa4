"""The build backend's one decision (build_backend/simdscan_build_backend.py): pythran is a build requirement exactly
when CMake will take xsimd from it."""

import importlib.util
import sys
import types
from pathlib import Path

import pytest

BACKEND = Path(__file__).resolve().parents[1] / "build_backend" / "simdscan_build_backend.py"
SKBUILD_HOOKS = ("build_editable", "build_sdist", "build_wheel", "get_requires_for_build_sdist",
                 "prepare_metadata_for_build_editable", "prepare_metadata_for_build_wheel")


@pytest.fixture
def backend(monkeypatch, tmp_path):
    """The backend module over a stand-in scikit_build_core.build (not a test dependency) whose wheel and editable
    hooks ask for ["skbuild-extra"], with no xsimd in the system prefixes or the environment."""
    stand_in = types.ModuleType("scikit_build_core.build")
    for name in SKBUILD_HOOKS:
        setattr(stand_in, name, lambda *args, **kwargs: None)
    stand_in.get_requires_for_build_wheel = lambda config_settings=None: ["skbuild-extra"]
    stand_in.get_requires_for_build_editable = lambda config_settings=None: ["skbuild-extra"]
    monkeypatch.setitem(sys.modules, "scikit_build_core", types.ModuleType("scikit_build_core"))
    monkeypatch.setitem(sys.modules, "scikit_build_core.build", stand_in)
    spec = importlib.util.spec_from_file_location("simdscan_build_backend_under_test", BACKEND)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "SYSTEM_PREFIXES", (tmp_path / "usr",))
    for name in ("CMAKE_PREFIX_PATH", "SKBUILD_CMAKE_DEFINE", "SKBUILD_CMAKE_ARGS", "CMAKE_ARGS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere" / "bin"))
    return module


def install_xsimd_config(prefix: Path, config_dir: str = "lib/x86_64-linux-gnu/cmake/xsimd") -> None:
    directory = prefix / config_dir
    directory.mkdir(parents=True)
    (directory / "xsimdConfig.cmake").write_text("# stand-in\n")


def test_no_installed_xsimd_asks_for_pythran(backend):
    assert backend.get_requires_for_build_wheel() == ["skbuild-extra", backend.PYTHRAN_REQUIREMENT]
    assert backend.get_requires_for_build_editable({}) == ["skbuild-extra", backend.PYTHRAN_REQUIREMENT]


@pytest.mark.parametrize("config_dir", ["lib/x86_64-linux-gnu/cmake/xsimd", "lib/cmake/xsimd", "share/cmake/xsimd"])
def test_system_xsimd_needs_no_pythran(backend, tmp_path, config_dir):
    install_xsimd_config(tmp_path / "usr", config_dir)
    assert backend.get_requires_for_build_wheel() == ["skbuild-extra"]


def test_an_empty_config_directory_is_no_xsimd(backend, tmp_path):
    # .ci/fresh-machine.sh hides the installed xsimd by mounting an empty directory over its config directory.
    (tmp_path / "usr" / "lib" / "cmake" / "xsimd").mkdir(parents=True)
    assert backend.PYTHRAN_REQUIREMENT in backend.get_requires_for_build_wheel()


def test_prefixes_from_the_environment(backend, tmp_path, monkeypatch):
    install_xsimd_config(tmp_path / "conda", "lib/cmake/xsimd")
    monkeypatch.setenv("PATH", str(tmp_path / "conda" / "bin"))
    assert backend.get_requires_for_build_wheel() == ["skbuild-extra"]
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere" / "bin"))
    monkeypatch.setenv("CMAKE_PREFIX_PATH", str(tmp_path / "conda"))
    assert backend.get_requires_for_build_wheel() == ["skbuild-extra"]


def test_only_bin_directories_of_path_give_prefixes(backend, tmp_path, monkeypatch):
    # CMake takes the parent of a PATH entry named bin or sbin only; a directory merely ending in "bin" is none.
    install_xsimd_config(tmp_path / "tools", "lib/cmake/xsimd")
    monkeypatch.setenv("PATH", str(tmp_path / "tools" / "cabin"))
    assert backend.PYTHRAN_REQUIREMENT in backend.get_requires_for_build_wheel()
    monkeypatch.setenv("PATH", str(tmp_path / "tools" / "sbin"))
    assert backend.get_requires_for_build_wheel() == ["skbuild-extra"]


@pytest.mark.parametrize(
    ("config_settings", "environment", "setting"),
    [
        (None, {}, "auto"),
        ({"cmake.define.SIMDSCAN_XSIMD": "pythran"}, {}, "pythran"),
        ({"cmake.args": ["-DCMAKE_BUILD_TYPE=Release", "-DSIMDSCAN_XSIMD:STRING=system"]}, {}, "system"),
        ({}, {"SKBUILD_CMAKE_DEFINE": "SIMDSCAN_WERROR=ON;SIMDSCAN_XSIMD=/opt/xsimd/include"}, "/opt/xsimd/include"),
        ({}, {"CMAKE_ARGS": "-G Ninja -DSIMDSCAN_XSIMD=pythran"}, "pythran"),
        ({"cmake.define.SIMDSCAN_XSIMD": "system"}, {"CMAKE_ARGS": "-DSIMDSCAN_XSIMD=pythran"}, "system"),
    ],
)
def test_setting(backend, monkeypatch, config_settings, environment, setting):
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert backend.xsimd_setting(config_settings) == setting


@pytest.mark.parametrize(
    ("setting", "installed", "needs"),
    [("pythran", True, True), ("system", False, False), ("/opt/xsimd/include", False, False),
     ("auto", True, False), ("auto", False, True)],
)
def test_needs_pythran(backend, tmp_path, setting, installed, needs):
    if installed:
        install_xsimd_config(tmp_path / "usr")
    assert backend.needs_pythran({"cmake.define.SIMDSCAN_XSIMD": setting}) is needs
