"""Interop of deltaguard's WRITE side with Apache Spark + Delta Lake (delta-spark 4.4 on
Spark 4.2) and deltalake (delta-rs):

1. deltaguard writes tables (`create` / `write`), and Spark and deltalake must read each
   one with exactly the schema and rows deltaguard reads (assert_same_table: Spark's read
   is the reference), at the latest version and at older versions (time travel).
2. Spark and deltalake write tables and deltaguard appends to them; afterwards all three
   engines read identical results (and Spark keeps writing on top of our commits).
3. deltaguard and Spark append to the same table at the same time: every row lands
   exactly once, versions are contiguous and every version reads.

One Spark session serves the whole run (fixture `spark`, spark_session.py)."""

import concurrent.futures
import datetime as dt
import decimal
import functools
import glob
import json
import os
import shutil
import threading
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from deltalake import DeltaTable, write_deltalake

from cli_helpers import EXIT_REFUSED, run_cli
from interop_helpers import assert_same_table, rows_deltaguard, rows_spark, schema_spark
from write_helpers import (commit_actions, data_files, dg_write, log_versions, write_csv,
                           write_ndjson, write_parquet)

D = decimal.Decimal
UTC = dt.timezone.utc
NAN = "NaN"

COLMAP_DELTALAKE = ("deltalake 1.6.6 returns every column as NULL on a column-mapped "
                    "table")


# --- helpers ------------------------------------------------------------------------------

@pytest.fixture(autouse=True)
def small_snapshot_partitions(spark):
    """Spark rebuilds its snapshot state with 50 shuffle partitions by default, i.e. ~9 s
    per append after another engine's commit on this 2-core machine; 2 makes it ~1.5 s.
    Restored after each test (the session is shared)."""
    key = "spark.databricks.delta.snapshotPartitions"
    old = spark.conf.get(key, None)
    spark.conf.set(key, "2")
    yield
    if old is None:
        spark.conf.unset(key)
    else:
        spark.conf.set(key, old)


class Inputs:
    """Numbered input files in one scratch folder."""

    def __init__(self, tmp_path):
        self.dir = tmp_path / "inputs"
        self.dir.mkdir(exist_ok=True)
        self.n = 0

    def _next(self, ext):
        self.n += 1
        return self.dir / f"in{self.n:04d}.{ext}"

    def parquet(self, table):
        return write_parquet(self._next("parquet"), table)

    def csv(self, table):
        return write_csv(self._next("csv"), table)

    def ndjson(self, rows):
        return write_ndjson(self._next("json"), rows)


def dg_create(path, schema, *, partition_by=None, properties=()):
    args = ["create", path, "--schema", schema]
    if partition_by:
        args += ["--partition-by", ",".join(partition_by)]
    for p in properties:
        args += ["--property", p]
    res = run_cli(*args)
    assert res.returncode == 0, res.describe()
    return res


def all_commits(path):
    """{version: [action, ...]} of every JSON commit."""
    return {v: commit_actions(path, v) for v in log_versions(path)}


def metadata_of(path):
    """The latest metaData action in the JSON log (with its schema parsed)."""
    meta = None
    for actions in all_commits(path).values():
        for a in actions:
            if "metaData" in a:
                meta = a["metaData"]
    assert meta is not None, f"{path}: no metaData in the JSON log"
    return meta


def table_state(path, files=True):
    """Everything a refused write must leave untouched. Spark may leave an orphan data
    file behind a failed task (not part of the table), so `files=False` for Spark."""
    return (log_versions(path), data_files(path) if files else None,
            rows_deltaguard(path))


def spark_sql(spark, statement):
    return spark.sql(statement)


def spark_insert(spark, path, values):
    spark_sql(spark, f"INSERT INTO delta.`{path}` VALUES {values}")


def by_id(rows, key="id"):
    return sorted(rows, key=lambda r: (r[key] is None, r[key]))


# --- 1. deltaguard writes, Spark and deltalake read ---------------------------------------

def primitive_batch(which):
    """Two batches covering every primitive type with nulls and edge values."""
    if which == 0:
        return pa.table({
            "id": pa.array([1, 2, 3], pa.int64()),
            "b": pa.array([True, False, None]),
            "i8": pa.array([-128, 127, None], pa.int8()),
            "i16": pa.array([-32768, 32767, None], pa.int16()),
            "i32": pa.array([-2**31, 2**31 - 1, None], pa.int32()),
            "i64": pa.array([-2**63, 2**63 - 1, None], pa.int64()),
            "f32": pa.array([0.1, float("nan"), None], pa.float32()),
            "f64": pa.array([1e-300, float("inf"), None], pa.float64()),
            "dec": pa.array([D("-99999999.99"), D("0.00"), None], pa.decimal128(10, 2)),
            "dec38": pa.array([D("99999999999999999999999999999999.999999"),
                               D("-0.000001"), None], pa.decimal128(38, 6)),
            "s": pa.array(["plain", "quotes \" and \\ backslash, tab\t, ünïcødé 🦆",
                           None]),
            "bin": pa.array([b"\x00\xff\x10", b"", None], pa.binary()),
            "d": pa.array([dt.date(1970, 1, 1), dt.date(1, 1, 1), None], pa.date32()),
            "ts": pa.array([dt.datetime(2024, 1, 1, 12, 0, 0, 123456, tzinfo=UTC),
                            dt.datetime(1900, 1, 1, 0, 0, 0, 1, tzinfo=UTC), None],
                           pa.timestamp("us", tz="UTC")),
            "ntz": pa.array([dt.datetime(2024, 1, 1, 12, 0, 0, 1),
                             dt.datetime(2262, 4, 11, 23, 47, 16), None],
                            pa.timestamp("us")),
        })
    return pa.table({
        "id": pa.array([4, 5], pa.int64()),
        "b": pa.array([None, False]),
        "i8": pa.array([0, None], pa.int8()),
        "i16": pa.array([0, None], pa.int16()),
        "i32": pa.array([0, None], pa.int32()),
        "i64": pa.array([0, None], pa.int64()),
        "f32": pa.array([float("-inf"), -0.0], pa.float32()),
        "f64": pa.array([float("nan"), -1.5e308], pa.float64()),
        "dec": pa.array([D("99999999.99"), None], pa.decimal128(10, 2)),
        "dec38": pa.array([None, D("-99999999999999999999999999999999.999999")],
                          pa.decimal128(38, 6)),
        "s": pa.array(["", "x" * 10000]),
        "bin": pa.array([None, b"\xde\xad\xbe\xef"], pa.binary()),
        "d": pa.array([dt.date(9999, 12, 31), dt.date(1582, 10, 4)], pa.date32()),
        "ts": pa.array([dt.datetime(2262, 4, 11, 23, 47, 16, tzinfo=UTC),
                        dt.datetime(1970, 1, 1, 0, 0, 0, 1, tzinfo=UTC)],
                       pa.timestamp("us", tz="UTC")),
        "ntz": pa.array([None, dt.datetime(1677, 9, 22, 0, 12, 44)], pa.timestamp("us")),
    })


