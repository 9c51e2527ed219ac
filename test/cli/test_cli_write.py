"""`deltaguard create` / `deltaguard write`: enforcement, evolution, modes and inputs.
Every written table is read back by deltalake (delta-rs) and must hold exactly the rows
written; every refused write must leave the table exactly as it was."""

import datetime as dt
import decimal
import json
import os

import pyarrow as pa
import pytest
from deltalake import DeltaTable

from cli_helpers import EXIT_REFUSED, EXIT_USAGE, assert_error, assert_scan_matches, run_cli
from write_helpers import (commit_actions, data_files, dg_rows, dg_schema, dg_write,
                           log_versions, write_csv, write_ipc, write_ndjson, write_parquet)

D = decimal.Decimal
UTC = dt.timezone.utc


def orders(ids, amounts=None, extra=None):
    cols = {"order_id": pa.array(ids, pa.int64()),
            "amount": pa.array(amounts or [D("1.50")] * len(ids), pa.decimal128(18, 2))}
    if extra:
        cols.update(extra)
    return pa.table(cols)


@pytest.fixture
def table(tmp_path):
    path = str(tmp_path / "orders")
    res = run_cli("create", path, "--schema",
                  "order_id BIGINT NOT NULL, amount DECIMAL(18,2), note STRING")
    assert res.returncode == 0, res.describe()
    return path


def snapshot_state(path):
    """Everything a refused write must leave untouched."""
    return (log_versions(path), data_files(path), dg_rows(path))


# --- create ------------------------------------------------------------------------------

def test_create_from_ddl_minimal_protocol(table):
    info = dg_schema(table)
    assert info["version"] == 0
    fields = info["schema"]["fields"]
    assert [f["name"] for f in fields] == ["order_id", "amount", "note"]
    assert fields[0]["nullable"] is False and fields[1]["type"] == "decimal(18,2)"
    assert info["protocol"]["minReaderVersion"] == 1
    assert info["protocol"]["minWriterVersion"] == 2
    assert DeltaTable(table).version() == 0
    assert DeltaTable(table).to_pyarrow_table().num_rows == 0


def test_create_twice_fails_and_if_not_exists_skips(table):
    res = run_cli("create", table, "--schema", "a INT")
    assert_error(res, EXIT_REFUSED, names=[table], contains=["already exists"])
    res = run_cli("create", table, "--schema", "a INT", "--if-not-exists")
    assert res.returncode == 0 and "skipped" in res.stdout
    assert log_versions(table) == [0]


def test_create_from_json_schema_partitions_and_properties(tmp_path):
    path = str(tmp_path / "t")
    schema = {"type": "struct", "fields": [
        {"name": "id", "type": "long", "nullable": True, "metadata": {}},
        {"name": "country", "type": "string", "nullable": True, "metadata": {}}]}
    res = run_cli("create", path, "--schema", json.dumps(schema), "--partition-by",
                  "COUNTRY", "--property", "delta.appendOnly=true", "--property",
                  "owner=team-a")
    assert res.returncode == 0, res.describe()
    info = dg_schema(path)
    assert info["partition_columns"] == ["country"]
    assert info["properties"]["delta.appendOnly"] == "true"
    assert info["properties"]["owner"] == "team-a"
    assert info["protocol"]["minWriterVersion"] == 2


def test_create_with_timestamp_ntz_needs_table_features(tmp_path):
    path = str(tmp_path / "t")
    assert run_cli("create", path, "--schema", "ts TIMESTAMP_NTZ").returncode == 0
    p = dg_schema(path)["protocol"]
    assert (p["minReaderVersion"], p["minWriterVersion"]) == (3, 7)
    assert "timestampNtz" in p["readerFeatures"] and "timestampNtz" in p["writerFeatures"]


