#!/usr/bin/env bash
# Warp operations on an OpenCL device, which runs them as 32-lane sub-groups. Neither
# PoCL nor NVIDIA's OpenCL has the sub-group extensions they need; Intel's CPU runtime
# (PyPI: intel-opencl-rt, with intel-cmplr-lib-rt for its math libraries) has them and
# runs on any x86-64 CPU, AMD's included. It goes into a venv of its own
# (build/intel-opencl), and simt opens the driver directly ($SIMT_OPENCL_DRIVERS); the
# tests of warp operations then run on that one device.
#
# Needs the .venv and the simt build that scripts/test.sh leaves. Exits non-zero on the
# first failure.
set -euo pipefail
export PIP_ROOT_USER_ACTION=ignore
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="$ROOT/.venv/bin/python"
RUNTIME="$ROOT/build/intel-opencl"

if [ ! -f "$RUNTIME/lib/libintelocl.so" ]; then
  echo "==> Intel's OpenCL CPU runtime from PyPI into $RUNTIME"
  python3 -m venv "$RUNTIME"
  "$RUNTIME/bin/pip" install -q intel-opencl-rt intel-cmplr-lib-rt
fi

# simt's CPU backend links the system's oneTBB, older than the one Intel's driver needs
# (an undefined tbb symbol when the driver opens): its own TBB is loaded first.
export LD_PRELOAD="$RUNTIME/lib/libtbb.so.12"
export SIMT_OPENCL_DRIVERS="$RUNTIME/lib/libintelocl.so"
DEVICE="$("$PY" scripts/opencl_warp_device.py)"
SIMT_TEST_DEVICES="$DEVICE" "$PY" -m pytest -q -p no:cacheprovider tests/python/test_warp.py \
  "tests/python/test_numba_device_api.py" -k "not test_numba_device_api or lanemask or match or syncwarp"