PRIMITIVE_TYPES = ["long", "boolean", "byte", "short", "integer", "long", "float", "double",
                   "decimal(10,2)", "decimal(38,6)", "string", "binary", "date",
                   "timestamp", "timestamp_ntz"]


def test_every_primitive_type(spark, tmp_path):
    inputs = Inputs(tmp_path)
    path = str(tmp_path / "primitives")
    dg_write(path, inputs.parquet(primitive_batch(0)))
    dg_write(path, inputs.parquet(primitive_batch(1)))
    assert [t for _, t, _ in schema_spark(spark, path)] == PRIMITIVE_TYPES
    rows = assert_same_table(path, spark)
    assert len(rows) == 5
    assert_same_table(path, spark, version=0)
    rows = by_id(rows)
    # Spot-check the edge values survived the round trip through Spark.
    assert rows[0]["i64"] == -2**63 and rows[1]["i64"] == 2**63 - 1
    assert rows[1]["f32"] == NAN and rows[3]["f64"] == NAN
    assert rows[0]["dec38"] == D("99999999999999999999999999999999.999999")
    assert rows[1]["s"].endswith("🦆") and rows[3]["s"] == "" and rows[1]["bin"] == b""
    assert rows[1]["d"] == dt.date(1, 1, 1) and rows[3]["d"] == dt.date(9999, 12, 31)
    assert rows[1]["ts"] == dt.datetime(1900, 1, 1, 0, 0, 0, 1, tzinfo=UTC)
    assert rows[4]["ntz"] == dt.datetime(1677, 9, 22, 0, 12, 44)
    assert all(v is None for k, v in rows[2].items() if k != "id")


def test_extreme_timestamps(spark, tmp_path):
    """Year 1 and 9999 timestamps (deltaguard writes INT64 micros, so unlike Spark's
    INT96 files, deltalake reads them too)."""
    inputs = Inputs(tmp_path)
    path = str(tmp_path / "extreme_ts")
    dg_write(path, inputs.parquet(pa.table({
        "id": pa.array([1, 2], pa.int32()),
        "ts": pa.array([dt.datetime(1, 1, 1, tzinfo=UTC),
                        dt.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)],
                       pa.timestamp("us", tz="UTC")),
        "ntz": pa.array([dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
                         dt.datetime(1, 1, 1)], pa.timestamp("us"))})))
    rows = assert_same_table(path, spark)
    assert by_id(rows)[1]["ts"] == dt.datetime(9999, 12, 31, 23, 59, 59, 999999,
                                               tzinfo=UTC)


SKIPPING_COLUMNS = ("b", "i8", "i16", "i32", "i64", "f32", "f64", "dec", "dec38", "s", "d",
                    "ts", "ntz")
# Equality on one-row files tests both min <= v and max >= v; these are the columns whose
# stats are risky (extremes, 38 digits, truncated strings, millisecond timestamps).
EQUALITY_COLUMNS = ("i64", "dec", "dec38", "s", "d", "ts", "ntz")


def spark_literal(value, spark_type):
    """A Spark Column literal of `spark_type` for a canonical value."""
    from pyspark.sql import functions as F
    if isinstance(value, str) and spark_type != "string":  # "NaN"
        return F.lit(value).cast(spark_type)
    if isinstance(value, dt.datetime):
        text = value.astimezone(UTC).replace(tzinfo=None).isoformat() + "Z" \
            if value.tzinfo else value.isoformat()
        return F.lit(text).cast(spark_type)
    if isinstance(value, (dt.date, D, float)):
        return F.lit(str(value) if not isinstance(value, float) else repr(value)) \
            .cast(spark_type)
    return F.lit(value).cast(spark_type)


def test_spark_data_skipping_on_our_stats(spark, tmp_path):
    """Spark prunes files with deltaguard's min/max/nullCount stats: every equality and
    IS NULL filter on one-row files must count exactly what a scan without data
    skipping counts (stats that are too narrow, e.g. a truncated string or
    timestamp max, would make Spark skip a matching file)."""
    from pyspark.sql import functions as F
    inputs = Inputs(tmp_path)
    path = str(tmp_path / "skipping")
    batches = [primitive_batch(0), primitive_batch(1)]
    for batch in batches:
        for i in range(batch.num_rows):
            dg_write(path, inputs.parquet(batch.slice(i, 1)))
    assert len(data_files(path)) == 5
    types = dict((n, t) for n, t, _ in schema_spark(spark, path))
    rows = rows_spark(spark, path)
    predicates = []
    for col in SKIPPING_COLUMNS:
        predicates.append((f"{col} IS NULL", F.col(col).isNull()))
        if col not in EQUALITY_COLUMNS:
            continue
        for value in sorted({repr(r[col]): r[col] for r in rows
                             if r[col] is not None}.items()):
            lit = spark_literal(value[1], types[col])
            predicates.append((f"{col} = {value[0]}", F.col(col) == lit))
    df = spark.read.format("delta").load(path)
    # Skipping really prunes with our stats (else this test would prove nothing).
    assert len(df.where("id = 2").inputFiles()) == 1, df.where("id = 2").inputFiles()
    # Ground truth in one pass that reads every row (no filter, so no skipping).
    truth = df.select([F.sum(F.when(c, 1).otherwise(0)).alias(f"p{i}")
                       for i, (_, c) in enumerate(predicates)]).collect()[0]
    # Each filter as its own scan (Delta prunes files per scan), all in one Spark job.
    branches = [spark.read.format("delta").load(path).where(cond)
                .agg(F.count(F.lit(1)).alias("n")).withColumn("i", F.lit(i))
                for i, (_, cond) in enumerate(predicates)]
    counts = {r.i: r.n for r in functools.reduce(lambda a, b: a.unionAll(b), branches)
              .collect()}
    wrong = []
    for i, (text, cond) in enumerate(predicates):
        expected = truth[f"p{i}"]
        got = counts[i]
        if got != expected:
            wrong.append(f"{text[:120]}: Spark counts {got} with skipping, {expected} "
                         "without")
    assert not wrong, f"{len(wrong)} filters lose rows:\n" + "\n".join(wrong)
    assert truth["p0"] == 2  # b IS NULL: ids 3 and 4
    assert sum(truth[f"p{i}"] for i in range(len(predicates))) > len(predicates)


