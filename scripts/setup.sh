#!/usr/bin/env bash
# Installs everything a fresh Debian 12 machine needs to build and test simt.
# Idempotent and fast when everything is already there (no apt-get at all then).
# Python is the interpreter that `python3` names (pyenv's 3.11 on the project's
# machines); Debian's python is not installed. The CUDA toolkit (NVRTC) is
# preinstalled on CI at /usr/local/cuda and is not installed here.
set -euo pipefail
export PIP_ROOT_USER_ACTION=ignore

APT_PACKAGES=(
  build-essential
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
)

PIP_PACKAGES=(
  "scikit-build-core>=0.10"
  "nanobind>=2.0"
  numpy
  pytest
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

# pip makes no network request when every requirement is already satisfied.
python3 -m pip install -q "${PIP_PACKAGES[@]}"
log "Python packages: ok ($(python3 --version))"
