#!/usr/bin/env bash
# The README's quick start on a fresh Debian 12 (or Ubuntu 24.04) machine, as a new user runs it:
# a fresh root (debootstrap) with what a stock cloud image has (python3,
# python3-venv, python3-pip, git, sudo, ca-certificates), a user with sudo,
# this checkout copied into the user's home; first the binary wheel (built here
# by scripts/build_wheel.sh) installed into a fresh venv and run on the cpu
# device while the root has no LLVM, Clang or oneTBB, then with PoCL from pip (simt[pocl]) on
# its opencl device while the root has no OpenCL package, then the README's two commands,
# each timed. CI runs this (.ci/run); it needs root and debootstrap.
#   bash scripts/fresh_machine_test.sh            # the wheel, then both commands
#   SIMT_FRESH_WHEEL=dist/simt-...whl ...         # that wheel instead of building one
#   SIMT_FRESH_ONLY=wheel ...                     # the wheel only, no quick start
#   SIMT_FRESH_KEEP=1 ...                         # keep the root for a look afterwards
#   SIMT_FRESH_DISTRO=ubuntu-24.04 SIMT_PYTHON=<a 3.12 venv>/bin/python ...
#                                                 # Ubuntu 24.04, whose python3 is 3.12
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
log() { echo "[fresh-machine] $*"; }

DISTRO="${SIMT_FRESH_DISTRO:-debian-12}"
DEBOOTSTRAP_ARGS=(--variant=minbase)
case "$DISTRO" in
  debian-12)
    SUITE=bookworm PY_TAG=cp311
    MIRROR="${SIMT_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
    ;;
  ubuntu-24.04)
    SUITE=noble PY_TAG=cp312
    MIRROR="${SIMT_UBUNTU_MIRROR:-https://archive.ubuntu.com/ubuntu}"
    # Debian 12's debootstrap predates noble (every Ubuntu suite since gutsy uses the
    # gutsy script) and Debian has no Ubuntu keyring package: the Release file is not
    # checked on the host (https protects the download), while apt inside the root
    # checks everything after with the ubuntu-keyring that debootstrap installs there.
    DEBOOTSTRAP_ARGS+=(--components=main,universe --no-check-gpg)
    DEBOOTSTRAP_SCRIPT=/usr/share/debootstrap/scripts/gutsy
    # An installed Ubuntu's sources: with -updates and -security, as a new user's machine
    # has them (LLVM 19 came to 24.04 in noble-updates). Plain http: apt in the root has
    # no certificates before it installs ca-certificates (it checks the signatures).
    ROOT_SOURCES="deb http://archive.ubuntu.com/ubuntu noble main universe
deb http://archive.ubuntu.com/ubuntu noble-updates main universe
deb http://security.ubuntu.com/ubuntu noble-security main universe"
    ;;
  *)
    echo "SIMT_FRESH_DISTRO=$DISTRO: debian-12 or ubuntu-24.04" >&2
    exit 2
    ;;
esac

if [[ $(id -u) -ne 0 ]]; then
  echo "fresh_machine_test.sh makes a root with debootstrap and chroot: run it as root" >&2
  exit 2
fi
if ! command -v debootstrap >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null \
    || { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null; }
fi

# The wheel first: a build failure should stop the run before the minutes of debootstrap.
if [[ -n "${SIMT_FRESH_WHEEL:-}" ]]; then
  WHEEL="$(realpath "$SIMT_FRESH_WHEEL")"
else
  log "building the wheel (scripts/build_wheel.sh)"
  start=$SECONDS
  mkdir -p "$ROOT/build-wheel"
  bash "$ROOT/scripts/build_wheel.sh" >"$ROOT/build-wheel/build_wheel.log" 2>&1 \
    || { tail -40 "$ROOT/build-wheel/build_wheel.log"; exit 1; }
  WHEELS=("$ROOT"/dist/simt-*-"$PY_TAG"-*manylinux*.whl)  # for the root's python3
  WHEEL="${WHEELS[0]}"
  [[ -f "$WHEEL" ]] || { echo "no $PY_TAG wheel in dist/: set SIMT_PYTHON to a venv of that Python" >&2; exit 1; }
  log "$(basename "$WHEEL") ($(du -h "$WHEEL" | cut -f1)) built in $((SECONDS - start)) s"
fi

