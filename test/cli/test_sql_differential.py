"""Differential test of the query engine against Spark SQL (docs/sql.md): the same
queries over the same Delta tables (NULLs, duplicates, INT next to BIGINT); deltaguard
materialises each with CREATE TABLE ... AS (so its result is a Delta table with
types), Spark returns its result through Arrow; both must hold the same rows (as
multisets) under the same column names and types.

The tables are written by deltaguard and read by Spark by path; every query names
them as delta.`path`, which both dialects accept."""

import datetime

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


def _window_rows(count=60):
    """Rows for the window queries: four groups (one NULL), repeated and NULL values
    in every column, unique ids (ROWS frames and row_number order by id)."""
    rows = []
    for i in range(1, count + 1):
        grp = ["'a'", "'b'", "'c'", "NULL"][i % 4] if i % 9 else "'a'"
        v = "NULL" if i % 5 == 0 else str((i * 7) % 11 - 3)
        x = "NULL" if i % 6 == 0 else repr(((i * 13) % 17) / 4)
        d = "NULL" if i % 7 == 0 else f"{(i * 37) % 1000 / 100:.2f}"
        rows.append(f"({i}, {grp}, {v}, {x}, {d})")
    return ", ".join(rows)


TABLES["w"] = ("id INT, grp STRING, v INT, x DOUBLE, d DECIMAL(8,2)", _window_rows())

# Values for the function library: non-ASCII text, an empty string, dates and
# timestamps before 1970 and on leap days, negative and zero numbers, a NULL row.
_F_DDL = "id INT, s STRING, t TIMESTAMP, d DATE, x DOUBLE, n INT"
_F_ROWS = ", ".join([
    "(1, 'hello world', TIMESTAMP'2024-03-05 13:45:10.123456', DATE'2024-03-05', 2.5, 3)",
    "(2, 'ÉCOLE été', TIMESTAMP'1999-12-31 23:59:59', DATE'2024-02-29', -1.5, -2)",
    "(3, '', TIMESTAMP'1969-07-20 20:17:40', DATE'1969-07-20', 0.0, 0)",
    "(4, NULL, NULL, NULL, NULL, NULL)",
    "(5, 'a,b,,c', TIMESTAMP'2024-12-30 00:00:00', DATE'2021-01-03', 100.0, 12)",
    "(6, '  padded  ', TIMESTAMP'2020-02-29 12:00:00', DATE'2023-01-31', 1e-3, 7)",
    "(7, 'foo123bar45', TIMESTAMP'2024-01-01 00:00:01', DATE'2024-12-31', -0.0, 1)",
])
TABLES["f"] = (_F_DDL, _F_ROWS)

# Typed rows for the generated queries (after QUERIES): every common type, NULLs in
# every column (each at its own stride), ties, a skewed key k (three rows in four are
# 1) and rows that are equal in every column (ids 3, 8 and 21 twice): ORDER BY id is
# a total order up to equal rows, which is enough for row_number, lag and ROWS frames.
_T_DDL = ("id INT, k INT, g STRING, ti TINYINT, si SMALLINT, i INT, bi BIGINT, "
          "db DOUBLE, dc DECIMAL(10,2), s STRING, dt DATE, ts TIMESTAMP, b BOOLEAN")
_T_WORDS = ["''", "'alpha'", "'Beta'", "'beta'", "'gamma'", "'été'", "'zeta'"]


