#!/usr/bin/env bash
# The README's two Set-up commands, the ones CI runs as a new user would (.ci/fresh-machine.sh) and checks in its
# static phase: prints the install command, then the test command, one a line, once README.md in the current
# directory shows each on a line of its own; otherwise fails, naming the one it lacks.
set -euo pipefail

readonly INSTALL_CMD='python -m pip install . && python -m simdscan'
readonly TEST_CMD='python -m pip install ".[test]" && python -m pytest'

for cmd in "$INSTALL_CMD" "$TEST_CMD"; do
  grep -qxF -- "$cmd" README.md || { echo "README.md no longer shows, on a line of its own: $cmd" >&2; exit 1; }
  echo "$cmd"
done
