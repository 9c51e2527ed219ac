"""Differential test of the query engine against Spark SQL (docs/sql.md): the same
queries over the same Delta tables (NULLs, duplicates, INT next to BIGINT); deltaguard
materialises each with CREATE TABLE ... AS (so its result is a Delta table with
types), Spark returns its result through Arrow; both must hold the same rows (as
multisets) under the same column names and types.

The tables are written by deltaguard and read by Spark by path; every query names
them as delta.`path`, which both dialects accept."""

import pytest

from cli_helpers import EXIT_OK, run_cli
from interop_helpers import (_freeze, canon_rows_from_arrow, diff_rows, rows_deltaguard,
                             schema_deltaguard, schema_form)

TABLES = {
    "a": ("id INT, name STRING, amount INT",
          "(1, 'x', 10), (2, 'y', 20), (2, 'y', 20), (3, NULL, 5), (NULL, NULL, NULL), "
          "(5, 'x', NULL)"),
    "b": ("id BIGINT, name STRING, amount INT",
          "(2, 'y', 20), (2, 'y', 20), (2, 'y', 20), (3, NULL, 5), (3, NULL, 5), "
          "(4, 'z', 1), (NULL, NULL, NULL)"),
    "c": ("id INT, name STRING, amount INT", "(4, 'z', 1), (6, 'w', 2)"),
}

