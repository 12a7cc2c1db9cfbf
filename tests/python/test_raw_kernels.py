"""Raw kernels (CUDA C++ / OpenCL C source from the user), snippet kernels
(ElementwiseKernel, ReductionKernel) and their caches, on every device: CUDA C++ runs
on cuda:N and on the cpu device (compiled as C++), OpenCL C on opencl:N; the
generated CUDA is compiled by NVRTC even without a GPU."""

import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import simt
from kernel_helpers import SAXPY


# Builds without LLVM (the GPU machine's) have no cpu device.
needs_cpu = pytest.mark.skipif(not any(d.id == "cpu" for d in simt.devices()),
                               reason="needs the cpu device")


@pytest.fixture
def raw_device(device):
    """Every device takes raw source: CUDA C++ (cuda:N, cpu) or OpenCL C (opencl:N)."""
    return device


def language(device):
    """The source language of raw kernels on `device`."""
    return "opencl" if device.backend == "opencl" else "cuda"


def nvrtc_available():
    return simt._core.nvrtc_compile('extern "C" __global__ void k() {}')["available"]


def test_saxpy_matches_numpy(raw_device, rng):
    n = int(rng.integers(1, 5000))
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    a = np.float32(rng.standard_normal())
    k = simt.RawKernel(SAXPY[language(raw_device)], "saxpy", device=raw_device)
    dx, dy = simt.to_device(x, device=raw_device), simt.to_device(y, device=raw_device)
    k[(n + 127) // 128, 128](a, dx, dy, np.uint32(n))
    np.testing.assert_allclose(dy.get(), a * x + y, rtol=1e-6, atol=1e-6)


def test_launches_on_a_stream_keep_its_order(raw_device, rng):
    n = 10_000
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    k = simt.RawKernel(SAXPY[language(raw_device)], "saxpy", device=raw_device)
    stream = simt.Stream(raw_device)
    dx, dy = simt.to_device(x, stream=stream), simt.to_device(y, stream=stream)
    for _ in range(3):
        k[(n + 127) // 128, 128, stream](np.float32(2), dx, dy, np.uint32(n))
    out = dy.get(stream=stream)
    stream.synchronize()
    np.testing.assert_allclose(out, y + 6 * x, rtol=1e-5, atol=1e-5)


def test_cupy_call_form_and_current_device(raw_device, rng):
    x = rng.standard_normal(300).astype(np.float32)
    k = simt.RawKernel(SAXPY[language(raw_device)], "saxpy")  # the current device at launch
    with simt.use_device(raw_device):
        dx = simt.to_device(x)
        dy = simt.zeros(300, dtype=np.float32)
        k((3,), (128,), (np.float32(3), dx, dy, np.uint32(300)))
    np.testing.assert_allclose(dy.get(), 3 * x, rtol=1e-6)


def test_view_with_offset(raw_device, rng):
    # 256 float32s: an offset aligned as OpenCL sub-buffers need on every device.
    x = rng.standard_normal(1024).astype(np.float32)
    y = rng.standard_normal(1024).astype(np.float32)
    dx, dy = simt.to_device(x, device=raw_device), simt.to_device(y, device=raw_device)
    k = simt.RawKernel(SAXPY[language(raw_device)], "saxpy", device=raw_device)
    k[2, 128](np.float32(2), dx[256:], dy[512:], np.uint32(200))
    expected = y.copy()
    expected[512:712] = 2 * x[256:456] + y[512:712]
    np.testing.assert_allclose(dy.get(), expected, rtol=1e-6, atol=1e-6)


def test_misaligned_view_on_opencl_is_a_clear_error(raw_device):
    if raw_device.backend != "opencl":
        pytest.skip("CUDA takes any address")
    dx = simt.zeros(64, dtype=np.float32, device=raw_device)
    k = simt.RawKernel(SAXPY["opencl"], "saxpy", device=raw_device)
    with pytest.raises(ValueError, match="CL_DEVICE_MEM_BASE_ADDR_ALIGN"):
        k[1, 32](np.float32(1), dx[1:], dx, np.uint32(10))


def test_argument_mismatches_raise_type_error(raw_device):
    k = simt.RawKernel(SAXPY[language(raw_device)], "saxpy", device=raw_device)
    dx = simt.zeros(16, dtype=np.float32, device=raw_device)
    if not k.param_info():
        pytest.skip("this CUDA driver cannot report parameters (before 12.4)")
    with pytest.raises(TypeError, match="'saxpy' takes 4 arguments but 3"):
        k[1, 32](np.float32(1), dx, dx)
    # NumPy scalars are strong: one of another width is refused (Python numbers are
    # converted to the parameter's type, test_cupy_port.py).
    with pytest.raises(TypeError, match="argument 0: expected a 4-byte value.*float64"):
        k[1, 32](np.float64(1.5), dx, dx, np.uint32(16))
    with pytest.raises(TypeError, match="argument 3: expected a 4-byte value.*int64"):
        k[1, 32](np.float32(1), dx, dx, np.int64(16))
    with pytest.raises(TypeError, match="argument 0: expected a 4-byte value.*not an array"):
        k[1, 32](dx, dx, dx, np.uint32(16))
    with pytest.raises(TypeError, match="argument 1"):
        k[1, 32](np.float32(1), np.float32(2), dx, np.uint32(16))
    with pytest.raises(TypeError, match="argument 1: a NumPy array is host memory"):
        k[1, 32](np.float32(1), np.zeros(16, np.float32), dx, np.uint32(16))
    with pytest.raises(TypeError, match="argument 2: raw kernels take simt arrays and numbers"):
        k[1, 32](np.float32(1), dx, "y", np.uint32(16))


def test_opencl_checks_types_not_only_sizes(raw_device):
    if raw_device.backend != "opencl":
        pytest.skip("CUDA drivers report sizes only")
    k = simt.RawKernel(SAXPY["opencl"], "saxpy", device=raw_device)
    dx = simt.zeros(16, dtype=np.float32, device=raw_device)
    with pytest.raises(TypeError, match=r"\(float\), not int32.*numpy.float32"):
        k[1, 32](np.int32(1), dx, dx, np.uint32(16))
    k[1, 32](np.float32(1), dx, dx, np.int32(16))  # either sign for an integer
    assert k.param_info() == [(4, "float"), (8, "float*"), (8, "float*"), (4, "uint")]


def test_array_on_another_device_is_refused(raw_device):
    others = [d for d in simt.devices() if d != raw_device]
    if not others:
        pytest.skip("needs a second device")
    k = simt.RawKernel(SAXPY[language(raw_device)], "saxpy", device=raw_device)
    elsewhere = simt.zeros(16, dtype=np.float32, device=others[0])
    d = simt.zeros(16, dtype=np.float32, device=raw_device)
    with pytest.raises(TypeError, match=f"the array is on {others[0].id}"):
        k[1, 32](np.float32(1), elsewhere, d, np.uint32(16))


def test_compile_error_shows_the_log_with_the_users_lines(raw_device):
    broken = {"cuda": 'extern "C" __global__ void f(float* x) {\n  x[0] = undefined_name;\n}\n',
              "opencl": "__kernel void f(__global float* x) {\n  x[0] = undefined_name;\n}\n"}
    k = simt.RawKernel(broken[language(raw_device)], "f", device=raw_device)
    with pytest.raises(simt.BackendCompileError, match="undefined_name") as info:
        k.compile()
    assert "2" in str(info.value)  # the line of the user's source


def test_missing_kernel_name(raw_device):
    with pytest.raises(ValueError, match="no kernel 'nope'"):
        simt.RawModule(SAXPY[language(raw_device)], device=raw_device).get_function("nope")


def test_module_with_several_kernels_and_options(raw_device, rng):
    source = {
        "cuda": r'''
extern "C" __global__ void fill(float* x, int n) { int i = threadIdx.x; if (i < n) x[i] = VALUE; }
extern "C" __global__ void twice(float* x, int n) { int i = threadIdx.x; if (i < n) x[i] *= 2; }
''',
        "opencl": r'''
__kernel void fill(__global float* x, int n) { int i = get_local_id(0); if (i < n) x[i] = VALUE; }
__kernel void twice(__global float* x, int n) { int i = get_local_id(0); if (i < n) x[i] *= 2; }
'''}[language(raw_device)]
    value = float(rng.integers(1, 100))
    module = simt.RawModule(source, options=(f"-DVALUE={value}f",), device=raw_device)
    x = simt.zeros(64, dtype=np.float32, device=raw_device)
    module.get_function("fill")[1, 64](x, np.int32(50))
    module.get_function("twice")[1, 64](x, np.int32(64))
    expected = np.zeros(64, np.float32)
    expected[:50] = 2 * value
    np.testing.assert_array_equal(x.get(), expected)


def test_include_path_option(raw_device, tmp_path, rng):
    (tmp_path / "scale.h").write_text("#define SCALE 3.0f\n")
    source = {"cuda": '#include "scale.h"\nextern "C" __global__ void k(float* x) '
                      '{ x[threadIdx.x] *= SCALE; }\n',
              "opencl": '#include "scale.h"\n__kernel void k(__global float* x) '
                        '{ x[get_local_id(0)] *= SCALE; }\n'}[language(raw_device)]
    x = rng.standard_normal(32).astype(np.float32)
    dx = simt.to_device(x, device=raw_device)
    simt.RawKernel(source, "k", options=(f"-I{tmp_path}",), device=raw_device)[1, 32](dx)
    np.testing.assert_allclose(dx.get(), 3 * x, rtol=1e-6)


def test_template_through_name_expressions(raw_device, rng):
    if language(raw_device) != "cuda":
        pytest.skip("templates are CUDA C++")
    source = r'''
template <typename T, int N>
__global__ void scale(T* x, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * T(N);
}
'''
    module = simt.RawModule(source, name_expressions=("scale<float, 3>", "scale<double, 5>"),
                            device=raw_device)
    xf = rng.standard_normal(100).astype(np.float32)
    xd = rng.standard_normal(100)
    df, dd = simt.to_device(xf, device=raw_device), simt.to_device(xd, device=raw_device)
    module.get_function("scale<float, 3>")[1, 128](df, np.uint32(100))
    module.get_function("scale<double, 5>")[1, 128](dd, np.uint32(100))
    np.testing.assert_allclose(df.get(), 3 * xf, rtol=1e-6)
    np.testing.assert_allclose(dd.get(), 5 * xd, rtol=1e-12)


def test_backend_states_the_language(raw_device):
    other = "cuda" if language(raw_device) == "opencl" else "opencl"
    k = simt.RawKernel(SAXPY[other], "saxpy", backend=other, device=raw_device)
    with pytest.raises(ValueError, match=f"is {other} source, but it launches on {raw_device.id}"):
        k.compile()
    with pytest.raises(ValueError, match="backend must be"):
        simt.RawKernel(SAXPY["cuda"], "saxpy", backend="hip")


def test_bad_launch_configurations(raw_device):
    k = simt.RawKernel(SAXPY[language(raw_device)], "saxpy", device=raw_device)
    with pytest.raises(TypeError, match="simt.Stream, None or 0"):
        k[1, 32, 5]
    with pytest.raises(TypeError, match="grid must be an int"):
        k["a", 32]
    with pytest.raises(ValueError, match="block must be positive"):
        k[1, 0]


def test_nvrtc_compiles_raw_templates_without_a_gpu():
    if not nvrtc_available():
        pytest.skip("NVRTC is not installed")
    result = simt._core.nvrtc_compile(SAXPY["cuda"], 90)
    assert result["ok"], result["log"]


CACHE_SCRIPT = textwrap.dedent('''
    import numpy as np, simt
    source = {source!r}
    k = simt.RawKernel(source, "saxpy", device="{device}")
    x = simt.to_device(np.arange(8, dtype=np.float32), device="{device}")
    y = simt.zeros(8, dtype=np.float32, device="{device}")
    k[1, 32](np.float32({factor}), x, y, np.uint32(8))
    assert np.array_equal(y.get(), {factor} * np.arange(8, dtype=np.float32)), y.get()
    try:
        k[1, 32](np.float64(1.0), x, y, np.uint32(8))
    except TypeError as error:
        assert "argument 0" in str(error)
    else:
        raise AssertionError("a NumPy float64 for a float parameter was accepted")
''')


def test_disk_cache_hit_in_a_fresh_process(raw_device, tmp_path):
    folder = tmp_path / "cache"
    source = SAXPY[language(raw_device)] + f"// {tmp_path.name}\n"
    script = tmp_path / "run.py"
    script.write_text(CACHE_SCRIPT.format(source=source, device=raw_device.id, factor=2))
    env = dict(os.environ, SIMT_CACHE_DIR=str(folder))

    def run():
        result = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                                text=True, timeout=300)
        assert result.returncode == 0, result.stderr

    run()
    files = sorted(folder.rglob("*.bin"))
    assert len(files) == 1
    stamp = files[0].stat().st_mtime_ns
    run()  # the entry is read, not written again; the parameters' checks still hold
    assert sorted(folder.rglob("*.bin")) == files and files[0].stat().st_mtime_ns == stamp


# ---------------------------------------------------------------------------
# ElementwiseKernel and ReductionKernel
# ---------------------------------------------------------------------------

SQUARED_DIFF = ("float32 x, float32 y", "float32 z", "z = (x - y) * (x - y)", "squared_diff")


def test_elementwise_broadcasts_arrays_and_scalars(raw_device, rng):
    k = simt.ElementwiseKernel(*SQUARED_DIFF)
    x = rng.standard_normal((7, 33)).astype(np.float32)
    y = rng.standard_normal(33).astype(np.float32)
    dx, dy = simt.to_device(x, device=raw_device), simt.to_device(y, device=raw_device)
    np.testing.assert_allclose(k(dx, dy).get(), (x - y) ** 2, rtol=1e-6)
    s = float(rng.standard_normal())
    np.testing.assert_allclose(k(dx, s).get(), (x - np.float32(s)) ** 2, rtol=1e-6)
    out = simt.full((7, 33), np.nan, dtype=np.float32, device=raw_device)
    assert k(dx, dy, out) is out
    np.testing.assert_allclose(out.get(), (x - y) ** 2, rtol=1e-6)


def test_snippet_kernels_on_a_stream(raw_device, rng):
    x = rng.standard_normal(5000).astype(np.float32)
    y = rng.standard_normal(5000).astype(np.float32)
    stream = simt.Stream(raw_device)
    dx, dy = simt.to_device(x, stream=stream), simt.to_device(y, stream=stream)
    diff = simt.ElementwiseKernel(*SQUARED_DIFF)(dx, dy, stream=stream)
    total = simt.ReductionKernel("float32 x", "float32 y", "x", "a + b", "y = a", "0",
                                 "sum_f32")(diff, stream=stream)
    out = total.get(stream=stream)
    stream.synchronize()
    np.testing.assert_allclose(out, ((x - y) ** 2).sum(dtype=np.float64), rtol=1e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8, np.float64])
