#!/usr/bin/env python3
"""Ingestion benchmark (issue 22): newline-delimited JSON order events in many files
(nested `customer` and `items`, a few unknown fields in some files, 0.1% malformed
lines) into a bronze Delta table with `cloudFiles.schemaEvolutionMode=rescue`:

- deltaguard: `deltaguard ingest SRC TABLE --checkpoint CP --trigger available-now`;
- pyarrow + deltalake: for each file, pyarrow.json.read_json with the inferred schema
  and unexpected fields ignored, then write_deltalake(mode="append") (malformed lines
  make pyarrow refuse the file, so the loop skips such lines first: the closest
  equivalent of a bronze load that does not fail);
- Spark Structured Streaming (local[2], delta-spark): readStream.json with the schema
  and PERMISSIVE mode, writeStream.format("delta") with trigger availableNow and a
  checkpoint (`--spark`, off by default: a 2-core machine needs minutes).

Every sample is a fresh process into a fresh table; engines alternate run by run.
Reports medians of wall time and peak RSS and the rows each wrote (deltaguard and Spark
keep the malformed lines as rows; the loop drops them). Results: bench/results/ingest.{json,md}.

  bench/run_ingest_bench.py [--files 2000] [--mib 2048] [--runs 3] [--spark]
  bench/run_ingest_bench.py --memory    # deltaguard's peak RSS by backlog and batch size

`--memory` shows what bounds memory: deltaguard alone over the same input with
cloudFiles.maxBytesPerTrigger 64m, 256m and 1g, and over a tenth of the backlog
(the first files) with 256m. Results: bench/results/ingest_memory.{json,md}.
"""

import argparse
import json
import os
import random
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

LOOP = r"""
import io, json, os, sys, time
import pyarrow as pa, pyarrow.json as pj
from deltalake import write_deltalake
src, out = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
files = sorted(os.path.join(d, f) for d, _, fs in os.walk(src) for f in fs)
schema = None
rows = 0
for path in files:
    good = []
    with open(path, "rb") as f:
        for line in f:
            try:
                json.loads(line)
                good.append(line)
            except ValueError:
                pass
    data = b"".join(good)
    opts = pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore") \
        if schema is not None else None
    t = pj.read_json(io.BytesIO(data), parse_options=opts)
    if schema is None:
        schema = t.schema
    write_deltalake(out, t, mode="append")
    rows += t.num_rows
print(json.dumps({"seconds": time.perf_counter() - t0, "rows": rows}))
"""

SPARK = r"""
import json, sys, time
sys.path.insert(0, sys.argv[4] + "/test/cli")
from spark_session import build_session, delta_jars
src, out, cp = sys.argv[1], sys.argv[2], sys.argv[3]
spark = build_session(cp + "_wh", delta_jars())
schema = spark.read.json(src + "/part-0000.json").schema
t0 = time.perf_counter()
q = (spark.readStream.schema(schema).option("mode", "PERMISSIVE").json(src)
     .writeStream.format("delta").option("checkpointLocation", cp)
     .trigger(availableNow=True).start(out))
q.awaitTermination()
rows = spark.read.format("delta").load(out).count()
print(json.dumps({"seconds": time.perf_counter() - t0, "rows": rows}))
spark.stop()
"""


