"""What an installed simt finds at run time: NVRTC and the CUDA headers from NVIDIA's pip
wheels (simt[cuda13]) ahead of the machine's toolkit; PoCL from pip (simt[pocl]) opened
without an ICD loader; and `python -m simt info` saying where each came from. Each case runs
in a fresh interpreter: NVRTC and the OpenCL libraries are searched once per process. (The
wheel itself is checked by scripts/build_wheel.sh and, installed on a fresh Debian root, by
scripts/fresh_machine_test.sh.)"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import simt

TOOLKIT = Path("/usr/local/cuda")
# Variables that would choose an NVRTC before the wheels do.
_NVRTC_CHOICES = ("SIMT_NVRTC_PATH", "CUDA_HOME", "CUDA_PATH", "SIMT_NVRTC_SEARCH_DIRS")
# ... and the OpenCL library before the wheels' drivers.
_OPENCL_CHOICES = ("SIMT_OPENCL_LIBRARY", "SIMT_OPENCL_DRIVERS")


def _run(code, site_dir, timeout=120, prefix=()):
    """`code` (or, given a Path, that script) in a fresh interpreter that sees `site_dir` as
    a site-packages, started through `prefix` when given."""
    env = {k: v for k, v in os.environ.items() if k not in _NVRTC_CHOICES + _OPENCL_CHOICES}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site_dir), env.get("PYTHONPATH")]))
    args = [str(code)] if isinstance(code, Path) else ["-c", code]
    done = subprocess.run([*prefix, sys.executable, *args], env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _fake_wheel(site_dir, libnvrtc, include=None):
    """site_dir/nvidia/cu13/{lib,include}, the layout nvidia-cuda-nvrtc unpacks to."""
    lib = site_dir / "nvidia" / "cu13" / "lib"
    lib.mkdir(parents=True)
    (lib / "libnvrtc.so.13").symlink_to(libnvrtc)
    if include is not None:
        (site_dir / "nvidia" / "cu13" / "include").symlink_to(include)
    return lib


def test_nvrtc_dirs_lists_the_wheel_layouts(tmp_path):
    cu13 = _fake_wheel(tmp_path, "/nonexistent/libnvrtc.so.13")
    cu12 = tmp_path / "nvidia" / "cuda_nvrtc" / "lib"  # CUDA 12's wheels
    cu12.mkdir(parents=True)
    (cu12 / "libnvrtc.so.12").touch()
    (tmp_path / "nvidia" / "cu13" / "bin").mkdir()  # no libnvrtc there: not listed
    out = _run("import json, simt._cuda_wheels as w, os\n"
               "print(json.dumps([w.nvrtc_dirs(), os.environ.get(w.SEARCH_DIRS_VARIABLE)]))",
               tmp_path)
    dirs, published = json.loads(out)
    # (the machine's own wheels, in the interpreter's site-packages, may come after them)
    assert [d for d in dirs if d.startswith(str(tmp_path))] == [str(cu13), str(cu12)]
    assert published.startswith(f"{cu13}:{cu12}")  # importing simt published them


def test_a_users_search_dirs_stay_first(monkeypatch, tmp_path):
    from simt import _cuda_wheels

    lib = _fake_wheel(tmp_path, "/nonexistent/libnvrtc.so.13")
    monkeypatch.syspath_prepend(str(tmp_path))
    environ = {_cuda_wheels.SEARCH_DIRS_VARIABLE: "/mine"}
    monkeypatch.setattr(_cuda_wheels, "nvidia_roots", lambda: [str(tmp_path / "nvidia")])
    assert _cuda_wheels.publish_search_dirs(environ) == [str(lib)]
    assert environ[_cuda_wheels.SEARCH_DIRS_VARIABLE] == f"/mine:{lib}"
    assert _cuda_wheels.publish_search_dirs(environ) == []  # once only


@pytest.mark.skipif(not (TOOLKIT / "lib64" / "libnvrtc.so.13").exists(),
                    reason="needs the CUDA 13 toolkit's NVRTC to stand in for the wheel's")
def test_nvrtc_from_the_wheel_before_usr_local_cuda(tmp_path):
    lib = _fake_wheel(tmp_path, TOOLKIT / "lib64" / "libnvrtc.so.13", TOOLKIT / "include")
    out = _run("import json, simt\n"
               "status = simt._core.nvrtc_status()\n"
               "status['compiled'] = simt._core.nvrtc_compile("
               "'extern \"C\" __global__ void k(float* x) { x[0] = 1.0f; }', 90)\n"
               "print(json.dumps(status))", tmp_path)
    status = json.loads(out)
    assert status["available"] and status["path"] == str(lib / "libnvrtc.so.13")
    assert status["include_dir"] == str(lib.parent / "include")
    assert status["compiled"]["ok"], status["compiled"]["log"]

    info = _run("from simt.__main__ import main; main(['simt', 'info'])", tmp_path)
    assert f"{lib / 'libnvrtc.so.13'} (pip wheel)" in info
    assert f"CUDA headers: {lib.parent / 'include'}" in info


def test_info_names_what_provides_a_missing_nvrtc(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "simt", "info"], capture_output=True, text=True, timeout=120,
        env=dict(os.environ, SIMT_NVRTC_PATH=str(tmp_path / "libnvrtc.so.13")))
    assert out.returncode == 0, out.stderr
    assert f"NVRTC: SIMT_NVRTC_PATH={tmp_path / 'libnvrtc.so.13'} could not be loaded" in out.stdout
    assert "pip install 'simt[cuda13]'" in out.stdout


def test_info_says_where_nvrtc_was_looked_for(tmp_path):
    (tmp_path / "nvidia").mkdir()  # a site-packages without NVIDIA's wheels
    from simt.__main__ import _nvrtc_missing

    reason = ("NVRTC not found (...); could not load any of:\n  libnvrtc.so.13: no such file\n"
              "  no libnvrtc.so* in: /opt/cuda/lib64, /usr/local/cuda/lib64")
    assert _nvrtc_missing(reason) == ("not found in /opt/cuda/lib64, /usr/local/cuda/lib64 or "
                                      "on the dynamic loader's path")


def test_cuda13_extra_names_the_nvrtc_wheel(repo_root):
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((repo_root / "pyproject.toml").read_text())["project"]
    extra = project["optional-dependencies"]["cuda13"]
    assert "nvidia-cuda-nvrtc==13.*" in extra
    assert simt.__version__ == project["version"]


# ---- OpenCL drivers from pip: pocl-binary-distribution's layout ----
# Debian's PoCL stands in for the wheel's: the same kind of library (an ICD that exports
# only clGetExtensionFunctionAddress), and one whose LLVM knows every CPU CI runs on (the
# wheel's PoCL 3.0 has LLVM 14, which rejects CPUs newer than itself: docs/packaging.md).
SYSTEM_POCL = Path("/usr/lib/x86_64-linux-gnu/libpocl.so.2")
_SAXPY = """
import json, sys
import numpy as np
import simt
from simt import cuda

