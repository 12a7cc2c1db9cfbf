"""Cooperative groups: `cuda.cg.this_grid().sync()`, a barrier across every block of a
launch, on every device, against NumPy.

A kernel that syncs the grid is cooperative: all of its blocks must run at once, so a
launch with more blocks than `max_cooperative_grid_blocks(blockdim)` is a ValueError.
OpenCL has no grid barrier: such a kernel is a TypingError there, naming the construct
and the devices that run it. A fault in one block, or a Ctrl-C, must not leave the other
blocks of a CPU launch waiting forever (checked in child processes, so a hang fails the
test rather than the run).
"""

import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

import simt
import kernel_helpers
from simt import cuda

THIS_FILE = Path(__file__).resolve()


def line_of(marker):
    return kernel_helpers.marker_line(THIS_FILE, marker)


def launch(device, kernel, grid, block, *args):
    """kernel[grid, block](*args) on `device`; on OpenCL, asserts the clear error instead
    and returns False."""
    with simt.use_device(device):
        if device.backend != "opencl":
            kernel[grid, block](*args)
            return True
        with pytest.raises(simt.TypingError) as caught, warnings.catch_warnings():
            warnings.simplefilter("ignore", simt.PerformanceWarning)  # NumPy staging
            kernel[grid, block](*args)
    text = str(caught.value)
    assert "grid-wide barrier (cuda.cg.this_grid().sync()) is not supported on " + device.id \
        in text, text
    assert "cooperative kernels run on cuda and cpu devices" in text, text
    return False


@cuda.jit
def sequential_rows(M):
    # Numba's documentation example of a grid group.
    col = cuda.grid(1)
    g = cuda.cg.this_grid()
    rows, cols = M.shape
    for row in range(1, rows):
        opposite = cols - col - 1
        M[row, col] = M[row - 1, opposite] + 1
        g.sync()  # sequential_rows sync


def sequential_rows_reference(M):
    M = M.copy()
    cols = M.shape[1]
    for row in range(1, M.shape[0]):
        M[row] = M[row - 1, ::-1] + 1
    return M


def test_numbas_sequential_rows_example(device):
    rng = np.random.default_rng()
    blocks, threads = 4, 16
    start = np.zeros((96, blocks * threads), dtype=np.int32)
    start[0] = rng.integers(-1000, 1000, blocks * threads)
    M = start.copy()
    M[1:] = -12345  # poison: every row after the first is written by the kernel
    if not launch(device, sequential_rows, blocks, threads, M):
        return
    np.testing.assert_array_equal(M, sequential_rows_reference(start))


@cuda.jit
def ping_pong(a, b, steps):
    # Each phase reads values other blocks wrote in the phase before: without the
    # grid barrier a block would read its neighbours' old (or poisoned) values.
    i = cuda.grid(1)
    n = a.size
    shift = cuda.blockDim.x + 1
    for step in range(steps):
        b[i] = a[(i + shift) % n] * 3 + step
        cuda.cg.this_grid().sync()
        a[i] = b[(i + n - shift) % n] - b[(i + shift) % n] + i
        cuda.cg.this_grid().sync()


def ping_pong_reference(a, steps):
    a = a.copy()
    n = a.size
    shift = THREADS + 1
    index = np.arange(n)
    for step in range(steps):
        b = a[(index + shift) % n] * 3 + step
        a = b[(index + n - shift) % n] - b[(index + shift) % n] + index
    return a


BLOCKS, THREADS = 12, 16


@pytest.mark.parametrize("steps", [1, 7])
def test_phases_read_what_other_blocks_wrote_before_the_barrier(device, steps):
    rng = np.random.default_rng()
    a = rng.integers(-100, 100, BLOCKS * THREADS).astype(np.int64)
    expected = ping_pong_reference(a, steps)
    b = np.full_like(a, -99999)  # poison
    if not launch(device, ping_pong, BLOCKS, THREADS, a, b, steps):
        return
    np.testing.assert_array_equal(a, expected)


