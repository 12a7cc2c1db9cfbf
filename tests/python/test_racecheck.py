"""The race and barrier checker (racecheck=True, SIMT_RACECHECK=1, cuda.jit(racecheck=True))
on the cpu device.

Each hazard is planted in a kernel written the way users write them (a reduction missing a
barrier, a histogram without atomics, a barrier inside ``if t < 16``, a tiled matmul without
its second barrier, a shuffle with a wrong mask); the test asserts the report's kind and that
it names both Python lines (marked `# name` here). Clean kernels of every shape the checker
instruments (device functions, loops with barriers, dynamic shared memory, atomics on shared
and global memory, warp shuffles) give NumPy's results with and without the check, and
raise nothing.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import simt
import kernel_helpers
from simt import cuda

THIS_FILE = Path(__file__).resolve()
TILE = 8


def at(marker):
    """How the report cites the line holding `# marker`: file:line:column: text."""
    return f"{THIS_FILE.name}:{kernel_helpers.marker_line(THIS_FILE, marker)}:"


def cpu():
    return simt.get_device("cpu")


def raised(launch):
    with pytest.raises(simt.RaceError) as error:
        launch()
    return str(error.value)


# ---- shared memory: a reduction missing its first barrier -----------------------------


def block_sums(x, out):
    s = simt.shared.array(64, np.float32)
    t = simt.threadIdx.x
    i = simt.grid(1)
    s[t] = x[i] if i < x.shape[0] else np.float32(0)  # store
    stride = 32
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]  # add
        simt.syncthreads()
        stride //= 2
    if t == 0:
        out[simt.blockIdx.x] = s[0]


def block_sums_fixed(x, out):
    s = simt.shared.array(64, np.float32)
    t = simt.threadIdx.x
    i = simt.grid(1)
    s[t] = x[i] if i < x.shape[0] else np.float32(0)
    simt.syncthreads()
    stride = 32
    while stride > 0:
        if t < stride:
            s[t] += s[t + stride]
        simt.syncthreads()
        stride //= 2
    if t == 0:
        out[simt.blockIdx.x] = s[0]


def test_reduction_missing_barrier_names_both_lines(rng):
    x = simt.to_device(rng.standard_normal(256).astype(np.float32), device=cpu())
    out = simt.zeros(4, np.float32, device=cpu())
    message = raised(lambda: simt.kernel(racecheck=True)(block_sums)[4, 64](x, out))
    assert re.match(r"(read-write|write-read) race on shared array 's' element \d+ in kernel "
                    r"'block_sums':", message), message
    assert at("store") in message and at("add") in message
    assert "s[t] = x[i]" in message and "s[t] += s[t + stride]" in message
    assert "with no syncthreads() between them" in message
    assert re.search(r"thread \(\d+, 0, 0\) of block \(0, 0, 0\)", message)


def test_clean_reduction_same_result_with_and_without_check(rng):
    data = rng.standard_normal(256).astype(np.float32)
    x = simt.to_device(data, device=cpu())
    results = []
    for checked in (False, True):
        out = simt.full(4, np.nan, np.float32, device=cpu())
        simt.kernel(racecheck=checked)(block_sums_fixed)[4, 64](x, out)
        results.append(out.get())
    np.testing.assert_allclose(results[1], data.reshape(4, 64).sum(axis=1), rtol=1e-5)
    np.testing.assert_array_equal(results[0], results[1])


# ---- global memory: a histogram without atomics ---------------------------------------


def histogram(x, bins):
    i = simt.grid(1)
    if i < x.shape[0]:
        bins[x[i]] += 1  # histogram


def histogram_atomic(x, bins):
    i = simt.grid(1)
    if i < x.shape[0]:
        simt.atomic.add(bins, x[i], 1)


def histogram_reset_race(x, bins):
    i = simt.grid(1)
    if i == 0:
        bins[0] = 0  # reset
    if i < x.shape[0]:
        simt.atomic.add(bins, x[i], 1)  # count


def test_histogram_without_atomics(rng):
    values = rng.integers(0, 8, 512).astype(np.int32)
    x = simt.to_device(values, device=cpu())
    bins = simt.zeros(8, np.int32, device=cpu())
    message = raised(lambda: simt.kernel(racecheck=True)(histogram)[4, 128](x, bins))
    assert re.match(r"(read-write|write-write|write-read) race on global array 'bins' element "
                    r"\d in kernel 'histogram':", message), message
    assert message.count(at("histogram")) == 2, message


def test_histogram_with_atomics_is_clean(rng):
    values = rng.integers(0, 8, 512).astype(np.int32)
    x = simt.to_device(values, device=cpu())
    bins = simt.zeros(8, np.int32, device=cpu())
    simt.kernel(racecheck=True)(histogram_atomic)[4, 128](x, bins)
    np.testing.assert_array_equal(bins.get(), np.bincount(values, minlength=8))


def test_atomic_mixed_with_plain_write():
    x = simt.to_device(np.zeros(256, np.int32), device=cpu())
    bins = simt.zeros(8, np.int32, device=cpu())
    message = raised(lambda: simt.kernel(racecheck=True)(histogram_reset_race)[2, 128](x, bins))
    assert message.startswith("write-atomic race on global array 'bins' element 0"), message
    assert at("reset") in message and at("count") in message
    assert "make both atomic" in message


def last_writer(out):
    out[0] = simt.grid(1)  # everyone


def test_blocks_writing_one_element():
    out = simt.zeros(1, np.int64, device=cpu())
    message = raised(lambda: simt.kernel(racecheck=True)(last_writer)[2, 1](out))
    assert message.startswith("write-write race on global array 'out' element 0"), message
    assert "thread (0, 0, 0) of block (0, 0, 0) wrote it" in message
    assert "thread (0, 0, 0) of block (1, 0, 0) wrote it" in message
    assert "in different blocks" in message


def shift_left(src, dst):
    i = simt.grid(1)
    if i + 1 < src.shape[0]:
        dst[i] = src[i + 1]  # shift


def test_reads_of_an_unwritten_array_that_aliases_a_written_one():
    # The kernel never writes `src`, so its reads are reported only when an argument
    # written shares its memory: here both are one array.
    data = np.arange(512, dtype=np.float32)
    x = simt.to_device(data, device=cpu())
    k = simt.kernel(racecheck=True)(shift_left)
    y = simt.zeros(512, np.float32, device=cpu())
    k[2, 256](x, y)
    np.testing.assert_array_equal(y.get()[:-1], data[1:])
    message = raised(lambda: k[2, 256](x, x))
    assert message.startswith("read-write race on global array 'src'"), message
    assert message.count(at("shift")) == 2


def own_element(out):
    i = simt.grid(1)
    out[i] = simt.threadIdx.y  # own element


def own_and_view(out):
    i = simt.grid(1)
    out[i] = 1.0  # own
    if i == 0:
        out.real[1] = 2.0  # through a view


def test_a_view_of_an_own_element_array_is_checked():
    out = simt.zeros(64, np.complex64, device=cpu())
    message = raised(lambda: simt.kernel(racecheck=True)(own_and_view)[2, 32](out))
    assert at("through a view") in message and at("own") in message, message


def test_own_elements_in_a_launch_of_several_rows():
    # out[i] with i = simt.grid(1) is each thread's own element only in a launch one row of
    # threads high; with two rows, threads (x, 0) and (x, 1) share it.
    out = simt.zeros(64, np.int32, device=cpu())
    k = simt.kernel(racecheck=True)(own_element)
    k[2, 32](out)
    message = raised(lambda: k[2, (32, 2)](out))
    assert message.startswith("write-write race on global array 'out'"), message
    assert "thread (0, 0, 0) of block (0, 0, 0)" in message
    assert "thread (0, 1, 0) of block (0, 0, 0)" in message


# ---- barriers: one inside `if t < 16` -------------------------------------------------


def partial_barrier(x, out):
    s = simt.shared.array(32, np.float32)
    t = simt.threadIdx.x
    s[t] = x[t]
    if t < 16:
        simt.syncthreads()  # partial
    out[t] = s[t] * 2  # after


def test_barrier_inside_if():
    x = simt.to_device(np.arange(32, dtype=np.float32), device=cpu())
    out = simt.zeros(32, np.float32, device=cpu())
    message = raised(lambda: simt.kernel(racecheck=True)(partial_barrier)[1, 32](x, out))
    assert message.startswith("divergent barrier in kernel 'partial_barrier':"), message
    assert "thread (0, 0, 0) of block (0, 0, 0) waited at " + at("partial") in message
    assert "thread (16, 0, 0) of block (0, 0, 0) ended the kernel without reaching it" in message
    assert at("after") in message


def early_exit(x, out):
    s = simt.shared.array(32, np.float32)
    t = simt.threadIdx.x
    if t >= x.shape[0]:
        return
    s[t] = x[t]
    simt.syncthreads()
    out[t] = s[x.shape[0] - 1 - t]


def test_return_before_barrier_is_not_divergent():
    # Threads that leave by `return` owe no later barrier (as on Volta and later GPUs).
    x = simt.to_device(np.arange(20, dtype=np.float32), device=cpu())
    out = simt.zeros(20, np.float32, device=cpu())
    simt.kernel(racecheck=True)(early_exit)[1, 32](x, out)
    np.testing.assert_array_equal(out.get(), np.arange(20, dtype=np.float32)[::-1])


def two_barriers(out):
    t = simt.threadIdx.x
    if t % 2 == 0:
        simt.syncthreads()  # even
    else:
        simt.syncthreads()  # odd
    out[t] = t


def test_different_barriers():
    out = simt.zeros(32, np.int32, device=cpu())
    message = raised(lambda: simt.kernel(racecheck=True)(two_barriers)[1, 32](out))
    assert message.startswith("mismatched barriers in kernel 'two_barriers':"), message
    assert at("even") in message and at("odd") in message


# ---- a tiled matmul with its second barrier removed ----------------------------------


def matmul_one_barrier(a, b, c):
    sa = simt.shared.array((TILE, TILE), np.float32)
    sb = simt.shared.array((TILE, TILE), np.float32)
    tx = simt.threadIdx.x
    ty = simt.threadIdx.y
    row = simt.blockIdx.y * TILE + ty
    col = simt.blockIdx.x * TILE + tx
    acc = np.float32(0)
    for k0 in range(0, a.shape[1], TILE):
        sa[ty, tx] = a[row, k0 + tx]  # load
        sb[ty, tx] = b[k0 + ty, col]
        simt.syncthreads()
        for k in range(TILE):
            acc += sa[ty, k] * sb[k, tx]  # multiply
    c[row, col] = acc


def matmul(a, b, c):
    sa = simt.shared.array((TILE, TILE), np.float32)
    sb = simt.shared.array((TILE, TILE), np.float32)
    tx = simt.threadIdx.x
    ty = simt.threadIdx.y
    row = simt.blockIdx.y * TILE + ty
    col = simt.blockIdx.x * TILE + tx
    acc = np.float32(0)
    for k0 in range(0, a.shape[1], TILE):
        sa[ty, tx] = a[row, k0 + tx]
        sb[ty, tx] = b[k0 + ty, col]
        simt.syncthreads()
        for k in range(TILE):
            acc += sa[ty, k] * sb[k, tx]
        simt.syncthreads()
    c[row, col] = acc


def test_matmul_without_second_barrier(rng):
    a = simt.to_device(rng.standard_normal((16, 32)).astype(np.float32), device=cpu())
    b = simt.to_device(rng.standard_normal((32, 16)).astype(np.float32), device=cpu())
    c = simt.zeros((16, 16), np.float32, device=cpu())
    message = raised(
        lambda: simt.kernel(racecheck=True)(matmul_one_barrier)[(2, 2), (TILE, TILE)](a, b, c))
    assert re.match(r"(write-read|read-write) race on shared array 's[ab]'", message), message
    assert at("load") in message and at("multiply") in message


def test_matmul_clean(rng):
    an = rng.standard_normal((16, 32)).astype(np.float32)
    bn = rng.standard_normal((32, 16)).astype(np.float32)
    a, b = simt.to_device(an, device=cpu()), simt.to_device(bn, device=cpu())
    c = simt.full((16, 16), np.nan, np.float32, device=cpu())
    simt.kernel(racecheck=True)(matmul)[(2, 2), (TILE, TILE)](a, b, c)
    np.testing.assert_allclose(c.get(), an @ bn, rtol=1e-4, atol=1e-4)


# ---- warp shuffles with a wrong mask ---------------------------------------------------


def warp_sums(x, out, mask):
    i = simt.grid(1)
    v = x[i]
    offset = 16
    while offset > 0:
        w = cuda.shfl_down_sync(mask, v, offset)  # shuffle
        v += w
        offset //= 2
    if simt.laneid == 0:
        out[i // 32] = v


def warp_sums_inline(x, out):
    i = simt.grid(1)
    v = x[i]
    offset = 16
    while offset > 0:
        v += cuda.shfl_down_sync(0xFFFF, v, offset)  # inline shuffle
        offset //= 2
    if simt.laneid == 0:
        out[i // 32] = v


def test_shuffle_mask_leaves_out_a_caller(rng):
    x = simt.to_device(rng.standard_normal(64).astype(np.float32), device=cpu())
    out = simt.zeros(2, np.float32, device=cpu())
    message = raised(lambda: simt.kernel(racecheck=True)(warp_sums)[1, 64](x, out, 0xFFFF))
    assert message.startswith("wrong warp mask of cuda.shfl_down_sync in kernel 'warp_sums':"), \
        message
    assert "called it with mask 0x0000ffff at " + at("shuffle") in message
    assert "thread (16, 0, 0) of block (0, 0, 0) called it too, at " + at("shuffle") in message


def test_shuffle_mask_in_fiber_mode(rng):
    # A shuffle inside a larger statement runs in fiber mode: checked the same way.
    x = simt.to_device(rng.standard_normal(32).astype(np.float32), device=cpu())
    out = simt.zeros(1, np.float32, device=cpu())
    message = raised(lambda: simt.kernel(racecheck=True)(warp_sums_inline)[1, 32](x, out))
    assert message.startswith("wrong warp mask"), message
    assert at("inline shuffle") in message


def partial_warp(x, out):
    i = simt.grid(1)
    if i < 20:
        out[i] = cuda.shfl_down_sync(0xFFFFFFFF, x[i], 1)  # partial warp


def test_shuffle_mask_names_a_lane_that_does_not_call():
    x = simt.to_device(np.arange(32, dtype=np.float32), device=cpu())
    out = simt.zeros(32, np.float32, device=cpu())
    message = raised(lambda: simt.kernel(racecheck=True)(partial_warp)[1, 32](x, out))
    assert message.startswith("wrong warp mask"), message
    assert "the mask names thread (20, 0, 0) of block (0, 0, 0), which did not call it" \
        in message
    assert at("partial warp") in message


def test_full_mask_shuffles_are_clean(rng):
    data = rng.standard_normal(64).astype(np.float32)
    x = simt.to_device(data, device=cpu())
    out = simt.zeros(2, np.float32, device=cpu())
    simt.kernel(racecheck=True)(warp_sums)[1, 64](x, out, 0xFFFFFFFF)
    np.testing.assert_allclose(out.get(), data.reshape(2, 32).sum(axis=1), rtol=1e-5)


def warp_reverse(x, out, across):
    s = simt.shared.array(64, np.float32)
    t = simt.threadIdx.x
    s[t] = x[t]  # warp store
    cuda.syncwarp()
    if across:
        out[t] = s[63 - t]  # across warps
    else:
        out[t] = s[(t & ~31) + 31 - (t & 31)]


def test_syncwarp_orders_its_lanes_only():
    data = np.arange(64, dtype=np.float32)
    x = simt.to_device(data, device=cpu())
    out = simt.zeros(64, np.float32, device=cpu())
    k = simt.kernel(racecheck=True)(warp_reverse)
    k[1, 64](x, out, False)
    np.testing.assert_array_equal(out.get(), data.reshape(2, 32)[:, ::-1].ravel())
    message = raised(lambda: k[1, 64](x, out, True))
    assert at("warp store") in message and at("across warps") in message, message


# ---- device functions, dynamic shared memory, shared atomics, loops --------------------


@simt.func
def store_twice(s, t, v):
    s[t] = v
    s[0] = v  # helper race


def with_device_function(x, out):
    s = simt.shared.array(32, np.float32)
    t = simt.threadIdx.x
    store_twice(s, t, x[t])
    simt.syncthreads()
    out[t] = s[t]


def test_race_inside_a_device_function():
    x = simt.to_device(np.arange(32, dtype=np.float32), device=cpu())
    out = simt.zeros(32, np.float32, device=cpu())
    message = raised(lambda: simt.kernel(racecheck=True)(with_device_function)[1, 32](x, out))
    assert message.startswith("write-write race on shared array 's' element 0"), message
    assert message.count(at("helper race")) == 2, message


@simt.func
def exchange(s, t, v):
    s[t] = v
    simt.syncthreads()
    return s[31 - t]


def with_barrier_in_device_function(x, out):
    s = simt.shared.array(32, np.float32)
    t = simt.threadIdx.x
    out[t] = exchange(s, t, x[t])


def test_barrier_inside_a_device_function_is_clean():
    # A barrier in a device function runs the kernel in fiber mode: checked the same way.
    x = simt.to_device(np.arange(32, dtype=np.float32), device=cpu())
    out = simt.zeros(32, np.float32, device=cpu())
    simt.kernel(racecheck=True)(with_barrier_in_device_function)[1, 32](x, out)
    np.testing.assert_array_equal(out.get(), np.arange(32, dtype=np.float32)[::-1])


def dynamic_shift(x, out):
    s = simt.shared.array(0, np.float32)
    t = simt.threadIdx.x
    s[t] = x[simt.grid(1)]
    simt.syncthreads()
    out[simt.grid(1)] = s[(t + 1) % simt.blockDim.x]


def dynamic_shift_racy(x, out):
    s = simt.shared.array(0, np.float32)
    t = simt.threadIdx.x
    s[t] = x[simt.grid(1)]  # dynamic store
    out[simt.grid(1)] = s[(t + 1) % simt.blockDim.x]  # dynamic load


def test_dynamic_shared_memory(rng):
    data = rng.standard_normal(128).astype(np.float32)
    x = simt.to_device(data, device=cpu())
    out = simt.zeros(128, np.float32, device=cpu())
    simt.kernel(racecheck=True)(dynamic_shift)[4, 32, 0, 128](x, out)
    np.testing.assert_array_equal(out.get(), np.roll(data.reshape(4, 32), -1, axis=1).ravel())
    message = raised(
        lambda: simt.kernel(racecheck=True)(dynamic_shift_racy)[4, 32, 0, 128](x, out))
    assert at("dynamic store") in message and at("dynamic load") in message


def shared_histogram(x, bins):
    local = simt.shared.array(8, np.int32)
    t = simt.threadIdx.x
    if t < 8:
        local[t] = 0
    simt.syncthreads()
    i = simt.grid(1)
    if i < x.shape[0]:
        simt.atomic.add(local, x[i], 1)
    simt.syncthreads()
    if t < 8:
        simt.atomic.add(bins, t, local[t])


def test_shared_and_global_atomics_are_clean(rng):
    values = rng.integers(0, 8, 1000).astype(np.int32)
    x = simt.to_device(values, device=cpu())
    bins = simt.zeros(8, np.int32, device=cpu())
    simt.kernel(racecheck=True)(shared_histogram)[8, 128](x, bins)
    np.testing.assert_array_equal(bins.get(), np.bincount(values, minlength=8))


def stencil_steps(a, steps):
    # One block; a loop with two barriers per pass, double-buffered in shared memory.
    s = simt.shared.array((2, 64), np.float32)
    t = simt.threadIdx.x
    s[0, t] = a[t]
    simt.syncthreads()
    for step in range(steps):
        src = step % 2
        left = s[src, (t + 63) % 64]
        right = s[src, (t + 1) % 64]
        s[1 - src, t] = 0.5 * (left + right)
        simt.syncthreads()
    a[t] = s[steps % 2, t]


def test_loop_with_barriers_is_clean(rng):
    data = rng.standard_normal(64).astype(np.float32)
    a = simt.to_device(data, device=cpu())
    simt.kernel(racecheck=True)(stencil_steps)[1, 64](a, 5)
    expected = data.copy()
    for _ in range(5):
        expected = (0.5 * (np.roll(expected, 1) + np.roll(expected, -1))).astype(np.float32)
    np.testing.assert_allclose(a.get(), expected, rtol=1e-5)


# ---- the options -------------------------------------------------------------------------


def test_warn_instead_of_raise():
    out = simt.zeros(1, np.int64, device=cpu())
    with pytest.warns(simt.RaceWarning, match="write-write race on global array 'out'"):
        simt.kernel(racecheck="warn")(last_writer)[2, 1](out)


def test_environment_variable(monkeypatch):
    monkeypatch.setenv("SIMT_RACECHECK", "1")
    k = simt.kernel(last_writer)
    assert k.racecheck is True
    with pytest.raises(simt.RaceError):
        k[2, 1](simt.zeros(1, np.int64, device=cpu()))
    monkeypatch.setenv("SIMT_RACECHECK", "warn")
    assert simt.kernel(last_writer).racecheck == "warn"
    monkeypatch.setenv("SIMT_RACECHECK", "0")
    assert simt.kernel(last_writer).racecheck is False


def test_cuda_jit_racecheck():
    k = cuda.jit(racecheck=True)(last_writer)
    with pytest.raises(simt.RaceError, match="kernel 'last_writer'"):
        k[2, 1](simt.zeros(1, np.int64, device=cpu()))


def test_bad_option():
    with pytest.raises(ValueError, match="racecheck must be"):
        simt.kernel(racecheck="sometimes")(last_writer)


def test_other_devices_refuse():
    others = [d for d in simt.devices() if d.id != "cpu"]
    if not others:
        pytest.skip("no device other than cpu")
    out = simt.zeros(1, np.int64, device=others[0])
    with pytest.raises(ValueError, match="checks on the cpu device only"):
        simt.kernel(racecheck=True)(last_writer)[2, 1](out)


def test_inspect_source_shows_the_reports():
    source = simt.kernel(racecheck=True)(last_writer).inspect_source("int64[::1]")
    assert "simt_race_ref(simt_race" in source
    assert "simt_race" not in simt.kernel(last_writer).inspect_source("int64[::1]")


def test_report_is_the_same_on_every_run(rng):
    values = rng.integers(0, 8, 512).astype(np.int32)
    x = simt.to_device(values, device=cpu())
    k = simt.kernel(racecheck=True)(histogram)
    first = raised(lambda: k[4, 128](x, simt.zeros(8, np.int32, device=cpu())))
    second = raised(lambda: k[4, 128](x, simt.zeros(8, np.int32, device=cpu())))
    assert first == second


# ---- the array library's own kernels -------------------------------------------------------


def test_array_library_kernels_are_race_free():
    # A fresh interpreter with SIMT_RACECHECK=1: every kernel the array library generates
    # (elementwise, reductions, scans, sorting, sets, searching, indexing, manipulation,
    # matmul, fft, random) is made race-checked; the script compares each result with NumPy.
    script = THIS_FILE.parent / "racecheck_array_library.py"
    env = dict(os.environ, SIMT_RACECHECK="1")
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all clean" in done.stdout, done.stdout


def test_scatter_with_repeated_indices_is_a_race():
    # x[idx] = value with repeated indices: blocks write one element without order. The
    # values are equal here, so the result is right, but the checker still says so.
    script = ("import numpy as np, simt\n"
              "x = simt.zeros(1000, np.float64, device='cpu')\n"
              "x[simt.asarray(np.arange(1 << 16) % 1000, device='cpu')] = 3.0\n")
    env = dict(os.environ, SIMT_RACECHECK="1")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=600)
    assert "simt.errors.RaceError: write-write race on global array 'dst'" in done.stderr, \
        done.stderr

