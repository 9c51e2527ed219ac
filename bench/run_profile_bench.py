#!/usr/bin/env python3
"""Profile benchmark (docs/profiles.md "Sampling, and why"): the cost of keeping column
profiles inside a write, on the append benchmark's input (10M rows x 20 columns,
bench/make_append_input.py). `deltaguard write` into a new table with profiles on (the
default for tables deltaguard creates) and off (`--property deltaguard.profiles=false`),
every sample a fresh process, the cases alternating run by run after a warm-up round;
then `deltaguard check` of the profiled table against a history of 365 stored
profiles (the default baseline, trailing:14, and all 364 earlier days); then the
article's approach in Spark local[2]: the statistics the default detectors decide on
(per column null count, min, max, mean, stddev and deciles; distinct counts, top values
and character-class patterns of strings; the hour-of-day histogram of timestamps) as
SQL queries over the written table after the write. Targets: profiling costs at most
10% of the write; `check` over 365 days of profiles takes under 200 ms. Results:
bench/results/profile.{json,md}."""

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

# The detectors' statistics of one commit as Spark SQL over the table `t`: what a
# pipeline computes after each load to run the same tests (the article's approach).
SPARK = r"""
import json, os, sys, time
sys.path.insert(0, os.path.join(sys.argv[2], "test", "cli"))
from spark_session import build_session, delta_jars
table = sys.argv[1]
spark = build_session(os.path.join(os.path.dirname(table), "wh"), delta_jars())
df = spark.read.format("delta").load(table)
df.createOrReplaceTempView("t")
numeric = ("int", "bigint", "smallint", "tinyint", "double", "float")
queries = []
for name, typ in df.dtypes:
    c = f"`{name}`"
    if typ in numeric or typ.startswith("decimal"):
        deciles = ", ".join(str(i / 10) for i in range(1, 10))
        queries.append(f"SELECT count_if({c} IS NULL), min({c}), max({c}), avg({c}), "
                       f"stddev({c}), percentile_approx({c}, array({deciles})) FROM t")
    elif typ == "string":
        queries.append(f"SELECT count_if({c} IS NULL), approx_count_distinct({c}), "
                       f"min(length({c})), max(length({c})), avg(length({c})) FROM t")
        queries.append(f"SELECT {c}, count(*) AS n FROM t GROUP BY {c} ORDER BY n DESC "
                       f"LIMIT 60")
        queries.append(
            f"SELECT regexp_replace(regexp_replace(regexp_replace(substr({c}, 1, 64), "
            f"'[A-Z]+', 'A+'), '[a-z]+', 'a+'), '[0-9]+', '9+') AS p, count(*) AS n "
            f"FROM t GROUP BY p ORDER BY n DESC LIMIT 20")
    elif typ == "timestamp":
        queries.append(f"SELECT count_if({c} IS NULL), min({c}), max({c}) FROM t")
        queries.append(f"SELECT hour({c}) AS h, count(*) FROM t GROUP BY h")
t0 = time.perf_counter()
for q in queries:
    spark.sql(q).collect()
print(json.dumps({"seconds": time.perf_counter() - t0, "queries": len(queries)}))
spark.stop()
"""