@simt.kernel
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]

x = np.arange(1000, dtype=np.float32)
# PoCL's CPU devices (a GPU's OpenCL driver, as NVIDIA's beside a GPU, is not under test)
ids = [d.id for d in simt.devices() if d.backend == "opencl" and not d.is_gpu]
results = {}
for id in ids:
    with simt.use_device(id):
        out = simt.empty(1000, np.float32)
        saxpy[4, 256](np.float32(2), simt.to_device(x), simt.to_device(x), out)
        results[id] = bool((out.get() == 3 * x).all())
print(json.dumps(results))
"""


def _fake_pocl_wheel(site_dir, libpocl, record=True):
    """site_dir/pyopencl/.libs/pocl.icd and, when `record`, the dist-info that lists it, as
    pip leaves pocl-binary-distribution. The wheel's ICD file names libpocl-<hash>.so beside
    it; this one names `libpocl` by its path, since Debian's PoCL finds its device modules
    and headers relative to the path it was opened by. Returns the library's path."""
    libs = site_dir / "pyopencl" / ".libs"
    libs.mkdir(parents=True)
    (libs / "pocl.icd").write_text(f"{libpocl}\n")
    if record:
        info = site_dir / "pocl_binary_distribution-3.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            "Metadata-Version: 2.1\nName: pocl-binary-distribution\nVersion: 3.0\n")
        (info / "RECORD").write_text("pyopencl/.libs/pocl.icd,,\n")
    return Path(libpocl)


