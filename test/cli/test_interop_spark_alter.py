"""Interop of ALTER TABLE and constraints (issue 5) with Apache Spark + Delta Lake and
deltalake (delta-rs):

1. deltaguard renames, drops, reorders and widens columns and adds a CHECK constraint;
   Spark reads the table with exactly deltaguard's schema and rows, and Spark's INSERT
   violating our constraint fails.
2. Spark renames, drops and widens columns and adds a constraint on its table; deltaguard
   reads it like Spark, and deltaguard's write violating Spark's constraint fails.
3. deltalake reads what it supports; where it cannot (column mapping in this deltalake,
   type widening) assert_same_table records the peer's known limit and fails if the
   peer starts to read the table correctly (strict).

One Spark session serves the whole run (fixture `spark`, spark_session.py); each test keeps
its Spark round trips few."""

import pytest

from cli_helpers import EXIT_REFUSED, run_cli
from interop_helpers import assert_same_table, rows_deltaguard, schema_spark

COLMAP_DELTALAKE = ("deltalake 1.6.6 returns every column as NULL on a column-mapped "
                    "table")
WIDENING_DELTALAKE = "deltalake has no typeWidening"


def dg_sql(*statements, ok=True):
    res = run_cli("sql", "; ".join(statements))
    if ok:
        assert res.returncode == 0, res.describe()
    return res


def by_id(rows):
    return {r["id"]: r for r in rows}


def test_spark_reads_our_altered_and_constrained_table(spark, tmp_path):
    path = str(tmp_path / "ours")
    t = f"delta.`{path}`"
    dg_sql(f"CREATE TABLE {t} (id BIGINT, amount INT, note STRING, extra STRING, "
           "small SMALLINT) USING DELTA",
           f"INSERT INTO {t} VALUES (1, 10, 'a', 'x', 1), (2, 20, NULL, 'y', 2)",
           f"ALTER TABLE {t} SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name', "
           "'delta.enableTypeWidening' = 'true')",
           f"ALTER TABLE {t} RENAME COLUMN amount TO total",
           f"ALTER TABLE {t} DROP COLUMN extra",
           f"ALTER TABLE {t} ALTER COLUMN note FIRST",
           f"ALTER TABLE {t} ALTER COLUMN small TYPE INT",
           f"ALTER TABLE {t} ADD CONSTRAINT positive CHECK (total > 0)",
           f"INSERT INTO {t} VALUES ('c', 3, 30, 100000)")
    assert schema_spark(spark, path) == [
        ("note", "string", True), ("id", "long", True), ("total", "integer", True),
        ("small", "integer", True)]
    rows = by_id(assert_same_table(path, spark, deltalake_known_issue=COLMAP_DELTALAKE))
    assert rows[1] == {"note": "a", "id": 1, "total": 10, "small": 1}
    assert rows[3]["small"] == 100000
    with pytest.raises(Exception) as err:
        spark.sql(f"INSERT INTO {t} VALUES ('d', 4, -1, 4)").collect()
    assert "positive" in str(err.value), str(err.value)[:2000]
    spark.sql(f"INSERT INTO {t} VALUES ('e', 5, 50, 5)").collect()
    assert sorted(by_id(rows_deltaguard(path))) == [1, 2, 3, 5]


def test_we_read_and_enforce_sparks_altered_table(spark, tmp_path):
    path = str(tmp_path / "theirs")
    t = f"delta.`{path}`"
    for stmt in (
            f"CREATE TABLE {t} (id BIGINT, amount INT, note STRING, extra STRING, "
            "small SMALLINT) USING DELTA TBLPROPERTIES ('delta.columnMapping.mode' = "
            "'name', 'delta.enableTypeWidening' = 'true')",
            f"INSERT INTO {t} VALUES (1, 10, 'a', 'x', 1), (2, 20, NULL, 'y', 2)",
            f"ALTER TABLE {t} RENAME COLUMN amount TO total",
            f"ALTER TABLE {t} DROP COLUMN extra",
            f"ALTER TABLE {t} ALTER COLUMN small TYPE INT",
            f"ALTER TABLE {t} ADD CONSTRAINT positive CHECK (total > 0)",
            f"INSERT INTO {t} VALUES (3, 30, 'c', 100000)"):
        spark.sql(stmt).collect()
    rows = by_id(assert_same_table(path, spark, deltalake_known_issue=COLMAP_DELTALAKE))
    assert rows[3] == {"id": 3, "total": 30, "note": "c", "small": 100000}
    res = dg_sql(f"INSERT INTO {t} VALUES (4, -1, 'd', 4)", ok=False)
    assert res.returncode == EXIT_REFUSED, res.describe()
    assert "positive" in res.stderr, res.describe()
    dg_sql(f"INSERT INTO {t} VALUES (5, 50, 'e', 5)")
    rows = by_id(assert_same_table(path, spark, deltalake_known_issue=COLMAP_DELTALAKE))
    assert sorted(rows) == [1, 2, 3, 5]