def test_elementwise_type_placeholders(raw_device, rng, dtype):
    k = simt.ElementwiseKernel("T x, T y", "T z", "T d = x - y; z = d * d + (T)1", "sq_generic")
    x = rng.integers(0, 10, 500).astype(dtype)
    y = rng.integers(0, 10, 500).astype(dtype)
    dx, dy = simt.to_device(x, device=raw_device), simt.to_device(y, device=raw_device)
    z = k(dx, dy)
    assert z.dtype == dtype
    np.testing.assert_array_equal(z.get(), ((x - y) * (x - y) + dtype(1)).astype(dtype))


def test_elementwise_strided_views_and_two_outputs(raw_device, rng):
    k = simt.ElementwiseKernel("T x, T y", "T s, T d", "s = x + y; d = x - y", "sum_diff")
    x = rng.standard_normal((12, 20)).astype(np.float32)
    y = rng.standard_normal((20, 12)).astype(np.float32)
    dx = simt.to_device(x, device=raw_device)
    # A strided view and a transposed one: the general indexing path.
    xv, yv = dx[::2, 1::2], simt.to_device(np.ascontiguousarray(y.T), device=raw_device)[::2, 1::2]
    s, d = k(xv, yv)
    np.testing.assert_allclose(s.get(), x[::2, 1::2] + y.T[::2, 1::2], rtol=1e-6)
    np.testing.assert_allclose(d.get(), x[::2, 1::2] - y.T[::2, 1::2], rtol=1e-6)


