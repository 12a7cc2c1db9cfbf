"""CUDA C++ as OpenCL C: the spellings a CuPy program's kernels use that OpenCL C lacks.

Snippet kernels (ElementwiseKernel, ReductionKernel) are generated in OpenCL C and only
their operations and preambles need respelling (`spelled_for_opencl`), and the CArray
uses of their raw parameters rewriting (`carray_uses_for_opencl`). A raw
kernel written for CUDA (`extern "C" __global__ void f(const float* x, ...)`, as CuPy's
user guide writes them) is translated whole for an OpenCL device (`raw_kernel_for_opencl`):

- `extern "C"` (a prefix or a block around the kernels) goes: OpenCL C has no linkage
  names to keep;
- `__global__` is `__kernel`, and its pointer parameters point to `__global` memory;
- `threadIdx`, `blockIdx`, `blockDim`, `gridDim` are `uint3` vectors of the work-item
  functions (CUDA's are unsigned too), `__syncthreads()` a work-group barrier,
  `__shared__` is `__local`;
- kernel templates named by `name_expressions` (`scale<float>`) are instantiated by
  substituting their arguments for their parameters, each instance a kernel of its own
  name (`instance_name`); templates of device functions are not;
- CUDA's math, atomics and qualifiers come from the OpenCL dialect's `cuda_qualifiers`.

Linked CUDA sources of device functions (declare_device, `link=[...]`) are translated
the same way (`device_source_for_opencl`), their pointer parameters qualified by the
kernel that calls them.

Pointers a kernel's body declares are OpenCL C 1.2's private ones: code that keeps a
parameter's address in a local pointer does not build (the compiler says where).
"""

import functools
import re

from . import _core

# `long long` is a reserved word of OpenCL C; C has no functional casts, `T(x)`.
_TYPE_WORDS = ((re.compile(r"\bunsigned\s+long\s+long\b"), "ulong"),
               (re.compile(r"\blong\s+long\b"), "long"))
_C_SCALAR_NAMES = ("bool", "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
                   "float", "double", "size_t")

_INDEX_VECTORS = "".join(
    f"#define {name} ((uint3)((uint){fn}(0), (uint){fn}(1), (uint){fn}(2)))\n"
    for name, fn in (("threadIdx", "get_local_id"), ("blockIdx", "get_group_id"),
                     ("blockDim", "get_local_size"), ("gridDim", "get_num_groups")))
_RAW_PRELUDE = (_INDEX_VECTORS +
                "#define __syncthreads() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)\n"
                "#define __threadfence() mem_fence(CLK_GLOBAL_MEM_FENCE)\n"
                "#define __shared__ __local\n"
                "#define __launch_bounds__(...)\n")

_EXTERN_C_BLOCK = re.compile(r'\bextern\s+"C"\s*\{')
_EXTERN_C = re.compile(r'\bextern\s+"C"\s*')
_BOUNDS = r"(?:__launch_bounds__\s*\([^()]*\)\s*)?"
_TEMPLATE_KERNEL = re.compile(
    rf"\btemplate\s*<([^<>]*)>\s*__global__\s+{_BOUNDS}void\s+{_BOUNDS}(\w+)\s*\(")
_KERNEL_HEAD = re.compile(rf"\b__global__\s+{_BOUNDS}void\s+{_BOUNDS}(\w+)\s*\(")
_QUALIFIED = re.compile(r"\b(__global|__local|__constant|__private|global|local|constant)\b")


def spelled_for_opencl(source):
    """`source` (CUDA C++) with `long long` spelled `long` and functional casts of type
    names (C's scalar types and the source's typedefs) written as C casts."""
    for pattern, word in _TYPE_WORDS:
        source = pattern.sub(word, source)
    names = set(_C_SCALAR_NAMES) | set(re.findall(r"\btypedef\b[^;{}]*?\b(\w+)\s*;", source))
    cast = re.compile(r"(?<![\w.>$])(" + "|".join(sorted(map(re.escape, names))) + r")\(")
    return cast.sub(r"(\1)(", source)


def instance_name(expression):
    """The OpenCL kernel of a template instance, `scale<float>` -> `scale__float_`."""
    return re.sub(r"\W", "_", expression.replace(" ", ""))


