#!/usr/bin/env python3
"""Constraint-enforcement benchmark (issue 5): append the append benchmark's input
(bench/make_append_input.py: 10M rows, 20 columns) with `deltaguard write` into
 - a table without constraints ("plain"), and
 - the same table with 3 CHECK constraints and 2 NOT NULL columns ("constrained"):
   id and customer_id NOT NULL; CHECK (quantity >= 0 AND quantity < 100),
   CHECK (price >= 0 AND discount <= 1), CHECK (amount >= 0).
Every input row satisfies them, so both write all rows. Each write is a fresh CLI
process on a freshly created empty table; the two configurations alternate run by run so
they see the same machine load; run 0 warms the page cache and is not counted. Reports
the median wall time of each and the overhead (target: at most 15%), with the load
average before and after. Results: bench/results/constraints.{json,md}."""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PY = sys.executable

CHECKS = [("quantity_range", "quantity >= 0 AND quantity < 100"),
          ("price_sane", "price >= 0 AND discount <= 1"),
          ("amount_positive", "amount >= 0")]
NOT_NULL = ["id", "customer_id"]


def cli(binary, *args):
    res = subprocess.run([binary, *args], capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(f"deltaguard {' '.join(args[:2])} failed:\n{res.stderr[-3000:]}")
    return res.stdout


def make_table(binary, path, sample_file, constrained):
    cli(binary, "create", path, "--from-file", sample_file)
    if not constrained:
        return
    t = f"delta.`{path}`"
    stmts = [f"ALTER TABLE {t} ALTER COLUMN {c} SET NOT NULL" for c in NOT_NULL]
    stmts += [f"ALTER TABLE {t} ADD CONSTRAINT {n} CHECK ({e})" for n, e in CHECKS]
    cli(binary, "sql", "; ".join(stmts))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build"))
    args = ap.parse_args()
    src = os.path.join(HERE, "data", f"append_input_{args.rows}")
    subprocess.run([PY, os.path.join(HERE, "make_append_input.py"), "--rows",
                    str(args.rows), "--out", src], check=True)
    sample = os.path.join(src, sorted(f for f in os.listdir(src)
                                      if f.endswith(".parquet"))[0])
    binary = os.path.join(args.build_dir, "bin", "deltaguard")
    scratch = tempfile.mkdtemp(prefix="constraint_bench_", dir=HERE)
    load_before = os.getloadavg()
    samples = {"plain": [], "constrained": []}
    try:
        for run in range(args.runs + 1):
            for config in samples:
                out = os.path.join(scratch, f"{config}_{run}")
                make_table(binary, out, sample, config == "constrained")
                start = time.perf_counter()
                stdout = cli(binary, "write", out, src, "--output", "json")
                seconds = time.perf_counter() - start
                rows = json.loads(stdout)["rows"]
                if rows != args.rows:
                    raise SystemExit(f"{config} wrote {rows} rows, expected {args.rows}")
                print(f"run {run} {config:12s} {seconds:7.2f} s  load "
                      f"{os.getloadavg()[0]:.2f}", flush=True)
                if run > 0:
                    samples[config].append(round(seconds, 3))
                shutil.rmtree(out, ignore_errors=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    load_after = os.getloadavg()
    plain = statistics.median(samples["plain"])
    constrained = statistics.median(samples["constrained"])
    overhead = (constrained - plain) / plain * 100
    result = {
        "rows": args.rows, "columns": 20, "runs": args.runs,
        "check_constraints": [{"name": n, "expr": e} for n, e in CHECKS],
        "not_null_columns": NOT_NULL,
        "plain": {"median_seconds": round(plain, 3), "samples": samples["plain"]},
        "constrained": {"median_seconds": round(constrained, 3),
                        "samples": samples["constrained"]},
        "overhead_percent": round(overhead, 1),
        "target_percent": 15,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in load_after],
    }
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(os.path.join(HERE, "results", "constraints.json"), "w") as f:
        json.dump(result, f, indent=2)
    lines = ["| table | median time | rows/s |", "|---|---:|---:|",
             f"| no constraints | {plain:.2f} s | {args.rows / plain:,.0f} |",
             f"| 3 CHECK + 2 NOT NULL | {constrained:.2f} s | "
             f"{args.rows / constrained:,.0f} |",
             "",
             f"Overhead: {overhead:+.1f}% (target at most 15%). {args.runs} runs each, "
             f"medians; load average (1/5/15 min) before "
             f"{'/'.join(f'{x:.2f}' for x in load_before)}, after "
             f"{'/'.join(f'{x:.2f}' for x in load_after)}."]
    with open(os.path.join(HERE, "results", "constraints.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