def nested_batch():
    st_t = pa.struct([("x", pa.int64()),
                      ("inner", pa.struct([("y", pa.string()), ("z", pa.float64())]))])
    kv_t = pa.struct([("k", pa.string()), ("v", pa.int32())])
    return pa.table({
        "id": pa.array([1, 2, 3], pa.int32()),
        "st": pa.array([{"x": 1, "inner": {"y": "why", "z": 2.5}},
                        {"x": None, "inner": None}, None], st_t),
        "arr": pa.array([[1, None, 3], [], None], pa.list_(pa.int32())),
        "arr2": pa.array([[["a"], [], None, ["b", None]], [], None],
                         pa.list_(pa.list_(pa.string()))),
        "arr_st": pa.array([[{"k": "one", "v": 1}, None, {"k": None, "v": None}], [], None],
                           pa.list_(kv_t)),
        "m": pa.array([[("a", 1), ("b", None)], [], None],
                      pa.map_(pa.string(), pa.int64())),
        "m_st": pa.array([[(1, {"a": "x", "b": [dt.date(2024, 2, 29), None]}), (-2, None)],
                          None, []],
                         pa.map_(pa.int32(), pa.struct([("a", pa.string()),
                                                        ("b", pa.list_(pa.date32()))]))),
        "m_arr": pa.array([[("k", [D("1.5"), None, D("-9999.9")])], [("empty", [])], None],
                          pa.map_(pa.string(), pa.list_(pa.decimal128(5, 1)))),
    })


def test_nested_struct_array_map(spark, tmp_path):
    inputs = Inputs(tmp_path)
    path = str(tmp_path / "nested")
    dg_write(path, inputs.parquet(nested_batch()))
    assert [t for _, t, _ in schema_spark(spark, path)] == [
        "integer", "struct<x:long, inner:struct<y:string, z:double>>", "array<integer>",
        "array<array<string>>", "array<struct<k:string, v:integer>>", "map<string,long>",
        "map<integer,struct<a:string, b:array<date>>>", "map<string,array<decimal(5,1)>>"]
    rows = by_id(assert_same_table(path, spark))
    assert len(rows) == 3
    assert rows[0]["arr_st"] == [{"k": "one", "v": 1}, None, {"k": None, "v": None}]
    assert rows[0]["m"] == {"a": 1, "b": None}


def test_partitioned_by_several_types_with_nulls_and_special_chars(spark, tmp_path):
    inputs = Inputs(tmp_path)
    path = str(tmp_path / "partitioned")
    parts = ["p_str", "p_int", "p_date", "p_bool", "p_dec", "p_ts", "p_long"]
    batch = pa.table({
        "v": pa.array(range(1, 10), pa.int64()),
        "p_str": pa.array(["a", "a", None, "a/b", "x=y", "with space", "ünï 🦆", "",
                           "%pct:colon#?"]),
        "p_int": pa.array([1, 1, None, -7, 0, 2**31 - 1, 5, 6, 7], pa.int32()),
        "p_date": pa.array([dt.date(2024, 1, 1)] * 2 + [None, dt.date(1969, 12, 31),
                                                        dt.date(2024, 2, 29), None,
                                                        dt.date(1, 1, 1),
                                                        dt.date(9999, 12, 31),
                                                        dt.date(2000, 1, 1)], pa.date32()),
        "p_bool": pa.array([True, True, None, False, None, False, True, True, False]),
        "p_dec": pa.array([D("1.50"), D("1.50"), None, D("0.01"), D("0.00"), None,
                           D("12345.67"), D("2.00"), D("3.00")], pa.decimal128(7, 2)),
        "p_ts": pa.array([dt.datetime(2024, 1, 1, 10, tzinfo=UTC)] * 2 +
                         [None, dt.datetime(1970, 1, 1, 0, 0, 0, 1, tzinfo=UTC), None,
                          dt.datetime(2024, 6, 30, 23, 59, 59, tzinfo=UTC),
                          dt.datetime(2024, 6, 30, 23, 59, 59, 500000, tzinfo=UTC),
                          dt.datetime(2000, 1, 1, tzinfo=UTC),
                          dt.datetime(2000, 1, 1, tzinfo=UTC)],
                         pa.timestamp("us", tz="UTC")),
        "p_long": pa.array([1, 1, None, -2**63, 2**63 - 1, 0, 3, 4, 5], pa.int64()),
    })
    dg_write(path, inputs.parquet(batch), partition_by=",".join(parts))
    adds = [a["add"] for acts in all_commits(path).values() for a in acts if "add" in a]
    assert any(a["partitionValues"]["p_str"] is None for a in adds), adds
    # The partition columns are not stored in the data files.
    assert len(adds) == 8, adds
    info = run_cli("describe", path, "--format", "json").json()
    assert info["partition_columns"] == parts
    spark_parts = list(
        spark.sql(f"DESCRIBE DETAIL delta.`{path}`").collect()[0]["partitionColumns"])
    assert spark_parts == parts
    rows = assert_same_table(path, spark)
    assert len(rows) == 9
    got = {r["v"]: r["p_str"] for r in rows}
    # An empty string partition value reads as null in Delta (Spark writes it so).
    assert got[8] is None, got
    assert got[1] == "a" and got[4] == "a/b" and got[5] == "x=y" and got[6] == "with space"
    assert got[7] == "ünï 🦆" and got[9] == "%pct:colon#?" and got[3] is None
    # Partition pruning in Spark with the special values.
    for value, ids in (("a/b", [4]), ("x=y", [5]), ("with space", [6]), ("ünï 🦆", [7])):
        found = [r.v for r in spark.read.format("delta").load(path)
                 .where(f"p_str = '{value}'").collect()]
        assert found == ids, (value, found)
    assert [r.v for r in spark.read.format("delta").load(path)
            .where("p_int IS NULL").collect()] == [3]