def make_input(path, files, mib):
    """`files` NDJSON files of about `mib` MiB in all; returns (records, malformed)."""
    done = path + ".done"
    if os.path.exists(done):
        with open(done) as f:
            return tuple(json.load(f))
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    rng = random.Random(22)
    per_file = max(1, mib * 1024 * 1024 // files)
    records = malformed = 0
    n = 0
    for i in range(files):
        lines, size = [], 0
        while size < per_file:
            n += 1
            if rng.random() < 0.001:
                line = '{"order_id": %d, "amount": ' % n  # cut short
                malformed += 1
            else:
                rec = {"order_id": n, "event_ts": f"2026-11-{1 + n % 28:02d}T12:00:00Z",
                       "amount": round(rng.lognormvariate(3, 1), 2),
                       "status": rng.choice(["pending", "shipped", "delivered"]),
                       "customer": {"id": f"C{n % 5000}", "country": "DE",
                                    "tier": rng.choice(["gold", "silver"])},
                       "items": [{"sku": f"S{rng.randrange(900)}", "qty": rng.randrange(1, 5)}
                                 for _ in range(rng.randrange(1, 4))]}
                if i % 50 == 49:
                    rec["coupon"] = "X" + str(n % 7)  # a field the schema lacks
                line = json.dumps(rec)
            lines.append(line)
            size += len(line) + 1
        records += len(lines)
        with open(os.path.join(path, f"part-{i:04d}.json"), "w") as f:
            f.write("\n".join(lines) + "\n")
    with open(done, "w") as f:
        json.dump([records, malformed], f)
    return records, malformed


def deltaguard_cmd(cli, src, out, cp, max_bytes):
    cmd = [cli, "ingest", src, out, "--checkpoint", cp, "--output", "json",
           "--option", "cloudFiles.schemaEvolutionMode=rescue",
           "--option", "cloudFiles.inferColumnTypes=true",
           "--option", "pathGlobFilter=*.json",
           "--option", "cloudFiles.schemaInference.sampleSize.numFiles=1",
           "--option", f"cloudFiles.maxBytesPerTrigger={max_bytes}"]
    return cmd


def memory_sweep(cli, src, files, runs, scratch):
    """Peak RSS of deltaguard by maxBytesPerTrigger, and on a tenth of the backlog."""
    small = os.path.join(scratch, "small")
    os.makedirs(small)
    names = sorted(os.listdir(src))
    for name in [n for n in names if n.endswith(".json")][: max(1, files // 10)]:
        os.symlink(os.path.join(src, name), os.path.join(small, name))
    cases = [("whole backlog", src, "64m"), ("whole backlog", src, "256m"),
             ("whole backlog", src, "1g"), ("a tenth of the backlog", small, "256m")]
    samples = {f"{label}, maxBytesPerTrigger {mb}": [] for label, _, mb in cases}
    for run in range(runs):
        for label, path, mb in cases:
            out, cp = os.path.join(scratch, "t"), os.path.join(scratch, "cp")
            for d in (out, cp):
                shutil.rmtree(d, ignore_errors=True)
            stdout, wall, rss, _ = run_measured(deltaguard_cmd(cli, path, out, cp, mb))
            batches = [json.loads(l) for l in stdout.splitlines()]
            key = f"{label}, maxBytesPerTrigger {mb}"
            samples[key].append({"seconds": wall, "rss_mib": rss, "batches": len(batches),
                                 "bytes": sum(b["bytes"] for b in batches)})
            print(f"run {run} {key:50s} {wall:7.2f} s  rss {rss:6.0f} MiB", flush=True)
    return samples


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--mib", type=int, default=2048)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--spark", action="store_true")
    ap.add_argument("--memory", action="store_true")
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build"))
    args = ap.parse_args()
    src = os.path.join(HERE, "data", f"ingest_{args.files}_{args.mib}")
    records, malformed = make_input(src, args.files, args.mib)
    cli = os.path.join(args.build_dir, "bin", "deltaguard")
    scratch = tempfile.mkdtemp(prefix="ingest_bench_", dir=HERE)
    if args.memory:
        start = os.getloadavg()
        try:
            samples = memory_sweep(cli, src, args.files, args.runs, scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        lines = [load_line(start, os.getloadavg(), args.runs), "",
                 f"deltaguard ingest, {args.files} files / {args.mib} MiB of NDJSON.", "",
                 "| case | batches | input | median time | median peak RSS |",
                 "|---|---:|---:|---:|---:|"]
        for key, v in samples.items():
            lines.append(f"| {key} | {v[-1]['batches']} | {v[-1]['bytes'] / 2**20:.0f} MiB | "
                         f"{statistics.median(s['seconds'] for s in v):.2f} s | "
                         f"{statistics.median(s['rss_mib'] for s in v):.0f} MiB |")
        write_results("ingest_memory", {"files": args.files, "mib": args.mib,
                                        "samples": samples}, lines)
        return
    engines = ["deltaguard", "pyarrow+deltalake"] + (["spark"] if args.spark else [])
    samples = {e: [] for e in engines}
    start = os.getloadavg()
    try:
        for run in range(args.runs):
            for engine in engines:
                out = os.path.join(scratch, "t")
                cp = os.path.join(scratch, "cp")
                for d in (out, cp, cp + "_wh"):
                    shutil.rmtree(d, ignore_errors=True)
                if engine == "deltaguard":
                    stdout, wall, rss, _ = run_measured(
                        deltaguard_cmd(cli, src, out, cp, "256m"))
                    rows = sum(json.loads(l)["rows"] for l in stdout.splitlines())
                    seconds = wall
                elif engine == "pyarrow+deltalake":
                    stdout, wall, rss, _ = run_measured([PY, "-c", LOOP, src, out])
                    r = json.loads(stdout.strip().splitlines()[-1])
                    rows, seconds = r["rows"], r["seconds"]
                else:
                    stdout, wall, rss, _ = run_measured([PY, "-c", SPARK, src, out, cp, REPO])
                    r = json.loads(stdout.strip().splitlines()[-1])
                    rows, seconds = r["rows"], r["seconds"]
                print(f"run {run} {engine:18s} {seconds:8.2f} s  rss {rss:7.0f} MiB  "
                      f"rows {rows}", flush=True)
                samples[engine].append({"seconds": seconds, "rss_mib": rss, "rows": rows})
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    end = os.getloadavg()
    med = {e: statistics.median(s["seconds"] for s in v) for e, v in samples.items()}
    lines = [load_line(start, end, args.runs), "",
             f"{args.files} files, {args.mib} MiB of NDJSON, {records} records "
             f"({malformed} malformed), schemaEvolutionMode rescue.", "",
             "| engine | median time | peak RSS | rows | deltaguard is |",
             "|---|---:|---:|---:|---:|"]
    for e, v in samples.items():
        lines.append(f"| {e} | {med[e]:.2f} s | "
                     f"{statistics.median(s['rss_mib'] for s in v):.0f} MiB | "
                     f"{v[-1]['rows']} | {med[e] / med['deltaguard']:.2f}x faster |")
    write_results("ingest", {"files": args.files, "mib": args.mib, "records": records,
                             "malformed": malformed, "samples": samples}, lines)


if __name__ == "__main__":
    main()
