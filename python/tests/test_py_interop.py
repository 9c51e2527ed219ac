"""Tables written from Python read identically in Spark and deltalake."""

import datetime as dt
import decimal

import pyarrow as pa
from deltalake import DeltaTable

import deltaguard as dg
from interop_helpers import canon_rows_from_arrow, diff_rows, rows_deltalake, rows_spark

DATA = pa.table({
    "id": pa.array([1, 2, 3], pa.int64()),
    "amount": pa.array([decimal.Decimal("1.50"), None, decimal.Decimal("-2.25")],
                       pa.decimal128(10, 2)),
    "country": ["NL", "DE", None],
    "ts": pa.array([dt.datetime(2024, 1, 1, 12, tzinfo=dt.timezone.utc), None,
                    dt.datetime(2024, 6, 30, tzinfo=dt.timezone.utc)],
                   pa.timestamp("us", tz="UTC")),
    "tags": pa.array([["a"], [], None], pa.list_(pa.string())),
})


def write_sample(path):
    dg.write_table(path, DATA, partition_by="country")
    dg.write_table(path, DATA.append_column("note", pa.array(["x", None, "z"])),
                   merge_schema=True)
    t = dg.Table(path)
    t.update(set={"amount": "amount * 2"}, where="id = 1")
    t.delete(where="id = 3")
    return t


def test_deltalake_reads_what_python_wrote(tmp_path):
    path = str(tmp_path / "t")
    t = write_sample(path)
    ours = canon_rows_from_arrow(dg.Table(path).to_arrow())
    assert len(ours) == 4
    problems = diff_rows(rows_deltalake(path), ours, "deltalake", "deltaguard")
    assert not problems, problems
    assert DeltaTable(path).version() == t.version


def test_spark_reads_what_python_wrote(tmp_path, spark):
    path = str(tmp_path / "t")
    write_sample(path)
    ours = canon_rows_from_arrow(dg.Table(path).to_arrow())
    problems = diff_rows(rows_spark(spark, path), ours, "spark", "deltaguard")
    assert not problems, problems
