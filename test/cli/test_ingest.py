"""End-to-end: `deltaguard ingest` (docs/ingest.md) on the source articles' bronze cases:
`payment_method` appears (addNewColumns fails once naming it, the rerun picks it up),
`amount` arrives as the string "275.50" and `Channel` as well as `channel` (rescued
with the file path), a column that stops arriving (NULL, nothing rescued), malformed
lines kept with file and line or refused with FAILFAST; JSON progress per batch; a
kill -9 in the middle of a backlog followed by a rerun loses and duplicates nothing;
Spark reads the bronze table, rescued column included, as deltaguard does."""

import json
import os
import pty
import signal
import subprocess
import time

import pytest

from cli_helpers import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, cli_path, run_cli
from interop_helpers import assert_same_table


def put(directory, name, records):
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n"
                            for r in records))
    return path


def rows(table, *cols):
    res = run_cli("scan", table, "--format", "jsonl")
    assert res.returncode == EXIT_OK, res.describe()
    out = res.jsonl()
    return sorted((tuple(r.get(c) for c in cols) for r in out), key=repr)


@pytest.fixture
def landing(tmp_path):
    d = tmp_path / "landing"
    d.mkdir()
    return d


def ingest(landing, tmp_path, *extra):
    return run_cli("ingest", str(landing), str(tmp_path / "bronze"), "--checkpoint",
                   str(tmp_path / "cp"), *extra)


def test_new_column_fails_once_then_lands(landing, tmp_path):
    put(landing, "day1.json", [{"order_id": "1", "amount": 10.5},
                               {"order_id": "2", "amount": 7}])
    res = ingest(landing, tmp_path, "--output", "json")
    assert res.returncode == EXIT_OK, res.describe()
    [batch] = res.jsonl()
    assert batch["batch"] == 0 and batch["rows"] == 2 and batch["table_version"] == 0

    put(landing, "day2.json", [{"order_id": "3", "amount": 1, "payment_method": "card"}])
    res = ingest(landing, tmp_path)
    assert res.returncode == EXIT_REFUSED, res.describe()
    assert "UNKNOWN_FIELD_EXCEPTION" in res.stderr
    assert "payment_method (string)" in res.stderr
    assert "run the ingestion again" in res.stderr
    schemas = sorted(os.listdir(tmp_path / "cp" / "_schemas"))
    assert schemas == ["0", "1"]
    assert json.loads((tmp_path / "cp" / "_schemas" / "1").read_text())["added"] == \
        ["payment_method"]

    res = ingest(landing, tmp_path)
    assert res.returncode == EXIT_OK, res.describe()
    assert "batch 1 (replayed)" in res.stdout
    bronze = str(tmp_path / "bronze")
    assert rows(bronze, "order_id", "amount", "payment_method") == [
        ("1", "10.5", None), ("2", "7", None), ("3", "1", "card")]
    res = ingest(landing, tmp_path)
    assert res.returncode == EXIT_OK and "no new files" in res.stdout


def test_rescue_keeps_type_and_case_mismatches_with_the_file(landing, tmp_path, spark):
    opts = ["--option", "cloudFiles.schemaEvolutionMode=rescue",
            "--option", "cloudFiles.inferColumnTypes=true"]
    put(landing, "a.json", [{"order_id": 1, "amount": 10.5, "channel": "web",
                             "coupon": "X1"}])
    assert ingest(landing, tmp_path, *opts).returncode == EXIT_OK
    b = put(landing, "b.json", [{"order_id": 2, "amount": "275.50", "Channel": "app"}])
    res = ingest(landing, tmp_path, *opts, "--output", "json")
    assert res.returncode == EXIT_OK, res.describe()
    assert res.jsonl()[0]["rescued_rows"] == 1
    bronze = str(tmp_path / "bronze")
    got = rows(bronze, "order_id", "amount", "channel", "coupon", "_rescued_data")
    assert got[0] == (1, 10.5, "web", "X1", None)
    # The column that stopped arriving is NULL; nothing of it was rescued.
    assert got[1][:4] == (2, None, None, None)
    assert json.loads(got[1][4]) == {"amount": "275.50", "Channel": "app",
                                     "_file_path": str(b)}
    # Spark reads the bronze table, rescued column included, as deltaguard does.
    assert_same_table(bronze, spark)


