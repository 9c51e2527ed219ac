#!/usr/bin/env python3
"""Contract benchmark (docs/contracts.md) on the append benchmark's input (10M rows x 20
columns, bench/make_append_input.py):

1. `deltaguard write` of the input into a new table, plain and with `--contract` (a
   contract declaring all 20 columns with their types, required ids and a range): the
   cost of conforming in the write. Target: within 5% of the plain write.
2. `deltaguard contract test` with 20 library rules (null counts, ranges, accepted
   values, lengths, uniqueness, the row count) against the same 20 checks as Spark SQL
   queries on local[2] (the article's approach: a query per check after the write).
   Target: one pass, at least 3x faster.

Every sample is a fresh process, the cases alternating run by run after a warm-up round;
deltaguard's time is the whole CLI process, Spark's the 20 queries (session start
excluded). The check results of both must agree. Results: bench/results/contract.{json,md}.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PY = sys.executable
sys.path.insert(0, HERE)
from run_append_bench import load_line, run_measured, write_results  # noqa: E402

TYPES = [("id", "bigint"), ("customer_id", "bigint"), ("quantity", "int"), ("store", "int"),
         ("flags", "smallint"), ("price", "double"), ("discount", "double"),
         ("tax", "double"), ("amount", "decimal(18,2)"), ("fee", "decimal(12,4)"),
         ("name", "string"), ("city", "string"), ("sku", "string"), ("comment", "string"),
         ("created_at", "timestamp"), ("updated_at", "timestamp"), ("score", "bigint"),
         ("ratio", "double"), ("day", "int"),
         ("address", "struct<city:string,zip:int,lat:double>")]

# The 20 checks: (rule YAML under a property or the object, the same check in Spark SQL
# returning the metric).
RULES = [
    ("id", "{id: r01, metric: nullValues, mustBe: 0}", "count_if(id IS NULL)"),
    ("id", "{id: r02, metric: duplicateValues, mustBe: 0}",
     "count(id) - count(DISTINCT id)"),
    ("customer_id", "{id: r03, metric: nullValues, mustBe: 0}",
     "count_if(customer_id IS NULL)"),
    ("quantity", "{id: r04, metric: nullValues, mustBe: 0}", "count_if(quantity IS NULL)"),
    ("store", "{id: r05, metric: nullValues, mustBe: 0}", "count_if(store IS NULL)"),
    ("flags", "{id: r06, metric: invalidValues, arguments: {validValues: "
              "['0','1','2','3','4','5','6','7']}, mustBe: 0}",
     "count_if(CAST(flags AS STRING) NOT IN ('0','1','2','3','4','5','6','7'))"),
    ("price", "{id: r07, metric: nullValues, mustBe: 0}", "count_if(price IS NULL)"),
    ("discount", "{id: r08, metric: nullValues, mustBe: 0}", "count_if(discount IS NULL)"),
    ("tax", "{id: r09, metric: nullValues, mustBe: 0}", "count_if(tax IS NULL)"),
    ("amount", "{id: r10, metric: nullValues, mustBe: 0}", "count_if(amount IS NULL)"),
    ("fee", "{id: r11, metric: nullValues, mustBe: 0}", "count_if(fee IS NULL)"),
    ("name", "{id: r12, metric: invalidValues, arguments: {validValues: [alpha, bravo, "
             "charlie, delta, echo, foxtrot, golf, hotel]}, mustBe: 0}",
     "count_if(name NOT IN ('alpha','bravo','charlie','delta','echo','foxtrot','golf',"
     "'hotel'))"),
    ("city", "{id: r13, metric: nullValues, mustBe: 0}", "count_if(city IS NULL)"),
    ("sku", "{id: r14, metric: invalidValues, arguments: {pattern: '^SKU-[0-9]{8}$'}, "
            "mustBe: 0}", "count_if(NOT sku RLIKE '^SKU-[0-9]{8}$')"),
    ("comment", "{id: r15, metric: nullValues, unit: percent, mustBeLessThan: 25}",
     "100.0 * count_if(comment IS NULL) / count(*)"),
    ("created_at", "{id: r16, metric: nullValues, mustBe: 0}",
     "count_if(created_at IS NULL)"),
    ("updated_at", "{id: r17, metric: nullValues, mustBe: 0}",
     "count_if(updated_at IS NULL)"),
    ("score", "{id: r18, metric: nullValues, mustBe: 0}", "count_if(score IS NULL)"),
    ("ratio", "{id: r19, metric: nullValues, mustBe: 0}", "count_if(ratio IS NULL)"),
    (None, "{id: r20, metric: rowCount, mustBeGreaterThan: 0}", "count(*)"),
]

SPARK = r"""
import json, os, sys, time
sys.path.insert(0, os.path.join(sys.argv[3], "test", "cli"))
from spark_session import build_session, delta_jars
table, queries = sys.argv[1], json.loads(sys.argv[2])
spark = build_session(os.path.join(os.path.dirname(table), "wh"), delta_jars())
spark.read.format("delta").load(table).createOrReplaceTempView("t")
t0 = time.perf_counter()
values = [spark.sql(f"SELECT {q} FROM t").collect()[0][0] for q in queries]
print(json.dumps({"seconds": time.perf_counter() - t0,
                  "values": [float(v) for v in values]}))
