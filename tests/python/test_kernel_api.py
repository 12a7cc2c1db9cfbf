"""The Python API of @simt.kernel: decorators, inspect_source / inspect_types, arguments and
the resolution of the global names a kernel uses."""

import math
from math import sqrt
from pathlib import Path

import numpy
import numpy as np
import pytest

import simt
from simt import cuda, threadIdx

THIS_FILE = Path(__file__).resolve()
DIALECTS = ["cpp", "cuda", "opencl"]


def line_of(marker):
    """The 1-based line of this file holding `marker` (a unique comment)."""
    lines = [n for n, text in enumerate(THIS_FILE.read_text().splitlines(), 1)
             if "# " + marker in text]
    assert len(lines) == 1, marker
    return lines[0]


def comment_lines(source):
    """{line: source text} from the '// file:line: text' comments of generated code."""
    found = {}
    for text in source.splitlines():
        text = text.strip()
        if text.startswith(f"// {THIS_FILE.name}:"):
            _, line, rest = text[3:].split(":", 2)
            found[int(line)] = rest.strip()
    return found


@simt.kernel
def add_one(a, out):
    i = cuda.grid(1)
    if i < out.shape[0]:  # @api:add_one:if
        out[i] = a[i] + 1.0  # @api:add_one:store


@simt.kernel(debug=True)
def add_one_debug(a, out):
    i = cuda.grid(1)
    out[i] = a[i] + 1.0


# ------------------------------------------------------------------------------ decorators

def test_kernel_decorator_forms():
    assert isinstance(add_one, simt.Kernel)
    assert isinstance(add_one_debug, simt.Kernel)
    assert add_one.debug is False and add_one_debug.debug is True
    assert add_one.__name__ == "add_one"
    assert "add_one" in repr(add_one)
    assert add_one.py_func.__name__ == "add_one"
    assert isinstance(simt.kernel()(add_one.py_func), simt.Kernel)


def test_kernel_decorates_only_functions():
    with pytest.raises(TypeError):
        simt.kernel(42)


# -------------------------------------------------------------------------- inspect_source

@pytest.mark.parametrize("dialect", DIALECTS)
def test_inspect_source_has_entry_symbol_and_line_comments(dialect):
    source = add_one.inspect_source("float32[::1]", "float32[::1]", dialect=dialect)
    assert "simt_kernel_add_one" in source
    comments = comment_lines(source)
    assert comments[line_of("@api:add_one:if")].startswith("if i < out.shape[0]:")
    assert comments[line_of("@api:add_one:store")].startswith("out[i] = a[i] + 1.0")
    assert comments[line_of("@api:add_one:if") - 1] == "i = cuda.grid(1)"


@pytest.mark.parametrize("dialect", DIALECTS)
def test_inspect_source_debug_kernel(dialect):
    source = add_one_debug.inspect_source("float64[:]", "float64[:]", dialect=dialect)
    assert "simt_kernel_add_one_debug" in source


def test_inspect_source_defaults_to_cpp():
    assert (add_one.inspect_source("float32[::1]", "float32[::1]")
            == add_one.inspect_source("float32[::1]", "float32[::1]", dialect="cpp"))


@pytest.mark.parametrize("dialect", ["CUDA", "c++", "ptx", "", None])
def test_invalid_dialect_is_value_error(dialect):
    with pytest.raises(ValueError, match="dialect"):
        add_one.inspect_source("float32[:]", "float32[:]", dialect=dialect)


def test_type_strings_dtypes_and_example_values_are_equivalent():
    a = np.zeros(8, np.float32)
    by_string = add_one.inspect_source("float32[::1]", "float32[::1]")
    assert add_one.inspect_source(a, a) == by_string
    assert add_one.inspect_source(a, "float32[::1]") == by_string
    scalar_kernel = simt.kernel(_scalar_kernel)
    by_dtype = scalar_kernel.inspect_source(np.float32, np.dtype("int16"))
    assert scalar_kernel.inspect_source("float32", "int16") == by_dtype
    assert scalar_kernel.inspect_source(np.float32(1), np.int16(2)) == by_dtype


def _scalar_kernel(x, n):
    y = x * n


@pytest.mark.parametrize("value, expected", [
    (np.zeros(3, np.float32), "float32[::1]"),
    (np.zeros((3, 4), np.int8), "int8[:, ::1]"),
    (np.zeros((3, 4), np.int8, order="F"), "int8[::1, :]"),
    (np.zeros((3, 4), np.int8)[:, ::2], "int8[:, :]"),
    (np.zeros(6)[::2], "float64[:]"),
    (np.float16(1), "float16"), (1, "int64"), (1.0, "float64"), (1j, "complex128"),
    (True, "bool"), ((1, 2.0), "(int64, float64)"), ("uint8[:]", "uint8[:]")])
def test_argument_types(value, expected):
    assert simt.typeof(value) == expected
    assert simt.kernel(_one_arg).inspect_types(value)["a"] == expected


def _one_arg(a):
    pass


def test_inspect_types_reports_locals():
    types = add_one.inspect_types(np.zeros(3, np.float32), np.zeros(3, np.float64))
    assert types == {"a": "float32[::1]", "out": "float64[::1]", "i": "int64"}