def test_wheel_drivers_are_the_libraries_the_icd_files_name(tmp_path):
    libs = tmp_path / "a" / "pyopencl" / ".libs"
    libs.mkdir(parents=True)
    lib = libs / "libpocl-0123abcd.so"
    lib.write_bytes(b"")  # the wheel's layout: the library beside its ICD file
    (libs / "pocl.icd").write_text("libpocl-0123abcd.so\n")
    (libs / "gone.icd").write_text("libgone.so\n")  # names nothing there: left out
    (libs / "notes.txt").write_text("libpocl-0123abcd.so\n")  # no .icd: not read
    absolute = tmp_path / "b" / "pyopencl" / ".libs"
    absolute.mkdir(parents=True)
    (absolute / "x.icd").write_text(f"{lib}\n")  # the same library, by its path: once
    other = tmp_path / "c" / "libother.so"
    other.parent.mkdir()
    other.write_bytes(b"")
    (absolute / "y.icd").write_text(f"{other}\n")
    from simt import _opencl_wheels

    found = _opencl_wheels.wheel_drivers([str(tmp_path / "a"), str(tmp_path / "b")])
    assert found == [(str(libs / "pocl.icd"), str(lib)), (str(absolute / "y.icd"), str(other))]
    assert _opencl_wheels.wheel_drivers([str(tmp_path / "c")]) == []

    out = _run("import json, os, simt._opencl_wheels as w\n"
               "print(json.dumps(os.environ.get(w.DRIVERS_VARIABLE)))", tmp_path / "a")
    assert json.loads(out) == str(lib)  # importing simt published it


def test_a_users_opencl_drivers_stay_first(monkeypatch, tmp_path):
    from simt import _opencl_wheels

    lib = tmp_path / "libpocl-0123abcd.so"
    lib.write_bytes(b"")
    _fake_pocl_wheel(tmp_path, lib)
    monkeypatch.setattr(_opencl_wheels.sys, "path", [str(tmp_path)])
    environ = {_opencl_wheels.DRIVERS_VARIABLE: "/mine/libdriver.so"}
    assert _opencl_wheels.publish_drivers(environ) == [str(lib)]
    assert environ[_opencl_wheels.DRIVERS_VARIABLE] == f"/mine/libdriver.so:{lib}"
    assert _opencl_wheels.publish_drivers(environ) == []  # once only


def _without(tmp_path, files):
    """A command prefix that runs in a mount namespace where each of `files` (resolved) is an
    empty file that is not executable: dlopen fails on it ('file too short'), and so does a
    program search; None when this process may not make one (not root, no unshare)."""
    if shutil.which("unshare") is None or os.geteuid() != 0:
        return None
    probe = subprocess.run(["unshare", "--mount", "--propagation", "private", "true"],
                           capture_output=True)
    if probe.returncode != 0:
        return None
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    empty.chmod(0o644)
    binds = "".join(f"mount --bind {empty} {p} && " for p in sorted({os.path.realpath(f)
                                                                      for f in files}))
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", binds + 'exec "$@"',
            "sh"]


def _hide_the_icd_loader(tmp_path):
    """_without() every libOpenCL.so* file: a machine without ocl-icd-libopencl1."""
    return _without(tmp_path, [p for d in ("/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu",
                                           "/usr/lib") for p in Path(d).glob("libOpenCL.so*")])


@pytest.mark.skipif(not SYSTEM_POCL.exists(), reason="needs a PoCL (apt install libpocl2)")
def test_pocl_from_pip_runs_kernels_without_an_icd_loader(tmp_path):
    prefix = _hide_the_icd_loader(tmp_path)
    if prefix is None:
        pytest.skip("hiding libOpenCL.so.1 needs root and unshare")
    site = tmp_path / "site"
    lib = _fake_pocl_wheel(site, SYSTEM_POCL)
    script = tmp_path / "saxpy.py"
    script.write_text(_SAXPY)
    info = _run("from simt.__main__ import main; main(['simt', 'info'])", site, prefix=prefix)
    if "ICD loader: none" not in info:
        pytest.skip("an ICD loader outside the system's library folders (CUDA's, on a GPU "
                    "machine) stays visible")
    assert list(json.loads(_run(script, site, timeout=300, prefix=prefix)).values()) == [True]
    assert (f"driver from pip: {lib} (pocl-binary-distribution 3.0), opened without a loader"
            in info), info
    assert (f"opencl  available: {lib} (a driver, opened without an ICD loader); "
            "devices: [opencl:0:") in info


