"""The installed wheel, run as a user runs it (scripts/fresh_machine_test.sh runs this in a
fresh venv on a fresh Debian root that has no LLVM, Clang, oneTBB or OpenCL package):
simt comes from site-packages, not a checkout; the cpu device compiles kernels with the
Clang linked into simt._core and runs them on its thread pool; results equal NumPy's.
Then the same kernels on every opencl device there is (after `pip install simt[pocl]`: PoCL
from pip, opened without an ICD loader); with --opencl there must be one, and with
--opencl-kernels its kernels must run too.
Exits non-zero on any failure.

Two failures of the machine, not of simt, are told apart, not hidden (unless
--opencl-kernels): PoCL links each kernel as a C compiler would, with ld, libc.so and libgcc,
which a bare machine lacks (simt then refuses to build, rather than let PoCL abort the
process); and PoCL from pip
(pocl-binary-distribution 3.0, 2022) compiles with LLVM 14, whose Clang rejects CPUs newer
than itself ("unknown target CPU 'generic'": AMD Zen 5, for one). There the device is still
checked (listed, opened, a copy round trip) and the script says why kernels did not run."""

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


# What Clang 14 inside PoCL 3.0 says of a host CPU that LLVM 14 does not know.
_POCL_UNKNOWN_CPU = "unknown target CPU 'generic'"
# What simt says of a PoCL device on a machine without ld, libc.so or libgcc
# (src/backends/opencl/opencl_device.cpp).
_POCL_NO_LINKER = "PoCL links each kernel as a C compiler would"


def run_kernels(device):
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


def main(argv):
    print(f"simt {simt.__version__} from {simt.__file__}")
    if "site-packages" not in simt.__file__:
        sys.exit("simt was not imported from an installed package")
    device = simt.get_device("cpu")
    print(f"device: {device.id} ({device.name})")
    run_kernels(device)
    print("wheel smoke test: saxpy and a shared-memory reduction on cpu equal NumPy's")

    opencl = [d for d in simt.devices() if d.id.startswith("opencl")]
    kernels_required = "--opencl-kernels" in argv
    if ("--opencl" in argv or kernels_required) and not opencl:
        sys.exit("no opencl device (run python -m simt info)")
    for device in opencl:
        print(f"device: {device.id} ({device.name})")
        values = np.arange(1000, dtype=np.float32)
        with simt.use_device(device):
            np.testing.assert_array_equal(simt.to_device(values).get(), values)
        try:
            run_kernels(device)
        except simt.errors.BackendCompileError as error:
            if kernels_required or _POCL_UNKNOWN_CPU not in str(error):
                raise
            print(f"wheel smoke test: {device.id} copies data, but its compiler does not know "
                  f"this CPU ({_POCL_UNKNOWN_CPU}: PoCL 3.0's LLVM 14); kernels not run")
            continue
        except simt.errors.DeviceError as error:
            if kernels_required or _POCL_NO_LINKER not in str(error):
                raise
            reason = str(error).split("cannot build kernels: ", 1)[-1]
            print(f"wheel smoke test: {device.id} copies data, but cannot build kernels: "
                  f"{reason}")
            continue
        print(f"wheel smoke test: saxpy and a shared-memory reduction on {device.id} equal "
              "NumPy's")


if __name__ == "__main__":
    main(sys.argv[1:])
