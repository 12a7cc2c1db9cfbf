#!/usr/bin/env bash
# THE test command (README quick start and .ci/run call this):
#   1. install what the machine needs (scripts/setup.sh: Debian packages, the venv .venv)
#   2. configure + build the C++ library and GoogleTest units in build/ (Ninja, -Werror)
#   3. run the C++ units
#   4. pip-install the Python package into .venv, incrementally from build/python
#   5. run pytest on tests/python (its summary line is printed last)
# Exits non-zero on the first failure.
set -euo pipefail
export PIP_ROOT_USER_ACTION=ignore

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="$ROOT/.venv/bin/python"

JOBS="${SIMT_JOBS:-$(nproc 2>/dev/null || echo 2)}"
BUILD_TYPE="${SIMT_TEST_BUILD_TYPE:-Debug}"
step() { echo; echo "==> $*"; }

step "setup"
bash scripts/setup.sh

step "C++: configure + build (build/, ${BUILD_TYPE}, -Werror)"
cmake -S . -B build -G Ninja \
  -DCMAKE_BUILD_TYPE="${BUILD_TYPE}" \
  -DSIMT_BUILD_TESTS=ON \
  -DSIMT_BUILD_PYTHON=OFF \
  -DSIMT_WERROR=ON
cmake --build build --parallel "${JOBS}"

step "C++: tests"
# The binary directly (same as `ctest --test-dir build --output-on-failure`, which
# runs it as one test): failures in full, then gtest's count of passed tests.
./build/tests/cpp/simt_cpp_tests --gtest_brief=1

# No -Werror here: the same sources already built warning-free above; GCC's -O3
# interprocedural warnings (stringop-*, maybe-uninitialized) have false positives.
step "Python: install (Release, incremental build in build/python)"
CMAKE_BUILD_PARALLEL_LEVEL="${JOBS}" "$PY" -m pip install -q \
  --no-build-isolation --no-deps \
  --config-settings=build-dir=build/python \
  .

step "Python: tests"
"$PY" -m pytest tests/python -q
