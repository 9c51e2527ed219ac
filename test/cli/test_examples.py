"""The committed example table matches its generator, and deltaguard reads every version
of it exactly as deltalake does."""

import os
import subprocess
import sys

import pyarrow as pa
import pytest
from deltalake import DeltaTable

from cli_helpers import (EXAMPLE_TABLE, REPO_ROOT, assert_scan_matches, run_cli,
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


def test_quickstart_incoming_drops(tmp_path):
    """The quick start's schema-change story on the bundled CSV drops."""
    incoming = os.path.join(REPO_ROOT, "examples", "incoming")
    table = str(tmp_path / "bronze_orders")
    res = run_cli("create", table, "--schema",
                  "order_id BIGINT NOT NULL, customer STRING, amount DECIMAL(10,2), "
                  "country STRING, ordered_at TIMESTAMP", "--partition-by", "country")
    assert res.returncode == 0, res.describe()
    res = run_cli("write", table, os.path.join(incoming, "orders_2024-04-01.csv"))
    assert res.returncode == 0, res.describe()
    drop2 = os.path.join(incoming, "orders_2024-04-02_coupon.csv")
    res = run_cli("write", table, drop2)
    assert res.returncode == 1 and "coupon" in res.stderr and "--merge-schema" in res.stderr
    res = run_cli("write", table, drop2, "--merge-schema")
    assert res.returncode == 0, res.describe()
    rows = {r["order_id"]: r for r in run_cli("scan", table, "--format", "jsonl").jsonl()}
    assert sorted(rows) == [1001, 1002, 1003, 1004, 1005]
    assert rows[1004]["coupon"] == "SPRING10" and rows[1001]["coupon"] is None
    assert rows[1003]["customer"] == "chloé" and rows[1003]["amount"] == "120.50"


def test_quickstart_silver_contract(tmp_path):
    """The quick start's silver step: both drops written under the bundled contract (the
    coupon ignored with a warning), the table tested against it and made to carry it."""
    incoming = os.path.join(REPO_ROOT, "examples", "incoming")
    contract = os.path.join(REPO_ROOT, "examples", "contracts", "silver_orders.odcs.yaml")
    assert run_cli("contract", "lint", contract).returncode == 0
    silver = str(tmp_path / "silver_orders")
    res = run_cli("write", silver, os.path.join(incoming, "orders_2024-04-01.csv"),
                  os.path.join(incoming, "orders_2024-04-02_coupon.csv"),
                  "--contract", contract)
    assert res.returncode == 0, res.describe()
    assert "new upstream column ignored (not in the contract): coupon" in res.stderr
    res = run_cli("contract", "test", silver, "--contract", contract, "--format", "json")
    assert res.returncode == 0 and res.json()["outcome"] == "passed", res.describe()
    res = run_cli("contract", "apply", silver, contract)
    assert res.returncode == 0, res.describe()
    assert "added constraint contract_known_countries" in res.stdout
    rows = run_cli("scan", silver, "--format", "jsonl").jsonl()
    assert len(rows) == 5 and all("coupon" not in r for r in rows)