def test_not_null_columns(spark, tmp_path):
    inputs = Inputs(tmp_path)
    path = str(tmp_path / "not_null")
    dg_create(path, "id BIGINT NOT NULL, name STRING, "
              "st STRUCT<a: INT NOT NULL, b: STRING>")
    st_t = pa.struct([pa.field("a", pa.int32(), nullable=False), ("b", pa.string())])
    dg_write(path, inputs.parquet(pa.table({
        "id": pa.array([1, 2], pa.int64()), "name": pa.array(["one", None]),
        "st": pa.array([{"a": 1, "b": "x"}, {"a": 2, "b": None}], st_t)})))
    assert schema_spark(spark, path) == [
        ("id", "long", False), ("name", "string", True),
        ("st", "struct<a:integer NOT NULL, b:string>", True)]
    assert_same_table(path, spark)
    before = table_state(path, files=False)
    with pytest.raises(Exception) as err:
        spark_insert(spark, path, "(null, 'three', named_struct('a', 3, 'b', null))")
    assert "NOT_NULL_CONSTRAINT_VIOLATED" in str(err.value), str(err.value)[:2000]
    assert table_state(path, files=False) == before
    before = table_state(path)
    # deltaguard refuses it too.
    res = dg_write(path, inputs.parquet(pa.table({
        "id": pa.array([None], pa.int64()), "name": pa.array(["x"])})), ok=False)
    assert res.returncode == EXIT_REFUSED, res.describe()
    assert "id" in res.stderr and "NOT NULL" in res.stderr, res.describe()
    assert table_state(path) == before
    # A NULL parent struct with a NOT NULL field: Spark Delta 4.4 refuses it (delta-io/
    # delta#860, still open), and deltaguard agrees rather than writing rows Spark's
    # own writer would never produce.
    with pytest.raises(Exception) as err:
        spark_insert(spark, path, "(3, 'three', null)")
    assert "NOT_NULL_CONSTRAINT_VIOLATED" in str(err.value), str(err.value)[:2000]
    before = table_state(path)
    res = dg_write(path, inputs.parquet(pa.table({
        "id": pa.array([3], pa.int64()), "st": pa.array([None], st_t)})), ok=False)
    assert res.returncode == EXIT_REFUSED and "st.a" in res.stderr, res.describe()
    assert table_state(path) == before
    # Spark can still append a valid row on top of deltaguard's table.
    spark_insert(spark, path, "(3, 'three', named_struct('a', 3, 'b', null))")
    assert len(assert_same_table(path, spark)) == 3


def test_merge_schema_evolution_and_time_travel(spark, tmp_path):
    inputs = Inputs(tmp_path)
    path = str(tmp_path / "evolution")
    st1 = pa.struct([("x", pa.int32())])
    st2 = pa.struct([("x", pa.int32()), ("y", pa.string())])
    dg_write(path, inputs.parquet(pa.table({
        "id": pa.array([1], pa.int64()), "st": pa.array([{"x": 1}], st1)})))
    # v1: new top-level column.
    dg_write(path, inputs.parquet(pa.table({
        "id": pa.array([2], pa.int64()), "st": pa.array([{"x": 2}], st1),
        "added": pa.array([2.5], pa.float64())})), merge_schema=True)
    # v2: new nested struct field.
    dg_write(path, inputs.parquet(pa.table({
        "id": pa.array([3], pa.int64()), "st": pa.array([{"x": 3, "y": "new"}], st2)})),
        merge_schema=True)
    # v3: new array-of-struct column and a new map column in one go.
    dg_write(path, inputs.parquet(pa.table({
        "id": pa.array([4], pa.int64()),
        "st": pa.array([{"x": 4, "y": None}], st2),
        "added": pa.array([None], pa.float64()),
        "tags": pa.array([[{"k": "a", "v": 1}]],
                         pa.list_(pa.struct([("k", pa.string()), ("v", pa.int64())]))),
        "m": pa.array([[("k", "v")]], pa.map_(pa.string(), pa.string()))})),
        merge_schema=True)
    # v4: a plain append with the old (narrow) schema: missing columns are NULL.
    dg_write(path, inputs.parquet(pa.table({"id": pa.array([5], pa.int64())})))
    expected_schemas = {
        0: [("id", "long", True), ("st", "struct<x:integer>", True)],
        1: [("id", "long", True), ("st", "struct<x:integer>", True),
            ("added", "double", True)],
        2: [("id", "long", True), ("st", "struct<x:integer, y:string>", True),
            ("added", "double", True)],
        3: [("id", "long", True), ("st", "struct<x:integer, y:string>", True),
            ("added", "double", True), ("tags", "array<struct<k:string, v:long>>", True),
            ("m", "map<string,string>", True)],
    }
    expected_schemas[4] = expected_schemas[3]
    assert log_versions(path) == [0, 1, 2, 3, 4]
    history = spark.sql(f"DESCRIBE HISTORY delta.`{path}`").collect()
    assert sorted(h.version for h in history) == [0, 1, 2, 3, 4], history
    for version, schema in expected_schemas.items():
        assert schema_spark(spark, path, version) == schema, version
        rows = assert_same_table(path, spark, version=version)
        assert sorted(r["id"] for r in rows) == list(range(1, version + 2)), version
    rows = by_id(rows_spark(spark, path))
    assert rows[0]["st"] == {"x": 1, "y": None} and rows[0]["added"] is None
    assert rows[2]["st"] == {"x": 3, "y": "new"}
    assert rows[4] == {"id": 5, "st": None, "added": None, "tags": None, "m": None}
    # Spark appends with the evolved schema on top of deltaguard's evolution.
    spark.sql("SELECT 6L AS id, named_struct('x', 6, 'y', 'spark') AS st").write.format(
        "delta").mode("append").save(path)
    assert len(assert_same_table(path, spark)) == 6


