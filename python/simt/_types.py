"""simt type names of Python values, as kernel signatures spell them, and the one reader
of signatures (`signature_types`) every decorator uses: simt.kernel, Kernel.compile,
simt.declare_device and simt.cuda's jit, vectorize, guvectorize and compile_ptx.

A type may be given as text ("float32[:, ::1]"), a dtype, an example value, or an object
that spells itself: its `_simt_type_` attribute is the text (simt.cuda's type objects,
`float32[:]`, `void(float32[:], int32)`); the core reads nothing else of them."""

import numpy as np

from . import _core

_PYTHON_SCALARS = {bool: "bool", int: "int64", float: "float64", complex: "complex128"}


def typeof(value, name=None):
    """The simt type of an argument value, or of a type given as a string or dtype.

    Values are classified by the launch path itself (``_core.typeof``), so the type
    is the one a launch with that value compiles for. ``name`` names the argument in
    errors."""
    value = type_text(value) or value
    if isinstance(value, str):
        try:
            return _core.normalize_type(value)
        except ValueError:
            where = f"argument {name!r}: " if name else ""
            raise TypeError(f"{where}not a simt type: {value!r}") from None
    if isinstance(value, type) and value in _PYTHON_SCALARS:
        return _PYTHON_SCALARS[value]
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return _scalar_name(np.dtype(value))
    return _core.typeof(value, name or "value")


def _scalar_name(dtype):
    try:
        return _core.normalize_type(dtype.name)
    except ValueError:
        raise TypeError(f"dtype {dtype} is not supported in simt kernels") from None


# record type text -> the NumPy dtype it was made from (record_text), so that inspection
# can give a record type's dtype back.
_RECORD_DTYPES = {}


def record_text(dtype):
    """The text kernels' types name a NumPy structured dtype by ('record(x: float32 @ 0,
    ...; size 8, align 4)'); TypeError for dtypes kernels cannot take."""
    text = _core.record_type(dtype)
    _RECORD_DTYPES.setdefault(text, np.dtype(dtype))
    return text


def element_dtype(text):
    """The NumPy dtype of the elements of a type given as text ('local float32[::1]' ->
    float32, a record array's -> its record dtype, 'int64' -> int64); None where the text
    names no element type simt has made a dtype for (tuples, pointers)."""
    text = text.strip()
    for qualifier in ("local ", "shared ", "readonly ", "const "):
        text = text.removeprefix(qualifier)
    if text.endswith("]") and "[" in text:
        text = text[:text.rindex("[")]
    if text in _RECORD_DTYPES:
        return _RECORD_DTYPES[text]
    try:
        return np.dtype(text)
    except TypeError:
        return None


def type_text(value):
    """The text of a type given as text or as an object that spells itself
    (`_simt_type_`); None for anything else."""
    if isinstance(value, str):
        return value
    text = getattr(value, "_simt_type_", None)
    return text if isinstance(text, str) else None


def signature_types(signature):
    """(result type or None, (argument types...)) of a signature: text in Numba's
    vocabulary ("void(float32[:], int64)", "(f4[::1], f4)", "float32(float32,
    CPointer(int32))", the bare "float32[:], int64"; types spelled as normalize_type does,
    a pointer as "CPointer(int32)"; None where it declares no result or a void one), an
    object spelling one, or a tuple or list of argument types (texts, dtypes, type objects
    or example values, given back as they are). A text that does not read is a ValueError
    naming it and what is wrong."""
    text = type_text(signature)
    if text is None:
        if isinstance(signature, (tuple, list)):
            return None, tuple(signature)
        raise TypeError(f"a signature is a string such as 'void(float32[:], int64)' or a "
                        f"tuple of argument types, not {type(signature).__name__}")
    result, params = _core.parse_signature(text)  # the reader: src/abi/signature.h
    return result, tuple(params)


def declares_void(signature):
    """Whether a signature's text names its result void ('void(...)', 'none(...)'), as
    against giving none ('(...)')."""
    text = type_text(signature)
    return text is not None and text.strip().startswith(("void", "none"))
