"""End-to-end tests of the deltaguard CLI on the bundled example table examples/orders
(see examples/make_sample_table.py for its history), including error handling on
corrupted copies of it."""

import csv
import io
import json
import os
import shutil

import pytest

from cli_helpers import (EXAMPLE_TABLE, EXIT_IO, EXIT_OK, EXIT_REFUSED, EXIT_USAGE,
                         assert_error, render_schema, run_cli)

T = EXAMPLE_TABLE
DAY_MS = 24 * 3600 * 1000
V0_MS = 1709283600000  # 2024-03-01T09:00:00Z: commit timestamp of v0; v_k = v0 + k days
ALL_IDS = set(range(1, 21)) - {4}  # order 4 was deleted at v3
LATEST_COLUMNS = ["order_id", "customer", "amount", "order_ts", "tags", "shipping",
                  "country", "priority"]
LATEST_SCHEMA = ("order_id:long, customer:string, amount:decimal(10,2), order_ts:timestamp, "
                 "tags:array<string>, shipping:struct<city:string, zip:string>, "
                 "country:string, priority:integer")


@pytest.fixture
def table_copy(tmp_path):
    dst = tmp_path / "orders"
    shutil.copytree(T, dst)
    return dst


def commit_file(table, version):
    return os.path.join(table, "_delta_log", f"{version:020d}.json")


# --- describe -------------------------------------------------------------------------

def test_describe_json_latest():
    doc = run_cli("describe", T, "--format", "json").json()
    assert doc["version"] == 3
    assert doc["num_rows"] == 19
    assert doc["num_files"] == 10
    assert doc["partition_columns"] == ["country"]
    assert render_schema(doc["schema"]) == LATEST_SCHEMA
    assert doc["protocol"]["minReaderVersion"] == 1
    assert doc["protocol"]["minWriterVersion"] == 7
    assert doc["protocol"]["writerFeatures"] == ["appendOnly", "invariants", "inCommitTimestamp"]
    # In-commit timestamps, not file modification times (a git checkout resets those).
    assert doc["timestamp"] == V0_MS + 3 * DAY_MS
    assert doc["properties"] == {"delta.enableInCommitTimestamps": "true"}
    assert doc["features"] == ["appendOnly", "invariants", "inCommitTimestamp"]


def test_time_travel_ignores_file_modification_times(tmp_path):
    # A fresh clone gives every commit file the same mtime; in-commit timestamps decide.
    copy = tmp_path / "orders"
    shutil.copytree(T, copy)
    for f in (copy / "_delta_log").glob("*.json"):
        os.utime(f, (2_000_000_000, 2_000_000_000))
    doc = run_cli("describe", str(copy), "--timestamp", "2024-03-02T12:00:00Z",
                  "--format", "json").json()
    assert doc["version"] == 1
    assert doc["timestamp"] == V0_MS + DAY_MS


def test_describe_text():
    res = run_cli("describe", T)
    assert res.returncode == EXIT_OK, res.describe()
    for word in ("order_id", "shipping", "country", "priority", "19"):
        assert word in res.stdout, f"{word!r} missing from describe text\n{res.stdout}"
    assert res.stdout == run_cli("describe", T, "--format", "text").stdout


@pytest.mark.parametrize("version,rows,files,ncols", [(0, 10, 3, 7), (1, 16, 7, 7),
                                                      (2, 20, 10, 8), (3, 19, 10, 8)])
def test_describe_version(version, rows, files, ncols):
    doc = run_cli("describe", T, "--version", version, "--format", "json").json()
    assert doc["version"] == version
    assert doc["num_rows"] == rows
    assert doc["num_files"] == files
    assert len(doc["schema"]["fields"]) == ncols
    assert doc["timestamp"] == V0_MS + version * DAY_MS


@pytest.mark.parametrize("iso,version", [
    ("2024-03-01T09:00:00Z", 0),  # exactly at v0
    ("2024-03-02T12:00:00Z", 1),  # between v1 and v2
    ("2024-03-03T09:00:00Z", 2),  # exactly at v2
    ("2024-03-04T09:00:00Z", 3),  # exactly at the last commit
])
def test_describe_timestamp(iso, version):
    doc = run_cli("describe", T, "--timestamp", iso, "--format", "json").json()
    assert doc["version"] == version


