"""Writes from Python: the CLI's enforcement, evolution only when asked, quarantine,
idempotent txn writes, every Arrow producer accepted, and nothing committed on error."""

import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from deltalake import DeltaTable

import deltaguard as dg
from cli_helpers import run_cli
from write_helpers import data_files


def log_files(path):
    return sorted(os.listdir(os.path.join(path, "_delta_log")))


ORDERS = pa.table({
    "order_id": pa.array([1, 2, 3], pa.int64()),
    "amount": pa.array([10.5, 20.0, 7.25]),
    "country": ["NL", "DE", "NL"],
})


def test_append_creates_then_appends(tmp_path):
    path = str(tmp_path / "t")
    r = dg.write_table(path, ORDERS)
    assert r["version"] == 0 and r["created"] and r["rows"] == 3
    r = dg.write_table(path, ORDERS)
    assert r["version"] == 1 and not r["created"]
    assert dg.Table(path).to_arrow().num_rows == 6
    assert DeltaTable(path).to_pyarrow_table().num_rows == 6


def test_new_column_is_refused_then_merged(tmp_path):
    path = str(tmp_path / "t")
    dg.write_table(path, ORDERS)
    before = (log_files(path), data_files(path))
    drop = ORDERS.append_column("coupon", pa.array(["A", None, "B"]))
    with pytest.raises(dg.SchemaMismatchError) as e:
        dg.write_table(path, drop)
    assert e.value.exit_code == 1
    assert "coupon" in str(e.value) and "merge_schema=True" in str(e.value)
    assert e.value.table_schema == dg.Table(path).schema
    assert e.value.input_schema == dg.Schema.from_arrow(drop.schema)
    # the changes as `drift` classifies them, the same as the message lists and as
    # Table.drift reports before any write is tried
    assert [(c.change_class, c.path, c.after, c.risk) for c in e.value.changes] == [
        ("COLUMN_ADDED_NULLABLE", "coupon", "string", "low")]
    assert isinstance(e.value.changes[0], dg.DriftChange)
    assert "COLUMN_ADDED_NULLABLE coupon: (none) -> string (risk low)" in str(e.value)
    predicted = dg.Table(path).drift(drop).changes
    assert [(c.change_class, c.path) for c in predicted] == [
        (c.change_class, c.path) for c in e.value.changes]
    assert "merge_schema=True" in e.value.hint
    assert (log_files(path), data_files(path)) == before  # nothing committed or left
    r = dg.write_table(path, drop, merge_schema=True)
    assert r["added_columns"] == ["coupon"]
    assert dg.Table(path).schema.names == ["order_id", "amount", "country", "coupon"]


def test_schema_error_matches_the_cli_message(tmp_path):
    path = str(tmp_path / "t")
    dg.write_table(path, ORDERS)
    drop = ORDERS.append_column("coupon", pa.array(["A", None, "B"]))
    pq.write_table(drop, tmp_path / "drop.parquet")
    cli = run_cli("write", path, str(tmp_path / "drop.parquet"))
    with pytest.raises(dg.SchemaMismatchError) as e:
        dg.write_table(path, drop)
    assert cli.returncode == e.value.exit_code
    # The side-by-side comparison is the same; only the input's name and the option's
    # spelling differ (a file vs "Python data", --merge-schema vs merge_schema=True).
    ours = [l for l in str(e.value).splitlines() if l.startswith(("  ", "~ ", "+ ", "- "))]
    theirs = [l for l in cli.stderr.splitlines() if l.startswith(("  ", "~ ", "+ ", "- "))]
    assert ours and ours == theirs


def test_overwrite_schema_replaces_the_schema(tmp_path):
    path = str(tmp_path / "t")
    dg.write_table(path, ORDERS)
    new = pa.table({"id": ["x"]})
    with pytest.raises(dg.SchemaMismatchError):
        dg.write_table(path, new, mode="overwrite")
    dg.write_table(path, new, mode="overwrite", overwrite_schema=True)
    t = dg.Table(path)
    assert t.schema.names == ["id"] and t.to_arrow().num_rows == 1


def test_replace_where_and_partitions(tmp_path):
    path = str(tmp_path / "t")
    dg.write_table(path, ORDERS, partition_by="country")
    assert dg.Table(path).partition_columns == ["country"]
    nl = pa.table({"order_id": pa.array([9], pa.int64()), "amount": [1.0], "country": ["NL"]})
    dg.write_table(path, nl, mode="overwrite", replace_where="country = 'NL'")
    rows = sorted(dg.Table(path).to_arrow().to_pylist(), key=lambda r: r["order_id"])
    assert [r["order_id"] for r in rows] == [2, 9]
    bad = pa.table({"order_id": pa.array([5], pa.int64()), "amount": [1.0], "country": ["DE"]})
    with pytest.raises(dg.ConstraintViolationError):
        dg.write_table(path, bad, mode="overwrite", replace_where="country = 'NL'")


def test_error_and_ignore_modes(tmp_path):
    path = str(tmp_path / "t")
    dg.write_table(path, ORDERS, mode="error")
    with pytest.raises(dg.TableAlreadyExistsError):
        dg.write_table(path, ORDERS, mode="error")
    r = dg.write_table(path, ORDERS, mode="ignore")
    assert r["skipped"] and dg.Table(path).version == 0
    with pytest.raises(ValueError):
        dg.write_table(path, ORDERS, mode="upsert")


def test_txn_makes_a_write_idempotent(tmp_path):
    path = str(tmp_path / "t")
    assert dg.write_table(path, ORDERS, txn=("nightly", 7))["version"] == 0
    r = dg.write_table(path, ORDERS, txn=("nightly", 7))
    assert r["skipped"] and dg.Table(path).to_arrow().num_rows == 3