def test_elementwise_raw_parameter_and_index(raw_device, rng):
    k = simt.ElementwiseKernel("raw T x", "T y", "y = x[n - i - 1] + (T)i", "reverse_plus_i")
    x = rng.standard_normal(300)
    dx = simt.to_device(x, device=raw_device)
    y = simt.empty(300, dtype=np.float64, device=raw_device)
    k(dx, y)
    np.testing.assert_allclose(y.get(), x[::-1] + np.arange(300), rtol=1e-12)


def test_elementwise_warm_calls_read_each_calls_arguments(raw_device, rng):
    # The second call of a signature skips planning (the warm path): it must still read
    # that call's scalars and arrays, allocate fresh outputs, fill given ones, and leave
    # views starting inside a buffer (and raw views) to the full path.
    k = simt.ElementwiseKernel("T x, raw T r, float64 s", "T z", "z = x * (T)s + r[0]",
                               "warm_axpb")
    x = rng.standard_normal((3, 40)).astype(np.float32)
    r = rng.standard_normal(8).astype(np.float32)
    dx, dr = simt.to_device(x, device=raw_device), simt.to_device(r, device=raw_device)
    results = []
    for s in (2.0, -3.5, 0.25):
        results.append(k(dx, dr, s))
        np.testing.assert_allclose(results[-1].get(), x * np.float32(s) + r[0], rtol=1e-6, atol=1e-6)
    assert len({id(z) for z in results}) == 3
    out = simt.full((3, 40), np.nan, dtype=np.float32, device=raw_device)
    for s in (1.5, 4.0):
        assert k(dx, dr, s, out) is out
        np.testing.assert_allclose(out.get(), x * np.float32(s) + r[0], rtol=1e-6, atol=1e-6)
    x2 = rng.standard_normal((3, 40)).astype(np.float32)
    np.testing.assert_allclose(k(simt.to_device(x2, device=raw_device), dr, 1.0).get(),
                               x2 + r[0], rtol=1e-6, atol=1e-6)
    # Same shapes and strides, but a view into the middle of its buffer (raw and not).
    np.testing.assert_allclose(k(dx, dr[3:4], 2.0).get(), x * 2 + r[3], rtol=1e-6, atol=1e-6)
    row = dx[1]
    np.testing.assert_allclose(k(row, dr, 2.0).get(), x[1] * 2 + r[0], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(k(dx[2], dr, 2.0).get(), x[2] * 2 + r[0], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(k(dx[0], dr, 2.0).get(), x[0] * 2 + r[0], rtol=1e-6, atol=1e-6)
    ik = simt.ElementwiseKernel("int8 x, int8 c", "int8 y", "y = x + c", "warm_int8")
    di = simt.to_device(np.arange(5, dtype=np.int8), device=raw_device)
    np.testing.assert_array_equal(ik(di, 3).get(), np.arange(5) + 3)
    np.testing.assert_array_equal(ik(di, -2).get(), np.arange(5) - 2)
    with pytest.raises(OverflowError):
        ik(di, 300)


def test_reduction_warm_calls_read_each_calls_arguments(raw_device, rng):
    # The warm path (same types and layouts as an earlier call) must read this call's
    # arrays and scalars, allocate a fresh result, and fill an output that is given.
    k = simt.ReductionKernel("T x, T w", "T y", "x * w", "a + b", "y = a", "0", "warm_dot")
    results = []
    for n in (1000, 1000, 1000, 7):
        x = rng.standard_normal(n)
        w = float(rng.standard_normal())
        dx = simt.to_device(x, device=raw_device)
        results.append(k(dx, w))
        np.testing.assert_allclose(results[-1].get(), (x * w).sum(), rtol=1e-12, atol=1e-12)
    assert len({id(r) for r in results}) == 4
    out = simt.full((), np.nan, device=raw_device)
    for _ in range(2):
        x = rng.standard_normal(1000)
        assert k(simt.to_device(x, device=raw_device), 2.0, out) is out
        np.testing.assert_allclose(out.get(), 2 * x.sum(), rtol=1e-12, atol=1e-12)
    x = rng.standard_normal(1001)
    view = simt.to_device(x, device=raw_device)[1:]  # same shape as above, offset buffer
    np.testing.assert_allclose(k(view, 1.0).get(), x[1:].sum(), rtol=1e-12, atol=1e-12)


def test_reduction_in_one_launch_and_in_two(raw_device, rng):
    # Up to one block's worth of elements one launch reduces and writes the outputs;
    # beyond, a partial and a final launch: both, cold and warm, with two outputs, an
    # output given, and a strided 2-D input (per-dimension indexing).
    k = simt.ReductionKernel("T x", "T lo, T hi", "x", "a + b", "lo = a - 1; hi = a + 1", "0",
                             "both_ends")
    for n in (1, 255, 256, 257, 5000):
        for _ in range(3):
            x = rng.standard_normal(n)
            lo, hi = k(simt.to_device(x, device=raw_device))
            np.testing.assert_allclose(lo.get(), x.sum() - 1, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(hi.get(), x.sum() + 1, rtol=1e-12, atol=1e-12)
            given = simt.full((), np.nan, device=raw_device), simt.full((), np.nan,
                                                                         device=raw_device)
            got = k(simt.to_device(x, device=raw_device), *given)
            assert got[0] is given[0] and got[1] is given[1]
            np.testing.assert_allclose(given[1].get(), x.sum() + 1, rtol=1e-12, atol=1e-12)
    for shape in ((10, 12), (40, 60)):
        x = rng.standard_normal(shape)
        view = simt.to_device(x, device=raw_device)[::2, 1::3]
        lo, _ = k(view)
        np.testing.assert_allclose(lo.get(), x[::2, 1::3].sum() - 1, rtol=1e-12, atol=1e-12)


def test_max_resident_blocks(raw_device, rng):
    # CUDA answers from the kernel's registers (a full wave is at least one block per
    # multiprocessor, at most 2048 threads' worth each); OpenCL cannot say (0); the cpu
    # runs as many blocks at once as a cooperative launch may have.
    k = simt.RawKernel(SAXPY[language(raw_device)], "saxpy", device=raw_device)
    for bad in ((0,), (-3,), (256, -1)):
        with pytest.raises(ValueError, match="max_resident_blocks: threads must be"):
            k.max_resident_blocks(*bad)
    with pytest.raises(TypeError):
        k.max_resident_blocks(256.0)
    waves = [k.max_resident_blocks(t) for t in (32, 256, 1024)]
    if raw_device.backend == "opencl":
        assert waves == [0, 0, 0]
        return
    units = raw_device.compute_units
    if raw_device.backend == "cpu":
        # Each block of a cooperative launch is an OS thread: a fixed count, any size.
        assert waves[0] == waves[1] == waves[2] > 0
    else:
        assert units <= waves[2] <= waves[1] <= waves[0]
        assert waves[1] * 256 <= units * 2048
        assert k.max_resident_blocks(4096) == 0  # more threads than a block may have
    # A reduction's first pass runs that many blocks (a large input), and still sums.
    rk = simt.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "wave_sum")
    x = rng.standard_normal(1 << 20).astype(np.float32)
    np.testing.assert_allclose(rk(simt.to_device(x, device=raw_device)).get(), x.sum(dtype=np.float64),
                               rtol=1e-4)


def test_snippet_kernels_check_what_they_are_given(raw_device, rng):
    # Fixed types are the arrays' dtypes (CuPy's check), outputs must be writable, bool
    # scalars pass as one byte, an int past int64 binds uint64 without poisoning later
    # calls, keepdims keeps the dimensions, and a used kernel still pickles.
    import pickle

    fixed = simt.ElementwiseKernel("float32 x", "float32 y", "y = x * 2", "fixed_f32")
    d64 = simt.to_device(np.arange(3.0), device=raw_device)
    with pytest.raises(TypeError, match="'x' is declared float32 but the array is float64"):
        fixed(d64)
    with pytest.raises(TypeError, match="'y' is declared float32 but the array is float64"):
        fixed(simt.to_device(np.ones(3, np.float32), device=raw_device), d64)
    total = simt.ReductionKernel("float32 x", "float32 y", "x", "a + b", "y = a", "0", "sum32")
    with pytest.raises(TypeError, match="declared float32"):
        total(d64)
    inc = simt.ElementwiseKernel("T a", "T y", "y = a + 1", "inc_ro")
    readonly = simt.Array._wrap(simt.zeros(3, device=raw_device)._impl.readonly_view())
    with pytest.raises(ValueError, match="'y' is read-only"):
        inc(d64, readonly)
    np.testing.assert_array_equal(readonly.get(), np.zeros(3))
    pick = simt.ElementwiseKernel("T x, bool b", "T y", "y = b ? x : -x", "pick_sign")
    for flag in (True, False, np.True_, True):
        np.testing.assert_array_equal(pick(d64, flag).get(), np.arange(3.0) * (1 if flag else -1))
    mod = simt.ElementwiseKernel("T x, S a", "T y", "y = x + (T)(a % 7)", "int_range")
    np.testing.assert_array_equal(mod(d64, 2 ** 63).get(), np.arange(3.0) + 2 ** 63 % 7)
    np.testing.assert_array_equal(mod(d64, -1).get(), np.arange(3.0) - 1)
    kept = simt.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "sum_kept")
    m = rng.standard_normal((2, 3))
    got = kept(simt.to_device(m, device=raw_device), keepdims=True)
    assert got.shape == (1, 1)
    np.testing.assert_allclose(got.get(), m.sum(keepdims=True), rtol=1e-12)
    again = pickle.loads(pickle.dumps(inc))
    np.testing.assert_array_equal(again(d64).get(), np.arange(3.0) + 1)
    with pytest.raises(ValueError, match="size= is given, but the arrays already set"):
        inc(d64, size=2)


def test_elementwise_argument_errors(raw_device):
    k = simt.ElementwiseKernel(*SQUARED_DIFF)
    dx = simt.zeros(4, dtype=np.float32, device=raw_device)
    with pytest.raises(TypeError, match="takes 2 inputs"):
        k(dx)
    with pytest.raises(TypeError, match="NumPy array"):
        k(dx, np.zeros(4, np.float32))
    with pytest.raises(ValueError, match="do not broadcast"):
        k(dx, simt.zeros(3, dtype=np.float32, device=raw_device))
    g = simt.ElementwiseKernel("T x", "U y", "y = x", "cast")
    with pytest.raises(TypeError, match="the type U of 'y' is not known"):
        g(dx)
    with pytest.raises(ValueError, match="reserved"):
        simt.ElementwiseKernel("float32 n", "float32 z", "z = n", "bad")


L2NORM = ("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")


def test_reduction_whole_array(raw_device, rng):
    k = simt.ReductionKernel(*L2NORM)
    n = int(rng.integers(1, 300_000))
    x = rng.standard_normal(n)
    y = k(simt.to_device(x, device=raw_device))
    assert y.shape == () and y.dtype == np.float64
    np.testing.assert_allclose(y.get(), np.sqrt(np.sum(x * x)), rtol=1e-12)


def test_snippet_kernels_take_cupy_arrays(rng):
    # CuPy users pass their arrays to the kernels they port: the same memory, no copy.
    cp = pytest.importorskip("cupy")
    if not any(d.backend == "cuda" for d in simt.devices()):
        pytest.skip("no cuda device")
    x = rng.random(1000, dtype=np.float32)
    cx, cout = cp.asarray(x), cp.full(1000, cp.nan, cp.float32)
    double = simt.ElementwiseKernel("float32 x", "float32 y", "y = 2 * x", "double_it")
    with simt.use_device("cuda:0"):
        double(cx, cout)
        total = simt.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "total")(cx)
    np.testing.assert_array_equal(cp.asnumpy(cout), 2 * x)
    np.testing.assert_allclose(float(total.get()), x.sum(dtype=np.float64), rtol=1e-5)