WORK="$(mktemp -d /tmp/simt-fresh-XXXXXX)"
FRESH="$WORK/root"
MOUNTS=(proc sys dev)
cleanup() {
  local m
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
    m="$FRESH/${MOUNTS[i]}"
    mountpoint -q "$m" && umount -l "$m"
  done
  # --one-file-system: never into a bind mount that failed to come off.
  if [[ -z "${SIMT_FRESH_KEEP:-}" ]]; then rm -rf --one-file-system "$WORK"; else log "kept $FRESH"; fi
}
trap cleanup EXIT

log "debootstrap $SUITE ($DISTRO) into $FRESH"
start=$SECONDS
debootstrap "${DEBOOTSTRAP_ARGS[@]}" "$SUITE" "$FRESH" "$MIRROR" ${DEBOOTSTRAP_SCRIPT:-} \
  >"$WORK/debootstrap.log" 2>&1 \
  || { tail -20 "$WORK/debootstrap.log"; exit 1; }
log "root made in $((SECONDS - start)) s"
if [[ -n "${ROOT_SOURCES:-}" ]]; then echo "$ROOT_SOURCES" >"$FRESH/etc/apt/sources.list"; fi

mount -t proc proc "$FRESH/proc"
mount --rbind /sys "$FRESH/sys" && mount --make-rslave "$FRESH/sys"
mount --rbind /dev "$FRESH/dev" && mount --make-rslave "$FRESH/dev"
cp /etc/resolv.conf "$FRESH/etc/resolv.conf"
echo "127.0.1.1 $(hostname)" >>"$FRESH/etc/hosts"  # sudo looks its host up
# These machines reach the registries through TLS inspection: the root needs
# the host's extra certificate authorities, and pip in it the system bundle
# (PIP_CERT below). A user's own machine needs neither.
mkdir -p "$FRESH/usr/local/share/ca-certificates"
cp /usr/local/share/ca-certificates/*.crt "$FRESH/usr/local/share/ca-certificates/" 2>/dev/null || true

in_root() { chroot "$FRESH" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
  DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 /bin/bash -c "$1"; }
log "a stock image's packages, and a user with sudo"
in_root "apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends \
  ca-certificates python3 python3-venv python3-pip git sudo >/dev/null && update-ca-certificates >/dev/null"
in_root "useradd -m -s /bin/bash newuser && echo 'newuser ALL=(ALL) NOPASSWD:ALL' > /etc/sudoers.d/newuser"

# The checkout as a clone would have it: the tracked files of the working tree.
mkdir -p "$FRESH/home/newuser/simt"
(cd "$ROOT" && git ls-files -z --cached --exclude-standard | tar --null --ignore-failed-read -T - -cf -) \
  | tar -xf - -C "$FRESH/home/newuser/simt"
in_root "chown -R newuser:newuser /home/newuser/simt"

as_user() {
  chroot "$FRESH" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/home/newuser LANG=C.UTF-8 \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt SIMT_JOBS="${SIMT_JOBS:-}" \
    /usr/sbin/runuser -u newuser -- /bin/bash -c "cd ~/simt && $1"
}
# The wheel, as `pip install simt` gives it, before anything of the quick start is
# installed: the root has no LLVM, Clang or oneTBB, so its cpu kernels can only use what
# the wheel carries. NumPy comes from PyPI.
log "the wheel in a fresh venv, on a root without LLVM, Clang or oneTBB"
mkdir -p "$FRESH/home/newuser/wheel"
cp "$WHEEL" "$FRESH/home/newuser/wheel/"
in_root "chown -R newuser:newuser /home/newuser/wheel"
if in_root "dpkg-query -W -f='\${Package}\n' | grep -E '^(llvm|libllvm|libclang|libtbb)'"; then
  log "the root has LLVM, Clang or oneTBB packages (above): the wheel test would prove nothing"
  exit 1
fi
start=$SECONDS
if as_user "cd ~ && python3 -m venv wheel-venv && wheel-venv/bin/pip install -q wheel/*.whl \
    && wheel-venv/bin/python -m simt info && wheel-venv/bin/python simt/scripts/wheel_smoke_test.py \
    && wheel-venv/bin/python simt/examples/saxpy.py"; then
  log "the wheel installed and ran on cpu in $((SECONDS - start)) s"
else
  log "the wheel FAILED after $((SECONDS - start)) s"
  exit 1
fi
# PoCL from pip (simt[pocl]: pocl-binary-distribution) into the same venv, on a root with no
# OpenCL package: an opencl device with no ICD loader (python/simt/_opencl_wheels.py,
# docs/packaging.md), in three steps, each on what the one before left:
#   1. bare: `simt info` lists opencl:0 through the pip driver; the smoke test copies data on
#      it, and is told that PoCL cannot link kernels without ld, libc.so and libgcc;
#   2. with gcc and libc6-dev, which bring them (what simt's message and the README say): the
#      smoke test's kernels run on it, or, on a CPU newer than that PoCL's LLVM 14 (AMD Zen 5,
#      CI's), are reported unbuilt;
#   3. then only: the same venv on a CPU LLVM 14 knows, QEMU's user mode emulating a Haswell
#      (AVX2; the qemu-user package, installed into the root for this), where the kernels
#      must run (--opencl-kernels). A user with such a CPU takes the system's PoCL (README).
if in_root "dpkg-query -W -f='\${Package}\n' | grep -E '^(ocl-icd|libpocl|pocl|clinfo|binutils|gcc|gcc-[0-9]+|libc6-dev|libgcc-[0-9]+-dev)$|opencl'"; then
  log "the root has OpenCL packages or a C toolchain (above): the simt[pocl] test would prove nothing"
  exit 1
fi
pocl_smoke() {  # $1: what runs python; the smoke test's lines go to ~/pocl-smoke.txt too
  as_user "set -o pipefail && cd ~ && $1 wheel-venv/bin/python simt/scripts/wheel_smoke_test.py \
    ${2:---opencl} 2>pocl-stderr.txt | tee pocl-smoke.txt \
    || { grep -v '^qemu-x86_64: warning' pocl-stderr.txt; false; }"
}
start=$SECONDS
if as_user "set -o pipefail && cd ~ && wheel-venv/bin/pip install -q 'wheel/$(basename "$WHEEL")[pocl]' \
    && wheel-venv/bin/python -m simt info | tee pocl-info.txt \
    && grep -q '(a driver, opened without an ICD loader); devices: \[opencl:0' pocl-info.txt" \
  && pocl_smoke "" && grep -q 'cannot build kernels: PoCL links each kernel' "$FRESH/home/newuser/pocl-smoke.txt"; then
  log "simt[pocl] on the bare root: opencl:0 from pip with no ICD loader, nothing to link its kernels with, in $((SECONDS - start)) s"
else
  log "simt[pocl] on the bare root FAILED after $((SECONDS - start)) s"
  exit 1
fi
start=$SECONDS
if in_root "apt-get install -y -q --no-install-recommends gcc libc6-dev >/dev/null" && pocl_smoke "" \
  && ! grep -q 'cannot build kernels: PoCL links each kernel' "$FRESH/home/newuser/pocl-smoke.txt"; then
  log "simt[pocl] with gcc and libc6-dev: checked by the smoke test (its lines above) in $((SECONDS - start)) s"
else
  log "simt[pocl] with gcc and libc6-dev FAILED after $((SECONDS - start)) s"
  exit 1
fi
if grep -q 'does not know this CPU' "$FRESH/home/newuser/pocl-smoke.txt"; then
  start=$SECONDS
  if in_root "apt-get install -y -q --no-install-recommends qemu-user >/dev/null" \
    && pocl_smoke "qemu-x86_64 -cpu Haswell" --opencl-kernels; then
    log "simt[pocl]: kernels on opencl:0 from pip, no ICD loader, emulated Haswell, in $((SECONDS - start)) s"
  else
    log "simt[pocl] on an emulated Haswell FAILED after $((SECONDS - start)) s"
    exit 1
  fi
fi
if [[ "${SIMT_FRESH_ONLY:-}" == wheel ]]; then
  exit 0
fi
# The quick start gets the root as a new user's machine has it: without what the simt[pocl]
# steps installed (setup.sh must bring its own compiler).
in_root "apt-get purge -y -q --auto-remove gcc libc6-dev qemu-user >/dev/null"

status=0
for command in "bash scripts/demo.sh" "bash scripts/test.sh"; do
  log "\$ $command"
  start=$SECONDS
  if as_user "$command"; then
    log "'$command' passed in $((SECONDS - start)) s"
  else
    log "'$command' FAILED after $((SECONDS - start)) s"
    status=1
    break
  fi
done
exit $status
