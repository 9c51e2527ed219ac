#!/usr/bin/env python3
"""Builds the synthetic tables of the snapshot-load benchmark under bench/data/ (gitignored).

    .venv/bin/python bench/make_tables.py [--out bench/data] [--force]

many_commits  10,000 commits of one tiny append each (10,000 live files), automatic
              checkpoints off, a checkpoint written by deltalake at version 9,990, so a
              snapshot load reads that checkpoint plus 9 JSON commits.
many_files    one commit adding 200,000 files (200 partitions of a `day` column), a
              checkpoint at that version holding all of them, then 3 small JSON commits.

deltalake (delta-rs) is the peer writer: it creates each table, writes the first commits
and all checkpoints. Its transaction API re-reads the whole log on every commit (quadratic
for 10,000 commits), so the bulk of the many_commits log is produced by repeating the
exact JSON of a deltalake-written append with a new file path, stats and timestamp. The
data files are not written: loading a snapshot only reads the log.
"""

import argparse
import json
import os
import shutil
import sys
import time

import pyarrow as pa
from deltalake import DeltaTable, PostCommitHookProperties
from deltalake.transaction import AddAction

HERE = os.path.dirname(os.path.abspath(__file__))
NO_HOOKS = PostCommitHookProperties(create_checkpoint=False, cleanup_expired_logs=False)
NO_AUTO_CHECKPOINT = {"delta.checkpointInterval": "1000000000"}
BASE_MS = 1_700_000_000_000

MANY_COMMITS = 10_000
MANY_COMMITS_CHECKPOINT = 9_990
MANY_FILES = 200_000
MANY_FILES_PARTITIONS = 200


def stats(lo, hi, rows):
    return json.dumps({"numRecords": rows, "minValues": {"id": lo, "name": f"n{lo}"},
                       "maxValues": {"id": hi, "name": f"n{hi}"},
                       "nullCount": {"id": 0, "name": 0}}, separators=(",", ":"))


def log_path(table, version):
    return os.path.join(table, "_delta_log", f"{version:020d}.json")


def make_many_commits(table):
    schema = pa.schema([("id", pa.int64()), ("name", pa.string())])
    dt = DeltaTable.create(table, schema, name="many_commits",
                           configuration=NO_AUTO_CHECKPOINT)
    # Version 1 by deltalake: the template of every later commit.
    add = AddAction("part-00001-c000.snappy.parquet", 700, {}, BASE_MS + 1, True,
                    stats(1, 1, 1))
    dt.create_write_transaction([add], mode="append", schema=dt.schema(),
                                post_commithook_properties=NO_HOOKS)
    with open(log_path(table, 1), encoding="utf-8") as f:
        template = [json.loads(line) for line in f if line.strip()]
    assert {next(iter(a)) for a in template} == {"commitInfo", "add"}, template

    for version in range(2, MANY_COMMITS):
        lines = []
        for action in template:
            action = json.loads(json.dumps(action))  # deep copy
            if "commitInfo" in action:
                action["commitInfo"]["timestamp"] = BASE_MS + version * 1000
                action["commitInfo"]["readVersion"] = version - 1
            else:
                a = action["add"]
                a["path"] = f"part-{version:05d}-c000.snappy.parquet"
                a["size"] = 700 + version % 50
                a["modificationTime"] = BASE_MS + version * 1000
                a["stats"] = stats(version, version, 1)
            lines.append(json.dumps(action, separators=(",", ":")))
        with open(log_path(table, version), "x", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")

    DeltaTable(table, version=MANY_COMMITS_CHECKPOINT).create_checkpoint()
    expect_checkpoint = os.path.join(
        table, "_delta_log", f"{MANY_COMMITS_CHECKPOINT:020d}.checkpoint.parquet")
    assert os.path.exists(expect_checkpoint), "deltalake did not checkpoint at 9,990"


def make_many_files(table):
    schema = pa.schema([("id", pa.int64()), ("name", pa.string()), ("day", pa.string())])
    dt = DeltaTable.create(table, schema, name="many_files", partition_by=["day"],
                           configuration=NO_AUTO_CHECKPOINT)

    def add(i, when):
        day = f"2024-{1 + (i % MANY_FILES_PARTITIONS) // 28:02d}-" \
              f"{1 + (i % MANY_FILES_PARTITIONS) % 28:02d}"
        return AddAction(f"day={day}/part-{i:06d}-c000.snappy.parquet", 4000 + i % 1000,
                         {"day": day}, when, True, stats(i * 100, i * 100 + 99, 100))

    adds = [add(i, BASE_MS + 1000) for i in range(MANY_FILES)]
    dt.create_write_transaction(adds, mode="append", schema=dt.schema(),
                                partition_by=["day"], post_commithook_properties=NO_HOOKS)
    DeltaTable(table).create_checkpoint()
    for k in range(3):
        dt = DeltaTable(table)
        dt.create_write_transaction([add(MANY_FILES + k, BASE_MS + 2000 + k)], mode="append",
                                    schema=dt.schema(), partition_by=["day"],
                                    post_commithook_properties=NO_HOOKS)


TABLES = {"many_commits": make_many_commits, "many_files": make_many_files}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(HERE, "data"))
    parser.add_argument("--force", action="store_true", help="rebuild existing tables")
    parser.add_argument("tables", nargs="*", default=sorted(TABLES))
    opts = parser.parse_args()
    for name in opts.tables:
        table = os.path.join(opts.out, name)
        done = table + ".complete"
        if os.path.exists(done) and not opts.force:
            print(f"{name}: exists ({table})")
            continue
        shutil.rmtree(table, ignore_errors=True)
        if os.path.exists(done):
            os.remove(done)
        os.makedirs(opts.out, exist_ok=True)
        t0 = time.time()
        TABLES[name](table)
        dt = DeltaTable(table)
        files = len(dt.file_uris())
        open(done, "w").close()
        print(f"{name}: version {dt.version()}, {files} live files, "
              f"built in {time.time() - t0:.1f}s ({table})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