def test_create_from_input_file(tmp_path):
    src = write_parquet(tmp_path / "in.parquet", orders([1, 2]))
    path = str(tmp_path / "t")
    assert run_cli("create", path, "--from-file", src).returncode == 0
    fields = dg_schema(path)["schema"]["fields"]
    assert [(f["name"], f["type"], f["nullable"]) for f in fields] == [
        ("order_id", "long", True), ("amount", "decimal(18,2)", True)]


def test_create_rejects_unknown_delta_property_and_bad_partition(tmp_path):
    path = str(tmp_path / "t")
    res = run_cli("create", path, "--schema", "a INT", "--property", "delta.appendOnlyy=true")
    assert_error(res, EXIT_USAGE, contains=["delta.appendOnlyy"])
    res = run_cli("create", path, "--schema", "a INT", "--partition-by", "b")
    assert res.returncode != 0 and "b" in res.stderr
    assert not os.path.exists(os.path.join(path, "_delta_log", "00000000000000000000.json"))


# --- append and enforcement -----------------------------------------------------------

def test_append_parquet_reads_back_in_both_engines(table, tmp_path):
    src = write_parquet(tmp_path / "a.parquet", orders([1, 2, 3], extra={
        "note": pa.array(["x", None, "z"])}))
    res = dg_write(table, src)
    assert "version 1" in res.stdout
    assert_scan_matches(table)
    rows = DeltaTable(table).to_pyarrow_table().sort_by("order_id").to_pylist()
    assert rows == [{"order_id": 1, "amount": D("1.50"), "note": "x"},
                    {"order_id": 2, "amount": D("1.50"), "note": None},
                    {"order_id": 3, "amount": D("1.50"), "note": "z"}]
    add = [a["add"] for a in commit_actions(table, 1) if "add" in a]
    stats = json.loads(add[0]["stats"])
    assert stats["numRecords"] == 3
    assert stats["minValues"]["order_id"] == 1 and stats["maxValues"]["order_id"] == 3
    assert stats["nullCount"]["note"] == 1
    info = [a["commitInfo"] for a in commit_actions(table, 1) if "commitInfo" in a][0]
    assert info["operation"] == "WRITE"
    assert info["operationParameters"]["mode"] == "Append"
    assert info["isBlindAppend"] is True
    assert info["operationMetrics"]["numOutputRows"] == "3"
    assert info["engineInfo"].startswith("deltaguard/")


def test_extra_column_fails_with_both_schemas_and_the_option(table, tmp_path):
    src = write_parquet(tmp_path / "a.parquet", orders([1], extra={
        "coupon": pa.array(["SAVE10"])}))
    before = snapshot_state(table)
    res = dg_write(table, src, ok=False)
    assert_error(res, EXIT_REFUSED, names=[table, "coupon"], multiline=True,
                 contains=["DELTA_METADATA_MISMATCH", "--merge-schema", "order_id"])
    assert snapshot_state(table) == before


def test_merge_schema_adds_column_old_rows_null(table, tmp_path):
    dg_write(table, write_parquet(tmp_path / "a.parquet", orders([1])))
    src = write_parquet(tmp_path / "b.parquet", orders([2], extra={
        "coupon": pa.array(["SAVE10"])}))
    res = dg_write(table, src, merge_schema=True)
    assert "added column coupon" in res.stdout
    fields = dg_schema(table)["schema"]["fields"]
    assert [f["name"] for f in fields] == ["order_id", "amount", "note", "coupon"]
    assert fields[3]["nullable"] is True
    rows = DeltaTable(table).to_pyarrow_table().sort_by("order_id").to_pylist()
    assert [r["coupon"] for r in rows] == [None, "SAVE10"]
    assert_scan_matches(table)


