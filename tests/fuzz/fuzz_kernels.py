"""Fuzzes simt's Python surface on the `cpu` device: mutated kernel sources
through simt.kernel / simt.func, inspect_types, inspect_source (every
dialect) and compile() (the CPU backend's Clang), and fuzzed launch
arguments and configurations through guarded kernels.

A clean exception (simt.CompileError and its subclasses, TypeError,
ValueError, IndexError) is simt doing its job. Anything else is a defect:
another exception, simt.BackendCompileError (simt accepted a kernel whose
generated code its own backend rejects), a crash or a hang.

    python tests/fuzz/fuzz_kernels.py --seconds 60          # atheris when installed
    python tests/fuzz/fuzz_kernels.py --random --seconds 60 --seed 1
    python tests/fuzz/fuzz_kernels.py CRASH_FILE            # one atheris input again
    python tests/fuzz/fuzz_kernels.py --random --case N     # one random case again

With atheris (PyPI) the inputs come from libFuzzer, guided by the coverage
of simt's Python code; --random draws them from random.Random(seed) instead,
so a run is repeatable. The mutated kernels start from the seed corpus
tests/fuzz/corpus/compile (tests/fuzz/seed_corpus.py), in fuzz_compile.cpp's
format: `# signature:` lines, parts split by `#---`, the last the kernel.
"""

import argparse
import ast
import builtins
import contextlib
import faulthandler
import math
import pathlib
import random
import re
import sys
import time
import traceback
import warnings

import numpy as np

try:
    import atheris
except ImportError:  # the --random mode needs no atheris
    atheris = None

# atheris follows the coverage of the Python code imported under instrument_imports
# (not needed, and noisy, for the random modes).
_INSTRUMENT = atheris is not None and not {"--random", "--case"} & set(sys.argv)
with atheris.instrument_imports() if _INSTRUMENT else contextlib.nullcontext():
    import simt
    from simt import cuda

CORPUS = pathlib.Path(__file__).resolve().parent / "corpus" / "compile"
CLEAN = (simt.CompileError, TypeError, ValueError, IndexError)
# Raised by simt's own backend after simt's compiler accepted the kernel.
DEFECTS_ALTHOUGH_CLEAN = (simt.BackendCompileError,)
MAX_LAUNCH_THREADS = 4096  # keeps a launch of a guarded kernel short
DEVICE = "cpu"
# --random: a case running longer is a hang (atheris has libFuzzer's -timeout). A case
# compiles up to a dozen kernels with the CPU backend's Clang, about 0.3 s each.
CASE_TIMEOUT_S = 60
# Mutated sources make Python warn about their literals at every parse.
warnings.filterwarnings("ignore", category=SyntaxWarning)


class Defect(Exception):
    """A result that is neither success nor a clean error."""


# ---- Where the choices come from ------------------------------------------------


class RandomChoices:
    """Choices from a seeded random.Random: repeatable runs without atheris."""

    def __init__(self, rng):
        self.rng = rng

    def int(self, lo, hi):
        return self.rng.randint(lo, hi)

    def float(self):
        return self.rng.uniform(-1e3, 1e3)


class FuzzedChoices:
    """Choices read from an atheris FuzzedDataProvider (libFuzzer's input)."""

    def __init__(self, provider):
        self.provider = provider

    def int(self, lo, hi):
        return self.provider.ConsumeIntInRange(lo, hi)

    def float(self):
        return self.provider.ConsumeRegularFloat()


def pick(choices, items):
    return items[choices.int(0, len(items) - 1)]


# ---- Mutated kernel sources ---------------------------------------------------------

TOKEN = re.compile(r"[A-Za-z_][A-Za-z_0-9]*|\d+\.?\d*(?:e[+-]?\d+)?j?|\s+|\*\*|//|<<|>>|[<>=!]=|.",
                   re.S)
WORDS = [
    "i", "j", "x", "a", "b", "out", "n", "N", "TABLE", "SHAPE", "EPS", "BIG", "None", "True",
    "False", "and", "or", "not", "in", "is", "if", "else", "for", "while", "return", "break",
    "continue", "pass", "range", "len", "abs", "min", "max", "int", "float", "complex", "bool",
    "divmod", "print", "math", "np", "cuda", "simt", "float16", "float32", "float64", "int8",
    "uint64", "complex64", "shape", "size", "ndim", "real", "imag", "grid", "threadIdx", "blockIdx",
    "blockDim", "x", "y", "z", "syncthreads", "shared", "local", "array", "atomic", "add", "cas",
    "sqrt", "exp", "pow", "floor", "0", "1", "-1", "2", "0.5", "1e308", "1j", "9223372036854775807",
    "18446744073709551616", "65", "(", ")", "[", "]", ",", ":", "+", "-", "*", "/", "//", "%",
    "**", "<<", ">>", "&", "|", "^", "~", "<", "<=", "==", "!=", "=", ".", '"s"',
]
LINES = [
    "i = cuda.grid(1)", "cuda.syncthreads()", "return", "pass", "s = cuda.shared.array(16, np.float32)",
    "t = cuda.local.array(4, np.int64)", "x = (1, 2.0)", "x, y = divmod(7, -2)",
    "for k in range(3):", "while False:", "if i < 1:", "else:", "print(\"v\", i)",
    "cuda.atomic.add(out, 0, 1)", "assert i >= 0, \"no\"", "q = TABLE[1, 1]", "u = SHAPE[0]",
    "z = 1 if i else 2.5", "w = math.sqrt(abs(i))", "c = complex(1, 2) * 1j",
]


