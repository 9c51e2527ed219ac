"""Threads and interruption: long calls release the GIL, and Ctrl-C during a write
leaves the table as it was."""

import _thread
import os
import threading
import time

import pyarrow as pa
import pytest

import deltaguard as dg

BATCH = pa.record_batch({"x": pa.array(range(10_000), pa.int64())})


def slow_batches(n, pause):
    for _ in range(n):
        time.sleep(pause)
        yield BATCH


def test_threads_write_and_read_at_once(tmp_path):
    paths = [str(tmp_path / f"t{i}") for i in range(3)]
    for p in paths:
        dg.write_table(p, pa.table({"x": pa.array([0], pa.int64())}))
    errors = []

    def writer(p):
        try:
            for _ in range(5):
                dg.write_table(p, pa.Table.from_batches([BATCH] * 5))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    def reader(p):
        try:
            for _ in range(10):
                t = dg.Table(p)
                assert t.to_arrow().num_rows in {1 + 50_000 * k for k in range(6)}
        except Exception as e:  # pragma: no cover
            errors.append(e)

    threads = [threading.Thread(target=f, args=(p,)) for p in paths for f in (writer, reader)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    for p in paths:
        assert dg.Table(p).to_arrow().num_rows == 1 + 5 * 50_000


def test_concurrent_appends_to_one_table_all_commit(tmp_path):
    path = str(tmp_path / "t")
    dg.write_table(path, pa.table({"x": pa.array([0], pa.int64())}))

    def append():
        dg.write_table(path, pa.Table.from_batches([BATCH]))

    threads = [threading.Thread(target=append) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    t = dg.Table(path)
    assert t.version == 4 and t.to_arrow().num_rows == 1 + 4 * 10_000


def test_gil_is_released_during_a_write(tmp_path):
    """A Python thread keeps running while the main thread writes."""
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.001)

    big = pa.Table.from_batches([BATCH] * 200)  # 2M rows
    th = threading.Thread(target=ticker)
    th.start()
    start = time.monotonic()
    dg.write_table(str(tmp_path / "t"), big)
    end = time.monotonic()
    stop.set()
    th.join()
    during = [t for t in ticks if start < t < end]
    assert len(during) >= 5, (len(during), end - start)


def test_keyboard_interrupt_during_a_write_leaves_the_table_as_it_was(tmp_path):
    path = str(tmp_path / "t")
    dg.write_table(path, pa.table({"x": pa.array([1], pa.int64())}))
    before_log = sorted(os.listdir(os.path.join(path, "_delta_log")))
    before_files = sorted(f for f in os.listdir(path) if f.endswith(".parquet"))
    reader = pa.RecordBatchReader.from_batches(BATCH.schema, slow_batches(10_000, 0.005))
    timer = threading.Timer(0.5, _thread.interrupt_main)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        dg.write_table(path, reader)
    timer.join()
    assert sorted(os.listdir(os.path.join(path, "_delta_log"))) == before_log
    assert sorted(f for f in os.listdir(path) if f.endswith(".parquet")) == before_files
    assert dg.Table(path).to_arrow().column("x").to_pylist() == [1]
