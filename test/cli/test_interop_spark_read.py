"""Interop with Apache Spark + Delta Lake (delta-spark 4.4 on Spark 4.2): Spark writes
tables with the features real pipelines use, and deltaguard (and deltalake) must read each
with exactly the schema and rows Spark reads back itself (see assert_same_table in
interop_helpers.py).
Also Spark must read our committed sample examples/orders exactly as deltaguard does.

One Spark session serves the whole run (fixture `spark`, spark_session.py)."""

import glob
import json
import os

import pytest

from cli_helpers import EXAMPLE_TABLE
from interop_helpers import (assert_same_table, rows_deltaguard, rows_spark, schema_form,
                             schema_spark)
from spark_session import delta_jars

def sql(spark, statement):
    return spark.sql(statement)


def create(spark, path, columns, *, partitioned_by=(), properties=None):
    props = ""
    if properties:
        props = " TBLPROPERTIES (" + ", ".join(
            f"'{k}' = '{v}'" for k, v in properties.items()) + ")"
    part = f" PARTITIONED BY ({', '.join(partitioned_by)})" if partitioned_by else ""
    sql(spark, f"CREATE TABLE delta.`{path}` ({columns}) USING delta{part}{props}")


def insert(spark, path, values):
    sql(spark, f"INSERT INTO delta.`{path}` VALUES {values}")


def log_actions(path):
    """All actions of all JSON commits, as (version, action dict)."""
    out = []
    for f in sorted(glob.glob(os.path.join(path, "_delta_log", "*.json"))):
        version = int(os.path.basename(f).split(".")[0])
        with open(f, encoding="utf-8") as fh:
            out += [(version, json.loads(line)) for line in fh if line.strip()]
    return out


def protocol(path):
    return [a["protocol"] for _, a in log_actions(path) if "protocol" in a][-1]


# --- primitive types ----------------------------------------------------------------------

PRIMITIVES = ("b boolean, i8 tinyint, i16 smallint, i32 int, i64 bigint, f32 float, "
              "f64 double, dec decimal(10,2), dec38 decimal(38,18), s string, bin binary, "
              "d date, ts timestamp, ntz timestamp_ntz")


def test_every_primitive_type(spark, tmp_path):
    path = str(tmp_path / "primitives")
    create(spark, path, PRIMITIVES)
    insert(spark, path, """
        (true, -128Y, 32767S, -2147483648, 9223372036854775807L, float(0.1), 1e-300D,
         -12345678.90BD, 12345678901234567890.123456789012345678BD, 'plain', X'00FF10',
         DATE'1970-01-01', TIMESTAMP'2024-01-01 12:00:00.123456',
         TIMESTAMP_NTZ'2024-01-01 12:00:00.000001'),
        (false, 127Y, -32768S, 2147483647, -9223372036854775808L, float('NaN'),
         double('Infinity'), 0.00BD, -0.000000000000000001BD,
         'quotes " and \\\\ backslash, tab\t, ünïcødé 🦆', X'',
         DATE'0001-01-01', TIMESTAMP'1900-01-01 00:00:00.000001',
         TIMESTAMP_NTZ'9999-12-31 23:59:59.999999'),
        (null, null, null, null, null, null, null, null, null, null, null, null, null,
         null)""")
    insert(spark, path, """
        (false, 0Y, 0S, 0, 0L, float('-Infinity'), double('NaN'), 99999999.99BD, null, '',
         null, DATE'9999-12-31', TIMESTAMP'2262-04-11 23:47:16', null),
        (null, null, null, null, null, float(-0.0), -1.5e308D, null, null,
         repeat('x', 10000), X'DEADBEEF', DATE'1582-10-04', TIMESTAMP'1582-10-04 10:00:00',
         TIMESTAMP_NTZ'0001-01-01 00:00:00')""")
    rows = assert_same_table(path, spark, deltalake_known_issue=(
        "Spark writes timestamps as INT96; deltalake 1.6.6 casts them through "
        "timestamp[ns] and fails on values outside 1677..2262 (ArrowInvalid)"))
    assert len(rows) == 5
    # The scenario really has every type, and timestamp_ntz brought its table feature.
    assert [t for _, t, _ in schema_spark(spark, path)] == [
        "boolean", "byte", "short", "integer", "long", "float", "double", "decimal(10,2)",
        "decimal(38,18)", "string", "binary", "date", "timestamp", "timestamp_ntz"]
    assert "timestampNtz" in protocol(path).get("readerFeatures", [])