def test_snippet_kernels_warm_calls_with_cupy_arrays(rng):
    """Warm calls with CuPy arrays launch with the arrays as they are: each call's own
    memory (fresh arrays, views one element in, so misaligned for vector loads), the given
    output returned as given on the first call and on warm ones."""
    cp = pytest.importorskip("cupy")
    if not any(d.backend == "cuda" for d in simt.devices()):
        pytest.skip("no cuda device")
    double = simt.ElementwiseKernel("float32 x", "float32 y", "y = 2 * x + 1", "double_warm")
    total = simt.ReductionKernel("float32 x", "float64 y", "x", "a + b", "y = a", "0",
                                 "total_warm", reduce_type=np.float64)
    n = 100_003
    with simt.use_device("cuda:0"):
        for call in range(4):
            x = rng.random(n + 1, dtype=np.float32)
            cx = cp.asarray(x)[call % 2:][:n]            # odd calls: one element in
            want = x[call % 2:][:n]
            cout = cp.full(n, cp.nan, cp.float32)
            assert double(cx, cout) is cout
            np.testing.assert_array_equal(cp.asnumpy(cout), 2 * want + 1)
            s = cp.full((), cp.nan, cp.float64)
            assert total(cx, s) is s
            np.testing.assert_allclose(float(s), want.sum(dtype=np.float64), rtol=1e-9)
            fresh = total(cx)
            assert isinstance(fresh, simt.Array)
            np.testing.assert_allclose(float(fresh.get()), want.sum(dtype=np.float64), rtol=1e-9)


