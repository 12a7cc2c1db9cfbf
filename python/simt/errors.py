"""Exceptions simt raises for kernels it cannot compile."""

import re


class CompileError(Exception):
    """A kernel the front end rejects: a syntax error or an unsupported construct.

    The message shows ``file:line:column``, the source line and a caret.
    ``filename``, ``line``, ``column`` (1-based, in the user's file),
    ``source_line`` and ``reason`` (the message without the location) are
    attributes.
    """

    def __init__(self, reason, filename, line, column, source_line, formatted=None):
        super().__init__(formatted or f"{filename}:{line}:{column}: error: {reason}")
        self.reason = reason
        self.filename = filename
        self.line = line
        self.column = column
        self.source_line = source_line


class TypingError(CompileError):
    """A kernel whose types do not work out: the expression and the types involved."""


class DeviceError(RuntimeError):
    """A device or driver failure, with the driver's own error name and the kernel's name."""


class OutOfMemoryError(DeviceError, MemoryError):
    """A device allocation failed: the message names the device and the size."""


class BackendCompileError(CompileError, DeviceError):
    """A backend's compiler (NVRTC, the OpenCL driver's, Clang) rejected generated code.

    For a Python kernel that is a simt bug: please report it. The message is
    the compiler's log, each line that cites generated code followed by
    ``(generated from file.py:LINE: statement)``; ``filename``, ``line`` and
    ``source_line`` name the first such statement (None when none is cited).
    """

    def __init__(self, message, filename=None, line=None, column=None, source_line=None):
        if filename is None:
            cited = re.search(r"^  \(generated from (.+?):(\d+): (.*)\)$", message, re.MULTILINE)
            if cited:
                filename, line, source_line = cited[1], int(cited[2]), cited[3]
                column = 1
        super().__init__(message, filename, line, column, source_line, formatted=message)


class RaceError(RuntimeError):
    """A race-checked launch (``racecheck=True`` or SIMT_RACECHECK=1, cpu device) found a
    data race or a barrier or warp-mask hazard. The message names the kind, the array and
    element, the two threads and blocks and both Python lines (docs/language.md, "Finding
    races")."""


class RaceWarning(UserWarning):
    """What ``racecheck="warn"`` issues instead of raising RaceError: the same report."""


class PerformanceWarning(UserWarning):
    """Work simt does that the program could avoid: NumPy arrays copied to a GPU and back
    around every launch (Numba's NumbaPerformanceWarning)."""
