"""What an installed simt finds at run time: NVRTC and the CUDA headers from NVIDIA's pip
wheels (simt[cuda13]) ahead of the machine's toolkit, and `python -m simt info` saying
where each came from. Each case runs in a fresh interpreter: NVRTC is searched once per
process. (The wheel itself is checked by scripts/build_wheel.sh and, installed on a fresh
Debian root, by scripts/fresh_machine_test.sh.)"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import simt

TOOLKIT = Path("/usr/local/cuda")
# Variables that would choose an NVRTC before the wheels do.
_NVRTC_CHOICES = ("SIMT_NVRTC_PATH", "CUDA_HOME", "CUDA_PATH", "SIMT_NVRTC_SEARCH_DIRS")


def _run(code, site_dir, timeout=120):
    """`code` in a fresh interpreter that sees `site_dir` as a site-packages."""
    env = {k: v for k, v in os.environ.items() if k not in _NVRTC_CHOICES}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site_dir), env.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
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
    assert dirs == [str(cu13), str(cu12)]
    assert published == f"{cu13}:{cu12}"  # importing simt published them


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
