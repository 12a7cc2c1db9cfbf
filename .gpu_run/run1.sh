#!/usr/bin/env bash
# Device call 1: build this tree and the baseline (596c124), run the Python suite on cuda:0.
set -uo pipefail
export PYTHONUNBUFFERED=1 PIP_ROOT_USER_ACTION=ignore
nvidia-smi -L
T0=$SECONDS
python3 -m pip install -q --no-build-isolation --no-deps -Cbuild-dir=build-gpu \
  --config-settings=cmake.define.SIMT_ENABLE_CPU_BACKEND=OFF . > "$OUT/build.log" 2>&1 \
  || { tail -40 "$OUT/build.log"; exit 1; }
echo "built new in $((SECONDS-T0)) s"
mkdir -p /tmp/base && tar -xf .gpu_run/base.tar -C /tmp/base
(cd /tmp/base && python3 -m pip install -q --no-build-isolation --no-deps --target /tmp/base_site \
   -Cbuild-dir=/tmp/base/build . > "$OUT/build_base.log" 2>&1) || { tail -20 "$OUT/build_base.log"; }
echo "built base at $((SECONDS-T0)) s"
(cd /tmp && python3 -m simt info) | tee "$OUT/info.txt"
SIMT_TEST_DEVICES=cuda:0 timeout 420 python3 -m pytest tests/python -q -p no:cacheprovider > "$OUT/pytest_cuda.log" 2>&1
grep -E "^(FAILED|ERROR)" "$OUT/pytest_cuda.log" | head -30
tail -2 "$OUT/pytest_cuda.log"
echo "done at $((SECONDS-T0)) s"
