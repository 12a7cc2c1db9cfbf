#!/usr/bin/env bash
# One pass on a GPU machine (the lent H200): build simt (no CPU backend there:
# no LLVM), run the Python suite on cuda:0, the demo, and bench/gpu.py.
# Logs go to $OUT (or /tmp/simt-gpu) so they come back whole.
set -uo pipefail
OUT="${OUT:-/tmp/simt-gpu}"
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PIP_ROOT_USER_ACTION=ignore
nvidia-smi -L
python3 -m pip install -q --no-build-isolation --no-deps -Cbuild-dir=build-gpu . > "$OUT/build.log" 2>&1 \
  || { tail -40 "$OUT/build.log"; exit 1; }
(cd /tmp && python3 -m simt info) | tee "$OUT/info.txt"
python3 -m pytest tests/python -q -p no:cacheprovider > "$OUT/pytest.log" 2>&1
grep -E "^(FAILED|ERROR)" "$OUT/pytest.log" | head -30
tail -1 "$OUT/pytest.log"
(cd /tmp && python3 "$OLDPWD/examples/demo.py") 2>&1 | tee "$OUT/demo.txt"
nvcc -O3 -arch=sm_90 -cubin -o /tmp/kernels.cubin bench/cuda/kernels.cu \
  && nvcc -O2 -o /tmp/raw_launch bench/cuda/raw_launch.cpp -lcuda \
  && python3 bench/gpu.py /tmp/kernels.cubin /tmp/raw_launch 2>&1 | tee "$OUT/bench_gpu.txt"
