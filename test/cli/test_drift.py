"""End-to-end: `deltaguard drift`, `deltaguard diff` and `history --drift`
(docs/drift.md): every output format, the exit codes (0 ok, 1 fails the bar, 2 usage or
invalid input, 3 I/O or a corrupt table), bad input, the seed scenarios through the CLI,
drift between versions of corpus tables with schema changes, and of a table Spark wrote
after ALTER TABLE RENAME COLUMN / DROP COLUMN / type widening."""

import datetime as dt
import json
import os
import xml.etree.ElementTree as ET

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cli_helpers import (EXIT_IO, EXIT_OK, EXIT_REFUSED, EXIT_USAGE, corpora_dir,
                         run_cli)


def write_parquet(path, columns):
    pq.write_table(pa.table(columns), str(path))
    return str(path)


@pytest.fixture
def orders(tmp_path):
    """A table (cust_id BIGINT, amount DOUBLE, discount DOUBLE) with one file, and an
    input where cust_id is now customer_id, discount is gone and channel is new."""
    table = str(tmp_path / "orders")
    first = write_parquet(tmp_path / "v1.parquet", {
        "cust_id": pa.array([1, 2, 3], pa.int64()),
        "amount": [1.0, 2.0, 3.0],
        "discount": [0.1, None, 0.3]})
    res = run_cli("write", table, first)
    assert res.returncode == EXIT_OK, res.describe()
    new = write_parquet(tmp_path / "v2.parquet", {
        "customer_id": pa.array([2, 3, 4], pa.int64()),
        "amount": [1.0, 2.0, 3.0],
        "channel": ["web", "app", "web"]})
    return table, new


def classes(report):
    return [(c["class"], c["path"]) for c in report["changes"]]


def drift_json(*args, rc=EXIT_REFUSED):
    res = run_cli(*args, "--format", "json")
    assert res.returncode == rc, res.describe()
    return json.loads(res.stdout)


def test_drift_json_is_the_documented_object(orders):
    table, new = orders
    report = drift_json("drift", table, new)
    assert set(report) == {"before", "after", "changes", "verdict", "fail_on", "fails",
                           "inferred"}
    assert classes(report) == [
        ("COLUMN_ADDED_NULLABLE", "customer_id"), ("COLUMN_ADDED_NULLABLE", "channel"),
        ("COLUMN_REMOVED", "cust_id"), ("COLUMN_REMOVED", "discount"),
        ("COLUMN_RENAME_SUSPECTED", "customer_id")]
    for c in report["changes"]:
        assert set(c) == {"class", "path", "old_path", "before", "after", "risk",
                          "backward", "forward", "spark", "deltaguard", "option",
                          "heuristic", "score", "evidence"}
    rename = report["changes"][4]
    assert rename["old_path"] == "cust_id" and rename["heuristic"] is True
    # name 1.0, same position, value ranges [1, 3] and [2, 4] overlap 1/3.
    assert rename["score"] == pytest.approx(0.45 + 0.15 + 0.4 / 3, abs=1e-3)
    assert "value ranges [1, 3] and [2, 4]" in rename["evidence"]
    assert report["verdict"] is None
    assert report["fail_on"] == "high" and report["fails"] is True
    assert report["before"]["label"] == f"{table}@v0"
    assert [f["name"] for f in report["after"]["schema"]["fields"]] == [
        "customer_id", "amount", "channel"]


def test_drift_text_shows_schemas_and_one_line_per_change(orders):
    table, new = orders
    res = run_cli("drift", table, new)
    assert res.returncode == EXIT_REFUSED, res.describe()
    out = res.stdout
    lines = out.splitlines()
    assert any(line.startswith("- discount: double") for line in lines), out
    assert any(line.startswith("+ ") and line.endswith("| channel: string")
               for line in lines), out
    assert "FAIL COLUMN_REMOVED discount: double -> (none) (risk high)" in out
    assert "     COLUMN_ADDED_NULLABLE channel: (none) -> string (risk low)" in out
    assert "way forward: mergeSchema" in out