def test_overwrite_and_overwrite_schema(spark, tmp_path):
    inputs = Inputs(tmp_path)
    path = str(tmp_path / "overwrite")
    dg_write(path, inputs.parquet(pa.table({"id": pa.array([1, 2], pa.int64()),
                                            "v": pa.array(["a", "b"])})))
    dg_write(path, inputs.parquet(pa.table({"id": pa.array([3], pa.int64()),
                                            "v": pa.array(["c"])})), mode="overwrite")
    assert sorted(r["id"] for r in assert_same_table(path, spark)) == [3]
    # overwriteSchema: different types and columns.
    dg_write(path, inputs.parquet(pa.table({"key": pa.array(["k1", "k2"]),
                                            "amount": pa.array([D("1.25"), None],
                                                               pa.decimal128(12, 2))})),
             mode="overwrite", overwrite_schema=True)
    assert schema_spark(spark, path) == [("key", "string", True),
                                         ("amount", "decimal(12,2)", True)]
    assert sorted(r["key"] for r in assert_same_table(path, spark)) == ["k1", "k2"]
    # Older versions keep their own schema and rows.
    assert sorted(r["id"] for r in assert_same_table(path, spark, version=0)) == [1, 2]
    assert sorted(r["id"] for r in assert_same_table(path, spark, version=1)) == [3]
    assert schema_spark(spark, path, 1) == [("id", "long", True), ("v", "string", True)]


def test_replace_where_on_partition_column(spark, tmp_path):
    inputs = Inputs(tmp_path)
    path = str(tmp_path / "replace_where")
    dg_write(path, inputs.parquet(pa.table({
        "id": pa.array([1, 2, 3, 4], pa.int64()),
        "country": pa.array(["US", "US", "DE", "FR"]),
        "amount": pa.array([1.0, 2.0, 3.0, 4.0])})), partition_by="country")
    dg_write(path, inputs.parquet(pa.table({
        "id": pa.array([10, 11], pa.int64()), "country": pa.array(["US", "US"]),
        "amount": pa.array([10.0, 11.0])})), mode="overwrite",
        replace_where="country = 'US'")
    rows = assert_same_table(path, spark)
    assert sorted((r["id"], r["country"]) for r in rows) == [
        (3, "DE"), (4, "FR"), (10, "US"), (11, "US")]
    removes = [a["remove"] for a in commit_actions(path, 1) if "remove" in a]
    assert removes and all(r["partitionValues"]["country"] == "US" for r in removes)
    rows = assert_same_table(path, spark, version=0)
    assert sorted(r["id"] for r in rows) == [1, 2, 3, 4]
    # Spark's own replaceWhere on top of ours.
    spark.sql("SELECT 20L AS id, 'DE' AS country, 20.0D AS amount").write.format(
        "delta").mode("overwrite").option("replaceWhere", "country = 'DE'").save(path)
    assert sorted(r["id"] for r in assert_same_table(path, spark)) == [4, 10, 11, 20]


def test_table_properties_and_column_mapping_name(spark, tmp_path):
    inputs = Inputs(tmp_path)
    path = str(tmp_path / "colmap")
    dg_create(path, "id BIGINT NOT NULL, name STRING, st STRUCT<a: INT, b: STRING>",
              properties=["delta.columnMapping.mode=name", "delta.appendOnly=false",
                          "delta.checkpointInterval=5", "team.owner=team-a"])
    meta = metadata_of(path)
    fields = json.loads(meta["schemaString"])["fields"]
    physical = [f["metadata"].get("delta.columnMapping.physicalName") for f in fields]
    assert all(physical), fields
    st = pa.struct([("a", pa.int32()), ("b", pa.string())])
    dg_write(path, inputs.parquet(pa.table({
        "id": pa.array([1, 2], pa.int64()), "name": pa.array(["one", None]),
        "st": pa.array([{"a": 1, "b": "x"}, None], st)})))
    # Evolution on a column-mapped table: new column gets a fresh id and physical name.
    dg_write(path, inputs.parquet(pa.table({
        "id": pa.array([3], pa.int64()), "name": pa.array(["three"]),
        "st": pa.array([{"a": 3, "b": "z"}], st),
        "extra": pa.array([D("3.30")], pa.decimal128(5, 2))})), merge_schema=True)
    props = spark.sql(f"DESCRIBE DETAIL delta.`{path}`").collect()[0]["properties"]
    assert props["delta.columnMapping.mode"] == "name", props
    assert props["team.owner"] == "team-a" and props["delta.checkpointInterval"] == "5"
    assert int(props["delta.columnMapping.maxColumnId"]) >= 5, props
    assert schema_spark(spark, path) == [
        ("id", "long", False), ("name", "string", True),
        ("st", "struct<a:integer, b:string>", True), ("extra", "decimal(5,2)", True)]
    rows = by_id(assert_same_table(path, spark, deltalake_known_issue=COLMAP_DELTALAKE))
    assert rows[2] == {"id": 3, "name": "three", "st": {"a": 3, "b": "z"},
                       "extra": D("3.30")}
    assert_same_table(path, spark, version=1, deltalake_known_issue=COLMAP_DELTALAKE)
    # The data files store the physical names (so a rename in Spark is metadata-only).
    fields = json.loads(metadata_of(path)["schemaString"])["fields"]
    physical = [f["metadata"]["delta.columnMapping.physicalName"] for f in fields]
    for f in data_files(path):
        names = pq.read_schema(f).names
        assert names == physical[:len(names)] and "name" not in names, (f, names)
    spark_sql(spark, f"ALTER TABLE delta.`{path}` RENAME COLUMN name TO full_name")
    rows = by_id(assert_same_table(path, spark, deltalake_known_issue=COLMAP_DELTALAKE))
    assert [r["full_name"] for r in rows] == ["one", None, "three"]
    # ...and deltaguard keeps writing to the renamed table by its logical name.
    dg_write(path, inputs.parquet(pa.table({
        "id": pa.array([4], pa.int64()), "full_name": pa.array(["four"])})))
    rows = by_id(assert_same_table(path, spark, deltalake_known_issue=COLMAP_DELTALAKE))
    assert [r["full_name"] for r in rows] == ["one", None, "three", "four"]


