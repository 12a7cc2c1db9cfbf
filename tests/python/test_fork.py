"""Processes forked after simt opened its devices (multiprocessing's default start method
on Linux, DataLoader-style workers): the cpu device works in the child; a GPU device
(OpenCL, CUDA), whose driver does not survive fork(), raises DeviceError naming the spawn
start method instead of hanging; a spawned child opens the devices afresh."""

import multiprocessing
import os
import queue

import numpy as np
import pytest

import simt


@simt.kernel
def increment(a):
    i = simt.grid(1)
    if i < a.size:
        a[i] += 1


def _child(device_id, results):
    try:
        a = simt.zeros(1000, device=device_id)
        increment[4, 256](a)
        results.put(("ok", float(a.get().sum())))
    except simt.DeviceError as error:
        results.put(("DeviceError", str(error)))


def _run_child(method, device):
    a = simt.zeros(1000, device=device)  # the parent uses the device first
    increment[4, 256](a)
    assert a.get().sum() == 1000
    context = multiprocessing.get_context(method)
    results = context.Queue()
    child = context.Process(target=_child, args=(device.id, results))
    child.start()
    child.join(120)
    alive = child.is_alive()
    if alive:
        child.kill()
    assert not alive, f"the {method} child hung on {device.id}"
    try:
        return results.get(timeout=10)
    except queue.Empty:
        pytest.fail(f"the {method} child on {device.id} exited with {child.exitcode}, "
                    f"reporting nothing")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork() here")
def test_a_forked_child_uses_the_cpu_and_is_told_why_not_a_gpu(device):
    outcome, detail = _run_child("fork", device)
    if device.backend == "cpu":
        assert (outcome, detail) == ("ok", 1000.0)
    else:
        assert outcome == "DeviceError", detail
        assert device.id in detail and "fork()" in detail and "'spawn'" in detail, detail


def test_a_spawned_child_opens_the_device_afresh(device):
    assert _run_child("spawn", device) == ("ok", 1000.0)
