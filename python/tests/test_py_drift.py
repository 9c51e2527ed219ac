"""Schema drift from Python: Table.drift(data) and dg.diff(a, b) return typed reports
whose changes, verdicts and renderings are exactly the CLI's (`deltaguard drift` and
`deltaguard diff`), for every kind of side (Arrow data, files, tables at a version,
schemas, schema text), with the transitive modes and the errors of the CLI."""

import json
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import deltaguard as dg
from cli_helpers import EXIT_OK, EXIT_REFUSED, run_cli


@pytest.fixture
def orders(tmp_path):
    """v0: (cust_id BIGINT, amount DOUBLE, discount DOUBLE); the new drop renames
    cust_id to customer_id, stops sending discount and adds channel."""
    path = str(tmp_path / "orders")
    dg.write_table(path, pa.table({
        "cust_id": pa.array([1, 2, 3], pa.int64()),
        "amount": [1.0, 2.0, 3.0],
        "discount": [0.1, None, 0.3]}))
    new = pa.table({
        "customer_id": pa.array([2, 3, 4], pa.int64()),
        "amount": [1.0, 2.0, 3.0],
        "channel": ["web", "app", "web"]})
    return path, new


def cli_json(*args, rc):
    res = run_cli(*args, "--format", "json")
    assert res.returncode == rc, res.describe()
    return json.loads(res.stdout)


def test_table_drift_of_arrow_data_is_typed_and_matches_the_cli(orders, tmp_path):
    path, new = orders
    report = dg.Table(path).drift(new)
    assert isinstance(report, dg.DriftReport)
    assert [(c.change_class, c.path) for c in report.changes] == [
        ("COLUMN_ADDED_NULLABLE", "customer_id"), ("COLUMN_ADDED_NULLABLE", "channel"),
        ("COLUMN_REMOVED", "cust_id"), ("COLUMN_REMOVED", "discount"),
        ("COLUMN_RENAME_SUSPECTED", "customer_id")]
    suspect = report.changes[-1]
    assert isinstance(suspect, dg.DriftChange)
    assert suspect.old_path == "cust_id" and suspect.heuristic
    assert suspect.score is not None and suspect.score >= 0.5
    assert "name similarity" in suspect.evidence
    # the default bar is "high": the removals and the suspicion fail it
    assert report.fail_on == "high" and report.fails
    assert [c.fails for c in report.changes] == [False, False, True, True, True]
    assert report.verdict is None

    # the same data as a Parquet file through the CLI: the same changes, field by field
    pq.write_table(new, str(tmp_path / "new.parquet"))
    cli = cli_json("drift", path, str(tmp_path / "new.parquet"), rc=EXIT_REFUSED)
    mine = report.to_dict()
    assert mine["changes"] == cli["changes"]
    assert mine["fails"] == cli["fails"] and mine["fail_on"] == cli["fail_on"]
    assert mine["before"]["schema"] == cli["before"]["schema"]
    assert mine["after"]["schema"] == cli["after"]["schema"]


def test_table_drift_of_files_is_the_cli_report(orders, tmp_path):
    path, new = orders
    f = str(tmp_path / "new.parquet")
    pq.write_table(new, f)
    for mode, rc in (("FORWARD", EXIT_OK), ("FULL", EXIT_OK), (None, EXIT_REFUSED)):
        for fmt in ("json", "text", "markdown", "junit", "github"):
            res = run_cli("drift", path, f, "--format", fmt,
                          *(("--mode", mode) if mode else ()))
            assert res.returncode == rc, res.describe()
            report = dg.Table(path).drift(f, mode=mode)
            assert report.fails == (rc == EXIT_REFUSED)
            assert report.render(fmt).rstrip("\n") == res.stdout.rstrip("\n"), fmt
    report = dg.Table(path).drift([f], mode="FORWARD")
    assert str(report) == report.render("text").rstrip("\n")


