"""Backends start when first asked for (issue 41): `import simt` starts none, a device named
starts only its backend, the default device starts backends only as far as it must, and
listing devices starts them all. Each case runs in a fresh process."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

import simt


def run(code, **env):
    """Runs `code` in a fresh interpreter; returns what it printed last as JSON."""
    environment = dict(os.environ)
    environment.pop("SIMT_DEVICE", None)
    for name, value in env.items():
        if value is None:
            environment.pop(name, None)
        else:
            environment[name] = value
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                            text=True, env=environment, timeout=300)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_import_starts_no_backend():
    assert run("""
        import json, simt
        print(json.dumps(simt._core.started_backends()))
    """) == []


@pytest.mark.needs_cpu
def test_a_named_device_starts_only_its_backend():
    assert run("""
        import json, numpy as np, simt
        simt.zeros(4, np.float32, device="cpu")
        print(json.dumps(simt._core.started_backends()))
    """) == ["cpu"]


def test_asking_about_one_backend_starts_only_it():
    found = run("""
        import json, simt
        from simt import cuda
        gpus = simt._device.backend_devices("cuda")
        cuda.gpus[0]  # Numba's device list: CUDA's devices, else the current device
        print(json.dumps([bool(gpus), simt._core.started_backends()]))
    """, SIMT_DEVICE="cpu")
    # Without CUDA devices, Numba's list is the current device's: the CPU's.
    assert found == [True, ["cuda"]] or found == [False, ["cuda", "cpu"]]


def test_listing_devices_starts_every_backend():
    assert run("""
        import json, simt
        simt.devices()
        print(json.dumps(simt._core.started_backends()))
    """) == ["cuda", "opencl", "cpu"]


def test_the_default_device_starts_backends_only_as_far_as_needed():
    started = run("""
        import json, numpy as np, simt
        a = simt.zeros(4, np.float32)
        print(json.dumps({"device": a.device.id, "started": simt._core.started_backends(),
                          "gpu": simt._core.opencl_may_have_gpu()}))
    """)
    assert simt._core.default_device().id == started["device"]
    assert started["started"][0] == "cuda"  # a CUDA GPU wins before anything else starts
    if started["device"].startswith("cuda"):
        assert started["started"] == ["cuda"]
    elif started["device"] == "cpu" and not started["gpu"]:
        assert started["started"] == ["cuda", "cpu"]  # OpenCL could have no GPU: not started


def test_simt_device_starts_only_the_backend_it_names():
    device = simt.devices()[-1].id
    started = run("""
        import json, numpy as np, simt
        a = simt.zeros(4, np.float32)
        print(json.dumps([a.device.id, simt._core.started_backends()]))
    """, SIMT_DEVICE=device)
    assert started == [device, [device.split(":")[0]]]


@pytest.mark.parametrize("registered, pocl_devices, expected", [
    (["libpocl.so.2"], None, False),
    (["/usr/lib/x86_64-linux-gnu/pocl/libpocl.so.2.12.0"], "pthread", False),
    (["libpocl.so.2"], "cuda", True),  # PoCL's CUDA driver: a GPU
    (["libpocl.so.2", "libnvidia-opencl.so.1"], None, True),
    (["libamdocl64.so"], None, True),
    ([], None, False),  # no driver at all: nothing to ask
])
def test_whether_opencl_could_have_a_gpu_is_read_from_the_registrations(
        tmp_path, registered, pocl_devices, expected):
    vendors = tmp_path / "vendors"
    vendors.mkdir()
    for k, library in enumerate(registered):
        (vendors / f"driver{k}.icd").write_text(library + "\n")
    assert run("""
        import json, simt
        print(json.dumps(simt._core.opencl_may_have_gpu()))
    """, OCL_ICD_VENDORS=str(vendors), POCL_DEVICES=pocl_devices, OCL_ICD_FILENAMES=None,
        OPENCL_VENDOR_PATH=None, SIMT_OPENCL_LIBRARY=None, SIMT_OPENCL_DRIVERS="") is expected