def test_session_auto_merge_setting(table, tmp_path):
    src = write_parquet(tmp_path / "b.parquet", orders([2], extra={"c": pa.array([1])}))
    dg_write(table, src, conf="spark.databricks.delta.schema.autoMerge.enabled=true")
    assert "c" in [f["name"] for f in dg_schema(table)["schema"]["fields"]]
    # --no-merge-schema overrides the session setting
    src2 = write_parquet(tmp_path / "c.parquet", orders([3], extra={"d": pa.array([1])}))
    res = dg_write(table, src2, ok=False, no_merge_schema=True,
                   conf="spark.databricks.delta.schema.autoMerge.enabled=true")
    assert res.returncode == EXIT_REFUSED


def test_missing_nullable_column_is_null_missing_not_null_fails(table, tmp_path):
    src = write_parquet(tmp_path / "a.parquet", pa.table({"order_id": pa.array([7], pa.int64())}))
    res = dg_write(table, src)
    assert "amount" in res.stdout  # reported as written NULL
    assert dg_rows(table) == [{"order_id": 7, "amount": None, "note": None}]
    before = snapshot_state(table)
    src2 = write_parquet(tmp_path / "b.parquet", pa.table({"note": ["x"]}))
    res = dg_write(table, src2, ok=False)
    assert_error(res, EXIT_REFUSED, names=["order_id"], contains=["NOT NULL"], multiline=True)
    assert snapshot_state(table) == before


def test_null_in_not_null_column_fails_and_leaves_no_files(table, tmp_path):
    src = write_parquet(tmp_path / "a.parquet", pa.table({
        "order_id": pa.array([1, None, 3], pa.int64())}))
    before = snapshot_state(table)
    res = dg_write(table, src, ok=False)
    assert_error(res, EXIT_REFUSED, names=["order_id"],
                 contains=["DELTA_NOT_NULL_CONSTRAINT_VIOLATED"], multiline=True)
    assert snapshot_state(table) == before


def test_lossless_widening_cast_and_narrowing_refused(table, tmp_path):
    src = write_parquet(tmp_path / "a.parquet", pa.table({
        "order_id": pa.array([1, 2], pa.int32()),
        "amount": pa.array([D("1.5"), D("2.25")], pa.decimal128(5, 2))}))
    dg_write(table, src)
    assert dg_schema(table)["schema"]["fields"][0]["type"] == "long"
    assert sorted(r["order_id"] for r in dg_rows(table)) == [1, 2]
    before = snapshot_state(table)
    bad = write_parquet(tmp_path / "b.parquet", pa.table({
        "order_id": pa.array([1], pa.int64()), "note": pa.array([5], pa.int64())}))
    res = dg_write(table, bad, ok=False)
    assert_error(res, EXIT_REFUSED, names=["note"], contains=["string", "long"],
                 multiline=True)
    bad2 = write_parquet(tmp_path / "c.parquet", pa.table({
        "order_id": pa.array([1], pa.int64()),
        "amount": pa.array([1.5], pa.float64())}))
    res = dg_write(table, bad2, ok=False)
    assert_error(res, EXIT_REFUSED, names=["amount"], contains=["double", "decimal(18,2)"],
                 multiline=True)
    assert snapshot_state(table) == before


def test_case_insensitive_match_keeps_table_case_duplicates_rejected(table, tmp_path):
    src = write_parquet(tmp_path / "a.parquet", pa.table({
        "ORDER_ID": pa.array([1], pa.int64()), "Note": ["n"]}))
    dg_write(table, src)
    assert [f["name"] for f in dg_schema(table)["schema"]["fields"]] == [
        "order_id", "amount", "note"]
    assert dg_rows(table) == [{"order_id": 1, "amount": None, "note": "n"}]
    dup = write_parquet(tmp_path / "b.parquet", pa.table({
        "order_id": pa.array([1], pa.int64()), "note": ["a"], "NOTE": ["b"]}))
    res = dg_write(table, dup, ok=False)
    assert_error(res, EXIT_REFUSED, names=["note"], contains=["duplicate"], multiline=True)


