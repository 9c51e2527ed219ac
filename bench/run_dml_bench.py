#!/usr/bin/env python3
"""UPDATE and DELETE benchmark: on the 10M-row MERGE target (run_merge_bench.py's data),
`UPDATE t SET qty = qty + 1 WHERE id % 10 = 0` and `DELETE FROM t WHERE id % 10 = 0`
(1M rows spread over every file, so every file is rewritten) with deltaguard
(`deltaguard sql`), deltalake (`DeltaTable.update` / `DeltaTable.delete`) and,
with --baseline-build-dir, a second deltaguard build (before/after comparisons).

Each run copies the base table to a fresh directory (then syncs), runs one engine's
statement as a fresh process; engines alternate run by run, one warm-up round first.
Time: deltaguard's is the whole CLI process; deltalake's is in-process (imports
excluded). Peak RSS: the process tree (run_append_bench.py). Every run is checked: the
affected row count the engine reports, and the table's row count afterwards.
Results: bench/results/dml.{json,md}."""

import argparse
import os
import shutil
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PY = sys.executable
sys.path.insert(0, HERE)
from run_append_bench import load_line, run_measured, write_results  # noqa: E402
from run_merge_bench import check, make_data  # noqa: E402

PREDICATE = "id % 10 = 0"

DELTALAKE = r"""
import sys, time
from deltalake import DeltaTable
op, table, predicate = sys.argv[1], sys.argv[2], sys.argv[3]
t0 = time.perf_counter()
dt = DeltaTable(table)
if op == "update":
    m = dt.update(updates={"qty": "qty + 1"}, predicate=predicate)
    print(m.get("num_updated_rows"))
else:
    m = dt.delete(predicate)
    print(m.get("num_deleted_rows"))
print(time.perf_counter() - t0)
"""


def statement(op, table):
    if op == "update":
        return f"UPDATE delta.`{table}` SET qty = qty + 1 WHERE {PREDICATE}"
    return f"DELETE FROM delta.`{table}` WHERE {PREDICATE}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build"))
    ap.add_argument("--baseline-build-dir", default=None)
    ap.add_argument("--engines", default="deltaguard,deltalake")
    ap.add_argument("--ops", default="update,delete")
    ap.add_argument("--scratch", default=None)
    args = ap.parse_args()
    cli = os.path.join(args.build_dir, "bin", "deltaguard")
    clis = {"deltaguard": cli}
    engines = args.engines.split(",")
    if args.baseline_build_dir:
        clis["deltaguard-baseline"] = os.path.join(args.baseline_build_dir, "bin",
                                                   "deltaguard")
        engines.append("deltaguard-baseline")
    load_at_start = os.getloadavg()
    # The MERGE benchmark's target table (its source file is made too, and unused).
    base, _ = make_data(args.rows, min(1_000_000, args.rows), os.path.join(HERE, "data"),
                        cli)
    affected_expected = (args.rows + 9) // 10
    ops = args.ops.split(",")
    scratch = args.scratch or tempfile.mkdtemp(prefix="dml_bench_", dir=HERE)
    samples = {(op, e): [] for op in ops for e in engines}
    for run in range(args.runs + 1):  # run 0 warms the page cache and is not counted
        for op in ops:
            for engine in engines:
                table = os.path.join(scratch, f"{op}_{engine}_{run}", "table")
                shutil.rmtree(os.path.dirname(table), ignore_errors=True)
                os.makedirs(os.path.dirname(table))
                shutil.copytree(base, table)
                os.sync()
                if engine in clis:
                    cmd = [clis[engine], "sql", "--warehouse",
                           os.path.join(scratch, "wh"), "--format", "csv",
                           statement(op, table)]
                elif engine == "deltalake":
                    cmd = [PY, "-c", DELTALAKE, op, table, PREDICATE]
                else:
                    raise SystemExit(f"unknown engine {engine}")
                stdout, wall, rss, _ = run_measured(cmd)
                lines = stdout.strip().splitlines()
                if engine in clis:
                    seconds, affected = wall, int(lines[-1].split(",")[0])
                else:
                    seconds, affected = float(lines[-1]), int(lines[-2])
                if affected != affected_expected:
                    raise SystemExit(f"{op} {engine}: {affected} rows affected, "
                                     f"expected {affected_expected}")
                check(table, args.rows - (affected_expected if op == "delete" else 0))
                print(f"run {run} {op:6s} {engine:20s} {seconds:7.2f} s  "
                      f"rss {rss:7.0f} MiB", flush=True)
                if run > 0:
                    samples[(op, engine)].append({"seconds": seconds, "rss_mib": rss})
                shutil.rmtree(os.path.dirname(table), ignore_errors=True)
    load = os.getloadavg()
    result = {"rows": args.rows, "affected_rows": affected_expected,
              "predicate": PREDICATE, "runs": args.runs,
              "load_avg_at_start": [round(x, 2) for x in load_at_start],
              "load_avg_at_end": [round(x, 2) for x in load], "results": []}
    for (op, engine), s in samples.items():
        result["results"].append({
            "op": op, "engine": engine,
            "median_seconds": round(statistics.median(x["seconds"] for x in s), 3),
            "median_peak_rss_mib": round(statistics.median(x["rss_mib"] for x in s), 1),
            "samples": s})
    lines = [load_line(load_at_start, load, args.runs), "",
             "| statement | engine | median time | peak RSS |", "|---|---|---:|---:|"]
    for r in result["results"]:
        lines.append(f"| {r['op'].upper()} | {r['engine']} | {r['median_seconds']:.2f} s |"
                     f" {r['median_peak_rss_mib']:.0f} MiB |")
    write_results("dml", result, lines)
    if not args.scratch:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