def test_drift_markdown_junit_github(orders):
    table, new = orders
    md = run_cli("drift", table, new, "--format", "markdown")
    assert md.returncode == EXIT_REFUSED
    assert "| | class | column | before | after | risk | way forward |" in md.stdout
    assert "| FAIL | `COLUMN_REMOVED` | discount | double |  | high |" in md.stdout
    junit = run_cli("drift", table, new, "--format", "junit")
    assert junit.returncode == EXIT_REFUSED
    suite = ET.fromstring(junit.stdout).find("testsuite")
    assert suite.get("tests") == "5" and suite.get("failures") == "3"
    failed = [tc.get("classname") for tc in suite if tc.find("failure") is not None]
    assert failed == ["drift.COLUMN_REMOVED", "drift.COLUMN_REMOVED",
                      "drift.COLUMN_RENAME_SUSPECTED"]
    gh = run_cli("drift", table, new, "--format", "github")
    assert gh.returncode == EXIT_REFUSED
    lines = gh.stdout.splitlines()
    assert len(lines) == 5
    assert lines[0].startswith("::warning title=COLUMN_ADDED_NULLABLE::")
    assert lines[2].startswith("::error title=COLUMN_REMOVED::")


def test_modes_and_fail_bars(orders, tmp_path):
    table, new = orders
    # Removals and nullable additions are BACKWARD compatible: the mode passes.
    report = drift_json("drift", table, new, "--mode", "BACKWARD", rc=EXIT_OK)
    assert report["verdict"] == {"mode": "BACKWARD", "compatible": True, "breaking": []}
    assert report["fail_on"] == "breaking"
    # --fail-on overrides the mode's default bar.
    drift_json("drift", table, new, "--mode", "BACKWARD", "--fail-on", "high")
    # A widening breaks FORWARD.
    wide = write_parquet(tmp_path / "wide.parquet", {
        "cust_id": pa.array([1], pa.int64()), "amount": pa.array([1.0], pa.float64()),
        "discount": pa.array([1], pa.int32())})
    report = drift_json("drift", table, wide, "--mode", "full", rc=EXIT_REFUSED)
    assert classes(report) == [("TYPE_NARROWED", "discount")]
    assert report["verdict"]["breaking"][0]["direction"] == "BACKWARD"
    drift_json("drift", table, wide, "--mode", "FORWARD", rc=EXIT_OK)
    # Low risk only: the default bar (high) passes, --fail-on any fails.
    same = write_parquet(tmp_path / "same.parquet", {
        "cust_id": pa.array([1], pa.int64()), "amount": [1.0], "discount": [0.5],
        "note": ["x"]})
    assert classes(drift_json("drift", table, same, rc=EXIT_OK)) == [
        ("COLUMN_ADDED_NULLABLE", "note")]
    drift_json("drift", table, same, "--fail-on", "any", rc=EXIT_REFUSED)
    nothing = run_cli("drift", table, write_parquet(tmp_path / "n.parquet", {
        "cust_id": pa.array([1], pa.int64()), "amount": [1.0], "discount": [0.5]}))
    assert nothing.returncode == EXIT_OK and "no schema changes" in nothing.stdout


def test_seed_type_changes_through_diff(tmp_path):
    before = "qty INT, price DECIMAL(10,2), zip STRING, amount DOUBLE"
    after = "qty BIGINT, price DECIMAL(18,2), zip INT, amount DECIMAL(10,2)"
    report = drift_json("diff", before, after)
    assert [(c["class"], c["path"], c["risk"]) for c in report["changes"]] == [
        ("TYPE_WIDENED", "qty", "low"), ("TYPE_WIDENED", "price", "low"),
        ("TYPE_CHANGED_INCOMPATIBLE", "zip", "high"),
        ("TYPE_CHANGED_INCOMPATIBLE", "amount", "high")]
    assert report["before"]["label"] == "schema text"
    # Schema files, DDL and Delta schema JSON.
    ddl = tmp_path / "s.ddl"
    ddl.write_text(before)
    js = tmp_path / "s.json"
    js.write_text(json.dumps({"type": "struct", "fields": [
        {"name": "qty", "type": "long", "nullable": True, "metadata": {}}]}))
    report = drift_json("diff", str(ddl), str(js))
    assert ("TYPE_WIDENED", "qty") in classes(report)


