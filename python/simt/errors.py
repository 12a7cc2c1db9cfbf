"""Exceptions simt raises for kernels it cannot compile."""


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


class BackendCompileError(DeviceError):
    """The backend's compiler rejected generated code (a simt bug: please report it)."""