def _matching(text, at, opening, closing):
    """The index of the bracket closing the one at text[at]."""
    depth = 0
    for k in range(at, len(text)):
        if text[k] == opening:
            depth += 1
        elif text[k] == closing:
            depth -= 1
            if depth == 0:
                return k
    raise ValueError(f"unbalanced {opening}{closing} in the kernel source")


def _without_extern_c(text):
    while True:
        block = _EXTERN_C_BLOCK.search(text)
        if block is None:
            break
        end = _matching(text, block.end() - 1, "{", "}")
        text = text[:block.start()] + text[block.end():end] + text[end + 1:]
    return _EXTERN_C.sub("", text)


def _split_arguments(text):
    """'float, 4' -> ['float', '4'] (commas inside brackets do not split)."""
    parts, depth, start = [], 0, 0
    for k, c in enumerate(text):
        if c in "<([":
            depth += 1
        elif c in ">)]":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:k].strip())
            start = k + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def _instantiated(text, expressions):
    """Kernel templates replaced by the instances `expressions` name."""
    out, at = [], 0
    for found in _TEMPLATE_KERNEL.finditer(text):
        if found.start() < at:
            continue
        params = [p.split()[-1] for p in _split_arguments(found.group(1))]
        name = found.group(2)
        body_open = text.index("{", found.end())
        end = _matching(text, body_open, "{", "}") + 1
        definition = text[found.start() + found.group(0).index("__global__"):end]
        instances = []
        for expression in expressions:
            head = re.fullmatch(rf"\s*{name}\s*<(.*)>\s*", expression)
            if head is None:
                continue
            arguments = _split_arguments(head.group(1))
            if len(arguments) != len(params):
                raise ValueError(f"{expression!r}: {name} takes {len(params)} template "
                                 f"arguments")
            instance = re.sub(rf"\b{name}\s*\(", instance_name(expression) + "(", definition,
                              count=1)
            for param, argument in zip(params, arguments):
                instance = re.sub(rf"\b{re.escape(param)}\b", argument, instance)
            instances.append(instance)
        out.append(text[at:found.start()] + "\n".join(instances))
        at = end
    out.append(text[at:])
    return "".join(out)


def _global_pointers(text):
    """`__global__ void f(const float* x, int n)` -> `__kernel void f(__global const
    float* x, int n)`."""
    out, at = [], 0
    for found in _KERNEL_HEAD.finditer(text):
        close = _matching(text, found.end() - 1, "(", ")")
        params = _split_arguments(text[found.end():close])
        params = [f"__global {p}" if "*" in p and not _QUALIFIED.search(p) else p
                  for p in params]
        out.append(text[at:found.start()] + f"__kernel void {found.group(1)}("
                   + ", ".join(params) + ")")
        at = close + 1
    out.append(text[at:])
    return "".join(out)


# OpenCL C has no classes: there a raw parameter `x` is a pointer to the view's first
# element, beside `_shape_x` and `_step_x` (strides in elements), and the operation's
# CArray uses are rewritten (carray_uses_for_opencl): `x[i]` through the strides where the view is
# not C-contiguous, `x[idx]` with an int array, `x.size()`, `x.shape()`, `x.strides()`.
OPENCL_CARRAY = """static inline long simt_carray_flat(long i, int ndim, int contiguous,
                                    const long* shape, const long* step) {
  if (contiguous) return i;
  long offset = 0;
  for (int d = ndim - 1; d >= 0; --d) {
    offset += (i % shape[d]) * step[d];
    i /= shape[d];
  }
  return offset;
}
"""

# Declarations of arrays of integers in an operation (`int idx[] = {label, j};`): the
# multi-dimensional indices of CArrays.
_INDEX_ARRAY = re.compile(
    r"\b(?:const\s+)?(?:(?:unsigned|signed)\s+)?(?:char|short|int|long\s+long|long|size_t|"
    r"ptrdiff_t|uchar|ushort|uint|ulong)\s+([A-Za-z_]\w*)\s*\[[^\]]*\]\s*[=;]")


