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
