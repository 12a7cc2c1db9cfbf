"""Compile and typing errors: the right exception, naming the construct, at the right place.

Each bad kernel below is a plain function (decorating it at import would raise); a marker
comment on the offending line gives the expected line, and the offending token's position
in that line the expected column. Nothing is hard-coded as an absolute line number.
"""

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

import simt
from simt import _core, cuda

THIS_FILE = Path(__file__).resolve()
LINES = THIS_FILE.read_text().splitlines()


def line_of(marker):
    """The 1-based line of this file holding the comment `# <marker>`."""
    found = [n for n, text in enumerate(LINES, 1) if text.rstrip().endswith("# " + marker)]
    assert len(found) == 1, marker
    return found[0]


def compile_error(function, *types):
    """The CompileError (or TypingError) that compiling `function` for `types` raises."""
    with pytest.raises(simt.CompileError) as info:
        simt.kernel(function).inspect_types(*types)
    return info.value


def check_location(error, marker, token):
    """The error points at `token` on the line marked `marker`, and says so in its text."""
    line = line_of(marker)
    text = LINES[line - 1]
    assert Path(error.filename).resolve() == THIS_FILE
    assert error.line == line
    assert error.column == text.index(token) + 1, (error.column, text)
    assert error.source_line.rstrip() == text.rstrip()
    check_message(error)


def check_message(error):
    """str(e): 'file:line:column: error: reason', then the source line and a caret under it."""
    message = str(error).splitlines()
    assert message[0] == f"{error.filename}:{error.line}:{error.column}: error: {error.reason}"
    source = error.source_line.rstrip()
    shown = [n for n, text in enumerate(message) if text.rstrip().endswith(source.strip())]
    assert shown, message
    n = shown[0]
    caret_line = message[n + 1]
    offset = message[n].index(source.strip()) - (len(source) - len(source.lstrip()))
    assert caret_line.index("^") == offset + error.column - 1, message


# ------------------------------------------------------------- unsupported constructs

def e_lambda(a):
    g = lambda x: x  # noqa: E731  # err:lambda


def e_listcomp(a):
    x = [v for v in range(3)]  # err:listcomp


def e_genexp(a):
    x = sum(v for v in range(3))  # err:genexp


def e_dict(a):
    x = {1: 2}  # err:dict


def e_set(a):
    x = {1, 2}  # err:set


def e_try(a):
    try:  # err:try
        x = 1
    except Exception:
        pass


def e_with(a):
    with open("x") as f:  # err:with
        pass


def e_class(a):
    class Inner:  # err:class
        pass


def e_def(a):
    def inner():  # err:def
        pass


def e_fstring(a):
    print(f"{a}")  # err:fstring


def e_global(a):
    global SOMETHING  # err:global


def e_yield(a):
    yield 1  # err:yield


def e_del(a):
    x = 1
    del x  # err:del


def e_import(a):
    import os  # noqa: F401  # err:import


def e_raise(a):
    raise  # err:raise


def e_walrus(a):
    if (n := 3) > 2:  # err:walrus
        pass


def e_for_else(a):
    for i in range(3):
        pass
    else:  # err:for-else
        pass


def e_while_else(a):
    while a[0] > 0:
        pass
    else:  # err:while-else
        pass


def e_ellipsis(a):
    x = ...  # err:ellipsis


def e_bytes(a):
    print(b"x")  # err:bytes


def e_star_args(*a):  # err:star-args
    pass


def e_star_unpack(a):
    x, *y = (1, 2, 3)  # err:star-unpack


def e_match(a):
    match a:  # err:match
        case 1:
            pass


def _make_nonlocal():
    b = 1

    def e_nonlocal(a):
        nonlocal b  # err:nonlocal
    return e_nonlocal


