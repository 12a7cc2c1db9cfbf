"""Device functions written in CUDA C++, OpenCL C or C++ called from Python kernels
(Numba's `cuda.declare_device`, `cuda.CUSource`, `cuda.jit(link=[...])`), on every device:
each device compiles the linked source written in its language."""

import os

import numpy as np
import pytest

import simt
from simt import cuda
from simt.cuda import types

HERE = os.path.join(os.path.dirname(__file__), "ffi")
CU, CL, CPP = (os.path.join(HERE, name) for name in ("functions.cu", "functions.cl", "clamp.cpp"))

mul = cuda.declare_device("mul_f32_f32", "float32(float32, float32)")
sum_reduce = cuda.declare_device("sum_reduce", types.float32(types.CPointer(types.float32),
                                                             types.int32))


def test_numba_documentation_example(current, rng):
    """Numba's FFI example: multiply_vectors calls mul_f32_f32 from functions.cu (and its
    OpenCL C twin on OpenCL devices)."""
    @cuda.jit(link=[CU, CL])
    def multiply_vectors(r, x, y):
        i = cuda.grid(1)
        if i < len(r):
            r[i] = mul(x[i], y[i])

    x = rng.random(1000).astype(np.float32)
    y = rng.random(1000).astype(np.float32)
    r = np.full_like(x, np.nan)
    multiply_vectors[8, 128](r, x, y)
    np.testing.assert_array_equal(r, x * y)


def test_pointer_parameters_take_arrays(current, rng):
    @cuda.jit(link=[CU, CL])
    def row_sums(out, m):
        i = cuda.grid(1)
        if i < m.shape[0]:
            out[i] = sum_reduce(m[i], m.shape[1])

    m = rng.random((16, 33)).astype(np.float32)
    out = np.full(16, np.nan, np.float32)
    row_sums[1, 32](out, m)
    np.testing.assert_allclose(out, m.sum(axis=1), rtol=1e-5)


def test_cusource_and_declare_device_link(current, rng):
    """Source given as text (CUSource) and a link= on the declaration itself; the CPU
    compiles CUDA sources as C++, OpenCL devices translated to OpenCL C."""
    source = cuda.CUSource("""
        extern "C" __device__ int twice_plus(double* r, double x, int k) {
            *r = 2 * x + k;
            return 0;
        }""")
    twice_plus = cuda.declare_device("twice_plus", "float64(float64, int32)", link=[source])

    @cuda.jit
    def k(out, x):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = twice_plus(x[i], i)

    x = rng.random(100)
    out = np.full_like(x, np.nan)
    k[1, 128](out, x)
    np.testing.assert_array_equal(out, 2 * x + np.arange(100))


def test_cpu_only_source_and_missing_language(current, rng):
    clamp = cuda.declare_device("clamp_i64", "int64(int64, int64, int64)")

    @cuda.jit(link=[CPP])
    def clip(a, lo, hi):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = clamp(a[i], lo, hi)

    a = rng.integers(-100, 100, 64)
    if current.backend != "cpu":
        with pytest.raises(simt.CompileError, match=f"has no source for {current.backend}"):
            clip[1, 64](simt.asarray(a, device=current), -10, 10)
        return
    expected = np.clip(a, -10, 10)
    clip[1, 64](a, -10, 10)
    np.testing.assert_array_equal(a, expected)


def test_declaration_errors(tmp_path):
    with pytest.raises(TypeError, match="not a type declare_device takes"):
        cuda.declare_device("f", "float32(complex64)")
    with pytest.raises(ValueError, match="looks like"):
        cuda.declare_device("f", "float32")
    for arguments_only in ("(float32, int32)", (types.float32,), [types.int32]):
        with pytest.raises(TypeError, match="Return type must be provided"):
            cuda.declare_device("f", arguments_only)
    with pytest.raises(ValueError, match="identifier"):
        cuda.declare_device("not a name", "float32(float32)")
    with pytest.raises(NotImplementedError, match="compiled code"):
        cuda.jit(link=[str(tmp_path / "f.ptx")])
    with pytest.raises(ValueError, match="the name says the language"):
        cuda.jit(link=[str(tmp_path / "f.txt")])
    with pytest.raises(FileNotFoundError):
        cuda.jit(link=[str(tmp_path / "missing.cu")])
    with pytest.raises(ValueError, match="not device functions"):
        cuda.jit(device=True, link=[CU])
    with pytest.raises(TypeError, match="call it from a kernel"):
        mul(1.0, 2.0)


def test_call_errors(device):
    @cuda.jit(link=[CU, CL])
    def wrong_count(r):
        r[0] = mul(r[0])

    @cuda.jit(link=[CU, CL])
    def wrong_pointer(r, n):
        r[0] = sum_reduce(n, 3)

    r = simt.zeros(4, np.float32, device=device)
    with pytest.raises(simt.TypingError, match="takes 2 arguments"):
        wrong_count[1, 1](r)
    with pytest.raises(simt.TypingError, match="pointer to float32"):
        wrong_pointer[1, 1](r, np.int32(3))


