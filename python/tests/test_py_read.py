"""Reading tables from Python: metadata, time travel, Arrow out through every consumer,
and the same answers as the CLI."""

import datetime as dt
import json
import shutil

import pyarrow as pa
import pyarrow.dataset as pads
import pytest
from deltalake import DeltaTable

import deltaguard as dg
from cli_helpers import EXAMPLE_TABLE, run_cli


@pytest.fixture()
def orders(tmp_path):
    path = tmp_path / "orders"
    shutil.copytree(EXAMPLE_TABLE, path)
    return str(path)


def sort_rows(table):
    return sorted(table.to_pylist(), key=lambda r: json.dumps(r, sort_keys=True, default=str))


def test_table_metadata_matches_describe_json_of_the_cli(orders):
    t = dg.Table(orders)
    cli = run_cli("describe", orders, "--format", "json").json()
    assert t.describe() == cli
    assert t.version == cli["version"]
    assert t.partition_columns == cli["partition_columns"]
    assert t.properties == cli["properties"]
    assert json.loads(t.schema.to_json()) == cli["schema"]


def test_history_matches_the_cli(orders):
    t = dg.Table(orders)
    assert t.history() == run_cli("history", orders, "--format", "json").json()
    assert [h["version"] for h in t.history()] == list(range(t.version + 1))


def test_rows_match_deltalake(orders):
    t = dg.Table(orders)
    ours = t.to_arrow()
    theirs = DeltaTable(orders).to_pyarrow_table()
    assert ours.num_rows == theirs.num_rows > 0
    assert sort_rows(ours.select(theirs.column_names)) == sort_rows(theirs)


def test_columns_filter_and_limit(orders):
    t = dg.Table(orders)
    full = t.to_arrow()
    assert t.to_arrow(columns=[full.column_names[0]]).column_names == [full.column_names[0]]
    assert t.to_arrow(limit=1).num_rows == 1
    col = full.column_names[0]
    values = sorted(v for v in full.column(col).to_pylist() if v is not None)
    pivot = values[len(values) // 2]
    filtered = t.to_arrow(filter=f"`{col}` > {pivot!r}")
    assert filtered.num_rows == sum(1 for v in values if v > pivot)
    cli = run_cli("sql", f"SELECT count(*) AS n FROM delta.`{orders}` WHERE `{col}` > {pivot!r}",
                  "--format", "jsonl")
    assert json.loads(cli.stdout.splitlines()[0])["n"] == filtered.num_rows


def test_filter_is_one_expression_over_nested_columns(tmp_path):
    path = str(tmp_path / "n")
    data = pa.table({"id": pa.array([1, 2, 3], pa.int64()),
                     "address": [{"city": "Oslo"}, {"city": "Lima"}, {"city": "Oslo"}]})
    dg.write_table(path, data)
    t = dg.Table(path)
    got = t.to_arrow(columns=["id", "address.city"], filter="address.city = 'Oslo'")
    assert got.column_names == ["id", "address.city"]
    assert got.column("id").to_pylist() == [1, 3]
    assert got.column_names == t.to_arrow(columns=["id", "address.city"]).column_names
    # Only an expression is accepted: text that would end the query is a parse error,
    # and nothing else runs.
    for bad in ["id = 1; DROP TABLE x", "id = 1 UNION SELECT 1", "id = 1 LIMIT 1"]:
        with pytest.raises(dg.ParseError):
            t.to_arrow(filter=bad)
    assert t.refresh().version == 0


def test_time_travel_by_version_and_timestamp(tmp_path):
    path = str(tmp_path / "tt")
    dg.write_table(path, pa.table({"x": [1]}))
    dg.write_table(path, pa.table({"x": [2]}))
    assert dg.Table(path, version=0).to_arrow().column("x").to_pylist() == [1]
    assert sorted(dg.Table(path).to_arrow().column("x").to_pylist()) == [1, 2]
    first = dg.Table(path, version=0)
    ts = first.timestamp
    assert dg.Table(path, timestamp=ts).version == 0
    assert dg.Table(path, timestamp=int(ts.timestamp() * 1000)).version == 0
    assert dg.Table(path, timestamp=ts.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]).version == 0
    with pytest.raises(dg.NotFoundError):
        dg.Table(path, version=7)
    with pytest.raises(dg.InvalidInputError, match="cannot parse timestamp"):
        dg.Table(path, timestamp="yesterday")
    with pytest.raises(ValueError):
        dg.Table(path, version=0, timestamp=ts)


def test_arrow_consumers_read_the_table_zero_copy(orders):
    t = dg.Table(orders)
    expected = t.to_arrow()
    assert pa.table(t).num_rows == expected.num_rows
    assert pa.RecordBatchReader.from_stream(t).read_all().equals(expected)
    import polars as pl

    assert pl.from_arrow(pa.table(t)).height == expected.num_rows
    assert t.to_polars().height == expected.num_rows
    assert len(t.to_pandas()) == expected.num_rows
    import duckdb

    tbl = t  # noqa: F841 - DuckDB finds the variable by name (a replacement scan)
    n = duckdb.sql("SELECT count(*) FROM tbl").fetchall()[0][0]
    assert n == expected.num_rows


def test_not_a_table_raises_not_found(tmp_path):
    with pytest.raises(dg.NotFoundError) as e:
        dg.Table(str(tmp_path))
    assert "not a Delta table" in str(e.value)
    assert e.value.exit_code == 2
    cli = run_cli("describe", str(tmp_path))
    assert cli.returncode == e.value.exit_code
    assert str(e.value) in cli.stderr


def test_for_name_resolves_in_the_warehouse(tmp_path):
    wh = str(tmp_path / "wh")
    dg.sql("CREATE DATABASE silver; CREATE TABLE silver.orders (id BIGINT) USING delta;"
           " INSERT INTO silver.orders VALUES (1), (2)", warehouse=wh)
    t = dg.Table.for_name("silver.orders", warehouse=wh)
    assert sorted(t.to_arrow().column("id").to_pylist()) == [1, 2]
    with pytest.raises(dg.NotFoundError):
        dg.Table.for_name("silver.missing", warehouse=wh)


def test_scan_matches_pyarrow_dataset_over_the_same_files(tmp_path):
    path = str(tmp_path / "plain")
    data = pa.table({"a": list(range(1000)), "b": [str(i) for i in range(1000)]})
    dg.write_table(path, data)
    files = [f for f in (tmp_path / "plain").iterdir() if f.suffix == ".parquet"]
    ds = pads.dataset([str(f) for f in files], format="parquet").to_table()
    assert sort_rows(dg.Table(path).to_arrow()) == sort_rows(ds)


def test_timestamp_property_is_utc(tmp_path):
    path = str(tmp_path / "t")
    dg.write_table(path, pa.table({"x": [1]}))
    ts = dg.Table(path).timestamp
    assert ts.tzinfo == dt.timezone.utc
    assert abs((dt.datetime.now(dt.timezone.utc) - ts).total_seconds()) < 600
