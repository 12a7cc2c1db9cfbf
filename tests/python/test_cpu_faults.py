"""A CPU kernel that faults (an unchecked index far past an array's end) raises
simt.DeviceError naming the kernel and the block, and the process and the device go on;
a fault outside kernels still ends the process as it would without simt.

Each case runs in a fresh interpreter, so a regression fails the test rather than the
test run.
"""

import re
import signal
import subprocess
import sys
import textwrap

import pytest

import simt

pytestmark = pytest.mark.skipif("cpu" not in [d.id for d in simt.devices()],
                                reason="the cpu device is not built here")


def run(tmp_path, code, *args):
    script = tmp_path / "faults.py"  # kernels need their source in a file
    script.write_text(textwrap.dedent(code))
    return subprocess.run([sys.executable, *args, str(script)], capture_output=True, text=True,
                          timeout=300)


FAULTING_KERNEL = """
    import numpy as np, simt
    simt.use_device("cpu")

    @simt.kernel
    def poke(a, index):
        i = simt.grid(1)
        if i == 77:
            a[index] = 1.0

    a = simt.zeros(16, np.float64)
"""


def test_fault_in_a_kernel_is_a_device_error_and_the_device_goes_on(tmp_path):
    done = run(tmp_path, FAULTING_KERNEL + """
    for launch in range(3):
        try:
            poke[4, 32](a, 2**40)
        except simt.DeviceError as error:
            print("DeviceError:", error)
    # The device still runs kernels, and gets them right.
    b = simt.zeros(16, np.float64)
    poke[4, 32](b, 3)
    print("after:", b.get().tolist())
    """)
    assert done.returncode == 0, done.stderr
    errors = [line for line in done.stdout.splitlines() if line.startswith("DeviceError:")]
    assert len(errors) == 3, done.stdout
    assert "kernel 'poke' on cpu touched memory it may not (SIGSEGV" in errors[0]
    # Thread 77: block 2 of blocks of 32, or a call that ran a row of blocks with it.
    where = re.search(r"in (?:block \((\d+)|one of blocks \((\d+)\.\.(\d+)), 0, 0\)", errors[0])
    assert where, errors[0]
    first, last = (int(where[1]),) * 2 if where[1] else (int(where[2]), int(where[3]))
    assert first <= 2 <= last, errors[0]
    assert "boundscheck=True" in errors[0]
    expected = [0.0] * 16
    expected[3] = 1.0
    assert f"after: {expected}" in done.stdout


def test_fault_on_a_stream_is_raised_at_its_synchronize(tmp_path):
    done = run(tmp_path, FAULTING_KERNEL + """
    stream = simt.Stream()
    poke[64, 32, stream](a, -2**40)
    try:
        stream.synchronize()
    except simt.DeviceError as error:
        print("DeviceError:", error)
    stream.synchronize()  # raised once
    print("ok")
    """)
    assert done.returncode == 0, done.stderr
    assert "DeviceError: kernel 'poke' on cpu touched memory it may not" in done.stdout
    assert done.stdout.rstrip().endswith("ok")


@pytest.mark.parametrize("faulthandler", [False, True])
def test_a_fault_outside_kernels_still_ends_the_process(tmp_path, faulthandler):
    done = run(tmp_path, FAULTING_KERNEL + """
    poke[4, 32](a, 0)  # the handlers are installed and a kernel ran
    import ctypes
    ctypes.string_at(0)
    print("survived")
    """, *(["-X", "faulthandler"] if faulthandler else []))
    assert "survived" not in done.stdout
    assert done.returncode == -signal.SIGSEGV
    if faulthandler:
        assert "Fatal Python error: Segmentation fault" in done.stderr


# Shared and local arrays (issue 40): an unchecked index outside one never reaches the
# runtime's stack frames or the heap. Shared memory lies between guard pages, so an
# overrun either stays in the block's own shared memory or is a DeviceError; a local
# array's index is checked, an overrun a DeviceError. Each runs in a subprocess with a
# timeout: before, these crashed the interpreter, corrupted the heap or spun forever.

