#!/usr/bin/env python3
"""Input for the append benchmark: N rows of a 20-column table (integers, doubles,
decimals, strings, timestamps, one nested struct) as Parquet files of 1M rows each in
bench/data/append_input/. Deterministic (seeded); idempotent (--force rebuilds)."""

import argparse
import os
import shutil

import numpy as np
import pyarrow as pa
import pyarrow.compute  # noqa: F401
import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))


def unscaled_decimal(values, precision, scale):
    """A decimal128 array whose unscaled integers are `values` (int64)."""
    values = np.asarray(values, dtype=np.int64)
    words = np.empty(len(values) * 2, dtype=np.int64)
    words[0::2] = values
    words[1::2] = np.where(values < 0, -1, 0)
    return pa.Array.from_buffers(pa.decimal128(precision, scale), len(values),
                                 [None, pa.py_buffer(words.tobytes())])


def make_batch(rng, start, n):
    ids = np.arange(start, start + n, dtype=np.int64)
    base_ts = np.int64(1_700_000_000_000_000)
    words = np.array(["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf",
                      "hotel"], dtype=object)
    cities = np.array([f"city-{i:04d}" for i in range(1000)], dtype=object)

    cents = rng.integers(0, 10_000_000, n)
    cols = {
        "id": pa.array(ids),
        "customer_id": pa.array(rng.integers(0, 1_000_000, n, dtype=np.int64)),
        "quantity": pa.array(rng.integers(0, 100, n, dtype=np.int32)),
        "store": pa.array(rng.integers(0, 500, n, dtype=np.int32)),
        "flags": pa.array(rng.integers(0, 8, n, dtype=np.int16)),
        "price": pa.array(rng.random(n) * 1000),
        "discount": pa.array(rng.random(n)),
        "tax": pa.array(rng.random(n) * 10),
        "amount": unscaled_decimal(cents, 18, 2),
        "fee": unscaled_decimal(rng.integers(0, 100_000, n), 12, 4),
        "name": pa.array(words[rng.integers(0, len(words), n)], pa.string()),
        "city": pa.array(cities[rng.integers(0, len(cities), n)], pa.string()),
        "sku": pa.array([f"SKU-{v:08d}" for v in rng.integers(0, 10**8, n)], pa.string()),
        "comment": pa.array([None if v % 5 == 0 else f"note {v}" for v in
                             rng.integers(0, 10**6, n)], pa.string()),
        "created_at": pa.array(base_ts + ids * 1000, pa.timestamp("us", tz="UTC")),
        "updated_at": pa.array(base_ts + ids * 1000 + rng.integers(0, 10**9, n),
                               pa.timestamp("us", tz="UTC")),
        "score": pa.array(rng.integers(-10**9, 10**9, n, dtype=np.int64)),
        "ratio": pa.array(rng.random(n).astype(np.float64)),
        "day": pa.array((ids // 100_000).astype(np.int32), pa.int32()),
        "address": pa.StructArray.from_arrays(
            [pa.array(cities[rng.integers(0, len(cities), n)], pa.string()),
             pa.array(rng.integers(10000, 99999, n, dtype=np.int32)),
             pa.array(rng.random(n) * 180 - 90)],
            names=["city", "zip", "lat"]),
    }
    return pa.table(cols)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--rows-per-file", type=int, default=1_000_000)
    ap.add_argument("--out", default=os.path.join(HERE, "data", "append_input"))
    ap.add_argument("--force", action="store_true")
    args = ap.parse_args()
    stamp = os.path.join(args.out, f".complete-{args.rows}")
    if os.path.exists(stamp) and not args.force:
        print(f"{args.out}: up to date")
        return
    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(args.out)
    rng = np.random.default_rng(42)
    start = 0
    part = 0
    while start < args.rows:
        n = min(args.rows_per_file, args.rows - start)
        table = make_batch(rng, start, n)
        pq.write_table(table, os.path.join(args.out, f"part-{part:03d}.parquet"),
                       row_group_size=256 * 1024)
        start += n
        part += 1
    open(stamp, "w").close()
    print(f"{args.out}: {args.rows} rows in {part} files, 20 columns")


if __name__ == "__main__":
    main()