def test_checkpoint_after_more_than_ten_commits(spark, tmp_path):
    inputs = Inputs(tmp_path)
    path = str(tmp_path / "checkpointed")
    dg_create(path, "id BIGINT, v STRING, p STRING", partition_by=["p"])
    for i in range(1, 9):
        dg_write(path, inputs.parquet(pa.table({
            "id": pa.array([i], pa.int64()), "v": pa.array([f"v{i}"]),
            "p": pa.array([f"p{i % 3}"])})))
    # v9: replace one partition (removes), v10: evolve the schema, v11..13: appends.
    dg_write(path, inputs.parquet(pa.table({
        "id": pa.array([100], pa.int64()), "v": pa.array(["replaced"]),
        "p": pa.array(["p0"])})), mode="overwrite", replace_where="p = 'p0'")
    dg_write(path, inputs.parquet(pa.table({
        "id": pa.array([10], pa.int64()), "v": pa.array(["v10"]), "p": pa.array(["p1"]),
        "n": pa.array([10], pa.int32())})), merge_schema=True)
    for i in range(11, 14):
        dg_write(path, inputs.parquet(pa.table({
            "id": pa.array([i], pa.int64()), "v": pa.array([f"v{i}"]),
            "p": pa.array([f"p{i % 3}"]), "n": pa.array([i], pa.int32())})))
    log = os.path.join(path, "_delta_log")
    assert log_versions(path) == list(range(14))
    assert os.path.exists(os.path.join(log, "00000000000000000010.checkpoint.parquet")), \
        sorted(os.listdir(log))
    with open(os.path.join(log, "_last_checkpoint")) as f:
        assert json.load(f)["version"] == 10
    expected_latest = sorted([1, 2, 4, 5, 7, 8, 100, 10, 11, 12, 13])
    assert sorted(r["id"] for r in assert_same_table(path, spark)) == expected_latest
    for version in (5, 10):
        assert_same_table(path, spark, version=version)
    # Prove the checkpoint alone is right: a copy whose commits 0..9 are gone (as after
    # Spark's log cleanup, which keeps the checkpoint version's own commit) must read the
    # same at versions 10..13 in every engine.
    clean = str(tmp_path / "cleaned")
    shutil.copytree(path, clean)
    for v in range(10):
        os.remove(os.path.join(clean, "_delta_log", f"{v:020d}.json"))
    for version in (None, 10, 12):
        assert rows_spark(spark, clean, version) == rows_spark(spark, path, version), \
            version
        assert_same_table(clean, spark, version=version)
    assert schema_spark(spark, clean, 10) == [("id", "long", True), ("v", "string", True),
                                              ("p", "string", True),
                                              ("n", "integer", True)]
    # Spark keeps committing on top of our checkpoint (and writes its own at 20).
    for i in range(14, 21):
        spark_insert(spark, path, f"({i}, 'spark{i}', 'p{i % 3}', {i})")
    assert os.path.exists(os.path.join(log, "00000000000000000020.checkpoint.parquet"))
    assert len(assert_same_table(path, spark)) == len(expected_latest) + 7


def test_csv_and_ndjson_inputs(spark, tmp_path):
    inputs = Inputs(tmp_path)
    path = str(tmp_path / "text_inputs")
    dg_create(path, "id BIGINT NOT NULL, name STRING, amount DECIMAL(10,2), d DATE, "
              "ts TIMESTAMP, ok BOOLEAN, score DOUBLE")
    csv = inputs.csv(pa.table({
        "id": pa.array([1, 2], pa.int64()), "name": pa.array(["comma, quoted \"x\"", None]),
        "amount": pa.array([D("12.30"), None], pa.decimal128(10, 2)),
        "d": pa.array([dt.date(2024, 2, 29), None], pa.date32()),
        "ts": pa.array([dt.datetime(2024, 1, 1, 12, 30, tzinfo=UTC), None],
                       pa.timestamp("us", tz="UTC")),
        "ok": pa.array([True, None]), "score": pa.array([1.5, None])}))
    dg_write(path, csv, format="csv")
    js = inputs.ndjson([
        {"id": 3, "name": "ünï 🦆", "amount": "-0.50", "d": "1970-01-01",
         "ts": "2024-06-30T23:59:59.123456Z", "ok": False, "score": -2.25},
        {"id": 4, "name": None},
        {"id": 5, "score": 1e300}])
    dg_write(path, js, format="json")
    rows = by_id(assert_same_table(path, spark))
    assert [r["id"] for r in rows] == [1, 2, 3, 4, 5]
    assert rows[0]["name"] == "comma, quoted \"x\"" and rows[0]["amount"] == D("12.30")
    assert rows[0]["ts"] == dt.datetime(2024, 1, 1, 12, 30, tzinfo=UTC)
    assert rows[2]["amount"] == D("-0.50") and rows[2]["d"] == dt.date(1970, 1, 1)
    assert rows[2]["ts"] == dt.datetime(2024, 6, 30, 23, 59, 59, 123456, tzinfo=UTC)
    assert rows[4]["score"] == 1e300


# --- 2. Spark / deltalake write, deltaguard appends ---------------------------------------

def test_append_to_spark_table_with_and_without_merge_schema(spark, tmp_path):
    inputs = Inputs(tmp_path)
    path = str(tmp_path / "spark_table")
    spark_sql(spark, f"CREATE TABLE delta.`{path}` (id bigint, s string, "
                     "st struct<x: int>, d decimal(10,2)) USING delta")
    spark_insert(spark, path, "(1, 'spark', named_struct('x', 1), 1.10BD), "
                              "(2, null, null, null)")
    base = pa.table({"id": pa.array([3], pa.int64()), "s": pa.array(["dg"]),
                     "st": pa.array([{"x": 3}], pa.struct([("x", pa.int32())])),
                     "d": pa.array([D("3.30")], pa.decimal128(10, 2))})
    dg_write(path, inputs.parquet(base))
    # Lossless widening of the input (int -> bigint, decimal(5,2) -> decimal(10,2)).
    dg_write(path, inputs.parquet(pa.table({
        "id": pa.array([4], pa.int32()), "d": pa.array([D("4.40")], pa.decimal128(5, 2))})))
    assert len(assert_same_table(path, spark)) == 4
    # A new column without --merge-schema: refused, table unchanged.
    before = table_state(path)
    res = dg_write(path, inputs.parquet(base.append_column(
        "new_col", pa.array([1.5]))), ok=False)
    assert res.returncode == EXIT_REFUSED, res.describe()
    assert "new_col" in res.stderr, res.describe()
    assert table_state(path) == before
    # ...and accepted with it, including a new nested field.
    dg_write(path, inputs.parquet(pa.table({
        "id": pa.array([5], pa.int64()),
        "st": pa.array([{"x": 5, "y": "nested"}],
                       pa.struct([("x", pa.int32()), ("y", pa.string())])),
        "new_col": pa.array([5.5])})), merge_schema=True)
    assert schema_spark(spark, path) == [
        ("id", "long", True), ("s", "string", True), ("st", "struct<x:integer, y:string>",
                                                       True), ("d", "decimal(10,2)", True),
        ("new_col", "double", True)]
    # Spark appends on top of deltaguard's commits.
    spark_insert(spark, path, "(6, 'spark again', named_struct('x', 6, 'y', 'y6'), "
                              "6.60BD, 6.5D)")
    rows = by_id(assert_same_table(path, spark))
    assert [r["id"] for r in rows] == [1, 2, 3, 4, 5, 6]
    assert rows[3]["d"] == D("4.40") and rows[4]["st"] == {"x": 5, "y": "nested"}
    assert rows[0]["new_col"] is None and rows[0]["st"] == {"x": 1, "y": None}
    for version in (1, 4):  # after deltaguard's first append, before Spark's last
        assert_same_table(path, spark, version=version)


