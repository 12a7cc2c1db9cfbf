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