CONSTRUCTS = [  # function, marker, token the column points at, words the reason contains
    (e_lambda, "err:lambda", "lambda", "lambda"),
    (e_listcomp, "err:listcomp", "[", "list comprehension"),
    (e_genexp, "err:genexp", "v for", "generator expression"),
    (e_dict, "err:dict", "{", "dict"),
    (e_set, "err:set", "{", "set"),
    (e_try, "err:try", "try", "try"),
    (e_with, "err:with", "with", "with"),
    (e_class, "err:class", "class", "class"),
    (e_def, "err:def", "def", "nested function"),
    (e_fstring, "err:fstring", 'f"', "f-string"),
    (e_global, "err:global", "global", "global"),
    (e_yield, "err:yield", "yield", "yield"),
    (e_del, "err:del", "del", "del"),
    (e_import, "err:import", "import", "import"),
    (e_raise, "err:raise", "raise", "bare raise"),
    (e_walrus, "err:walrus", ":=", ":="),
    (e_for_else, "err:for-else", "else", "for ... else"),
    (e_while_else, "err:while-else", "else", "while ... else"),
    (e_ellipsis, "err:ellipsis", "...", "..."),
    (e_bytes, "err:bytes", 'b"', "bytes"),
    (e_star_args, "err:star-args", "*a", "*args"),
    (e_star_unpack, "err:star-unpack", "*y", "star"),
    (e_match, "err:match", "match", "match"),
    (_make_nonlocal(), "err:nonlocal", "nonlocal", "nonlocal"),
]


@pytest.mark.parametrize("function, marker, token, words", CONSTRUCTS,
                         ids=[c[1].split(":")[1] for c in CONSTRUCTS])
def test_unsupported_construct_is_compile_error(function, marker, token, words):
    with pytest.raises(simt.CompileError) as info:
        simt.kernel(function).inspect_types(*["float32[:]"] * function.__code__.co_argcount)
    error = info.value
    assert type(error) is simt.CompileError
    assert words in error.reason
    check_location(error, marker, token)


# ------------------------------------------------------------------------- syntax errors

SYNTAX_ERRORS = [  # source, (line, column) of the error within the source, words in the reason
    ("def k(a):\n    x = (1 +\n", (2, 9), "never closed"),
    ("def k(a):\n  x = 1\n    y = 2\n", (3, 5), "indent"),
    ("def k(a):\n    if a\n        pass\n", (2, 9), "':'"),
    ('def k(a):\n    x = "abc\n', (2, 9), "unterminated string"),
    ("def k(a):\n    x = 0x\n", (2, 9), "hexadecimal"),
    ("def k(a):\n    x = 1 $ 2\n", (2, 11), "'$'"),
    ("x = 1\n", (1, 1), "def"),
]


@pytest.mark.parametrize("source, where, words", SYNTAX_ERRORS)
@pytest.mark.parametrize("first_line", [1, 40])
def test_syntax_errors(source, where, words, first_line):
    """The front end's own parser: located in the user's file (first_line is the def's line)."""
    with pytest.raises(simt.CompileError) as info:
        _core.Function(source, "/somewhere/user_file.py", first_line)
    error = info.value
    assert type(error) is simt.CompileError
    assert words in error.reason
    assert error.filename == "/somewhere/user_file.py"
    assert (error.line, error.column) == (first_line + where[0] - 1, where[1])
    assert error.source_line.rstrip() == source.splitlines()[where[0] - 1].rstrip()
    check_message(error)


def test_errors_in_another_module_point_into_that_file(tmp_path):
    path = tmp_path / "user_kernels.py"
    path.write_text("import simt\n\n\n"
                    "class Holder:\n"
                    "    @staticmethod\n"
                    "    def make():\n"
                    "        @simt.kernel\n"
                    "        def k(a):\n"
                    "            x = [v for v in a]\n"
                    "        return k\n"
                    "\n"
                    "Holder.make()\n")
    spec = importlib.util.spec_from_file_location("user_kernels", path)
    with pytest.raises(simt.CompileError) as info:
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
    error = info.value
    assert Path(error.filename).resolve() == path.resolve()
    assert (error.line, error.column) == (9, 17)
    assert error.source_line.strip() == "x = [v for v in a]"
    check_message(error)


# --------------------------------------------------------------------------- typing errors

LIST_GLOBAL = [1, 2]


def t_undefined(a):
    x = undefined_name + 1  # noqa: F821  # typ:undefined


def t_whole_array(a):
    x = a + 1  # typ:whole-array


def t_float_index(a):
    x = a[1.5]  # typ:float-index


def t_too_many_indices(a):
    x = a[0, 1]  # typ:too-many-indices


def t_two_types(a):
    x = a
    x = 1.0  # typ:two-types


def t_bitwise_float(a):
    x = a[0] & 1  # typ:bitwise-float


def t_math_unknown(a):
    x = math.foo(1.0)  # typ:math-unknown


def t_arg_count(a):
    x = math.sqrt(1.0, 2.0)  # typ:arg-count