def test_verdict_lists_breaking_changes(orders):
    path, _ = orders
    narrower = pa.table({"cust_id": pa.array([1], pa.int32()), "amount": [1.0],
                         "discount": [0.5]})
    report = dg.Table(path).drift(narrower, mode="BACKWARD")
    assert [(c.change_class, c.path, c.before, c.after) for c in report] == [
        ("TYPE_NARROWED", "cust_id", "long", "integer")]
    assert isinstance(report.verdict, dg.Verdict)
    assert report.verdict.mode == "BACKWARD" and not report.verdict.compatible
    assert not report.verdict
    (b,) = report.verdict.breaking
    assert isinstance(b, dg.BreakingChange)
    assert b.direction == "BACKWARD" and b.change is report.changes[0] and b.index == 0
    assert report.fails and report.fail_on == "breaking"

    same = dg.Table(path).drift(narrower, mode="FORWARD")
    assert same.verdict.compatible and not same.fails
    assert len(same) == 1 and list(same)[0].change_class == "TYPE_NARROWED"


def test_diff_of_two_versions_is_the_cli_diff(tmp_path):
    path = str(tmp_path / "t")
    dg.write_table(path, pa.table({"id": pa.array([1], pa.int32()), "note": ["a"]}))
    dg.write_table(path, pa.table({"id": pa.array([2], pa.int32()), "note": ["b"],
                                   "extra": [1.5]}), merge_schema=True)
    report = dg.diff(f"{path}@v0", dg.Table(path))
    assert [(c.change_class, c.path) for c in report] == [
        ("COLUMN_ADDED_NULLABLE", "extra")]
    assert report.before_label == f"{path}@v0"
    assert report.before_schema == dg.Table(path, version=0).schema
    assert report.after_schema == dg.Table(path).schema
    assert not report.fails

    cli = cli_json("diff", f"{path}@v0", f"{path}@v1", rc=EXIT_OK)
    assert report.to_dict()["changes"] == cli["changes"]
    # a Table at an older version is that version
    older = dg.diff(dg.Table(path, version=1), dg.Table(path, version=0))
    assert [(c.change_class, c.path) for c in older] == [("COLUMN_REMOVED", "extra")]


def test_diff_takes_schemas_and_schema_text(orders):
    path, _ = orders
    ddl = "cust_id BIGINT, amount DOUBLE, discount DOUBLE, note STRING NOT NULL"
    report = dg.diff(dg.Table(path), ddl)
    assert [(c.change_class, c.path) for c in report] == [
        ("COLUMN_ADDED_NOT_NULL", "note")]
    same = dg.diff(dg.Table(path), dg.Schema.from_ddl(ddl))
    assert same.to_dict()["changes"] == report.to_dict()["changes"]
    # an Arrow schema is a schema side; an Arrow table is data (nullability ignored)
    arrow_schema = pa.schema([pa.field("a", pa.int64(), nullable=False)])
    s = dg.diff(dg.Schema.from_ddl("a BIGINT"), arrow_schema)
    assert [c.change_class for c in s] == ["NULLABILITY_TIGHTENED"]
    d = dg.diff(dg.Schema.from_ddl("a BIGINT"), pa.table({"a": pa.array([1], pa.int64())}))
    assert list(d) == []
    cli = cli_json("diff", path, ddl, rc=EXIT_REFUSED)
    assert cli["changes"] == report.to_dict()["changes"]