def test_reduction_types_views_and_identity(raw_device, rng):
    total = simt.ReductionKernel("int32 x", "int64 y", "x", "a + b", "y = a", "0", "isum",
                                 reduce_type=np.int64)
    x = rng.integers(-1000, 1000, (300, 40)).astype(np.int32)
    dx = simt.to_device(x, device=raw_device)
    assert int(total(dx).get()) == int(x.sum(dtype=np.int64))
    assert int(total(dx[::3, 5:]).get()) == int(x[::3, 5:].sum(dtype=np.int64))
    assert int(total(simt.zeros(0, dtype=np.int32, device=raw_device)).get()) == 0
    biggest = simt.ReductionKernel("T x", "T y", "x", "a > b ? a : b", "y = a", "-1e30f",
                                   "biggest")
    f = rng.standard_normal(10_000).astype(np.float32)
    assert biggest(simt.to_device(f, device=raw_device)).get() == f.max()


def test_reduction_with_two_inputs_and_a_scalar(raw_device, rng):
    dot = simt.ReductionKernel("T x, T y, T w", "T z", "x * y * w", "a + b", "z = a", "0",
                               "weighted_dot")
    x, y = rng.standard_normal(5000), rng.standard_normal(5000)
    z = dot(simt.to_device(x, device=raw_device), simt.to_device(y, device=raw_device), 0.5)
    np.testing.assert_allclose(z.get(), 0.5 * np.dot(x, y), rtol=1e-10)


def test_reduction_vector_loads_and_their_fallbacks(raw_device, rng):
    # Contiguous aligned inputs load 16-byte vectors; the tail, offset (unaligned)
    # views, strided views and mixed widths take the scalar loops: each against NumPy.
    dot = simt.ReductionKernel("T x, U y, T w", "float64 z", "(double)x * y * w + i", "a + b",
                               "z = a", "0", "weighted_dot_index", reduce_type=np.float64)
    for n in (1, 3, 4, 5, 1023, 4096 + 7, int(rng.integers(50_000, 200_000))):
        x = rng.standard_normal(n).astype(np.float32)
        y = rng.integers(-5, 5, n).astype(np.int8)
        dx, dy = simt.to_device(x, device=raw_device), simt.to_device(y, device=raw_device)
        for a, b, hx, hy in [(dx, dy, x, y), (dx[1:], dy[1:], x[1:], y[1:]),
                             (dx[::2], dy[::2], x[::2], y[::2]),
                             (dx[4:], dy[:max(n - 4, 0)], x[4:], y[:max(n - 4, 0)])]:
            m = hx.size
            expected = np.sum(hx.astype(np.float64) * hy * 0.5 + np.arange(m))
            got = dot(a, b, np.float32(0.5)).get()
            np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9 * m)
    total = simt.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "total")
    for dtype in (np.int8, np.uint16, np.int32, np.int64, np.float64):
        v = rng.integers(0, 100, 10_003).astype(dtype)
        assert total(simt.to_device(v, device=raw_device)).get() == v.sum(dtype=dtype)


@needs_cpu
def test_generated_cuda_compiles_with_nvrtc():
    """CI has NVRTC but no GPU: the CUDA the snippet kernels generate must compile."""
    if not nvrtc_available():
        pytest.skip("NVRTC is not installed")
    f32 = simt.zeros((4, 5), dtype=np.float32, device="cpu")
    i32 = simt.zeros(5, dtype=np.int32, device="cpu")
    b = simt.zeros(5, dtype=np.bool_, device="cpu")
    sources = []
    for ndim in (1, 2):
        sources.append(simt.ElementwiseKernel(*SQUARED_DIFF).generated_source(
            f32, 2.0, dialect="cuda", ndim=ndim))
        sources.append(simt.ElementwiseKernel("T x, raw T y", "bool z", "z = x < y[n - i - 1]",
                                              "less").generated_source(
            i32, i32, b, dialect="cuda", ndim=ndim))
        sources.append(simt.ReductionKernel(*L2NORM).generated_source(
            f32, dialect="cuda", ndim=ndim))
        sources.append(simt.ReductionKernel("T x, T w", "int64 c", "x > w", "a + b", "c = a",
                                            "0", "count", reduce_type=np.int64).generated_source(
            i32, 3, dialect="cuda", ndim=ndim))
    # Reductions over some axes (one `_axes` kernel), with and without the index i.
    f64_3d = simt.zeros((3, 4, 200), dtype=np.float64, device="cpu")
    for axis in (0, (1, 2), -1):
        sources.append(simt.ReductionKernel(*L2NORM).generated_source(
            f32, dialect="cuda", axis=axis if axis != (1, 2) else 1))
        sources.append(simt.ReductionKernel(
            "T x, T w", "T y, int64 c", "x * w + (T)(i % 3)", "a + b",
            "y = a; c = (long long)a", "0", "axis_sum").generated_source(
            f64_3d, 0.5, dialect="cuda", axis=axis))
    assert all("_axes(" in source for source in sources[-6:])
    # The cpu device's own form (a chunk per thread), CUDA C++ too.
    sources.append(simt.ElementwiseKernel(*SQUARED_DIFF).generated_source(f32, 2.0))
    sources.append(simt.ReductionKernel(*L2NORM).generated_source(f32))
    assert all("_i_b" in source or "_v_b" in source for source in sources[-2:])
    f64 = simt.zeros((4, 5), dtype=np.float64, device="cpu")
    sources.append(simt.ElementwiseKernel(
        "T x, T y, T scale, int32 seed", "T z",
        "uint64_t s[2]; s[0] = splitmix((uint64_t)seed + i); s[1] = 0; "
        "for (int i = 0; i < 2; i++) s[1] += s[0]; z = shape_it(x) * scale + y + unit(s[1]);",
        "cupy_style", preamble=PREAMBLE).generated_source(f64, f64, 1.0, 3, dialect="cuda"))
    sources.append(simt.ElementwiseKernel(
        "S data, T label", "raw U centers, raw U group",
        "int cent_ind[] = {label, i % 30000}; atomicAdd(&centers[cent_ind], data); "
        "atomicAdd(&group[label], 1);", "centers_add").generated_source(
        f32[0], i32, f64, f64[0], dialect="cuda"))
    for source in sources:
        result = simt._core.nvrtc_compile(source, 90)
        assert result["ok"], result["log"] + "\n" + source
        assert "warning" not in result["log"], result["log"] + "\n" + source