def test_timestamp_before_first_commit_is_invalid_input():
    res = run_cli("describe", T, "--timestamp", "2020-01-01T00:00:00Z", "--format", "json")
    assert_error(res, EXIT_USAGE, names=["orders"])


def test_timestamp_after_last_commit_is_invalid_input():
    # Spark: DELTA_TIMESTAMP_GREATER_THAN_COMMIT, not the latest version.
    res = run_cli("describe", T, "--timestamp", "2030-01-01T00:00:00Z", "--format", "json")
    assert_error(res, EXIT_USAGE, names=["orders", "DELTA_TIMESTAMP_GREATER_THAN_COMMIT"])


# --- scan -------------------------------------------------------------------------------

def scan_jsonl(*extra, table=T):
    return run_cli("scan", table, "--format", "jsonl", *extra).jsonl()


def test_scan_jsonl_latest():
    rows = scan_jsonl()
    assert len(rows) == 19
    assert {r["order_id"] for r in rows} == ALL_IDS
    for r in rows:
        assert set(r) == set(LATEST_COLUMNS)
    by_id = {r["order_id"]: r for r in rows}
    assert by_id[3] == {
        "order_id": 3, "customer": "carol", "amount": "120.50",
        "order_ts": "2024-03-01T08:30:00.000000Z", "tags": ["express", "fragile"],
        "shipping": {"city": "Lyon", "zip": "69001"}, "country": "FR", "priority": None}
    assert by_id[19]["priority"] == 3
    assert by_id[2]["amount"] == "5.00" and by_id[2]["tags"] == []
    assert by_id[14]["tags"] is None
    assert by_id[8]["shipping"] is None
    assert by_id[7]["shipping"] == {"city": "Seattle", "zip": None}
    assert by_id[15]["country"] is None  # null partition value


def test_scan_csv():
    res = run_cli("scan", T, "--format", "csv")
    assert res.returncode == EXIT_OK, res.describe()
    records = list(csv.reader(io.StringIO(res.stdout)))
    header, body = records[0], records[1:]
    assert set(header) == set(LATEST_COLUMNS)
    assert len(body) == 19
    ids = {int(r[header.index("order_id")]) for r in body}
    assert ids == ALL_IDS
    customers = {r[header.index("customer")] for r in body}
    assert {"alice", "carol", "walter"} <= customers


def test_scan_table_format():
    res = run_cli("scan", T, "--format", "table")
    assert res.returncode == EXIT_OK, res.describe()
    for word in ("order_id", "customer", "carol", "walter", "120.50"):
        assert word in res.stdout
    assert res.stdout == run_cli("scan", T).stdout, "default format should be table"


def nested_get(row, dotted):
    """A --columns a.b result may come back as {"a": {"b": v}} or as {"a.b": v}."""
    if dotted in row:
        return row[dotted]
    cur = row
    for part in dotted.split("."):
        cur = cur[part]
    return cur


def test_scan_columns_with_nested_path():
    rows = scan_jsonl("--columns", "order_id,shipping.city")
    assert len(rows) == 19
    for r in rows:
        assert set(r) in ({"order_id", "shipping"}, {"order_id", "shipping.city"}), r
        if "shipping" in r and r["shipping"] is not None:
            assert set(r["shipping"]) == {"city"}, f"unselected struct fields returned: {r}"
    by_id = {r["order_id"]: r for r in rows}
    assert nested_get(by_id[3], "shipping.city") == "Lyon"
    assert nested_get(by_id[11], "shipping.city") == "Boston"


def test_scan_columns_order_and_partition_column():
    rows = scan_jsonl("--columns", "country,order_id")
    assert {tuple(sorted(r)) for r in rows} == {("country", "order_id")}
    assert sum(1 for r in rows if r["country"] == "US") == 7


def test_scan_limit():
    assert len(scan_jsonl("--limit", "5")) == 5
    assert len(scan_jsonl("--limit", "100")) == 19


@pytest.mark.parametrize("version,ids,columns", [
    (0, set(range(1, 11)), LATEST_COLUMNS[:-1]),
    (1, set(range(1, 17)), LATEST_COLUMNS[:-1]),
    (2, set(range(1, 21)), LATEST_COLUMNS),
])
def test_scan_time_travel(version, ids, columns):
    rows = scan_jsonl("--version", version)
    assert {r["order_id"] for r in rows} == ids
    assert len(rows) == len(ids)
    for r in rows:
        assert set(r) == set(columns)