def test_append_to_spark_column_mapped_table(spark, tmp_path):
    inputs = Inputs(tmp_path)
    path = str(tmp_path / "spark_colmap")
    spark_sql(spark, f"CREATE TABLE delta.`{path}` (id bigint, name string, drop_me "
                     "string, st struct<a: int, b: string>) USING delta TBLPROPERTIES ("
                     "'delta.columnMapping.mode' = 'name', 'delta.minReaderVersion' = '2',"
                     " 'delta.minWriterVersion' = '5')")
    spark_insert(spark, path, "(1, 'one', 'x', named_struct('a', 1, 'b', 'b1'))")
    spark_sql(spark, f"ALTER TABLE delta.`{path}` RENAME COLUMN name TO full_name")
    spark_sql(spark, f"ALTER TABLE delta.`{path}` RENAME COLUMN st.b TO b_renamed")
    spark_sql(spark, f"ALTER TABLE delta.`{path}` DROP COLUMN drop_me")
    st = pa.struct([("a", pa.int32()), ("b_renamed", pa.string())])
    dg_write(path, inputs.parquet(pa.table({
        "id": pa.array([2], pa.int64()), "full_name": pa.array(["two"]),
        "st": pa.array([{"a": 2, "b_renamed": "b2"}], st)})))
    # The dropped column's name is free again; without --merge-schema it is refused.
    before = table_state(path)
    with_drop = pa.table({"id": pa.array([3], pa.int64()), "drop_me": pa.array(["new"])})
    res = dg_write(path, inputs.parquet(with_drop), ok=False)
    assert res.returncode == EXIT_REFUSED, res.describe()
    assert table_state(path) == before
    dg_write(path, inputs.parquet(with_drop), merge_schema=True)
    meta = metadata_of(path)
    fields = json.loads(meta["schemaString"])["fields"]
    ids = [f["metadata"]["delta.columnMapping.id"] for f in fields]
    assert len(set(ids)) == len(ids) and ids[-1] > 4, fields
    assert schema_spark(spark, path) == [
        ("id", "long", True), ("full_name", "string", True),
        ("st", "struct<a:integer, b_renamed:string>", True), ("drop_me", "string", True)]
    spark_insert(spark, path, "(4, 'four', named_struct('a', 4, 'b_renamed', 'b4'), 'x4')")
    rows = by_id(assert_same_table(path, spark, deltalake_known_issue=COLMAP_DELTALAKE))
    assert [(r["id"], r["full_name"], r["drop_me"]) for r in rows] == [
        (1, "one", None), (2, "two", None), (3, None, "new"), (4, "four", "x4")]
    assert rows[1]["st"] == {"a": 2, "b_renamed": "b2"}


def test_append_to_partitioned_spark_table(spark, tmp_path):
    inputs = Inputs(tmp_path)
    path = str(tmp_path / "spark_partitioned")
    spark_sql(spark, f"CREATE TABLE delta.`{path}` (v bigint, p_str string, p_int int, "
                     "p_date date) USING delta PARTITIONED BY (p_str, p_int, p_date)")
    spark_insert(spark, path, "(1, 'a', 1, DATE'2024-01-01'), (2, null, null, null), "
                              "(3, 'x=y/z', -1, DATE'1999-12-31')")
    dg_write(path, inputs.parquet(pa.table({
        "v": pa.array([4, 5, 6, 7], pa.int64()),
        "p_str": pa.array(["a", None, "x=y/z", "sp ace ünï"]),
        "p_int": pa.array([1, None, -1, 2], pa.int32()),
        "p_date": pa.array([dt.date(2024, 1, 1), None, dt.date(1999, 12, 31), None],
                           pa.date32())})))
    spark_insert(spark, path, "(8, 'sp ace ünï', 2, null)")
    rows = assert_same_table(path, spark)
    assert sorted(r["v"] for r in rows) == list(range(1, 9))
    # deltaguard's files for an existing partition land beside Spark's (same encoding).
    dirs = {os.path.relpath(os.path.dirname(f), path) for f in data_files(path)}
    assert len([d for d in dirs if d.startswith("p_str=x%3Dy%2Fz")]) == 1, dirs
    # Spark's partition pruning finds deltaguard's rows.
    got = sorted(r.v for r in spark.read.format("delta").load(path)
                 .where("p_str = 'x=y/z' AND p_int = -1").collect())
    assert got == [3, 6]
    got = sorted(r.v for r in spark.read.format("delta").load(path)
                 .where("p_str IS NULL").collect())
    assert got == [2, 5]


