#!/usr/bin/env python3
"""Writes the bundled sample Delta table examples/orders with deltalake (delta-rs).

The table is committed to the repository; re-run this script only to regenerate it:

    .venv/bin/python examples/make_sample_table.py [OUTPUT_DIR]

History (4 commits, 19 live rows at the latest version):
  v0  WRITE   10 orders, partitioned by country (US, DE, FR)
  v1  WRITE   append 6 orders (one with a null country -> __HIVE_DEFAULT_PARTITION__)
  v2  WRITE   append 4 orders with schema evolution (schema_mode="merge") adding `priority`
  v3  DELETE  order_id = 4 (copy-on-write: remove + add of the rewritten file)

The content is deterministic. delta-rs stamps commits with the wall clock and random ids,
so afterwards the log is normalized: commit timestamps become fixed instants one day apart
(2024-03-01T09:00:00Z + version days) and the table id is fixed. Data file names keep
their random UUIDs.

The table has in-commit timestamps (the `inCommitTimestamp` writer feature, PROTOCOL.md
"In-Commit Timestamps"): each commitInfo carries `inCommitTimestamp`, which readers use
for time travel instead of the commit files' modification times. A git checkout resets
those modification times, so without in-commit timestamps `--timestamp` time travel on
a fresh clone would see every version committed at checkout time. delta-rs cannot
write this feature, so the normalization step enables it: protocol (1, 7) listing the
features (1, 2) implied plus `inCommitTimestamp`, and `delta.enableInCommitTimestamps`.
"""

import datetime as dt
import decimal
import json
import os
import shutil
import sys

import pyarrow as pa
from deltalake import DeltaTable, write_deltalake

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE_ID = "6a1c8e52-0d4b-4f1e-9c3a-5b2f7d9e0a11"
BASE_TS_MS = int(dt.datetime(2024, 3, 1, 9, 0, tzinfo=dt.timezone.utc).timestamp() * 1000)
DAY_MS = 24 * 3600 * 1000

SHIPPING = pa.struct([("city", pa.string()), ("zip", pa.string())])
BASE_FIELDS = [
    ("order_id", pa.int64()),
    ("customer", pa.string()),
    ("amount", pa.decimal128(10, 2)),
    ("order_ts", pa.timestamp("us", tz="UTC")),
    ("tags", pa.list_(pa.string())),
    ("shipping", SHIPPING),
    ("country", pa.string()),
]


def ts(day, hour, minute):
    return dt.datetime(2024, 3, day, hour, minute, tzinfo=dt.timezone.utc)


def order(oid, customer, amount, when, tags, city, zip_code, country, **extra):
    row = {
        "order_id": oid,
        "customer": customer,
        "amount": decimal.Decimal(amount),
        "order_ts": when,
        "tags": tags,
        "shipping": None if city is None else {"city": city, "zip": zip_code},
        "country": country,
    }
    row.update(extra)
    return row


def batch(rows, fields):
    schema = pa.schema(fields)
    return pa.Table.from_pylist(rows, schema=schema)


def commit_0():
    return [
        order(1, "alice", "19.99", ts(1, 8, 5), ["gift"], "Boston", "02108", "US"),
        order(2, "bob", "5.00", ts(1, 8, 17), [], "Berlin", "10115", "DE"),
        order(3, "carol", "120.50", ts(1, 8, 30), ["express", "fragile"], "Lyon", "69001",
              "FR"),
        order(4, "dave", "42.00", ts(1, 8, 41), None, "Austin", "73301", "US"),
        order(5, "erin", "7.25", ts(1, 8, 52), ["gift"], "Munich", "80331", "DE"),
        order(6, "frank", "999.99", ts(1, 9, 3), ["express"], "Paris", "75001", "FR"),
        order(7, "grace", "15.10", ts(1, 9, 14), [], "Seattle", None, "US"),
        order(8, "heidi", "0.99", ts(1, 9, 25), ["digital"], None, None, "DE"),
        order(9, "ivan", "63.40", ts(1, 9, 36), ["gift", "express"], "Nice", "06000", "FR"),
        order(10, "judy", "250.00", ts(1, 9, 47), [], "Denver", "80202", "US"),
    ]


