"""dg.sql and Session: the same statements and answers as `deltaguard sql`."""

import json

import pyarrow as pa
import pytest

import deltaguard as dg
from cli_helpers import run_cli


def _cli_rows(statements, warehouse):
    """The rows of the last statement as `deltaguard sql --format jsonl` prints them."""
    cli = run_cli("sql", statements, "--warehouse", warehouse, "--format", "jsonl")
    return [json.loads(line) for line in cli.stdout.splitlines() if line.strip()]


def test_sql_returns_arrow_and_matches_the_cli(tmp_path):
    wh = str(tmp_path / "wh")
    script = ("CREATE TABLE orders (id BIGINT, amount DECIMAL(10,2)) USING delta; "
              "INSERT INTO orders VALUES (1, 10.50), (2, 3.25); ")
    dg.sql(script, warehouse=wh)
    query = "SELECT id, amount * 2 AS double_amount FROM orders ORDER BY id"
    ours = dg.sql(query, warehouse=wh)
    theirs = _cli_rows(query, wh)
    assert [r["id"] for r in ours.to_pylist()] == [r["id"] for r in theirs] == [1, 2]
    assert [str(r["double_amount"]) for r in ours.to_pylist()] == \
        [str(r["double_amount"]) for r in theirs]


def test_session_keeps_set_use_and_views(tmp_path):
    s = dg.Session(warehouse=str(tmp_path / "wh"))
    s.sql("CREATE DATABASE bronze; USE bronze")
    assert s.current_database == "bronze"
    s.sql("CREATE TABLE t (x INT) USING delta")
    s.sql("SET spark.databricks.delta.schema.autoMerge.enabled = true")
    s.register("incoming", pa.table({"x": pa.array([1, 2], pa.int32()), "y": ["a", "b"]}))
    s.sql("INSERT INTO t SELECT * FROM incoming")  # new column y: auto merge is on
    assert s.sql("SELECT count(*) AS n, max(y) AS y FROM t").to_pylist() == [{"n": 2, "y": "b"}]
    s.unregister("incoming")
    with pytest.raises(dg.NotFoundError):
        s.sql("SELECT * FROM incoming")


def test_registered_view_types_are_conformed(tmp_path):
    import polars as pl

    s = dg.Session(warehouse=str(tmp_path / "wh"))
    s.register("p", pl.DataFrame({"name": ["a", "b"], "n": [1, 2]}))  # large strings
    assert s.sql("SELECT upper(name) AS u FROM p WHERE n > 1").to_pylist() == [{"u": "B"}]


def test_statement_result_and_errors(tmp_path):
    s = dg.Session(warehouse=str(tmp_path / "wh"))
    r = s.execute("CREATE TABLE t (x INT) USING delta")
    assert r.rows is None and r.version == 0 and "t" in r.message
    r = s.execute("INSERT INTO t VALUES (1)")
    assert r.version == 1
    assert s.execute("UPDATE t SET x = x + 1").version == 2
    assert s.execute("MERGE INTO t USING (SELECT 2 AS x) s ON t.x = s.x "
                     "WHEN MATCHED THEN DELETE").version == 3
    s.sql("INSERT INTO t VALUES (1)")
    assert s.execute("DELETE FROM t WHERE x = 1").version == 5
    with pytest.raises(dg.ParseError):
        s.sql("SELEC 1")
    with pytest.raises(dg.SchemaMismatchError):
        s.sql("INSERT INTO t VALUES ('not a number')")
    assert s.sql("SELECT count(*) AS n FROM t").to_pylist() == [{"n": 0}]
    assert s.sql("CREATE TABLE u (x INT) USING delta").num_columns == 0


def test_function_library_gives_the_cli_answers(tmp_path):
    """Scalar, aggregate and array functions answer the same from Python and the CLI."""
    wh = str(tmp_path / "wh")
    dg.sql("CREATE TABLE ev (g STRING, s STRING, t TIMESTAMP, x DOUBLE) USING delta; "
           "INSERT INTO ev VALUES ('a', 'hello world', TIMESTAMP'2024-03-05 13:45:10', 2.5), "
           "('a', NULL, NULL, 4.5), ('b', 'été', TIMESTAMP'1969-07-20 20:17:40', -1.0)",
           warehouse=wh)
    query = ("SELECT g, concat_ws('|', collect_list(initcap(s))) AS names, "
             "max_by(date_format(t, 'yyyy-MM-dd EEE'), x) AS latest, "
             "stddev_pop(x) AS sd, sort_array(collect_set(floor(x))) AS floors, "
             "md5(g) AS h FROM ev GROUP BY g ORDER BY g")
    ours = dg.sql(query, warehouse=wh).to_pylist()
    theirs = _cli_rows(query, wh)
    assert ours == theirs
    assert ours[0] == {"g": "a", "names": "Hello World", "latest": None, "sd": 1.0,
                       "floors": [2, 4], "h": "0cc175b9c0f1b6a831c399e269772661"}
    assert ours[1]["latest"] == "1969-07-20 Sun"
    with pytest.raises(dg.InvalidInputError, match="INVALID_INDEX_OF_ZERO"):
        dg.sql("SELECT split_part('a,b', ',', 0)", warehouse=wh)


