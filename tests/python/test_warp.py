"""Warp operations (lane id, shuffles, votes) on every available device, against NumPy.

Warps are 32 threads on CUDA and on the CPU backend. On OpenCL they are subgroups; a
device without subgroup support runs each warp operation as work-group barriers, so there
one that only some threads of the block reach is a CompileError naming the device, and the
tests using such code skip there. Expectations are computed from the warp size a kernel
reports, with blocks whose size is a multiple of it and full masks.
"""

from pathlib import Path

import numpy as np
import pytest

import simt
import kernel_helpers
from simt import cuda

FULL = 0xFFFFFFFF
BLOCK = 128
SHUFFLE_TYPES = [np.int32, np.uint32, np.int64, np.float32, np.float64]

THIS_FILE = Path(__file__).resolve()


def line_of(marker):
    """The 1-based line of this file holding the comment `# <marker>`."""
    return kernel_helpers.marker_line(THIS_FILE, marker)


def no_warps_error(device, error):
    """Whether `error` is an OpenCL device saying it has no warp (subgroup) support."""
    if device.backend != "opencl" or isinstance(error, simt.BackendCompileError):
        return False
    text = str(error)
    return device.id in text or device.name in text or "subgroup" in text.lower()


def launch(device, kernel, grid, block, *args):
    """kernel[grid, block](*args), skipping on an OpenCL device without subgroups."""
    try:
        kernel[grid, block](*args)
    except simt.CompileError as error:
        if no_warps_error(device, error):
            pytest.skip(f"{device.id} has no warp operations: {error.reason}")
        raise


def lanes_of(n, ws):
    """(lane, index of lane 0 of the same warp) for threads 0..n-1 of 1-D blocks."""
    t = np.arange(n)
    lane = t % ws
    return lane, t - lane


# ------------------------------------------------------------------ lane id and warp size

@simt.kernel
def k_lane_info(lane, ws):
    t = cuda.threadIdx.x + cuda.blockDim.x * (
        cuda.threadIdx.y + cuda.blockDim.y * cuda.threadIdx.z)
    g = cuda.blockIdx.x * (cuda.blockDim.x * cuda.blockDim.y * cuda.blockDim.z) + t
    lane[g] = cuda.laneid
    ws[g] = cuda.warpsize


def warp_size(device):
    with simt.use_device(device):
        lane = simt.full(32, -1, dtype=np.int32, device=device)
        ws = simt.full(32, -1, dtype=np.int32, device=device)
        launch(device, k_lane_info, 1, 32, lane, ws)
    return int(ws.get()[0])


@pytest.mark.parametrize("block", [(BLOCK,), (16, 8), (8, 4, 2), (256,)], ids=str)
def test_laneid_and_warpsize(device, block):
    """laneid is the linear thread index in the block modulo the warp size; 32 on CUDA and
    the CPU."""
    nb = 3
    per_block = int(np.prod(block))
    n = nb * per_block
    with simt.use_device(device):
        lane = simt.full(n, -1, dtype=np.int32, device=device)
        ws = simt.full(n, -1, dtype=np.int32, device=device)
        launch(device, k_lane_info, nb, block, lane, ws)
    ws = ws.get()
    size = int(ws[0])
    assert (ws == size).all(), f"warpsize differs between threads: {np.unique(ws)}"
    if device.backend in ("cuda", "cpu"):
        assert size == 32
    np.testing.assert_array_equal(lane.get(), np.arange(n) % per_block % size,
                                  err_msg=f"laneid with block {block}")


@simt.kernel
def k_activemask(out):
    m = cuda.activemask()
    out[cuda.grid(1)] = m


def test_activemask_outside_divergence_is_full(device):
    nb = 2
    with simt.use_device(device):
        out = simt.zeros(nb * BLOCK, dtype=np.uint32, device=device)
        launch(device, k_activemask, nb, BLOCK, out)
    ws = warp_size(device)
    np.testing.assert_array_equal(out.get(), np.full(nb * BLOCK, (1 << ws) - 1, np.uint32))


# ------------------------------------------------------------------------------ shuffles