# --- nested types -------------------------------------------------------------------------

def test_nested_struct_array_map(spark, tmp_path):
    path = str(tmp_path / "nested")
    create(spark, path,
           "id int, st struct<x: bigint, inner: struct<y: string, z: double>>, "
           "arr array<int>, arr2 array<array<string>>, "
           "arr_st array<struct<k: string, v: int>>, m map<string, bigint>, "
           "m_int map<int, struct<a: string, b: array<date>>>, "
           "m_arr map<string, array<decimal(5,1)>>")
    insert(spark, path, """
        (1, named_struct('x', 1L, 'inner', named_struct('y', 'why', 'z', 2.5D)),
         array(1, null, 3), array(array('a'), array(), null, array('b', null)),
         array(named_struct('k', 'one', 'v', 1), null, named_struct('k', null, 'v', null)),
         map('a', 1L, 'b', null),
         map(1, named_struct('a', 'x', 'b', array(DATE'2024-02-29', null)), -2, null),
         map('k', array(1.5BD, null, -9999.9BD))),
        (2, named_struct('x', null, 'inner', null), array(), array(), array(), map(),
         null, map('empty', array())),
        (3, null, null, null, null, null, null, null)""")
    rows = assert_same_table(path, spark)
    assert len(rows) == 3


# --- partitions ---------------------------------------------------------------------------

def test_partitioned_by_several_types_with_nulls(spark, tmp_path):
    path = str(tmp_path / "partitioned")
    create(spark, path,
           "v bigint, p_str string, p_int int, p_date date, p_bool boolean, "
           "p_dec decimal(7,2), p_ts timestamp",
           partitioned_by=("p_str", "p_int", "p_date", "p_bool", "p_dec", "p_ts"))
    insert(spark, path, """
        (1, 'a', 1, DATE'2024-01-01', true, 1.50BD, TIMESTAMP'2024-01-01 10:00:00'),
        (2, 'a', 1, DATE'2024-01-01', true, 1.50BD, TIMESTAMP'2024-01-01 10:00:00'),
        (3, null, null, null, null, null, null),
        (4, 'with space/slash=eq%pct:colon', -7, DATE'1969-12-31', false, -0.01BD,
         TIMESTAMP'1970-01-01 00:00:00.000001'),
        (5, '', 0, DATE'2024-02-29', null, 0.00BD, null),
        (6, 'ünï 🦆', 2147483647, null, false, null, TIMESTAMP'2024-06-30 23:59:59')""")
    rows = assert_same_table(path, spark, deltalake_known_issue=(
        "deltalake 1.6.6 misparses the negative decimal partition value '-0.01' "
        "(ArrowInvalid: '0.-1' is not a valid decimal128)"))
    assert len(rows) == 6
    parts = [a["add"]["partitionValues"] for _, a in log_actions(path) if "add" in a]
    assert any(p["p_str"] is None for p in parts), parts  # null partition values written


# --- column mapping -----------------------------------------------------------------------

