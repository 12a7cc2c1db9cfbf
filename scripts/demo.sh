#!/usr/bin/env bash
# The README's demo command: installs what the machine needs (scripts/setup.sh:
# Debian packages and the project venv .venv), builds and installs simt into
# .venv, then runs the demo.
set -euo pipefail
export PIP_ROOT_USER_ACTION=ignore
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="$ROOT/.venv/bin/python"
bash scripts/setup.sh
CMAKE_BUILD_PARALLEL_LEVEL="${SIMT_JOBS:-$(nproc 2>/dev/null || echo 2)}" \
  "$PY" -m pip install -q --no-build-isolation --no-deps --config-settings=build-dir=build/python .
"$PY" examples/demo.py "$@"
"$PY" examples/codegen_demo.py --short
echo
echo "simt is installed in $ROOT/.venv: 'source .venv/bin/activate', then 'python your_script.py'."