def test_csv_inferred_types_and_headerless_reorder(tmp_path):
    table = str(tmp_path / "t")
    assert run_cli("create", table, "--schema",
                   "name STRING, qty BIGINT, price DOUBLE").returncode == EXIT_OK
    with_header = tmp_path / "h.csv"
    with_header.write_text("name,qty,score\nw,3,1.5\n")
    report = drift_json("drift", table, str(with_header), rc=EXIT_REFUSED)
    assert report["inferred"] == [
        {"column": "name", "inferred_type": "string", "table_type": "string",
         "cast": "none"},
        {"column": "qty", "inferred_type": "long", "table_type": "long", "cast": "none"},
        {"column": "score", "inferred_type": "double", "table_type": "",
         "cast": "new column"}]
    assert classes(report) == [("COLUMN_ADDED_NULLABLE", "score"),
                               ("COLUMN_REMOVED", "price")]
    # Headerless: the same columns in another order put values in the wrong columns.
    reordered = tmp_path / "r.csv"
    reordered.write_text("3,widget,2.5\n4,gadget,1.5\n")
    report = drift_json("drift", table, str(reordered), "--no-header")
    assert [(c["class"], c["risk"]) for c in report["changes"]] == [
        ("COLUMN_REORDERED", "high")]
    assert "matched by position" in report["changes"][0]["evidence"]
    aligned = tmp_path / "a.csv"
    aligned.write_text("widget,3,2.5\n")
    assert drift_json("drift", table, str(aligned), "--no-header",
                      rc=EXIT_OK)["changes"] == []


def test_diff_table_versions_and_history_drift(orders, tmp_path):
    table, new = orders
    res = run_cli("write", table, new, "--merge-schema")
    assert res.returncode == EXIT_OK, res.describe()
    report = drift_json("diff", f"{table}@v0", f"{table}@v1", rc=EXIT_OK)
    assert classes(report) == [("COLUMN_ADDED_NULLABLE", "customer_id"),
                               ("COLUMN_ADDED_NULLABLE", "channel")]
    assert report["after"]["label"] == f"{table}@v1"
    hist = run_cli("history", table, "--format", "json")
    assert hist.returncode == EXIT_OK, hist.describe()
    entries = json.loads(hist.stdout)
    # The commit time of version 1, as an ISO timestamp, names version 1.
    when = dt.datetime.fromtimestamp(entries[1]["timestamp"] / 1000, dt.timezone.utc)
    stamp = when.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    ts = drift_json("diff", f"{table}@v0", f"{table}@{stamp}", rc=EXIT_OK)
    assert classes(ts) == classes(report)
    assert entries[0]["drift"] == []
    drift = [(c["class"], c["path"]) for c in entries[1]["drift"]]
    # From version 1 cust_id is NULL in every new row while customer_id appears.
    assert ("COLUMN_ALL_NULL", "cust_id") in drift
    assert ("COLUMN_RENAME_SUSPECTED", "customer_id") in drift
    all_null = [c for c in entries[1]["drift"] if c["class"] == "COLUMN_ALL_NULL"][0]
    assert all_null["evidence"] == "3 of 3 new rows are NULL"
    text = run_cli("history", table, "--drift")
    assert text.returncode == EXIT_OK
    assert "  drift: COLUMN_ADDED_NULLABLE customer_id: (none) -> long (risk low)" in \
        text.stdout
    assert "drift:" not in run_cli("history", table).stdout


def test_transitive_modes_check_every_earlier_version(tmp_path):
    """v0 has a INT, v1 drops it (overwriteSchema), the input re-adds it as a string:
    BACKWARD against the latest passes, BACKWARD_TRANSITIVE fails on v0."""
    table = str(tmp_path / "t")
    v0 = write_parquet(tmp_path / "a0.parquet", {"id": pa.array([1], pa.int32()),
                                                 "a": pa.array([1], pa.int32())})
    v1 = write_parquet(tmp_path / "a1.parquet", {"id": pa.array([1], pa.int32())})
    new = write_parquet(tmp_path / "a2.parquet", {"id": pa.array([1], pa.int32()),
                                                  "a": ["x"]})
    assert run_cli("write", table, v0).returncode == EXIT_OK
    res = run_cli("write", table, v1, "--mode", "overwrite", "--overwrite-schema")
    assert res.returncode == EXIT_OK, res.describe()
    plain = drift_json("drift", table, new, "--mode", "BACKWARD", rc=EXIT_OK)
    assert classes(plain) == [("COLUMN_ADDED_NULLABLE", "a")]
    report = drift_json("drift", table, new, "--mode", "BACKWARD_TRANSITIVE")
    assert classes(report) == [("COLUMN_ADDED_NULLABLE", "a"),
                               ("TYPE_CHANGED_INCOMPATIBLE", "a")]
    assert report["changes"][1]["evidence"] == f"from v0 to {new}"
    assert report["verdict"]["breaking"] == [{
        "change": 1, "direction": "BACKWARD",
        "reason": f"old values cannot be read as the new type (v0 -> {new})"}]
    # Between two versions of one table: every pair of versions between them.
    assert run_cli("write", table, new, "--merge-schema").returncode == EXIT_OK
    drift_json("diff", f"{table}@v1", table, "--mode", "FULL_TRANSITIVE", rc=EXIT_OK)
    report = drift_json("diff", f"{table}@v0", table, "--mode", "FULL_TRANSITIVE")
    assert sorted(b["direction"] for b in report["verdict"]["breaking"]) == [
        "BACKWARD", "FORWARD"]