@cuda.jit
def stencil_2d(grid_in, out, sweeps):
    # Blocks of shared memory and block barriers combined with grid barriers, in 2-D.
    x, y = cuda.grid(2)
    tile = cuda.shared.array((4, 8), np.float64)
    g = cuda.cg.this_grid()
    h, w = grid_in.shape
    for sweep in range(sweeps):
        tile[cuda.threadIdx.y, cuda.threadIdx.x] = grid_in[y, x]
        cuda.syncthreads()
        left = grid_in[y, (x + w - 1) % w]
        right = grid_in[y, (x + 1) % w]
        up = grid_in[(y + h - 1) % h, x]
        down = grid_in[(y + 1) % h, x]
        out[y, x] = 0.5 * tile[cuda.threadIdx.y, cuda.threadIdx.x] + 0.125 * (
            left + right + up + down)
        g.sync()
        grid_in[y, x] = out[y, x]
        g.sync()


def test_grid_barrier_with_shared_memory_in_two_dimensions(device):
    rng = np.random.default_rng()
    field = rng.standard_normal((16, 24))
    expected = field.copy()
    for _ in range(5):
        expected = 0.5 * expected + 0.125 * (
            np.roll(expected, 1, 1) + np.roll(expected, -1, 1) + np.roll(expected, 1, 0) +
            np.roll(expected, -1, 0))
    out = np.full_like(field, np.nan)
    if not launch(device, stencil_2d, (3, 4), (8, 4), field, out, 5):
        return
    np.testing.assert_allclose(field, expected, rtol=1e-12, atol=1e-12)


def test_too_many_blocks_is_a_value_error_naming_the_limit(device):
    if device.backend == "opencl":
        pytest.skip("OpenCL devices reject grid barriers when the kernel compiles")
    M = np.zeros((4, 8), dtype=np.int32)
    with simt.use_device(device):
        sequential_rows[1, 8](M)  # compiles
        limit = sequential_rows.max_cooperative_grid_blocks(8)
        assert limit > 0
        M = np.zeros((4, (limit + 1) * 8), dtype=np.int32)
        with pytest.raises(ValueError) as caught:
            sequential_rows[limit + 1, 8](M)
    text = str(caught.value)
    assert f"the launch has {limit + 1} blocks" in text, text
    assert f"can run at most {limit} of 8 threads at once" in text, text
    assert "cuda.cg.this_grid().sync()" in text, text


@pytest.mark.needs_cpu
def test_max_cooperative_grid_blocks_as_numba_and_simt_give_it():
    with simt.use_device("cpu"):
        @cuda.jit("void(int32[:, ::1])")
        def rows(M):
            g = cuda.cg.this_grid()
            g.sync()

        (signature,) = rows.overloads
        numba_style = rows.overloads[signature].max_cooperative_grid_blocks(64)
        assert numba_style > 0
        assert rows.max_cooperative_grid_blocks((8, 8)) == numba_style
        assert rows.max_cooperative_grid_blocks(64, "int32[:, ::1]", dynsmemsize=0) == numba_style
        assert simt.kernel(rows.py_func).max_cooperative_grid_blocks(
            32, np.zeros((2, 2), np.int32)) == numba_style
        with pytest.raises(ValueError, match="blockdim"):
            rows.max_cooperative_grid_blocks(0)


@pytest.mark.needs_cpu
def test_every_block_runs_at_once_up_to_the_limit_on_the_cpu():
    # The launch the limit allows: every block waits at the barrier for all the others.
    @simt.kernel
    def count_then_read(counter, seen):
        if simt.thread_idx.x == 0:
            simt.atomic.add(counter, 0, 1)
        simt.cg.this_grid().sync()
        if simt.thread_idx.x == 0:
            seen[simt.block_idx.x] = counter[0]

    with simt.use_device("cpu"):
        counter = np.zeros(1, np.int64)
        seen = np.zeros(1, np.int64)
        count_then_read[1, 2](counter, seen)
        limit = count_then_read.max_cooperative_grid_blocks(2)
        counter = np.zeros(1, np.int64)
        seen = np.full(limit, -1, np.int64)
        count_then_read[limit, 2](counter, seen)
    np.testing.assert_array_equal(seen, np.full(limit, limit))


@cuda.jit(device=True)
def add_then_sync(g, a, i):
    a[i] += 1
    g.sync()


@cuda.jit
def sync_in_device_function(a):
    i = cuda.grid(1)
    add_then_sync(cuda.cg.this_grid(), a, i)  # device function sync


@pytest.mark.needs_cpu
def test_grid_sync_in_a_device_function_compiles_for_cuda_and_is_an_error_on_the_cpu():
    source = sync_in_device_function.inspect_source("int64[::1]", dialect="cuda")
    assert "simt_grid_sync(simt_grid_barrier);" in source
    assert "unsigned int* simt_grid_barrier) {" in source  # the kernel's hidden parameter
    with simt.use_device("cpu"):
        with pytest.raises(simt.CompileError) as caught:
            sync_in_device_function[1, 4](np.zeros(4, np.int64))
    assert "can only be called in the kernel itself" in str(caught.value)