def test_transitive_mode_judges_every_earlier_schema(tmp_path):
    # v0 (id, note STRING); v1 drops note (column mapping); the input brings note back
    # as a number: against v1 an added column, against v0 an incompatible type change.
    path = str(tmp_path / "t")
    dg.create_table(path, dg.Schema.from_ddl("id INT, note STRING"),
                    properties={"delta.columnMapping.mode": "name"})
    dg.Table(path).alter.drop_columns("note")
    data = pa.table({"id": pa.array([1], pa.int32()), "note": pa.array([1], pa.int64())})
    plain = dg.Table(path).drift(data, mode="BACKWARD")
    assert plain.verdict.compatible
    transitive = dg.Table(path).drift(data, mode="BACKWARD_TRANSITIVE")
    assert not transitive.verdict.compatible
    assert any(c.change_class == "TYPE_CHANGED_INCOMPATIBLE" and c.path == "note"
               for c in transitive.changes)
    reason = transitive.verdict.breaking[0].reason
    assert "v0" in reason

    f = str(tmp_path / "in.parquet")
    pq.write_table(data, f)
    cli = cli_json("drift", path, f, "--mode", "BACKWARD_TRANSITIVE", rc=EXIT_REFUSED)
    mine = dg.Table(path).drift(f, mode="BACKWARD_TRANSITIVE").to_dict()
    assert mine["changes"] == cli["changes"] and mine["verdict"] == cli["verdict"]


def test_csv_inputs_report_inferred_types(orders, tmp_path):
    path, _ = orders
    f = tmp_path / "drop.csv"
    f.write_text("cust_id,amount,discount,coupon\n1,2.5,0.1,X\n")
    report = dg.Table(path).drift(str(f))
    assert [(c.change_class, c.path) for c in report] == [
        ("COLUMN_ADDED_NULLABLE", "coupon")]
    inferred = {c.column: c for c in report.inferred}
    assert isinstance(inferred["coupon"], dg.InferredColumn)
    assert inferred["coupon"].cast == "new column"
    assert inferred["cust_id"].table_type == "long"
    # headerless CSV in another order: a reorder of a positional input is high risk
    mixed = str(tmp_path / "mixed")
    dg.write_table(mixed, pa.table({"id": pa.array([1], pa.int64()), "name": ["a"],
                                    "amount": [2.5]}))
    g = tmp_path / "positional.csv"
    g.write_text("x,1,2.5\n")
    positional = dg.Table(mixed).drift(str(g), header=False)
    assert any(c.change_class == "COLUMN_REORDERED" and c.risk == "high"
               for c in positional)


def test_other_producers_and_empty_streams(orders):
    import pandas as pd

    path, new = orders
    expected = dg.Table(path).drift(new).to_dict()["changes"]
    reader = pa.RecordBatchReader.from_batches(new.schema, new.to_batches())
    assert dg.Table(path).drift(reader).to_dict()["changes"] == expected
    assert dg.Table(path).drift(pd.DataFrame(new.to_pydict())).to_dict()["changes"] == \
        expected
    empty = pa.RecordBatchReader.from_batches(new.schema, [])
    changes = dg.Table(path).drift(empty).changes
    # without rows the suspicion is scored on names and positions only
    assert [(c.change_class, c.path) for c in changes] == [
        (c["class"], c["path"]) for c in expected]
    assert "value" not in changes[-1].evidence
    assert "value" in expected[-1]["evidence"]


def test_errors_are_the_cli_errors(orders, tmp_path):
    path, new = orders
    t = dg.Table(path)
    with pytest.raises(dg.InvalidInputError, match="unknown compatibility mode 'SIDEWAYS'"):
        t.drift(new, mode="SIDEWAYS")
    with pytest.raises(dg.InvalidInputError, match="fail"):
        t.drift(new, fail_on="sometimes")
    with pytest.raises(dg.NotFoundError, match="no such path"):
        dg.diff(t, "missing/dir/file.parquet")
    with pytest.raises(dg.DeltaguardError) as e:
        dg.diff(t, "id INT,,")
    res = run_cli("diff", path, "id INT,,")
    assert str(e.value) in res.stderr
    with pytest.raises(ValueError, match="format"):
        t.drift(new).render("yaml")
    with pytest.raises(TypeError, match="drift side"):
        dg.diff(t, 42)
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"not parquet at all")
    with pytest.raises(dg.DeltaguardError):
        t.drift(str(bad))
    assert os.path.exists(path)
