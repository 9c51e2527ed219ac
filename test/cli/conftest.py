"""pytest configuration for the CLI end-to-end tests (see README.md in this folder)."""

import os

import pytest

from cli_helpers import cli_path


@pytest.fixture(scope="session", autouse=True)
def deltaguard_cli():
    """Every test here runs the CLI: fail (not skip) when it was not built."""
    path = cli_path()
    if not os.access(path, os.X_OK):
        pytest.fail(f"deltaguard CLI not found at {path}: run scripts/setup.sh "
                    "or set DELTAGUARD_BIN", pytrace=False)
    return path


# --- Spark interop (owner: interop): the session-scoped `spark` fixture. pyspark is
# imported only when a test requests the fixture (see spark_session.py).
from spark_session import spark  # noqa: E402,F401
# --- end Spark interop
