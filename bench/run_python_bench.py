#!/usr/bin/env python3
"""Python package benchmark, side by side in one run (engines alternate run by run):

- scan: the 10M-row x 20-column append-benchmark table read into a pyarrow Table by
  `deltaguard.Table(p).to_arrow()`, by `deltalake.DeltaTable(p).to_pyarrow_table()` and
  by `pyarrow.dataset` over the same Parquet files (no Delta log: the practical limit);
- write: an in-memory pyarrow Table (read before the clock starts) written to a new
  table by `deltaguard.write_table` and by `deltalake.write_deltalake`;
- overhead: `deltaguard.write_table` of the input files streamed through pyarrow.dataset
  against the CLI's `deltaguard write` of the same files (whole process for the CLI,
  the call for Python).

Each sample is a fresh process; times are measured around the call (imports excluded),
peak RSS over the process tree. Results: bench/results/python.{json,md}."""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run_append_bench import load_line, run_measured, write_results  # noqa: E402

PY = sys.executable

SCAN = {
    "deltaguard": r"""
import sys, time, deltaguard as dg
t0 = time.perf_counter(); t = dg.Table(sys.argv[1]).to_arrow()
print(time.perf_counter() - t0, t.num_rows)
""",
    # deltalake 1.6.6 aborts at interpreter exit after to_pyarrow_table() ("terminate
    # called without an active exception", after the result is complete), so its
    # scripts leave through os._exit once the figures are printed.
    "deltalake": r"""
import os, sys, time
from deltalake import DeltaTable
t0 = time.perf_counter(); t = DeltaTable(sys.argv[1]).to_pyarrow_table()
print(time.perf_counter() - t0, t.num_rows, flush=True)
os._exit(0)
""",
    "pyarrow.dataset": r"""
import os, sys, time, pyarrow.dataset as ds
root = sys.argv[1]
files = [os.path.join(root, f) for f in sorted(os.listdir(root)) if f.endswith(".parquet")]
t0 = time.perf_counter(); t = ds.dataset(files, format="parquet").to_table()
print(time.perf_counter() - t0, t.num_rows)
""",
}

WRITE = {
    "deltaguard": r"""
import sys, time, pyarrow.dataset as ds, deltaguard as dg
data = ds.dataset(sys.argv[1], format="parquet").to_table()
t0 = time.perf_counter(); dg.write_table(sys.argv[2], data)
print(time.perf_counter() - t0, data.num_rows)
""",
    "deltalake": r"""
import sys, time, pyarrow.dataset as ds
from deltalake import write_deltalake
data = ds.dataset(sys.argv[1], format="parquet").to_table()
t0 = time.perf_counter(); write_deltalake(sys.argv[2], data)
print(time.perf_counter() - t0, data.num_rows, flush=True)
import os; os._exit(0)
""",
}

STREAM_WRITE = r"""
import sys, time, pyarrow.dataset as ds, deltaguard as dg
t0 = time.perf_counter()
reader = ds.dataset(sys.argv[1], format="parquet").scanner(batch_size=128 * 1024).to_reader()
r = dg.write_table(sys.argv[2], reader)
print(time.perf_counter() - t0, r["rows"])
"""


def measure(cmd):
    stdout, wall, rss, _ = run_measured(cmd)
    seconds, rows = stdout.strip().splitlines()[-1].split()
    return float(seconds), int(rows), rss


def summarize(samples):
    return {e: {"median_seconds": round(statistics.median(x[0] for x in s), 3),
                "median_peak_rss_mib": round(statistics.median(x[1] for x in s), 1),
                "samples": [{"seconds": round(x[0], 3), "rss_mib": round(x[1], 1)}
                            for x in s]}
            for e, s in samples.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--build-dir", default=os.path.join(os.path.dirname(HERE), "build"))
    args = ap.parse_args()
    start_load = os.getloadavg()
    src = os.path.join(HERE, "data", f"append_input_{args.rows}")
    subprocess.run([PY, os.path.join(HERE, "make_append_input.py"), "--rows",
                    str(args.rows), "--out", src], check=True)
    cli = os.path.join(args.build_dir, "bin", "deltaguard")
    table = os.path.join(HERE, "data", f"python_scan_{args.rows}")
    if not os.path.exists(table + ".complete"):
        shutil.rmtree(table, ignore_errors=True)
        subprocess.run([cli, "write", table, src], check=True, stdout=subprocess.DEVNULL)
        open(table + ".complete", "w").close()
    scratch = tempfile.mkdtemp(prefix="python_bench_", dir=HERE)
    scan = {e: [] for e in SCAN}
    write = {e: [] for e in WRITE}
    overhead = {"cli write": [], "python write_table (stream)": []}
    for run in range(args.runs + 1):  # run 0 warms the page cache and is not counted
        for engine, code in SCAN.items():
            seconds, rows, rss = measure([PY, "-c", code, table])
            assert rows == args.rows, (engine, rows)
            print(f"run {run} scan  {engine:16s} {seconds:6.2f} s  rss {rss:6.0f} MiB",
                  flush=True)
            if run:
                scan[engine].append((seconds, rss))
        for engine, code in WRITE.items():
            out = os.path.join(scratch, f"{engine}_{run}")
            seconds, rows, rss = measure([PY, "-c", code, src, out])
            assert rows == args.rows, (engine, rows)
            shutil.rmtree(out)
            print(f"run {run} write {engine:16s} {seconds:6.2f} s  rss {rss:6.0f} MiB",
                  flush=True)
            if run:
                write[engine].append((seconds, rss))
        out = os.path.join(scratch, f"cli_{run}")
        _, wall, rss, _ = run_measured([cli, "write", out, src])
        shutil.rmtree(out)
        if run:
            overhead["cli write"].append((wall, rss))
        out = os.path.join(scratch, f"py_{run}")
        seconds, _, rss = measure([PY, "-c", STREAM_WRITE, src, out])
        shutil.rmtree(out)
        if run:
            overhead["python write_table (stream)"].append((seconds, rss))
        print(f"run {run} overhead cli {wall:6.2f} s  python {seconds:6.2f} s", flush=True)
    shutil.rmtree(scratch, ignore_errors=True)
    result = {"rows": args.rows, "columns": 20, "runs": args.runs,
              "scan": summarize(scan), "write": summarize(write),
              "overhead": summarize(overhead)}

    def med(group, engine):
        return result[group][engine]["median_seconds"]

    lines = [load_line(start_load, os.getloadavg(), args.runs), "",
             f"| {args.rows:,} rows x 20 columns | median time | peak RSS | vs deltaguard |",
             "|---|---|---|---|"]
    for group in ("scan", "write", "overhead"):
        base = med(group, "deltaguard") if group != "overhead" else med(group, "cli write")
        for engine, r in result[group].items():
            lines.append(f"| {group}: {engine} | {r['median_seconds']:.2f} s | "
                         f"{r['median_peak_rss_mib']:.0f} MiB | "
                         f"{r['median_seconds'] / base:.2f}x |")
    write_results("python", result, lines)


if __name__ == "__main__":
    main()
