"""python -m simt info: versions, backends (and why one is unavailable), devices."""

import os
import platform
import sys

import numpy as np

from . import __version__, _core


def cache_folder():
    if os.environ.get("SIMT_CACHE_DIR"):
        return os.environ["SIMT_CACHE_DIR"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "simt")


def info():
    print(f"simt {__version__} (core {_core.version()}), Python {platform.python_version()}, "
          f"NumPy {np.__version__}")
    print("backends:")
    for name, available, detail in _core.backend_status():
        print(f"  {name:<7} {'available' if available else 'unavailable'}: {detail}")
    print("devices:")
    for device in _core.devices():
        print(f"  {device.id:<9} {device.name}")
    try:
        print(f"default device: {_core.default_device().id}")
    except Exception as error:  # a bad SIMT_DEVICE is worth showing, not a traceback
        print(f"default device: none ({error})")
    print(f"cache folder: {cache_folder()}")


def main(argv):
    if argv[1:] in ([], ["info"]):
        info()
        return 0
    print("usage: python -m simt info", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
