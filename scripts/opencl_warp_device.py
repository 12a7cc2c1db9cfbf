"""Prints the id of the last OpenCL device (a driver named in $SIMT_OPENCL_DRIVERS comes
after every platform of the system's loader) after checking that it runs a warp shuffle as
CUDA does; exits with the reason otherwise. scripts/test_opencl_subgroups.sh runs the warp
tests on that device, which would only skip on a device without warp operations."""

import sys

import numpy as np

import simt
from simt import cuda


@simt.kernel
def rotate(x):
    x[cuda.threadIdx.x] = cuda.shfl_sync(0xFFFFFFFF, x[cuda.threadIdx.x], cuda.laneid + 1)


def main():
    ids = [d.id for d in simt.devices() if d.backend == "opencl"]
    if not ids:
        sys.exit("no OpenCL device: python -m simt info says why")
    device = simt.get_device(ids[-1])
    with simt.use_device(device):
        x = simt.to_device(np.arange(32), device=device)
        rotate[1, 32](x)
        got = x.get()
    if not (got == (np.arange(32) + 1) % 32).all():
        sys.exit(f"{device.id} ({device.name}) shuffled wrongly: {got}")
    print(f"==> warp operations on {device.id} ({device.name})", file=sys.stderr)
    print(device.id)


if __name__ == "__main__":
    main()