def test_scan_timestamp_time_travel():
    rows = scan_jsonl("--timestamp", "2024-03-01T23:59:59Z")
    assert {r["order_id"] for r in rows} == set(range(1, 11))


# --- history and log ---------------------------------------------------------------------

def test_history_json():
    hist = run_cli("history", T, "--format", "json").json()
    by_version = {h["version"]: h for h in hist}
    assert sorted(by_version) == [0, 1, 2, 3]
    assert [by_version[v]["operation"] for v in range(4)] == ["WRITE", "WRITE", "WRITE",
                                                              "DELETE"]
    for v in range(4):
        assert by_version[v]["timestamp"] == V0_MS + v * DAY_MS
    assert by_version[3]["parameters"].get("predicate") == "order_id = 4"
    key = "schema_changes" if "schema_changes" in hist[0] else "schema_change"
    assert any(key in h for h in hist), f"history entries carry no schema change: {hist[0]}"
    assert by_version[2].get(key), "v2 added column `priority`"
    assert "priority" in json.dumps(by_version[2][key])
    assert not by_version[1].get(key)
    assert not by_version[3].get(key)


def test_history_text():
    res = run_cli("history", T)
    assert res.returncode == EXIT_OK, res.describe()
    assert "DELETE" in res.stdout and "WRITE" in res.stdout


def action_names(obj):
    """{"add": {...}} (Spark form) or {"action": "add", ...}."""
    names = {k for k in obj if k in ("add", "remove", "commitInfo", "metaData", "protocol")}
    for key in ("action", "type"):
        if isinstance(obj.get(key), str):
            names.add(obj[key])
    return names


def test_log_json():
    actions = run_cli("log", T, "3", "--format", "json").jsonl()
    names = [action_names(a) for a in actions]
    assert sum("add" in n for n in names) == 1
    assert sum("remove" in n for n in names) == 1
    assert sum("commitInfo" in n for n in names) == 1
    v0 = run_cli("log", T, "0", "--format", "json").jsonl()
    v0_names = set().union(*(action_names(a) for a in v0))
    assert {"protocol", "metaData", "add"} <= v0_names


def test_log_text():
    res = run_cli("log", T, "3")
    assert res.returncode == EXIT_OK, res.describe()
    assert "remove" in res.stdout and "add" in res.stdout


# --- usage and invalid input: exit 2 ------------------------------------------------------

@pytest.mark.parametrize("args", [
    [],
    ["frobnicate", T],
    ["describe"],
    ["describe", T, "--bogus"],
    ["describe", T, "--format", "yaml"],
    ["describe", T, "--version", "abc"],
    ["describe", T, "--version", "1", "--timestamp", "2024-03-02T12:00:00Z"],
    ["describe", T, "--timestamp", "yesterday-ish"],
    ["scan", T, "--limit", "-3"],
    ["scan", T, "--format", "xml"],
    ["log", T],
    ["log", T, "three"],
])
def test_usage_errors(args):
    res = run_cli(*args)
    assert res.returncode == EXIT_USAGE, res.describe()
    assert res.stderr.strip(), "usage error without a message"


def test_help_succeeds():
    res = run_cli("--help")
    assert res.returncode == EXIT_OK, res.describe()
    out = res.stdout + res.stderr
    for cmd in ("describe", "scan", "history", "log"):
        assert cmd in out


def test_missing_path(tmp_path):
    missing = tmp_path / "no_such_table"
    for cmd in (["describe", missing], ["scan", missing], ["history", missing],
                ["log", missing, "0"]):
        assert_error(run_cli(*cmd), EXIT_USAGE, names=["no_such_table"])


def test_not_a_delta_table(tmp_path):
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "data.csv").write_text("a,b\n1,2\n")
    assert_error(run_cli("describe", tmp_path / "plain"), EXIT_USAGE, names=["plain"])


def test_empty_delta_log_is_not_a_table(tmp_path):
    (tmp_path / "empty" / "_delta_log").mkdir(parents=True)
    assert_error(run_cli("describe", tmp_path / "empty"), EXIT_USAGE, names=["empty"])


def test_unknown_column():
    res = run_cli("scan", T, "--columns", "order_id,no_such_col", "--format", "jsonl")
    assert_error(res, EXIT_USAGE, names=["no_such_col"])
    res = run_cli("scan", T, "--columns", "shipping.nope", "--format", "jsonl")
    assert_error(res, EXIT_USAGE, names=["nope"])


