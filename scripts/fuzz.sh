#!/usr/bin/env bash
# The fuzzers of tests/fuzz, each for a bounded time:
#   1. simt_fuzz_compile (libFuzzer + ASan + UBSan, Clang): kernel source through
#      parse -> infer -> emit in every dialect, no device; built in build-fuzz/.
#   2. tests/fuzz/fuzz_kernels.py: mutated kernels and fuzzed launch arguments through
#      the Python package on the cpu device (atheris when installed, else a seeded
#      random run); needs the package installed in .venv (scripts/test.sh does that).
# Usage: bash scripts/fuzz.sh [SECONDS_EACH]   (default 120; $SIMT_FUZZ_SEED, default 1)
# What a fuzzer finds interesting beyond the seeds goes to build-fuzz/corpus-*/ (kept
# between local runs, never committed); a crashing input to build-fuzz/artifacts/.
# Replay one: ./build-fuzz/tests/fuzz/simt_fuzz_compile build-fuzz/artifacts/crash-...
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SECONDS_EACH="${1:-120}"
SEED="${SIMT_FUZZ_SEED:-1}"
JOBS="${SIMT_JOBS:-$(nproc 2>/dev/null || echo 2)}"
PY="${SIMT_PYTHON_BIN:-$ROOT/.venv/bin/python}"
BUILD=build-fuzz
CXX_FOR_FUZZ="${SIMT_FUZZ_CXX:-clang++}"

echo "==> fuzz: build simt_fuzz_compile ($BUILD, $CXX_FOR_FUZZ, libFuzzer + ASan + UBSan)"
cmake -S . -B "$BUILD" -G Ninja \
  -DCMAKE_CXX_COMPILER="$CXX_FOR_FUZZ" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSIMT_BUILD_FUZZERS=ON \
  -DSIMT_BUILD_TESTS=OFF \
  -DSIMT_BUILD_PYTHON=OFF \
  -DSIMT_ENABLE_CPU_BACKEND=OFF \
  -DSIMT_WERROR=ON >/dev/null
cmake --build "$BUILD" --target simt_fuzz_compile --parallel "$JOBS"

mkdir -p "$BUILD/corpus-compile" "$BUILD/corpus-kernels" "$BUILD/artifacts"
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

# libFuzzer prints a line per new input: keep that in a log, and show its end (all of
# the report on a failure).
run_logged() {
  local log="$1"
  shift
  if "$@" >"$log" 2>&1; then
    tail -n 8 "$log"
  else
    tail -n 150 "$log"
    echo "==> fuzz: FAILED (the whole log: $log; the input: $BUILD/artifacts/)"
    return 1
  fi
}

echo "==> fuzz: simt_fuzz_compile for ${SECONDS_EACH}s (seed $SEED)"
# New units go to the first directory; the committed seeds are only read.
run_logged "$BUILD/fuzz_compile.log" "./$BUILD/tests/fuzz/simt_fuzz_compile" \
  -max_total_time="$SECONDS_EACH" -seed="$SEED" -timeout=10 -rss_limit_mb=2048 \
  -dict=tests/fuzz/compile.dict -artifact_prefix="$BUILD/artifacts/" -print_final_stats=1 \
  "$BUILD/corpus-compile" tests/fuzz/corpus/compile

echo "==> fuzz: tests/fuzz/fuzz_kernels.py for ${SECONDS_EACH}s (seed $SEED)"
if "$PY" -c "import atheris" 2>/dev/null; then
  # -timeout: a case compiles up to a dozen kernels with the CPU backend's Clang.
  run_logged "$BUILD/fuzz_kernels.log" "$PY" tests/fuzz/fuzz_kernels.py \
    --seconds "$SECONDS_EACH" -seed="$SEED" -timeout=60 -rss_limit_mb=4096 \
    -artifact_prefix="$BUILD/artifacts/" -print_final_stats=1 "$BUILD/corpus-kernels"
else
  echo "(atheris is not installed: the seeded random run instead)"
  run_logged "$BUILD/fuzz_kernels.log" "$PY" tests/fuzz/fuzz_kernels.py --random \
    --seconds "$SECONDS_EACH" --seed "$SEED"
fi
