"""What kernels and device functions share: a Python function and its parsed source.

Below both _kernel (which defines them) and _resolve (which describes the globals
a kernel reads, device functions among them), so neither imports the other's way
back.
"""

import ast
import collections
import importlib
import inspect
import linecache
import sys

from . import _core

# Source texts Python keeps nowhere a function can be traced back to: strings given to
# exec() and compile() (the `compile` audit event carries each one), by file name
# ("<string>" for most), the newest last.
_COMPILED_SOURCES = collections.defaultdict(lambda: collections.deque(maxlen=64))


def _remember_compiled_source(event, args):
    # Called for every audit event of the process: one comparison for the others.
    if event != "compile":
        return
    source, filename = args
    if isinstance(source, bytes):
        try:
            source = source.decode()
        except UnicodeDecodeError:
            return
    # Files on disk (modules being imported) are linecache's; a text that defines no
    # function holds no kernel.
    if isinstance(source, str) and isinstance(filename, str) and \
            not filename.endswith(".py") and ("def " in source or "lambda" in source):
        kept = _COMPILED_SOURCES[filename]
        if not kept or kept[-1] != source:
            kept.append(source)


sys.addaudithook(_remember_compiled_source)


def _compiled_strings(code):
    """The strings compiled under `code`'s file name that may hold it, newest first, and a
    `python -c` program."""
    # A copy: compiling one of them to compare adds it again.
    yield from reversed(list(_COMPILED_SOURCES.get(code.co_filename, ())))
    if code.co_filename == "<string>" and "-c" in sys.orig_argv[:-1]:
        yield sys.orig_argv[sys.orig_argv.index("-c") + 1]


def _holds(compiled, code):
    """Whether the code object `compiled` is, or contains, `code`."""
    if (compiled.co_name, compiled.co_firstlineno, compiled.co_code, compiled.co_names) == \
            (code.co_name, code.co_firstlineno, code.co_code, code.co_names):
        return True
    return any(_holds(c, code) for c in compiled.co_consts if inspect.iscode(c))


def _text_holding(code):
    """The text whose compilation made `code`, or None. A file's text is taken as linecache
    gives it; a compiled string must compile to `code` itself, since several strings run
    by exec may share one file name and one line number."""
    lines = linecache.getlines(code.co_filename)
    if lines:
        return "".join(lines)
    for text in _compiled_strings(code):
        try:
            compiled = compile(text, code.co_filename, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            continue
        if _holds(compiled, code):
            return text
    return None


def _lambda_source(code, text):
    """(the lambda's own text, in parentheses, its columns those of its line; its first
    line) of the lambda compiled to `code` in `text`."""
    # The spans of its instructions (not the zero-width ones Python adds, such as RESUME's)
    # lie inside its node.
    positions = [(line, col) for line, _, col, end in code.co_positions()
                 if line is not None and col is not None and end is not None and end > col]
    found = None
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Lambda) and node.lineno == code.co_firstlineno and all(
                (node.lineno, node.col_offset) <= p <= (node.end_lineno, node.end_col_offset)
                for p in positions):
            if found is None or (node.lineno, node.col_offset) > \
                    (found.lineno, found.col_offset):  # the innermost of nested ones
                found = node
    if found is None:
        return None
    lines = text.splitlines()[found.lineno - 1:found.end_lineno]
    # ast's columns count UTF-8 bytes.
    raw = [line.encode() for line in lines]
    raw[-1] = raw[-1][:found.end_col_offset]
    head = raw[0][:found.col_offset].decode()
    raw[0] = raw[0][found.col_offset:]
    body = "\n".join(part.decode() for part in raw)
    # The parenthesis takes the column before the lambda, where there is one.
    prefix = " " * (len(head) - 1) + "(" if head else "("
    return prefix + body + ")", found.lineno


def _source_of(function):
    """(text, file name, first line) of a function's source, wherever Python left it: its
    file, a string run by exec() or compile(), a `python -c` program; for a lambda, its
    own span of the line."""
    code = function.__code__
    lambda_ = function.__name__ == "<lambda>"
    if not lambda_:
        try:
            lines, first_line = inspect.getsourcelines(function)
            return "".join(lines), inspect.getsourcefile(function) or code.co_filename, \
                first_line
        except (OSError, TypeError):
            pass  # no file: a string run by exec(), or a `python -c` program
    text = _text_holding(code)
    found = None
    if text is not None and lambda_:
        found = _lambda_source(code, text)
    elif text is not None:
        lines = text.splitlines(True)[code.co_firstlineno - 1:]
        if lines:
            found = "".join(inspect.getblock(lines)), code.co_firstlineno
    if found is None:
        raise TypeError(
            f"simt needs the source code of {function.__qualname__!r} to compile it, and "
            f"Python keeps none for functions typed at the plain `python` prompt; define "
            f"kernels in a file (python script.py), a string run by exec(), or in IPython "
            f"or Jupyter, which keep what you type")
    filename = (inspect.getsourcefile(function) if lambda_ else None) or code.co_filename
    return found[0], filename, found[1]


class _Compiled:
    """What kernels and device functions share: the Python function and its parsed source."""

    def __init__(self, function, decorator, source=None):
        """`source`: (text, file name, first line) of a function simt generated itself (the
        array operations' kernels), whose text Python's inspect cannot find."""
        if not inspect.isfunction(function):
            raise TypeError(f"{decorator} decorates a function, not {type(function).__name__}")
        self.py_func = function
        self.__name__ = function.__name__
        self.__qualname__ = function.__qualname__
        self.__doc__ = function.__doc__
        self._source = source or _source_of(function)
        self._function = _core.Function(*self._source)

    def _rebuild_options(self):
        """The keyword arguments, besides the function and its source, that make this
        object again where it is unpickled."""
        return {}

    def __reduce__(self):
        # By reference where a module holds this very object (the receiving process
        # imports it); else by value: the function (cloudpickle, as dask.distributed uses,
        # carries a script's functions) and its source text, compiled again over there.
        module_name = self.py_func.__module__
        if module_name != "__main__" and _lookup(module_name, self.__qualname__) is self:
            return _lookup, (module_name, self.__qualname__)
        return _rebuild, (type(self), self.py_func, self._source, self._rebuild_options())

    def _simt_describe_(self):
        """What the compiler is told when a kernel reads this object as a global
        (_resolve.describe): a device function says so; anything else cannot be used."""
        return _core.Global.unsupported(f"a {type(self).__name__}")


def _lookup(module_name, qualname):
    """The object a module's dotted name holds (None where there is none)."""
    module = sys.modules.get(module_name) or importlib.import_module(module_name)
    value = module
    for part in qualname.split("."):
        value = getattr(value, part, None)
    return value


def _rebuild(cls, function, source, options):
    return cls(function, source=source, **options)
