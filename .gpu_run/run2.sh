#!/usr/bin/env bash
# Device call 2: launch and kernel benchmarks, baseline vs this tree in turns; the suite on OpenCL.
set -uo pipefail
export PYTHONUNBUFFERED=1 PIP_ROOT_USER_ACTION=ignore
T0=$SECONDS
nvcc -O3 -arch=sm_90 -cubin -o /tmp/kernels.cubin bench/cuda/kernels.cu && nvcc -O2 -o /tmp/raw_launch bench/cuda/raw_launch.cpp -lcuda
for round in 1 2; do
  echo "== new, round $round"; python3 bench/gpu.py /tmp/kernels.cubin /tmp/raw_launch 2>&1 | tee "$OUT/gpu_new_$round.txt" | tail -25
  echo "== base, round $round"; PYTHONPATH=/tmp/base_site python3 bench/gpu.py /tmp/kernels.cubin /tmp/raw_launch 2>&1 | tee "$OUT/gpu_base_$round.txt" | tail -25
done
echo "benchmarks done at $((SECONDS-T0)) s"
OCL_VENDORS=/tmp/ocl-vendors; mkdir -p $OCL_VENDORS; echo libnvidia-opencl.so.1 > $OCL_VENDORS/nvidia.icd; export OCL_ICD_VENDORS=$OCL_VENDORS
(cd /tmp && python3 -m simt info) | tail -8
SIMT_TEST_DEVICES=opencl timeout $((560-(SECONDS-T0))) python3 -m pytest tests/python -q -p no:cacheprovider -x > "$OUT/pytest_opencl.log" 2>&1
grep -E "^(FAILED|ERROR)" "$OUT/pytest_opencl.log" | head -20
tail -2 "$OUT/pytest_opencl.log"
echo "done at $((SECONDS-T0)) s"