@pytest.mark.needs_cpu
def test_errors_in_a_linked_source_name_its_file_and_line(tmp_path):
    """The compiler's error points into the user's source (a #line before it), and the
    generated code after it keeps its own line numbers."""
    broken = tmp_path / "broken.cpp"  # C++ for the CPU only: NVRTC's observer skips it
    broken.write_text('extern "C" int broken(float* r, float x) {\n'
                      "  *r = x +;\n  return 0;\n}\n")
    declared = cuda.declare_device("broken", "float32(float32)")

    @cuda.jit(link=[str(broken)])
    def k(a):
        a[0] = declared(a[0])

    with simt.use_device("cpu"):
        with pytest.raises(simt.BackendCompileError, match=f"{broken}:2:"):
            k[1, 1](np.zeros(2, np.float32))

    @cuda.jit(link=[CU])
    def good(r, x):
        r[0] = mul(x[0], x[1])

    lines = good.inspect_source("float32[::1]", "float32[::1]", dialect="cuda").splitlines()
    assert f'#line 1 "{CU}"' in lines
    reset = [n for n, text in enumerate(lines, 1) if text.startswith("#line ") and CU not in text]
    assert len(reset) == 1
    assert lines[reset[0] - 1] == f'#line {reset[0] + 1} "simt_kernel_good.cu"'


def test_simt_kernel_links_sources_as_cuda_jit_does(device, rng):
    """The core's own names: simt.declare_device, simt.kernel(link=...), simt.CUSource;
    cuda.declare_device and cuda.CUSource are the same objects."""
    assert cuda.declare_device is simt.declare_device and cuda.CUSource is simt.CUSource
    fma3 = simt.declare_device("mul_f32_f32", "f4(f4, f4)")

    @simt.kernel(link=[CU, CL])
    def scale(out, x, y):
        i = simt.grid(1)
        if i < out.size:
            out[i] = fma3(x[i], y[i])

    x = simt.asarray(rng.random(300).astype(np.float32), device=device)
    y = simt.asarray(rng.random(300).astype(np.float32), device=device)
    out = simt.full(300, np.nan, dtype=np.float32, device=device)
    scale[3, 128](out, x, y)
    np.testing.assert_array_equal(out.get(), x.get() * y.get())
    with pytest.raises(TypeError, match="simt.kernel: link= takes file paths"):
        simt.kernel(link=[3])


def test_kernel_signatures_in_every_spelling(device):
    """One reader for every signature: texts in Numba's vocabulary, bare lists, type
    objects, tuples of type objects; a kernel's result must be void."""
    from simt.cuda import float32, int32, void

    def body(a, n):
        i = simt.grid(1)
        if i < a.size:
            a[i] = n

    from simt.cuda import types
    from simt.cuda.typing import signature as numba_signature

    typed = numba_signature(types.void, float32[::1], np.int32)  # NumPy's types too
    assert str(typed) == "void(float32[::1], int32)"
    # As Numba's: type objects are types.Type, a signature is not one.
    assert isinstance(float32[::1], types.Type) and not isinstance(typed, types.Type)
    assert isinstance(float32[::1], types.Array) and float32[::1].layout == "C"
    assert types.Array(np.float32, 2, "F") == float32[::1, :]
    assert types.complex64.underlying_float == float32
    with pytest.raises(TypeError, match="'x' is not a type"):
        numba_signature(types.void, "x")
    for signature in ("void(float32[::1], int32)", "(f4[::1], i4)", "float32[::1], int32",
                      void(float32[::1], int32), (float32[::1], int32), typed):
        k = simt.kernel(body)
        k.compile(signature, device=device)
        assert k.signatures == [("float32[::1]", "int32")], signature
    jitted = cuda.jit((float32[::1], int32))(body)
    assert jitted.signatures == [("float32[::1]", "int32")]
    with pytest.raises(TypeError, match="a kernel returns nothing"):
        simt.kernel(body).compile("float32(float32[::1], int32)")
    with pytest.raises(ValueError, match="float33"):
        simt.kernel(body).compile("void(float33[::1], int32)")