@simt.kernel
def _block_sum_kernel(x, out):
    sm = simt.shared.array(256, simt.int64)
    sm[simt.threadIdx.x] = x[simt.grid(1)]
    simt.syncthreads()
    out[0] = sm[0]


@pytest.mark.parametrize("dialect", ["cuda", "opencl"])
def test_snippet_kernels_spell_the_dialect_as_python_kernels_do(dialect):
    """Both generators read the emitter's dialect table: the kernel qualifier, an int64
    array's pointer type, the shared declaration and the barrier of a reduction are
    spelled as in a Python kernel's source."""
    x = simt.zeros(5, dtype=np.int64, device=simt.devices()[0])
    snippet = simt.ReductionKernel("int64 x", "int64 y", "x", "a + b", "y = a", "0",
                                   "isum").generated_source(x, dialect=dialect)
    python = _block_sum_kernel.inspect_source("int64[::1]", "int64[::1]", dialect=dialect)
    kernel = re.search(r"^(.*)isum_partial\(", snippet, re.M).group(1)
    pointer = re.search(r"isum_partial\((.*)_p_x,", snippet).group(1)
    shared = re.search(r"^  (.*)_sm\[256\];", snippet, re.M).group(1)
    barrier = re.search(r"_sm\[_t\] = _acc;\n\s*(.*)\n", snippet).group(1)
    assert f"{kernel}simt_kernel__block_sum_kernel(" in python
    assert f"({pointer}simt_p_x_data" in python
    assert f"  {shared}simt_shared0[256];" in python
    assert f"\n  {barrier}\n" in python


# ---------------------------------------------------------------------------
# CUDA C++ as CuPy users write it, on every device (OpenCL devices translate it,
# simt._cuda_to_opencl) but where it needs what OpenCL C lacks.
# ---------------------------------------------------------------------------

def needs_cuda_language(device):
    if language(device) != "cuda":
        pytest.skip("CUDA C++ that OpenCL C cannot take (dynamic shared memory, shuffles)")


def erfcinv_reference(y):
    """erfc's inverse by Newton's method on math.erfc (no SciPy here)."""
    import math
    y = np.asarray(y, dtype=np.float64)
    x = np.zeros_like(y)
    erfc = np.vectorize(math.erfc)
    for _ in range(60):
        x = x + (erfc(x) - y) / (2 / math.sqrt(math.pi) * np.exp(-x * x))
    return x


PREAMBLE = r'''
typedef unsigned long long uint64_t;
__device__ inline uint64_t splitmix(uint64_t z) {
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
__device__ inline T unit(uint64_t v) { return T(v >> 11) * T(1.0 / 9007199254740992.0); }
__device__ inline T shape_it(T x) {
    return sqrt(abs(x)) + exp(-abs(x)) + log(T(1) + abs(x)) + erfcinv(T(0.5) + T(0.25) * (x / (T(1) + abs(x))));
}
'''


def splitmix_reference(z):
    z = (z + np.uint64(0x9E3779B97F4A7C15)).astype(np.uint64)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_elementwise_cuda_preamble_with_device_functions(raw_device, rng, dtype):
    """__device__ functions of T in the preamble (abs, exp, log, sqrt, erfcinv, T(x) casts),
    a typedef there, a local array, a loop shadowing i, x[:, None] broadcast against a
    2-D input, and Python numbers for a T and an int32 parameter."""
    k = simt.ElementwiseKernel(
        "T x, T y, T scale, int32 seed", "T z",
        r'''
        uint64_t rand_state[2];
        rand_state[0] = splitmix((uint64_t)seed + (uint64_t)i);
        rand_state[1] = 0;
        for (int i = 0; i < 3; i++) rand_state[1] += splitmix(rand_state[0] + (uint64_t)i);
        z = shape_it(x) * scale + y + unit(rand_state[1]);
        ''', "cupy_style", preamble=PREAMBLE)
    n, m = 37, int(rng.integers(5, 60))
    x = rng.standard_normal(n).astype(dtype)
    y = rng.standard_normal((n, m)).astype(dtype)
    scale, seed = float(rng.standard_normal()), int(rng.integers(0, 2**31 - 1))
    dx, dy = simt.to_device(x, device=raw_device), simt.to_device(y, device=raw_device)
    out = simt.full((n, m), np.nan, dtype=dtype, device=raw_device)
    assert k(dx[:, None], dy, scale, seed, out) is out
    xb = np.broadcast_to(x[:, None], (n, m)).astype(np.float64)
    i = np.arange(n * m, dtype=np.uint64).reshape(n, m)
    state0 = splitmix_reference(np.uint64(seed) + i)
    state1 = sum(splitmix_reference(state0 + np.uint64(j)) for j in range(3)).astype(np.uint64)
    shaped = (np.sqrt(np.abs(xb)) + np.exp(-np.abs(xb)) + np.log(1 + np.abs(xb))
              + erfcinv_reference(0.5 + 0.25 * (xb / (1 + np.abs(xb)))))
    expected = shaped * np.float64(dtype(scale)) + y + (state1 >> np.uint64(11)) / 2.0**53
    tol = 1e-12 if dtype == np.float64 else 2e-5
    np.testing.assert_allclose(out.get(), expected, rtol=tol, atol=tol)


def test_cuda_math_on_the_cpu_matches_numpy(rng):
    """The prelude's float and double overloads and the inverse error functions."""
    if not any(d.id == "cpu" for d in simt.devices()):
        pytest.skip("needs the cpu device")
    k = simt.ElementwiseKernel(
        "T x", "T a, T b, T c, T d",
        "a = erfinv(x); b = erfcinv(x + T(1)); c = max(x, T(0)) + min(abs(x), T(0.5)); "
        "d = rsqrt(T(2) + x) + normcdf(x)", "cuda_math")
    for dtype, tol in ((np.float64, 1e-13), (np.float32, 2e-6)):
        x = rng.uniform(-0.999, 0.999, 5000).astype(dtype)
        a, b, c, d = (r.get() for r in k(simt.to_device(x, device="cpu")))
        import math
        erf = np.vectorize(math.erf)
        np.testing.assert_allclose(erf(a.astype(np.float64)), x, rtol=tol, atol=tol)
        np.testing.assert_allclose(b, -a, rtol=10 * tol, atol=10 * tol)
        np.testing.assert_allclose(c, np.maximum(x, 0) + np.minimum(np.abs(x), 0.5), rtol=tol)
        ncdf = 0.5 * np.vectorize(math.erfc)(-x.astype(np.float64) / math.sqrt(2))
        np.testing.assert_allclose(d, 1 / np.sqrt(2 + x.astype(np.float64)) + ncdf, rtol=tol)


