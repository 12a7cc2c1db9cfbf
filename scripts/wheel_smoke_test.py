"""The installed wheel, run as a user runs it (scripts/fresh_machine_test.sh runs this in a
fresh venv on a fresh Debian root that has no LLVM, Clang or oneTBB package):
simt comes from site-packages, not a checkout; the cpu device compiles kernels with the
Clang linked into simt._core and runs them on its thread pool; results equal NumPy's.
Exits non-zero on any failure."""

import sys

import numpy as np

import simt
from simt import cuda


@simt.kernel
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@simt.kernel
def block_sums(x, out):
    # Shared memory and barriers: the CPU backend's block scheduling, not just a loop.
    tile = cuda.shared.array(256, np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    tile[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    step = 128
    while step > 0:
        if t < step:
            tile[t] += tile[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        out[cuda.blockIdx.x] = tile[0]


def main():
    print(f"simt {simt.__version__} from {simt.__file__}")
    if "site-packages" not in simt.__file__:
        sys.exit("simt was not imported from an installed package")
    device = simt.get_device("cpu")
    print(f"device: {device.id} ({device.name})")

    rng = np.random.default_rng(0)
    n = 1 << 20
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    a = np.float32(2.5)
    with simt.use_device(device):
        out = simt.empty(n, np.float32)
        saxpy[(n + 255) // 256, 256](a, simt.to_device(x), simt.to_device(y), out)
        np.testing.assert_array_equal(out.get(), a * x + y)

        values = rng.random(100_000)
        blocks = (values.size + 255) // 256
        sums = simt.zeros(blocks, np.float64)
        block_sums[blocks, 256](simt.to_device(values), sums)
        np.testing.assert_allclose(sums.get().sum(), values.sum(), rtol=1e-12)
    print("wheel smoke test: saxpy and a shared-memory reduction on cpu equal NumPy's")


if __name__ == "__main__":
    main()