SHARED_OVERRUN = """
    import sys
    import numpy as np, simt
    simt.use_device("cpu")

    @simt.kernel
    def poke_shared(out, index):
        s = simt.shared.array(32, simt.float64)
        t = simt.threadIdx.x
        s[t] = 2.0
        simt.syncthreads()
        if t == 0:
            s[index] = 1.0
        simt.syncthreads()
        out[t] = s[t]

    out = simt.zeros(32, np.float64)
    for index in [int(v) for v in sys.argv[1:]]:
        try:
            poke_shared[2, 32](out, index)
            print(index, "returned")
        except simt.DeviceError as error:
            print(index, "DeviceError:", error)
    # The process, its heap and the device are intact.
    junk = [np.ones(1000) for _ in range(1000)]
    poke_shared[2, 32](out, 5)
    print("after:", out.get()[:6].tolist())
"""


@pytest.mark.parametrize("stream", [False, True])
def test_a_write_past_a_shared_array_is_contained(tmp_path, stream):
    code = SHARED_OVERRUN
    if stream:
        code = code.replace("poke_shared[2, 32](out, index)",
                            "s = simt.Stream(); poke_shared[2, 32, s](out, index); s.synchronize()")
    script = tmp_path / "shared.py"
    script.write_text(textwrap.dedent(code))
    offsets = [32, 40, 143, 144, 500, 4000, 100000, -33, -1000]
    done = subprocess.run([sys.executable, str(script), *map(str, offsets)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    for index in offsets:
        [line] = [x for x in lines if x.split()[0] == str(index)]
        assert line.endswith("returned") or "kernel 'poke_shared' on cpu touched memory" in line, line
    # Past the end, the block's shared memory ends at a guard page.
    for index in [143, 4000, 100000]:
        [line] = [x for x in lines if x.split()[0] == str(index)]
        assert "DeviceError" in line, line
    assert "after: [2.0, 2.0, 2.0, 2.0, 2.0, 1.0]" in done.stdout


DYNAMIC_TOO_SMALL = """
    import numpy as np, simt
    simt.use_device("cpu")

    @simt.kernel
    def fill(out):
        s = simt.shared.array(0, simt.float64)
        t = simt.threadIdx.x
        s[t] = 1.0
        simt.syncthreads()
        out[t] = s[t]

    out = simt.zeros(32, np.float64)
    try:
        fill[1, 32, 0, 8](out)  # 32 threads write 8 bytes each into 8 bytes
        print("returned")
    except simt.DeviceError as error:
        print("DeviceError:", error)
    junk = [np.ones(1000) for _ in range(1000)]
    fill[1, 32, 0, 32 * 8](out)
    print("after:", out.get().sum())
"""


def test_dynamic_shared_memory_smaller_than_used_is_contained(tmp_path):
    done = run(tmp_path, DYNAMIC_TOO_SMALL)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "DeviceError: kernel 'fill' on cpu touched memory it may not" in done.stdout
    assert "after: 32.0" in done.stdout


LOCAL_OVERRUN = """
    import sys
    import numpy as np, simt
    simt.use_device("cpu")

    @simt.kernel
    def poke_local(out, index):
        l = simt.local.array(32, simt.float64)
        t = simt.threadIdx.x
        for j in range(32):
            l[j] = j
        l[index] = 5.0
        out[t] = l[t % 32]

    out = simt.zeros(32, np.float64)
    for index in [int(v) for v in sys.argv[1:]]:
        try:
            poke_local[1, 32](out, index)
            print(index, "returned")
        except simt.DeviceError as error:
            print(index, "DeviceError:", error)
    poke_local[1, 32](out, 3)
    print("after:", out.get()[:4].tolist())
"""


@pytest.mark.parametrize("barrier", [False, True])  # a loop per block; regions with scratch
def test_an_index_past_a_local_array_is_a_device_error(tmp_path, barrier):
    code = LOCAL_OVERRUN
    if barrier:
        code = code.replace("        l[index] = 5.0\n", "        simt.syncthreads()\n        l[index] = 5.0\n")
    script = tmp_path / "local.py"
    script.write_text(textwrap.dedent(code))
    offsets = [32, 33, 34, 40, 1000, -33, -10**6]
    done = subprocess.run([sys.executable, str(script), *map(str, offsets)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    for index in offsets:
        [line] = [x for x in lines if x.split()[0] == str(index)]
        assert (f"DeviceError: kernel 'poke_local' on cpu stopped in block (0, 0, 0): index "
                f"{index} is outside a local array's axis of length 32") in line, line
    assert "after: [0.0, 1.0, 2.0, 5.0]" in done.stdout