def test_column_mapping_name_with_rename_and_drop(spark, tmp_path):
    path = str(tmp_path / "colmap")
    create(spark, path, "id int, name string, drop_me string, st struct<a: int, b: string>",
           properties={"delta.columnMapping.mode": "name",
                       "delta.minReaderVersion": "2", "delta.minWriterVersion": "5"})
    insert(spark, path, "(1, 'one', 'x', named_struct('a', 1, 'b', 'b1')), "
                        "(2, 'two', 'y', null)")
    sql(spark, f"ALTER TABLE delta.`{path}` RENAME COLUMN name TO full_name")
    sql(spark, f"ALTER TABLE delta.`{path}` RENAME COLUMN st.b TO b_renamed")
    sql(spark, f"ALTER TABLE delta.`{path}` DROP COLUMN drop_me")
    insert(spark, path, "(3, 'three', named_struct('a', 3, 'b_renamed', 'b3'))")
    sql(spark, f"ALTER TABLE delta.`{path}` ADD COLUMNS (drop_me string)")  # new field id
    insert(spark, path, "(4, 'four', null, 'new')")
    assert schema_spark(spark, path) == [
        ("id", "integer", True), ("full_name", "string", True),
        ("st", "struct<a:integer, b_renamed:string>", True), ("drop_me", "string", True)]
    rows = assert_same_table(path, spark, deltalake_known_issue=(
        "deltalake 1.6.6 returns every column as NULL on this column-mapped table"))
    # The re-added `drop_me` must not resurrect the dropped column's values.
    assert [r["drop_me"] for r in sorted(rows, key=lambda r: r["id"])] == \
        [None, None, None, "new"]


# --- type widening ------------------------------------------------------------------------

def test_type_widening_alter_column_type(spark, tmp_path):
    path = str(tmp_path / "widening")
    create(spark, path, "id int, b tinyint, i int, f float, dec decimal(5,2), d date",
           properties={"delta.enableTypeWidening": "true",
                       # date -> timestamp_ntz needs the timestampNtz feature up front.
                       "delta.feature.timestampNtz": "supported"})
    insert(spark, path, "(1, 1Y, 2147483647, float(1.5), 123.45BD, DATE'2024-01-01'), "
                        "(2, -128Y, null, null, -999.99BD, null)")
    for statement in ("ALTER COLUMN b TYPE int", "ALTER COLUMN i TYPE bigint",
                      "ALTER COLUMN f TYPE double", "ALTER COLUMN dec TYPE decimal(12,4)",
                      "ALTER COLUMN d TYPE timestamp_ntz"):
        sql(spark, f"ALTER TABLE delta.`{path}` {statement}")
    insert(spark, path, "(3, 100000, 9223372036854775807L, 1e300D, 12345678.1234BD, "
                        "TIMESTAMP_NTZ'2024-01-01 12:30:00')")
    assert [t for _, t, _ in schema_spark(spark, path)] == [
        "integer", "integer", "long", "double", "decimal(12,4)", "timestamp_ntz"]
    assert "typeWidening" in protocol(path).get("readerFeatures", [])
    rows = assert_same_table(path, spark, deltalake_known_issue=(
        "deltalake 1.6.6 refuses the typeWidening reader feature (DeltaProtocolError)"))
    assert len(rows) == 3


# --- deletion vectors ---------------------------------------------------------------------

def test_deletion_vectors_from_delete_and_update(spark, tmp_path):
    path = str(tmp_path / "dv")
    create(spark, path, "id bigint, grp string",
           properties={"delta.enableDeletionVectors": "true"})
    spark.range(0, 1000, numPartitions=1).selectExpr(
        "id", "concat('g', id % 7) as grp").write.format("delta").mode("append").save(path)
    sql(spark, f"DELETE FROM delta.`{path}` WHERE id % 3 = 0")
    sql(spark, f"UPDATE delta.`{path}` SET grp = 'updated' WHERE id % 10 = 1")
    adds = [a["add"] for _, a in log_actions(path) if "add" in a]
    assert any(a.get("deletionVector") for a in adds), "Spark wrote no deletion vector"
    rows = assert_same_table(path, spark, deltalake_known_issue=(
        "deltalake 1.6.6 refuses the deletionVectors reader feature (DeltaProtocolError)"))
    assert len(rows) == 1000 - 334
    # Time travel to before the DELETE still sees every row.
    assert len(rows_deltaguard(path, version=1)) == 1000


