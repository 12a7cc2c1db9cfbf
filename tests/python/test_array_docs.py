"""The arrays API reference (docs/arrays.md) names every function of the namespace."""

import re

from simt._array_api import _namespace


def test_every_namespace_function_is_in_the_api_reference(repo_root):
    text = (repo_root / "docs" / "arrays.md").read_text()
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
    missing = sorted(n for n in _namespace.__all__ if n not in words)
    assert not missing, f"docs/arrays.md does not list {missing}"