QUERIES = [
    # set operations, each kind, with NULLs and duplicates on both sides
    "SELECT * FROM {a} UNION ALL SELECT * FROM {b}",
    "SELECT * FROM {a} UNION SELECT * FROM {b}",
    "SELECT * FROM {a} UNION DISTINCT SELECT * FROM {b}",
    "SELECT * FROM {a} INTERSECT SELECT * FROM {b}",
    "SELECT * FROM {a} INTERSECT ALL SELECT * FROM {b}",
    "SELECT * FROM {b} INTERSECT ALL SELECT * FROM {a}",
    "SELECT * FROM {a} EXCEPT SELECT * FROM {b}",
    "SELECT * FROM {b} EXCEPT SELECT * FROM {a}",
    "SELECT * FROM {a} EXCEPT ALL SELECT * FROM {b}",
    "SELECT * FROM {b} EXCEPT ALL SELECT * FROM {a}",
    "SELECT * FROM {b} MINUS SELECT * FROM {a}",
    "SELECT id FROM {a} UNION SELECT id FROM {b} INTERSECT SELECT id FROM {c}",
    "SELECT id FROM {a} EXCEPT SELECT id FROM {b} UNION ALL SELECT id FROM {c}",
    "(SELECT id FROM {a} UNION SELECT id FROM {b}) INTERSECT SELECT id FROM {c}",
    "SELECT name, amount FROM {a} UNION ALL SELECT name, amount FROM {c} "
    "UNION ALL SELECT name, amount FROM {b}",
    "SELECT id AS k, amount * 2 AS twice FROM {a} UNION SELECT id, amount FROM {b}",
    "SELECT id FROM {a} UNION SELECT id FROM {b} ORDER BY id DESC LIMIT 3",
    "SELECT DISTINCT name FROM {a} INTERSECT SELECT name FROM {b}",
    "SELECT CAST(NULL AS STRING) AS n, 1 AS one UNION SELECT NULL, 1",
    "SELECT id, count(*) AS n FROM {a} GROUP BY id INTERSECT "
    "SELECT id, count(*) FROM {b} GROUP BY id",
    "SELECT CAST(id AS DOUBLE) AS d FROM {a} UNION SELECT amount FROM {b}",
    "SELECT * FROM {a} WHERE id > 100 UNION ALL SELECT * FROM {c}",
    "SELECT * FROM {a} WHERE id > 100 INTERSECT SELECT * FROM {b}",
    "VALUES (1, 'p'), (NULL, NULL) UNION ALL SELECT id, name FROM {c}",
    # conditional functions (NULL conditions, NULL operands, branch types unified)
    "SELECT id, if(amount > 5, amount, id) AS i, nvl(name, 'none') AS n, "
    "ifnull(amount, -1) AS f, nvl2(name, id, amount) AS n2, nullif(id, 2) AS d FROM {a}",
    "SELECT id, if(name IS NULL, NULL, upper(name)) AS u, nullif(name, 'y') AS ny, "
    "nvl(id, amount) AS w FROM {b}",
    # joins (aliases: a delta.`path` relation has no name of its own)
    "SELECT x.id, x.name, y.amount FROM {a} x JOIN {b} y ON x.id = y.id",
    "SELECT x.id, x.name, y.amount AS ya FROM {a} x LEFT JOIN {b} y ON x.id = y.id",
    "SELECT x.id AS xid, y.id AS yid, y.name FROM {a} x RIGHT JOIN {c} y ON x.id = y.id",
    "SELECT x.id AS xid, y.id AS yid FROM {a} x FULL OUTER JOIN {b} y ON x.id = y.id",
    "SELECT * FROM {a} x LEFT SEMI JOIN {b} y ON x.id = y.id",
    "SELECT * FROM {a} x LEFT ANTI JOIN {b} y ON x.id = y.id",
    "SELECT id, name, x.amount AS xa, y.amount AS ya FROM {a} x JOIN {b} y USING (id, name)",
    "SELECT id, x.name AS xn, y.name AS yn FROM {a} x FULL JOIN {c} y USING (id)",
    "SELECT x.id, y.id AS yid FROM {a} x JOIN {b} y ON x.id = y.id AND x.amount < y.amount + 1",
    "SELECT x.id, y.name FROM {a} x CROSS JOIN {c} y",
    "SELECT x.id, y.id AS yid FROM {a} x JOIN {c} y ON x.id < y.id",
    "SELECT x.name, count(*) AS n, sum(y.amount) AS total FROM {a} x "
    "JOIN {b} y ON x.id = y.id GROUP BY x.name",
    "SELECT x.id, y.name, z.amount FROM {a} x JOIN {b} y ON x.id = y.id "
    "LEFT JOIN {c} z ON y.id = z.id",
    # WITH
    "WITH t AS (SELECT name, sum(amount) AS total FROM {a} GROUP BY name) "
    "SELECT * FROM t WHERE total > 5",
    "WITH x AS (SELECT * FROM {a} WHERE id IS NOT NULL), "
    "y AS (SELECT id, amount FROM x WHERE amount >= 10) "
    "SELECT * FROM y UNION ALL SELECT * FROM y",
    "WITH t(k, v) AS (SELECT id, amount FROM {b}) SELECT k, count(v) AS n FROM t GROUP BY k",
    "WITH t AS (SELECT id FROM {a} UNION SELECT id FROM {b}) "
    "SELECT count(*) AS n, count(id) AS ids FROM t",
    "SELECT * FROM (WITH t AS (SELECT id, name FROM {c}) SELECT * FROM t) s WHERE id > 4",
    "WITH t AS (SELECT * FROM {a}) SELECT * FROM t EXCEPT ALL SELECT * FROM {b}",
]


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    root = tmp_path_factory.mktemp("differential")
    paths = {}
    for name, (ddl, rows) in TABLES.items():
        path = root / name
        res = run_cli("sql", f"CREATE TABLE delta.`{path}` ({ddl}); "
                             f"INSERT INTO delta.`{path}` VALUES {rows}")
        assert res.returncode == EXIT_OK, res.describe()
        paths[name] = f"delta.`{path}`"
    return root, paths


def names_and_types(schema):
    return [(name, t) for name, t, _nullable in schema]


@pytest.mark.parametrize("index", range(len(QUERIES)))
def test_query_matches_spark(index, tables, spark):
    root, paths = tables
    query = QUERIES[index].format(**paths)
    ours = root / f"dg_{index}"
    res = run_cli("sql", f"CREATE TABLE delta.`{ours}` AS {query}")
    assert res.returncode == EXIT_OK, res.describe()
    theirs = spark.sql(query)
    assert names_and_types(schema_deltaguard(str(ours))) == \
        names_and_types(schema_form(theirs.schema.jsonValue())), query
    expected = sorted(canon_rows_from_arrow(theirs.toArrow()), key=_freeze)
    problems = diff_rows(rows_deltaguard(str(ours)), expected, "deltaguard", "Spark")
    assert not problems, f"{query}\n{problems}"
