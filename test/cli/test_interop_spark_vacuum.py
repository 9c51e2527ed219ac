"""VACUUM interop with Apache Spark + Delta Lake 4.4 (one Spark session for the run,
fixture `spark`, spark_session.py):

1. After deltaguard's VACUUM with the default retention, Spark reads the table and
   time-travels to the overwritten version; after deltaguard's VACUUM RETAIN 0 HOURS
   (check disabled) Spark reads the latest version, and time travel to the vacuumed
   version fails in both engines. Spark's history shows deltaguard's VACUUM START/END.
2. The other way round: deltaguard reads (and time-travels on) a table after Spark's
   VACUUM with the default retention and with RETAIN 0 HOURS, and parses Spark's
   VACUUM START/END commits."""

import glob
import os

import pytest

from cli_helpers import run_cli
from interop_helpers import rows_deltaguard, rows_spark

CHECK = "spark.databricks.delta.retentionDurationCheck.enabled"


def dg_sql(*statements):
    res = run_cli("sql", "; ".join(statements))
    assert res.returncode == 0, res.describe()
    return res


def data_files(path):
    return sorted(glob.glob(os.path.join(path, "**", "*.parquet"), recursive=True))


def test_spark_reads_and_time_travels_after_our_vacuum(spark, tmp_path):
    path = str(tmp_path / "ours")
    t = f"delta.`{path}`"
    dg_sql(f"CREATE TABLE {t} (id BIGINT, day STRING) USING DELTA PARTITIONED BY (day)",
           f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b')",
           f"INSERT OVERWRITE {t} VALUES (3, 'a')")
    before = rows_spark(spark, path, version=1)
    assert len(before) == 2

    dg_sql(f"VACUUM {t}")  # default retention: nothing is old enough
    assert rows_spark(spark, path, version=1) == before
    assert rows_spark(spark, path) == rows_deltaguard(path)

    res = run_cli("vacuum", path, "--retain-hours", "0", "--format", "json", "--conf",
                  f"{CHECK}=false")
    assert res.returncode == 0, res.describe()
    assert len(res.json()["files"]) == 2
    assert not os.path.exists(os.path.join(path, "day=b"))
    latest = rows_spark(spark, path)
    assert latest == rows_deltaguard(path) and len(latest) == 1
    ops = [r["operation"] for r in
           spark.sql(f"DESCRIBE HISTORY {t}").orderBy("version").collect()]
    assert ops[-4:] == ["VACUUM START", "VACUUM END", "VACUUM START", "VACUUM END"]
    with pytest.raises(Exception):
        spark.read.format("delta").option("versionAsOf", 1).load(path).collect()
    assert run_cli("scan", path, "--version", "1").returncode == 3


def test_we_read_after_spark_vacuum(spark, tmp_path):
    path = str(tmp_path / "theirs")
    t = f"delta.`{path}`"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, day STRING) USING DELTA PARTITIONED BY (day)")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"INSERT OVERWRITE {t} VALUES (3, 'a')")
    v1 = rows_spark(spark, path, version=1)

    spark.sql(f"VACUUM {t}")  # default retention
    assert rows_deltaguard(path, version=1) == v1
    assert rows_deltaguard(path) == rows_spark(spark, path)

    spark.conf.set(CHECK, "false")
    try:
        spark.sql(f"VACUUM {t} RETAIN 0 HOURS")
    finally:
        spark.conf.unset(CHECK)
    assert len(data_files(path)) == 1
    assert rows_deltaguard(path) == rows_spark(spark, path)
    assert run_cli("scan", path, "--version", "1").returncode == 3
    history = run_cli("history", path, "--format", "json").json()
    ops = [h["operation"] for h in history]
    assert "VACUUM START" in ops and "VACUUM END" in ops, ops
    # our VACUUM on Spark's table now finds nothing more to delete
    res = run_cli("vacuum", path, "--retain-hours", "0", "--dry-run", "--format", "json",
                  "--conf", f"{CHECK}=false")
    assert res.json()["files"] == []
