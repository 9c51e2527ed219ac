#!/usr/bin/env python3
"""MERGE benchmark (issue 6): upsert a 1M-row source into a 10M-row Delta table with
deltaguard (`deltaguard sql "MERGE INTO ... USING read_parquet(...)"`), deltalake
(`DeltaTable.merge(...).when_matched_update_all().when_not_matched_insert_all()`) and
optionally Spark (local[2], delta-spark; slow).

Data (generated once under bench/data/, seeded):
  - target: 10M rows, 6 columns (id BIGINT sorted 0..N-1, customer STRING, status
    STRING, qty INT, amount DOUBLE, updated_at TIMESTAMP), written once into a Delta table
    by `deltaguard write --target-file-size 64 MiB` (files near 64 MiB; the layout follows
    the writer of the build that generated it).
    A narrower table than bench/data/append_input_* keeps each run's copy small.
  - source: 1M rows, half updates of existing keys sampled uniformly over the whole key
    range (so every target file holds matched rows and is rewritten), half new keys.
Each run copies the base table to a fresh directory (then syncs, so that the copy's
writeback is not charged to the engine), then runs one engine's
`MERGE ... ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *`
as a fresh process; engines alternate run by run. Time: deltaguard's is the whole CLI
process; deltalake's and Spark's are in-process (imports, session start excluded).
Peak RSS: the process tree sampled from /proc every 50 ms (as run_append_bench.py).
Every run is checked: N + 0.5M rows afterwards and 0.5M updated rows.
Results: bench/results/merge.{json,md}."""

import argparse
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

DELTALAKE = r"""
import sys, time, pyarrow.parquet as pq
from deltalake import DeltaTable
src, table = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
source = pq.read_table(src)
m = (DeltaTable(table)
     .merge(source=source, predicate="t.id = s.id", source_alias="s", target_alias="t")
     .when_matched_update_all().when_not_matched_insert_all().execute())
print(m.get("num_target_rows_updated"), m.get("num_target_rows_inserted"))
print(time.perf_counter() - t0)
"""

SPARK = r"""
import os, sys, time
sys.path.insert(0, os.path.join(sys.argv[3], "test", "python"))
from spark_session import build_session, delta_jars
src, table = sys.argv[1], sys.argv[2]
spark = build_session(os.path.join(os.path.dirname(table), "wh"), delta_jars())
t0 = time.perf_counter()
spark.read.parquet(src).createOrReplaceTempView("s")
r = spark.sql(f"MERGE INTO delta.`{table}` AS t USING s ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE SET * "
              "WHEN NOT MATCHED THEN INSERT *").collect()[0]
print(r["num_updated_rows"], r["num_inserted_rows"])
print(time.perf_counter() - t0)
spark.stop()
"""


