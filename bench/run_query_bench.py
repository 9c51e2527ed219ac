#!/usr/bin/env python3
"""Query benchmark (issue 23): joins, windows and aggregates over a star schema, the
same SQL text in three engines reading the same Parquet files:

- deltaguard: `deltaguard sql "<query>"` over read_parquet('<dir>'), a fresh process
  per run (start-up and Parquet footers included);
- deltaguard-py: the same query through the Python package's Session.sql, --runs
  times in one process (start-up excluded, as for the peers);
- DuckDB (the Python package, 2 threads) over read_parquet('<dir>/*.parquet');
- Spark local[2] (`--spark`): spark.sql over parquet.`<dir>`; session start excluded.

Tables: `fact` (10M rows: order_id with ~10% re-sent versions, cust_id over 1.1M ids of
which 1M exist in `cust`, prod_id over 100k, day, amount, qty), `cust` (1M rows) and
`prod` (100k rows), and `events` (1M rows: an id and a JSON payload), generated once
per size into --data (reused when present).

Queries (each returns a few rows, so the time is the query's, not the printing's):
  dedup      ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY version DESC) = 1
  join3      fact JOIN cust JOIN prod GROUP BY region, category
  anti       fact LEFT ANTI JOIN cust (orders of unknown customers)
  running    sum(amount) OVER (PARTITION BY cust_id ORDER BY day, order_id ROWS ...)
  json       three get_json_object paths per event (DuckDB: json_extract_string)

Every sample is a fresh process for `deltaguard`; deltaguard-py, DuckDB and Spark run
each query --runs times in one process (start-up excluded). Reports medians of wall
time and the peak RSS of each engine's process(es); ratios are the peer's time over
deltaguard-py's. Results: bench/results/query.{json,md}.

  bench/run_query_bench.py [--rows 10000000] [--runs 3] [--spark] [--data DIR]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PY = sys.executable
sys.path.insert(0, HERE)
from run_append_bench import load_line, run_measured, write_results  # noqa: E402

QUERIES = {
    "dedup": (
        "SELECT count(*) AS n, sum(amount) AS total FROM (SELECT order_id, amount, "
        "row_number() OVER (PARTITION BY order_id ORDER BY version DESC) AS rn "
        "FROM {fact}) t WHERE rn = 1"),
    "join3": (
        "SELECT c.region, p.category, count(*) AS n, sum(f.amount) AS total "
        "FROM {fact} f JOIN {cust} c ON f.cust_id = c.cust_id "
        "JOIN {prod} p ON f.prod_id = p.prod_id GROUP BY c.region, p.category "
        "ORDER BY c.region, p.category LIMIT 5"),
    "anti": (
        "SELECT count(*) AS n FROM {fact} f ANTI JOIN {cust} c "
        "ON f.cust_id = c.cust_id"),
    "running": (
        "SELECT max(run) AS top FROM (SELECT sum(amount) OVER (PARTITION BY cust_id "
        "ORDER BY day, order_id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS run "
        "FROM {fact}) t"),
    "json": (
        "SELECT count(DISTINCT s) AS statuses, sum(CAST(a AS DOUBLE)) AS total, "
        "max(e) AS top FROM (SELECT get_json_object(payload, '$.order.status') AS s, "
        "get_json_object(payload, '$.amount') AS a, "
        "get_json_object(payload, '$.customer.email') AS e FROM {events}) t"),
}

# A raw payload per event (rows / 10 of them): the silver layer's get_json_object.
GENERATE_EVENTS = r"""
import json, os, sys
import pyarrow as pa, pyarrow.parquet as pq
root, n = sys.argv[1], int(sys.argv[2]) // 10
os.makedirs(os.path.join(root, "events"), exist_ok=True)
payload = [json.dumps({
    "order": {"id": i, "status": ("new", "paid", "shipped")[i % 3],
              "items": [{"sku": f"s{i % 97}", "qty": i % 5}]},
    "customer": {"email": f"u{i % 1000}@x.com", "tier": i % 4},
    "amount": round((i % 1000) / 7, 2), "ts": "2024-03-05T10:00:00Z"})
    for i in range(n)]
pq.write_table(pa.table({"id": pa.array(range(n), pa.int64()), "payload": payload}),
               os.path.join(root, "events", "part-000.parquet"))
"""

GENERATE = r"""
import sys
import numpy as np, pyarrow as pa, pyarrow.parquet as pq
root, rows = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(23)
customers, products = rows // 10, rows // 100
import os
for t in ("fact", "cust", "prod"):
    os.makedirs(os.path.join(root, t), exist_ok=True)
