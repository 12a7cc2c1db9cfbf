"""Ctrl-C while simt waits: KeyboardInterrupt comes within a fraction of a
second, and a CPU kernel stuck in a loop stops, so the program can exit.

Each case runs in a child process (a signal is process-wide), which launches
a kernel that spins until told to stop and prints a line when it is about to
wait; the test then sends SIGINT and expects the child to report the
exception and exit by itself.
"""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import simt

pytestmark = pytest.mark.skipif("cpu" not in [d.id for d in simt.devices()],
                                reason="the cpu device is not built here")


CHILD = textwrap.dedent('''
    import signal, sys, time
    import numpy as np
    import simt

    @simt.kernel
    def spin(x):
        # Until the host writes x[0] (read atomically, so the compiler reads
        # it every time): an infinite loop, as far as Ctrl-C knows.
        while simt.atomic.add(x, 0, 0) == 0:
            x[1] += 1

    @simt.kernel
    def spin_nested(x):
        i = simt.grid(1)
        while x[0] == 0:
            for k in range(10):
                x[1] += k
            while x[0] == 0:
                x[1] += i

    @simt.kernel
    def spin_fibers(x):
        # A barrier under a varying condition: the CPU runs this in fiber mode.
        t = simt.thread_idx.x
        while x[0] == 0:
            if t % 2 == 0:
                simt.syncthreads()
            x[1] += 1

    mode = sys.argv[1]
    x = simt.zeros(2, dtype=np.int64, device="cpu")
    view = np.asarray(x)  # now: reading it later waits for the queued kernels

    class Stop(Exception):
        pass

    def stop(signum, frame):
        view[0] = 1  # CPU memory: lets the kernel end, as it is not cancelled
        raise Stop()

    if mode == "own-handler":
        signal.signal(signal.SIGINT, stop)
    stream = simt.Stream(device="cpu") if mode not in ("one-block", "grid", "fibers") else None
    start = None
    try:
        with simt.use_device("cpu"):
            if mode == "one-block":
                print("waiting", flush=True); start = time.monotonic()
                spin[1, 1](x)
            elif mode == "grid":
                print("waiting", flush=True); start = time.monotonic()
                spin_nested[64, 32](x)
            elif mode == "fibers":
                print("waiting", flush=True); start = time.monotonic()
                spin_fibers[4, 64](x)
            elif mode == "queued":
                # The second kernel waits behind the first: the Ctrl-C skips it too.
                spin[1, 1, stream](x)
                spin[1, 1, stream](x)
                print("waiting", flush=True); start = time.monotonic()
                stream.synchronize()
            elif mode in ("stream", "own-handler"):
                spin[1, 1, stream](x)
                print("waiting", flush=True); start = time.monotonic()
                stream.synchronize()
            elif mode == "event":
                spin[1, 1, stream](x)
                event = simt.Event()
                event.record(stream)
                print("waiting", flush=True); start = time.monotonic()
                event.synchronize()
            elif mode == "get":
                spin[1, 1, stream](x)
                print("waiting", flush=True); start = time.monotonic()
                x.get()
            elif mode == "device":
                spin[1, 1, stream](x)
                print("waiting", flush=True); start = time.monotonic()
                simt.get_device("cpu").synchronize()
        print("returned without an interrupt", flush=True)
    except KeyboardInterrupt:
        print(f"KeyboardInterrupt after {time.monotonic() - start:.2f} s", flush=True)
    except Stop:
        print(f"Stop after {time.monotonic() - start:.2f} s", flush=True)
    # The array is usable afterwards, and the next launch runs normally (not
    # cancelled by the Ctrl-C that stopped the last one).
    assert x.get()[1] != 0
    y = simt.zeros(2, dtype=np.int64, device="cpu")
    np.asarray(y)[0] = 1
    spin[1, 1](y)

    @simt.kernel
    def count(out, n):
        i = 0
        while i < n:
            out[0] += 1
            i += 1

    z = simt.zeros(1, dtype=np.int64, device="cpu")
    count[1, 1](z, 1000)
    assert z.get()[0] == 1000, z.get()
    print("exiting", flush=True)
''')


def run_child(tmp_path, mode):
    script = tmp_path / "child.py"  # kernels are read from their file
    script.write_text(CHILD)
    child = subprocess.Popen([sys.executable, str(script), mode], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        first = child.stdout.readline()
        assert first.strip() == "waiting", (first, child.stderr.read())
        time.sleep(0.5)  # the kernel runs, the host waits (compiling is done by now)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=20)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    return child.returncode, out, err


@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT")
@pytest.mark.parametrize("mode", ["one-block", "grid", "fibers", "stream", "queued", "event",
                                  "get", "device"])
def test_ctrl_c_interrupts_the_wait_and_stops_the_cpu_kernel(tmp_path, mode):
    code, out, err = run_child(tmp_path, mode)
    assert code == 0, (out, err)
    lines = out.splitlines()
    assert lines[0].startswith("KeyboardInterrupt after"), (out, err)
    assert float(lines[0].split()[2]) < 5.0, out  # not after the kernel (it never ends)
    assert lines[-1] == "exiting", (out, err)


@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT")
def test_a_signal_handler_of_the_program_runs_and_its_exception_is_raised(tmp_path):
    # With a handler of its own the program may go on after Ctrl-C, so the
    # kernel is not cancelled; the wait still returns to run the handler.
    code, out, err = run_child(tmp_path, "own-handler")
    assert code == 0, (out, err)
    assert out.splitlines()[0].startswith("Stop after"), (out, err)
    assert out.splitlines()[-1] == "exiting", (out, err)
