#!/usr/bin/env bash
# One call on a GPU machine for the array-library and launch targets
# (docs/performance.md, issues 38 and 41): build simt without the CPU backend
# (no LLVM there), run the tests of the paths those targets rebuilt on cuda:0,
# then the benches that print each target's row against CuPy, cuda-python,
# numba-cuda and the driver's floor in one process. Logs go to $OUT.
#   bash bench/run_gpu_targets.sh            # everything, about 8 minutes on an H100
#   STEPS="bench" bash bench/run_gpu_targets.sh   # build + benches only
set -uo pipefail
OUT="${OUT:-/tmp/simt-gpu}"
STEPS="${STEPS:-tests bench}"
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PIP_ROOT_USER_ACTION=ignore
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
nvidia-smi -L
python3 -m pip install -q --no-build-isolation --no-deps -Cbuild-dir=build-gpu \
  --config-settings=cmake.define.SIMT_ENABLE_CPU_BACKEND=OFF . > "$OUT/build.log" 2>&1 \
  || { tail -40 "$OUT/build.log"; exit 1; }

if [[ " $STEPS " == *" tests "* ]]; then
  # The CUB scan and sort, the launch caches, reused temporaries, the reductions,
  # sets, gathers and sorts rebuilt for the targets, graphs, and warm calls.
  SIMT_TEST_DEVICES=cuda:0 python3 -m pytest -q -p no:cacheprovider \
    tests/python/test_scan_cub.py tests/python/test_launch_caches.py \
    tests/python/test_array_temporaries.py tests/python/test_array_reductions.py \
    tests/python/test_array_sets.py tests/python/test_array_indexing.py \
    tests/python/test_array_sorting.py tests/python/test_graphs.py \
    tests/python/test_array_warm_calls.py > "$OUT/pytest.log" 2>&1
  grep -E "^(FAILED|ERROR)" "$OUT/pytest.log" | head -30
  tail -1 "$OUT/pytest.log"
fi

if [[ " $STEPS " == *" bench "* ]]; then
  # Every family of the array target against CuPy, checked before timing.
  (cd bench && python3 arrays.py cuda:0 issue38) 2>&1 | tee "$OUT/arrays_issue38.txt"
  (cd bench && python3 arrays.py cuda:0 scan) 2>&1 | tee "$OUT/arrays_scan.txt"
  # Launch host costs against cuda-python, CuPy's RawKernel, numba-cuda and the C++ floor.
  bash bench/cuda/build_launch_bench.sh /tmp \
    && python3 bench/gpu.py /tmp/kernels.cubin /tmp/raw_launch /tmp --launch-only 2>&1 \
       | tee "$OUT/gpu_launch.txt"
  # Fresh-process start-up against CuPy's, and graph replays.
  python3 bench/launch_overhead.py --section start --devices cuda:0 2>&1 | tee "$OUT/start.txt"
  python3 bench/launch_overhead.py --section graph --devices cuda:0 2>&1 | tee "$OUT/graph.txt"
fi