def test_maps_hashes_and_try_functions_give_the_cli_answers(tmp_path):
    """This batch of functions (maps and access, hash/xxhash64, try_, format_string,
    time zones, named windows) answers the same from Python and the CLI."""
    wh = str(tmp_path / "wh")
    query = ("SELECT k, map('k', k)['k'] AS mv, hash(k, s) AS h, xxhash64(s) AS x, "
             "try_divide(10, k) AS q, format_string('%05.1f|%s', k * 1.5D, s) AS f, "
             "CAST(to_utc_timestamp(TIMESTAMP'2024-01-01 08:00:00', 'GMT+8') AS STRING) "
             "AS u, "
             "sum(k) OVER w AS run FROM VALUES (0, 'a'), (2, 'b') AS t(k, s) "
             "WINDOW w AS (ORDER BY k) ORDER BY k")
    ours = dg.sql(query, warehouse=wh).to_pylist()
    theirs = _cli_rows(query, wh)
    assert ours == theirs
    assert ours[0]["q"] is None and ours[1]["q"] == 5.0
    assert ours[1]["f"] == "003.0|b" and ours[1]["run"] == 2
    assert ours[0]["u"] == "2024-01-01 00:00:00"
    with pytest.raises(dg.InvalidInputError, match="DUPLICATED_MAP_KEY"):
        dg.sql("SELECT map(1, 2, 1, 3)", warehouse=wh)


def test_queries_past_the_memory_limit_give_the_cli_answers(tmp_path):
    """deltaguard.query.memoryLimit: a join and a window that spill answer as they do
    within memory, from Python and from the CLI."""
    wh = str(tmp_path / "wh")
    query = ("SELECT count(*) AS n, sum(f.id) AS s, count(d.k) AS matched, "
             "max(rn) AS top FROM (SELECT id, concat('v', id) AS v, row_number() OVER "
             "(PARTITION BY id % 100 ORDER BY id) AS rn FROM range(30000)) f "
             "LEFT JOIN (SELECT id AS k FROM range(0, 60000, 3)) d ON f.id = d.k")
    s = dg.Session(warehouse=wh)
    within = s.sql(query).to_pylist()
    s.sql("SET deltaguard.query.memoryLimit = 16k")
    past = s.sql(query).to_pylist()
    theirs = _cli_rows("SET deltaguard.query.memoryLimit = 16k; " + query, wh)
    assert past == within == theirs[-1:]
    assert within == [{"n": 30000, "s": 449985000, "matched": 10000, "top": 300}]
    with pytest.raises(dg.InvalidInputError, match="byte count"):
        s.sql("SET deltaguard.query.memoryLimit = lots")


def test_try_aggregates_and_str_to_map_give_the_cli_answers(tmp_path):
    """try_sum/try_avg (NULL where the sum overflows) and str_to_map answer the same
    from Python and the CLI."""
    wh = str(tmp_path / "wh")
    query = ("SELECT k, try_sum(x) AS s, try_avg(x) AS a, "
             "max(str_to_map(p, '&', '=')['b']) AS b FROM VALUES "
             "(1, 9223372036854775807L, 'a=1&b=2'), (1, 1L, 'b=3'), (2, 5L, 'c') "
             "AS t(k, x, p) GROUP BY k ORDER BY k")
    ours = dg.sql(query, warehouse=wh).to_pylist()
    theirs = _cli_rows(query, wh)
    assert ours == theirs
    assert ours[0]["s"] is None and ours[0]["b"] == "3"
    assert ours[1] == {"k": 2, "s": 5, "a": 5.0, "b": None}


def test_correlated_scalar_subqueries_give_the_cli_answers(tmp_path):
    """Correlated scalar subqueries in an aggregate query (HAVING, inside an
    aggregate) and with a non-equality correlation answer the same from Python and
    the CLI; a customer without orders gets the empty group's value (0, not NULL)."""
    wh = str(tmp_path / "wh")
    dg.sql("CREATE TABLE o (id INT, cust INT, amount INT); "
           "INSERT INTO o VALUES (1, 10, 5), (2, 20, 7), (3, 10, 12), (4, 30, 1)",
           warehouse=wh)
    query = ("SELECT cust, sum(amount) AS total, "
             "sum((SELECT count(*) FROM o i WHERE i.amount > x.amount)) AS above, "
             "(SELECT coalesce(sum(amount), 0) FROM o i WHERE i.cust = x.cust + 10) "
             "AS next_total FROM o x GROUP BY cust, 4 "
             "HAVING count(*) >= (SELECT count(*) FROM o i WHERE i.cust = x.cust) "
             "ORDER BY cust")
    ours = dg.sql(query, warehouse=wh).to_pylist()
    theirs = _cli_rows(query, wh)
    assert ours == theirs
    assert ours == [{"cust": 10, "total": 17, "above": 2, "next_total": 7},
                    {"cust": 20, "total": 7, "above": 1, "next_total": 1},
                    {"cust": 30, "total": 1, "above": 3, "next_total": 0}]


