"""The session-scoped pytest fixture `spark`: one local Spark 4.2 session with Delta Lake
4.4 for the whole test run (registered in conftest.py).

The Delta jars are NOT resolved by Ivy at test time: scripts/fetch_delta_jars.sh (run by
scripts/setup.sh) copies them once from Maven into $DELTAGUARD_CACHE/delta-jars (default
<repo>/.cache/delta-jars) and the session loads them through `spark.jars`. pyspark is
imported lazily, so test modules that do not use the fixture never pay for it.

Fails (does not skip) when pyspark, Java or the jars are missing, and proves at start-up
that the Delta extension and catalog really loaded (a missing jar would otherwise show up
as a warning and confusing errors much later)."""

import glob
import os
import shutil
import subprocess
import tempfile
import time

import pytest

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FETCH_SCRIPT = os.path.join(REPO_ROOT, "scripts", "fetch_delta_jars.sh")

# Every jar the Delta 4.4 Spark connector needs beyond what pyspark ships (see
# test/interop/pom.xml); checked by file-name prefix so a partial cache fails fast.
REQUIRED_JAR_PREFIXES = ("delta-spark_4.2_2.13-", "delta-storage-", "delta-kernel-api-",
                         "delta-kernel-defaults-", "delta-kernel-unitycatalog-",
                         "unitycatalog-client-", "unitycatalog-hadoop-",
                         "jackson-datatype-jdk8-")

# Seconds the last `spark` fixture took to start (reported by the interop tests).
START_SECONDS = {}


def delta_jar_dir():
    cache = os.environ.get("DELTAGUARD_CACHE") or os.path.join(REPO_ROOT, ".cache")
    return os.path.join(cache, "delta-jars")


def delta_jars(jar_dir=None):
    """The cached Delta jars; raises AssertionError naming what is missing."""
    jar_dir = jar_dir or delta_jar_dir()
    jars = sorted(glob.glob(os.path.join(jar_dir, "*.jar")))
    names = [os.path.basename(j) for j in jars]
    missing = [p for p in REQUIRED_JAR_PREFIXES if not any(n.startswith(p) for n in names)]
    assert not missing, (f"Delta jars missing from {jar_dir}: {missing} (found {names}); "
                         f"run {FETCH_SCRIPT} (scripts/setup.sh does)")
    return jars


def build_session(warehouse, jars):
    """A local[2] SparkSession with Delta; `jars` go into spark.jars (no Ivy)."""
    from pyspark.sql import SparkSession

    utc = "-Duser.timezone=UTC"
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("deltaguard-interop")
        .config("spark.jars", ",".join(jars))
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog",
                "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.executor.extraJavaOptions", utc)
        .config("spark.driver.memory", "2g")
        .config("spark.sql.warehouse.dir", os.path.join(warehouse, "warehouse"))
        .config("spark.driver.extraJavaOptions",
                f"{utc} -Dderby.system.home={os.path.join(warehouse, 'derby')}")
        # examples/orders has 2024 commit timestamps: allow time travel past the 7-day
        # deletedFileRetentionDuration (its files are all present; this is a guard for
        # vacuumed tables, not a correctness rule of the protocol).
        .config("spark.databricks.delta.vacuum."
                "enforceTimeTravelWithinDeletedFileRetentionDuration", "false")
        # Arrow transfer for DataFrame.toArrow(); no fallback that could hide a problem.
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.sql.execution.arrow.pyspark.fallback.enabled", "false"))
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


def check_delta_works(session, scratch):
    """Writes and reads a one-row Delta table and runs Delta-only SQL: proves the jars,
    the SQL extension and the catalog all loaded."""
    path = os.path.join(scratch, "smoke")
    session.range(1).write.format("delta").save(path)
    assert session.read.format("delta").load(path).count() == 1
    history = session.sql(f"DESCRIBE HISTORY delta.`{path}`").collect()
    assert len(history) == 1, f"DESCRIBE HISTORY returned {history}"
    shutil.rmtree(path)


@pytest.fixture(scope="session")
def spark():
    """One Spark session with Delta for the whole run; stopped at the end."""
    try:
        import pyspark  # noqa: F401
    except ImportError as e:
        pytest.fail(f"pyspark is not installed ({e}): run scripts/setup.sh", pytrace=False)
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.fail("no Java found (need JDK 17): apt-get install openjdk-17-jdk-headless",
                    pytrace=False)
    jars = delta_jars()
    scratch = tempfile.mkdtemp(prefix="deltaguard-spark-")
    start = time.monotonic()
    session = build_session(scratch, jars)
    START_SECONDS["session"] = time.monotonic() - start
    try:
        check_delta_works(session, scratch)
        START_SECONDS["with_smoke_test"] = time.monotonic() - start
        yield session
    finally:
        session.stop()
        shutil.rmtree(scratch, ignore_errors=True)


def java_version():
    """`java -version` first line, for diagnostics."""
    try:
        out = subprocess.run(["java", "-version"], capture_output=True, text=True,
                             timeout=30)
        return (out.stderr or out.stdout).splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError) as e:
        return f"unknown ({e})"