def _typed_rows(count=60, twice=(3, 8, 21)):
    day0 = datetime.date(1969, 11, 30)
    time0 = datetime.datetime(1969, 12, 31, 20, 0, 0)
    rows = []
    for n in range(1, count + 1):
        def value(stride, text):
            return "NULL" if n % stride == 0 else text
        ti = {1: 127, 2: -128}.get(n, n * 5 % 21 - 10)
        dt = day0 + datetime.timedelta(days=n * 37 % 400)
        ts = time0 + datetime.timedelta(days=n * 7 % 23 * 5, seconds=n * 4513 % 3600,
                                        microseconds=n % 4 * 250000)
        row = ", ".join([
            str(n),
            value(11, "1" if n % 4 else str(2 + n // 4 % 4)),
            value(5, ["'p'", "'q'", "'r'"][n % 3]),
            value(6, str(ti)),
            value(7, str(n * 311 % 2001 - 1000)),
            value(8, str(n * 7 % 13 - 6)),
            value(9, str(n**3 * 2654435761 % 10**12 - 5 * 10**11)),
            value(10, repr((n * 13 % 17 - 8) / 4)),
            value(12, f"{(n * n * 4447 % 2001 - 1000) / 4:.2f}"),
            value(13, _T_WORDS[n % 7]),
            value(14, f"DATE'{dt.isoformat()}'"),
            value(15, f"TIMESTAMP'{ts.isoformat(' ')}'"),
            "NULL" if n % 5 == 3 else ("true" if n % 3 == 0 else "false"),
        ])
        rows += [f"({row})"] * (2 if n in twice else 1)
    return ", ".join(rows)


TABLES["t"] = (_T_DDL, _typed_rows())
# A dimension for {t}: BIGINT keys against t's INT k, a duplicate key (2), a key t
# lacks (9), NULL keys and an all-NULL row.
TABLES["dm"] = ("k BIGINT, g STRING, label STRING, w DOUBLE, since DATE",
                "(1, 'p', 'one', 0.5, DATE'2020-01-01'), (2, 'q', 'two', 1.5, NULL), "
                "(2, 'q', 'two again', 2.5, DATE'1969-07-20'), "
                "(3, NULL, 'three', NULL, DATE'2024-02-29'), "
                "(5, 'r', 'five', -1.0, DATE'2000-01-01'), "
                "(9, 'z', 'nine', 4.0, DATE'1999-12-31'), "
                "(NULL, 'p', 'no key', 3.0, NULL), "
                "(NULL, NULL, NULL, NULL, NULL)")

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
    "SELECT id, name, x.amount AS xa, y.amount AS ya FROM {a} x JOIN {b} y USING (id, "
    "name)",
    "SELECT id, x.name AS xn, y.name AS yn FROM {a} x FULL JOIN {c} y USING (id)",
    "SELECT x.id, y.id AS yid FROM {a} x JOIN {b} y ON x.id = y.id AND x.amount < "
    "y.amount + 1",
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
    "WITH t(k, v) AS (SELECT id, amount FROM {b}) SELECT k, count(v) AS n FROM t GROUP "
    "BY k",
    "WITH t AS (SELECT id FROM {a} UNION SELECT id FROM {b}) "
    "SELECT count(*) AS n, count(id) AS ids FROM t",
    "SELECT * FROM (WITH t AS (SELECT id, name FROM {c}) SELECT * FROM t) s WHERE id > 4",
    "WITH t AS (SELECT * FROM {a}) SELECT * FROM t EXCEPT ALL SELECT * FROM {b}",
    # window functions: ranking over ties and NULLs, offsets, every frame kind
    "SELECT id, row_number() OVER (PARTITION BY grp ORDER BY id) AS rn FROM {w}",
    "SELECT id, rank() OVER (PARTITION BY grp ORDER BY v) AS r, "
    "dense_rank() OVER (PARTITION BY grp ORDER BY v DESC) AS dr FROM {w}",
    "SELECT id, rank() OVER (ORDER BY v NULLS LAST) AS r FROM {w}",
    "SELECT id, dense_rank() OVER (ORDER BY grp NULLS LAST, v) AS dr FROM {w}",
    "SELECT id, ntile(4) OVER (PARTITION BY grp ORDER BY id) AS t, "
    "ntile(7) OVER (ORDER BY id DESC) AS t7 FROM {w}",
    "SELECT id, percent_rank() OVER (PARTITION BY grp ORDER BY v) AS p, "
    "cume_dist() OVER (PARTITION BY grp ORDER BY v) AS c FROM {w}",
    "SELECT id, lag(v) OVER (PARTITION BY grp ORDER BY id) AS p, "
    "lead(v, 2) OVER (PARTITION BY grp ORDER BY id) AS n FROM {w}",
    "SELECT id, lag(v, 1, 0) OVER (ORDER BY id) AS p, "
    "lead(x, 1, -1.5) OVER (PARTITION BY grp ORDER BY id) AS n FROM {w}",
    "SELECT id, lag(v) IGNORE NULLS OVER (PARTITION BY grp ORDER BY id) AS p, "
    "lead(v) IGNORE NULLS OVER (PARTITION BY grp ORDER BY id) AS n FROM {w}",
    "SELECT id, sum(v) OVER (PARTITION BY grp ORDER BY id) AS s FROM {w}",
    "SELECT id, sum(v) OVER (PARTITION BY grp ORDER BY v) AS s, "
    "count(*) OVER (PARTITION BY grp ORDER BY v) AS c FROM {w}",
    "SELECT id, sum(v) OVER (PARTITION BY grp) AS s, avg(v) OVER (PARTITION BY grp) AS a, "
    "count(v) OVER (PARTITION BY grp) AS c FROM {w}",
    "SELECT id, min(v) OVER (PARTITION BY grp ORDER BY id) AS mn, "
    "max(x) OVER (PARTITION BY grp ORDER BY id) AS mx FROM {w}",
    "SELECT id, sum(v) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) AS s "
    "FROM {w}",
    "SELECT id, avg(x) OVER (PARTITION BY grp ORDER BY id "
    "ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS a FROM {w}",
    "SELECT id, min(v) OVER (PARTITION BY grp ORDER BY id ROWS BETWEEN 3 PRECEDING AND "
    "CURRENT ROW) AS mn, max(v) OVER (PARTITION BY grp ORDER BY id ROWS BETWEEN CURRENT "
    "ROW AND 2 FOLLOWING) AS mx FROM {w}",
    "SELECT id, sum(v) OVER (PARTITION BY grp ORDER BY id ROWS BETWEEN CURRENT ROW AND "
    "UNBOUNDED FOLLOWING) AS s FROM {w}",
    "SELECT id, count(v) OVER (ORDER BY id ROWS BETWEEN 3 FOLLOWING AND 5 FOLLOWING) AS c "
    "FROM {w}",
    "SELECT id, sum(v) OVER (PARTITION BY grp ORDER BY v RANGE BETWEEN 2 PRECEDING AND "
    "2 FOLLOWING) AS s FROM {w}",
    "SELECT id, count(*) OVER (ORDER BY v DESC RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) "
    "AS c FROM {w}",
    "SELECT id, sum(x) OVER (PARTITION BY grp ORDER BY x RANGE BETWEEN 0.5 PRECEDING AND "
    "0.5 FOLLOWING) AS s FROM {w}",
    "SELECT id, sum(d) OVER (PARTITION BY grp ORDER BY id) AS s, "
    "avg(d) OVER (PARTITION BY grp) AS a FROM {w}",
    "SELECT id, first_value(v) OVER (PARTITION BY grp ORDER BY id) AS f, "
    "last_value(v) OVER (PARTITION BY grp ORDER BY id) AS l FROM {w}",
    "SELECT id, first_value(v, true) OVER (PARTITION BY grp ORDER BY id ROWS BETWEEN 1 "
    "PRECEDING AND 1 FOLLOWING) AS f, last_value(v, true) OVER (PARTITION BY grp ORDER BY "
    "id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS l FROM {w}",
    "SELECT id, nth_value(v, 3) OVER (PARTITION BY grp ORDER BY id) AS n3 FROM {w}",
    "SELECT id, count(*) OVER () AS n, max(id) OVER () AS m FROM {w}",
    "SELECT * FROM {w} QUALIFY row_number() OVER (PARTITION BY grp "
    "ORDER BY v DESC NULLS LAST, id) = 1",
    "SELECT grp, v, id FROM (SELECT *, row_number() OVER (PARTITION BY grp "
    "ORDER BY id DESC) AS rn FROM {w}) t WHERE rn <= 2",
    "SELECT grp, sum(v) AS total, rank() OVER (ORDER BY sum(v) DESC) AS r FROM {w} "
    "GROUP BY grp",
    "SELECT grp, count(*) AS n, sum(count(*)) OVER () AS all_rows FROM {w} GROUP BY grp",
    "SELECT id, v - lag(v) OVER (PARTITION BY grp ORDER BY id) AS delta FROM {w}",
    "SELECT id, sum(v) OVER (PARTITION BY grp ORDER BY id) / "
    "count(*) OVER (PARTITION BY grp) AS share FROM {w}",
    "SELECT x.id, row_number() OVER (PARTITION BY y.name ORDER BY x.id) AS rn "
    "FROM {a} x JOIN {b} y ON x.id = y.id",
    "WITH r AS (SELECT grp, id, rank() OVER (PARTITION BY grp ORDER BY x DESC) AS rk "
    "FROM {w}) SELECT grp, count(*) AS n FROM r WHERE rk <= 3 GROUP BY grp",
    # subqueries: IN / EXISTS (correlated or not, as joins), NOT IN's NULLs, scalars
    "SELECT * FROM {a} WHERE id IN (SELECT id FROM {b})",
    "SELECT * FROM {a} WHERE id NOT IN (SELECT id FROM {c})",
    "SELECT * FROM {a} WHERE id NOT IN (SELECT id FROM {b})",
    "SELECT * FROM {a} WHERE id NOT IN (SELECT id FROM {c} WHERE id > 100)",
    "SELECT * FROM {a} x WHERE EXISTS (SELECT 1 FROM {b} y WHERE y.id = x.id "
    "AND y.amount > 5)",
    "SELECT * FROM {a} x WHERE NOT EXISTS (SELECT 1 FROM {c} y WHERE y.id = x.id)",
    "SELECT * FROM {a} WHERE EXISTS (SELECT 1 FROM {c} WHERE id > 5)",
    "SELECT id, amount FROM {a} WHERE amount > (SELECT avg(amount) FROM {b})",
    "SELECT id, (SELECT max(amount) FROM {c}) AS m FROM {a}",
    "SELECT id, id IN (SELECT id FROM {c}) AS inc FROM {a} WHERE id IS NOT NULL",
    "SELECT * FROM {a} WHERE id = 1 OR id IN (SELECT id FROM {c})",
    "SELECT name, count(*) AS n FROM {a} GROUP BY name "
    "HAVING count(*) >= (SELECT count(*) FROM {c})",
    "SELECT * FROM {w} o WHERE v IN (SELECT v FROM {w} i WHERE i.grp = o.grp "
    "AND i.id > o.id)",
    "SELECT grp, id FROM {w} o WHERE NOT EXISTS (SELECT 1 FROM {w} i "
    "WHERE i.grp = o.grp AND i.v > o.v)",
    "SELECT * FROM {a} x WHERE x.amount NOT IN (SELECT amount FROM {b} y "
    "WHERE y.name = x.name)",
    "SELECT * FROM {b} WHERE name IN (SELECT name FROM {a} WHERE id IN "
    "(SELECT id FROM {c} UNION ALL SELECT 2))",
    # correlated scalar subqueries: as grouped LEFT JOINs, also in aggregate queries
    "SELECT x.id, (SELECT count(*) FROM {b} y WHERE y.id = x.id) AS n, "
    "(SELECT sum(amount) FROM {b} y WHERE y.name = x.name) AS s FROM {a} x",
    "SELECT name, sum(amount) AS total FROM {a} x GROUP BY name "
    "HAVING sum(amount) > (SELECT min(amount) FROM {b} y WHERE y.name = x.name)",
    "SELECT name, (SELECT max(amount) FROM {b} y WHERE y.name = x.name) AS m, "
    "count(*) AS n FROM {a} x GROUP BY name, m",
    "SELECT grp, sum((SELECT count(*) FROM {w} i WHERE i.grp = o.grp AND i.v > o.v)) "
    "AS above FROM {w} o GROUP BY grp",
    "SELECT grp, count(*) AS n FROM {w} o WHERE v > (SELECT avg(v) FROM {w} i "
    "WHERE i.grp = o.grp) GROUP BY grp",
    # correlated EXISTS of one equality outside WHERE conjuncts: the IN it means
    "SELECT * FROM {a} x WHERE x.amount > 15 OR EXISTS (SELECT 1 FROM {b} y "
    "WHERE y.id = x.id AND y.amount < 10)",
    "SELECT id, EXISTS (SELECT 1 FROM {b} y WHERE y.name = x.name), "
    "NOT EXISTS (SELECT 1 FROM {c} y WHERE y.id = x.id) AS nc FROM {a} x",
    "SELECT grp, count(*) AS n FROM {w} o GROUP BY grp "
    "HAVING EXISTS (SELECT 1 FROM {w} i WHERE i.grp = o.grp AND i.v > 6)",
    # any other correlated EXISTS there: (SELECT count(*) ...) > 0
    "SELECT id, EXISTS (SELECT 1 FROM {b} y WHERE y.name = x.name AND y.amount < "
    "x.amount) FROM {a} x",
    "SELECT grp, v FROM {w} o WHERE v < 2 OR NOT EXISTS (SELECT 1 FROM {w} i "
    "WHERE i.grp = o.grp AND i.v > o.v)",
    # correlated IN outside WHERE conjuncts (no NULL on either side: there Spark's
    # existence join gives false where SQL's IN is NULL, docs/behaviour.md)
    "SELECT id, v IN (SELECT i.v + 1 FROM {w} i WHERE i.grp = o.grp AND i.v IS NOT "
    "NULL) AS nxt, v NOT IN (SELECT i.v FROM {w} i WHERE i.v IS NOT NULL AND i.x > "
    "o.x) AS top FROM {w} o WHERE v IS NOT NULL",
    "SELECT id, v FROM {w} o WHERE v > 4 OR v IN (SELECT i.v - 2 FROM {w} i WHERE "
    "i.grp = o.grp AND i.id > o.id AND i.v IS NOT NULL)",
    # correlated collect_list/collect_set: an empty array without subquery rows
    "SELECT id, (SELECT sort_array(collect_set(i.v)) FROM {w} i WHERE i.grp = o.grp "
    "AND i.id < o.id) AS before, size((SELECT collect_list(i.v) FROM {w} i WHERE "
    "i.grp = o.grp AND i.v > o.v)) AS above FROM {w} o",
    # collections meet at a common type (array() meets any array), CAST part by part
    "SELECT id, coalesce(if(v > 3, array(v, x), NULL), array()) AS a, "
    "CAST(array(v, NULL) AS ARRAY<STRING>) AS t, nvl(if(v > 5, named_struct('a', v), "
    "NULL), named_struct('a', 0L)) AS s, CAST(map(grp, d) AS MAP<STRING, DOUBLE>) AS m "
    "FROM {w} WHERE grp IS NOT NULL",
    # array functions over collected groups and over rows with NULLs
    "SELECT grp, array_join(array_sort(collect_list(v)), ',') AS j, "
    "slice(array_sort(collect_list(v)), 2, 2) AS s, array_max(collect_list(x)) AS mx, "
    "array_position(array_sort(collect_list(v)), 3) AS p, "
    "array_compact(reverse(array_sort(collect_list(d)))) AS r FROM {w} GROUP BY grp",
    "SELECT id, concat(array(v), array(id)) AS c, array_union(array(v, id), "
    "array(id, 1L)) AS u, array_except(array(v, NULL), array(id)) AS e, "
    "arrays_overlap(array(v), array(id, NULL)) AS o, array_remove(array(v, id), 3) AS rm, "
    "array_append(array(v), id) AS ap, sequence(1, id % 4 + 1) AS sq FROM {w}",
    # lambdas: outer columns, a parameter shadowing a column, positions, nested
    # lambdas, Spark's names for unaliased calls
    "SELECT grp, transform(sort_array(collect_list(v)), (x, i) -> x * 10 + i), "
    "filter(collect_list(x), v -> v > 0.5) AS pos, exists(collect_list(v), v -> v IS "
    "NULL) AS anynull, forall(collect_list(v), x -> x < 100) AS small, "
    "aggregate(collect_list(v), 0L, (acc, x) -> acc + coalesce(x, 0), acc -> acc * 2) "
    "AS s2 FROM {w} GROUP BY grp",
    "SELECT id, transform(array(v, id), x -> x + v) AS t, zip_with(array(v), array(id, "
    "x), (p, q) -> p * q) AS z, transform(array(array(v), array(id)), a -> "
    "transform(a, y -> y + size(a))) AS n, aggregate(array(v, id), 0, (a, x) -> a + x) "
    "FROM {w}",
    # the function library (docs/sql.md "Functions"): values, NULLs, and the column
    # names Spark gives unaliased calls

    # strings
    "SELECT id, concat_ws('-', s, 'x', NULL, s) AS r FROM {f}",
    "SELECT id, concat_ws(s, 'a', 'b') AS r FROM {f}",
    "SELECT id, lpad(s, 8, 'xy') AS l, rpad(s, 8, 'xy') AS r, lpad(s, 3) AS l3, rpad(s, "
    "n) AS rn FROM {f}",
    "SELECT id, lpad(s, 4, '') AS r FROM {f}",
    "SELECT id, initcap(s) AS r FROM {f}",
    "SELECT id, instr(s, 'o') AS i, locate('o', s) AS l, locate('o', s, 6) AS l6, "
    "locate('o', s, n) AS ln FROM {f}",
    "SELECT id, replace(s, 'o', '0') AS r, replace(s, 'l') AS r2, replace(s, '', 'z') "
    "AS r3 FROM {f}",
    "SELECT id, translate(s, 'lo ', 'L0') AS r FROM {f}",
    "SELECT id, regexp_extract(s, '([a-z]+)([0-9]+)', 1) AS g1, regexp_extract(s, "
    "'([a-z]+)([0-9]+)', 2) AS g2, regexp_extract(s, '[a-z]+', 0) AS g0 FROM {f}",
    "SELECT id, regexp_extract(s, '(a)|(o)', 2) AS r FROM {f}",
    "SELECT id, regexp_replace(s, '[aeiou]', '*') AS r, regexp_replace(s, "
    "'([a-z]+)([0-9]+)', '$2$1') AS sw FROM {f}",
    "SELECT id, s RLIKE '^[a-z ]+$' AS m, regexp_like(s, 'o+') AS l FROM {f}",
    "SELECT id, reverse(s) AS r, repeat(s, 2) AS rr, left(s, 3) AS l, right(s, 3) AS "
    "rt, left(s, n) AS ln FROM {f}",
    "SELECT id, ascii(s) AS a, octet_length(s) AS o, bit_length(s) AS b, length(s) AS "
    "len FROM {f}",
    "SELECT id, startswith(s, 'he') AS sw, endswith(s, 'ld') AS ew, contains(s, 'o') AS "
    "c FROM {f}",
    "SELECT id, btrim(s) AS b, btrim(s, ' p') AS bp FROM {f}",
    "SELECT id, split_part(s, ',', 2) AS p2, split_part(s, ',', -1) AS pl, "
    "split_part(s, ',', 9) AS p9 FROM {f}",
    "SELECT id, concat(space(n), s) AS r FROM {f} WHERE n >= 0",
    "SELECT id, upper(s) AS u, lower(s) AS l, trim(s) AS t FROM {f}",
    # math
    "SELECT id, pow(x, 2) AS p, power(2, n) AS p2, sqrt(x) AS s, cbrt(x) AS c, exp(x) "
    "AS e FROM {f}",
    "SELECT id, ln(x) AS l, log10(x) AS l10, log2(x) AS l2, log(2, x) AS lb, log(x) AS "
    "l1 FROM {f}",
    "SELECT id, sign(x) AS s, signum(n) AS sn, degrees(x) AS dg, radians(x) AS rd FROM {f}",
    "SELECT id, sin(x) AS s, cos(x) AS c, tan(x) AS t, atan(x) AS a, atan2(x, 2) AS a2 "
    "FROM {f}",
    "SELECT id, floor(x) AS f, ceil(x) AS c, ceiling(n) AS cn, floor(CAST(x AS "
    "DECIMAL(10,3))) AS fd, ceil(CAST(x AS DECIMAL(10,3))) AS cd FROM {f}",
    "SELECT id, mod(n, 3) AS m, pmod(n, 3) AS p, pmod(x, 2) AS px, n % 5 AS r FROM {f}",
    "SELECT id, bround(x, 0) AS b, round(x, 0) AS r, bround(CAST(x AS DECIMAL(10,3)), "
    "0) AS bd, bround(n, -1) AS bn FROM {f}",
    "SELECT id, greatest(n, 2, id) AS g, least(n, 2, id) AS l, greatest(x, n) AS gx, "
    "least(s, 'b') AS ls FROM {f}",
    "SELECT pi() AS p, e() AS e",
    # date and time
    "SELECT id, hour(t) AS h, minute(t) AS m, second(t) AS s FROM {f}",
    "SELECT id, dayofweek(d) AS dw, weekday(d) AS wd, dayofyear(d) AS dy, weekofyear(d) "
    "AS wy, quarter(d) AS q FROM {f}",
    "SELECT id, dayofweek(t) AS dw, weekofyear(t) AS wy, year(t) AS y, month(t) AS mo, "
    "day(t) AS dd FROM {f}",
    "SELECT id, datediff(d, DATE'2024-01-01') AS dd, datediff(t, d) AS dt, date_diff(d, "
    "t) AS d2 FROM {f}",
    "SELECT id, months_between(t, d) AS mb, months_between(d, TIMESTAMP'2000-02-29 "
    "10:00:00', false) AS mbf FROM {f}",
    "SELECT id, add_months(d, n) AS a, add_months(d, -13) AS b, last_day(d) AS l FROM {f}",
    "SELECT id, date_format(t, 'yyyy-MM-dd HH:mm:ss.SSS') AS a, date_format(t, 'EEE, d "
    "MMM yy h:mm a') AS b, date_format(d, 'EEEE MMMM D Q') AS c FROM {f}",
    "SELECT id, date_trunc('YEAR', t) AS y, date_trunc('quarter', t) AS q, "
    "date_trunc('MM', t) AS m, date_trunc('week', t) AS w, date_trunc('DAY', t) AS dd, "
    "date_trunc('hour', t) AS h, date_trunc('second', t) AS s FROM {f}",
    "SELECT id, trunc(d, 'YEAR') AS y, trunc(d, 'QUARTER') AS q, trunc(d, 'MONTH') AS "
    "m, trunc(d, 'WEEK') AS w FROM {f}",
    "SELECT id, unix_timestamp(t) AS u, to_unix_timestamp(d) AS ud, unix_seconds(t) AS "
    "us, unix_date(d) AS ud2 FROM {f}",
    "SELECT id, from_unixtime(unix_timestamp(t)) AS f, from_unixtime(n * 100000, "
    "'yyyy/MM/dd HH') AS g FROM {f}",
    "SELECT id, make_date(2000 + n, 2, 28) AS m, timestamp_seconds(n * 86400) AS ts, "
    "date_from_unix_date(n) AS dd FROM {f} WHERE n > 0",
    "SELECT unix_timestamp('2024-03-05 10:11:12') AS a, unix_timestamp('05/03/2024', "
    "'dd/MM/yyyy') AS b",
    # hashing
    "SELECT id, md5(s) AS m, sha1(s) AS s1, sha2(s, 256) AS s2, sha2(s, 512) AS s5, "
    "sha2(s, 0) AS s0, crc32(s) AS c FROM {f}",
    "SELECT id, sha2(s, 224) AS a, sha2(s, 384) AS b, sha(s) AS c FROM {f}",
    # names as Spark spells them (no aliases)
    "SELECT lpad(s, 5, '.'), instr(s, 'o'), floor(x), ceil(x), greatest(n, 1), "
    "date_format(t, 'yyyy') FROM {f}",
    "SELECT pow(x, 2), mod(n, 2), datediff(d, d), sha2(s, 256), concat_ws(',', s, s) "
    "FROM {f}",
    "SELECT ceiling(x), sign(x), signum(x), position('o', s), date_diff(d, d), sha(s), "
    "power(x, 2), ln(x), log(x), log(2, x) FROM {f}",
    "SELECT bround(x, 1), pmod(n, 2), greatest(x, 1), least(x, 1), hour(t), "
    "dayofweek(d), weekofyear(d), months_between(t, d), add_months(d, 1), last_day(d) "
    "FROM {f}",
    "SELECT date_trunc('YEAR', t), trunc(d, 'MM'), unix_timestamp(t), from_unixtime(n), "
    "make_date(2020, 1, 1), regexp_extract(s, 'o', 0), regexp_replace(s, 'o', 'x'), "
    "translate(s, 'a', 'b'), initcap(s), btrim(s) FROM {f}",
    "SELECT md5(s), crc32(s), split_part(s, ',', 1), left(s, 1), right(s, 1), repeat(s, "
    "1), reverse(s), ascii(s), startswith(s, 'a'), contains(s, 'a') FROM {f}",
    "SELECT lpad(s, 3), rpad(s, 3), regexp_extract(s, '(o)'), replace(s, 'l'), btrim(s, "
    "'x'), locate('o', s), to_unix_timestamp(t), split_part(s, ',', 1), concat_ws('-', "
    "s) FROM {f}",
    "SELECT id, regexp_replace(s, 'o', '0', 6) AS r, regexp_replace(s, '^.', '_', 2) AS "
    "r2 FROM {f}",
    "SELECT regexp_replace(s, 'o', '0', 6), regexp_extract(s, '(o)', 1), date_format(d, "
    "'yyyy'), datediff(t, d), bround(n, 0), greatest(s, 'a') FROM {f}",
    # the aggregate library and arrays (docs/sql.md "Aggregates", "Arrays"); max_by and
    # min_by without ties (Spark leaves ties unspecified)
    "SELECT grp, stddev(v) AS s, stddev_pop(v) AS sp, variance(x) AS vs, var_pop(d) "
    "AS vp, std(x) AS st FROM {w} GROUP BY grp",
    "SELECT stddev_samp(x), var_samp(v), stddev(d) FROM {w}",
    "SELECT grp, count_if(v > 0) AS c, bool_and(v > -3) AS ba, bool_or(x > 3) AS bo, "
    "every(id > 0) AS e FROM {w} GROUP BY grp",
    "SELECT grp, max_by(id, v) AS mx, min_by(id, v) AS mn, max_by(x, d) AS mxd, "
    "min_by(d, x) AS mnd FROM {w} GROUP BY grp",
    "SELECT grp, approx_count_distinct(v) AS a, approx_count_distinct(x) AS b, "
    "approx_count_distinct(grp) AS c, approx_count_distinct(d) AS e FROM {w} GROUP BY "
    "grp",
    "SELECT grp, percentile_approx(v, 0.5) AS p5, percentile_approx(x, 0.9) AS p9, "
    "percentile_approx(d, 0.25) AS pd, approx_percentile(id, 0.0) AS p0, "
    "percentile_approx(id, 1.0) AS p1 FROM {w} GROUP BY grp",
    "SELECT grp, percentile(v, 0.5) AS p5, percentile(x, 0.3) AS p3, median(d) AS md, "
    "median(id) AS mi FROM {w} GROUP BY grp",
    "SELECT grp, size(collect_set(v)) AS ns, size(collect_list(v)) AS nl FROM {w} "
    "GROUP BY grp",
    "SELECT grp, count(DISTINCT v) AS dv, sum(DISTINCT v) AS sv, count(DISTINCT v, x) "
    "AS dvx FROM {w} GROUP BY grp",
    "SELECT stddev(v), percentile_approx(v, 0.5), median(x), count_if(v IS NULL), "
    "max_by(grp, id), approx_count_distinct(grp), percentile(id, 0.75) FROM {w}",
    "SELECT name, collect_list(amount) AS l, first(amount) AS f, last(amount) AS la "
    "FROM (SELECT * FROM {a} ORDER BY id) GROUP BY name",
    "SELECT grp, min_by(id, v) AS a, min_by(id, x) AS b, max_by(id, x) AS c, "
    "max_by(id, grp) AS d FROM {w} GROUP BY grp",
    "SELECT grp, sort_array(collect_set(v)) AS s, sort_array(collect_set(x), false) "
    "AS sd, size(collect_list(v)) AS n, array_distinct(collect_list(v)) IS NOT NULL "
    "AS d FROM {w} GROUP BY grp",
    "SELECT id, array(id, v, NULL) AS a, size(array(x, 1.5)) AS n, "
    "element_at(array(grp, 'z'), -1) AS e, element_at(array(v, id), 2) AS e2, "
    "array_contains(array(v, 3), 3) AS c, array_contains(array(v, NULL), 1) AS cn "
    "FROM {w}",
    "SELECT id, sort_array(array(v, id, NULL, 2)) AS s, sort_array(array(v, id, "
    "NULL), false) AS sd, array_distinct(array(v, v, id, NULL, NULL)) AS d, "
    "array_sort(array(x, 1.0)) AS so FROM {w}",
    "SELECT size(array()) AS n, array(1, 2L) AS a, array('a', NULL) AS b, "
    "array(DATE'2024-01-01', NULL) AS c",
    "SELECT grp, collect_list(DISTINCT v) IS NOT NULL AS c, "
    "percentile_approx(DISTINCT v, 0.5) AS p, stddev(DISTINCT v) AS s FROM {w} GROUP "
    "BY grp",
    # JSON and structs (docs/sql.md "Functions"); braces are doubled for str.format
    "SELECT id, get_json_object(concat('{{\"a\":', n, ',\"x\":', x, ',\"s\":\"', s, "
    "'\",\"l\":[', n, ',{{\"k\":', x, '}}]}}'), '$.a') AS a, "
    "get_json_object(concat('{{\"x\":', x, '}}'), '$.x') AS gx, "
    "get_json_object(concat('{{\"l\":[', n, ',{{\"k\":', x, '}}]}}'), '$.l[1].k') AS k, "
    "get_json_object(concat('{{\"l\":[', n, ',{{\"k\":', x, '}}]}}'), '$.l') AS l FROM "
    "{f}",
    "SELECT id, get_json_object(concat('{{\"s\":\"', s, '\"}}'), '$.s') AS s1, "
    "get_json_object(concat('{{\"s\":\"', s, '\"}}'), '$[''s'']') AS s2, "
    "get_json_object(s, '$.a') AS bad, get_json_object(concat('[{{\"b\":', n, "
    "'}},{{\"b\":', id, '}}]'), '$[*].b') AS w FROM {f}",
    "SELECT id, to_json(named_struct('id', id, 's', s, 't', t, 'd', d, 'x', x, 'arr', "
    "array(n, id))) AS j FROM {f}",
    "SELECT id, to_json(array(x, n)) AS a, to_json(named_struct('inner', "
    "named_struct('v', n, 'w', s))) AS nested FROM {f}",
    "SELECT id, from_json(concat('{{\"a\":', coalesce(CAST(n AS STRING), 'null'), "
    "',\"s\":\"', coalesce(s, ''), '\",\"x\":', coalesce(x, 0D), '}}'), 'a INT, s STRING, x "
    "DOUBLE, missing BIGINT') AS r FROM {f}",
    "SELECT id, from_json(concat('{{\"a\":[', coalesce(CAST(n AS STRING), ''), "
    "'],\"o\":{{\"b\":\"', id, '\"}}}}'), 'a ARRAY<INT>, o STRUCT<b: STRING>, t TIMESTAMP') "
    "AS r, from_json(s, 'a INT') AS bad FROM {f}",
    "SELECT id, named_struct('id', id, 'name', s) AS ns, struct(id, s, x + 1) AS st "
    "FROM {f}",
    "SELECT id, to_json(collect_list(named_struct('k', n))) AS j FROM {f} GROUP BY id",
    # generators: explode/posexplode/inline in the select list and LATERAL VIEW, split
    "SELECT id, explode(split(s, ',')) AS part FROM {f}",
    "SELECT id, explode(split(s, ' ')) FROM {f}",
    "SELECT id, posexplode(array(n, id, NULL)) FROM {f}",
    "SELECT id, explode_outer(CASE WHEN n > 0 THEN array(n, n + 1) END) AS v FROM {f}",
    "SELECT id, t.v FROM {f} LATERAL VIEW explode(array(n, id)) t AS v",
    "SELECT id, v FROM {f} LATERAL VIEW OUTER explode(CASE WHEN n > 0 THEN array(n) "
    "END) t AS v",
    "SELECT id, p, w FROM {f} LATERAL VIEW posexplode(split(s, '')) t AS p, w WHERE p "
    "< 3",
    "SELECT id, a, b FROM {f} LATERAL VIEW explode(array(n, id)) t1 AS a LATERAL VIEW "
    "explode(array(a, 0)) t2 AS b",
    "SELECT id, k, q FROM {f} LATERAL VIEW inline(array(named_struct('k', n, 'q', s), "
    "named_struct('k', id, 'q', 'z'))) t",
    "SELECT part, count(*) AS c FROM (SELECT explode(split(s, ',')) AS part FROM {f}) "
    "GROUP BY part",
    "SELECT grp, count(*) AS c, sum(v) AS sv FROM {w} LATERAL VIEW explode(array(v, "
    "id)) t AS v2 GROUP BY grp",
    "SELECT x.id, y.name, tag FROM {a} x JOIN {b} y ON x.id = y.id LATERAL VIEW "
    "explode(array(x.name, y.name)) t AS tag",
    "SELECT id, split(s, ',') AS parts, split(s, ',', 2) AS two, size(split(s, 'o')) "
    "AS n FROM {f}",
    "SELECT * FROM {c} LATERAL VIEW posexplode(array(name, 'k')) t",
    # try_ functions, Spark's hash/xxhash64, format_string, time zones,
    # make_timestamp, maps and access with [] and ., json_tuple, schema_of_json
    'SELECT id, try_add(n, 2147483647) AS a, try_subtract(n, -2147483647) AS b, '
    'try_multiply(n, 1073741824) AS c, try_divide(x, n) AS d, try_mod(id, n) AS e '
    'FROM {f}',
    'SELECT id, try_divide(amount, id - 2) AS q, try_add(id, amount) FROM {a}',
    "SELECT id, try_element_at(split(s, ','), 3) AS third, try_element_at(array(1, "
    '2), n + 1) AS el FROM {f}',
    'SELECT id, hash(id, s) AS h, xxhash64(s, t, d) AS x, hash(x) AS hx, hash(t, d, '
    'n) AS ht FROM {f}',
    'SELECT id, hash(v, x, d) AS h, xxhash64(grp, d) AS x FROM {w}',
    'SELECT hash(*) AS h FROM {a}',
    "SELECT id, hash(array(id, n), named_struct('a', s)) AS h FROM {f}",
    "SELECT id, format_string('%s|%d|%5.2f|%-8s|%08.3f', s, n, x, s, x) AS f FROM {f}",
    "SELECT id, printf('%x %o %,d %+d %e', n, n, n * 1000, n, x) AS p FROM {f}",
    "SELECT grp, format_string('%s: %.1f', grp, sum(x)) AS f FROM {w} GROUP BY grp",
    "SELECT id, format_string('%10.4s|', s) AS g FROM {f}",
    "SELECT id, from_utc_timestamp(t, 'America/Los_Angeles') AS a, "
    "to_utc_timestamp(t, 'Asia/Kolkata') AS b, from_utc_timestamp(t, '+05:30') AS "
    "c, to_utc_timestamp(t, 'PST') AS e FROM {f}",
    "SELECT to_utc_timestamp(TIMESTAMP'2024-03-10 02:30:00', 'America/Los_Angeles') "
    "AS gap, to_utc_timestamp(TIMESTAMP'2024-11-03 01:30:00', "
    "'America/Los_Angeles') AS overlap, from_utc_timestamp(TIMESTAMP'2024-11-03 "
    "09:30:00', 'America/Los_Angeles') AS back",
    'SELECT id, make_timestamp(2024, 1 + id, id, n + 3, 30, x + 5) AS ts FROM {f} '
    'WHERE id IN (1, 2, 6)',
    'SELECT make_timestamp(2024, 2, 29, 23, 59, 60) AS a, make_timestamp(2024, 7, '
    "1, 12, 0, 0, 'Europe/Paris') AS b, make_timestamp(1969, 12, 31, 23, 59, "
    '59.999999) AS c',
    "SELECT id, map('a', id, 'b', n) AS m, map(s, n)[s] AS v FROM {f} WHERE s IS NOT NULL",
    "SELECT id, map_keys(map(id, s, 99, 'z')) AS k, map_values(map(id, s)) AS v, "
    'size(map(id, n)) AS sz FROM {f}',
    "SELECT id, element_at(map('x', n), 'x') AS a, element_at(map('x', n), 'y') AS "
    'b, map_contains_key(map(id, 1), 3) AS c FROM {f}',
    'SELECT id, map_from_arrays(array(1, 2), array(s, name)) AS m FROM (SELECT id, '
    's, s AS name FROM {f})',
    "SELECT id, map_entries(map('k', n)) AS e FROM {f}",
    "SELECT id, split(s, ' ')[0] AS first, array(id, n)[1] AS second FROM {f}",
    "SELECT id, named_struct('a', id, 'b', s).b AS b, array(named_struct('p', id), "
    "named_struct('p', n)).p AS ps FROM {f}",
    "SELECT k, v FROM (SELECT map('a', id, 'b', amount) AS m FROM {a}) LATERAL VIEW "
    'explode(m) t AS k, v',
    "SELECT explode(map('a', id, 'b', amount)) FROM {a}",
    "SELECT id, posexplode(map('x', n, 'y', id)) FROM {f}",
    "SELECT m['b'] AS b, count(*) AS c FROM (SELECT map('a', id, 'b', amount) AS m "
    "FROM {a}) GROUP BY m['b']",
    'SELECT json_tuple(\'{{"a":1,"b":{{"c":[1,2]}},"d":"x"}}\', \'a\', \'b\', \'d\', \'zz\')',
    "SELECT id, j.a, j.b FROM (SELECT id, to_json(named_struct('a', id, 'b', s)) AS "
    "js FROM {f}) LATERAL VIEW json_tuple(js, 'a', 'b') j AS a, b",
    "SELECT id, c0 FROM (SELECT id, CASE WHEN id = 2 THEN 'bad' ELSE "
    "to_json(named_struct('q', x)) END AS js FROM {f}) LATERAL VIEW json_tuple(js, "
    "'q') j",
    'SELECT schema_of_json(\'[{{"col":0}}]\') AS a, '
    'schema_of_json(\'{{"b":1.5,"a":[1,2.0],"c":null,"d":{{"x":true}},"e":[],"f":123456789012345678901234,"m":[1,"x"]}}\') '
    'AS b',
    'SELECT schema_of_json(\'1\') AS a, schema_of_json(\'"s"\') AS b, '
    "schema_of_json('[[1],[2.5]]') AS c",
    # library aggregates over windows, a generator next to aggregates,
    # struct(x AS name), CAST's column name, lag/lead defaults cast to the value
    'SELECT id, g, stddev(db) OVER (PARTITION BY g) AS sd, variance(i) OVER '
    '(PARTITION BY k) AS va FROM {t}',
    'SELECT id, sort_array(collect_set(g) OVER (PARTITION BY k)) AS cs, count_if(b) '
    'OVER (PARTITION BY g ORDER BY id) AS ci FROM {t}',
    'SELECT id, collect_list(i) OVER (PARTITION BY k ORDER BY id ROWS BETWEEN 2 '
    'PRECEDING AND CURRENT ROW) AS cl FROM {t}',
    'SELECT id, bool_and(b) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN UNBOUNDED '
    'PRECEDING AND CURRENT ROW) AS ba, bool_or(b) OVER (PARTITION BY g) AS bo FROM '
    '{t}',
    'SELECT id, median(db) OVER (PARTITION BY k) AS med, percentile(i, 0.25) OVER '
    '(PARTITION BY g) AS p25 FROM {t}',
    'SELECT id, stddev_pop(dc) OVER (PARTITION BY k ORDER BY id ROWS BETWEEN 1 '
    'PRECEDING AND 1 FOLLOWING) AS sp, var_pop(si) OVER (ORDER BY id) AS vp FROM '
    '{t}',
    'SELECT grp, id, collect_list(v) OVER (PARTITION BY grp ORDER BY id ROWS '
    'BETWEEN 3 PRECEDING AND 1 PRECEDING) AS prev3 FROM {w}',
    'SELECT grp, id, stddev(x) OVER (PARTITION BY grp ORDER BY id) AS run_sd FROM '
    '{w}',
    'SELECT k, explode(array_sort(collect_list(i))) AS v FROM {t} GROUP BY k',
    'SELECT g, count(*) AS n, posexplode(array_sort(collect_set(k))) FROM {t} GROUP '
    'BY g',
    'SELECT explode(array(min(id), max(id))) AS e FROM {t}',
    'SELECT grp, explode(array(sum(v), count(*))) FROM {w} GROUP BY grp',
    'SELECT id, struct(i AS a, s AS b) AS st, struct(id AS k, g).k AS kk FROM {t}',
    'SELECT to_json(struct(id AS key, s AS value, dt)) AS j FROM {t}',
    'SELECT CAST(db AS INT), try_cast(s AS INT), CAST(i AS STRING), CAST(i + 1 AS '
    'BIGINT) FROM {t}',
    'SELECT CAST(g AS STRING), count(*) AS n FROM {t} GROUP BY CAST(g AS STRING)',
    'SELECT id, lag(ti, 1, 0) OVER (ORDER BY id) AS l1, lead(si, 1, 7) OVER (ORDER '
    'BY id) AS l2, lead(dc, 1, 0) OVER (ORDER BY id) AS l3, lag(i, 1, 0L) OVER '
    '(ORDER BY id) AS l4 FROM {t}',
    'SELECT hash(*) AS h FROM {dm}',
    # named windows (WINDOW w AS ...) and the names Spark gives unaliased window calls
    'SELECT rank() OVER (ORDER BY id DESC), sum(v) OVER (PARTITION BY grp), '
    'row_number() OVER (PARTITION BY grp ORDER BY id), v + count(*) OVER () FROM '
    '{w}',
    'SELECT lag(v) OVER (ORDER BY id), lead(v, 2, 0) OVER (PARTITION BY grp ORDER '
    'BY id), first_value(v) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 '
    'FOLLOWING) FROM {w}',
    'SELECT grp, id, sum(v) OVER w AS s, row_number() OVER w AS rn, avg(x) OVER w2 '
    'AS a FROM {w} WINDOW w AS (PARTITION BY grp ORDER BY id), w2 AS (PARTITION BY '
    'grp)',
    'SELECT grp, id, rank() OVER w FROM {w} WINDOW w AS (PARTITION BY grp ORDER BY '
    'v DESC)',
    'SELECT grp, id, stddev(x) OVER w AS sd FROM {w} WINDOW w AS (PARTITION BY grp '
    'ORDER BY id) QUALIFY row_number() OVER w <= 2',
]

# --- generated queries: joins, windows and aggregates over {t} and {dm} ---------------
# Each list below is crossed with join kinds, partitions, frames or group keys; the
# choices rotate through the lists (index modulo length), so the queries are the same
# on every run. Orders that must be total (row_number, lag/lead, ntile, ROWS frames,
# first_value) end with id; ranks and RANGE frames are deterministic over ties anyway.

# Typed columns of {t}, each with a default of its type for lag/lead (a default of
# another type is cast to the column's, checked by a hand-written query above).
_T_COLUMNS = [("ti", "CAST(0 AS TINYINT)"), ("si", "CAST(-1 AS SMALLINT)"), ("i", "0"),
              ("bi", "0"), ("db", "-0.5"), ("dc", "1.50"), ("s", "'none'"),
              ("dt", "DATE'2000-01-01'"),
              ("ts", "TIMESTAMP'2000-01-01 00:00:00'"), ("b", "false")]
_T_NUMERIC = ["ti", "si", "i", "bi", "db", "dc"]
_JOIN_KINDS = ["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "LEFT SEMI JOIN",
               "LEFT ANTI JOIN"]


def _join_queries():
    out = []
    # {t} against the dimension: INT against BIGINT keys (skewed on the left, a
    # duplicate on the right, NULLs on both), STRING keys, two keys, a residual
    for on in ["x.k = y.k", "x.g = y.g", "x.k = y.k AND x.g = y.g",
               "x.k = y.k AND x.db < y.w"]:
        for kind in _JOIN_KINDS:
            cols = "x.id, x.k, x.g, x.s" if "SEMI" in kind or "ANTI" in kind else \
                "x.id, x.k, x.g, y.k AS yk, y.label, y.w"
            out.append(f"SELECT {cols} FROM {{t}} x {kind} {{dm}} y ON {on}")
    # the dimension on the left: the skewed key is on the side that is read whole
    for kind in ["JOIN", "LEFT JOIN", "FULL JOIN", "LEFT SEMI JOIN", "LEFT ANTI JOIN"]:
        cols = "x.*" if "SEMI" in kind or "ANTI" in kind else \
            "x.label, y.id, y.dc, y.dt"
        out.append(f"SELECT {cols} FROM {{dm}} x {kind} {{t}} y ON y.k = x.k")
    # self joins on each type (ties make many pairs), mixed widths, NULL-safe equality;
    # yv is the right side's last key
    for j, on in enumerate(["x.i = y.i", "x.ti = y.si", "x.s = y.s", "x.dt = y.dt",
                            "x.ts = y.ts", "x.dc = y.dc", "x.b = y.b", "x.i = y.bi",
                            "x.dc = y.db", "x.i <=> y.i", "x.g <=> y.g AND x.b <=> y.b"]):
        kind = _JOIN_KINDS[j % 4]
        out.append(f"SELECT x.id, y.id AS yid, x.i, y.{on.split('.')[-1]} AS yv "
                   f"FROM {{t}} x {kind} {{t}} y ON {on}")
    # USING: the joined columns once (the left's, the right's, or their coalesce)
    for kind in ["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"]:
        out.append(f"SELECT * FROM {{t}} x {kind} {{dm}} y USING (k, g)")
    out.append("SELECT k, count(*) AS n, count(label) AS l FROM {t} FULL JOIN {dm} "
               "USING (k) GROUP BY k")
    out.append("SELECT g, x.id, y.id AS yid FROM {t} x LEFT JOIN {t} y USING (g) "
               "WHERE x.i = 5")
    # CROSS and comma joins
    out.append("SELECT x.id, y.label FROM {t} x CROSS JOIN {dm} y WHERE x.db > y.w")
    out.append("SELECT count(*) AS n, count(y.k) AS yk, sum(x.ti) AS st, "
               "max(y.since) AS ms FROM {t} x CROSS JOIN {dm} y")
    out.append("SELECT x.id, y.label FROM {t} x, {dm} y WHERE x.k = y.k AND x.b")
    # three-way joins with GROUP BY and HAVING
    out += [
        "SELECT y.label, count(*) AS n, sum(z.si) AS ss, max(x.dt) AS md FROM {t} x "
        "JOIN {dm} y ON x.k = y.k JOIN {t} z ON z.i = x.i GROUP BY y.label",
        "SELECT y.label, z.label AS zl, count(*) AS n, avg(x.dc) AS a FROM {t} x "
        "LEFT JOIN {dm} y ON x.k = y.k LEFT JOIN {dm} z ON x.g = z.g "
        "GROUP BY y.label, z.label",
        "SELECT x.b, count(y.k) AS n, sum(y.w) AS sw, min(z.s) AS ms FROM {dm} y "
        "RIGHT JOIN {t} x ON x.k = y.k FULL JOIN {t} z ON z.id = x.id + 1 GROUP BY x.b",
        "SELECT x.g, count(*) AS n FROM {t} x LEFT SEMI JOIN {dm} y ON x.k = y.k "
        "JOIN {dm} z ON x.g = z.g GROUP BY x.g HAVING count(*) > 2",
        "SELECT y.k, count(DISTINCT x.id) AS n, sum(x.bi) AS sb FROM {t} x "
        "JOIN {dm} y ON x.k = y.k LEFT ANTI JOIN {t} z ON z.i = x.ti "
        "GROUP BY y.k HAVING sum(x.bi) IS NOT NULL",
    ]
    return out


_PARTITIONS = ["g", "k", "b", "g, b", ""]
_FRAMES = ["ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
           "ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING",
           "ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING",
           "ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING",
           "RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING",
           "ROWS BETWEEN 3 PRECEDING AND 1 PRECEDING", ""]


def _over(j, order="", frame=""):
    part = _PARTITIONS[j % len(_PARTITIONS)]
    parts = [f"PARTITION BY {part}" if part else "", f"ORDER BY {order}" if order else "",
             frame]
    return "OVER (" + " ".join(p for p in parts if p) + ")"


def _window_queries():
    out = []
    for j, (c, default) in enumerate(_T_COLUMNS):
        # ranking over the column's ties and NULLs, each direction and NULL placement
        nulls = ["", " NULLS LAST", " DESC", " DESC NULLS FIRST"][j % 4]
        out.append(f"SELECT id, {c}, row_number() {_over(j, f'{c}{nulls}, id')} AS rn, "
                   f"rank() {_over(j, c + nulls)} AS r, "
                   f"dense_rank() {_over(j + 1, c + nulls)} AS dr, "
                   f"ntile({j % 4 + 2}) {_over(j + 2, f'{c}, id DESC')} AS nt FROM {{t}}")
        out.append(f"SELECT id, percent_rank() {_over(j + 3, c)} AS pr, "
                   f"cume_dist() {_over(j, c + ' DESC')} AS cd FROM {{t}}")
        # offsets with a default of the column's type
        out.append(f"SELECT id, lag({c}) {_over(j, 'id')} AS p, "
                   f"lead({c}, 2, {default}) {_over(j + 1, 'id')} AS n, "
                   f"lag({c}, 3, {default}) {_over(j + 2, f'{c}, id')} AS p3 FROM {{t}}")
        # values over frames
        frame = _FRAMES[j % len(_FRAMES)]
        out.append(f"SELECT id, first_value({c}) {_over(j, 'id', frame)} AS f, "
                   f"last_value({c}, true) {_over(j + 1, f'{c} DESC, id', frame)} AS l, "
                   f"nth_value({c}, 2) {_over(j + 2, 'id', frame)} AS n2 FROM {{t}}")
        # min, max and count over frames (every type), sum and avg over numbers
        frame = _FRAMES[(j + 3) % len(_FRAMES)]
        aggs = [f"min({c}) {_over(j, 'id', frame)} AS mn",
                f"max({c}) {_over(j + 1, 'id DESC', frame)} AS mx",
                f"count({c}) {_over(j + 2, 'id', frame)} AS n"]
        if c in _T_NUMERIC:
            aggs += [f"sum({c}) {_over(j + 3, 'id', frame)} AS s",
                     f"avg({c}) {_over(j + 4, 'id', _FRAMES[j % 6])} AS a"]
        out.append(f"SELECT id, {', '.join(aggs)} FROM {{t}}")
    # running and whole-partition aggregates: the default frames, peers on ties
    for j, c in enumerate(_T_NUMERIC):
        out.append(f"SELECT id, sum({c}) {_over(j, 'i')} AS s, avg({c}) {_over(j)} AS a, "
                   f"count(*) {_over(j + 1, c)} AS n FROM {{t}}")
    # RANGE frames with offsets on numeric keys, ascending and descending (not on ti:
    # Spark's ti + 5 overflows TINYINT at 127)
    for j, (key, lo, hi) in enumerate([
            ("i", "3 PRECEDING", "1 FOLLOWING"),
            ("si DESC", "50 PRECEDING", "CURRENT ROW"),
            ("si", "CURRENT ROW", "250 FOLLOWING"),
            ("db", "0.5 PRECEDING", "0.5 FOLLOWING"),
            ("dc DESC", "100.5 PRECEDING", "20 FOLLOWING"),
            ("bi", "100000000000 PRECEDING", "CURRENT ROW")]):
        frame = f"RANGE BETWEEN {lo} AND {hi}"
        out.append(f"SELECT id, count(*) {_over(j, key, frame)} AS n, "
                   f"sum(dc) {_over(j, key, frame)} AS s, "
                   f"max(s) {_over(j + 1, key, frame)} AS m FROM {{t}}")
    # windows over groups, over joins, and QUALIFY
    out += [
        "SELECT g, sum(dc) AS s, rank() OVER (ORDER BY sum(dc) DESC) AS r, "
        "sum(count(*)) OVER (ORDER BY g ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS c "
        "FROM {t} GROUP BY g",
        "SELECT k, b, count(*) AS n, dense_rank() OVER (PARTITION BY b ORDER BY "
        "count(*)) AS dr, lag(max(dt)) OVER (PARTITION BY b ORDER BY k) AS p "
        "FROM {t} GROUP BY k, b",
        "SELECT x.id, y.label, row_number() OVER (PARTITION BY y.label "
        "ORDER BY x.id) AS rn, sum(y.w) OVER (PARTITION BY x.g) AS sw "
        "FROM {t} x JOIN {dm} y ON x.k = y.k",
        "SELECT * FROM {t} QUALIFY dense_rank() OVER (PARTITION BY k "
        "ORDER BY dc DESC) <= 2",
        "SELECT id, g, ts FROM {t} QUALIFY row_number() OVER (PARTITION BY g ORDER BY ts "
        "DESC, id) = 1 OR count(*) OVER (PARTITION BY g) < 3",
    ]
    return out


_GROUP_KEYS = ["k", "g", "b", "ti", "dt", "s", "dc", "g, b", "k, g", "year(ts)",
               "i % 3", "floor(db)"]
_MEASURES = [f"{f}({c})" for c in [c for c, _ in _T_COLUMNS]
             for f in ("count", "min", "max")] + \
    [f"{f}({c})" for c in _T_NUMERIC for f in ("sum", "avg")] + \
    [f"count(DISTINCT {c})" for c, _ in _T_COLUMNS] + \
    ["stddev(db)", "variance(dc)", "stddev_pop(si)", "var_pop(i)", "stddev_samp(bi)",
     "count_if(b)", "bool_and(b)", "bool_or(db > 0)", "every(i > -5)",
     "sort_array(collect_set(s))", "array_sort(collect_set(dt))", "size(collect_set(ti))",
     "sort_array(collect_set(b), false)", "count(DISTINCT g, b)", "sum(DISTINCT i)",
     "avg(DISTINCT dc)"]


def _aggregate_queries():
    out = []
    # every group key with a rotating slice of the measures (each measure appears)
    per = -(-len(_MEASURES) // len(_GROUP_KEYS))
    for j, key in enumerate(_GROUP_KEYS):
        ms = [_MEASURES[(j * per + n) % len(_MEASURES)] for n in range(per + 2)]
        sel = ", ".join(f"{m} AS m{n}" for n, m in enumerate(ms))
        out.append(f"SELECT {key}, count(*) AS n, {sel} FROM {{t}} GROUP BY {key}")
    # HAVING on counts, sums, averages and extremes of several types
    for j, having in enumerate(["count(*) > 2", "sum(si) IS NOT NULL", "avg(dc) > 0",
                                "max(dt) >= DATE'1970-06-01'", "min(s) < 'b'",
                                "bool_or(b) AND count(DISTINCT i) > 1"]):
        key = _GROUP_KEYS[j * 5 % len(_GROUP_KEYS)]
        out.append(f"SELECT {key}, count(*) AS n, sum(bi) AS sb, max(ts) AS mt "
                   f"FROM {{t}} GROUP BY {key} HAVING {having}")
    # the whole input, an empty input, unaliased names, DISTINCT
    out += [
        "SELECT count(*) AS n, count(DISTINCT k) AS dk, sum(ti) AS st, avg(si) AS asi, "
        "min(dc) AS mn, max(ts) AS mx, stddev(i) AS sd, bool_and(b) AS ba FROM {t}",
        "SELECT count(*) AS n, sum(dc) AS s, avg(db) AS a, min(dt) AS m, "
        "bool_or(b) AS bo, sort_array(collect_set(s)) AS cs FROM {t} WHERE id < 0",
        "SELECT k, count(*) AS n, sum(dc) AS s FROM {t} WHERE id < 0 GROUP BY k",
        "SELECT g, sum(ti), avg(dc), min(s), max(dt), count(DISTINCT b), count_if(i > 0) "
        "FROM {t} GROUP BY g",
        "SELECT DISTINCT g, b FROM {t}",
        "SELECT DISTINCT k, i % 2 AS odd FROM {t}",
        "SELECT CASE WHEN k = 1 THEN 'skew' ELSE 'rest' END AS part, count(*) AS n, "
        "sum(bi) AS sb, avg(ti) AS a FROM {t} GROUP BY CASE WHEN k = 1 THEN 'skew' "
        "ELSE 'rest' END",
        "SELECT month(dt) AS mo, b, count(*) AS n, max(dc) AS m FROM {t} "
        "GROUP BY month(dt), b",
        # try_ aggregates, str_to_map and range()
        "SELECT g, try_sum(bi) AS ts, try_avg(i) AS ta, try_sum(dc) AS td, "
        "try_avg(dc) AS tad FROM {t} GROUP BY g",
        "SELECT id, try_sum(si) OVER (PARTITION BY g ORDER BY id) AS r FROM {t}",
        "SELECT id, str_to_map(concat('a:', s, ',b:', k))['b'] AS b, "
        "size(str_to_map(concat('x=', s, '&y'), '&', '=')) AS n FROM {t}",
        "SELECT r.id, x.s, x.k FROM range(0, 70, 7) r LEFT JOIN {t} x ON r.id = x.id",
        "SELECT count(*) AS n, sum(id) AS s FROM range(5, 1000, 3)",
    ]
    return out


QUERIES += _join_queries() + _window_queries() + _aggregate_queries()

# Doubles are compared to 12 significant digits (docs/sql.md "Differential testing"):
# sums of doubles may add in another order than Spark's.
FLOAT_DIGITS = 12


def _tolerant(v):
    if isinstance(v, float):
        return float(f"{v:.{FLOAT_DIGITS}g}")
    if isinstance(v, (list, tuple)):
        return type(v)(_tolerant(x) for x in v)
    if isinstance(v, dict):
        return {k: _tolerant(x) for k, x in v.items()}
    return v


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
    # CREATE TABLE AS makes nested fields nullable (array elements too), as Spark's
    # own CTAS does, so Spark's query schema is compared in that form.
    return [(name, t.replace(" NOT NULL", "")) for name, t, _nullable in schema]


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
    expected = sorted((_tolerant(r) for r in canon_rows_from_arrow(theirs.toArrow())),
                      key=_freeze)
    actual = sorted((_tolerant(r) for r in rows_deltaguard(str(ours))), key=_freeze)
    problems = diff_rows(actual, expected, "deltaguard", "Spark")
    assert not problems, f"{query}\n{problems}"
