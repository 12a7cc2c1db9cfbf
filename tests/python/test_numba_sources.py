"""Kernels and device functions whose source Python keeps outside a file of their own, as
Numba programs write them: functions made by exec() of generated text (several strings
under one file name, one line number), lambdas as device functions and reducers
(`cuda.reduce(lambda a, b: a + b)`, Numba's own idiom), and a `python -c` program, on
every device, against NumPy. Compile errors in them name the user's line and column."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import simt
from simt import cuda


_GENERATED = textwrap.dedent("""
    def combine(out, a, b):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = {operation}
    """)


def _generated_kernel(operation):
    namespace = {}
    exec(_GENERATED.format(operation=operation), {"cuda": cuda}, namespace)
    return cuda.jit(namespace["combine"])


def test_kernels_from_exec_of_generated_text(current, rng):
    """Three strings, one file name ("<string>") and one line each: every kernel compiles
    its own text."""
    kernels = {op: _generated_kernel(op) for op in ("a[i] + b[i]", "a[i] * b[i]",
                                                      "max(a[i], b[i])")}
    a, b = rng.random(300), rng.random(300)
    for op, expected in (("a[i] + b[i]", a + b), ("a[i] * b[i]", a * b),
                         ("max(a[i], b[i])", np.maximum(a, b))):
        out = cuda.to_device(np.full(300, np.nan))
        kernels[op][3, 128](out, cuda.to_device(a), cuda.to_device(b))
        np.testing.assert_array_equal(out.copy_to_host(), expected, err_msg=op)


def test_exec_with_a_file_name_of_its_own(current, rng):
    code = compile("def scale(out, x):\n"
                   "    i = cuda.grid(1)\n"
                   "    if i < out.size:\n"
                   "        out[i] = 3 * x[i]\n", "<generated scale>", "exec")
    namespace = {"cuda": cuda}
    exec(code, namespace)
    scale = cuda.jit(namespace["scale"])
    x = rng.random(100)
    out = cuda.to_device(np.full(100, np.nan))
    scale[1, 128](out, cuda.to_device(x))
    np.testing.assert_array_equal(out.copy_to_host(), 3 * x)


def test_lambdas_as_reducers_and_device_functions(current, rng):
    sum_reduce = cuda.reduce(lambda a, b: a + b)
    max_reduce = cuda.Reduce(lambda a, b: max(a, b))
    x = rng.random(1000)
    np.testing.assert_allclose(sum_reduce(x), x.sum(), rtol=1e-12)
    assert max_reduce(x) == x.max()
    # Two lambdas on one line, one spanning two lines: each is its own function.
    twice, shifted = cuda.jit(device=True)(lambda v: 2 * v), cuda.jit(device=True)(
        lambda v, k=1:
            v + k)

    @cuda.jit
    def apply(out, a):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = shifted(twice(a[i]))

    out = cuda.to_device(np.full(1000, np.nan))
    apply[8, 128](out, cuda.to_device(x))
    np.testing.assert_array_equal(out.copy_to_host(), 2 * x + 1)


def test_lambda_compile_errors_name_the_users_line_and_column(current):
    bits = cuda.jit(device=True)(lambda v: v & 1.5)

    @cuda.jit
    def use(out):
        out[0] = bits(out[0])

    with pytest.raises(simt.TypingError) as caught:
        use[1, 1](cuda.to_device(np.zeros(1)))
    error = caught.value
    assert error.filename == __file__
    line = next(n for n, text in enumerate(open(__file__), 1) if "lambda v: v & 1.5" in text)
    assert (error.line, error.column) == (line, open(__file__).readlines()[line - 1].index(
        "v & 1.5") + 1), str(error)


def test_a_kernel_in_python_dash_c(device):
    program = textwrap.dedent(f"""
        import numpy as np
        import simt
        from simt import cuda

        @cuda.jit
        def square(a):
            i = cuda.grid(1)
            if i < a.size:
                a[i] = a[i] * a[i]

        with simt.use_device({device.id!r}):
            a = np.arange(10.0)
            square[1, 32](a)
            print(a.tolist())
        """)
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", program], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str((np.arange(10.0) ** 2).tolist())


def test_a_function_typed_at_the_prompt_still_says_why():
    program = "import simt\nexec(compile('def k(a):\\n    pass\\n', '<stdin>', 'single'))\n" \
              "import linecache, simt._compiled as c\nc._COMPILED_SOURCES.clear()\n" \
              "simt.kernel(k)\n"
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode != 0 and "simt needs the source code of 'k'" in out.stderr, out.stderr
