"""End-to-end: `deltaguard profile` (docs/profiles.md): profiles kept by writes,
shown as text and JSON, backfilled for tables other engines wrote. For the corpus
tables (written by Spark, delta-rs and others) every backfilled profile is checked
against the statistics the writing engine put in the log: row counts and, for files
without deletion vectors, null counts and numeric min/max per top-level column."""

import json
import os
import shutil
from urllib.parse import unquote

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cli_helpers import EXIT_OK, EXIT_USAGE, corpora_dir, run_cli

CORPORA = corpora_dir()


def write(tmp_path, table, data, *extra):
    f = tmp_path / "in.parquet"
    pq.write_table(data, str(f))
    res = run_cli("write", table, str(f), *extra)
    assert res.returncode == EXIT_OK, res.describe()
    return res


def test_profiles_kept_by_writes_and_shown(tmp_path):
    table = str(tmp_path / "orders")
    write(tmp_path, table, pa.table({"amount": [1250.0, 990.0, None],
                                     "country": ["US", "DE", "US"]}))
    write(tmp_path, table, pa.table({"amount": [12.5, 9.9], "country": ["US", "FR"]}))
    desc = run_cli("describe", table)
    assert "Profiles:       on" in desc.stdout
    assert run_cli("describe", table, "--format", "json").json()["profiles"] is True
    res = run_cli("profile", table, "--show", "--format", "json")
    assert res.returncode == EXIT_OK, res.describe()
    profiles = json.loads(res.stdout)
    assert [p["version"] for p in profiles] == [0, 1]
    first = profiles[0]["columns"]["amount"]
    assert (first["rows"], first["nulls"], first["min"], first["max"]) == (3, 1, 990, 1250)
    assert profiles[1]["columns"]["amount"]["type"] == "double"
    assert profiles[1]["columns"]["country"]["top"] == [{"value": "FR", "count": 1},
                                                       {"value": "US", "count": 1}]
    text = run_cli("profile", table, "--show", "--column", "country").stdout
    assert "version 0 (WRITE, 3 rows)" in text
    assert "country" in text and "US (2)" in text and "amount" not in text
    only = json.loads(run_cli("profile", table, "--show", "--versions", "1..1",
                              "--format", "json").stdout)
    assert [p["version"] for p in only] == [1]
    # nothing to backfill
    res = run_cli("profile", table, "--format", "json")
    assert json.loads(res.stdout) == {"profiled": [], "present": [0, 1], "no_data": [],
                                      "unavailable": []}
    # the profile table is a Delta table SQL reads
    res = run_cli("sql", f"SELECT version, column, nulls FROM "
                         f"delta.`{table}/_deltaguard/profiles` ORDER BY version, column",
                  "--format", "jsonl")
    assert res.returncode == EXIT_OK, res.describe()
    assert res.jsonl()[0] == {"version": 0, "column": "amount", "nulls": 1}


def test_profile_usage_errors(tmp_path):
    table = str(tmp_path / "t")
    write(tmp_path, table, pa.table({"x": [1]}))
    for args in (["--versions", "5..2"], ["--versions", "x"], ["--column", "x"]):
        res = run_cli("profile", table, *args)
        assert res.returncode == EXIT_USAGE, (args, res.describe())
    assert run_cli("profile", str(tmp_path / "missing")).returncode != EXIT_OK


def commit_stats(table, version):
    """(rows, {column: nulls}, {column: (min, max)}, any_dv) from the commit's adds."""
    path = os.path.join(table, "_delta_log", f"{version:020d}.json")
    rows, nulls, bounds, any_dv, complete = 0, {}, {}, False, True
    present = None  # columns stored in every added file (stats of others are moot)
    # Files with deletion vectors are left to the scan tests: their stats count the
    # deleted rows too.
    with open(path) as f:
        for line in f:
            add = json.loads(line).get("add")
            if not add or not add.get("dataChange", True):
                continue
            if add.get("deletionVector"):
                any_dv = True
            data_file = os.path.join(table, unquote(add["path"]))
            if os.path.exists(data_file):
                names = set(pq.read_schema(data_file).names)
                present = names if present is None else present & names
            stats = json.loads(add["stats"]) if add.get("stats") else None
            if not stats or "numRecords" not in stats:
                complete = False
                continue
            rows += stats["numRecords"]
            for col, n in (stats.get("nullCount") or {}).items():
                if isinstance(n, int):
                    nulls[col] = nulls.get(col, 0) + n
            for col, lo in (stats.get("minValues") or {}).items():
                hi = (stats.get("maxValues") or {}).get(col)
                if isinstance(lo, (int, float)) and isinstance(hi, (int, float)):
                    old = bounds.get(col, (lo, hi))
                    bounds[col] = (min(old[0], lo), max(old[1], hi))
    present = present or set()
    nulls = {c: n for c, n in nulls.items() if c in present}
    bounds = {c: b for c, b in bounds.items() if c in present}
    return (rows if complete else None), nulls, bounds, any_dv


