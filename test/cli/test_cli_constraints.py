"""`deltaguard write --on-violation fail|quarantine=QTABLE`: constraints (CHECK and NOT
NULL) either fail the write and commit nothing, or route the violating rows to a
quarantine table (created when absent) with the constraint and the time while the good
rows commit. Both tables are read back by deltalake."""

import json

import pyarrow as pa
import pytest
from deltalake import DeltaTable

from cli_helpers import EXIT_REFUSED, EXIT_USAGE, assert_error, run_cli
from write_helpers import data_files, dg_write, log_versions, write_csv, write_parquet


@pytest.fixture
def table(tmp_path):
    path = str(tmp_path / "orders")
    res = run_cli("create", path, "--schema", "id BIGINT NOT NULL, amount INT, status STRING")
    assert res.returncode == 0, res.describe()
    res = run_cli("sql", f"ALTER TABLE delta.`{path}` ADD CONSTRAINT positive "
                         "CHECK (amount > 0)")
    assert res.returncode == 0, res.describe()
    res = run_cli("sql", f"ALTER TABLE delta.`{path}` ADD CONSTRAINT known "
                         "CHECK (status IN ('placed', 'shipped'))")
    assert res.returncode == 0, res.describe()
    return path


def mixed_rows():
    return pa.table({
        "id": pa.array([1, 2, None, 4, 5], pa.int64()),
        "amount": pa.array([10, -1, 7, 3, None], pa.int32()),
        "status": pa.array(["placed", "placed", "shipped", "lost", "shipped"]),
    })


def rows(path):
    return sorted(DeltaTable(path).to_pyarrow_table().to_pylist(),
                  key=lambda r: json.dumps(r, sort_keys=True, default=str))


def test_fail_is_the_default_and_commits_nothing(table, tmp_path):
    src = str(tmp_path / "in.parquet")
    write_parquet(src, mixed_rows())
    before = (log_versions(table), data_files(table))
    res = dg_write(table, src, ok=False)
    assert_error(res, EXIT_REFUSED, names=[table])
    res = dg_write(table, src, ok=False, on_violation="fail")
    assert_error(res, EXIT_REFUSED, names=[table])
    assert (log_versions(table), data_files(table)) == before


def test_quarantine_routes_bad_rows_and_commits_good_ones(table, tmp_path):
    src = str(tmp_path / "in.parquet")
    write_parquet(src, mixed_rows())
    q = str(tmp_path / "orders_quarantine")
    res = dg_write(table, src, on_violation=f"quarantine={q}")
    assert "1 rows written" in res.stdout, res.describe()
    assert f"4 rows quarantined to {q} (version 1, created)" in res.stdout, res.describe()
    assert "CHECK constraint positive: 2 rows" in res.stdout
    good = rows(table)
    assert good == [{"id": 1, "amount": 10, "status": "placed"}]
    bad = rows(q)
    assert len(bad) == 4
    by_id = {r["id"]: r for r in bad}
    assert by_id[2]["_violated_constraint"] == "CHECK constraint positive"
    assert by_id[None]["_violated_constraint"] == "NOT NULL column id"
    assert by_id[4]["_violated_constraint"] == "CHECK constraint known"
    assert by_id[5]["_violated_constraint"] == "CHECK constraint positive"
    assert all(r["_quarantined_at"] is not None for r in bad)
    assert len({r["_quarantined_at"] for r in bad}) == 1


def test_quarantine_json_output_and_append(table, tmp_path):
    src = str(tmp_path / "in.csv")
    write_csv(src, mixed_rows())
    q = str(tmp_path / "q")
    first = dg_write(table, src, on_violation=f"quarantine={q}", output="json")
    out = json.loads(first.stdout)
    assert out["rows"] == 1
    assert out["quarantine"]["rows"] == 4
    assert out["quarantine"]["created"] is True
    assert out["quarantine"]["by_constraint"] == {
        "CHECK constraint positive": 2, "NOT NULL column id": 1, "CHECK constraint known": 1}
    second = json.loads(dg_write(table, src, on_violation=f"quarantine={q}",
                                 output="json").stdout)
    assert second["quarantine"]["created"] is False
    assert second["quarantine"]["version"] == out["quarantine"]["version"] + 1
    assert len(rows(q)) == 8
    assert len(rows(table)) == 2


def test_no_violation_leaves_no_quarantine_table(table, tmp_path):
    src = str(tmp_path / "in.parquet")
    write_parquet(src, pa.table({"id": pa.array([7], pa.int64()),
                                 "amount": pa.array([1], pa.int32()),
                                 "status": ["placed"]}))
    q = tmp_path / "q"
    res = dg_write(table, src, on_violation=f"quarantine={q}")
    assert "nothing quarantined" in res.stdout
    assert not q.exists()
    assert len(rows(table)) == 1


def test_bad_flag_and_incompatible_options(table, tmp_path):
    src = str(tmp_path / "in.parquet")
    write_parquet(src, mixed_rows())
    res = dg_write(table, src, ok=False, on_violation="drop")
    assert_error(res, EXIT_USAGE, contains=["--on-violation"])
    res = dg_write(table, src, ok=False, on_violation=f"quarantine={tmp_path / 'q'}",
                   merge_schema=True)
    assert_error(res, EXIT_USAGE, contains=["schema evolution"])
    res = dg_write(table, src, ok=False, on_violation=f"quarantine={table}")
    assert_error(res, EXIT_USAGE, contains=["must differ"])