def mutate_line(choices, lines):
    k = choices.int(0, max(0, len(lines) - 1))
    op = choices.int(0, 4)
    if not lines or op == 0:
        lines.insert(k, " " * 4 * choices.int(0, 3) + pick(choices, LINES))
    elif op == 1:
        del lines[k]
    elif op == 2:
        lines.insert(k, lines[k])
    elif op == 3:
        m = choices.int(0, len(lines) - 1)
        lines[k], lines[m] = lines[m], lines[k]
    else:
        lines[k] = " " * choices.int(0, 12) + lines[k].lstrip()


def mutate_token(choices, text):
    tokens = TOKEN.findall(text)
    if not tokens:
        return text
    k = choices.int(0, len(tokens) - 1)
    op = choices.int(0, 2)
    if op == 0:
        tokens[k] = pick(choices, WORDS)
    elif op == 1:
        tokens.insert(k, pick(choices, WORDS))
    else:
        del tokens[k]
    return "".join(tokens)


def mutate(choices, text):
    # Few mutations a case: most texts must stay Python for simt's later stages.
    for _ in range(choices.int(0, 2)):
        if choices.int(0, 2) == 0:
            lines = text.split("\n")
            mutate_line(choices, lines)
            text = "\n".join(lines)
        else:
            text = mutate_token(choices, text)
    return text


# ---- Kernels from text --------------------------------------------------------------

SIMPLE_NODES = (ast.Constant, ast.Name, ast.Attribute, ast.Load, ast.UnaryOp, ast.USub,
                ast.Tuple, ast.Subscript, ast.Slice)


def definable(text):
    """The one `def` of `text` without its decorators, when defining it runs no code of
    the input (a default or annotation that calls something could do anything)."""
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if len(module.body) != 1 or not isinstance(module.body[0], ast.FunctionDef):
        return None
    fdef = module.body[0]
    fdef.decorator_list = []
    evaluated = [*fdef.args.defaults, *filter(None, fdef.args.kw_defaults), fdef.returns,
                 *(a.annotation for a in fdef.args.args)]
    for node in filter(None, evaluated):
        if not all(isinstance(n, SIMPLE_NODES) for n in ast.walk(node)):
            return None
    return ast.Module(body=[fdef], type_ignores=[])


def kernel_namespace():
    return {
        "simt": simt, "cuda": cuda, "math": math, "np": np, "numpy": np, "N": 16,
        "BIG": 2**63 - 1, "EPS": 1e-6, "float32": np.float32, "SHAPE": (4, 8),
        "threadIdx": cuda.threadIdx, "NAME": "a string",
        "TABLE": np.arange(1, 5, dtype=np.int32).reshape(2, 2),
    }


def build(parts):
    """The kernel of the last part, the earlier parts its device functions; None when a
    part is not a plain `def` (simt's own parser still sees it, through _core)."""
    namespace = kernel_namespace()
    built = None
    for index, text in enumerate(parts):
        module = definable(text)
        if module is None:
            simt._core.Function(text, "fuzz.py", 1)  # the parser alone: must fail cleanly
            return None
        try:
            # Python's own compile step and the defaults' names are the input's
            # errors, not simt's: simt sees such a text through its parser alone.
            exec(compile(module, "fuzz.py", "exec"), namespace)
        except (SyntaxError, NameError, AttributeError, TypeError, IndexError):
            simt._core.Function(text, "fuzz.py", 1)
            return None
        function = namespace[module.body[0].name]
        source = (text, "fuzz.py", 1)
        if index + 1 < len(parts):
            built = simt._kernel.Func(function, source=source)
            namespace[function.__name__] = built
        else:
            built = simt._kernel.Kernel(function, source=source)
        # The tests' kernels read module constants of their own files: a small int
        # for each name nothing defines lets them type.
        for name in built._function.free_names:
            if name not in namespace and not hasattr(builtins, name):
                namespace[name] = 4
    return built


