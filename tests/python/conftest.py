"""Shared pytest fixtures for simt's Python tests.

Placeholder: device parametrization comes later. Every kernel test will be
parametrized over each available device (``cpu``, ``opencl:N``, ``cuda:N``)
through a ``device`` fixture defined here.
"""

from pathlib import Path

import numpy as np
import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The source checkout's root directory."""
    return REPO_ROOT


@pytest.fixture
def rng() -> np.random.Generator:
    """A fresh random generator per test (fresh inputs every run)."""
    return np.random.default_rng()