def test_malformed_lines_are_kept_or_refused(landing, tmp_path):
    put(landing, "a.json", ['{"id": "1"}', '{"id": "2"', '{"id": "3"}'])
    res = ingest(landing, tmp_path, "--output", "json")
    assert res.returncode == EXIT_OK, res.describe()
    assert res.jsonl()[0]["malformed_rows"] == 1
    kept = [r for r in rows(str(tmp_path / "bronze"), "id", "_rescued_data") if r[1]]
    assert json.loads(kept[0][1])["_line"] == 2

    put(landing, "b.json", ['{"id": "4"}', 'oops'])
    res = ingest(landing, tmp_path, "--option", "mode=FAILFAST")
    assert res.returncode != EXIT_OK
    assert "b.json:2: malformed record" in res.stderr
    assert len(rows(str(tmp_path / "bronze"), "id")) == 3  # nothing of the batch


def test_bad_options_are_usage_errors(landing, tmp_path):
    res = ingest(landing, tmp_path, "--option", "cloudFiles.schemaEvolutionMod=rescue")
    assert res.returncode == EXIT_USAGE
    assert "unknown ingestion option 'cloudFiles.schemaEvolutionMod'" in res.stderr
    res = ingest(landing, tmp_path, "--trigger", "sometimes")
    assert res.returncode == EXIT_USAGE and "trigger 'sometimes'" in res.stderr
    res = run_cli("ingest", str(landing), str(tmp_path / "t"))
    assert res.returncode == EXIT_USAGE and "--checkpoint" in res.stderr