def make_data(rows, source_rows, data_dir, cli):
    """Target input files, the base Delta table and the source file (once)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq
    base = os.path.join(data_dir, f"merge_target_{rows}")
    src = os.path.join(data_dir, f"merge_source_{source_rows}_into_{rows}.parquet")
    marker = base + ".complete"
    if os.path.exists(marker) and os.path.exists(src):
        return base, src
    shutil.rmtree(base, ignore_errors=True)
    rng = np.random.default_rng(6)
    statuses = pa.array(["placed", "shipped", "delivered", "returned"])

    def batch(ids):
        n = len(ids)
        return pa.table({
            "id": pa.array(ids, pa.int64()),
            "customer": pa.array([f"C{x:06d}" for x in rng.integers(0, 100000, n)]),
            "status": statuses.take(pa.array(rng.integers(0, 4, n))),
            "qty": pa.array(rng.integers(1, 100, n).astype("int32")),
            "amount": pa.array(rng.random(n) * 1000.0),
            "updated_at": pa.array(
                (1_700_000_000_000_000 + rng.integers(0, 10**12, n)).astype("int64"),
                pa.timestamp("us", tz="UTC")),
        })

    os.makedirs(data_dir, exist_ok=True)
    inputs = tempfile.mkdtemp(prefix="merge_input_", dir=data_dir)
    step = 1_000_000
    for i, start in enumerate(range(0, rows, step)):
        ids = np.arange(start, min(rows, start + step), dtype=np.int64)
        pq.write_table(batch(ids), os.path.join(inputs, f"part-{i:03d}.parquet"))
    subprocess.run([cli, "write", base, inputs, "--target-file-size", str(64 << 20)],
                   check=True, stdout=subprocess.DEVNULL)
    shutil.rmtree(inputs)
    half = source_rows // 2
    updated = np.sort(rng.choice(rows, size=half, replace=False)).astype(np.int64)
    new = np.arange(rows, rows + (source_rows - half), dtype=np.int64)
    ids = np.concatenate([updated, new])
    rng.shuffle(ids)
    pq.write_table(batch(ids), src)
    open(marker, "w").close()
    return base, src


def check(table, expected_rows):
    from deltalake import DeltaTable
    n = DeltaTable(table).to_pyarrow_dataset().count_rows()
    if n != expected_rows:
        raise SystemExit(f"{table}: {n} rows after MERGE, expected {expected_rows}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--source-rows", type=int, default=1_000_000)
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build"))
    ap.add_argument("--engines", default="deltaguard,deltalake")
    ap.add_argument("--baseline-build-dir", default=None,
                    help="a second deltaguard build, run as engine deltaguard-baseline "
                         "alternating with the others (before/after comparisons)")
    ap.add_argument("--scratch", default=None)
    args = ap.parse_args()
    cli = os.path.join(args.build_dir, "bin", "deltaguard")
    load_at_start = os.getloadavg()
    base, src = make_data(args.rows, args.source_rows, os.path.join(HERE, "data"), cli)
    engines = args.engines.split(",")
    clis = {"deltaguard": cli}
    if args.baseline_build_dir:
        clis["deltaguard-baseline"] = os.path.join(args.baseline_build_dir, "bin",
                                                   "deltaguard")
        engines.append("deltaguard-baseline")
    scratch = args.scratch or tempfile.mkdtemp(prefix="merge_bench_", dir=HERE)
    half = args.source_rows // 2
    samples = {e: [] for e in engines}
    for run in range(args.runs + 1):  # run 0 warms the page cache and is not counted
        for engine in engines:
            table = os.path.join(scratch, f"{engine}_{run}", "table")
            shutil.rmtree(os.path.dirname(table), ignore_errors=True)
            os.makedirs(os.path.dirname(table))
            shutil.copytree(base, table)
            # Flush the copy's dirty pages now: their writeback would otherwise run
            # during the measured MERGE and take CPU from it.
            os.sync()
            if engine in clis:
                sql = (f"MERGE INTO delta.`{table}` AS t "
                       f"USING read_parquet('{src}') AS s "
                       "ON t.id = s.id WHEN MATCHED THEN UPDATE SET * "
                       "WHEN NOT MATCHED THEN INSERT *")
                cmd = [clis[engine], "sql", "--warehouse", os.path.join(scratch, "wh"),
                       "--format", "csv", sql]
            elif engine == "deltalake":
                cmd = [PY, "-c", DELTALAKE, src, table]
            elif engine == "spark":
                cmd = [PY, "-c", SPARK, src, table, REPO]
            else:
                raise SystemExit(f"unknown engine {engine}")
            stdout, wall, rss, _ = run_measured(cmd)
            lines = stdout.strip().splitlines()
            if engine in clis:
                seconds = wall
                affected, updated, deleted, inserted = map(int, lines[-1].split(","))
            else:
                seconds = float(lines[-1])
                updated, inserted = map(int, lines[-2].split())
            if (updated, inserted) != (half, args.source_rows - half):
                raise SystemExit(f"{engine}: updated {updated}, inserted {inserted}")
            check(table, args.rows + args.source_rows - half)
            print(f"run {run} {engine:10s} {seconds:7.2f} s  rss {rss:7.0f} MiB",
                  flush=True)
            if run > 0:
                samples[engine].append({"seconds": seconds, "rss_mib": rss})
            shutil.rmtree(os.path.dirname(table), ignore_errors=True)
    load = os.getloadavg()
    result = {"target_rows": args.rows, "source_rows": args.source_rows,
              "updated_rows": half, "inserted_rows": args.source_rows - half,
              "runs": args.runs,
              "load_avg_at_start": [round(x, 2) for x in load_at_start],
              "load_avg_at_end": [round(x, 2) for x in load],
              "engines": {}}
    for engine, s in samples.items():
        result["engines"][engine] = {
            "median_seconds": round(statistics.median(x["seconds"] for x in s), 3),
            "median_peak_rss_mib": round(statistics.median(x["rss_mib"] for x in s), 1),
            "samples": s,
        }
    lines = [load_line(load_at_start, load, args.runs), "",
             "| engine | median time | peak RSS |", "|---|---:|---:|"]
    for engine, r in result["engines"].items():
        lines.append(f"| {engine} | {r['median_seconds']:.2f} s | "
                     f"{r['median_peak_rss_mib']:.0f} MiB |")
    write_results("merge", result, lines)
    if not args.scratch:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