def signatures_of(text):
    return [line.split(":", 1)[1].strip() for line in text.split("\n")
            if line.startswith("# signature:")][:3]


TYPES = ["float32[::1]", "float64[:, :]", "int32[:]", "int64", "float32", "bool", "complex64[::1]",
         "(int64, int64)", "readonly float32[:]", "uint8[::1]", "float16[::1]", "int16",
         "(float32[::1], int32)", "float64[::1, :]", "uint64", "complex128"]


def compile_case(choices, seeds):
    text = mutate(choices, pick(choices, seeds))
    parts = text.split("#---\n")[-4:]
    kernel = build(parts)
    if kernel is None:
        return
    params = len(kernel._function.param_names)
    read = [checked(simt._types.signature_types, s) for s in signatures_of(text)]
    signatures = [list(types) for _, types in filter(None, read)]
    signatures.append([pick(choices, TYPES) for _ in range(params)])
    for types in signatures:
        checked(kernel.inspect_types, *types)
        for dialect in ("cuda", "opencl", "cpp"):
            checked(kernel.inspect_source, *types, dialect=dialect)
        checked(kernel.compile, "(" + ", ".join(types) + ")", DEVICE)


def checked(f, *args, **kwargs):
    try:
        return f(*args, **kwargs)
    except DEFECTS_ALTHOUGH_CLEAN:
        raise
    except CLEAN:
        return None


# ---- Launches of guarded kernels with fuzzed arguments ------------------------------
# Each kernel guards every index against the arrays' extents, so any argument simt
# accepts is safe to run: a wrong result or crash is then simt's.


@simt.kernel
def k_axpy(out, x, a):
    i = cuda.grid(1)
    if i < out.shape[0] and i < x.shape[0]:
        out[i] = a * x[i] + out[i]


@simt.kernel
def k_2d(out, x):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1] and i < x.shape[0] and j < x.shape[1]:
        out[i, j] = x[i, j] * 2


@simt.kernel
def k_tuple(out, t):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = t[0] + t[1]


@simt.kernel
def k_block_sum(out, x):
    s = cuda.shared.array(32, np.float64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    if t < 32:
        s[t] = x[i] if i < x.shape[0] else 0
    cuda.syncthreads()
    if t == 0 and out.shape[0] > 0:
        acc = 0.0
        for k in range(min(32, cuda.blockDim.x)):
            acc += s[k]
        cuda.atomic.add(out, 0, acc)


@simt.kernel
def k_scalars(out, a, b, c):
    if cuda.grid(1) == 0 and out.shape[0] >= 3:
        out[0] = a
        out[1] = b
        out[2] = c


@simt.kernel
def k_dynamic_shared(out):
    s = cuda.shared.array(0, np.float32)
    t = cuda.threadIdx.x
    if t < out.shape[0]:
        out[t] = t


GUARDED = [(k_axpy, 3), (k_2d, 2), (k_tuple, 2), (k_block_sum, 2), (k_scalars, 4),
           (k_dynamic_shared, 1)]

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
          np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128, "U2",
          "datetime64[s]", object, ">f4"]
INTS = [0, 1, -1, 2, 7, 31, 32, 33, 2**31 - 1, 2**31, 2**32, 2**63 - 1, -2**63, 2**63, 2**64,
        2**100, -2**100]
FLOATS = [0.0, -0.0, 1.5, math.nan, math.inf, -math.inf, 1e308, 5e-324, 2.0**63]


def fuzzed_array(choices):
    dtype = pick(choices, DTYPES)
    shape = tuple(choices.int(0, 5) for _ in range(choices.int(0, 3)))
    count = math.prod(shape)
    if dtype in ("U2", "datetime64[s]", object):
        a = np.zeros(shape, dtype=dtype)
    else:
        a = (np.arange(count) % 7 - 3).astype(dtype).reshape(shape)
    view = choices.int(0, 6)
    if view == 1:
        a = np.asfortranarray(a)
    elif view == 2 and a.ndim:
        a = a[::2]
    elif view == 3 and a.ndim:
        a = a[::-1]
    elif view == 4:
        a = a.T
    elif view == 5:
        a.setflags(write=False)
    elif view == 6 and a.dtype.kind in "iufcb" and a.size:
        unaligned = np.zeros(a.nbytes + 1, dtype=np.uint8)[1:].view(a.dtype).reshape(a.shape)
        unaligned[...] = a
        a = unaligned
    if choices.int(0, 2) == 0:
        try:
            return simt.asarray(a, device=DEVICE)
        except CLEAN:
            return a
    return a


