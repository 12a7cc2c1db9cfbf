"""Small whole algorithms combining shared memory, barriers, atomics and device functions,
on every available device, against NumPy."""

import math

import numpy as np
import pytest

import simt
import kernel_helpers
from kernel_helpers import on  # noqa: F401
from simt import cuda

BLOCK = 128
NB_TILE = 128  # n-body: bodies per shared tile (= threads per block)


def blocks(n, block=BLOCK):
    return kernel_helpers.blocks(n, block)


# -------------------------------------------------------------------------------- n-body

@simt.func
def pair_accel(xi, yi, zi, xj, yj, zj, mj, eps2):
    """Acceleration of body i caused by body j (softened gravity, G = 1)."""
    dx = xj - xi
    dy = yj - yi
    dz = zj - zi
    r2 = dx * dx + dy * dy + dz * dz + eps2
    inv_r = 1.0 / math.sqrt(r2)
    s = mj * inv_r * inv_r * inv_r
    return dx * s, dy * s, dz * s


@simt.kernel
def k_nbody_accel(pos, mass, acc, eps2):
    sp = cuda.shared.array((NB_TILE, 3), np.float32)
    sm = cuda.shared.array(NB_TILE, np.float32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    n = pos.shape[0]
    me = min(i, n - 1)
    xi = pos[me, 0]
    yi = pos[me, 1]
    zi = pos[me, 2]
    ax = np.float32(0)
    ay = np.float32(0)
    az = np.float32(0)
    for t in range((n + NB_TILE - 1) // NB_TILE):
        j = t * NB_TILE + tid
        if j < n:
            sp[tid, 0] = pos[j, 0]
            sp[tid, 1] = pos[j, 1]
            sp[tid, 2] = pos[j, 2]
            sm[tid] = mass[j]
        else:
            sp[tid, 0] = 0
            sp[tid, 1] = 0
            sp[tid, 2] = 0
            sm[tid] = 0  # a massless body pulls nothing
        cuda.syncthreads()
        for k in range(NB_TILE):
            fx, fy, fz = pair_accel(xi, yi, zi, sp[k, 0], sp[k, 1], sp[k, 2], sm[k], eps2)
            ax += fx
            ay += fy
            az += fz
        cuda.syncthreads()
    if i < n:
        acc[i, 0] = ax
        acc[i, 1] = ay
        acc[i, 2] = az


@simt.kernel
def k_kick_drift(pos, vel, acc, dt):
    i = cuda.grid(1)
    if i < pos.shape[0]:
        for d in range(3):
            vel[i, d] += acc[i, d] * dt
            pos[i, d] += vel[i, d] * dt


def nbody_accel_reference(pos, mass, eps2):
    pos = pos.astype(np.float64)
    d = pos[None, :, :] - pos[:, None, :]  # d[i, j] = pos[j] - pos[i]
    r2 = (d * d).sum(axis=-1) + eps2
    return (mass.astype(np.float64)[None, :, None] * d / (r2 ** 1.5)[..., None]).sum(axis=1)


@pytest.mark.parametrize("n", [1000, 128, 37])
def test_nbody_accelerations(device, rng, n):
    """All-pairs gravity through shared tiles, the pair force in a @simt.func returning a
    tuple; compared with a float64 NumPy computation."""
    pos = rng.uniform(-1, 1, (n, 3)).astype(np.float32)
    mass = rng.uniform(0.5, 1.5, n).astype(np.float32)
    eps2 = np.float32(0.01)
    with on(device):
        acc = simt.full((n, 3), np.nan, dtype=np.float32, device=device)
        k_nbody_accel[blocks(n, NB_TILE), NB_TILE](
            simt.to_device(pos, device=device), simt.to_device(mass, device=device), acc, eps2)
    expected = nbody_accel_reference(pos, mass, eps2)
    np.testing.assert_allclose(acc.get(), expected, rtol=1e-3, atol=1e-4 * np.abs(expected).max(),
                               err_msg=f"n-body accelerations, n={n}")


def test_nbody_integration_steps(device, rng):
    """A few kick-drift steps, alternating two kernels on device arrays."""
    n, steps = 300, 4
    dt = np.float32(1e-3)
    eps2 = np.float32(0.05)
    pos = rng.uniform(-1, 1, (n, 3)).astype(np.float32)
    vel = (rng.standard_normal((n, 3)) * 0.1).astype(np.float32)
    mass = rng.uniform(0.5, 1.5, n).astype(np.float32)
    with on(device):
        d_pos, d_vel = simt.to_device(pos, device=device), simt.to_device(vel, device=device)
        d_mass = simt.to_device(mass, device=device)
        d_acc = simt.zeros((n, 3), dtype=np.float32, device=device)
        for _ in range(steps):
            k_nbody_accel[blocks(n, NB_TILE), NB_TILE](d_pos, d_mass, d_acc, eps2)
            k_kick_drift[blocks(n), BLOCK](d_pos, d_vel, d_acc, dt)
    p, v = pos.astype(np.float64), vel.astype(np.float64)
    for _ in range(steps):
        v = v + nbody_accel_reference(p, mass, float(eps2)) * float(dt)
        p = p + v * float(dt)
    np.testing.assert_allclose(d_vel.get(), v, rtol=1e-3, atol=1e-5, err_msg="velocities")
    np.testing.assert_allclose(d_pos.get(), p, rtol=1e-4, atol=1e-6, err_msg="positions")


# ------------------------------------------------ grid-wide sum: shared tree + atomic finish

@simt.kernel
def k_grid_sum_int(x, total):
    sh = cuda.shared.array(BLOCK, np.int64)
    tid = cuda.threadIdx.x
    acc = 0
    for j in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        acc += x[j]
    sh[tid] = acc
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            sh[tid] += sh[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        cuda.atomic.add(total, 0, sh[0])


@simt.kernel
def k_grid_sum_float(x, total):
    sh = cuda.shared.array(BLOCK, np.float64)
    tid = cuda.threadIdx.x
    acc = np.float64(0)  # a bare 0.0 is weak: acc would be float32, as x
    for j in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        acc += x[j]
    sh[tid] = acc
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            sh[tid] += sh[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        cuda.atomic.add(total, 0, sh[0])


@pytest.mark.parametrize("grid,block", [(4, BLOCK), (13, 64), (1, BLOCK), (40, 32)])
def test_grid_sum_with_shared_reduction_and_atomic_finish(device, rng, grid, block):
    n = 7001
    xi = rng.integers(-2**40, 2**40, n)
    xf = rng.standard_normal(n).astype(np.float32)
    with on(device):
        ti = simt.zeros(1, dtype=np.int64, device=device)
        tf = simt.zeros(1, dtype=np.float64, device=device)
        k_grid_sum_int[grid, block](simt.to_device(xi, device=device), ti)
        k_grid_sum_float[grid, block](simt.to_device(xf, device=device), tf)
    assert ti.get()[0] == xi.sum(), (ti.get()[0], xi.sum())
    expected = xf.astype(np.float64).sum()
    assert abs(tf.get()[0] - expected) <= 1e-11 * np.abs(xf).sum(), (tf.get()[0], expected)


@simt.func
def block_sum(sh, v):
    """The sum of v over the block (every thread gets it), through the shared array sh."""
    tid = cuda.threadIdx.x
    sh[tid] = v
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            sh[tid] += sh[tid + s]
        cuda.syncthreads()
        s //= 2
    total = sh[0]
    cuda.syncthreads()
    return total


@simt.kernel
def k_block_share(x, out):
    sh = cuda.shared.array(BLOCK, np.int64)
    i = cuda.grid(1)
    v = x[i] if i < x.size else 0
    total = block_sum(sh, v)
    if i < x.size:
        out[i] = v * 1000 + total % 1000


def test_barriers_and_shared_array_inside_a_device_function(device, rng):
    """A block reduction written as a @simt.func taking the shared array. The CPU backend
    may refuse barriers in device functions (a CompileError saying so)."""
    n = 1000
    x = rng.integers(0, 10**6, n)
    with on(device):
        out = simt.full(n, -1, dtype=np.int64, device=device)
        try:
            k_block_share[blocks(n), BLOCK](simt.to_device(x, device=device), out)
        except simt.CompileError as error:
            if (device.backend == "cpu" and not isinstance(error, simt.BackendCompileError)
                    and "device function" in str(error)):
                pytest.xfail(f"the CPU backend refuses barriers in device functions: {error}")
            raise
    padded = np.zeros(blocks(n) * BLOCK, np.int64)
    padded[:n] = x
    totals = np.repeat(padded.reshape(-1, BLOCK).sum(axis=1), BLOCK)[:n]
    np.testing.assert_array_equal(out.get(), x * 1000 + totals % 1000)


# ----------------------------------------------------------------------------- histograms

@simt.kernel
def k_histogram(x, w, lo, scale, hist, whist):
    i = cuda.grid(1)
    if i < x.size:
        b = int(math.floor((x[i] - lo) * scale))
        b = min(max(b, 0), hist.size - 1)
        cuda.atomic.add(hist, b, 1)
        cuda.atomic.add(whist, b, w[i])


@pytest.mark.parametrize("nbins", [10, 257])
def test_histogram_against_bincount(device, rng, nbins):
    """Binning float32 values (out-of-range values clamp to the end bins), counted and
    weighted with global atomics."""
    n = 20_000
    x = rng.normal(0, 1.2, n).astype(np.float32)
    w = rng.random(n)
    lo, hi = np.float32(-3), np.float32(3)
    scale = np.float32(nbins / (hi - lo))
    with on(device):
        hist = simt.zeros(nbins, dtype=np.uint32, device=device)
        whist = simt.zeros(nbins, dtype=np.float64, device=device)
        k_histogram[blocks(n, 256), 256](simt.to_device(x, device=device),
                                         simt.to_device(w, device=device), lo, scale, hist,
                                         whist)
    bins = np.clip(np.floor((x - lo) * scale).astype(np.int64), 0, nbins - 1)
    np.testing.assert_array_equal(hist.get(), np.bincount(bins, minlength=nbins),
                                  err_msg="counts")
    np.testing.assert_allclose(whist.get(), np.bincount(bins, weights=w, minlength=nbins),
                               rtol=1e-12, err_msg="weighted counts")


@simt.kernel
def k_compact(x, threshold, out, count):
    i = cuda.grid(1)
    if i < x.size and x[i] > threshold:
        slot = cuda.atomic.add(count, 0, 1)
        out[slot] = x[i]


def test_stream_compaction_with_an_atomic_counter(device, rng):
    n = 10_000
    x = rng.standard_normal(n)
    with on(device):
        out = simt.full(n, np.nan, dtype=np.float64, device=device)
        count = simt.zeros(1, dtype=np.int32, device=device)
        k_compact[blocks(n), BLOCK](simt.to_device(x, device=device), 0.5, out, count)
    kept = x[x > 0.5]
    got = out.get()
    assert count.get()[0] == len(kept)
    np.testing.assert_array_equal(np.sort(got[:len(kept)]), np.sort(kept))
    assert np.isnan(got[len(kept):]).all(), "writes past the counted elements"