def t_grid4(a):
    x = cuda.grid(4)  # typ:grid4


def t_range_step0(a):
    for i in range(0, 10, 0):  # typ:range0
        pass


def t_unpack(a):
    x, y = (1, 2, 3)  # typ:unpack


def t_annotated(a):
    x: np.float32 = a  # typ:annotated


def t_store_complex(a):
    a[0] = 1j  # typ:store-complex


def t_not_callable(a):
    x = a[0](1)  # typ:not-callable


def t_array_attribute(a):
    x = a.foo  # typ:array-attribute


def t_none(a):
    x = None + 1  # typ:none


def t_compare_arrays(a):
    x = a < a  # typ:compare-arrays


def t_conditional(a):
    x = a if a[0] > 0 else 1.0  # typ:conditional


def t_return_value(a):
    return 1  # typ:return


def t_list_global(a):
    x = LIST_GLOBAL[0]  # typ:list-global


def t_slice(a):
    x = a[1.5:3]  # typ:slice


def t_matmul(a):
    x = a @ a  # typ:matmul


def t_in(a):
    x = 1 in (1, 2)  # typ:in


def t_attribute_store(a):
    a.shape = (1,)  # typ:attribute-store


TYPING = [  # function, marker, token, words the reason contains
    (t_undefined, "typ:undefined", "undefined_name", "undefined_name"),
    (t_whole_array, "typ:whole-array", "a + 1", "float32[:]"),
    (t_float_index, "typ:float-index", "1.5", "integer"),
    (t_too_many_indices, "typ:too-many-indices", "0, 1", "too many indices"),
    (t_two_types, "typ:two-types", "x = 1.0", f"line {line_of('typ:two-types') - 1}"),
    (t_bitwise_float, "typ:bitwise-float", "a[0] & 1", "float32"),
    (t_math_unknown, "typ:math-unknown", "math.foo", "math.foo"),
    (t_arg_count, "typ:arg-count", "math.sqrt", "2"),
    (t_grid4, "typ:grid4", "4", "grid"),
    (t_range_step0, "typ:range0", "0):", "step"),
    (t_unpack, "typ:unpack", "x, y", "3"),
    (t_annotated, "typ:annotated", "x:", "float32"),
    (t_store_complex, "typ:store-complex", "a[0]", "imaginary"),
    (t_not_callable, "typ:not-callable", "a[0](1)", "callable"),
    (t_array_attribute, "typ:array-attribute", "a.foo", "foo"),
    (t_none, "typ:none", "None + 1", "None"),
    (t_compare_arrays, "typ:compare-arrays", "a < a", "compare"),
    (t_conditional, "typ:conditional", "a if", "conditional"),
    (t_return_value, "typ:return", "1", "return"),
    (t_list_global, "typ:list-global", "LIST_GLOBAL", "list"),
    (t_slice, "typ:slice", "1.5", "slice bound"),
    (t_matmul, "typ:matmul", "a @ a", "@"),
    (t_in, "typ:in", "1 in", "'in'"),
    # Attributes are assigned only where they are a record's fields (test_records.py).
    (t_attribute_store, "typ:attribute-store", "a.shape", "cannot assign to the attribute"),
]


@pytest.mark.parametrize("function, marker, token, words", TYPING,
                         ids=[t[1].split(":")[1] for t in TYPING])
def test_typing_errors(function, marker, token, words):
    error = compile_error(function, "float32[:]")
    assert type(error) is simt.TypingError
    assert words in error.reason
    check_location(error, marker, token)


def t_weak_int_too_big(a):
    x = a[0] + 1000  # typ:weak-too-big


def t_weak_int_negative_for_unsigned(b):
    y = b[0] * -1  # typ:weak-negative


@pytest.mark.parametrize("function, dtype, marker, token", [
    (t_weak_int_too_big, "int8[:]", "typ:weak-too-big", "a[0] + 1000"),
    (t_weak_int_negative_for_unsigned, "uint8[:]", "typ:weak-negative", "b[0] * -1")])
def test_weak_int_literal_out_of_range_is_an_error(function, dtype, marker, token):
    """NEP 50: a Python int that does not fit the other operand's dtype is an error (NumPy 2
    raises OverflowError), not a silent wrap."""
    error = compile_error(function, dtype)
    assert type(error) is simt.TypingError
    assert "1000" in error.reason or "-1" in error.reason
    check_location(error, marker, token)