def test_exists_of_several_correlations_gives_the_cli_answers(tmp_path):
    """A correlated EXISTS of two conditions (one not an equality) in the select
    list and under OR answers the same from Python and the CLI: TRUE or FALSE, never
    NULL, named exists(<outer columns>) as Spark names it."""
    wh = str(tmp_path / "wh")
    dg.sql("CREATE TABLE o (id INT, cust INT, amount INT); "
           "CREATE TABLE c (cust INT, since INT); "
           "INSERT INTO o VALUES (1, 10, 5), (2, 20, 7), (3, NULL, 9), (4, 10, 12); "
           "INSERT INTO c VALUES (10, 6), (20, 9)", warehouse=wh)
    query = ("SELECT id, EXISTS (SELECT 1 FROM c WHERE c.cust = o.cust "
             "AND c.since < o.amount) FROM o WHERE id > 3 OR EXISTS "
             "(SELECT 1 FROM c WHERE c.cust = o.cust AND c.since > o.amount) "
             "ORDER BY id")
    ours = dg.sql(query, warehouse=wh).to_pylist()
    theirs = _cli_rows(query, wh)
    assert ours == theirs
    assert ours == [{"id": 1, "exists(cust, amount)": False},
                    {"id": 2, "exists(cust, amount)": False},
                    {"id": 4, "exists(cust, amount)": True}]


def test_correlated_in_in_the_select_list_gives_the_cli_answers(tmp_path):
    """A correlated IN in the select list answers the same from Python and the CLI:
    SQL's three-valued IN (NULL for a NULL x against rows), named as Spark names it."""
    wh = str(tmp_path / "wh")
    dg.sql("CREATE TABLE o (id INT, cust INT, amount INT); "
           "CREATE TABLE c (cust INT, amount INT); "
           "INSERT INTO o VALUES (1, 10, 5), (2, 20, 7), (3, 20, NULL), (4, 30, 1); "
           "INSERT INTO c VALUES (10, 5), (20, 6), (20, 8)", warehouse=wh)
    query = ("SELECT id, amount IN (SELECT c.amount FROM c WHERE c.cust = o.cust) "
             "FROM o ORDER BY id")
    ours = dg.sql(query, warehouse=wh).to_pylist()
    theirs = _cli_rows(query, wh)
    assert ours == theirs
    name = "(amount IN (listquery(cust)))"
    assert ours == [{"id": 1, name: True}, {"id": 2, name: False},
                    {"id": 3, name: None}, {"id": 4, name: False}]


def test_delete_with_correlated_exists_matches_the_cli(tmp_path):
    """DELETE ... WHERE NOT EXISTS (correlated by one equality) removes the same rows
    from Python as from the CLI (each on its own copy of the table)."""
    setup = ("CREATE TABLE t (id INT, v INT); CREATE TABLE s (id INT); "
             "INSERT INTO t VALUES (1, 10), (2, 20), (NULL, 30), (4, 40); "
             "INSERT INTO s VALUES (2), (4), (NULL)")
    delete = "DELETE FROM t WHERE NOT EXISTS (SELECT 1 FROM s WHERE s.id = t.id)"
    query = "SELECT id, v FROM t ORDER BY v"
    py_wh, cli_wh = str(tmp_path / "py"), str(tmp_path / "cli")
    dg.sql(setup, warehouse=py_wh)
    dg.sql(delete, warehouse=py_wh)
    run_cli("sql", setup + "; " + delete, "--warehouse", cli_wh)
    ours = dg.sql(query, warehouse=py_wh).to_pylist()
    theirs = _cli_rows(query, cli_wh)
    assert ours == theirs == [{"id": 2, "v": 20}, {"id": 4, "v": 40}]


def test_lambdas_and_nested_values_give_the_cli_answers(tmp_path):
    """Higher-order functions, the new array functions and a correlated collect_list
    answer the same from Python and the CLI."""
    wh = str(tmp_path / "wh")
    dg.sql("CREATE TABLE t (id INT, a ARRAY<INT>); "
           "INSERT INTO t VALUES (1, array(3, NULL, 1)), (2, array()), (3, NULL)",
           warehouse=wh)
    query = ("SELECT id, transform(a, (x, i) -> x * 10 + i) AS t, "
             "filter(a, x -> x IS NOT NULL) AS f, exists(a, x -> x > 2) AS e, "
             "aggregate(coalesce(a, array()), 0, (s, x) -> s + coalesce(x, 0)) AS s, "
             "array_join(a, '-') AS j, (SELECT sort_array(collect_list(i.id)) FROM t i "
             "WHERE i.id > o.id) AS later FROM t o ORDER BY id")
    ours = dg.sql(query, warehouse=wh).to_pylist()
    assert ours == _cli_rows(query, wh)
    assert ours == [
        {"id": 1, "t": [30, None, 12], "f": [3, 1], "e": True, "s": 4, "j": "3-1",
         "later": [2, 3]},
        {"id": 2, "t": [], "f": [], "e": False, "s": 0, "j": "", "later": [3]},
        {"id": 3, "t": None, "f": None, "e": None, "s": 0, "j": None, "later": []}]