def test_overflow_never_becomes_null(tmp_path):
    path = str(tmp_path / "t")
    run_cli("create", path, "--schema", "v BIGINT")
    src = write_parquet(tmp_path / "a.parquet", pa.table({
        "v": pa.array([1, 2**63 + 5], pa.uint64())}))
    before = snapshot_state(path)
    res = dg_write(path, src, ok=False)
    assert res.returncode != 0 and "v" in res.stderr
    assert snapshot_state(path) == before


# --- modes ------------------------------------------------------------------------------

def test_overwrite_replaces_rows(table, tmp_path):
    dg_write(table, write_parquet(tmp_path / "a.parquet", orders([1, 2])))
    dg_write(table, write_parquet(tmp_path / "b.parquet", orders([3])), mode="overwrite")
    assert [r["order_id"] for r in dg_rows(table)] == [3]
    assert_scan_matches(table)
    info = [a["commitInfo"] for a in commit_actions(table, 2) if "commitInfo" in a][0]
    assert info["operationParameters"]["mode"] == "Overwrite"
    removes = [a for a in commit_actions(table, 2) if "remove" in a]
    assert len(removes) == 1 and removes[0]["remove"]["dataChange"] is True


def test_overwrite_schema_replaces_schema_only_in_overwrite_mode(table, tmp_path):
    dg_write(table, write_parquet(tmp_path / "a.parquet", orders([1])))
    new = write_parquet(tmp_path / "b.parquet", pa.table({"id": ["a", "b"], "v": [1.0, 2.0]}))
    res = dg_write(table, new, ok=False, overwrite_schema=True)
    assert_error(res, EXIT_USAGE, contains=["overwrite"])
    dg_write(table, new, overwrite_schema=True, mode="overwrite")
    fields = dg_schema(table)["schema"]["fields"]
    assert [(f["name"], f["type"]) for f in fields] == [("id", "string"), ("v", "double")]
    assert_scan_matches(table)


def test_error_and_ignore_modes(table, tmp_path):
    src = write_parquet(tmp_path / "a.parquet", orders([1]))
    res = dg_write(table, src, ok=False, mode="error")
    assert_error(res, EXIT_REFUSED, names=[table], contains=["already exists"])
    res = dg_write(table, src, mode="ignore")
    assert "skipped" in res.stdout
    assert log_versions(table) == [0]
    fresh = str(tmp_path / "fresh")
    dg_write(fresh, src, mode="error")
    assert log_versions(fresh) == [0]


def test_write_creates_partitioned_table_with_null_partition(tmp_path):
    path = str(tmp_path / "p")
    src = write_parquet(tmp_path / "a.parquet", pa.table({
        "id": [1, 2, 3, 4], "country": ["US", "DE", None, "US"],
        "day": pa.array([dt.date(2024, 1, 1)] * 4)}))
    dg_write(path, src, partition_by="country,day")
    dirs = sorted(os.path.relpath(os.path.dirname(f), path) for f in data_files(path))
    assert "country=US/day=2024-01-01" in dirs
    assert "country=__HIVE_DEFAULT_PARTITION__/day=2024-01-01" in dirs
    assert_scan_matches(path)
    rows = DeltaTable(path).to_pyarrow_table().sort_by("id").to_pylist()
    assert [r["country"] for r in rows] == ["US", "DE", None, "US"]
    # appending with a different partitioning is refused
    res = dg_write(path, src, ok=False, partition_by="id")
    assert_error(res, EXIT_REFUSED, contains=["partition"], multiline=True)


