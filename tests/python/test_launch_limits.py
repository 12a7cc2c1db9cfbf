"""Launches beyond what a device can run are clear errors before anything runs: shared
memory (static arrays and dynamic bytes, per block), local arrays per thread, and the
number of blocks in a grid; each error names the limit and the device."""

import numpy as np
import pytest

import simt


@simt.kernel
def k_dynamic(out):
    buffer = simt.shared.array(0, np.float32)
    buffer[0] = 2.0
    out[0] = buffer[0]


@simt.kernel
def k_static(out):
    tile = simt.shared.array(8192, np.float32)  # 32 KiB
    tile[simt.threadIdx.x] = 3.0
    simt.syncthreads()
    out[0] = tile[0]


@simt.kernel
def k_static_too_big(out):
    tile = simt.shared.array((1024, 1024), np.float64)  # huge-shared
    tile[simt.threadIdx.x, 0] = 1.0
    out[0] = tile[0, 0]


@simt.kernel
def k_nothing(out):
    pass


def test_dynamic_shared_memory_beyond_the_device(device):
    limit = device.max_shared_memory_per_block
    out = simt.zeros(1, np.float32, device=device)
    k_dynamic[1, 1, 0, 16](out)
    assert out.get()[0] == 2.0
    with pytest.raises(ValueError, match=rf"{limit + 4} bytes of dynamic shared memory are more "
                                         rf"than {device.id} has for a block \({limit} bytes\)"):
        k_dynamic[1, 1, 0, limit + 4](out)


def test_static_and_dynamic_shared_memory_together(device):
    limit = device.max_shared_memory_per_block
    out = simt.zeros(1, np.float32, device=device)
    if limit < 32 * 1024 + 4:
        pytest.skip(f"{device.id} has only {limit} bytes of shared memory")
    k_static[1, 32](out)
    assert out.get()[0] == 3.0
    k_static[1, 32, 0, limit - 32 * 1024](out)
    with pytest.raises(ValueError, match=r"and the kernel's 32768 static bytes are more than"):
        k_static[1, 32, 0, limit - 32 * 1024 + 4](out)


@pytest.fixture
def no_cuda_observer():
    """The suite's observer compiles every kernel for CUDA, whose compiler rejects this one
    (as it should: that is what the test checks simt does first)."""
    previous = simt._core.set_compile_observer(None)
    yield
    simt._core.set_compile_observer(previous)


def test_static_shared_arrays_beyond_the_device(device, no_cuda_observer):
    out = simt.zeros(1, np.float64, device=device)
    if device.max_shared_memory_per_block >= 8 * 1024 * 1024:
        pytest.skip(f"{device.id} has 8 MiB of shared memory per block")
    with pytest.raises(simt.TypingError, match=r"shared arrays take 8388608 bytes, more than "
                                               rf"{device.id} .* has for a block") as raised:
        k_static_too_big[1, 1](out)
    assert "huge-shared" in raised.value.source_line


def test_local_arrays_beyond_512_kib_per_thread():
    @simt.kernel
    def k(out):
        small = simt.local.array(1024, np.float64)  # 8 KiB
        big = simt.local.array(65536, np.float64)  # 512 KiB: past the limit with `small`
        small[0] = 1.0
        big[0] = small[0]
        out[0] = big[0]

    with pytest.raises(simt.CompileError, match=r"local arrays of 532480 bytes per thread are "
                                                r"more than simt allows \(524288"):
        k.inspect_source("float64[::1]")


def test_grids_beyond_what_a_device_runs(device):
    out = simt.zeros(1, np.float32, device=device)
    if device.backend == "opencl":
        with pytest.raises(ValueError, match=rf"a grid of 65536 x 65536 x 1 blocks is more than "
                                             rf"{device.id} runs in one launch \(4294967295"):
            k_nothing[(65536, 65536), 1](out)
    y = device.max_grid_dim[1]
    if y < 2**31 - 1:
        with pytest.raises(ValueError, match=rf"grid dimension y is {y + 1}, more than "
                                             rf"{device.id} allows \({y}\)"):
            k_nothing[(1, y + 1), 1](out)
