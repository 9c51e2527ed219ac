#!/usr/bin/env python3
"""Profile benchmark (docs/profiles.md "Sampling, and why"): the cost of keeping column
profiles inside a write, on the append benchmark's input (10M rows x 20 columns,
bench/make_append_input.py). `deltaguard write` into a new table with profiles on (the
default for tables deltaguard creates) and off (`--property deltaguard.profiles=false`),
every sample a fresh process, the cases alternating run by run after a warm-up round;
then `deltaguard check` of the profiled table against a history of 365 stored
profiles (20 tests per column). Targets: profiling costs at most 10% of the write;
`check` over 365 days of profiles takes under 200 ms. Results:
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
        history = history_table(cli, scratch, args.days)
        check_times = []
        for run in range(args.runs + 1):
            stdout, wall, rss, _ = run_measured(
                [cli, "check", history, "--baseline", f"trailing:{args.days}",
                 "--format", "json"])
            report = json.loads(stdout)
            if len(report["baseline"]["versions"]) != args.days - 1:
                raise SystemExit(f"check used {len(report['baseline']['versions'])} "
                                 "baseline commits")
            if run > 0:
                check_times.append({"seconds": wall, "rss_mib": rss,
                                    "findings": len(report["findings"])})
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    med = {k: statistics.median(s["seconds"] for s in v) for k, v in samples.items()}
    rss = {k: statistics.median(s["rss_mib"] for s in v) for k, v in samples.items()}
    check_med = statistics.median(s["seconds"] for s in check_times)
    result = {"rows": args.rows, "runs": args.runs, "days": args.days, "samples": samples,
              "check": check_times}
    lines = [load_line(load_start, os.getloadavg(), args.runs), "",
             "| case | median time | peak RSS | ratio |", "|---|---:|---:|---:|",
             f"| write, profiles off | {med['profiles off']:.2f} s | "
             f"{rss['profiles off']:.0f} MiB | 1.00x |",
             f"| write, profiles on | {med['profiles on']:.2f} s | "
             f"{rss['profiles on']:.0f} MiB | "
             f"{med['profiles on'] / med['profiles off']:.3f}x |",
             f"| check of one commit against {args.days - 1} stored profiles "
             f"({check_times[0]['findings']} findings), whole process | "
             f"{check_med * 1000:.0f} ms | "
             f"{statistics.median(s['rss_mib'] for s in check_times):.0f} MiB | |"]
    write_results("profile", result, lines)


if __name__ == "__main__":
    main()