def test_typing_error_is_a_compile_error():
    assert issubclass(simt.TypingError, simt.CompileError)
    error = compile_error(t_undefined, "float32[:]")
    assert isinstance(error, simt.CompileError)
    assert error.filename and error.source_line


def test_errors_are_raised_again_for_each_signature():
    kernel = simt.kernel(t_whole_array)
    for types in ["float32[:]", "int8[:, ::1]", "float32[:]"]:
        with pytest.raises(simt.TypingError) as info:
            kernel.inspect_types(types)
        assert info.value.line == line_of("typ:whole-array")


def test_backend_compile_error_names_the_cited_python_line():
    log = ("the OpenCL compiler of opencl:0 rejected the OpenCL C code of simt_kernel_k:\n"
           "<source>:14:3: error: use of undeclared identifier 'q'\n"
           "  (generated from k.py:7: out[i] = q)\n"
           "<source>:15:3: error: another\n"
           "  (generated from k.py:8: out[i] = r)")
    error = simt.errors.BackendCompileError(log)
    assert isinstance(error, simt.CompileError) and isinstance(error, simt.DeviceError)
    assert (error.filename, error.line, error.source_line) == ("k.py", 7, "out[i] = q")
    assert str(error) == log
    uncited = simt.errors.BackendCompileError("NVRTC rejected it:\nerror: something")
    assert uncited.filename is None and uncited.line is None