def test_elementwise_raw_carray_index_and_atomics(raw_device, rng):
    """A raw parameter indexed by an int array of indices (CuPy's CArray), atomicAdd on
    float64 and with an int value."""
    k = simt.ElementwiseKernel(
        "S data, T label", "raw U centers, raw U group",
        "int cent_ind[] = {label, i % 30000}; atomicAdd(&centers[cent_ind], data); "
        "atomicAdd(&group[label], 1);", "centers_add")
    n, labels = 70_000, 4
    data = rng.standard_normal(n).astype(np.float32)
    label = rng.integers(0, labels, n).astype(np.int32)
    centers = simt.zeros((labels, 30000), dtype=np.float64, device=raw_device)
    group = simt.zeros(labels, dtype=np.float64, device=raw_device)
    k(simt.to_device(data, device=raw_device), simt.to_device(label, device=raw_device),
      centers, group)
    want_c, want_g = np.zeros((labels, 30000)), np.zeros(labels)
    np.add.at(want_c, (label, np.arange(n) % 30000), data.astype(np.float64))
    np.add.at(want_g, label, 1)
    np.testing.assert_allclose(centers.get(), want_c, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(group.get(), want_g)
    # A strided raw view: x[i] is the i-th element in C order, x.size() its count.
    rev = simt.ElementwiseKernel("raw T x", "T y", "y = x[x.size() - i - 1]", "carray_rev")
    m = rng.standard_normal((6, 8))
    got = rev(simt.to_device(m, device=raw_device)[::2, 1::3], size=9)
    np.testing.assert_array_equal(got.get(), m[::2, 1::3].ravel()[::-1])


BLOCK_SUMS = r'''
extern "C" __global__ void block_sums(const float* x, float* total, int n) {
    __shared__ float partial[256];
    extern __shared__ float counts[];
    const int t = threadIdx.x;
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) acc += x[i];
    partial[t] = acc;
    counts[t] = 1.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) { partial[t] += partial[t + s]; counts[t] += counts[t + s]; }
        __syncthreads();
    }
    if (t == 0) { atomicAdd(total, partial[0]); atomicAdd(total + 1, counts[0]); }
}
extern "C" __global__ void scale2d(float* a, int rows, int cols, float f) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) a[r * cols + c] *= f;
}
extern "C" __global__ void warp_sums(const int* x, int* out) {
    int v = x[blockIdx.x * blockDim.x + threadIdx.x];
    for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
    if ((threadIdx.x & 31) == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}
'''


def test_raw_module_shared_memory_barriers_and_atomics(raw_device, rng):
    # Dynamic shared memory (`extern __shared__`) and warp shuffles: CUDA only.
    needs_cuda_language(raw_device)
    module = simt.RawModule(BLOCK_SUMS, device=raw_device)
    sums = module.get_function("block_sums")
    n = int(rng.integers(1, 100_000))
    x = rng.standard_normal(n).astype(np.float32)
    total = simt.zeros(2, dtype=np.float32, device=raw_device)
    blocks = 7
    sums((blocks,), (256,), (simt.to_device(x, device=raw_device), total, np.int32(n)),
         shared_mem=256 * 4)
    got = total.get()
    np.testing.assert_allclose(got[0], x.sum(dtype=np.float64), rtol=1e-4, atol=1e-3)
    assert got[1] == blocks * 256
    scale = module.get_function("scale2d")
    a = rng.standard_normal((37, 51)).astype(np.float32)
    da = simt.to_device(a, device=raw_device)
    scale[(4, 10), (16, 4)](da, np.int32(37), np.int32(51), np.float32(3))
    np.testing.assert_allclose(da.get(), 3 * a, rtol=1e-6)
    warp = module.get_function("warp_sums")
    v = rng.integers(-100, 100, 8 * 64).astype(np.int32)
    out = simt.full(16, -1, dtype=np.int32, device=raw_device)
    warp[8, 64](simt.to_device(v, device=raw_device), out)
    np.testing.assert_array_equal(out.get(), v.reshape(16, 32).sum(axis=1))


@needs_cpu
def test_cpu_refuses_what_it_cannot_run_naming_the_kernel():
    ptx = r'''
extern "C" __global__ void lane(int* out) {
    int l;
    asm("mov.u32 %0, %%laneid;" : "=r"(l));
    out[threadIdx.x] = l;
}'''
    with pytest.raises(simt.BackendCompileError, match="'lane'.*inline PTX assembly.*line 4"):
        simt.RawKernel(ptx, "lane", device="cpu").compile()
    tex = r'''
extern "C" __global__ void fetch(cudaTextureObject_t t, float* out) {
    out[threadIdx.x] = tex1Dfetch<float>(t, threadIdx.x);
}'''
    with pytest.raises(simt.BackendCompileError, match="'fetch' cannot run on the cpu.*text"):
        simt.RawKernel(tex, "fetch", device="cpu").compile()
    with pytest.raises(simt.BackendCompileError, match="does not take the option '--bogus'"):
        simt.RawKernel(SAXPY["cuda"], "saxpy", options=("--bogus",), device="cpu").compile()
    with pytest.raises(ValueError, match="is opencl source, but it launches on cpu"):
        simt.RawKernel(SAXPY["opencl"], "saxpy", backend="opencl", device="cpu").compile()


def test_preamble_device_functions_on_every_device(raw_device, rng):
    """CUDA's qualifiers in a preamble read on OpenCL too (simple C is both)."""
    k = simt.ElementwiseKernel(
        "T x", "T y", "y = twice_plus_one(x)", "qualified",
        preamble="__device__ inline T twice(T x) { return x * 2; }\n"
                 "__device__ __forceinline__ T twice_plus_one(T x) { return twice(x) + 1; }\n")
    x = rng.standard_normal(1000).astype(np.float32)
    np.testing.assert_array_equal(k(simt.to_device(x, device=raw_device)).get(), 2 * x + 1)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, (0, 2), (1, 2), ()])