chunk = 2_000_000
order = 0
for part, start in enumerate(range(0, rows, chunk)):
    n = min(chunk, rows - start)
    resent = rng.random(n) < 0.1
    ids = np.arange(order, order + n, dtype=np.int64)
    # a re-sent order repeats an earlier id of this chunk with a later version
    ids[resent] = rng.integers(order, order + n, resent.sum())
    order += n
    pq.write_table(pa.table({
        "order_id": ids,
        "version": rng.integers(1, 4, n).astype(np.int32),
        "cust_id": rng.integers(0, customers + customers // 10, n).astype(np.int32),
        "prod_id": rng.integers(0, products, n).astype(np.int32),
        "day": rng.integers(0, 365, n).astype(np.int32),
        "amount": np.round(rng.gamma(2.0, 30.0, n), 2),
        "qty": rng.integers(1, 10, n).astype(np.int32),
    }), os.path.join(root, "fact", f"part-{part:03d}.parquet"))
regions = np.array(["north", "south", "east", "west", "central"])
segments = np.array(["retail", "smb", "enterprise"])
pq.write_table(pa.table({
    "cust_id": np.arange(customers, dtype=np.int32),
    "region": regions[rng.integers(0, len(regions), customers)],
    "segment": segments[rng.integers(0, len(segments), customers)],
}), os.path.join(root, "cust", "part-000.parquet"))
categories = np.array([f"cat{i:02d}" for i in range(40)])
pq.write_table(pa.table({
    "prod_id": np.arange(products, dtype=np.int32),
    "category": categories[rng.integers(0, len(categories), products)],
    "price": np.round(rng.uniform(1, 500, products), 2),
}), os.path.join(root, "prod", "part-000.parquet"))
"""

DELTAGUARD_PY = r"""
import json, sys, tempfile, time
import deltaguard
sql, runs = sys.argv[1], int(sys.argv[2])
session = deltaguard.Session(tempfile.mkdtemp())
times = []
for _ in range(runs):
    t0 = time.perf_counter()
    rows = session.sql(sql).to_pylist()
    times.append(time.perf_counter() - t0)
print(json.dumps({"times": times, "rows": [list(map(str, r.values())) for r in rows]}))
"""

DUCKDB = r"""
import json, sys, time
import duckdb
sql, runs = sys.argv[1], int(sys.argv[2])
con = duckdb.connect()
con.execute("SET threads = 2")
times = []
for _ in range(runs):
    t0 = time.perf_counter()
    rows = con.execute(sql).fetchall()
    times.append(time.perf_counter() - t0)
print(json.dumps({"times": times, "rows": [list(map(str, r)) for r in rows]}))
"""

SPARK = r"""
import json, sys, time
sys.path.insert(0, sys.argv[3] + "/test/cli")
from spark_session import build_session, delta_jars
sql, runs, wh = sys.argv[1], int(sys.argv[2]), sys.argv[4]
spark = build_session(wh, delta_jars())
times = []
for _ in range(runs):
    t0 = time.perf_counter()
    rows = spark.sql(sql).collect()
    times.append(time.perf_counter() - t0)
print(json.dumps({"times": times, "rows": [list(map(str, r)) for r in rows]}))
spark.stop()
"""


def relations(engine, data):
    out = {}
    for t in ("fact", "cust", "prod", "events"):
        path = os.path.join(data, t)
        if engine.startswith("deltaguard"):
            out[t] = f"read_parquet('{path}')"
        elif engine == "duckdb":
            out[t] = f"read_parquet('{path}/*.parquet')"
        else:
            out[t] = f"parquet.`{path}`"
    return out


def deltaguard_bin():
    return os.environ.get("DELTAGUARD_BIN", os.path.join(REPO, "build", "bin",
                                                         "deltaguard"))


def run_engine(engine, sql, runs, scratch):
    """Seconds per run, peak RSS (MiB) and the result's first row."""
    if engine == "deltaguard":
        times, peaks, first = [], [], None
        for _ in range(runs):
            stdout, wall, rss, _ = run_measured([deltaguard_bin(), "sql", sql])
            times.append(wall)
            peaks.append(rss)
            first = first or stdout.strip().splitlines()[-2:]
        return times, max(peaks), first
    script = {"duckdb": DUCKDB, "spark": SPARK, "deltaguard-py": DELTAGUARD_PY}[engine]
    args = [PY, "-c", script, sql, str(runs)]
    if engine == "spark":
        args += [REPO, os.path.join(scratch, "spark_wh")]
    stdout, _, rss, _ = run_measured(args)
    result = json.loads(stdout.strip().splitlines()[-1])
    return result["times"], rss, result["rows"][:2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--spark", action="store_true")
    ap.add_argument("--data", default=os.path.join(tempfile.gettempdir(),
                                                   "deltaguard_query_bench"))
    ap.add_argument("--queries", default=",".join(QUERIES))
    args = ap.parse_args()
    data = os.path.join(args.data, str(args.rows))
    if not os.path.exists(os.path.join(data, "prod", "part-000.parquet")):
        subprocess.run([PY, "-c", GENERATE, data, str(args.rows)], check=True)
    if not os.path.exists(os.path.join(data, "events", "part-000.parquet")):
        subprocess.run([PY, "-c", GENERATE_EVENTS, data, str(args.rows)], check=True)
    engines = ["deltaguard", "deltaguard-py", "duckdb"] + (["spark"] if args.spark else [])
    start = os.getloadavg()
    result = {"rows": args.rows, "runs": args.runs, "queries": {}}
    with tempfile.TemporaryDirectory() as scratch:
        for name in args.queries.split(","):
            result["queries"][name] = {}
            for engine in engines:
                sql = QUERIES[name].format(**relations(engine, data))
                if engine == "duckdb":  # DuckDB's name for get_json_object
                    sql = sql.replace("get_json_object", "json_extract_string")
                times, rss, first = run_engine(engine, sql, args.runs, scratch)
                result["queries"][name][engine] = {
                    "times": times, "median": statistics.median(times),
                    "peak_rss_mib": rss, "first_rows": first}
                print(f"{name} {engine}: {statistics.median(times):.2f} s, "
                      f"{rss:.0f} MiB", file=sys.stderr, flush=True)
    end = os.getloadavg()
    lines = [load_line(start, end, args.runs), "",
             "| query | " + " | ".join(engines) + " |",
             "|---|" + "---:|" * len(engines)]
    for name, by_engine in result["queries"].items():
        ours = by_engine["deltaguard-py"]["median"]
        cells = []
        for engine in engines:
            r = by_engine[engine]
            ratio = ("" if engine.startswith("deltaguard")
                     else f" ({r['median'] / ours:.1f}x)")
            cells.append(f"{r['median']:.2f} s{ratio}, {r['peak_rss_mib']:.0f} MiB")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    write_results("query", result, lines)


if __name__ == "__main__":
    main()