def test_replace_where_on_partition(tmp_path):
    path = str(tmp_path / "p")
    src = write_parquet(tmp_path / "a.parquet", pa.table({
        "id": [1, 2, 3], "country": ["US", "DE", "FR"]}))
    dg_write(path, src, partition_by="country")
    new = write_parquet(tmp_path / "b.parquet", pa.table({"id": [10, 11], "country": ["US", "US"]}))
    dg_write(path, new, mode="overwrite", replace_where="country = 'US'")
    assert sorted(r["id"] for r in dg_rows(path)) == [2, 3, 10, 11]
    assert_scan_matches(path)
    info = [a["commitInfo"] for a in commit_actions(path, 1) if "commitInfo" in a][0]
    assert "country" in info["operationParameters"]["predicate"]
    # rows outside the predicate are refused
    before = snapshot_state(path)
    bad = write_parquet(tmp_path / "c.parquet", pa.table({"id": [12], "country": ["DE"]}))
    res = dg_write(path, bad, ok=False, mode="overwrite", replace_where="country = 'US'")
    assert_error(res, EXIT_REFUSED, contains=["DELTA_REPLACE_WHERE_MISMATCH"], multiline=True)
    res = dg_write(path, new, ok=False, mode="overwrite", replace_where="country = 'US'",
                   overwrite_schema=True)
    assert_error(res, EXIT_USAGE, contains=["replaceWhere"])
    assert snapshot_state(path) == before


# --- inputs -----------------------------------------------------------------------------

def test_csv_with_header_parsed_as_table_types(table, tmp_path):
    csv = tmp_path / "a.csv"
    csv.write_text("order_id,amount,note\n1,12.30,007\n2,,\n")
    dg_write(table, str(csv))
    rows = DeltaTable(table).to_pyarrow_table().sort_by("order_id").to_pylist()
    assert rows == [{"order_id": 1, "amount": D("12.30"), "note": "007"},
                    {"order_id": 2, "amount": None, "note": None}]
    assert_scan_matches(table)


def test_csv_bad_value_names_file_and_column(table, tmp_path):
    csv = tmp_path / "bad.csv"
    csv.write_text("order_id,amount\n1,1.00\nabc,2.00\n")
    before = snapshot_state(table)
    res = dg_write(table, str(csv), ok=False)
    assert res.returncode != 0 and "bad.csv" in res.stderr
    assert snapshot_state(table) == before


def test_headerless_csv_is_positional(table, tmp_path):
    csv = tmp_path / "a.csv"
    csv.write_text("5,3.00,hello\n")
    dg_write(table, str(csv), no_header=True)
    rows = DeltaTable(table).to_pyarrow_table().to_pylist()
    assert rows == [{"order_id": 5, "amount": D("3.00"), "note": "hello"}]


def test_ndjson_and_ipc_and_many_files(table, tmp_path):
    j = write_ndjson(tmp_path / "a.json", [{"order_id": 1, "note": "j"},
                                           {"order_id": 2, "amount": "2.50"}])
    ipc_file = write_ipc(tmp_path / "b.arrow", orders([3, 4]))
    dg_write(table, j, ipc_file)
    assert sorted(r["order_id"] for r in dg_rows(table)) == [1, 2, 3, 4]
    assert_scan_matches(table)
    assert log_versions(table) == [0, 1]


def test_second_file_schema_problem_fails_before_any_data(table, tmp_path):
    good = write_parquet(tmp_path / "a.parquet", orders([1]))
    bad = write_parquet(tmp_path / "b.parquet", orders([2], extra={"x": pa.array([1])}))
    before = snapshot_state(table)
    res = dg_write(table, good, bad, ok=False)
    assert res.returncode == EXIT_REFUSED and "b.parquet" in res.stderr
    assert snapshot_state(table) == before


