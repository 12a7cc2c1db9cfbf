"""Shared pytest fixtures for simt's Python tests.

Every test that takes the ``device`` fixture runs once per available device
(``cuda:N``, ``opencl:N``, ``cpu``), so each backend gets the same tests.
``SIMT_TEST_DEVICES`` (comma-separated ids or backend names, e.g.
``opencl`` or ``cuda:0,cpu``) restricts the run to some of them.
"""

import os
import sys
from pathlib import Path

import numpy as np
import pytest


REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The source checkout's root directory."""
    return REPO_ROOT


@pytest.fixture
def seed(request) -> int:
    """This test's random seed: fresh every run, or $SIMT_TEST_SEED to replay a failure.

    The seed is shown in the report of a failing test.
    """
    value = int(os.environ.get("SIMT_TEST_SEED") or np.random.SeedSequence().entropy % 2**32)
    request.node.user_properties.append(("seed", value))
    return value


@pytest.fixture
def rng(seed) -> np.random.Generator:
    """A fresh random generator per test (fresh inputs every run), seeded by ``seed``."""
    return np.random.default_rng(seed)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    if report.failed:
        for name, value in item.user_properties:
            if name == "seed":
                report.sections.append(
                    ("random seed", f"replay with SIMT_TEST_SEED={value}"))


def _device_ids():
    try:
        import simt
    except ImportError:
        return []
    wanted = [w.strip() for w in os.environ.get("SIMT_TEST_DEVICES", "").split(",") if w.strip()]
    found = simt.devices()
    if wanted:
        found = [d for d in found if d.id in wanted or d.backend in wanted]
        if not found:
            raise pytest.UsageError(
                f"SIMT_TEST_DEVICES={os.environ['SIMT_TEST_DEVICES']!r} matches none of "
                f"{[d.id for d in simt.devices()]}")
    return [d.id for d in found]


def pytest_generate_tests(metafunc):
    # Every test that takes `device` runs once per available device: cpu,
    # opencl:N, cuda:N as the backends find them.
    if "device" in metafunc.fixturenames:
        ids = _device_ids()
        metafunc.parametrize("device", ids, ids=ids, indirect=True)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "needs_cpu: the test runs on the cpu device by name; skipped where simt "
        "has none (a build without the CPU backend, as on the GPU machine)")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    # Tests that name the cpu device (in this process or in a child's script) cannot run
    # where simt was built without the CPU backend (the GPU machine's build): they are
    # skipped there, with the reason, rather than failed.
    try:
        return (yield)
    except Exception as error:
        if "no device 'cpu'" in str(error) and "cpu" not in _device_ids():
            pytest.skip("the test uses the cpu device, which this simt build has not")
        raise


def pytest_runtest_setup(item):
    if item.get_closest_marker("needs_cpu") and "cpu" not in _device_ids():
        pytest.skip("no cpu device in this simt build")


@pytest.fixture
def device(request):
    """A simt.Device; tests using it run once per available device."""
    import simt

    return simt.get_device(request.param)


@pytest.fixture
def current(device):
    """The test's device as the current one, for the test: Numba and CuPy programs
    launch and allocate on the current device."""
    import simt

    with simt.use_device(device):
        yield device


@pytest.fixture(scope="session", autouse=True)
def compile_every_kernel_for_cuda():
    """Every kernel specialization a test compiles is also emitted as CUDA C++ and
    compiled by NVRTC for sm_90 where NVRTC is present (as in CI, which has no GPU),
    so a CUDA codegen break fails the suite on any machine."""
    import simt

    if not simt._core.nvrtc_compile("extern \"C\" __global__ void k() {}")["available"]:
        yield
        return
    failures = []

    def observe(function, arg_types, globals_, debug, boundscheck, link, max_registers):
        try:
            generated = function.generate(list(arg_types), globals_, "cuda", debug,
                                          boundscheck, link, max_registers)
        except simt.CompileError as error:
            if "has no source for cuda" in str(error):
                return  # links C++ or OpenCL C only: nothing to compile for CUDA
            raise
        result = simt._core.nvrtc_compile(generated["source"], 90)
        if not result["ok"]:
            failures.append(f"{function.name}{tuple(arg_types)}:\n{result['log']}\n"
                            f"{generated['source']}")

    previous = simt._core.set_compile_observer(observe)
    yield
    simt._core.set_compile_observer(previous)
    assert not failures, "generated CUDA that NVRTC rejects:\n" + "\n".join(failures)