@simt.kernel
def k_shfl(x, src, bsrc, bcast, gather):
    i = cuda.grid(1)
    v = x[i]
    bcast[i] = cuda.shfl_sync(FULL, v, bsrc[i // cuda.warpsize])
    gather[i] = cuda.shfl_sync(FULL, v, src[i])


def random_of(rng, dtype, n):
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(n).astype(dtype) * 1000
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("dtype", SHUFFLE_TYPES)
def test_shfl_sync_broadcast_and_gather(device, rng, dtype):
    """shfl_sync from one lane per warp (broadcast) and from a random lane per thread."""
    ws = warp_size(device)
    nb = 3
    n = nb * BLOCK
    x = random_of(rng, dtype, n)
    src = rng.integers(0, ws, n).astype(np.int32)
    bsrc = rng.integers(0, ws, n // ws).astype(np.int32)
    with simt.use_device(device):
        bcast = simt.zeros(n, dtype=dtype, device=device)
        gather = simt.zeros(n, dtype=dtype, device=device)
        launch(device, k_shfl, nb, BLOCK, *(simt.to_device(v, device=device) for v in
                                            (x, src, bsrc)), bcast, gather)
    lane, base = lanes_of(n, ws)
    np.testing.assert_array_equal(bcast.get(), x[base + bsrc[np.arange(n) // ws]],
                                  err_msg="shfl_sync broadcast")
    np.testing.assert_array_equal(gather.get(), x[base + src], err_msg="shfl_sync gather")


@simt.kernel
def k_shfl_directions(x, delta, up, down, xor_, up1, down16):
    i = cuda.grid(1)
    v = x[i]
    up[i] = cuda.shfl_up_sync(FULL, v, delta)
    down[i] = cuda.shfl_down_sync(FULL, v, delta)
    xor_[i] = cuda.shfl_xor_sync(FULL, v, delta)
    up1[i] = cuda.shfl_up_sync(FULL, v, 1)
    down16[i] = cuda.shfl_down_sync(FULL, v, 16)


@pytest.mark.parametrize("dtype", SHUFFLE_TYPES)
def test_shfl_up_down_xor(device, rng, dtype):
    """Lanes whose source falls outside the warp keep their own value (up: lane < delta;
    down: lane + delta >= warpsize); xor exchanges lane ^ mask. Deltas at run time and as
    constants."""
    ws = warp_size(device)
    nb = 2
    n = nb * BLOCK
    x = random_of(rng, dtype, n)
    lane, base = lanes_of(n, ws)
    i = np.arange(n)

    def up_of(d):
        return np.where(lane >= d, x[np.maximum(i - d, 0)], x)

    def down_of(d):
        return np.where(lane + d < ws, x[np.minimum(i + d, n - 1)], x)

    for d in sorted({0, 1, ws // 2, ws - 1, int(rng.integers(1, ws))}):
        with simt.use_device(device):
            outs = [simt.zeros(n, dtype=dtype, device=device) for _ in range(5)]
            launch(device, k_shfl_directions, nb, BLOCK, simt.to_device(x, device=device), d,
                   *outs)
        up, down, xor_, up1, down16 = (o.get() for o in outs)
        np.testing.assert_array_equal(up, up_of(d), err_msg=f"shfl_up_sync by {d}")
        np.testing.assert_array_equal(down, down_of(d), err_msg=f"shfl_down_sync by {d}")
        np.testing.assert_array_equal(xor_, x[base + (lane ^ d)], err_msg=f"shfl_xor_sync {d}")
        np.testing.assert_array_equal(up1, up_of(1), err_msg="shfl_up_sync by constant 1")
        if ws == 32:
            np.testing.assert_array_equal(down16, down_of(16),
                                          err_msg="shfl_down_sync by constant 16")


# ---------------------------------------------------------------------- warp reductions

@simt.kernel
def k_warp_sum(x, out):
    i = cuda.grid(1)
    v = x[i] if i < x.size else 0
    offset = cuda.warpsize // 2
    while offset > 0:
        v += cuda.shfl_down_sync(FULL, v, offset)
        offset //= 2
    if cuda.laneid == 0:
        out[i // cuda.warpsize] = v


@simt.kernel
def k_warp_allreduce(x, out):
    i = cuda.grid(1)
    v = x[i] if i < x.size else np.float32(0)
    mask = 1
    while mask < cuda.warpsize:
        v += cuda.shfl_xor_sync(FULL, v, mask)
        mask *= 2
    if i < x.size:
        out[i] = v


@simt.func
def warp_max(v):
    offset = cuda.warpsize // 2
    while offset > 0:
        v = max(v, cuda.shfl_xor_sync(FULL, v, offset))
        offset //= 2
    return v


@simt.kernel
def k_warp_max_via_func(x, out):
    i = cuda.grid(1)
    m = warp_max(x[i] if i < x.size else x[0])
    if i < x.size:
        out[i] = m


def test_warp_shuffle_reduction(device, rng):
    """Per-warp sums with shfl_down_sync in a loop over the warp size; the last block is
    partial (its idle threads take part with 0)."""
    ws = warp_size(device)
    n = 1000
    x = rng.integers(-10**6, 10**6, n).astype(np.int32)
    nb = -(-n // BLOCK)
    n_warps = nb * BLOCK // ws
    with simt.use_device(device):
        out = simt.full(n_warps, -1, dtype=np.int32, device=device)
        launch(device, k_warp_sum, nb, BLOCK, simt.to_device(x, device=device), out)
    padded = np.zeros(n_warps * ws, np.int64)
    padded[:n] = x
    np.testing.assert_array_equal(out.get(), padded.reshape(-1, ws).sum(axis=1),
                                  err_msg="per-warp sums")


def test_warp_butterfly_allreduce(device, rng):
    """shfl_xor_sync butterfly: every lane ends with its warp's sum (the same bits)."""
    ws = warp_size(device)
    n = 1000
    x = rng.standard_normal(n).astype(np.float32)
    nb = -(-n // BLOCK)
    with simt.use_device(device):
        out = simt.full(n, np.nan, dtype=np.float32, device=device)
        launch(device, k_warp_allreduce, nb, BLOCK, simt.to_device(x, device=device), out)
    got = out.get()
    padded = np.zeros(nb * BLOCK, np.float64)
    padded[:n] = x
    sums = padded.reshape(-1, ws).sum(axis=1)
    expected = np.repeat(sums, ws)[:n]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-4, err_msg="butterfly sums")
    per_warp = np.full(len(sums) * ws, np.nan, np.float32)
    per_warp[:n] = got
    per_warp = per_warp.reshape(-1, ws)
    for w, row in enumerate(per_warp):
        row = row[~np.isnan(row)]
        assert (row == row[0]).all(), f"lanes of warp {w} disagree: {np.unique(row)}"


def test_warp_reduction_in_a_device_function(device, rng):
    """Shuffles inside a @simt.func. The CPU backend may refuse warp operations in device
    functions (a CompileError saying so)."""
    ws = warp_size(device)
    n = 900
    x = rng.standard_normal(n)
    nb = -(-n // BLOCK)
    with simt.use_device(device):
        out = simt.full(n, np.nan, dtype=np.float64, device=device)
        try:
            launch(device, k_warp_max_via_func, nb, BLOCK, simt.to_device(x, device=device), out)
        except simt.CompileError as error:
            if (device.backend == "cpu" and not isinstance(error, simt.BackendCompileError)
                    and "device function" in str(error)):
                pytest.xfail(f"the CPU backend refuses warp operations in device functions: "
                             f"{error}")
            raise
    padded = np.full(nb * BLOCK, x[0])
    padded[:n] = x
    expected = np.repeat(padded.reshape(-1, ws).max(axis=1), ws)[:n]
    np.testing.assert_array_equal(out.get(), expected)


# -------------------------------------------------------------------------------- votes

@simt.kernel
def k_votes(p, x, ballot, ballot_cmp, all_, any_):
    i = cuda.grid(1)
    ballot[i] = cuda.ballot_sync(FULL, p[i])
    ballot_cmp[i] = cuda.ballot_sync(FULL, x[i] > 0.0)
    all_[i] = cuda.all_sync(FULL, p[i])
    any_[i] = cuda.any_sync(FULL, p[i])


def test_ballot_all_any(device, rng):
    """ballot_sync: bit `lane` set where the predicate holds (any non-zero value); all_sync
    and any_sync: non-zero where every / some lane's predicate holds."""
    ws = warp_size(device)
    nb = 4
    n = nb * BLOCK
    n_warps = n // ws
    p = rng.integers(0, 2, (n_warps, ws)).astype(np.int32)
    p[0] = 1
    p[1] = 0
    p[2] = 0
    p[2, rng.integers(ws)] = 1
    p[3] = 1
    p[3, rng.integers(ws)] = 0
    p[4, 0] = 1
    p[4, 1:] = 0
    p[5, -1] = 1
    p[5, :-1] = 0
    p[6] *= rng.integers(-3, 4, ws).astype(np.int32)  # non-zero values are true
    x = rng.standard_normal(n)
    with simt.use_device(device):
        outs = [simt.zeros(n, dtype=np.uint32, device=device) for _ in range(2)] + [
            simt.full(n, -1, dtype=np.int32, device=device) for _ in range(2)]
        launch(device, k_votes, nb, BLOCK, simt.to_device(p.ravel(), device=device),
               simt.to_device(x, device=device), *outs)
    ballot, ballot_cmp, all_, any_ = (o.get().reshape(n_warps, ws) for o in outs)
    weights = np.left_shift(np.uint64(1), np.arange(ws, dtype=np.uint64))

    def bits(truth):
        return np.repeat((truth * weights).sum(axis=1, dtype=np.uint64).astype(np.uint32)
                         [:, None], ws, axis=1)

    truth = p != 0
    for w in range(n_warps):
        assert (ballot[w] == bits(truth)[w]).all(), (
            f"ballot_sync in warp {w}: got {[hex(v) for v in np.unique(ballot[w])]}, "
            f"expected {hex(bits(truth)[w, 0])}")
    np.testing.assert_array_equal(ballot_cmp, bits((x > 0).reshape(n_warps, ws)),
                                  err_msg="ballot_sync of a comparison")
    np.testing.assert_array_equal(all_ != 0, np.repeat(truth.all(1, keepdims=True), ws, 1),
                                  err_msg="all_sync")
    np.testing.assert_array_equal(any_ != 0, np.repeat(truth.any(1, keepdims=True), ws, 1),
                                  err_msg="any_sync")


@simt.kernel
def k_operand_side_effects(counter, out):
    i = cuda.grid(1)
    v = cuda.shfl_sync(FULL, cuda.atomic.add(counter, 0, 1), 0)
    out[i] = v


def test_warp_operation_operands_are_evaluated_once(device):
    """An operand with a side effect (an atomic ticket) runs once per thread; every lane
    gets lane 0's ticket."""
    ws = warp_size(device)
    nb = 2
    n = nb * BLOCK
    with simt.use_device(device):
        counter = simt.zeros(1, dtype=np.int32, device=device)
        out = simt.full(n, -1, dtype=np.int32, device=device)
        launch(device, k_operand_side_effects, nb, BLOCK, counter, out)
    assert counter.get()[0] == n, f"{counter.get()[0]} tickets taken by {n} threads"
    per_warp = out.get().reshape(-1, ws)
    assert (per_warp == per_warp[:, :1]).all(), "lanes of a warp got different values"
    tickets = per_warp[:, 0]
    assert len(np.unique(tickets)) == len(tickets) and ((0 <= tickets) & (tickets < n)).all(), (
        f"lane-0 tickets {tickets}")


@simt.kernel
def k_simt_names(x, lane, nxt, bits):
    i = simt.grid(1)
    lane[i] = simt.laneid + simt.warpsize * 0
    nxt[i] = simt.shfl_down_sync(FULL, x[i], 1)
    bits[i] = simt.ballot_sync(FULL, x[i] > 0)


def test_warp_api_under_simt_names(device, rng):
    ws = warp_size(device)
    n = BLOCK
    x = rng.integers(-100, 100, n).astype(np.int32)
    with simt.use_device(device):
        lane = simt.full(n, -1, dtype=np.int64, device=device)
        nxt = simt.zeros(n, dtype=np.int32, device=device)
        bits = simt.zeros(n, dtype=np.uint32, device=device)
        launch(device, k_simt_names, 1, BLOCK, simt.to_device(x, device=device), lane, nxt, bits)
    lanes, _ = lanes_of(n, ws)
    np.testing.assert_array_equal(lane.get(), lanes)
    np.testing.assert_array_equal(nxt.get(), np.where(lanes + 1 < ws, np.roll(x, -1), x))
    w = ((x > 0).reshape(-1, ws) * (1 << np.arange(ws, dtype=np.uint64))).sum(axis=1)
    np.testing.assert_array_equal(bits.get(), np.repeat(w.astype(np.uint32), ws))


@simt.kernel
def k_warp_types(x, out):
    i = cuda.grid(1)
    lane = cuda.laneid
    size = cuda.warpsize
    mask = cuda.activemask()
    b = cuda.ballot_sync(FULL, x[i] > 0)
    a = cuda.all_sync(FULL, x[i] > 0)
    y = cuda.any_sync(FULL, x[i] > 0)
    v = cuda.shfl_sync(FULL, x[i], 0)
    out[i] = lane + size + mask + b + a + y + v


def test_warp_operation_result_types(device):
    x = np.zeros(32, np.float32)
    types = k_warp_types.inspect_types(x, x)
    expected = {"lane": "int32", "size": "int32", "mask": "uint32", "b": "uint32",
                "a": "bool", "y": "bool", "v": "float32"}
    assert {k: types[k] for k in expected} == expected, types


# ---------------------------------------------------------------------------- errors

@simt.kernel
def e_vote_of_some_threads(x):
    if cuda.threadIdx.x < 16:
        x[cuda.threadIdx.x] = cuda.ballot_sync(0xFFFF, True)  # err:some-threads


@simt.kernel
def e_vote_after_some_threads_returned(x):
    if cuda.threadIdx.x >= 40:
        return
    x[cuda.threadIdx.x] = cuda.ballot_sync(FULL, True)  # err:after-return


@cuda.jit(device=True)
def d_shuffle(v):
    return cuda.shfl_down_sync(FULL, v, 1)  # err:device-function


@simt.kernel
def e_shuffle_in_device_function(x):
    x[cuda.threadIdx.x] = d_shuffle(x[cuda.threadIdx.x])


def test_warp_ops_some_threads_skip_name_the_device(device):
    """An OpenCL device without sub-groups runs each warp operation as work-group
    barriers: one that only some threads of the block may reach (under a thread-dependent
    condition, after a thread-dependent return, in a device function) is a CompileError
    naming the device and the call, not a hang. Elsewhere these kernels run."""
    if device.backend != "opencl":
        pytest.skip("only OpenCL devices may lack sub-groups")
    cases = [(e_vote_of_some_threads, "err:some-threads"),
             (e_vote_after_some_threads_returned, "err:after-return"),
             (e_shuffle_in_device_function, "err:device-function")]
    with simt.use_device(device):
        x = simt.zeros(64, dtype=np.uint32, device=device)
        for kernel, marker in cases:
            try:
                kernel[1, 64](x)
            except simt.CompileError as error:
                assert not isinstance(error, simt.BackendCompileError), str(error)
                text = str(error)
                assert device.id in text, text
                assert "reached by every thread of the block" in text, text
                assert error.line == line_of(marker), (marker, text)
            else:
                pytest.skip(f"{device.id} has sub-groups")


@simt.kernel
def k_warp0_reduction(x, out):
    """The usual form: the block's partial sums in shared memory, then warp 0 alone
    finishes with shuffles (legal CUDA: the whole warp takes the branch)."""
    s = cuda.shared.array(BLOCK, np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    if t < 32:
        v = s[t] + s[t + 32] + s[t + 64] + s[t + 96]
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(FULL, v, offset)
            offset //= 2
        if t == 0:
            out[cuda.blockIdx.x] = v


@simt.kernel
def k_half_warp_broadcast(x, out):
    v = x[cuda.threadIdx.x]
    if cuda.laneid < 16:
        v = cuda.shfl_sync(0x0000FFFF, v, 0)  # lanes 0-15 take lane 0's value
    out[cuda.threadIdx.x] = v


def test_warp_operations_under_warp_uniform_conditions(device, rng):
    """Warp operations inside `if` and `while` whose conditions differ between warps (or
    between lanes, with a mask naming the lanes that take the branch)."""
    nb = 5
    x = rng.standard_normal(nb * BLOCK - 17)
    y = rng.integers(-1000, 1000, BLOCK).astype(np.int64)
    with simt.use_device(device):
        sums = simt.full(nb, np.nan, dtype=np.float64, device=device)
        out = simt.zeros(BLOCK, dtype=np.int64, device=device)
        try:
            k_warp0_reduction[nb, BLOCK](simt.to_device(x, device=device), sums)
            k_half_warp_broadcast[1, BLOCK](simt.to_device(y, device=device), out)
        except simt.CompileError as error:
            if no_warps_error(device, error):
                pytest.skip(f"{device.id} has no warp operations")
            raise
    padded = np.zeros(nb * BLOCK)
    padded[:x.size] = x
    np.testing.assert_allclose(sums.get(), padded.reshape(nb, BLOCK).sum(axis=1), rtol=1e-12)
    lanes = np.arange(BLOCK) % 32
    expected = np.where(lanes < 16, y[np.arange(BLOCK) - lanes], y)
    np.testing.assert_array_equal(out.get(), expected)


def e_ballot_in_thread_loop(x):
    for j in range(cuda.threadIdx.x % 3):
        x[cuda.threadIdx.x] = cuda.ballot_sync(FULL, j > 0)


def test_warp_op_in_a_loop_of_varying_length(device):
    """A ballot in a `for` whose range differs between lanes (the CPU runs it in fiber
    mode): each pass votes among the lanes still looping; lanes that left have exited.
    OpenCL's sub-group ballot (cl_khr_subgroup_ballot) is one of its non-uniform
    operations, so it takes the same meaning there."""
    kernel = simt.kernel(e_ballot_in_thread_loop)
    with simt.use_device(device):
        x = simt.full(64, 7, dtype=np.int64, device=device)
        launch(device, kernel, 1, 64, x)
    t = np.arange(64)
    last = np.array([sum(1 << k for k in range(32) if (32 * (i // 32) + k) % 3 == 2)
                     for i in t])
    expected = np.select([t % 3 == 0, t % 3 == 1], [7, 0], last)
    np.testing.assert_array_equal(x.get(), expected)


@simt.kernel
def k_lane0_of_each_warp(x, out):
    t = cuda.threadIdx.x + cuda.blockDim.x * cuda.threadIdx.y
    out[t] = cuda.shfl_sync(FULL, x[t], 0)


@pytest.mark.parametrize("block", [(64, 2), (32, 3), (80, 1), (16, 4)], ids=str)
def test_warps_of_two_dimensional_blocks(device, block):
    """A warp is 32 consecutive threads of the block's linear order (x fastest), as on
    CUDA. OpenCL devices with sub-groups form them along each row of the work-group
    instead, so there a warp kernel's block must be one row or rows of whole warps:
    another shape is a ValueError that says so, not warps that differ from CUDA's (those
    without sub-groups form CUDA's warps)."""
    threads = block[0] * block[1]
    x = np.arange(threads, dtype=np.int64) * 3 + 1
    with simt.use_device(device):
        out = simt.full(threads, -1, dtype=np.int64, device=device)
        split_rows = block[0] % 32 != 0 and block[1] > 1
        if device.backend == "opencl" and split_rows:
            try:
                launch(device, k_lane0_of_each_warp, 1, block,
                       simt.to_device(x, device=device), out)
            except ValueError as error:
                text = str(error)
                assert device.id in text and "multiple of 32" in text, text
                assert f"{block[0]} x {block[1]} x 1" in text, text
                return
        else:
            launch(device, k_lane0_of_each_warp, 1, block, simt.to_device(x, device=device),
                   out)
    t = np.arange(threads)
    np.testing.assert_array_equal(out.get(), x[t - t % 32])


@simt.kernel
def k_lanes_past_the_end(x, top, votes, same):
    i = cuda.grid(1)
    v = x[i] if i < x.size else x[0]
    offset = 16
    while offset > 0:
        v = max(v, cuda.shfl_xor_sync(FULL, v, offset))
        offset //= 2
    positive = x[i] > 0 if i < x.size else True
    b = cuda.ballot_sync(FULL, positive)
    m = cuda.match_any_sync(FULL, 1 if positive else 0)
    if i < x.size:
        top[i] = v
        votes[i] = b
        same[i] = m


def test_lanes_past_the_end_take_part_in_warp_operations(device, rng):
    """Threads past the end of the array still give the values they compute to the warp,
    though they store nothing. (Intel's OpenCL compiler took the sub-group functions for
    functions of each work-item's own operand, and computed those lanes' operands from the
    other branch: x[i] instead of x[0].)"""
    n = 900  # the last warp holds 4 threads inside the array
    x = rng.standard_normal(n)
    x[0] = 10.0  # larger than every other element: the padded lanes' value
    x[n - 4:] = -np.abs(x[n - 4:])
    nb = -(-n // BLOCK)
    with simt.use_device(device):
        top = simt.full(n, np.nan, dtype=np.float64, device=device)
        votes = simt.zeros(n, dtype=np.uint32, device=device)
        same = simt.zeros(n, dtype=np.uint32, device=device)
        launch(device, k_lanes_past_the_end, nb, BLOCK, simt.to_device(x, device=device),
               top, votes, same)
    padded = np.full(nb * BLOCK, x[0])
    padded[:n] = x
    warps = padded.reshape(-1, 32)
    np.testing.assert_array_equal(top.get(), np.repeat(warps.max(axis=1), 32)[:n])
    bits = (1 << np.arange(32)).astype(np.uint64)
    positive = warps > 0
    ballots = (positive * bits).sum(axis=1).astype(np.uint32)
    np.testing.assert_array_equal(votes.get(), np.repeat(ballots, 32)[:n])
    lane_same = np.where(positive, ballots[:, None], ~ballots[:, None]).astype(np.uint32)
    np.testing.assert_array_equal(same.get(), lane_same.reshape(-1)[:n])


@simt.kernel
def k_eq_sync(p, out, counter, ticket_eq):
    i = cuda.grid(1)
    out[i] = cuda.eq_sync(FULL, p[i])
    # A predicate with a side effect (an atomic ticket) is taken once per lane.
    ticket_eq[i] = cuda.eq_sync(FULL, cuda.atomic.add(counter, 0, 1) >= 0)


def test_eq_sync_says_whether_every_lane_agrees(device, rng):
    """eq_sync: true in every lane of a warp whose predicates are all true or all false
    (Numba's vote.sync.uni), each lane's predicate evaluated once."""
    ws = warp_size(device)
    nb = 2
    n = nb * BLOCK
    n_warps = n // ws
    p = (rng.random((n_warps, ws)) < 0.5).astype(np.int32)
    p[0] = 1  # a warp all true
    p[1] = 0  # a warp all false
    with simt.use_device(device):
        out = simt.full(n, -1, dtype=np.int32, device=device)
        ticket_eq = simt.full(n, -1, dtype=np.int32, device=device)
        counter = simt.zeros(1, dtype=np.int32, device=device)
        launch(device, k_eq_sync, nb, BLOCK, simt.to_device(p.ravel(), device=device), out,
               counter, ticket_eq)
    agree = p.all(axis=1) | ~p.any(axis=1)
    np.testing.assert_array_equal(out.get().reshape(n_warps, ws) != 0,
                                  np.repeat(agree[:, None], ws, axis=1))
    assert counter.get()[0] == n, f"{counter.get()[0]} tickets taken by {n} threads"
    assert (ticket_eq.get() == 1).all()


def test_a_mask_that_is_not_an_integer_is_a_clear_error(device):
    def bad_mask(x):
        i = cuda.grid(1)
        x[i] = cuda.all_sync(x[i], x[i] > 0)

    kernel = simt.kernel(bad_mask)
    x = simt.zeros(32, dtype=np.float32, device=device)
    with pytest.raises(simt.TypingError, match=r"all_sync\(\): Mask type must be an integer, "
                                               r"not 'float32'"):
        kernel[1, 32](x)


def test_a_predicate_that_is_not_an_integer_or_bool_is_a_clear_error(device):
    def bad_predicate(m, x):
        i = cuda.grid(1)
        x[i] = cuda.all_sync(m[i], x[i])  # a float: CUDA's votes take an int

    kernel = simt.kernel(bad_predicate)
    m = simt.zeros(32, dtype=np.uint32, device=device)
    x = simt.zeros(32, dtype=np.float32, device=device)
    with pytest.raises(simt.TypingError, match=r"all_sync\(\): Predicate must be an integer or "
                                               r"boolean, not 'float32'"):
        kernel[1, 32](m, x)