# ---------------------------------------------------------------------------- bad arguments

@pytest.mark.parametrize("args", [(), ("float32[:]",), ("float32[:]",) * 3])
def test_argument_count_mismatch_names_the_kernel(args):
    with pytest.raises(TypeError, match="add_one") as info:
        add_one.inspect_source(*args)
    assert "2" in str(info.value)
    with pytest.raises(TypeError, match="add_one"):
        add_one.inspect_types(*args)


@pytest.mark.parametrize("bad", [[1.0, 2.0], object(), {"a": 1}, None,
                                 np.zeros(3, np.str_), np.zeros(3, object), np.zeros(3, "M8[s]")])
def test_unsupported_argument_names_the_argument(bad):
    with pytest.raises(TypeError, match="'out'"):
        add_one.inspect_source(np.zeros(3, np.float32), bad)


@pytest.mark.parametrize("bad", ["float33[:]", "list", "float32[", "int8[:, :, ::1, ::1]"])
def test_invalid_type_strings_are_type_errors(bad):
    with pytest.raises(TypeError, match="'a'"):
        add_one.inspect_source(bad, "float32[:]")


# ------------------------------------------------------------- kernels defined in scopes

class Holder:
    def make(self, scale):
        @simt.kernel
        def method_kernel(a, out):
            i = cuda.grid(1)
            out[i] = a[i] * scale  # @api:method

        return method_kernel


def make_nested():
    def inner():
        @simt.kernel
        def nested_kernel(a, out):
            i = cuda.grid(1)
            if i < 10:
                out[i] = a[i] - 1  # @api:nested
        return nested_kernel
    return inner()


@pytest.mark.parametrize("make, marker, name", [
    (lambda: Holder().make(2.0), "@api:method", "method_kernel"),
    (make_nested, "@api:nested", "nested_kernel")])
@pytest.mark.parametrize("dialect", DIALECTS)
def test_indented_kernels_have_correct_lines(make, marker, name, dialect):
    kernel = make()
    source = kernel.inspect_source("float64[:]", "float64[:]", dialect=dialect)
    assert f"simt_kernel_{name}" in source
    comments = comment_lines(source)
    assert line_of(marker) in comments
    assert comments[line_of(marker)].startswith("out[i] = a[i]")


def test_indented_kernel_errors_point_at_the_file():
    kernel = make_nested()
    with pytest.raises(simt.TypingError) as info:
        kernel.inspect_types("float64[:]", "float64[:, :]")
    assert info.value.line == line_of("@api:nested")
    assert Path(info.value.filename).resolve() == THIS_FILE
    source_line = THIS_FILE.read_text().splitlines()[info.value.line - 1]
    assert info.value.source_line.strip() == source_line.strip()


# ---------------------------------------------------------------------- global resolution

SCALE = 2.5


@simt.kernel
def uses_namespaces(a, out):
    i = simt.grid(1)
    j = cuda.grid(1)
    t = threadIdx.x + cuda.blockIdx.x * simt.block_dim.x + simt.gridDim.x
    x = math.sqrt(a[i]) + sqrt(a[j]) + np.sqrt(a[i]) + numpy.float32(t) + SCALE
    y = np.float32(x)
    z = math.pi + np.pi
    out[i] = y + z


@pytest.mark.parametrize("dialect", DIALECTS)
def test_modules_intrinsics_and_functions_resolve(dialect):
    source = uses_namespaces.inspect_source("float32[:]", "float32[:]", dialect=dialect)
    assert "simt_kernel_uses_namespaces" in source
    types = uses_namespaces.inspect_types("float32[:]", "float32[:]")
    assert types["i"] == types["j"] == types["t"] == "int64"
    assert types["y"] == "float32"
    assert types["x"] == "float32"  # math.sqrt of a float32 is float32; 2.5 is weak
    assert types["z"] == "float64"


def test_numba_style_import_of_simt_cuda():
    import simt.cuda
    assert simt.cuda.grid is simt.grid
    assert cuda.threadIdx is simt.threadIdx is simt.thread_idx


@pytest.mark.parametrize("call", [lambda: simt.grid(1), lambda: cuda.grid(2),
                                  lambda: simt.gridsize(1), lambda: threadIdx.x,
                                  lambda: cuda.blockIdx.y])
def test_device_api_outside_kernels_raises(call):
    with pytest.raises(RuntimeError, match="inside a simt kernel"):
        call()


NOT_A_CONSTANT = [1, 2, 3]


def plain_python_function(x):
    return x


@simt.kernel
def uses_list_global(a, out):
    i = cuda.grid(1)
    out[i] = NOT_A_CONSTANT[0]  # @api:list-global


@simt.kernel
def uses_python_function(a, out):
    i = cuda.grid(1)
    out[i] = plain_python_function(a[i])  # @api:function-global


@simt.kernel
def uses_builtin_outside_subset(a, out):
    i = cuda.grid(1)
    out[i] = sum(a)  # @api:builtin-global