def test_truncated_parquet_input_fails_cleanly(table, tmp_path):
    src = write_parquet(tmp_path / "a.parquet", orders(list(range(1000))))
    data = open(src, "rb").read()
    bad = tmp_path / "trunc.parquet"
    bad.write_bytes(data[: len(data) // 2])
    before = snapshot_state(table)
    res = dg_write(table, str(bad), ok=False)
    assert res.returncode in (2, 3) and "trunc.parquet" in res.stderr
    assert snapshot_state(table) == before


# --- commits ----------------------------------------------------------------------------

def test_idempotent_txn_skips_replayed_batch(table, tmp_path):
    src = write_parquet(tmp_path / "a.parquet", orders([1]))
    dg_write(table, src, txn_app_id="ingest", txn_version="7")
    res = dg_write(table, src, txn_app_id="ingest", txn_version="7")
    assert "skipped" in res.stdout
    dg_write(table, src, txn_app_id="ingest", txn_version="8")
    assert len(dg_rows(table)) == 2
    txns = [a["txn"] for a in commit_actions(table, 2) if "txn" in a]
    assert txns[0]["appId"] == "ingest" and txns[0]["version"] == 8


def test_checkpoint_every_ten_commits_read_by_deltalake(table, tmp_path):
    for i in range(10):
        dg_write(table, write_parquet(tmp_path / f"{i}.parquet", orders([i])))
    log = os.path.join(table, "_delta_log")
    assert os.path.exists(os.path.join(log, "00000000000000000010.checkpoint.parquet"))
    last = json.load(open(os.path.join(log, "_last_checkpoint")))
    assert last["version"] == 10
    assert DeltaTable(table).to_pyarrow_table().num_rows == 10
    info = dg_schema(table)
    assert info["checkpoint_version"] == 10 and info["num_rows"] == 10
    assert_scan_matches(table)


def test_every_type_round_trips_through_deltalake(tmp_path):
    path = str(tmp_path / "types")
    t = pa.table({
        "b": pa.array([True, None]), "i8": pa.array([1, -128], pa.int8()),
        "i16": pa.array([2, None], pa.int16()), "i32": pa.array([3, 2**31 - 1], pa.int32()),
        "i64": pa.array([4, -2**63], pa.int64()), "f32": pa.array([1.5, None], pa.float32()),
        "f64": pa.array([2.25, float("inf")]),
        "dec": pa.array([D("1.23"), D("-99999999.99")], pa.decimal128(10, 2)),
        "s": ["héllo", ""], "bin": pa.array([b"\x00\x01", None]),
        "d": pa.array([dt.date(2024, 2, 29), dt.date(1, 1, 1)]),
        "ts": pa.array([dt.datetime(2024, 1, 1, 12, tzinfo=UTC), None],
                       pa.timestamp("us", tz="UTC")),
        "ntz": pa.array([dt.datetime(2024, 1, 1, 12, 30, 0, 123456), None], pa.timestamp("us")),
        "arr": pa.array([[1, None], None], pa.list_(pa.int32())),
        "st": pa.array([{"x": 1, "y": {"z": "a"}}, None]),
        "m": pa.array([[("k", 1)], None], pa.map_(pa.string(), pa.int64())),
    })
    dg_write(path, write_parquet(tmp_path / "a.parquet", t))
    assert_scan_matches(path)
    got = DeltaTable(path).to_pyarrow_table()
    assert got.num_rows == 2
    assert got.column("dec").to_pylist() == [D("1.23"), D("-99999999.99")]


def test_replace_where_on_data_column_rewrites_partly_matching_files(tmp_path):
    path = str(tmp_path / "t")
    first = write_parquet(tmp_path / "a.parquet", pa.table({
        "id": pa.array([1, 2, 3, 4], pa.int64()), "amount": [5.0, 50.0, 7.0, 70.0]}))
    dg_write(path, first)
    new = write_parquet(tmp_path / "b.parquet", pa.table({
        "id": pa.array([20, 40], pa.int64()), "amount": [200.0, 400.0]}))
    res = dg_write(path, new, mode="overwrite", replace_where="amount > 10", output="json")
    out = json.loads(res.stdout)
    assert out["rows"] == 2 and out["files_removed"] == 1
    assert sorted((r["id"], r["amount"]) for r in dg_rows(path)) == [
        (1, 5.0), (3, 7.0), (20, 200.0), (40, 400.0)]
    assert_scan_matches(path)
    # a NULL predicate result keeps the row (DELETE semantics) and a written row must be TRUE
    bad = write_parquet(tmp_path / "c.parquet", pa.table({
        "id": pa.array([9], pa.int64()), "amount": pa.array([None], pa.float64())}))
    res = dg_write(path, bad, ok=False, mode="overwrite", replace_where="amount > 10")
    assert_error(res, EXIT_REFUSED, contains=["DELTA_REPLACE_WHERE_MISMATCH", "amount"],
                 multiline=True)


def test_merge_schema_adds_nested_struct_field(tmp_path):
    path = str(tmp_path / "t")
    v0 = pa.table({"id": pa.array([1], pa.int64()),
                   "customer": pa.array([{"name": "a"}], pa.struct([("name", pa.string())]))})
    dg_write(path, write_parquet(tmp_path / "a.parquet", v0))
    v1 = pa.table({"id": pa.array([2], pa.int64()),
                   "customer": pa.array([{"name": "b", "tier": 3}],
                                        pa.struct([("name", pa.string()),
                                                   ("tier", pa.int32())]))})
    res = dg_write(path, write_parquet(tmp_path / "b.parquet", v1), ok=False)
    assert_error(res, EXIT_REFUSED, names=["customer.tier"], multiline=True)
    res = dg_write(path, write_parquet(tmp_path / "b.parquet", v1), merge_schema=True)
    assert "customer.tier" in res.stdout
    rows = DeltaTable(path).to_pyarrow_table().sort_by("id").to_pylist()
    assert rows == [{"id": 1, "customer": {"name": "a", "tier": None}},
                    {"id": 2, "customer": {"name": "b", "tier": 3}}]
    assert_scan_matches(path)


def test_type_widening_through_merge_schema_needs_the_property(tmp_path):
    path = str(tmp_path / "t")
    run_cli("create", path, "--schema", "id BIGINT, qty INT")
    wide = write_parquet(tmp_path / "a.parquet", pa.table({
        "id": pa.array([1], pa.int64()), "qty": pa.array([2**40], pa.int64())}))
    res = dg_write(path, wide, ok=False, merge_schema=True)
    assert_error(res, EXIT_REFUSED, names=["qty"], contains=["delta.enableTypeWidening"],
                 multiline=True)
    path2 = str(tmp_path / "t2")
    res = run_cli("create", path2, "--schema", "id BIGINT, qty INT", "--property",
                  "delta.enableTypeWidening=true")
    assert res.returncode == 0, res.describe()
    assert "typeWidening" in dg_schema(path2)["protocol"]["writerFeatures"]
    res = dg_write(path2, wide, merge_schema=True)
    assert "qty" in res.stdout
    field = dg_schema(path2)["schema"]["fields"][1]
    assert field["type"] == "long"
    assert field["metadata"]["delta.typeChanges"] == [
        {"toType": "long", "fromType": "integer"}]
    assert [r["qty"] for r in dg_rows(path2)] == [2**40]


def test_column_mapping_table_written_with_physical_names(tmp_path):
    path = str(tmp_path / "cm")
    res = run_cli("create", path, "--schema", "id BIGINT, `order date` DATE",
                  "--property", "delta.columnMapping.mode=name")
    assert res.returncode == 0, res.describe()
    info = dg_schema(path)
    assert info["column_mapping_mode"] == "name"
    assert "columnMapping" in info["protocol"]["writerFeatures"]
    src = write_parquet(tmp_path / "a.parquet", pa.table({
        "id": pa.array([1, 2], pa.int64()),
        "order date": pa.array([dt.date(2024, 1, 1), None])}))
    dg_write(path, src)
    dg_write(path, write_parquet(tmp_path / "b.parquet", pa.table({
        "id": pa.array([3], pa.int64()), "extra": ["x"]})), merge_schema=True)
    fields = dg_schema(path)["schema"]["fields"]
    ids = [f["metadata"]["delta.columnMapping.id"] for f in fields]
    assert ids == [1, 2, 3]
    assert all(f["metadata"]["delta.columnMapping.physicalName"].startswith("col-")
               for f in fields)
    assert dg_schema(path)["properties"]["delta.columnMapping.maxColumnId"] == "3"
    import pyarrow.parquet as pq
    names = pq.read_schema(data_files(path)[0]).names
    assert all(n.startswith("col-") for n in names)
    assert sorted(r["id"] for r in dg_rows(path)) == [1, 2, 3]


# --- text inputs: quotes, UTF-8, long JSON lines, escaped messages -----------------------

def test_csv_unterminated_quote_fails_naming_the_line_not_merging_rows(table, tmp_path):
    csv = tmp_path / "quote.csv"
    csv.write_bytes(b'order_id,note\n1,"abc\n2,def\n3,ghi\n')
    before = snapshot_state(table)
    res = dg_write(table, str(csv), ok=False)
    assert_error(res, EXIT_USAGE, names=["quote.csv", "line 2"], contains=["--multi-line"])
    assert snapshot_state(table) == before
    # multiLine: a quote still open at the end of the file is refused too.
    res = dg_write(table, str(csv), ok=False, multi_line=True)
    assert_error(res, EXIT_USAGE, names=["quote.csv", "line 2"], contains=["end of the file"])
    assert snapshot_state(table) == before


def test_csv_row_count_reported_equals_the_records(table, tmp_path):
    csv = tmp_path / "multi.csv"
    csv.write_bytes(b'order_id,note\n1,"two\nlines"\n2,"a ""quote"""\n3,plain\n')
    res = dg_write(table, str(csv), multi_line=True, output="json")
    records = 3
    assert json.loads(res.stdout)["rows"] == records
    rows = DeltaTable(table).to_pyarrow_table().sort_by("order_id").to_pylist()
    assert [r["note"] for r in rows] == ["two\nlines", 'a "quote"', "plain"]
    assert len(rows) == records


def test_json_invalid_utf8_is_refused_or_replaced(table, tmp_path):
    js = tmp_path / "bad.json"
    js.write_bytes(b'{"order_id": 1, "note": "ok"}\n{"order_id": 2, "note": "a\xffb"}\n')
    before = snapshot_state(table)
    res = dg_write(table, str(js), ok=False)
    assert_error(res, EXIT_USAGE, names=["bad.json", "line 2, column 27", "\\xFF"],
                 contains=["UTF-8", "--invalid-utf8 replace"])
    assert snapshot_state(table) == before
    dg_write(table, str(js), invalid_utf8="replace")
    notes = sorted(DeltaTable(table).to_pyarrow_table().column("note").to_pylist())
    assert notes == ["a\ufffdb", "ok"]


def test_json_line_longer_than_the_block_names_the_line_and_the_flag(table, tmp_path):
    js = tmp_path / "long.json"
    long_note = "x" * 5000
    js.write_text('{"order_id": 1}\n{"order_id": 2, "note": "%s"}\n' % long_note)
    res = dg_write(table, str(js), ok=False, json_block_size="1024")
    assert_error(res, EXIT_USAGE, names=["long.json", "line 2", "1024"],
                 contains=["--json-block-size"])
    assert "straddl" not in res.stderr
    dg_write(table, str(js), json_block_size="65536")
    assert DeltaTable(table).to_pyarrow_table().num_rows == 2


def test_terminal_escapes_in_input_and_file_name_never_reach_stderr(table, tmp_path):
    esc = "\x1b[31m"
    csv = tmp_path / f"evil{esc}.csv"
    csv.write_bytes(b"order_id\n" + esc.encode() + b"1" * 5000 + b"\n")
    res = dg_write(table, str(csv), ok=False)
    assert res.returncode == EXIT_USAGE, res.describe()
    assert "\x1b" not in res.stderr and "\\x1B[31m" in res.stderr, res.describe()
    assert len(res.stderr) < 1500, res.describe()
