"""Fixtures of the Python package tests. The package must be installed in the
interpreter running pytest (scripts/setup.sh installs it into .venv); the CLI helpers
and the Spark fixture are shared with test/cli."""

import os
import sys

import pytest

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO_ROOT, "test", "cli"))

from spark_session import spark  # noqa: E402,F401


@pytest.fixture(scope="session", autouse=True)
def installed_package():
    """Fail (not skip) when the package is not importable: it is what is under test."""
    try:
        import deltaguard  # noqa: F401
    except ImportError as e:  # pragma: no cover - the failure message is the point
        pytest.fail(f"the deltaguard package is not installed ({e}): run scripts/setup.sh",
                    pytrace=False)