def carray_uses_for_opencl(text, raw_nd):
    """`text` (an operation or map expression) with the CArray uses of the raw parameters
    written in OpenCL C."""
    if not raw_nd:
        return text
    indices = set(_INDEX_ARRAY.findall(text))
    for name, k in raw_nd.items():
        text = re.sub(rf"(?<![\w.>]){name}\s*\.\s*size\s*\(\s*\)",
                      "(" + " * ".join(f"_shape_{name}[{d}]" for d in range(k)) + ")", text)
        for method, array in (("shape", "_shape"), ("strides", "_strides"), ("data", "")):
            text = re.sub(rf"(?<![\w.>]){name}\s*\.\s*{method}\s*\(\s*\)",
                          f"{array}_{name}" if array else name, text)
    names = "|".join(map(re.escape, raw_nd))
    use = re.compile(rf"(?<![\w.>])({names})\s*\[")
    out, at = [], 0
    while True:
        found = use.search(text, at)
        if found is None:
            break
        name, open_at = found.group(1), found.end()
        try:
            close = _matching(text, open_at - 1, "[", "]")
        except ValueError:  # unbalanced: left as written, for the compiler to say where
            break
        inner = carray_uses_for_opencl(text[open_at:close], raw_nd)  # x[y[i]]
        k = raw_nd[name]
        if inner.strip() in indices:
            offset = " + ".join(f"(long)({inner.strip()})[{d}] * _step_{name}[{d}]"
                                for d in range(k))
        elif k == 1:
            offset = f"(long)({inner}) * _step_{name}[0]"
        else:
            offset = f"simt_carray_flat((long)({inner}), {k}, _c_{name}, _shape_{name}, " \
                     f"_step_{name})"
        out.append(text[at:found.start()] + f"{name}[{offset}]")
        at = close + 1
    out.append(text[at:])
    return "".join(out)


@functools.cache
def _qualifiers():
    return _core.dialect_spellings("opencl")["cuda_qualifiers"]


def looks_like_cuda(source):
    return re.search(r"\b__global__\b", source) is not None


# NVRTC's options with an OpenCL meaning; the others (-std=, -arch, -lineinfo, -G, ...)
# choose what OpenCL C has no choice of, or only debug output, and are left out.
_FAST_MATH = ("--use_fast_math", "-use_fast_math")


def _options(options):
    out, pending = [], None
    for option in options:
        if pending is not None:  # `-D NAME`, `-I dir`: the value comes next
            out += [pending, option]
            pending = None
        elif option in ("-D", "-U", "-I"):
            pending = option
        elif option[:2] in ("-D", "-U", "-I") or option.startswith("-cl-") or option == "-w":
            out.append(option)
        elif option.startswith(("--define-macro=", "--include-path=")):
            flag = "-D" if option.startswith("--define-macro=") else "-I"
            out.append(flag + option.split("=", 1)[1])
        elif option in _FAST_MATH:
            out.append("-cl-fast-relaxed-math")
    return out


# CUDA C++ that OpenCL C has no spelling for: each is an `#error` at the translation's
# top, so the OpenCL compiler's message says what (the CUDA devices never read it).
_UNTRANSLATED = ((re.compile(r"\bextern\s+__shared__\b"),
                  "dynamic shared memory (extern __shared__)"),
                 (re.compile(r"\b__(?:shfl\w*|ballot_sync|all_sync|any_sync|activemask|syncwarp|"
                             r"match_\w+_sync)\b"), "warp functions (__shfl_sync, votes, ...)"))


# A device function's head in a linked CUDA source: `__device__` and the return type,
# other qualifiers between (`extern "C"` has gone before it is matched).
_DEVICE_HEAD = re.compile(r"\b__device__\b[^;{}()#]*?\b([A-Za-z_]\w*)\s*\(")
_ASM = re.compile(r"\basm\s*(?:volatile\s*|__volatile__\s*)?\(")
_PRELUDE_NAMES = ("threadIdx", "blockIdx", "blockDim", "gridDim", "__syncthreads",
                  "__threadfence", "__shared__", "__launch_bounds__")