def test_reduction_axis_and_keepdims(raw_device, rng, axis):
    k = simt.ReductionKernel("T x, T w", "T y, int64 c", "x * w + (T)(i % 3)", "a + b",
                             "y = a; c = (long long)a", "0", "axis_sum")
    shape = (int(rng.integers(1, 40)), int(rng.integers(1, 300)), 3)
    x = rng.standard_normal(shape)
    dx = simt.to_device(x, device=raw_device)
    mapped = x * 0.5 + (np.arange(x.size).reshape(shape) % 3)
    for keepdims in (False, True):
        y, c = k(dx, 0.5, axis=axis, keepdims=keepdims)
        want = mapped.sum(axis=axis, keepdims=keepdims)
        assert y.shape == want.shape and c.shape == want.shape
        np.testing.assert_allclose(y.get(), want, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(c.get(), want.astype(np.int64))
    # A strided input view, and outputs given (one of them strided).
    view = dx[:, ::2]
    want = mapped_view = (x[:, ::2] * 0.5 + (np.arange(x[:, ::2].size).reshape(
        x[:, ::2].shape) % 3)).sum(axis=axis)
    del mapped_view
    out_y = simt.full(want.shape, np.nan, device=raw_device)
    out_c = simt.full(want.shape, -1, dtype=np.int64, device=raw_device)
    got = k(view, 0.5, out_y, out_c, axis=axis)
    assert got[0] is out_y and got[1] is out_c
    np.testing.assert_allclose(out_y.get(), want, rtol=1e-12, atol=1e-12)
    with pytest.raises(np.exceptions.AxisError):
        k(dx, 0.5, axis=3)


@needs_cpu
def test_cpu_kernels_of_every_shape_see_their_thread(rng):
    """The cpu device passes the running thread to each kernel as a hidden first parameter
    (backends/cpu/cuda_on_cpu.cpp), and keeps the indices in thread-local storage where a
    device function or a macro reads them: a kernel declared before its definition, one
    taking `(void)`, one a macro defines and a template all see the same indices."""
    source = r'''
__device__ int global_id() { return blockIdx.x * blockDim.x + threadIdx.x; }
__device__ int* g_out;
extern "C" __global__ void declared(int* out, int scale);
extern "C" __global__ void declared(int* out, int scale) {
    out[global_id()] = scale * (threadIdx.x + 1000 * blockIdx.x);
    if (global_id() == 0) g_out = out;
}
extern "C" __global__ void no_params(void) { g_out[blockIdx.x * blockDim.x + threadIdx.x] += 1; }
#define ADD_KERNEL(name, v) \
    extern "C" __global__ void name(int* out) { out[blockIdx.x * blockDim.x + threadIdx.x] += v; }
ADD_KERNEL(by_macro, 7)
template <class T>
__global__ void templated(T* out, T v) { out[global_id()] += v * (T)gridDim.x; }
'''
    module = simt.RawModule(source, name_expressions=("templated<int>",), device="cpu")
    grid, block = int(rng.integers(1, 6)), int(rng.integers(1, 100))
    scale = int(rng.integers(1, 5))
    out = simt.zeros(grid * block, dtype=np.int32, device="cpu")
    module.get_function("declared")[grid, block](out, np.int32(scale))
    module.get_function("no_params")[grid, block]()
    module.get_function("by_macro")[grid, block](out)
    module.get_function("templated<int>")[grid, block](out, np.int32(3))
    t = np.arange(grid * block)
    want = scale * (t % block + 1000 * (t // block)) + 1 + 7 + 3 * grid
    np.testing.assert_array_equal(out.get(), want)
    # Without device functions, the indices are the kernel's locals alone; a 3-D block.
    only_locals = simt.RawKernel(r'''
extern "C" __global__ void where(int* out) {
    int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    out[blockIdx.x * blockDim.x * blockDim.y * blockDim.z + t] = t + 100 * blockIdx.x;
}''', "where", device="cpu")
    dims = tuple(int(d) for d in rng.integers(1, 6, 3))
    size = dims[0] * dims[1] * dims[2]
    out = simt.zeros(grid * size, dtype=np.int32, device="cpu")
    only_locals[grid, dims](out)
    t = np.arange(grid * size)
    np.testing.assert_array_equal(out.get(), t % size + 100 * (t // size))


# ---------------------------------------------------------------------------
# CUDA C++ raw kernels as CuPy's user guide writes them, on every device: OpenCL devices
# take them translated (simt._cuda_to_opencl).
# ---------------------------------------------------------------------------

GUIDE_MODULE = r'''
extern "C" {
__global__ void block_reverse(const float* x, float* y, unsigned int n) {
    __shared__ float tile[64];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + t;
    tile[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    unsigned int j = blockIdx.x * blockDim.x + (blockDim.x - 1 - t);
    if (j < n) y[j] = tile[t];
}

__global__ void __launch_bounds__(64) scaled(const double* x, double* y, double a, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    for (; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i] + (long long)(i % 3);
}
}

template <typename T, typename U>
__global__ void
widen(const T* x, U* y, int n) {
    unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < n) y[tid] = U(x[tid]) * 3;
}
'''


def test_cuda_cpp_raw_kernels_run_on_every_device(device, rng):
    with simt.use_device(device):
        module = simt.RawModule(code=GUIDE_MODULE, options=("-std=c++11", "--use_fast_math"),
                                name_expressions=["widen<float, double>", "widen<int, float>"])
        n = 200  # four blocks of 64, the last one partly past the end
        xh = rng.standard_normal(n).astype(np.float32)
        y = simt.full(n, np.nan, dtype=np.float32)
        module.get_function("block_reverse")((4,), (64,), (simt.asarray(xh), y, n))
        want = np.concatenate([xh[b * 64:(b + 1) * 64][::-1] for b in range(3)])
        # The last block's row is mostly past the end: its valid places get the zeros
        # its threads past the end staged.
        want = np.concatenate([want, np.zeros(8, np.float32)])
        np.testing.assert_array_equal(y.get(), want)
        dh = rng.standard_normal(1000)
        dy = simt.full(1000, np.nan)
        module.get_function("scaled")((3,), (64,), (simt.asarray(dh), dy, 2.5, 1000))
        # --use_fast_math lets the compiler contract a * x + b into one rounding.
        np.testing.assert_allclose(dy.get(), 2.5 * dh + np.arange(1000) % 3, rtol=1e-13,
                                   atol=1e-13)
        for expression, src, dst in (("widen<float, double>", np.float32, np.float64),
                                     ("widen<int, float>", np.int32, np.float32)):
            host = rng.integers(-100, 100, 50).astype(src)
            out = simt.full(50, np.nan, dtype=dst)
            module.get_function(expression)((1,), (64,), (simt.asarray(host), out, 50))
            np.testing.assert_array_equal(out.get(), host.astype(dst) * 3)


@pytest.mark.parametrize("source, name, expressions, why", [
    (r'extern "C" __global__ void f(float* y) { extern __shared__ float s[]; '
     r'y[threadIdx.x] = s[0]; }', "f", (), r"dynamic shared memory \(extern __shared__\)"),
    (r'extern "C" __global__ void f(int* y) { y[threadIdx.x] = __shfl_sync(~0u, 1, 0); }',
     "f", (), r"warp functions"),
    (r'template <typename T> __global__ void g(T* x) { x[threadIdx.x] = T(1); }',
     "g<float, int>", ("g<float, int>",), r"g takes 1 template arguments"),
])
def test_cuda_cpp_opencl_cannot_take_says_what(raw_device, source, name, expressions, why):
    # What the translation to OpenCL C does not cover is named in the compiler's error.
    if raw_device.backend != "opencl":
        pytest.skip("the translation is for OpenCL devices")
    kernel = simt.RawKernel(source, name, name_expressions=expressions, device=raw_device)
    with pytest.raises(simt.BackendCompileError,
                       match="simt does not translate this CUDA C\\+\\+ to OpenCL C: .*" + why):
        kernel.compile()
