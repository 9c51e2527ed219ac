"""`deltaguard vacuum` and logged paths outside the table, end to end through the CLI.

1. A log naming `../outside.parquet` (a real Parquet file next to the table) is refused
   by describe, scan and write (exit 3, the log file, the action and the path named);
   the write commits nothing.
2. VACUUM: --dry-run lists, a real run deletes expired orphans and keeps live files,
   recent tombstones and fresh files; the retention safety check and its setting.
3. Crash debris: the hidden temporary data file of a write killed mid-way survives a
   VACUUM within the retention and is removed once it is older than the retention."""

import glob
import json
import os
import signal
import subprocess
import time

import pyarrow as pa
import pyarrow.parquet as pq

from cli_helpers import EXIT_IO, EXIT_USAGE, assert_error, cli_path, run_cli

WEEK_S = 7 * 24 * 3600


def write_table(tmp_path, name="t", rows=3):
    src = tmp_path / f"{name}_in.parquet"
    pq.write_table(pa.table({"id": list(range(rows))}), src)
    path = tmp_path / name
    res = run_cli("write", path, src)
    assert res.returncode == 0, res.describe()
    return path


def age(path, seconds):
    """Set the modification time of `path` to `seconds` ago."""
    t = time.time() - seconds
    os.utime(path, (t, t))


def test_log_path_outside_the_table_is_refused(tmp_path):
    path = write_table(tmp_path)
    outside = tmp_path / "outside.parquet"
    pq.write_table(pa.table({"id": [70, 80]}), outside)
    commit = path / "_delta_log" / "00000000000000000001.json"
    add = {"add": {"path": "../outside.parquet", "partitionValues": {},
                   "size": os.path.getsize(outside), "modificationTime": 1,
                   "dataChange": True}}
    commit.write_text(json.dumps({"commitInfo": {"operation": "WRITE"}}) + "\n" +
                      json.dumps(add) + "\n")
    for args in (["describe", path], ["scan", path],
                 ["write", path, tmp_path / "t_in.parquet"]):
        res = run_cli(*args)
        assert_error(res, EXIT_IO, names=[str(commit), '"../outside.parquet"'],
                     contains=["add action", "climbs out of the table root"])
    # the write committed nothing on top of the log
    assert sorted(os.listdir(path / "_delta_log")) == [
        "00000000000000000000.json", "00000000000000000001.json"]


def test_vacuum_dry_run_then_run(tmp_path):
    path = write_table(tmp_path)
    orphan = path / "part-orphan.parquet"
    pq.write_table(pa.table({"id": [9]}), orphan)
    fresh = path / "part-fresh.parquet"  # a concurrent writer's uncommitted file
    pq.write_table(pa.table({"id": [10]}), fresh)
    age(orphan, WEEK_S + 3600)
    live = [p for p in glob.glob(str(path / "part-*.parquet"))
            if p not in (str(orphan), str(fresh))]
    for p in live:
        age(p, WEEK_S + 3600)  # old, but referenced
    # _deltaguard holds the profile table already (docs/profiles.md); a file of our
    # own beside it is left alone as well
    profile = path / "_deltaguard" / "profile.yaml"
    profile.parent.mkdir(exist_ok=True)
    profile.write_text("x: 1\n")
    age(profile, WEEK_S + 3600)

    dry = run_cli("vacuum", path, "--dry-run", "--format", "json").json()
    assert dry["dry_run"] is True
    assert dry["files"] == [str(orphan)]
    assert dry["num_files"] == 1 and dry["bytes"] == os.path.getsize(orphan)
    assert orphan.exists()

    res = run_cli("vacuum", path)
    assert res.returncode == 0, res.describe()
    assert str(orphan) in res.stdout and "Deleted 1 files" in res.stdout
    assert not orphan.exists()
    for kept in [fresh, profile, *live]:
        assert os.path.exists(kept), kept
    history = run_cli("history", path, "--format", "json").json()
    assert [h["operation"] for h in history[-2:]] == ["VACUUM START", "VACUUM END"]
    rows = run_cli("scan", path, "--format", "jsonl").jsonl()
    assert sorted(r["id"] for r in rows) == [0, 1, 2]


def test_vacuum_retention_check(tmp_path):
    path = write_table(tmp_path)
    res = run_cli("vacuum", path, "--retain-hours", "0")
    assert_error(res, EXIT_USAGE, multiline=True,
                 contains=["DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT",
                           "spark.databricks.delta.retentionDurationCheck.enabled = false"])
    res = run_cli("vacuum", path, "--retain-hours", "0", "--dry-run", "--conf",
                  "spark.databricks.delta.retentionDurationCheck.enabled=false")
    assert res.returncode == 0, res.describe()
    assert_error(run_cli("vacuum", path, "--retain-hours", "x"), EXIT_USAGE,
                 contains=["--retain-hours"])
    assert_error(run_cli("vacuum", tmp_path / "nope"), EXIT_USAGE)


def test_killed_write_debris_is_vacuumed_after_the_retention(tmp_path):
    path = write_table(tmp_path)
    big = tmp_path / "big.csv"
    with open(big, "w") as f:
        f.write("id,name\n")
        line = "".join(f"{i},name-{i:012d}-padding-to-make-rows-longer\n"
                       for i in range(100000))
        for _ in range(40):  # ~220 MB: the write takes long enough to be killed
            f.write(line)
    proc = subprocess.Popen([cli_path(), "write", str(path), str(big), "--format", "csv",
                             "--mode", "append", "--merge-schema"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    temps = []
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        temps = glob.glob(str(path / ".part-*.tmp"))
        if temps:
            break
        time.sleep(0.01)
    assert temps and proc.poll() is None, "the write ended before a temp file appeared"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    temps = glob.glob(str(path / ".part-*.tmp"))
    assert temps, "the killed write left no temporary file"
    assert len(os.listdir(path / "_delta_log")) == 1  # nothing committed

    # within the retention: kept (it could be a live writer's)
    res = run_cli("vacuum", path, "--format", "json")
    assert res.json()["files"] == []
    assert all(os.path.exists(t) for t in temps)
    # older than the retention: abandoned, removed
    for t in temps:
        age(t, WEEK_S + 60)
    res = run_cli("vacuum", path, "--format", "json")
    assert sorted(res.json()["files"]) == sorted(temps)
    assert not any(os.path.exists(t) for t in temps)
