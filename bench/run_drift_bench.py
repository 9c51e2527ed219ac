#!/usr/bin/env python3
"""Schema drift benchmark (issue 19, docs/drift.md):

1. `deltaguard history T --drift` over a table of 10,000 commits with 500 schema
   changes, against plain `deltaguard history T` in the same run (no other engine
   classifies schema changes). The log is generated directly as JSON commit files:
   version 0 creates a 120-column table, every later commit adds one of four small data
   files (with statistics), and every 20th commit (19, 39, ..., 9999) also logs a
   metaData: 400 nullable columns added, 100 INT columns widened to BIGINT. Target: under 1 s.
2. `deltaguard drift T INPUT` of a 1,000-column table against a ~100 MB and a ~1 GB
   Parquet input (same row-group size; one column widened, one added): the drift
   command reads footers and one bounded batch, so its peak memory must not grow with
   the input.

Generated data is cached in bench/data/drift_* (a `.complete` marker per data set).
Every sample is a fresh process; time is the whole CLI process, peak RSS its
maximum resident set (GNU time %M). One warm-up round, then the commands alternate run by run. Each run
is checked: the number of drift lines of history, the changes drift reports.
Results: bench/results/drift.{json,md}."""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from run_append_bench import load_line, write_results  # noqa: E402

BASE_COLUMNS = 20
COMMITS = 10_000
CHANGE_EVERY = 20  # 500 schema changes
WIDE_COLUMNS = 1000
ROW_GROUP_ROWS = 8192


def measure(cmd, ok_codes=(0,)):
    """stdout, wall seconds and peak RSS (MiB) of one process. The RSS is GNU time's
    %M: the child's ru_maxrss counts from its fork, so a child forked from this Python
    process (pyarrow loaded) would report this process's size, not the CLI's."""
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, capture_output=True)
    wall = time.perf_counter() - start
    if proc.returncode not in ok_codes:
        raise SystemExit(f"{cmd[:3]} exited {proc.returncode}: {proc.stderr[-2000:]}")
    rss_kib = int(proc.stderr.decode().strip().splitlines()[-1])
    return proc.stdout.decode(), wall, rss_kib / 1024.0


def field(name, type_name):
    return {"name": name, "type": type_name, "nullable": True, "metadata": {}}


