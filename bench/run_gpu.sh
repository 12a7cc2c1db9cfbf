#!/usr/bin/env bash
# One pass on a GPU machine (the lent H200): build simt (no CPU backend there:
# no LLVM), run the Python suite on cuda:0, the demo, and bench/gpu.py; then
# the same GPU through NVIDIA's OpenCL driver: the suite on the OpenCL device
# and bench/opencl.py.
# Logs go to $OUT (or /tmp/simt-gpu) so they come back whole.
set -uo pipefail
OUT="${OUT:-/tmp/simt-gpu}"
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PIP_ROOT_USER_ACTION=ignore
nvidia-smi -L
python3 -m pip install -q --no-build-isolation --no-deps -Cbuild-dir=build-gpu \
  --config-settings=cmake.define.SIMT_ENABLE_CPU_BACKEND=OFF . > "$OUT/build.log" 2>&1 \
  || { tail -40 "$OUT/build.log"; exit 1; }
(cd /tmp && python3 -m simt info) | tee "$OUT/info.txt"
python3 -m pytest tests/python -q -p no:cacheprovider > "$OUT/pytest.log" 2>&1
grep -E "^(FAILED|ERROR)" "$OUT/pytest.log" | head -30
tail -1 "$OUT/pytest.log"
(cd /tmp && python3 "$OLDPWD/examples/demo.py") 2>&1 | tee "$OUT/demo.txt"
bash bench/cuda/build_launch_bench.sh /tmp \
  && python3 bench/gpu.py /tmp/kernels.cubin /tmp/raw_launch /tmp 2>&1 | tee "$OUT/bench_gpu.txt"

# OpenCL on the same GPU. The ICD loader that comes first on the lent machine
# (CUDA's libOpenCL.so.1) finds NVIDIA's driver by itself, and PoCL through
# /etc/OpenCL/vendors, so the suite above already ran on both OpenCL devices
# (opencl:0 PoCL, opencl:1 the H200). Other machines ship NVIDIA's driver
# unregistered: a vendors folder of our own, named by OCL_ICD_VENDORS,
# registers it there.
OCL_VENDORS="${TMPDIR:-/tmp}/ocl-vendors"
mkdir -p "$OCL_VENDORS"
echo libnvidia-opencl.so.1 > "$OCL_VENDORS/nvidia.icd"
export OCL_ICD_VENDORS="$OCL_VENDORS"
(cd /tmp && python3 -m simt info) | tee "$OUT/info_opencl.txt"
# PyOpenCL is not installed there: the script skips its section and measures
# simt's OpenCL backend against its CUDA backend on the GPU.
python3 bench/opencl.py 2>&1 | tee "$OUT/bench_opencl.txt"

# Shared memory, barriers, atomics and warp shuffles: bench/algorithms.py's GPU
# part (SGEMM, transpose, histograms, reductions) against the same kernels in
# CUDA C compiled by nvcc, numba-cuda and CuPy's library calls.
# (--dump-source FILE adds simt's generated CUDA; $OUT brings back 8 files.)
nvcc -O3 -arch=sm_90 -cubin -o /tmp/algorithms.cubin bench/cuda/algorithms.cu \
  && python3 bench/algorithms.py --gpu /tmp/algorithms.cubin 2>&1 | tee "$OUT/bench_algorithms.txt"