def test_bad_input(orders, tmp_path):
    table, new = orders
    cases = [
        (["drift", table], EXIT_USAGE, "usage: deltaguard drift"),
        (["drift", table, new, "--mode", "SIDEWAYS"], EXIT_USAGE,
         "unknown compatibility mode 'SIDEWAYS'"),
        (["drift", table, new, "--format", "xml"], EXIT_USAGE, "unknown --format 'xml'"),
        (["drift", table, new, "--fail-on", "medium"], EXIT_USAGE,
         "unknown --fail-on 'medium'"),
        (["drift", table, str(tmp_path / "missing.parquet")], EXIT_USAGE, "missing.parquet"),
        (["diff", table, "id INTEGR"], EXIT_USAGE,
         "schema text (DDL) does not parse"),
        (["diff", table, '{"type":"struct","fields":['], EXIT_USAGE,
         "schema text (Delta schema JSON) does not parse"),
        (["diff", f"{table}@v7", table], EXIT_USAGE, "version 7 does not exist"),
        (["diff", table, str(tmp_path / "nope" / "s.ddl")], EXIT_USAGE,
         "is not a table, a file or schema text"),
        (["diff", table], EXIT_USAGE, "usage: deltaguard diff"),
    ]
    for args, rc, message in cases:
        res = run_cli(*args)
        assert res.returncode == rc, res.describe()
        assert message in res.stderr, res.describe()
    bad_schema = tmp_path / "bad.ddl"
    bad_schema.write_text("id BIGINT,")
    res = run_cli("diff", table, str(bad_schema))
    assert res.returncode == EXIT_USAGE and "bad.ddl" in res.stderr, res.describe()
    # A data file that is not Parquet, and a table whose log is corrupt: I/O (3).
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"not parquet at all")
    res = run_cli("drift", table, str(broken))
    assert res.returncode == EXIT_IO, res.describe()
    log = os.path.join(table, "_delta_log", "00000000000000000000.json")
    with open(log, "w", encoding="utf-8") as f:
        f.write("{not json\n")
    res = run_cli("drift", table, new)
    assert res.returncode == EXIT_IO, res.describe()


CORPORA = corpora_dir()
needs_corpora = pytest.mark.skipif(
    CORPORA is None,
    reason="corpora not found (set DELTAGUARD_CORPORA or place shared/corpora beside "
    "the repo)")


@needs_corpora
def test_corpus_type_widening_history():
    table = os.path.join(CORPORA, "delta-kernel-rs", "type-widening")
    report = drift_json("diff", f"{table}@v0", f"{table}@v2", rc=EXIT_OK)
    widened = {c["path"]: (c["before"], c["after"]) for c in report["changes"]
               if c["class"] == "TYPE_WIDENED"}
    assert widened["int_long"] == ("integer", "long")
    assert widened["decimal_decimal_greater_scale"] == ("decimal(10,2)", "decimal(20,5)")
    assert widened["date_timestamp_ntz"] == ("date", "timestamp_ntz")
    assert all(c["class"] == "TYPE_WIDENED" for c in report["changes"])
    # FORWARD: readers of the old types cannot read the wider values.
    forward = drift_json("diff", f"{table}@v0", f"{table}@v2", "--mode", "FORWARD")
    assert len(forward["verdict"]["breaking"]) == len(report["changes"])


@needs_corpora
def test_corpus_added_columns_and_partitioning_history():
    added = os.path.join(CORPORA, "delta-kernel-rs", "external-table-different-nullability")
    hist = run_cli("history", added, "--format", "json")
    assert hist.returncode == EXIT_OK, hist.describe()
    per_version = {e["version"]: [(c["class"], c["path"]) for c in e["drift"]]
                   for e in json.loads(hist.stdout)}
    assert per_version[2] == [("COLUMN_ADDED_NULLABLE", "j")]
    assert per_version[4] == [("COLUMN_ADDED_NULLABLE", "k")]
    assert per_version[1] == [] and per_version[3] == []
    partitioned = os.path.join(CORPORA, "delta", "delta-0.1.0")
    report = drift_json("diff", f"{partitioned}@v0", partitioned)
    assert [(c["class"], c["before"], c["after"]) for c in report["changes"]] == [
        ("PARTITIONING_CHANGED", "[]", "[id]")]