@pytest.mark.skipif(CORPORA is None, reason="shared corpora not present (../shared/corpora)")
def test_backfill_matches_the_writers_statistics_on_corpus_tables(tmp_path):
    with open(os.path.join(CORPORA, "INDEX.json")) as f:
        index = json.load(f)
    checked_tables = checked_versions = 0
    for entry in index:
        src = os.path.join(CORPORA, entry["path"])
        if (not os.path.isdir(os.path.join(src, "_delta_log"))
                or (entry.get("row_count_latest") or 0) > 200_000
                or entry.get("errors_when_replayed")
                or run_cli("scan", src, "--limit", "1").returncode != EXIT_OK):
            continue
        table = str(tmp_path / f"t{checked_tables}")
        shutil.copytree(src, table)
        res = run_cli("profile", table, "--format", "json")
        assert res.returncode == EXIT_OK, (entry["path"], res.stderr)
        done = json.loads(res.stdout)
        shown = json.loads(run_cli("profile", table, "--show", "--format", "json").stdout)
        assert [p["version"] for p in shown] == done["profiled"], entry["path"]
        mapping = entry.get("configuration", {}).get("delta.columnMapping.mode", "none")
        for p in shown:
            rows, nulls, bounds, any_dv = commit_stats(table, p["version"])
            if any_dv or mapping != "none":
                continue  # stats count deleted rows, or are keyed by physical names
            if rows is not None:
                assert p["rows"] == rows, (entry["path"], p["version"])
            for col, n in nulls.items():
                if col in p["columns"]:
                    assert p["columns"][col]["nulls"] == n, (entry["path"], col)
            for col, (lo, hi) in bounds.items():
                c = p["columns"].get(col)
                if c and c["kind"] == "number":
                    assert c["min"] == pytest.approx(lo) and c["max"] == pytest.approx(hi), \
                        (entry["path"], p["version"], col)
            checked_versions += 1
        checked_tables += 1
    assert checked_tables >= 40 and checked_versions >= 60, (checked_tables,
                                                            checked_versions)


def test_merge_update_delete_keep_profiles(tmp_path):
    """MERGE, UPDATE and DELETE profile every row they stage, in the same pass; the
    stored profile equals what backfill computes from the files the commit added."""
    table = str(tmp_path / "t")
    write(tmp_path, table, pa.table({"id": list(range(100)),
                                     "amount": [float(i) for i in range(100)],
                                     "status": ["a", "b"] * 50}))
    statements = [
        f"UPDATE delta.`{table}` SET amount = amount * 10 WHERE id < 10",
        f"DELETE FROM delta.`{table}` WHERE id >= 90",
        f"MERGE INTO delta.`{table}` t USING (SELECT CASE WHEN id < 3 THEN id ELSE id + "
        f"200 END AS id, CAST(id AS DOUBLE) AS amount, 'c' AS status FROM delta.`{table}` "
        f"WHERE id < 5) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET * "
        f"WHEN NOT MATCHED THEN INSERT *",
    ]
    for sql in statements:
        res = run_cli("sql", sql)
        assert res.returncode == EXIT_OK, res.describe()
    kept = json.loads(run_cli("profile", table, "--show", "--format", "json").stdout)
    assert [(p["version"], p["operation"]) for p in kept] == [
        (0, "WRITE"), (1, "UPDATE"), (2, "DELETE"), (3, "MERGE")]
    # backfill the same commits in a copy without its profiles: the same statistics
    copy = str(tmp_path / "copy")
    shutil.copytree(table, copy)
    shutil.rmtree(os.path.join(copy, "_deltaguard"))
    assert run_cli("profile", copy).returncode == EXIT_OK
    again = json.loads(run_cli("profile", copy, "--show", "--format", "json").stdout)
    exact = ("rows", "nulls", "min", "max", "mean")
    for ours, backfilled in zip(kept, again):
        assert ours["rows"] == backfilled["rows"] and ours["version"] == backfilled["version"]
        for column, stats in ours["columns"].items():
            other = backfilled["columns"][column]
            assert {k: stats.get(k) for k in exact} == {k: other.get(k) for k in exact}, (
                ours["version"], column)