# --- checkpoint ---------------------------------------------------------------------------

def test_more_than_ten_commits_with_checkpoint(spark, tmp_path):
    path = str(tmp_path / "checkpointed")
    create(spark, path, "id int, v string, p string", partitioned_by=("p",))
    for i in range(12):
        insert(spark, path, f"({i}, 'v{i}', 'p{i % 3}')")
    sql(spark, f"DELETE FROM delta.`{path}` WHERE id = 4")
    sql(spark, f"UPDATE delta.`{path}` SET v = 'changed' WHERE id = 7")
    log = os.path.join(path, "_delta_log")
    checkpoints = glob.glob(os.path.join(log, "*.checkpoint*.parquet"))
    assert checkpoints, f"Spark wrote no checkpoint: {sorted(os.listdir(log))}"
    assert os.path.exists(os.path.join(log, "_last_checkpoint"))
    rows = assert_same_table(path, spark)
    assert len(rows) == 11
    # Time travel to a version covered by the checkpoint and to one before it.
    for version in (5, 10, 11):
        assert rows_deltaguard(path, version) == rows_spark(spark, path, version), version


# --- schema evolution ---------------------------------------------------------------------

def test_merge_schema_append(spark, tmp_path):
    path = str(tmp_path / "merge_schema")
    spark.sql("SELECT 1 AS id, 'a' AS s, named_struct('x', 1) AS st").write.format(
        "delta").save(path)
    spark.sql("SELECT 2 AS id, 'b' AS s, named_struct('x', 2, 'y', 'new nested') AS st, "
              "CAST(2.5 AS DOUBLE) AS added, array(1, 2) AS added_arr").write.format(
        "delta").mode("append").option("mergeSchema", "true").save(path)
    spark.sql("SELECT 3 AS id, named_struct('x', 3) AS st").write.format("delta").mode(
        "append").save(path)  # missing columns: filled with NULL
    assert schema_spark(spark, path) == [
        ("id", "integer", True), ("s", "string", True),
        ("st", "struct<x:integer, y:string>", True), ("added", "double", True),
        ("added_arr", "array<integer>", True)]
    rows = assert_same_table(path, spark)
    assert len(rows) == 3
    # Each older version keeps its own schema in every engine.
    assert_same_table(path, spark, version=0)


# --- Spark reads our committed sample -----------------------------------------------------

@pytest.mark.parametrize("version", [None, 0, 1, 2, 3])
def test_spark_reads_examples_orders(spark, version):
    rows = assert_same_table(EXAMPLE_TABLE, spark, version=version)
    assert rows, "examples/orders is empty"


def test_schema_form_renders_nested_nullability():
    schema = {"type": "struct", "fields": [
        {"name": "a", "type": {"type": "array", "elementType": "integer",
                               "containsNull": False}, "nullable": False},
        {"name": "m", "type": {"type": "map", "keyType": "string", "valueType": {
            "type": "struct", "fields": [{"name": "x", "type": "long", "nullable": False}]},
            "valueContainsNull": True}, "nullable": True}]}
    assert schema_form(schema) == [("a", "array<integer NOT NULL>", False),
                                   ("m", "map<string,struct<x:long NOT NULL>>", True)]


def test_incomplete_jar_cache_fails_fast(tmp_path):
    """A cache missing any required jar is refused before Spark starts, naming it."""
    jars = delta_jars()
    for jar in jars:
        os.symlink(jar, tmp_path / os.path.basename(jar))
    assert len(delta_jars(str(tmp_path))) == len(jars)
    storage = next(tmp_path.glob("delta-storage-*.jar"))
    storage.unlink()
    with pytest.raises(AssertionError, match="delta-storage-"):
        delta_jars(str(tmp_path))