@pytest.mark.parametrize("kernel, marker, name", [
    (uses_list_global, "@api:list-global", "NOT_A_CONSTANT"),
    (uses_python_function, "@api:function-global", "plain_python_function"),
    (uses_builtin_outside_subset, "@api:builtin-global", "sum")])
def test_unsupported_global_is_typing_error_at_use_site(kernel, marker, name):
    with pytest.raises(simt.TypingError) as info:
        kernel.inspect_types("float32[:]", "float32[:]")
    error = info.value
    assert error.line == line_of(marker)
    text = THIS_FILE.read_text().splitlines()[error.line - 1]
    assert error.column == text.index(name) + 1
    assert name in str(error)


def test_globals_are_read_at_compile_time_and_baked_in():
    source = uses_namespaces.inspect_source("float32[:]", "float32[:]")
    assert "2.5" in source


def test_zero_dimensional_array_is_a_scalar_argument():
    # NumPy 0-d arrays pass their value, like NumPy scalars.
    assert simt.typeof(np.array(1.5, np.float32)) == "float32"


def test_a_configuration_is_checked_whatever_ran_before():
    # 1.0 == 1 as a dict key: the kept configuration of k[1, 32] must not serve k[1.0, 32].
    k = simt.kernel(_one_arg)
    a = simt.to_device(np.zeros(4, np.float32))
    k[1, 32](a)
    with pytest.raises(TypeError):
        k[1.0, 32](a)
    with pytest.raises(TypeError):
        k[(1.0,), 32](a)
    k[1, 32](a)


@pytest.mark.parametrize("dtype", [">f4", ">f8", ">i4", ">u2", ">c8"])
def test_big_endian_values_are_converted_to_native_order(rng, dtype, device):
    host = (rng.standard_normal(17) * 100).astype(dtype)
    on_device = simt.to_device(host, device=device)
    assert on_device.dtype == np.dtype(dtype).newbyteorder("=")
    np.testing.assert_array_equal(on_device.get(), host)
    value = host[3]
    filled = simt.full(5, value, dtype=dtype, device=device)
    np.testing.assert_array_equal(filled.get(), np.full(5, value, dtype=dtype))


# --- explicit signatures close the set, as Numba's do ---------------------------------

def _axpy(out, x, a):
    i = simt.grid(1)
    if i < out.size:
        out[i] = a * x[i]


def test_explicit_signatures_are_the_only_ones(device, rng):
    k = cuda.jit("void(float64[:], float64[:], float64)")(_axpy)
    assert k.closed
    x = rng.random(100)
    out = simt.full(100, np.nan, device=device)
    k[1, 128](out, simt.asarray(x, device=device), 3)  # a Python int where float64 is declared
    np.testing.assert_array_equal(out.get(), 3 * x)
    strided = simt.asarray(np.zeros(200), device=device)[::2]  # float64[:], as declared
    k[1, 128](strided, simt.asarray(x, device=device), np.float32(2))
    np.testing.assert_array_equal(strided.get(), 2 * x)
    ints = simt.full(100, -7, dtype=np.int32, device=device)
    with pytest.raises(TypeError, match=r"No matching definition for argument types "
                                        r"\(int32\[::1\], float64\[::1\], float64\) of kernel "
                                        r"'_axpy'.*\(float64\[:\], float64\[:\], float64\)"):
        k[1, 128](ints, simt.asarray(x, device=device), 1.5)
    np.testing.assert_array_equal(ints.get(), np.full(100, -7))  # nothing ran
    with pytest.raises(TypeError, match="No matching definition"):
        k[1, 128](out, simt.asarray(x, device=device), 1 + 2j)  # complex to float64
    assert k.signatures == [("float64[:]", "float64[:]", "float64")]


def test_a_declared_layout_and_number_kind_are_kept(device):
    @simt.kernel("void(int32[::1], int32)")
    def fill(a, v):
        i = simt.grid(1)
        if i < a.size:
            a[i] = v

    a = simt.zeros(8, dtype=np.int32, device=device)
    fill[1, 8](a, np.int64(5))
    np.testing.assert_array_equal(a.get(), np.full(8, 5))
    with pytest.raises(TypeError, match="No matching definition"):
        fill[1, 8](simt.zeros(16, dtype=np.int32, device=device)[::2], 1)
    with pytest.raises(TypeError, match="No matching definition"):
        fill[1, 8](a, 2.5)
    fill.compile("void(int32[:], int32)")  # declared now: strided views launch it
    view = simt.zeros(16, dtype=np.int32, device=device)[::2]
    fill[1, 8](view, 3)
    np.testing.assert_array_equal(view.get(), np.full(8, 3))


def test_closed_false_and_kernels_without_signatures_stay_open(device, rng):
    k = simt.kernel("void(float64[:], float64[:], float64)", closed=False)(_axpy)
    assert not k.closed and not simt.kernel(_axpy).closed
    out = simt.zeros(10, dtype=np.int32, device=device)
    k[1, 16](out, simt.asarray(np.arange(10, dtype=np.int32), device=device), 2)
    np.testing.assert_array_equal(out.get(), 2 * np.arange(10))
    assert len(k.signatures) == 2
