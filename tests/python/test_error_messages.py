"""Every error message is a few lines and names the user's own source line (issue 40).

Adversarial inputs once gave messages of megabytes (a module's tuple of 100,000 constants
spelled out in full, PoCL's log of every error of a raw kernel), and errors inside simt's
own device functions (random numbers) pointed into simt's files alone, not at the
user's call.
"""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import simt

SHORT = 2000  # characters: a few lines


def load_module(tmp_path, name, text):
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path


@pytest.mark.parametrize("call", ["xoroshiro128p_uniform_float32(out, 0)",
                                  "xoroshiro128p_uniform_float32(states, 1.5)",
                                  "xoroshiro128p_normal_float64(states, (1, 2))"])
def test_an_error_inside_simts_device_functions_is_told_at_the_users_call(tmp_path, call):
    module, path = load_module(tmp_path, "kernels_random_call", (
        "import simt\n"
        "from simt.cuda.random import *\n"
        "\n"
        "def k(out, states):\n"
        f"    out[0] = {call}\n"))
    with pytest.raises(simt.TypingError) as info:
        simt.kernel(module.k).inspect_types("float32[::1]", "float32[::1]")
    error = info.value
    assert (Path(error.filename), error.line) == (path, 5)
    message = str(error)
    assert message.startswith(f"{path}:5:")
    assert f"in {call.split('(')[0]}()" in message
    assert len(message) < SHORT


def test_an_error_inside_the_users_device_function_names_the_kernels_call_too(tmp_path):
    module, path = load_module(tmp_path, "kernels_helper_call", (
        "import simt\n"
        "\n"
        "@simt.func\n"
        "def helper(a, b):\n"
        "    return a + b\n"
        "\n"
        "@simt.func\n"
        "def middle(a, b):\n"
        "    return helper(a, b)\n"
        "\n"
        "def k(out, other):\n"
        "    out[0] = middle(out, other)\n"))
    with pytest.raises(simt.TypingError) as info:
        simt.kernel(module.k).inspect_types("float32[::1]", "float32[::1]")
    message = str(info.value)
    assert (info.value.line, info.value.source_line.strip()) == (5, "return a + b")
    assert f"in helper(), called from {path}:9:" in message
    assert f"in middle(), called from {path}:12:" in message
    assert len(message) < SHORT


def test_a_module_tuple_of_100000_constants_is_a_short_typing_error(tmp_path):
    module, path = load_module(tmp_path, "kernels_big_table", (
        "TABLE = tuple(range(100000))\n"
        "\n"
        "def k(out, i):\n"
        "    out[0] = TABLE[i]\n"))
    with pytest.raises(simt.TypingError, match="tuple of 100000 values") as info:
        simt.kernel(module.k).inspect_types("float64[::1]", "int64")
    assert (Path(info.value.filename), info.value.line) == (path, 4)
    assert len(str(info.value)) < SHORT


def test_types_of_long_tuples_are_shown_short():
    @simt.kernel
    def k(out, t):
        out[0] = t.x

    with pytest.raises(simt.TypingError, match=r"\.\.\. 1000 items in all") as info:
        k.inspect_types("float64[::1]", "(" + ", ".join(["int64"] * 1000) + ")")
    assert len(str(info.value)) < SHORT


def test_a_tuple_argument_of_100000_values_is_a_short_type_error(device):
    @simt.kernel
    def k(out, t):
        out[0] = t[0]

    out = simt.zeros(1, device=device)
    with pytest.raises(TypeError, match="argument 't'.*more than 1024 values") as info:
        k[1, 1](out, tuple(range(100000)))
    assert len(str(info.value)) < SHORT


def test_a_runtime_index_into_a_long_tuple_compiles(device):
    # The generated choice nested one bracket per item, past compilers' 256 levels.
    table = tuple(float(v) for v in range(1000))

    @simt.kernel
    def k(out, t, i):
        out[0] = t[i]

    out = simt.zeros(1, device=device)
    k[1, 1](out, table, 777)
    assert out.get()[0] == 777.0


def test_a_raw_kernel_with_thousands_of_errors_shows_the_first_of_the_log(device):
    if device.backend == "opencl":
        source = "__kernel void k(__global float* o) {\n" + "o[0] = undefined;\n" * 5000 + "}"
    else:
        source = 'extern "C" __global__ void k(float* o) {\n' + "o[0] = undefined;\n" * 5000 + "}"
    kernel = simt.RawKernel(source, "k", device=device)
    with pytest.raises(simt.BackendCompileError, match="undefined") as info:
        kernel((1,), (1,), (simt.zeros(1, dtype=np.float32, device=device),))
    assert len(str(info.value)) < 3 * SHORT
