#!/usr/bin/env python3
"""Queries past the memory limit (docs/sql.md "Memory and spilling"): the query
benchmark's four queries (run_query_bench.py: a 10M-row fact table, 1M customers,
100k products, in Parquet) run by

- deltaguard without a limit (`deltaguard sql`, a fresh process per run);
- deltaguard with `SET deltaguard.query.memoryLimit = <limit>` (the same);
- DuckDB (the Python package, 2 threads) with `SET memory_limit = '<limit>'`, a fresh
  process per run, its query timed inside the process (start-up excluded).

Each run's process is sampled every 20 ms for its resident memory (VmRSS) and its
anonymous memory (RssAnon: what cannot be dropped under pressure; mapped spill files
are file pages, which the kernel can drop). Medians over --runs, the engines
alternating run by run. Results: bench/results/query_memory.{json,md}.

  bench/run_query_memory_bench.py [--rows 10000000] [--runs 3] [--limit 256m]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY = sys.executable
sys.path.insert(0, HERE)
from run_append_bench import load_line, write_results  # noqa: E402
from run_query_bench import (GENERATE, GENERATE_EVENTS, QUERIES,  # noqa: E402
                             deltaguard_bin, relations)

DUCKDB = r"""
import json, sys, time
import duckdb
sql, limit = sys.argv[1], sys.argv[2]
con = duckdb.connect()
con.execute("SET threads = 2")
con.execute(f"SET memory_limit = '{limit}'")
t0 = time.perf_counter()
rows = con.execute(sql).fetchall()
print(json.dumps({"time": time.perf_counter() - t0, "rows": [list(map(str, r)) for r in rows]}))
"""


def status_kib(pid, key):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def measured(cmd):
    """stdout, wall seconds, peak VmRSS and peak RssAnon (MiB) of one process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    peak = {"VmRSS": 0, "RssAnon": 0}
    done = threading.Event()

    def sample():
        while not done.is_set():
            for k in peak:
                peak[k] = max(peak[k], status_kib(proc.pid, k))
            done.wait(0.02)

    sampler = threading.Thread(target=sample)
    sampler.start()
    out, err = proc.communicate()
    done.set()
    sampler.join()
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[:3]} failed:\n{err.decode()[-3000:]}")
    return out.decode(), wall, peak["VmRSS"] / 1024.0, peak["RssAnon"] / 1024.0


def run_once(engine, sql, limit):
    if engine == "duckdb-limited":
        out, _, rss, anon = measured([PY, "-c", DUCKDB, sql, limit])
        result = json.loads(out.strip().splitlines()[-1])
        return result["time"], rss, anon, result["rows"][:1]
    if engine == "deltaguard-limited":
        sql = f"SET deltaguard.query.memoryLimit = {limit}; " + sql
    out, wall, rss, anon = measured([deltaguard_bin(), "sql", sql, "--format", "csv"])
    return wall, rss, anon, out.strip().splitlines()[-1:]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--limit", default="256m")
    ap.add_argument("--data", default=os.path.join(tempfile.gettempdir(),
                                                   "deltaguard_query_bench"))
    ap.add_argument("--queries", default=",".join(QUERIES))
    args = ap.parse_args()
    data = os.path.join(args.data, str(args.rows))
    if not os.path.exists(os.path.join(data, "prod", "part-000.parquet")):
        subprocess.run([PY, "-c", GENERATE, data, str(args.rows)], check=True)
    if not os.path.exists(os.path.join(data, "events", "part-000.parquet")):
        subprocess.run([PY, "-c", GENERATE_EVENTS, data, str(args.rows)], check=True)
    engines = ["deltaguard", "deltaguard-limited", "duckdb-limited"]
    duck_limit = args.limit.upper().rstrip("B") + "B"  # DuckDB's spelling: 256MB
    start = os.getloadavg()
    result = {"rows": args.rows, "runs": args.runs, "limit": args.limit, "queries": {}}
    for name in args.queries.split(","):
        samples = {e: [] for e in engines}
        for _ in range(args.runs):
            for engine in engines:
                rel = relations("duckdb" if engine.startswith("duckdb") else "deltaguard",
                                data)
                limit = duck_limit if engine.startswith("duckdb") else args.limit
                sql = QUERIES[name].format(**rel)
                if engine.startswith("duckdb"):  # DuckDB's name for get_json_object
                    sql = sql.replace("get_json_object", "json_extract_string")
                samples[engine].append(run_once(engine, sql, limit))
        result["queries"][name] = {}
        for engine, runs in samples.items():
            r = {"times": [s[0] for s in runs],
                 "median": statistics.median(s[0] for s in runs),
                 "peak_rss_mib": statistics.median(s[1] for s in runs),
                 "peak_anon_mib": statistics.median(s[2] for s in runs),
                 "first_rows": runs[-1][3]}
            result["queries"][name][engine] = r
            print(f"{name} {engine}: {r['median']:.2f} s, rss {r['peak_rss_mib']:.0f} "
                  f"MiB, anon {r['peak_anon_mib']:.0f} MiB {r['first_rows']}",
                  file=sys.stderr, flush=True)
    end = os.getloadavg()
    lines = [load_line(start, end, args.runs), "",
             f"Limit {args.limit}. Cells: median time, median peak RSS / peak anonymous "
             "memory.", "",
             "| query | deltaguard, no limit | deltaguard, limit | DuckDB, limit |",
             "|---|---:|---:|---:|"]
    for name, by_engine in result["queries"].items():
        cells = [f"{r['median']:.2f} s, {r['peak_rss_mib']:.0f} / "
                 f"{r['peak_anon_mib']:.0f} MiB" for r in by_engine.values()]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    write_results("query_memory", result, lines)


if __name__ == "__main__":
    main()
