"""The disk cache of compiled kernels: fresh processes reuse what an earlier one compiled,
corrupt entries are rebuilt, several processes can fill one cache at once."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import simt

SCRIPT = textwrap.dedent('''
    import sys, time
    import numpy as np
    import simt
    from simt import cuda

    @simt.kernel
    def scale(x, out, factor):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] * factor + {offset}

    x = np.arange(1000, dtype=np.float64)
    if "{device}" != "cpu":
        x = simt.to_device(x, device="{device}")
    out = simt.zeros(1000, dtype=np.float64, device="{device}")
    start = time.perf_counter()
    with simt.use_device("{device}"):
        scale[4, 256](x, out, 2.5)
    elapsed = time.perf_counter() - start
    expected = np.arange(1000, dtype=np.float64) * 2.5 + {offset}
    assert np.array_equal(out.get(), expected), out.get()[:5]
    print(f"{{elapsed * 1000:.3f}}")
''')


def script(folder, offset, device="cpu"):
    """The program as a file (simt reads kernels' source from their files), beside the
    cache folder: its path is part of the generated code, so runs share it."""
    path = Path(str(folder) + "-scripts") / f"kernel_{offset}_{device.replace(':', '_')}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        path.write_text(SCRIPT.format(offset=offset, device=device))
    return str(path)


def run(folder, offset=1, extra_env=None, device="cpu"):
    env = dict(os.environ, SIMT_CACHE_DIR=str(folder))
    env.update(extra_env or {})
    result = subprocess.run([sys.executable, script(folder, offset, device)], env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return float(result.stdout.strip().splitlines()[-1])


def entries(folder):
    return sorted(Path(folder).rglob("*.bin"))


@pytest.fixture
def cpu_backend():
    if "cpu" not in [d.id for d in simt.devices()]:
        pytest.skip("this build of simt has no CPU backend")


def test_a_fresh_process_reuses_compiled_kernels(tmp_path, cpu_backend):
    run(tmp_path)
    files = entries(tmp_path)
    assert len(files) == 1
    stamp = files[0].stat().st_mtime_ns
    run(tmp_path)  # loads the entry: not written again
    assert entries(tmp_path) == files and files[0].stat().st_mtime_ns == stamp
    run(tmp_path, offset=2)  # another kernel source: another entry
    assert len(entries(tmp_path)) == 2


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "garbage", "wrong_version"])
def test_corrupt_entries_are_rebuilt(tmp_path, cpu_backend, damage):
    run(tmp_path)
    (entry,) = entries(tmp_path)
    data = bytearray(entry.read_bytes())
    if damage == "truncate":
        data = data[:len(data) // 3]
    elif damage == "flip":
        data[len(data) // 2] ^= 0xFF
    elif damage == "empty":
        data = bytearray()
    elif damage == "wrong_version":
        # An entry of another cache format (a future or past simt): its
        # header names another version; the body is left as it was.
        assert data.startswith(b"simt-cache-1\n")
        data[len(b"simt-cache-"):len(b"simt-cache-1")] = b"9"
    else:
        data = bytearray(os.urandom(len(data)))
    entry.write_bytes(bytes(data))
    run(tmp_path)  # still right, and the entry is written again
    assert entry.read_bytes() != bytes(data)
    run(tmp_path)


def test_concurrent_processes_fill_one_cache(tmp_path, cpu_backend):
    env = dict(os.environ, SIMT_CACHE_DIR=str(tmp_path))
    processes = [subprocess.Popen([sys.executable, script(tmp_path, k % 2)], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for k in range(4)]
    for p in processes:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    assert len(entries(tmp_path)) == 2
    assert not [f for f in Path(tmp_path).rglob("*") if ".tmp." in f.name]
    run(tmp_path, offset=0)
    run(tmp_path, offset=1)


def test_a_folder_others_may_write_is_refused_and_left_as_it_is(tmp_path, cpu_backend):
    folder = tmp_path / "shared-cache"
    folder.mkdir()
    folder.chmod(0o777)
    env = dict(os.environ, SIMT_CACHE_DIR=str(folder))
    result = subprocess.run([sys.executable, script(folder, 5)], env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert f"not using the kernel cache in {folder}" in result.stderr
    assert folder.stat().st_mode & 0o777 == 0o777 and not list(folder.iterdir())


def test_cache_can_be_turned_off_and_cleared(tmp_path, cpu_backend):
    run(tmp_path / "off", extra_env={"SIMT_CACHE_DIR": "off"})
    assert not (tmp_path / "off").exists()
    run(tmp_path)
    code = "import simt; print(simt.clear_cache())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, SIMT_CACHE_DIR=str(tmp_path)), check=True).stdout
    assert out.strip() == "1" and not entries(tmp_path)


@pytest.mark.parametrize("backend", ["opencl", "cuda"])
def test_gpu_backends_cache_their_binaries(tmp_path, backend):
    """OpenCL program binaries and NVRTC's cubins for a Python kernel: a fresh process
    loads them without the compiler (the entry is not written again); a corrupt entry is
    rebuilt."""
    found = [d.id for d in simt.devices() if d.backend == backend]
    if not found:
        pytest.skip(f"no {backend} device")
    run(tmp_path, device=found[0])
    files = entries(tmp_path)
    assert [f.parent.name for f in files] == [backend]
    stamp = files[0].stat().st_mtime_ns
    run(tmp_path, device=found[0])
    assert files[0].stat().st_mtime_ns == stamp
    files[0].write_bytes(files[0].read_bytes()[:100])  # corrupt: rebuilt from source
    run(tmp_path, device=found[0])
    assert files[0].stat().st_size > 100