def history_schemas():
    """The schema after each change k = 1..500: 4 of 5 changes add a column, every 5th
    widens the next of the INT columns to BIGINT."""
    fields = [field(f"c{i}", "integer") for i in range(BASE_COLUMNS)]
    fields += [field(f"i{i}", "integer") for i in range(COMMITS // CHANGE_EVERY // 5)]
    schemas = [list(fields)]
    widened = 0
    for k in range(1, COMMITS // CHANGE_EVERY + 1):
        if k % 5 == 0:
            fields[BASE_COLUMNS + widened] = field(f"i{widened}", "long")
            widened += 1
        else:
            fields.append(field(f"added_{k}", "long"))
        schemas.append(list(fields))
    return schemas


def make_history_table(data_dir):
    import pyarrow as pa
    import pyarrow.parquet as pq
    root = os.path.join(data_dir, "drift_history_10000")
    if os.path.exists(root + ".complete"):
        return root
    shutil.rmtree(root, ignore_errors=True)
    log = os.path.join(root, "_delta_log")
    os.makedirs(log)
    files = []
    for i in range(4):
        name = f"part-{i:05d}.parquet"
        pq.write_table(pa.table({"c0": pa.array(range(10), pa.int32())}),
                       os.path.join(root, name))
        files.append((name, os.path.getsize(os.path.join(root, name))))
    schemas = history_schemas()
    t0 = 1_700_000_000_000
    metadata_id = "6b1f7c3e-0000-4000-8000-000000000019"
    for v in range(COMMITS):
        actions = []
        op = "WRITE"
        if v == 0:
            op = "CREATE TABLE"
            actions.append({"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}})
        if v == 0 or v % CHANGE_EVERY == CHANGE_EVERY - 1:
            schema = {"type": "struct", "fields": schemas[(v + 1) // CHANGE_EVERY]}
            if v:
                op = "ADD COLUMNS"
            actions.append({"metaData": {
                "id": metadata_id, "format": {"provider": "parquet", "options": {}},
                "schemaString": json.dumps(schema, separators=(",", ":")),
                "partitionColumns": [], "configuration": {}, "createdTime": t0}})
        actions.insert(0, {"commitInfo": {
            "timestamp": t0 + v * 1000, "operation": op,
            "operationParameters": {"mode": "Append"}, "engineInfo": "bench"}})
        if v:
            name, size = files[v % len(files)]
            stats = {"numRecords": 10, "minValues": {"c0": 0}, "maxValues": {"c0": 9},
                     "nullCount": {"c0": 0}}
            actions.append({"add": {
                "path": name, "partitionValues": {}, "size": size,
                "modificationTime": t0 + v * 1000, "dataChange": True,
                "stats": json.dumps(stats, separators=(",", ":"))}})
        with open(os.path.join(log, f"{v:020d}.json"), "w") as f:
            f.write("\n".join(json.dumps(a, separators=(",", ":")) for a in actions))
            f.write("\n")
    open(root + ".complete", "w").close()
    return root


def make_wide_table(data_dir, cli):
    import pyarrow as pa
    import pyarrow.parquet as pq
    root = os.path.join(data_dir, "drift_wide_table_1000")
    if os.path.exists(root + ".complete"):
        return root
    shutil.rmtree(root, ignore_errors=True)
    seed = os.path.join(data_dir, "drift_wide_seed.parquet")
    cols = {f"col{i:04d}": pa.array([float(i), float(i + 1)], pa.float64())
            for i in range(WIDE_COLUMNS)}
    cols["col0000"] = pa.array([1, 2], pa.int32())
    pq.write_table(pa.table(cols), seed)
    subprocess.run([cli, "write", root, seed], check=True, stdout=subprocess.DEVNULL)
    os.remove(seed)
    open(root + ".complete", "w").close()
    return root


def make_wide_input(data_dir, mib):
    """A Parquet file of about `mib` MiB: the table's 1,000 columns with col0000 widened
    to BIGINT, plus a new column; random doubles (incompressible), row groups of
    ROW_GROUP_ROWS rows in every file."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq
    path = os.path.join(data_dir, f"drift_input_{mib}mib.parquet")
    if os.path.exists(path + ".complete"):
        return path
    rows_total = mib * 1024 * 1024 // (8 * (WIDE_COLUMNS + 1))
    rng = np.random.default_rng(19)
    names = [f"col{i:04d}" for i in range(WIDE_COLUMNS)] + ["channel_code"]
    writer = None
    written = 0
    while written < rows_total:
        n = min(ROW_GROUP_ROWS, rows_total - written)
        block = rng.random((WIDE_COLUMNS + 1, n))
        arrays = [pa.array(np.arange(written, written + n, dtype=np.int64))]
        arrays += [pa.array(block[i]) for i in range(1, WIDE_COLUMNS + 1)]
        batch = pa.table(arrays, names=names)
        if writer is None:
            writer = pq.ParquetWriter(path, batch.schema, compression="none")
        writer.write_table(batch, row_group_size=ROW_GROUP_ROWS)
        written += n
    writer.close()
    open(path + ".complete", "w").close()
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build"))
    ap.add_argument("--sizes-mib", default="100,1000")
    args = ap.parse_args()
    cli = os.path.join(args.build_dir, "bin", "deltaguard")
    data_dir = os.path.join(HERE, "data")
    os.makedirs(data_dir, exist_ok=True)
    t = time.perf_counter()
    history_table = make_history_table(data_dir)
    wide = make_wide_table(data_dir, cli)
    inputs = {int(s): make_wide_input(data_dir, int(s)) for s in args.sizes_mib.split(",")}
    print(f"data ready in {time.perf_counter() - t:.1f} s", flush=True)
    load_at_start = os.getloadavg()

    cases = {
        "history --drift": ([cli, "history", history_table, "--drift"], (0,)),
        "history": ([cli, "history", history_table], (0,)),
        "history --format json": ([cli, "history", history_table, "--format", "json"],
                                  (0,)),
    }
    for mib, path in inputs.items():
        # exit 1: the changes include a high-risk one (--fail-on high, the default)
        cases[f"drift {mib} MiB input"] = ([cli, "drift", wide, path, "--format", "json"],
                                           (0, 1))
    samples = {name: [] for name in cases}
    for run in range(args.runs + 1):  # run 0 warms the page cache and is not counted
        for name, (cmd, ok) in cases.items():
            out, wall, rss = measure(cmd, ok)
            if name == "history --drift":
                lines = sum(1 for line in out.splitlines() if line.startswith("  drift: "))
                if lines != COMMITS // CHANGE_EVERY:
                    raise SystemExit(f"history --drift printed {lines} drift lines")
            if name.startswith("drift "):
                changes = [(c["class"], c["path"]) for c in json.loads(out)["changes"]]
                if ("TYPE_WIDENED", "col0000") not in changes or \
                        ("COLUMN_ADDED_NULLABLE", "channel_code") not in changes:
                    raise SystemExit(f"drift reported {changes}")
            print(f"run {run} {name:24s} {wall:7.3f} s  rss {rss:7.1f} MiB", flush=True)
            if run > 0:
                samples[name].append({"seconds": round(wall, 4), "rss_mib": round(rss, 1)})
    load = os.getloadavg()
    sizes = {name: os.path.getsize(p) for name, p in
             [(f"drift {m} MiB input", p) for m, p in inputs.items()]}
    result = {"commits": COMMITS, "schema_changes": COMMITS // CHANGE_EVERY,
              "wide_columns": WIDE_COLUMNS, "row_group_rows": ROW_GROUP_ROWS,
              "input_bytes": sizes, "runs": args.runs,
              "load_avg_at_start": [round(x, 2) for x in load_at_start],
              "load_avg_at_end": [round(x, 2) for x in load], "results": []}
    lines = [load_line(load_at_start, load, args.runs), "",
             "| case | median time | median peak RSS | runs (s) |", "|---|---:|---:|---|"]
    for name, s in samples.items():
        med_t = statistics.median(x["seconds"] for x in s)
        med_r = statistics.median(x["rss_mib"] for x in s)
        result["results"].append({"case": name, "median_seconds": round(med_t, 4),
                                  "median_peak_rss_mib": med_r, "samples": s})
        runs = " / ".join(f"{x['seconds']:.3f}" for x in s)
        lines.append(f"| `{name}` | {med_t:.3f} s | {med_r:.0f} MiB | {runs} |")
    write_results("drift", result, lines)


if __name__ == "__main__":
    main()