def test_column_added_later_is_unknown_at_old_version():
    res = run_cli("scan", T, "--version", "0", "--columns", "priority")
    assert_error(res, EXIT_USAGE, names=["priority"])


@pytest.mark.parametrize("cmd", [["describe", T, "--version", "4"],
                                 ["describe", T, "--version", "99"],
                                 ["scan", T, "--version", "99"],
                                 ["log", T, "99"]])
def test_version_out_of_range(cmd):
    assert_error(run_cli(*cmd), EXIT_USAGE, names=["orders"])


# --- corrupt tables: exit 3 naming the file -------------------------------------------------

def test_truncated_commit(table_copy):
    path = commit_file(table_copy, 2)
    with open(path, encoding="utf-8") as f:
        content = f.read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(content[: len(content) // 2])  # cut in the middle of a JSON line
    for cmd in (["describe", table_copy], ["scan", table_copy]):
        assert_error(run_cli(*cmd), EXIT_IO, names=[os.path.basename(path)])
    # Versions before the damage still load.
    doc = run_cli("describe", table_copy, "--version", "1", "--format", "json").json()
    assert doc["num_rows"] == 16


def test_garbled_commit(table_copy):
    path = commit_file(table_copy, 1)
    with open(path, "w", encoding="utf-8") as f:
        f.write('{"add": {"path": 42, "size": "big"}}\n{not json at all\n')
    assert_error(run_cli("describe", table_copy), EXIT_IO, names=[os.path.basename(path)])


def test_missing_commit_is_a_gap(table_copy):
    os.remove(commit_file(table_copy, 1))
    res = run_cli("describe", table_copy)
    assert_error(res, EXIT_IO, names=["orders"])


def test_corrupt_data_file(table_copy):
    doc = run_cli("describe", table_copy, "--format", "json").json()
    assert doc["num_rows"] == 19
    victim = None
    for root, _, files in os.walk(table_copy / "country=FR"):
        for name in sorted(files):
            if name.endswith(".parquet"):
                victim = os.path.join(root, name)
                break
    with open(victim, "r+b") as f:
        f.truncate(os.path.getsize(victim) // 2)
    res = run_cli("scan", table_copy, "--format", "jsonl")
    assert_error(res, EXIT_IO, names=[os.path.basename(victim)])
    # The log is intact: describe still works without reading data.
    assert run_cli("describe", table_copy, "--format", "json").returncode == EXIT_OK


def test_missing_data_file(table_copy):
    victim = None
    for root, _, files in os.walk(table_copy / "country=DE"):
        for name in sorted(files):
            victim = os.path.join(root, name)
    os.remove(victim)
    res = run_cli("scan", table_copy, "--format", "jsonl")
    assert_error(res, EXIT_IO, names=[os.path.basename(victim)])


# --- unsupported features: exit 1 naming the feature ---------------------------------------

def rewrite_protocol(table, protocol):
    path = commit_file(table, 0)
    with open(path, encoding="utf-8") as f:
        lines = [json.loads(l) for l in f if l.strip()]
    for a in lines:
        if "protocol" in a:
            a["protocol"] = protocol
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(json.dumps(a, separators=(",", ":")) for a in lines) + "\n")


def test_unknown_reader_feature_is_refused(table_copy):
    rewrite_protocol(table_copy, {"minReaderVersion": 3, "minWriterVersion": 7,
                                  "readerFeatures": ["quantumEntanglement"],
                                  "writerFeatures": ["quantumEntanglement"]})
    for cmd in (["describe", table_copy], ["scan", table_copy]):
        assert_error(run_cli(*cmd), EXIT_REFUSED, names=["quantumEntanglement"])


def test_future_reader_version_is_refused(table_copy):
    rewrite_protocol(table_copy, {"minReaderVersion": 4, "minWriterVersion": 7,
                                  "readerFeatures": [], "writerFeatures": []})
    assert_error(run_cli("describe", table_copy), EXIT_REFUSED, names=["orders"])


def test_unknown_writer_feature_does_not_block_reads(table_copy):
    rewrite_protocol(table_copy, {"minReaderVersion": 1, "minWriterVersion": 7,
                                  "writerFeatures": ["someFutureWriterOnlyThing"]})
    doc = run_cli("describe", table_copy, "--format", "json").json()
    assert doc["num_rows"] == 19
    assert len(scan_jsonl(table=table_copy)) == 19