def test_c_abi_functions_return_their_result(device, rng, tmp_path):
    """declare_device(abi="c"): `T f(args...)`, as Numba's C ABI; a void one too."""
    cu = tmp_path / "cabi.cu"
    cu.write_text('extern "C" __device__ int times2(int x) { return 2 * x; }\n'
                  'extern "C" __device__ int const42() { return 42; }\n'
                  'extern "C" __device__ void store(float* out, float v) { *out = v; }\n')
    cl = tmp_path / "cabi.cl"
    cl.write_text("int times2(int x) { return 2 * x; }\n"
                  "int const42(void) { return 42; }\n"
                  "void store(__global float* out, float v) { *out = v; }\n")
    times2 = cuda.declare_device("times2", "int32(int32)", link=[cu, cl], abi="c")
    const42 = cuda.declare_device("const42", "int32()", link=[cu, cl], abi="c")
    store = cuda.declare_device("store", types.void(types.CPointer(types.float32),
                                                    types.float32), link=[cu, cl], abi="c")

    @cuda.jit
    def k(r, x, f):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = times2(x[i]) + const42()
        if i == 0:
            store(f, 2.5)

    with simt.use_device(device):
        x = rng.integers(-1000, 1000, 50).astype(np.int32)
        r = np.zeros_like(x)
        f = np.zeros(1, np.float32)
        k[1, 64](r, x, f)
    np.testing.assert_array_equal(r, 2 * x + 42)
    assert f[0] == 2.5
    with pytest.raises(NotImplementedError, match="abi must be 'numba'"):
        cuda.declare_device("f", "int32(int32)", abi="stdcall")
    with pytest.raises(NotImplementedError, match="use_cooperative"):
        cuda.declare_device("f", "int32(int32)", use_cooperative=True)


# Numba's test of linked sources: one function calls another of a second source through a
# pointer to its own local variable; C-ABI functions, one with an empty asm statement.
TIMES2 = cuda.CUSource("""
extern "C" __device__
int times2(int *out, int a)
{
  *out = a * 2;
  return 0;
}
""")
TIMES4 = cuda.CUSource("""
extern "C" __device__ int times2(int *out, int a);

extern "C" {
__device__ int times4(int* out, int a) {
  int tmp;
  times2(&tmp, a);
  *out = tmp * 2;
  return 0;
}
}
""")
WEIGHTED = cuda.CUSource("""
extern "C" __device__ __forceinline__ double weighted(const double* w, const float* x,
                                                      int n, int stride) {
  double total = 0;
  for (int i = 0; i < n; ++i) total += w[i] * (double)x[i * stride];
  return total;
}
extern "C" __device__ void keep(long long v) {
  asm volatile("" : : "l"(v) : "memory");
}
""")


def test_cuda_sources_on_every_device(current, rng):
    """A CUDA C++ source (CUSource or .cu) is linked by every device: OpenCL devices
    translate it to OpenCL C, its pointer parameters pointing where the kernel's arrays
    are (global or shared memory) or, as Numba's result slot, to a private variable."""
    times4 = cuda.declare_device("times4", "int32(int32)", link=[TIMES2, TIMES4])
    weighted = cuda.declare_device(
        "weighted", types.float64(types.CPointer(types.float64), types.CPointer(types.float32),
                                  types.int32, types.int32), link=[WEIGHTED], abi="c")
    keep = cuda.declare_device("keep", "void(int64)", link=[WEIGHTED], abi="c")

    @cuda.jit
    def k(r, x, w, m, out):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = times4(x[i])
            keep(x[i])
        if i < m.shape[0]:
            out[i] = weighted(w, m[i], m.shape[1], 1)

    @cuda.jit
    def shared(out, w, m):
        cache = cuda.shared.array(64, np.float32)
        i = cuda.threadIdx.x
        for j in range(i, m.size, cuda.blockDim.x):
            cache[j] = m[j]
        cuda.syncthreads()
        if i < out.size:
            out[i] = weighted(w, cache[i:], 4, 8)

    x = rng.integers(-1000, 1000, 100).astype(np.int32)
    w = rng.random(8)
    m = rng.random((20, 8)).astype(np.float32)
    r, out = np.zeros_like(x), np.full(20, np.nan)
    k[1, 128](r, x, w, m, out)
    np.testing.assert_array_equal(r, 4 * x)
    np.testing.assert_allclose(out, m.astype(np.float64) @ w, rtol=1e-12)
    out = np.full(8, np.nan)
    flat = m[:8].ravel()
    shared[1, 32](out, w[:4], flat)
    expected = [sum(w[t] * flat[i + 8 * t] for t in range(4)) for i in range(8)]
    np.testing.assert_allclose(out, expected, rtol=1e-12)


def test_opencl_translation_of_cuda_sources(tmp_path):
    """What the translation does to a CUDA source, and what it cannot translate."""
    from simt._cuda_to_opencl import device_source_for_opencl

    text = device_source_for_opencl(TIMES4.data)
    assert 'extern "C"' not in text
    assert "int times4(SIMT_SPACE_times4_0 int* out, int a)" in text
    assert "#ifndef SIMT_SPACE_times2_0" in text
    # The source keeps its lines after the prelude, for the compiler's messages.
    body = text.split("#line 1\n", 1)[1]
    at = [n for n, line in enumerate(TIMES4.data.splitlines()) if "times4(" in line]
    assert body.splitlines()[at[0]].startswith("__device__ int times4(")
    ptx = device_source_for_opencl('extern "C" __device__ int f(int* r) {\n'
                                   '  asm("mov.u32 %0, %laneid;" : "=r"(*r));\n  return 0;\n}\n')
    assert ptx.startswith("#error") and "inline PTX" in ptx