def fuzzed_value(choices, depth=0):
    kind = choices.int(0, 10 if depth < 2 else 8)
    if kind <= 2:
        return fuzzed_array(choices)
    if kind == 3:
        return pick(choices, INTS)
    if kind == 4:
        return pick(choices, FLOATS)
    if kind == 5:
        return pick(choices, [True, False, 1 + 2j, complex(math.nan, 1), choices.float()])
    if kind == 6:
        return pick(choices, [np.float16(1.5), np.uint64(2**64 - 1), np.int8(-128),
                              np.complex64(1j), np.bool_(True), np.float64(math.nan)])
    if kind == 7:
        return choices.int(-100, 100)
    if kind == 8:
        return pick(choices, [None, "s", b"b", [1, 2], {}, object(), np.float32])
    return tuple(fuzzed_value(choices, depth + 1) for _ in range(choices.int(0, 4)))


def fuzzed_dim(choices):
    kind = choices.int(0, 5)
    if kind <= 2:
        return choices.int(0, 40)
    if kind == 3:
        return tuple(choices.int(0, 6) for _ in range(choices.int(0, 4)))
    if kind == 4:
        return pick(choices, INTS)
    return pick(choices, [1.0, None, "4", np.int64(8), (np.uint8(2), 3), (1, -1), [2, 2], True])


def thread_count(config):
    """Threads a configuration launches, None when it is not all integers."""
    total = 1
    for dim in config[:2]:
        items = dim if isinstance(dim, tuple) else (dim,)
        for item in items:
            if isinstance(item, bool) or not isinstance(item, (int, np.integer)):
                return None
            total *= max(int(item), 0)
    return total


def launch_case(choices):
    kernel, params = pick(choices, GUARDED)
    config = [fuzzed_dim(choices), fuzzed_dim(choices)]
    if choices.int(0, 3) == 0:
        config += [0, pick(choices, [0, 16, 4096, -1, 2**40, 2**64, 1.0])]
    args = [fuzzed_value(choices) for _ in range(params + (choices.int(0, 5) == 0))]
    checked(kernel.inspect_types, *args)
    launcher = checked(kernel.__getitem__, tuple(config))
    threads = thread_count(config)
    if launcher is None or threads is None or threads > MAX_LAUNCH_THREADS:
        return
    checked(launcher, *args)


# ---- Driving --------------------------------------------------------------------------


def one_case(choices, seeds):
    try:
        if choices.int(0, 1) == 0:
            compile_case(choices, seeds)
        else:
            launch_case(choices)
    except DEFECTS_ALTHOUGH_CLEAN:
        raise
    except CLEAN:
        pass


def load_seeds():
    return [p.read_text() for p in sorted(CORPUS.glob("*.py"))]


def run_random(seed, seconds, max_cases):
    seeds = load_seeds()
    rng = random.Random(seed)
    deadline = time.monotonic() + seconds
    cases = defects = 0
    while time.monotonic() < deadline and cases < max_cases:
        case_seed = rng.getrandbits(32)
        cases += 1
        # A hang ends the run with every thread's stack and a failing exit status.
        faulthandler.dump_traceback_later(CASE_TIMEOUT_S, exit=True)
        try:
            one_case(RandomChoices(random.Random(case_seed)), seeds)
        except Exception:  # noqa: BLE001 - every other exception is what we look for
            defects += 1
            print(f"DEFECT in case seed {case_seed} (replay: --random --case {case_seed}):",
                  file=sys.stderr)
            traceback.print_exc()
        finally:
            faulthandler.cancel_dump_traceback_later()
    print(f"fuzz_kernels: {cases} cases, {defects} defects (random, seed {seed})")
    return 1 if defects else 0


def replay_case(case_seed):
    one_case(RandomChoices(random.Random(case_seed)), load_seeds())
    print("fuzz_kernels: the case ran clean")


def run_atheris(argv):
    seeds = load_seeds()

    def test_one_input(data):
        one_case(FuzzedChoices(atheris.FuzzedDataProvider(data)), seeds)

    atheris.Setup([sys.argv[0], *argv], test_one_input)
    atheris.Fuzz()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--random", action="store_true", help="random.Random, not atheris")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int, default=0, help="--random: the run's seed")
    parser.add_argument("--cases", type=int, default=10**9, help="--random: at most this many")
    parser.add_argument("--case", type=int, help="--random: replay one case seed")
    args, libfuzzer_args = parser.parse_known_args()
    if args.case is not None:
        replay_case(args.case)
        return 0
    if args.random or atheris is None:
        if not args.random:
            print("fuzz_kernels: atheris is not installed: a seeded random run instead")
        return run_random(args.seed, args.seconds, args.cases)
    return run_atheris([f"-max_total_time={int(args.seconds)}", *libfuzzer_args])


if __name__ == "__main__":
    sys.exit(main())