@pytest.mark.skipif(not SYSTEM_POCL.exists(), reason="needs a PoCL (apt install libpocl2)")
def test_pocl_from_pip_beside_the_systems_pocl_gives_no_second_device(tmp_path):
    site = tmp_path / "site"
    lib = _fake_pocl_wheel(site, SYSTEM_POCL)
    script = tmp_path / "saxpy.py"
    script.write_text(_SAXPY)
    without = json.loads(_run(script, tmp_path / "empty-site", timeout=300))
    if not without:
        pytest.skip("the system's ICD loader lists no OpenCL device here")
    assert json.loads(_run(script, site, timeout=300)) == without
    info = _run("from simt.__main__ import main; main(['simt', 'info'])", site)
    assert (f"driver from pip: {lib} (pocl-binary-distribution 3.0): not used, the ICD loader "
            "lists a platform of the same name") in info, info


_SAXPY_OR_WHY = _SAXPY.replace(
    "        saxpy[4, 256](np.float32(2), simt.to_device(x), simt.to_device(x), out)\n"
    "        results[id] = bool((out.get() == 3 * x).all())",
    "        try:\n"
    "            saxpy[4, 256](np.float32(2), simt.to_device(x), simt.to_device(x), out)\n"
    "            results[id] = bool((out.get() == 3 * x).all())\n"
    "        except simt.errors.DeviceError as error:\n"
    "            results[id] = str(error)")


@pytest.mark.skipif(not SYSTEM_POCL.exists(), reason="needs a PoCL (apt install libpocl2)")
def test_pocl_without_what_it_links_with_says_so_instead_of_aborting(tmp_path):
    # PoCL links kernels with ld, libc.so and libgcc and aborts the process when one is
    # missing (PoCL from pip on a machine without gcc); simt says so first. Here ld is hidden
    # (not executable; ld on PATH or in /usr/bin counts), the one of the three a bind mount
    # can hide from an existence check.
    hidden = [p for p in {shutil.which("ld"), "/usr/bin/ld", "/bin/ld"} if p and os.path.exists(p)]
    prefix = _without(tmp_path, hidden)
    if prefix is None:
        pytest.skip("hiding ld needs root and unshare")
    script = tmp_path / "saxpy.py"
    assert _SAXPY_OR_WHY != _SAXPY
    script.write_text(_SAXPY_OR_WHY)
    results = json.loads(_run(script, tmp_path / "empty-site", timeout=300, prefix=prefix))
    if not results:
        pytest.skip("no OpenCL device here")
    for why in results.values():
        assert ("cannot build kernels: PoCL links each kernel as a C compiler would, and this "
                "machine lacks ld (binutils): apt install gcc libc6-dev") in why, why
    info = _run("from simt.__main__ import main; main(['simt', 'info'])", tmp_path / "empty-site",
                prefix=prefix)
    assert ("PoCL links kernels as a C compiler would, and this machine lacks ld (binutils): "
            "apt install gcc libc6-dev") in info, info


def test_info_names_what_provides_a_missing_opencl_loader(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "simt", "info"], capture_output=True, text=True, timeout=120,
        env=dict(os.environ, SIMT_OPENCL_LIBRARY=str(tmp_path / "libOpenCL.so.1")))
    assert out.returncode == 0, out.stderr
    assert f"SIMT_OPENCL_LIBRARY={tmp_path / 'libOpenCL.so.1'}: could not be used" in out.stdout
    assert "to get it: pip install 'simt[pocl]'" in out.stdout
    assert "apt install ocl-icd-libopencl1 pocl-opencl-icd" in out.stdout


def test_pocl_extra_names_the_wheel(repo_root):
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((repo_root / "pyproject.toml").read_text())["project"]
    from simt import _opencl_wheels

    assert project["optional-dependencies"]["pocl"] == [_opencl_wheels.PIP_PACKAGE]
