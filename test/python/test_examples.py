"""The committed example table matches its generator, and deltaguard reads every version
of it exactly as deltalake does."""

import os
import subprocess
import sys

import pyarrow as pa
import pytest
from deltalake import DeltaTable

from cli_helpers import (EXAMPLE_TABLE, REPO_ROOT, assert_scan_matches,
                         canonical_rows_from_arrow)


def rows(path, version=None):
    return canonical_rows_from_arrow(pa.table(DeltaTable(path, version=version)
                                              .to_pyarrow_table()))


def test_example_table_matches_generator(tmp_path):
    out = tmp_path / "orders"
    subprocess.run([sys.executable, os.path.join(REPO_ROOT, "examples",
                                                 "make_sample_table.py"), str(out)],
                   check=True, capture_output=True)
    assert DeltaTable(str(out)).version() == DeltaTable(EXAMPLE_TABLE).version() == 3
    for version in range(4):
        assert rows(str(out), version) == rows(EXAMPLE_TABLE, version), \
            f"examples/orders differs from make_sample_table.py output at v{version}"
    size = sum(os.path.getsize(os.path.join(d, f))
               for d, _, fs in os.walk(EXAMPLE_TABLE) for f in fs)
    assert size < 100_000, f"example table grew to {size} bytes"


@pytest.mark.parametrize("version", [0, 1, 2, 3])
def test_example_scan_matches_deltalake(version):
    assert_scan_matches(EXAMPLE_TABLE, version=version)