def test_append_to_deltalake_table(spark, tmp_path):
    inputs = Inputs(tmp_path)
    path = str(tmp_path / "deltalake_table")
    first = pa.table({"id": pa.array([1, 2], pa.int64()), "s": pa.array(["a", None]),
                      "p": pa.array(["x", "y"]),
                      "ts": pa.array([dt.datetime(2024, 1, 1, tzinfo=UTC), None],
                                     pa.timestamp("us", tz="UTC"))})
    write_deltalake(path, first, partition_by=["p"])
    dg_write(path, inputs.parquet(pa.table({
        "id": pa.array([3], pa.int64()), "s": pa.array(["dg"]), "p": pa.array(["x"]),
        "ts": pa.array([dt.datetime(2024, 5, 5, 5, 5, 5, 5, tzinfo=UTC)],
                       pa.timestamp("us", tz="UTC"))})))
    before = table_state(path)
    extra = pa.table({"id": pa.array([4], pa.int64()), "p": pa.array(["z"]),
                      "more": pa.array([4], pa.int32())})
    res = dg_write(path, inputs.parquet(extra), ok=False)
    assert res.returncode == EXIT_REFUSED, res.describe()
    assert table_state(path) == before
    dg_write(path, inputs.parquet(extra), merge_schema=True)
    # deltalake appends again on top of deltaguard's commits (with the evolved schema).
    write_deltalake(path, pa.table({
        "id": pa.array([5], pa.int64()), "s": pa.array(["dl"]), "p": pa.array(["y"]),
        "ts": pa.array([None], pa.timestamp("us", tz="UTC")),
        "more": pa.array([5], pa.int32())}), mode="append")
    rows = by_id(assert_same_table(path, spark))
    assert [r["id"] for r in rows] == [1, 2, 3, 4, 5]
    assert rows[3]["more"] == 4 and rows[0]["more"] is None
    assert DeltaTable(path).version() == 3
    for version in range(4):
        assert_same_table(path, spark, version=version)


# --- 3. concurrent appends: deltaguard and Spark on one table -----------------------------

DG_APPENDS = 130
SPARK_APPENDS = 100
ROWS_PER_COMMIT = 3


def test_concurrent_appends_deltaguard_and_spark(spark, tmp_path):
    inputs_dir = tmp_path / "inputs"
    inputs_dir.mkdir()
    path = str(tmp_path / "concurrent")
    dg_create(path, "id BIGINT NOT NULL, writer STRING, seq INT")
    files = []
    for i in range(DG_APPENDS):
        ids = [1_000_000 + i * ROWS_PER_COMMIT + k for k in range(ROWS_PER_COMMIT)]
        files.append(write_parquet(inputs_dir / f"dg{i:04d}.parquet", pa.table({
            "id": pa.array(ids, pa.int64()),
            "writer": pa.array(["deltaguard"] * ROWS_PER_COMMIT),
            "seq": pa.array([i] * ROWS_PER_COMMIT, pa.int32())})))
    failures = []
    stop = threading.Event()
    progress = threading.Condition()
    spark_done = 0
    released = threading.Event()  # Spark finished: deltaguard stops pacing

    def dg_append(i, f):
        # Pace deltaguard to Spark's progress so the two really interleave: commit i
        # waits until Spark has made i * SPARK_APPENDS / DG_APPENDS commits (minus slack).
        with progress:
            progress.wait_for(lambda: stop.is_set() or released.is_set() or
                              spark_done >= i * SPARK_APPENDS // DG_APPENDS - 2,
                              timeout=120)
        if stop.is_set():
            return None
        res = run_cli("write", path, f, "--output", "json")
        if res.returncode != 0:
            failures.append(res.describe())
            stop.set()
        return res

    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        futures = [pool.submit(dg_append, i, f) for i, f in enumerate(files)]
        try:
            for i in range(SPARK_APPENDS):
                if stop.is_set():
                    break
                lo = 2_000_000 + i * ROWS_PER_COMMIT
                spark.range(lo, lo + ROWS_PER_COMMIT, numPartitions=1).selectExpr(
                    "id", "'spark' AS writer", f"CAST({i} AS INT) AS seq").write.format(
                    "delta").mode("append").save(path)
                with progress:
                    spark_done += 1
                    progress.notify_all()
        finally:
            dg_done_during_spark = sum(f.done() for f in futures)
            with progress:
                released.set()
                progress.notify_all()
            for f in futures:
                f.result()
    elapsed = time.monotonic() - start
    assert not failures, "deltaguard append failed under concurrency:\n" + failures[0]
    assert spark_done == SPARK_APPENDS
    # The two writers really overlapped (not one after the other).
    assert dg_done_during_spark >= DG_APPENDS // 2, dg_done_during_spark
    versions = log_versions(path)
    total = 1 + DG_APPENDS + SPARK_APPENDS
    assert versions == list(range(total)), (
        f"log versions not contiguous: {len(versions)} files, expected {total}")
    # Each version holds exactly one writer's commit; every id lands exactly once.
    writers = []
    for v in versions[1:]:
        info = [a["commitInfo"] for a in commit_actions(path, v) if "commitInfo" in a]
        engine = info[0].get("engineInfo", "") if info else ""
        writers.append("deltaguard" if "deltaguard" in engine else "spark")
    engines = {w: writers.count(w) for w in ("deltaguard", "spark")}
    assert engines == {"deltaguard": DG_APPENDS, "spark": SPARK_APPENDS}, engines
    expected_ids = sorted(
        [1_000_000 + n for n in range(DG_APPENDS * ROWS_PER_COMMIT)] +
        [2_000_000 + n for n in range(SPARK_APPENDS * ROWS_PER_COMMIT)])
    spark_rows = rows_spark(spark, path)
    assert sorted(r["id"] for r in spark_rows) == expected_ids
    dg_rows = rows_deltaguard(path)
    assert dg_rows == spark_rows
    # Interleaving: the writers' commits alternate many times in the log.
    switches = sum(1 for a, b in zip(writers, writers[1:]) if a != b)
    assert switches >= 10, f"only {switches} writer switches: {writers}"
    # Every 10th version reads in deltaguard, with a monotone, consistent row count.
    previous = -1
    for v in list(range(0, total, 10)) + [total - 1]:
        n = len(run_cli("scan", path, "--version", v, "--format", "jsonl").jsonl())
        assert n >= previous and n == ROWS_PER_COMMIT * v, (v, n, previous)
        previous = n
    for v in (total // 3, total - 1):
        assert rows_deltaguard(path, v) == rows_spark(spark, path, v), v
    checkpoints = glob.glob(os.path.join(path, "_delta_log", "*.checkpoint.parquet"))
    assert checkpoints, "no checkpoint was written"
    attempts = [r.json()["commit_attempts"] for r in (f.result() for f in futures)]
    print(f"\nconcurrent appends: {total - 1} commits in {elapsed:.1f}s; "
          f"{len(checkpoints)} checkpoints; {switches} writer switches; deltaguard "
          f"retries: {sum(a - 1 for a in attempts)} (max attempts {max(attempts)})")
