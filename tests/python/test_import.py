import re

import simt
import simt._core


def _pyproject_version(repo_root):
    text = (repo_root / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        match = re.search(r'^version\s*=\s*"([^"]+)"', text, re.MULTILINE)
        assert match, "no version in pyproject.toml"
        return match.group(1)
    return tomllib.loads(text)["project"]["version"]


def test_version_matches_core_and_pyproject(repo_root):
    assert simt.__version__ == simt._core.version()
    assert simt.__version__ == _pyproject_version(repo_root)


_FRESH_IMPORT = """
import sys
import simt
host_api = ("simt.cuda", "simt.cuda._jit", "simt.cuda._vectorizers", "simt.cuda.random",
            "simt.cuda._memory", "simt.cuda.libdevice", "simt.cuda.types")
loaded = sorted(m for m in host_api if m in sys.modules)
with open("/proc/self/maps") as maps:
    drivers = sorted({line.split("/")[-1].strip() for line in maps
                      if any(d in line for d in ("libcuda.so", "libOpenCL.so", "libnvrtc"))})
print(repr((loaded, drivers)))
from simt import cuda
print(repr((cuda.jit is simt.cuda.jit, "cuda" in dir(simt), "simt.cuda" in sys.modules)))
"""


def test_import_loads_no_driver_and_leaves_numbas_host_api_for_first_use():
    # `import simt` must stay cheap (issue 20): no device driver or NVRTC is loaded until a
    # device is asked for, and simt.cuda (Numba's host API) is imported on first use.
    import ast
    import subprocess
    import sys

    if not sys.platform.startswith("linux"):
        import pytest

        pytest.skip("reads /proc/self/maps")
    result = subprocess.run([sys.executable, "-c", _FRESH_IMPORT], capture_output=True,
                            text=True, check=True)
    first, second = (ast.literal_eval(line) for line in result.stdout.splitlines())
    assert first == ([], []), f"import simt loaded {first}"
    assert second == (True, True, True)
