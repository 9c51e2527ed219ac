"""Differential test of MERGE / UPDATE / DELETE against Spark + Delta Lake (issue 6).

Spark creates a table; a byte-for-byte copy of its directory is deltaguard's. The same
statements then run in Spark (spark.sql on `delta.`<A>``) and in deltaguard
(`deltaguard sql` on `delta.`<B>``): every clause kind of MERGE, NOT MATCHED BY SOURCE,
MERGE WITH SCHEMA EVOLUTION, UPDATE and DELETE. After each statement both tables must
hold the same rows (sorted, compared by Spark's read of each), and at the end Spark,
deltaguard and deltalake must read deltaguard's table identically (assert_same_table).

Only statements whose semantics deltaguard shares with Spark by design are compared: the
coupon case without evolution (Spark drops the column, deltaguard refuses) is checked on
its own below, and with deltaguard.merge.ignoreUnmatchedSourceColumns = true it must
match Spark again.

One Spark session serves the module (fixture `spark`, spark_session.py)."""

import shutil

import pytest

from cli_helpers import run_cli
from interop_helpers import assert_same_table, diff_rows, rows_spark

# A source of (id, name, qty) rows as a subquery both engines parse.
def source(rows, extra=()):
    cols = ["id", "name", "qty", *extra]
    values = ", ".join("(" + ", ".join(v for v in r) + ")" for r in rows)
    select = ", ".join(
        ["CAST(c0 AS BIGINT) AS id", "c1 AS name", "CAST(c2 AS INT) AS qty"]
        + [f"c{3 + i} AS {name}" for i, name in enumerate(extra)])
    aliases = ", ".join(f"c{i}" for i in range(len(cols)))
    return f"(SELECT {select} FROM VALUES {values} AS v({aliases}))"


STEPS = [
    # every clause kind, conditions, first matching clause wins
    ("MERGE INTO {T} AS t USING " + source([("1", "'one'", "0"), ("2", "'two'", "5"),
                                            ("6", "'six'", "60"), ("7", "'seven'", "70"),
                                            ("8", "'eight'", "80")]) + " AS s "
     "ON t.id = s.id "
     "WHEN MATCHED AND s.qty = 0 THEN DELETE "
     "WHEN MATCHED THEN UPDATE SET t.qty = t.qty + s.qty, "
     "name = concat(t.name, '+', s.name) "
     "WHEN NOT MATCHED AND s.id = 6 THEN INSERT (id, qty) VALUES (s.id, s.qty * 2) "
     "WHEN NOT MATCHED AND s.id = 8 THEN INSERT * "
     "WHEN NOT MATCHED BY SOURCE AND t.qty >= 40 THEN DELETE "
     "WHEN NOT MATCHED BY SOURCE THEN UPDATE SET name = 'untouched'"),
    # UPDATE SET * / INSERT * with the table name as qualifier
    ("MERGE INTO {T} AS t USING " + source([("2", "'TWO'", "22"), ("9", "'nine'", "9")])
     + " AS s ON t.id = s.id WHEN MATCHED THEN UPDATE SET * "
     "WHEN NOT MATCHED THEN INSERT *"),
    # schema evolution: the coupon column is added
    ("MERGE WITH SCHEMA EVOLUTION INTO {T} AS t USING "
     + source([("3", "'three'", "33", "'AUTUMN10'"), ("10", "'ten'", "10", "'SPRING5'")],
              extra=("coupon",))
     + " AS s ON t.id = s.id WHEN MATCHED THEN UPDATE SET * "
     "WHEN NOT MATCHED THEN INSERT *"),
    ("UPDATE {T} SET qty = qty * 10 WHERE qty < 30"),
    ("DELETE FROM {T} WHERE coupon IS NULL AND id > 8"),
    ("UPDATE {T} SET coupon = 'NONE' WHERE coupon IS NULL"),
]


@pytest.fixture(scope="module")
def tables(spark, tmp_path_factory):
    """(spark_path, deltaguard_path, warehouse): copies of one Spark-created table."""
    root = tmp_path_factory.mktemp("merge_interop")
    a, b, wh = root / "spark_t", root / "dg_t", root / "wh"
    spark.sql(f"CREATE TABLE delta.`{a}` (id BIGINT, name STRING, qty INT) USING delta")
    spark.sql(f"INSERT INTO delta.`{a}` VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30), "
              "(4, 'd', 40), (5, 'e', 50)")
    shutil.copytree(a, b)
    return a, b, wh


def dg_sql(wh, script):
    res = run_cli("sql", "--warehouse", wh, script)
    assert res.returncode == 0, res.describe()
    return res


def test_statements_match_spark(spark, tables):
    a, b, wh = tables
    for i, step in enumerate(STEPS):
        spark.sql(step.format(T=f"delta.`{a}`")).collect()
        dg_sql(wh, step.format(T=f"delta.`{b}`"))
        problem = diff_rows(rows_spark(spark, b), rows_spark(spark, a),
                            "deltaguard", "spark")
        assert not problem, f"after step {i + 1}: {step}\n{problem}"
    # Spark, deltaguard and deltalake read deltaguard's result identically.
    assert_same_table(b, spark)
    history = spark.sql(f"DESCRIBE HISTORY delta.`{b}`").select("operation").collect()
    ops = [r.operation for r in history][: len(STEPS)]
    assert ops == ["UPDATE", "DELETE", "UPDATE", "MERGE", "MERGE", "MERGE"], ops


def test_coupon_refused_then_ignored_like_spark(spark, tmp_path):
    """Spark drops a source column the target lacks; deltaguard refuses by default and,
    with the ignore setting, does what Spark does and says so on stderr."""
    a, b, wh = tmp_path / "spark_c", tmp_path / "dg_c", tmp_path / "wh"
    spark.sql(f"CREATE TABLE delta.`{a}` (id BIGINT, name STRING, qty INT) USING delta")
    spark.sql(f"INSERT INTO delta.`{a}` VALUES (1, 'a', 10)")
    shutil.copytree(a, b)
    merge = ("MERGE INTO {T} AS t USING "
             + source([("1", "'x'", "11", "'AUTUMN10'"), ("2", "'y'", "2", "'SPRING5'")],
                      extra=("coupon",))
             + " AS s ON t.id = s.id WHEN MATCHED THEN UPDATE SET * "
             "WHEN NOT MATCHED THEN INSERT *")
    spark.sql(merge.format(T=f"delta.`{a}`")).collect()
    refused = run_cli("sql", "--warehouse", wh, merge.format(T=f"delta.`{b}`"))
    assert refused.returncode != 0, refused.describe()
    assert "coupon" in refused.stderr and "WITH SCHEMA EVOLUTION" in refused.stderr
    res = dg_sql(wh, "SET deltaguard.merge.ignoreUnmatchedSourceColumns = true; "
                 + merge.format(T=f"delta.`{b}`"))
    assert "WARNING" in res.stderr and "coupon" in res.stderr, res.describe()
    problem = diff_rows(rows_spark(spark, b), rows_spark(spark, a), "deltaguard", "spark")
    assert not problem, problem
    assert_same_table(b, spark)
