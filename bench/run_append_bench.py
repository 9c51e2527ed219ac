#!/usr/bin/env python3
"""Append benchmark: write the same Parquet input (bench/make_append_input.py: 10M rows,
20 columns) into a new Delta table with deltaguard, deltalake (write_deltalake), Spark
(local[2], delta-spark) and plain pyarrow Parquet writing (no Delta log: the practical
limit). Each run is a fresh process; engines alternate run by run so they see the same
machine load. Reports medians of the write time (in-process; imports and Spark session
start excluded; deltaguard's is the whole CLI process) and of peak RSS (the process and
its children, e.g. Spark's driver JVM, sampled from /proc every 50 ms), rows/s, and
checks that every engine wrote all rows.
Results: bench/results/append.{json,md}."""

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PY = sys.executable

DELTALAKE = r"""
import sys, time, pyarrow.dataset as ds
from deltalake import write_deltalake
src, out = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
reader = ds.dataset(src, format="parquet").scanner(batch_size=128 * 1024).to_reader()
write_deltalake(out, reader, mode="append")
print(time.perf_counter() - t0)
"""

PYARROW = r"""
import os, sys, time, pyarrow.parquet as pq
src, out = sys.argv[1], sys.argv[2]
os.makedirs(out)
t0 = time.perf_counter()
for name in sorted(os.listdir(src)):
    if name.endswith(".parquet"):
        pq.write_table(pq.read_table(os.path.join(src, name)), os.path.join(out, name),
                       compression="snappy")
print(time.perf_counter() - t0)
"""

SPARK = r"""
import os, sys, time
sys.path.insert(0, os.path.join(sys.argv[3], "test", "python"))
from spark_session import build_session, delta_jars
src, out = sys.argv[1], sys.argv[2]
spark = build_session(os.path.join(os.path.dirname(out), "wh"), delta_jars())
t0 = time.perf_counter()
spark.read.parquet(src).write.format("delta").mode("append").save(out)
print(time.perf_counter() - t0)
spark.stop()
"""


def tree_rss_kib(root_pid):
    """Resident memory of a process and all its descendants (KiB), from /proc."""
    children = {}
    rss = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/statm") as f:
                pages = int(f.read().split()[1])
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
        rss[int(entry)] = pages * os.sysconf("SC_PAGE_SIZE") // 1024
    total, stack = 0, [root_pid]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack.extend(children.get(pid, []))
    return total


def run_measured(cmd, env=None):
    """Runs `cmd`; returns stdout, wall seconds and peak RSS in MiB: the larger of the
    process's own ru_maxrss and the peak of its whole process tree sampled every 50 ms
    (Spark's driver JVM is a child of the Python process)."""
    import threading
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    peak = [0]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], tree_rss_kib(proc.pid))
            done.wait(0.05)

    sampler = threading.Thread(target=sample)
    sampler.start()
    out, err = proc.communicate()
    done.set()
    sampler.join()
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[:3]} failed:\n{err.decode()[-3000:]}")
    own = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # max over children so far
    return out.decode(), wall, max(peak[0], 0) / 1024.0, own / 1024.0


def write_results(stem, result, lines):
    """bench/results/<stem>.json (the samples) and <stem>.md (the table), and the table
    on stdout."""
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(os.path.join(HERE, "results", f"{stem}.json"), "w") as f:
        json.dump(result, f, indent=2)
    with open(os.path.join(HERE, "results", f"{stem}.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def load_line(start, end, runs):
    """The machine's load around a benchmark, as the first line of its table."""
    return (f"Load average (1/5/15 min) at start {start[0]:.2f}/{start[1]:.2f}/"
            f"{start[2]:.2f}, at end {end[0]:.2f}/{end[1]:.2f}/{end[2]:.2f}; "
            f"medians of {runs} runs.")


def count_rows(path, engine):
    if engine == "pyarrow":
        import pyarrow.parquet as pq
        return pq.read_table(path, columns=["id"]).num_rows
    from deltalake import DeltaTable
    return DeltaTable(path).to_pyarrow_dataset().count_rows()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build"))
    ap.add_argument("--engines", default="deltaguard,deltalake,pyarrow,spark")
    ap.add_argument("--baseline-build-dir", default=None,
                    help="a second deltaguard build, run as engine deltaguard-baseline "
                         "alternating with the others (before/after comparisons)")
    ap.add_argument("--scratch", default=None, help="directory for the written tables")
    args = ap.parse_args()
    src = os.path.join(HERE, "data", f"append_input_{args.rows}")
    subprocess.run([PY, os.path.join(HERE, "make_append_input.py"), "--rows",
                    str(args.rows), "--out", src], check=True)
    cli = os.path.join(args.build_dir, "bin", "deltaguard")
    engines = args.engines.split(",")
    clis = {"deltaguard": cli}
    if args.baseline_build_dir:
        clis["deltaguard-baseline"] = os.path.join(args.baseline_build_dir, "bin",
                                                   "deltaguard")
        engines.append("deltaguard-baseline")
    scratch = args.scratch or tempfile.mkdtemp(prefix="append_bench_", dir=HERE)
    samples = {e: [] for e in engines}
    for run in range(args.runs + 1):  # run 0 warms the page cache and is not counted
        for engine in engines:
            out = os.path.join(scratch, f"{engine}_{run}", "table")
            shutil.rmtree(os.path.dirname(out), ignore_errors=True)
            os.makedirs(os.path.dirname(out))
            if engine in clis:
                cmd = [clis[engine], "write", out, src, "--output", "json"]
            elif engine == "deltalake":
                cmd = [PY, "-c", DELTALAKE, src, out]
            elif engine == "pyarrow":
                cmd = [PY, "-c", PYARROW, src, out]
            elif engine == "spark":
                cmd = [PY, "-c", SPARK, src, out, REPO]
            else:
                raise SystemExit(f"unknown engine {engine}")
            stdout, wall, rss, _ = run_measured(cmd)
            seconds = wall if engine in clis else float(stdout.strip().splitlines()[-1])
            rows = count_rows(out, engine)
            if rows != args.rows:
                raise SystemExit(f"{engine} wrote {rows} rows, expected {args.rows}")
            size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(out)
                       for f in fs if f.endswith(".parquet"))
            print(f"run {run} {engine:10s} {seconds:7.2f} s  rss {rss:7.0f} MiB  "
                  f"{size / 2**20:6.0f} MiB written", flush=True)
            if run > 0:
                samples[engine].append({"seconds": seconds, "rss_mib": rss,
                                        "bytes": size})
            shutil.rmtree(os.path.dirname(out), ignore_errors=True)
    result = {"rows": args.rows, "columns": 20, "runs": args.runs, "engines": {}}
    for engine, s in samples.items():
        med = statistics.median(x["seconds"] for x in s)
        result["engines"][engine] = {
            "median_seconds": round(med, 3),
            "rows_per_second": round(args.rows / med),
            "median_peak_rss_mib": round(statistics.median(x["rss_mib"] for x in s), 1),
            "median_bytes": int(statistics.median(x["bytes"] for x in s)),
            "samples": s,
        }
    lines = [f"| engine | median time | rows/s | peak RSS | output |",
             "|---|---:|---:|---:|---:|"]
    for engine, r in result["engines"].items():
        lines.append(f"| {engine} | {r['median_seconds']:.2f} s | {r['rows_per_second']:,} | "
                     f"{r['median_peak_rss_mib']:.0f} MiB | "
                     f"{r['median_bytes'] / 2**20:.0f} MiB |")
    write_results("append", result, lines)
    if not args.scratch:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