def test_type_widening_without_column_mapping(spark, tmp_path):
    """Widening alone (no column mapping): Spark reads ours; deltalake's known limit is
    recorded strictly (it must still fail or differ)."""
    path = str(tmp_path / "widened")
    t = f"delta.`{path}`"
    dg_sql(f"CREATE TABLE {t} (id INT, price DECIMAL(5,2), day DATE) "
           "TBLPROPERTIES ('delta.enableTypeWidening' = 'true')",
           f"INSERT INTO {t} VALUES (1, 1.25, DATE '2024-01-02')",
           f"ALTER TABLE {t} ALTER COLUMN id TYPE BIGINT",
           f"ALTER TABLE {t} ALTER COLUMN price TYPE DECIMAL(10,4)",
           f"INSERT INTO {t} VALUES (5000000000, 123456.1234, DATE '2024-01-03')")
    assert schema_spark(spark, path) == [
        ("id", "long", True), ("price", "decimal(10,4)", True), ("day", "date", True)]
    assert_same_table(path, spark, deltalake_known_issue=WIDENING_DELTALAKE)


def test_char_varchar_limits_are_shared_with_spark(spark, tmp_path):
    """CHAR/VARCHAR lengths live in field metadata that both engines enforce: Spark
    refuses what breaks the limits we declared (also after our ADD COLUMNS and ALTER
    COLUMN TYPE), and we refuse what breaks Spark's, nested ones included. Spark pads
    CHAR values when it reads them; the files hold them unpadded, as we read them."""
    ours = str(tmp_path / "ours")
    t = f"delta.`{ours}`"
    dg_sql(f"CREATE TABLE {t} (id BIGINT, code CHAR(3), name VARCHAR(4)) USING DELTA",
           f"INSERT INTO {t} VALUES (1, 'ab', 'anna')",
           f"ALTER TABLE {t} ADD COLUMNS (city VARCHAR(3))",
           f"ALTER TABLE {t} ALTER COLUMN name TYPE VARCHAR(6)")
    for bad in (f"INSERT INTO {t} VALUES (2, 'abcd', 'x', 'x')",
                f"INSERT INTO {t} VALUES (2, 'a', 'abcdefg', 'x')",
                f"INSERT INTO {t} VALUES (2, 'a', 'x', 'Lisbon')"):
        with pytest.raises(Exception) as err:
            spark.sql(bad).collect()
        assert "DELTA_EXCEED_CHAR_VARCHAR_LIMIT" in str(err.value), str(err.value)[:2000]
    spark.sql(f"INSERT INTO {t} VALUES (2, 'xyz', 'abcdef', 'Ams')").collect()
    got = {r["id"]: r.asDict() for r in spark.read.format("delta").load(ours).collect()}
    assert got == {1: {"id": 1, "code": "ab ", "name": "anna", "city": None},
                   2: {"id": 2, "code": "xyz", "name": "abcdef", "city": "Ams"}}
    assert by_id(rows_deltaguard(ours)) == {
        1: {"id": 1, "code": "ab", "name": "anna", "city": None},
        2: {"id": 2, "code": "xyz", "name": "abcdef", "city": "Ams"}}

    theirs = str(tmp_path / "theirs")
    t = f"delta.`{theirs}`"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, v VARCHAR(3), s STRUCT<x: VARCHAR(2)>) "
              "USING DELTA").collect()
    res = dg_sql(f"INSERT INTO {t} VALUES (1, 'abcd', NULL)", ok=False)
    assert res.returncode == EXIT_REFUSED, res.describe()
    assert "DELTA_EXCEED_CHAR_VARCHAR_LIMIT" in res.stderr, res.describe()
    assert "column v is varchar(3)" in res.stderr, res.describe()
    nested = tmp_path / "nested.json"
    nested.write_text('{"id": 2, "v": "ok", "s": {"x": "long"}}\n')
    res = run_cli("write", theirs, str(nested), "--format", "json")
    assert res.returncode == EXIT_REFUSED, res.describe()
    assert "column s.x is varchar(2)" in res.stderr, res.describe()
    dg_sql(f"INSERT INTO {t} VALUES (3, 'abc', NULL)")
    rows = by_id(assert_same_table(theirs, spark))
    assert rows == {3: {"id": 3, "v": "abc", "s": None}}