@pytest.mark.needs_cpu
def test_misuse_is_a_typing_error_naming_the_construct():
    @cuda.jit
    def wrong_method(a):
        g = cuda.cg.this_grid()
        g.wait()  # wrong method

    @cuda.jit
    def sync_takes_nothing(a):
        cuda.cg.this_grid().sync(1)  # sync arguments

    @cuda.jit
    def grid_group_is_not_a_number(a):
        a[0] = cuda.cg.this_grid()  # not a number

    a = np.zeros(4, np.float64)
    with simt.use_device("cpu"):
        with pytest.raises(simt.TypingError) as caught:
            wrong_method[1, 1](a)
        assert f":{line_of('wrong method')}:" in str(caught.value)
        assert "has the method sync(), not 'wait'" in str(caught.value)
        with pytest.raises(simt.TypingError) as caught:
            sync_takes_nothing[1, 1](a)
        assert f":{line_of('sync arguments')}:" in str(caught.value)
        assert "takes 0 arguments (1 given)" in str(caught.value)
        with pytest.raises(simt.TypingError) as caught:
            grid_group_is_not_a_number[1, 1](a)
        assert f":{line_of('not a number')}:" in str(caught.value)
        with pytest.raises(RuntimeError, match="only be called inside a simt kernel"):
            cuda.cg.this_grid()


CHILD = textwrap.dedent('''
    import sys, time
    import numpy as np
    import simt

    @simt.kernel
    def fault_while_others_wait(a, far):
        if simt.block_idx.x == 3:
            a[far] = 1.0
        simt.cg.this_grid().sync()
        a[simt.grid(1)] = 2.0

    @simt.kernel
    def spin_while_others_wait(x):
        if simt.block_idx.x == 0:
            while x[0] == 0:
                x[1] += 1
        simt.cg.this_grid().sync()

    simt.use_device("cpu")
    if sys.argv[1] == "fault":
        a = np.zeros(64, np.float64)
        try:
            fault_while_others_wait[8, 8](a, 2**40)
        except simt.DeviceError as error:
            print("DeviceError:", error, flush=True)
        fault_while_others_wait[8, 8](a, 0)
        print("after:", a[1:].min(), flush=True)
    else:
        x = np.ones(2, np.int64)
        spin_while_others_wait[8, 4](x)  # compiles
        x[:] = 0
        print("waiting", flush=True)
        start = time.monotonic()
        try:
            spin_while_others_wait[8, 4](x)
        except KeyboardInterrupt:
            print(f"KeyboardInterrupt after {time.monotonic() - start:.2f} s", flush=True)
        x[0] = 1
        spin_while_others_wait[8, 4](x)
        print("exiting", flush=True)
''')


@pytest.mark.needs_cpu
def test_a_fault_in_one_block_releases_the_others(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    done = subprocess.run([sys.executable, str(script), "fault"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("DeviceError: kernel 'fault_while_others_wait' on cpu touched "
                               "memory it may not"), done.stdout
    assert "in block (3, 0, 0)" in lines[0]
    assert lines[1] == "after: 2.0", done.stdout


@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT")
@pytest.mark.needs_cpu
def test_ctrl_c_stops_a_cooperative_launch(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    child = subprocess.Popen([sys.executable, str(script), "interrupt"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "waiting"
        time.sleep(1.0)  # compiled and running: block 0 spins, the others wait
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 0, (out, err)
    lines = out.splitlines()
    assert lines[0].startswith("KeyboardInterrupt after"), (out, err)
    assert lines[-1] == "exiting", (out, err)


@pytest.mark.needs_cpu
def test_grid_sync_in_fiber_mode_is_an_error_on_the_cpu():
    """A kernel whose block barriers differ between threads runs as fibers on the CPU,
    where a grid barrier would be reached once per thread: refused, not run wrong."""
    @cuda.jit
    def divergent(a):
        t = cuda.threadIdx.x
        if t < a[0]:
            cuda.syncthreads()
        cuda.cg.this_grid().sync()

    with simt.use_device("cpu"):
        with pytest.raises(simt.CompileError, match="can only be called in the kernel itself"):
            divergent[2, 4](np.zeros(4, np.int64))