spark.stop()
"""


def contract_yaml(with_rules):
    lines = ["apiVersion: v3.1.0", "kind: DataContract", "id: bench", "name: bench",
             "version: 1.0.0", "status: active", "schema:", "  - name: bench"]
    if with_rules:
        lines.append("    quality:")
        lines += [f"      - {rule}" for col, rule, _ in RULES if col is None]
    lines.append("    properties:")
    for name, typ in TYPES:
        lines.append(f"      - id: {name}")
        lines.append(f"        name: {name}")
        lines.append(f"        physicalType: '{typ}'")
        if name == "id":
            lines.append("        required: true")
        rules = [rule for col, rule, _ in RULES if col == name] if with_rules else []
        if rules:
            lines.append("        quality:")
            lines += [f"          - {rule}" for rule in rules]
    lines += ["customProperties:", "  - {property: medallionLayer, value: silver}"]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build"))
    ap.add_argument("--spark-runs", type=int, default=3)
    args = ap.parse_args()
    src = os.path.join(HERE, "data", f"append_input_{args.rows}")
    subprocess.run([PY, os.path.join(HERE, "make_append_input.py"), "--rows",
                    str(args.rows), "--out", src], check=True)
    cli = os.path.join(args.build_dir, "bin", "deltaguard")
    scratch = tempfile.mkdtemp(prefix="contract_bench_", dir=HERE)
    write_contract = os.path.join(scratch, "write.odcs.yaml")
    test_contract = os.path.join(scratch, "test.odcs.yaml")
    with open(write_contract, "w") as f:
        f.write(contract_yaml(False))
    with open(test_contract, "w") as f:
        f.write(contract_yaml(True))
    lint = subprocess.run([cli, "contract", "lint", write_contract, test_contract],
                          capture_output=True, text=True)
    if lint.returncode != 0:
        raise SystemExit(lint.stdout + lint.stderr)
    load_start = os.getloadavg()
    samples = {"write": [], "write --contract": [], "contract test": [], "spark": []}
    table = os.path.join(scratch, "tested")
    for run in range(args.runs + 1):  # run 0 warms the page cache and is not counted
        for case in ("write", "write --contract"):
            out = os.path.join(scratch, "t")
            shutil.rmtree(out, ignore_errors=True)
            cmd = [cli, "write", out, src, "--output", "json"]
            if case == "write --contract":
                cmd += ["--contract", write_contract]
            stdout, wall, rss, _ = run_measured(cmd)
            rows = json.loads(stdout)["rows"]
            if rows != args.rows:
                raise SystemExit(f"{case} wrote {rows} rows")
            print(f"run {run} {case:18s} {wall:7.2f} s  rss {rss:6.0f} MiB", flush=True)
            if run > 0:
                samples[case].append({"seconds": wall, "rss_mib": rss})
            if run == 0 and case == "write":
                shutil.copytree(out, table)
        cmd = [cli, "contract", "test", table, "--contract", test_contract, "--format",
               "json"]
        stdout, wall, rss, _ = run_measured(cmd)
        report = json.loads(stdout)
        if report["outcome"] != "passed" or len(report["checks"]) < 21:
            raise SystemExit(f"contract test: {report['outcome']}: {report['counts']}")
        print(f"run {run} {'contract test':18s} {wall:7.2f} s  rss {rss:6.0f} MiB",
              flush=True)
        if run > 0:
            samples["contract test"].append({"seconds": wall, "rss_mib": rss})
    ours = {c["id"]: c["observed"] for c in report["checks"] if c["id"].startswith("r")}
    queries = [q for _, _, q in RULES]
    for run in range(args.spark_runs):
        stdout, wall, rss, _ = run_measured([PY, "-c", SPARK, table, json.dumps(queries),
                                             REPO])
        result = json.loads(stdout.strip().splitlines()[-1])
        theirs = {f"r{i + 1:02d}": v for i, v in enumerate(result["values"])}
        for key, value in theirs.items():
            if abs(ours[key] - value) > 1e-9 * max(1.0, abs(value)):
                raise SystemExit(f"check {key}: deltaguard {ours[key]}, Spark {value}")
        print(f"run {run} {'spark 20 queries':18s} {result['seconds']:7.2f} s  rss "
              f"{rss:6.0f} MiB", flush=True)
        samples["spark"].append({"seconds": result["seconds"], "rss_mib": rss})
    load_end = os.getloadavg()
    shutil.rmtree(scratch, ignore_errors=True)
    med = {k: statistics.median(x["seconds"] for x in v) for k, v in samples.items()}
    rss = {k: statistics.median(x["rss_mib"] for x in v) for k, v in samples.items()}
    result = {"rows": args.rows, "runs": args.runs, "spark_runs": args.spark_runs,
              "cases": {k: {"median_seconds": round(med[k], 3),
                            "median_peak_rss_mib": round(rss[k], 1), "samples": v}
                        for k, v in samples.items()}}
    lines = [load_line(load_start, load_end, args.runs), "",
             "| case | median time | peak RSS | ratio |", "|---|---:|---:|---:|",
             f"| `write` (plain) | {med['write']:.2f} s | {rss['write']:.0f} MiB | 1.00x |",
             f"| `write --contract` | {med['write --contract']:.2f} s | "
             f"{rss['write --contract']:.0f} MiB | "
             f"{med['write --contract'] / med['write']:.3f}x of plain |",
             f"| `contract test`, 20 rules | {med['contract test']:.2f} s | "
             f"{rss['contract test']:.0f} MiB | 1.00x |",
             f"| Spark local[2], the 20 checks as queries | {med['spark']:.2f} s | "
             f"{rss['spark']:.0f} MiB | {med['spark'] / med['contract test']:.2f}x slower |"]
    write_results("contract", result, lines)


if __name__ == "__main__":
    main()