def test_not_null_violation_fails_and_commits_nothing(tmp_path):
    path = str(tmp_path / "t")
    dg.create_table(path, "order_id BIGINT NOT NULL, amount DOUBLE, country STRING")
    bad = pa.table({"order_id": pa.array([1, None], pa.int64()), "amount": [1.0, 2.0],
                    "country": ["NL", "DE"]})
    with pytest.raises(dg.ConstraintViolationError) as e:
        dg.write_table(path, bad)
    assert "order_id" in str(e.value)
    assert (e.value.constraint, e.value.column, e.value.expression) == (
        "NOT NULL", "order_id", "order_id IS NOT NULL")
    assert (e.value.violating_rows, e.value.first_row, e.value.sample_rows) == (1, 2, [])
    assert dg.Table(path).version == 0 and data_files(path) == []


def test_check_violation_names_the_constraint_and_sample_rows(tmp_path):
    path = str(tmp_path / "t")
    dg.create_table(path, "order_id BIGINT, amount DOUBLE")
    dg.Table(path).alter.add_constraint("positive", "amount > 0")
    bad = pa.table({"order_id": pa.array([1, 2, 3], pa.int64()),
                    "amount": [1.0, -2.0, -3.0]})
    with pytest.raises(dg.ConstraintViolationError) as e:
        dg.write_table(path, bad)
    err = e.value
    assert (err.constraint, err.expression, err.violating_rows) == (
        "positive", "amount > 0", 2)
    assert len(err.sample_rows) == 2 and all(s in str(err) for s in err.sample_rows)
    assert "-2" in err.sample_rows[0] and "-3" in err.sample_rows[1]
    assert err.column is None and err.first_row is None
    # a CHAR/VARCHAR length names its column
    short = str(tmp_path / "s")
    dg.create_table(short, "code VARCHAR(2)")
    with pytest.raises(dg.ConstraintViolationError) as e:
        dg.write_table(short, pa.table({"code": ["ok", "long"]}))
    assert (e.value.constraint, e.value.column, e.value.violating_rows) == (
        "__CHAR_VARCHAR_STRING_LENGTH_CHECK__", "code", 1)
    assert e.value.sample_rows and "long" in e.value.sample_rows[0]


def test_quarantine_routes_violating_rows(tmp_path):
    path, q = str(tmp_path / "t"), str(tmp_path / "q")
    dg.create_table(path, "order_id BIGINT NOT NULL, amount DOUBLE, country STRING")
    dg.Table(path).alter.add_constraint("positive", "amount > 0")
    bad = pa.table({"order_id": pa.array([1, None, 3], pa.int64()),
                    "amount": [1.0, 2.0, -3.0], "country": ["NL", "DE", "BE"]})
    r = dg.write_table(path, bad, on_violation=dg.Quarantine(q))
    assert r["good_rows"] == 1 and r["quarantine"]["rows"] == 2
    assert dict(r["quarantine"]["by_constraint"]) == {"NOT NULL column order_id": 1,
                                                       "CHECK constraint positive": 1}
    assert dg.Table(path).to_arrow().column("order_id").to_pylist() == [1]
    assert dg.Table(q).to_arrow().num_rows == 2


def test_every_arrow_producer_is_accepted(tmp_path):
    import duckdb
    import pandas as pd
    import polars as pl

    producers = {
        "table": ORDERS,
        "reader": pa.RecordBatchReader.from_batches(ORDERS.schema, ORDERS.to_batches()),
        "batch": ORDERS.to_batches()[0],
        "dict": ORDERS.to_pydict(),
        "pandas": ORDERS.to_pandas(),
        "polars": pl.from_arrow(ORDERS),
        "duckdb": duckdb.sql("SELECT order_id, amount, country FROM ORDERS"),
    }
    for name, data in producers.items():
        path = str(tmp_path / name)
        r = dg.write_table(path, data)
        assert r["rows"] == 3, name
        got = sorted(dg.Table(path).to_arrow().to_pylist(), key=lambda x: x["order_id"])
        assert got == ORDERS.to_pylist(), name
    assert isinstance(producers["pandas"], pd.DataFrame)


def test_duckdb_result_written_with_enforcement(tmp_path):
    import duckdb

    path = str(tmp_path / "t")
    dg.create_table(path, "order_id BIGINT NOT NULL, amount DOUBLE")
    rel = duckdb.sql("SELECT * FROM (VALUES (1::BIGINT, 2.5::DOUBLE), (NULL, 1.0::DOUBLE))"
                     " v(order_id, amount)")
    with pytest.raises(dg.ConstraintViolationError):
        dg.write_table(path, rel)
    ok = duckdb.sql("SELECT 1::BIGINT AS order_id, 2.5::DOUBLE AS amount")
    dg.write_table(path, ok)
    assert dg.Table(path).to_arrow().to_pylist() == [{"order_id": 1, "amount": 2.5}]


def test_bad_input_is_a_clear_error(tmp_path):
    with pytest.raises(dg.InvalidInputError, match="cannot read object as Arrow data"):
        dg.write_table(str(tmp_path / "t"), object())
    assert not os.path.exists(tmp_path / "t" / "_delta_log")
    with pytest.raises(dg.InvalidInputError):
        dg.write_table(str(tmp_path / "t"), ORDERS, conf={"no.such.setting": "1"})


def test_lossy_cast_is_refused(tmp_path):
    path = str(tmp_path / "t")
    dg.create_table(path, "x INT")
    with pytest.raises(dg.SchemaMismatchError):
        dg.write_table(path, pa.table({"x": pa.array([1.5])}))
    dg.write_table(path, pa.table({"x": pa.array([1], pa.int16())}))  # widening is fine
    assert dg.Table(path).to_arrow().column("x").type == pa.int32()
