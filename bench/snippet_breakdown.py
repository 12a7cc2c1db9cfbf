"""Where a warm ElementwiseKernel / ReductionKernel call spends its host time, layer by
layer (issue 20: their warm calls should cost no more than CuPy's).

Run: python3 bench/snippet_breakdown.py [device]   (default: the current device; a
CUDA or OpenCL device). Prints the median per call, in µs, of:
- the whole call (what bench/gpu.py compares with CuPy's),
- the warm-call key (_fast_key), the warm call with its launches replaced by nothing,
- the raw launches alone, with the arguments the warm call passes,
- the whole call with a device synchronization after each call (the device's own time
  per call included: tells whether a queue of launches, not the host, sets the pace).
"""

import sys

import numpy as np

import simt
from simt import _snippet_kernels as snippets

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from timing import host_us  # noqa: E402


def _launch_args(fast, args):
    """The arguments the warm call `fast` passes to its (first) launch for `args`."""
    call = []
    for index, extra, convert in getattr(fast, "parts", None) or fast.inputs:
        value = args[index]
        call.append(value if convert is None else convert(value))
        call.extend(extra)
    return call


def breakdown(name, kernel, args, device, inner):
    kernel(*args)
    key = snippets._fast_key(args, kernel._BLOCK if hasattr(kernel, "_BLOCK") else 256)
    fast = kernel._fast.get(key)
    rows = [("whole call", host_us(lambda: kernel(*args), inner=inner)),
            ("_fast_key", host_us(lambda: snippets._fast_key(args, 256), inner=inner))]
    if fast is not None:
        if isinstance(fast, snippets._FastCall):
            launch = fast.launch
            call = _launch_args(fast, args) + list(fast.tail)
            rows.append(("launch alone", host_us(lambda: launch(*call), inner=inner)))
            fast.launch = None
            rows.append(("warm call, no launch", host_us(lambda: fast(args), inner=inner)))
            fast.launch = launch
        else:
            partial, final = fast.partial_launch, fast.final_launch
            rows.append(("launches per call", "1" if fast.partial is None else "2"))
            fast.partial_launch = fast.final_launch = lambda *a: None
            rows.append(("warm call, no launches", host_us(lambda: fast(args), inner=inner)))
            fast.partial_launch, fast.final_launch = partial, final
    rows.append(("whole call + synchronize",
                 host_us(lambda: (kernel(*args), device.synchronize()), inner=inner // 4)))
    print(f"{name} on {device.id}:")
    for what, value in rows:
        print(f"  {what:<28} {value:>8.2f} us" if isinstance(value, float)
              else f"  {what:<28} {value}")


def main():
    device = simt.get_device(sys.argv[1] if len(sys.argv) > 1 else None)
    simt.use_device(device)
    one = simt.ones(1, np.float32, device=device)
    out = simt.empty(1, np.float32, device=device)
    ek = simt.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x * 2 + y",
                                "ek_breakdown")
    rk = simt.ReductionKernel("float32 x", "float32 y", "x", "a + b", "y = a", "0",
                              "rk_breakdown")
    inner = 2000
    breakdown("ElementwiseKernel, 1 element", ek, (one, one, out), device, inner)
    breakdown("ReductionKernel, 1 element", rk, (one,), device, inner)


if __name__ == "__main__":
    main()