def _device_pointers(text):
    """Each pointer parameter of each `__device__` function (`int f(int* out, ...)`)
    qualified by `SIMT_SPACE_f_k`, k its position: the kernel that calls `f` defines the
    macro as the address space of the arrays it passes (__global for arrays in device
    memory); undefined, the pointer is private, as a result slot or a local variable's
    address is (Numba's ABI passes the result so)."""
    out, at, spaces = [], 0, []
    for found in _DEVICE_HEAD.finditer(text):
        if found.start() < at:
            continue
        name = found.group(1)
        close = _matching(text, found.end() - 1, "(", ")")
        # Each parameter keeps its place (and the source its line numbers): the
        # qualifier goes before it.
        start = found.end()
        out.append(text[at:start])
        for k, param in enumerate(_split_arguments(text[start:close])):
            begin = text.index(param, start)
            if "*" in param and not _QUALIFIED.search(param):
                out.append(text[start:begin] + f"SIMT_SPACE_{name}_{k} ")
                spaces.append(f"SIMT_SPACE_{name}_{k}")
            else:
                out.append(text[start:begin])
            out.append(param)
            start = begin + len(param)
        at = start
    out.append(text[at:])
    defaults = "".join(f"#ifndef {m}\n#define {m}\n#endif\n" for m in dict.fromkeys(spaces))
    return defaults, "".join(out)


def _without_empty_asm(text):
    """Inline PTX is CUDA's own: `asm volatile("" ::: "memory")` (no instruction, only a
    barrier to the optimizer) goes; an instruction cannot be translated (None)."""
    out, at = [], 0
    for found in _ASM.finditer(text):
        close = _matching(text, found.end() - 1, "(", ")")
        if not re.fullmatch(r'\s*""\s*(:.*)?', text[found.end():close], re.S):
            return None
        out.append(text[at:found.start()] + "(void)0")
        at = close + 1
    out.append(text[at:])
    return "".join(out)


def device_source_for_opencl(source):
    """OpenCL C of a linked CUDA C++ source of device functions (declare_device,
    `link=[...]`): `extern "C"` goes, pointer parameters get the address space the
    calling kernel passes (`_device_pointers`), CUDA's qualifiers, math, atomics and index
    vectors come from the raw-kernel translation; what it cannot translate is an #error
    naming it."""
    problems = []
    try:
        text = _without_extern_c(source)
        defaults, text = _device_pointers(text)
        without_asm = _without_empty_asm(text)
        if without_asm is None:
            problems.append("inline PTX (asm statements)")
        else:
            text = without_asm
    except ValueError as error:
        problems.append(str(error))
        defaults, text = "", ""
    if re.search(r"\btemplate\s*<", text):
        problems.append("templates")
    problems += [what for pattern, what in _UNTRANSLATED if pattern.search(text)]
    errors = "".join(f'#error "simt does not translate this CUDA C++ to OpenCL C: '
                     f'{why.replace(chr(34), chr(39))}"\n' for why in problems)
    # The index vectors and CUDA's spellings are macros: undefined after the source, so
    # they do not rename the kernel's own code.
    undefined = "".join(f"#undef {name}\n" for name in _PRELUDE_NAMES)
    # `#line 1` after the prelude: the compiler's messages count the source's own lines.
    return (errors + _qualifiers() + _RAW_PRELUDE + defaults + "#line 1\n"
            + spelled_for_opencl(text) + "\n" + undefined)


def raw_kernel_for_opencl(source, name, name_expressions=(), options=()):
    """(OpenCL C source, the kernel's name there, the build options) of a raw CUDA C++
    kernel `name` (a kernel or a name expression) built with NVRTC's `options`; None
    where `source` is not CUDA C++."""
    if not looks_like_cuda(source):
        return None
    problems = [what for pattern, what in _UNTRANSLATED if pattern.search(source)]
    expressions = list(dict.fromkeys([*name_expressions, name]))
    try:
        text = _global_pointers(_instantiated(_without_extern_c(source), expressions))
        if re.search(r"\btemplate\s*<", text):
            problems.append("templates other than kernels named by name_expressions")
    except ValueError as error:  # unbalanced brackets, a template's arguments miscounted
        problems.append(str(error))
        text = ""
    errors = "".join(f'#error "simt does not translate this CUDA C++ to OpenCL C: '
                     f'{why.replace(chr(34), chr(39))}"\n' for why in problems)
    entry = instance_name(name) if "<" in name else name
    return (errors + spelled_for_opencl(_qualifiers() + _RAW_PRELUDE + text), entry,
            _options(options))
