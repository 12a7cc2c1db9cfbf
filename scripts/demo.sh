#!/usr/bin/env bash
# The README's demo command: installs what the machine needs, builds and
# installs simt, then runs the demo.
set -euo pipefail
export PIP_ROOT_USER_ACTION=ignore
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh
CMAKE_BUILD_PARALLEL_LEVEL="${SIMT_JOBS:-$(nproc 2>/dev/null || echo 2)}" \
  python3 -m pip install -q --no-build-isolation --no-deps -Cbuild-dir=build/python .
python3 examples/demo.py "$@"
python3 examples/codegen_demo.py --short