def test_kill_mid_backlog_then_rerun_loses_and_duplicates_nothing(landing, tmp_path):
    expected = []
    for f in range(60):
        recs = [{"file": f, "n": i, "pad": "x" * 200} for i in range(2000)]
        expected += [(f, i) for i in range(2000)]
        put(landing, f"part-{f:03d}.json", recs)
    args = [cli_path(), "ingest", str(landing), str(tmp_path / "bronze"), "--checkpoint",
            str(tmp_path / "cp"), "--option", "cloudFiles.maxFilesPerTrigger=3",
            "--option", "cloudFiles.inferColumnTypes=true", "--output", "json"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    # Kill it once a few batches are in, in the middle of the next one.
    seen = 0
    for line in proc.stdout:
        seen += 1
        if seen == 4:
            time.sleep(0.05)
            proc.send_signal(signal.SIGKILL)
            break
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    res = run_cli(*args[1:])
    assert res.returncode == EXIT_OK, res.describe()
    got = rows(str(tmp_path / "bronze"), "file", "n")
    assert len(got) == len(expected)
    assert sorted(got) == sorted(expected)


def test_continuous_stops_cleanly_on_sigterm(landing, tmp_path):
    put(landing, "a.json", [{"id": "1"}])
    args = [cli_path(), "ingest", str(landing), str(tmp_path / "bronze"), "--checkpoint",
            str(tmp_path / "cp"), "--trigger", "continuous=200ms", "--output", "json"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    first = json.loads(proc.stdout.readline())
    assert first["rows"] == 1
    put(landing, "b.json", [{"id": "2"}, {"id": "3"}])
    second = json.loads(proc.stdout.readline())
    assert second["batch"] == 1 and second["rows"] == 2
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == EXIT_OK
    assert rows(str(tmp_path / "bronze"), "id") == [("1",), ("2",), ("3",)]


def test_progress_bar_on_a_terminal(landing, tmp_path):
    for f in range(6):
        put(landing, f"p{f}.json", [{"n": str(f)}])
    master, slave = pty.openpty()
    args = [cli_path(), "ingest", str(landing), str(tmp_path / "bronze"), "--checkpoint",
            str(tmp_path / "cp"), "--option", "cloudFiles.maxFilesPerTrigger=2"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=slave)
    out, _ = proc.communicate(timeout=60)
    os.close(slave)
    err = os.read(master, 65536).decode()
    os.close(master)
    assert proc.returncode == EXIT_OK
    assert "[##########....................] 2/6 files, 2 rows" in err
    assert "[####################..........] 4/6 files, 4 rows" in err
    assert out.decode().count("batch ") == 3  # the bar is on stderr only


def test_parquet_source_casts_rescues_and_spark_reads_it(landing, tmp_path, spark):
    import pyarrow as pa
    import pyarrow.parquet as pq
    pq.write_table(pa.table({"id": pa.array([1], pa.int64()),
                             "amount": pa.array([10.5], pa.float64()),
                             "qty": pa.array([2], pa.int32())}), landing / "a.parquet")
    b = landing / "b.parquet"
    pq.write_table(pa.table({"id": pa.array([2, 3], pa.int64()),
                             "amount": pa.array(["12.25", "n/a"]),
                             "qty": pa.array([3, 2**40], pa.int64()),
                             "coupon": pa.array([None, "X1"])}), b)
    res = ingest(landing, tmp_path, "--format", "parquet", "--output", "json",
                 "--option", "cloudFiles.schemaEvolutionMode=rescue",
                 "--option", "cloudFiles.schemaInference.sampleSize.numFiles=1")
    assert res.returncode == EXIT_OK, res.describe()
    assert [(x["files"], x["rows"], x["rescued_rows"]) for x in res.jsonl()] == [(2, 3, 1)]
    bronze = str(tmp_path / "bronze")
    got = rows(bronze, "id", "amount", "qty", "_rescued_data")
    # The file's types stay (no strings); what casts is kept, what does not is rescued.
    assert got[:2] == [(1, 10.5, 2, None), (2, 12.25, 3, None)]
    assert got[2][:3] == (3, None, None)
    assert json.loads(got[2][3]) == {"amount": "n/a", "qty": 2**40, "coupon": "X1",
                                     "_file_path": str(b)}
    assert_same_table(bronze, spark)


def test_sql_stream_loads_each_new_file_once(landing, tmp_path):
    bronze, cp = tmp_path / "bronze", tmp_path / "checkpoints"
    stmt = (f"SET spark.sql.streaming.checkpointLocation = '{cp}'; "
            f"INSERT INTO delta.`{bronze}` SELECT order_id, upper(status) AS status, "
            f"_rescued_data FROM STREAM read_files('{landing}', format => 'json', "
            f"schemaEvolutionMode => 'rescue') "
            f"WHERE order_id IS NOT NULL")
    put(landing, "a.json", [{"order_id": "1", "status": "new"}, {"order_id": None}])

    def run():
        res = run_cli("sql", stmt, "--format", "jsonl")
        assert res.returncode == EXIT_OK, res.describe()
        out = res.jsonl()[-1]
        return out["num_inserted_rows"], out["num_files"], out["num_batches"]

    assert run() == (1, 1, 1)  # the row without order_id is filtered by the WHERE
    put(landing, "b.json", [{"order_id": "2", "status": "shipped", "coupon": "X"}])
    assert run() == (1, 1, 1)  # only the new file
    assert run() == (0, 0, 0)  # nothing new: nothing loaded twice
    got = rows(str(bronze), "order_id", "status", "_rescued_data")
    assert [r[:2] for r in got] == [("1", "NEW"), ("2", "SHIPPED")]
    assert json.loads(got[1][2])["coupon"] == "X"
    history = run_cli("history", str(bronze), "--format", "json")
    assert history.returncode == EXIT_OK, history.describe()
    ops = [v["operation"] for v in json.loads(history.stdout)]
    assert ops == ["STREAMING UPDATE", "STREAMING UPDATE"]