def test_a_kernel_typed_at_a_plain_prompt_says_where_kernels_can_be_defined():
    # A program read from standard input keeps no source, like the plain interactive
    # prompt (`python -c` programs and exec'd strings do: test_numba_sources.py).
    import subprocess
    import sys

    code = "import simt\n@simt.kernel\ndef k(a):\n    a[0] = 1\n"
    result = subprocess.run([sys.executable, "-"], input=code, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode != 0
    assert "TypeError" in result.stderr
    assert "in a file" in result.stderr and "IPython" in result.stderr, result.stderr


@pytest.mark.parametrize("value", [np.datetime64(1, "s"), np.timedelta64(3, "ms"),
                                   np.zeros(3, "M8[s]"), np.zeros(2, [("a", "f4"), ("o", "O")]),
                                   np.void(b"ab"), np.str_("x"), np.zeros(3, object)])
def test_unsupported_numpy_values_are_type_errors_naming_the_argument(value):
    @simt.kernel
    def k(x):
        pass

    with pytest.raises(TypeError, match="'x'"):
        k[1, 1](value)
    with pytest.raises(TypeError, match="'x'"):
        k.inspect_types(value)


@pytest.mark.parametrize("shape, dtype", [(2**61, np.float64), ((2**40, 2**30), np.int32),
                                          (2**63 - 1, np.int16)])
def test_sizes_past_the_address_space_are_value_errors(device, shape, dtype):
    with pytest.raises(ValueError, match="too big"):
        simt.empty(shape, dtype, device=device)


@pytest.mark.parametrize("make", [lambda d: simt.empty(2**64, device=d),
                                  lambda d: simt.zeros((3, 2**70), device=d),
                                  lambda d: simt.full(2**63, 1.0, device=d),
                                  lambda d: simt.arange(1e20, device=d)])
def test_extents_past_int64_are_numpys_value_error_not_a_binding_dump(device, make):
    with pytest.raises(ValueError, match="Maximum allowed dimension exceeded") as caught:
        make(device)
    assert len(str(caught.value)) < 200 and "incompatible function arguments" not in str(
        caught.value)


_NOT_DATA = {
    "thread_idx": "    t = cuda.threadIdx\n    out[0] = t.x\n",
    "str": "    s = 'hi'\n    out[0] = 1\n",
    "range": "    r = range(3)\n    for i in r:\n        out[0] += i\n",
    "dtype float32": "    f = np.float32\n    out[0] = f(2.5)\n",
    "function math.sin": "    g = math.sin\n    out[0] = g(1.0)\n",
    "module simt": "    m = simt\n    out[0] = 1\n",
}


@pytest.mark.parametrize("what", sorted(_NOT_DATA))
def test_a_variable_holding_a_module_function_or_dtype_is_a_typing_error_at_its_line(
        tmp_path, what):
    path = tmp_path / "kernels_not_data.py"
    path.write_text("import math\nimport numpy as np\nimport simt\nfrom simt import cuda\n\n\n"
                    "def k(out):\n" + _NOT_DATA[what])
    spec = importlib.util.spec_from_file_location("kernels_not_data", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    kernel = simt.kernel(module.k)
    with pytest.raises(simt.TypingError, match="cannot hold " + what) as info:
        kernel.inspect_types("float64[::1]")
    assert info.value.line == 8


_TUPLES_NOT_DATA = {
    # Each was a RuntimeError without a location ("global 'simt' has no value
    # to emit") when the kernel was generated.
    "an item of a tuple display": "    out[0] = (simt, 1)[1]\n",
    "a dtype in a tuple display": "    out[0] = (np.float32, 2.5)[1]\n",
}


@pytest.mark.parametrize("what", sorted(_TUPLES_NOT_DATA))
def test_a_tuple_display_holding_a_module_is_a_typing_error_at_its_line(tmp_path, what):
    module = _load_module(tmp_path, "kernels_tuples_not_data",
                          "import numpy as np\nimport simt\n\n\ndef k(out):\n"
                          "    out[1] = 2\n" + _TUPLES_NOT_DATA[what])
    kernel = simt.kernel(module.k)
    out = simt.zeros(2, device="cpu")
    with pytest.raises(simt.TypingError, match="cannot be evaluated") as info:
        kernel[1, 1](out)
    assert info.value.line == 7
    assert info.value.filename == str(tmp_path / "kernels_tuples_not_data.py")
    # An item that is not a value itself is still reached without evaluating
    # the tuple (its attributes are resolved at compile time).
    reached = _load_module(tmp_path, "kernels_tuple_attribute",
                           "import simt\n\n\ndef k(out):\n"
                           "    out[0] = (simt, 1)[0].grid(1) + 5\n"
                           "    (simt, 1)  # a statement: its items have no effect, as in Python\n")
    simt.kernel(reached.k)[1, 1](out)
    assert out.get()[0] == 5


def _load_module(tmp_path, name, text):
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_deep_nesting_is_a_clear_error_not_a_stack_overflow(tmp_path):
    @simt.kernel
    def k(t, out):
        out[0] = 1

    out = simt.zeros(1)
    deep = 1
    for _ in range(20000):
        deep = (deep,)
    with pytest.raises(TypeError, match="nested more than 32"):
        k[1, 1](deep, out)
    with pytest.raises(TypeError, match="nested more than 32"):
        simt.typeof(deep)
    with pytest.raises(TypeError, match="not a simt type"):
        k.inspect_types("(" * 100000 + "int64" + ")" * 100000, "float64[::1]")

    module = _load_module(tmp_path, "kernels_growing", (
        "def k(out):\n"
        "    for i in range(3):\n"
        "        x = (x, x)\n"
        "    out[0] = 1\n"))
    with pytest.raises(simt.TypingError, match="holding itself"):
        simt.kernel(module.k).inspect_types("float64[::1]")

    chain = "import simt\n\n"
    for level in range(80):
        chain += f"@simt.func\ndef f{level}(x):\n    return f{level + 1}(x) + 1\n\n"
    chain += "@simt.func\ndef f80(x):\n    return x\n\n\ndef k(out):\n    out[0] = f0(1.0)\n"
    module = _load_module(tmp_path, "kernels_chain", chain)
    with pytest.raises(simt.TypingError, match="nested more than 64 calls"):
        simt.kernel(module.k).inspect_types("float64[::1]")


def test_arrays_of_more_than_32_dimensions_are_type_errors_naming_the_argument():
    @simt.kernel
    def k(a):
        pass

    with pytest.raises(TypeError, match="'a'.*more than 32 dimensions"):
        k.inspect_types(np.zeros((1,) * 33, np.float32))


def test_a_runtime_index_into_a_tuple_of_tuples_is_a_typing_error(tmp_path):
    module = _load_module(tmp_path, "kernels_tuple_of_tuples", (
        "def k(out, i):\n"
        "    t = ((1, 2), (3, 4))\n"
        "    p = t[i]\n"
        "    out[0] = p[0]\n"))
    with pytest.raises(simt.TypingError, match="tuple of tuples needs a constant index"):
        simt.kernel(module.k).inspect_types("float64[::1]", "int64")


def test_strides_past_the_address_space_are_value_errors_even_for_empty_arrays(device):
    with pytest.raises(ValueError, match="too big"):
        simt.empty((0, 2**40, 2**40), np.int8, device=device)