def test_spark_rename_drop_widen_history(spark, tmp_path):
    """Spark renames (column mapping), drops and widens columns; deltaguard names each
    change exactly, by column-mapping id rather than as a suspicion."""
    path = str(tmp_path / "spark_drift")
    t = f"delta.`{path}`"
    for stmt in [
            f"CREATE TABLE {t} (id BIGINT, cust_id BIGINT, discount DOUBLE, qty INT) "
            "USING DELTA TBLPROPERTIES ('delta.columnMapping.mode' = 'name', "
            "'delta.enableTypeWidening' = 'true')",
            f"INSERT INTO {t} VALUES (1, 10, 0.5, 3)",
            f"ALTER TABLE {t} RENAME COLUMN cust_id TO customer_id",
            f"ALTER TABLE {t} DROP COLUMN discount",
            f"ALTER TABLE {t} ALTER COLUMN qty TYPE BIGINT"]:
        spark.sql(stmt).collect()
    hist = run_cli("history", path, "--format", "json")
    assert hist.returncode == EXIT_OK, hist.describe()
    drift = [(e["version"], c["class"], c["path"], c["before"], c["after"])
             for e in json.loads(hist.stdout) for c in e["drift"]]
    assert drift == [
        (2, "COLUMN_RENAMED", "customer_id", "cust_id", "customer_id"),
        (3, "COLUMN_REMOVED", "discount", "double", ""),
        (4, "TYPE_WIDENED", "qty", "integer", "long")]
    # From version 1 to the latest: BACKWARD holds, FULL does not.
    report = drift_json("diff", f"{path}@v1", path, "--mode", "BACKWARD", rc=EXIT_OK)
    assert {c["class"] for c in report["changes"]} == {
        "COLUMN_RENAMED", "COLUMN_REMOVED", "TYPE_WIDENED"}
    report = drift_json("diff", f"{path}@v1", path, "--mode", "FULL")
    assert {report["changes"][b["change"]]["class"]
            for b in report["verdict"]["breaking"]} == {"COLUMN_RENAMED", "TYPE_WIDENED"}


def sql_rows(*statements):
    res = run_cli("sql", "--format", "jsonl", "; ".join(statements))
    assert res.returncode == EXIT_OK, res.describe()
    return [json.loads(line) for line in res.stdout.splitlines() if line.strip()]


# What SQL rows carry of a change, from a CLI JSON change object (SQL shows "" as NULL).
def cli_change_as_sql(c):
    return {"class": c["class"], "path": c["path"], "old_path": c["old_path"] or None,
            "before": c["before"] or None, "after": c["after"] or None,
            "risk": c["risk"], "spark_default": c["spark"],
            "deltaguard_default": c["deltaguard"], "option": c["option"] or None,
            "score": c["score"], "evidence": c["evidence"] or None,
            "backward": c["backward"], "forward": c["forward"]}


def test_sql_answers_match_history_drift_and_drift(orders):
    """schema_changes() gives the rows of history --drift, DESCRIBE DRIFT the changes of
    deltaguard drift, for the same table and input."""
    table, new = orders
    described = sql_rows(f"DESCRIBE DRIFT delta.`{table}` USING read_parquet('{new}')")
    report = drift_json("drift", table, new)
    assert described == [cli_change_as_sql(c) for c in report["changes"]]
    assert [r["class"] for r in described][-1] == "COLUMN_RENAME_SUSPECTED"

    res = run_cli("write", table, new, "--merge-schema")
    assert res.returncode == EXIT_OK, res.describe()
    hist = run_cli("history", table, "--format", "json")
    assert hist.returncode == EXIT_OK, hist.describe()
    expected = []
    for entry in json.loads(hist.stdout):
        for c in entry["drift"]:
            expected.append({"version": entry["version"],
                             "operation": entry["operation"], **cli_change_as_sql(c)})
    rows = sql_rows(f"SELECT * FROM schema_changes('{table}')")
    assert len(rows) == len(expected) and len(rows) >= 3
    for row, want in zip(rows, expected):
        assert row.pop("timestamp")
        assert row == want
    assert sql_rows(f"SELECT * FROM schema_changes('{table}', 0, 0)") == []
