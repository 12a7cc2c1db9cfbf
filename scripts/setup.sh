#!/usr/bin/env bash
# Installs everything a fresh Debian 12 / Ubuntu 24.04 machine needs to build
# and test simt: the distribution's packages (with sudo when not root), then a
# project virtual environment, .venv, with the Python packages. Idempotent and
# fast when everything is already there (no apt-get at all then).
# The venv is made from the `python3` first on PATH (the distribution's, or
# pyenv's on the project's CI machines); $SIMT_PYTHON names another. Debian 12
# and Ubuntu 24.04 refuse system-wide pip installs (PEP 668), hence the venv.
# The CUDA toolkit (NVRTC) is optional and is not installed here.
set -euo pipefail
export PIP_ROOT_USER_ACTION=ignore

APT_PACKAGES=(
  build-essential
  python3-dev
  python3-venv
  cmake
  ninja-build
  git
  libgtest-dev
  llvm-19-dev
  libclang-19-dev
  libclang-cpp19-dev
  libtbb-dev
  pocl-opencl-icd
  ocl-icd-opencl-dev
  clinfo
  clang-format
  # scripts/fuzz.sh: libFuzzer comes with Clang's runtime libraries (the distribution's
  # default Clang: 14 on Debian 12, 18 on Ubuntu 24.04).
  clang
  libclang-rt-dev
  # tests/python/test_mpi.py and examples/mpi_heat.py: mpirun, and the MPI library
  # mpi4py's wheel loads (docs/scale-out.md).
  openmpi-bin
  libopenmpi-dev
)

PIP_PACKAGES=(
  "scikit-build-core>=0.10"
  "nanobind>=2.0"
  numpy
  pytest
  hypothesis
  atheris  # tests/fuzz/fuzz_kernels.py (binary wheels; without it, its --random mode)
  # Scale-out (docs/scale-out.md): tests/python/test_dask.py, test_mpi.py; binary wheels.
  # Each distributed release pins its own dask; unbounded, pip pairs a dask newer than the
  # newest distributed (dask 2026.11.0 came first) with distributed 2021.4.1, which
  # cannot import.
  "dask[array]"
  "distributed>=2024.1"
  mpi4py
)

log() { echo "[setup] $*"; }

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  fi
fi

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  if [[ "$status" != "installed" ]]; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]})); then
  log "apt-get install: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update
  "${SUDO[@]}" apt-get install -y --no-install-recommends "${APT_PACKAGES[@]}"
else
  log "Debian packages: all present"
fi

# The venv's pip may predate options the build uses (Debian 12's 23.0.1 has no
# -C): upgrade it inside the venv, never the system's.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
if [[ ! -x "$VENV/bin/python" ]]; then
  log "creating $VENV from $(command -v "${SIMT_PYTHON:-python3}")"
  "${SIMT_PYTHON:-python3}" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --upgrade pip
fi
# pip makes no network request when every requirement is already satisfied.
"$VENV/bin/python" -m pip install -q "${PIP_PACKAGES[@]}"
log "Python packages: ok in $VENV ($("$VENV/bin/python" --version))"
