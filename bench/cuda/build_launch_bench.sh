#!/usr/bin/env bash
# bench/gpu.py's native pieces, built with nvcc into DIR (default /tmp): the kernels'
# cubin, the C++ launch loop (raw_launch) and the Python extension calling cuLaunchKernel
# (launch_floor). Then: python3 bench/gpu.py DIR/kernels.cubin DIR/raw_launch DIR
set -euo pipefail
DIR="${1:-/tmp}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
nvcc -O3 -arch=sm_90 -cubin -o "$DIR/kernels.cubin" "$HERE/kernels.cu"
nvcc -O2 -o "$DIR/raw_launch" "$HERE/raw_launch.cpp" -lcuda
nvcc -O2 -shared -Xcompiler -fPIC \
  -I"$(python3 -c "import sysconfig; print(sysconfig.get_paths()['include'])")" \
  "$HERE/launch_floor.c" -lcuda -o "$DIR/launch_floor$(python3 -c \
  "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")"
