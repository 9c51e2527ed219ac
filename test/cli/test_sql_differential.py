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
]

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
