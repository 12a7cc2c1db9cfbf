"""Pickling simt arrays and kernels, as dask.distributed, multiprocessing and mpi4py's
lowercase methods send them: arrays through host memory back onto the same kind of
device, kernels by reference where importable and by value (with their source) else."""

import pickle
import subprocess
import sys

import numpy as np
import pytest

import simt
from simt import _pickling

SCALE = 3


def _values(rng, shape, dtype):
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(-1000, 1000, shape).astype(dtype)


@pytest.mark.parametrize("protocol", [4, 5])
@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.complex64])
def test_arrays_round_trip_onto_their_device(device, rng, protocol, dtype):
    host = _values(rng, (6, 9), dtype)
    x = simt.asarray(host, device=device)
    for view, expected in ((x, host), (x[1:5, ::3], host[1:5, ::3]), (x.T, host.T),
                           (x[:0], host[:0])):
        buffers = []
        data = pickle.dumps(view, protocol=protocol, buffer_callback=(
            buffers.append if protocol == 5 else None))
        y = pickle.loads(data, buffers=buffers)
        assert isinstance(y, simt.Array) and y.device == device
        assert y.dtype == expected.dtype and y.shape == expected.shape
        np.testing.assert_array_equal(y.get(), expected)
        if protocol == 5 and view is x:
            assert buffers, "contiguous values travel out of band under protocol 5"


def test_a_read_only_array_stays_read_only(device, rng):
    host = _values(rng, (5,), np.float32)
    host.flags.writeable = False
    x = simt.asarray(host, device="cpu").to_device(device)
    readonly = simt.Array._wrap(x._impl.readonly_view())
    y = pickle.loads(pickle.dumps(readonly))
    assert y.readonly
    np.testing.assert_array_equal(y.get(), host)


def test_the_receiving_device_follows_the_documented_order(monkeypatch):
    cpu = simt.get_device("cpu")
    assert _pickling.receiving_device("cpu", "cpu") == cpu  # the same id
    ids = [d.id for d in simt.devices()]
    missing = "opencl:99"
    opencl = [d for d in simt.devices() if d.backend == "opencl"]
    if opencl:
        with simt.use_device(opencl[-1]):  # the current device when of that backend
            assert _pickling.receiving_device(missing, "opencl") == opencl[-1]
        with simt.use_device(cpu):  # else the first of that backend
            assert _pickling.receiving_device(missing, "opencl") == opencl[0]
    with pytest.raises(ValueError, match=f"unpickling a simt array of cuda:7: this process "
                                         f"has no cuda device \\(it has {', '.join(ids)}\\)"):
        _pickling.receiving_device("cuda:7", "cuda")


@simt.func
def _triple(v):
    return v * SCALE


@simt.kernel
def _scale(x):
    i = simt.grid(1)
    if i < x.size:
        x[i] = _triple(x[i])


def test_an_importable_kernel_pickles_by_reference():
    assert pickle.loads(pickle.dumps(_scale)) is _scale
    assert pickle.loads(pickle.dumps(_triple)) is _triple


_SCRIPT = '''
import pickle, sys
import numpy as np
import simt

SCALE = 5

@simt.func
def triple(v):
    return v * SCALE

@simt.kernel
def scale(x):
    i = simt.grid(1)
    if i < x.size:
        x[i] = triple(x[i])

if sys.argv[1] == "dump":
    import cloudpickle
    sys.stdout.buffer.write(cloudpickle.dumps(scale))
'''

_LOAD = '''
import pickle, sys
import numpy as np
import simt
kernel = pickle.loads(sys.stdin.buffer.read())
x = simt.asarray(np.arange(6.0), device=sys.argv[1])
kernel[1, 32](x)
print(x.get().tolist())
'''


def test_a_scripts_kernel_runs_in_another_process(tmp_path, device):
    # A kernel of a script (__main__) goes by value: its function through cloudpickle
    # (dask.distributed's pickler) and its source text, compiled again where it lands.
    pytest.importorskip("cloudpickle", reason="cloudpickle comes with dask.distributed")
    script = tmp_path / "script.py"
    script.write_text(_SCRIPT)
    dumped = subprocess.run([sys.executable, str(script), "dump"], capture_output=True,
                            check=True, timeout=120).stdout
    loaded = subprocess.run([sys.executable, "-c", _LOAD, device.id], input=dumped,
                            capture_output=True, timeout=120)
    assert loaded.returncode == 0, loaded.stderr.decode()
    assert loaded.stdout.decode().strip() == str([5.0 * k for k in range(6)])
