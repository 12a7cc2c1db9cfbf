"""python -m simt info: versions, backends (and why one is unavailable), devices."""

import platform
import sys

import numpy as np

from . import __version__, _core


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
    folder = _core.cache_folder()
    print(f"cache folder: {folder or 'none (the disk cache is off: SIMT_CACHE_DIR=off)'}")


def main(argv):
    if argv[1:] in ([], ["info"]):
        info()
        return 0
    print("usage: python -m simt info", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