def commit_1():
    return [
        order(11, "alice", "12.00", ts(2, 10, 0), ["repeat"], "Boston", "02108", "US"),
        order(12, "mallory", "3.50", ts(2, 10, 11), [], "Hamburg", "20095", "DE"),
        order(13, "niaj", "77.70", ts(2, 10, 22), ["express"], "Lille", "59000", "FR"),
        order(14, "olivia", "18.00", ts(2, 10, 33), None, "Portland", "97201", "US"),
        order(15, "peggy", "41.00", ts(2, 10, 44), ["gift"], "Zurich", "8001", None),
        order(16, "rupert", "9.99", ts(2, 10, 55), [], "Cologne", "50667", "DE"),
    ]


def commit_2():
    return [
        order(17, "sybil", "31.00", ts(3, 11, 0), ["express"], "Chicago", "60601", "US",
              priority=1),
        order(18, "trent", "8.80", ts(3, 11, 12), [], "Bremen", "28195", "DE",
              priority=None),
        order(19, "victor", "560.00", ts(3, 11, 24), ["fragile"], "Nantes", "44000", "FR",
              priority=3),
        order(20, "walter", "22.22", ts(3, 11, 36), ["gift"], "Miami", "33101", "US",
              priority=2),
    ]


def normalize_log(table_dir):
    """Fixes commit timestamps, file modification times and the table id (see module doc)."""
    log_dir = os.path.join(table_dir, "_delta_log")
    for name in sorted(os.listdir(log_dir)):
        if not name.endswith(".json"):
            continue
        version = int(name[:-5])
        when = BASE_TS_MS + version * DAY_MS
        path = os.path.join(log_dir, name)
        out = []
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                action = json.loads(line)
                if "commitInfo" in action:
                    action["commitInfo"]["timestamp"] = when
                    action["commitInfo"]["inCommitTimestamp"] = when
                if "protocol" in action:
                    action["protocol"] = {
                        "minReaderVersion": 1,
                        "minWriterVersion": 7,
                        "writerFeatures": ["appendOnly", "invariants", "inCommitTimestamp"],
                    }
                if "metaData" in action:
                    action["metaData"]["id"] = TABLE_ID
                    action["metaData"]["createdTime"] = BASE_TS_MS
                    action["metaData"]["configuration"]["delta.enableInCommitTimestamps"] = "true"
                if "add" in action:
                    action["add"]["modificationTime"] = when
                if "remove" in action:
                    action["remove"]["deletionTimestamp"] = when
                out.append(json.dumps(action, separators=(",", ":")))
        # In-commit timestamps require commitInfo to be the first action of a commit.
        out.sort(key=lambda line: not line.startswith('{"commitInfo"'))
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(out) + "\n")
        os.utime(path, (when / 1000, when / 1000))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "orders")
    shutil.rmtree(out, ignore_errors=True)
    write_deltalake(out, batch(commit_0(), BASE_FIELDS), partition_by=["country"],
                    name="orders", description="deltaguard sample: web shop orders")
    write_deltalake(out, batch(commit_1(), BASE_FIELDS), mode="append")
    write_deltalake(out, batch(commit_2(), BASE_FIELDS + [("priority", pa.int32())]),
                    mode="append", schema_mode="merge")
    DeltaTable(out).delete("order_id = 4")
    normalize_log(out)

    table = DeltaTable(out)
    rows = pa.table(table.to_pyarrow_table()).num_rows
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(out) for f in fs)
    print(f"wrote {out}: version {table.version()}, {rows} rows, {size} bytes")


if __name__ == "__main__":
    main()
    # Everything is written and flushed; leave without the interpreter's teardown, where
    # deltalake's and pyarrow's native thread pools race (seen once, under load, as
    # "terminate called without an active exception", SIGABRT, after a complete write).
    sys.stdout.flush()
    os._exit(0)
