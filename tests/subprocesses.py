"""Python in a child process that imports the simdscan this process imported, answering in one JSON line."""

import json
import os
import subprocess
import sys

import simdscan


def python_env(**changes):
    """os.environ with `changes` applied (None removes), importing the simdscan this process imported."""
    env = dict(os.environ)
    for key, value in changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(simdscan.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([package_root] + [p for p in [env.get("PYTHONPATH")] if p])
    return env


def run_python(code, **env_changes):
    return subprocess.run(
        [sys.executable, "-c", code],
        env=python_env(**env_changes),
        capture_output=True,
        text=True,
        timeout=120,
    )


def last_json_line(proc):
    assert proc.returncode == 0, f"subprocess failed ({proc.returncode}):\n{proc.stderr}"
    return json.loads(proc.stdout.strip().splitlines()[-1])