def history_table(cli, scratch, days):
    """A table of `days` daily commits of 200 rows (20 columns), profiled as written."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    table = os.path.join(scratch, "history")
    for day in range(days):
        rows = 200
        data = {f"n{i}": pa.array([(day * rows + r) * (i + 1) % 997 for r in range(rows)],
                                  pa.int64()) for i in range(10)}
        data.update({f"s{i}": pa.array([f"v{(r + i) % 7}" for r in range(rows)])
                     for i in range(10)})
        f = os.path.join(scratch, "day.parquet")
        pq.write_table(pa.table(data), f)
        subprocess.run([cli, "write", table, f, "--output", "json"], check=True,
                       capture_output=True)
    return table


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--days", type=int, default=365)
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build"))
    ap.add_argument("--spark-runs", type=int, default=3)
    args = ap.parse_args()
    src = os.path.join(HERE, "data", f"append_input_{args.rows}")
    subprocess.run([PY, os.path.join(HERE, "make_append_input.py"), "--rows",
                    str(args.rows), "--out", src], check=True)
    cli = os.path.join(args.build_dir, "bin", "deltaguard")
    scratch = tempfile.mkdtemp(prefix="profile_bench_", dir=HERE)
    load_start = os.getloadavg()
    samples = {"profiles off": [], "profiles on": []}
    try:
        for run in range(args.runs + 1):  # run 0 warms the page cache, not counted
            for case in ("profiles off", "profiles on"):
                out = os.path.join(scratch, "t")
                shutil.rmtree(out, ignore_errors=True)
                cmd = [cli, "write", out, src, "--output", "json"]
                if case == "profiles off":
                    cmd += ["--property", "deltaguard.profiles=false"]
                stdout, wall, rss, _ = run_measured(cmd)
                if json.loads(stdout)["rows"] != args.rows:
                    raise SystemExit(f"{case}: wrong row count")
                print(f"run {run} {case:13s} {wall:7.2f} s  rss {rss:6.0f} MiB", flush=True)
                if run > 0:
                    samples[case].append({"seconds": wall, "rss_mib": rss})
        shown = json.loads(subprocess.run(
            [cli, "profile", os.path.join(scratch, "t"), "--show", "--format", "json"],
            check=True, capture_output=True, text=True).stdout)
        if len(shown) != 1 or shown[0]["rows"] != args.rows:
            raise SystemExit("the profiled write stored no profile of all its rows")
        spark_times = []
        for run in range(args.spark_runs):
            stdout, wall, rss, _ = run_measured([PY, "-c", SPARK,
                                                 os.path.join(scratch, "t"), REPO])
            out = json.loads(stdout.strip().splitlines()[-1])
            print(f"run {run} spark {out['queries']} queries {out['seconds']:7.2f} s  "
                  f"rss {rss:6.0f} MiB", flush=True)
            spark_times.append({"seconds": out["seconds"], "rss_mib": rss,
                                "queries": out["queries"]})
        history = history_table(cli, scratch, args.days)
        check_times = {"trailing:14": [], f"trailing:{args.days}": []}
        for run in range(args.runs + 1):
            for spec, wanted in (("trailing:14", 14),
                                 (f"trailing:{args.days}", args.days - 1)):
                stdout, wall, rss, _ = run_measured(
                    [cli, "check", history, "--baseline", spec, "--format", "json"])
                report = json.loads(stdout)
                if len(report["baseline"]["versions"]) != wanted:
                    raise SystemExit(f"check used {len(report['baseline']['versions'])} "
                                     "baseline commits")
                if run > 0:
                    check_times[spec].append({"seconds": wall, "rss_mib": rss,
                                              "findings": len(report["findings"])})
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    med = {k: statistics.median(s["seconds"] for s in v) for k, v in samples.items()}
    rss = {k: statistics.median(s["rss_mib"] for s in v) for k, v in samples.items()}
    check_med = {k: statistics.median(x["seconds"] for x in v)
                 for k, v in check_times.items()}
    check_rss = {k: statistics.median(x["rss_mib"] for x in v)
                 for k, v in check_times.items()}
    spark_med = statistics.median(x["seconds"] for x in spark_times)
    spark_rss = statistics.median(x["rss_mib"] for x in spark_times)
    profiling = med["profiles on"] - med["profiles off"]
    ours = max(profiling, 0.0) + check_med["trailing:14"]
    result = {"rows": args.rows, "runs": args.runs, "days": args.days, "samples": samples,
              "check": check_times, "spark": spark_times}
    lines = [load_line(load_start, os.getloadavg(), args.runs), "",
             "| case | median time | peak RSS | ratio |", "|---|---:|---:|---:|",
             f"| write, profiles off | {med['profiles off']:.2f} s | "
             f"{rss['profiles off']:.0f} MiB | 1.00x |",
             f"| write, profiles on | {med['profiles on']:.2f} s | "
             f"{rss['profiles on']:.0f} MiB | "
             f"{med['profiles on'] / med['profiles off']:.3f}x |"]
    for spec in check_times:
        lines.append(f"| check of one commit, {args.days}-day history, baseline {spec} "
                     f"({check_times[spec][0]['findings']} findings), whole process | "
                     f"{check_med[spec] * 1000:.0f} ms | {check_rss[spec]:.0f} MiB | |")
    lines += [f"| Spark local[2]: the detectors' statistics as {spark_times[0]['queries']} "
              f"SQL queries after the write (session start excluded) | {spark_med:.2f} s | "
              f"{spark_rss:.0f} MiB | |", "",
              f"deltaguard's cost of the tests (profiling inside the write, "
              f"{profiling:.2f} s, plus `check`, {check_med['trailing:14'] * 1000:.0f} ms): "
              f"{ours:.2f} s; Spark's queries after the write: {spark_med:.2f} s, "
              f"{spark_med / max(ours, 1e-9):.1f}x as long."]
    write_results("profile", result, lines)


if __name__ == "__main__":
    main()
