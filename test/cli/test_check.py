"""End-to-end: data tests (docs/data_tests.md) through `deltaguard check` and
`deltaguard write --check`: the source article's cases (cents to dollars, UTC to local
time, a new status, ISO codes to names, a column turning NULL) caught at commit time
with the default detectors, a tests file's named tests, quarantine of breaking rows
and of a whole failing batch, and bad tests files and corrupt profiles reported."""

import datetime as dt
import json
import os
import random

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cli_helpers import EXIT_IO, EXIT_OK, EXIT_REFUSED, EXIT_USAGE, run_cli

ISO = ["US", "DE", "FR", "GB", "JP", "BR", "IN", "CA"]
NAMES = ["United States", "Germany", "France", "United Kingdom", "Japan", "Brazil",
         "India", "Canada"]


def load(day, rows=2000, scale=1.0, hours=0, new_status=0.0, names=False,
         null_email=0.01, seed=None):
    """One daily load of orders, as the article's pipeline receives them."""
    rng = random.Random(seed if seed is not None else day)
    base = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(days=day)
    amount, ts, status, country, email = [], [], [], [], []
    for i in range(rows):
        amount.append(round(rng.lognormvariate(7.0, 0.6)) * scale)
        h = min(23.99, max(0.0, rng.gauss(14, 3)))
        ts.append(base + dt.timedelta(hours=(h + hours) % 24))
        r = rng.random()
        status.append("PARTIALLY_SHIPPED" if r < new_status else
                      "pending" if r < 0.5 else "shipped" if r < 0.85 else "delivered")
        k = rng.randrange(8)
        country.append(NAMES[k] if names else ISO[k])
        email.append(None if rng.random() < null_email else f"u{day}_{i}@x.io")
    return pa.table({"order_id": pa.array(range(day * 100000, day * 100000 + rows),
                                          pa.int64()),
                     "amount": pa.array(amount, pa.float64()),
                     "event_ts": pa.array(ts, pa.timestamp("us", tz="UTC")),
                     "status": status, "country": country, "email": email})


def write(tmp_path, table, data, *extra):
    f = tmp_path / "in.parquet"
    pq.write_table(data, str(f))
    return run_cli("write", table, str(f), *extra)


@pytest.fixture
def orders(tmp_path):
    table = str(tmp_path / "orders")
    for day in range(10):
        res = write(tmp_path, table, load(day))
        assert res.returncode == EXIT_OK, res.describe()
    return table


def version(table):
    return run_cli("describe", table, "--format", "json").json()["version"]


def test_normal_load_passes_at_commit_time(tmp_path, orders):
    res = write(tmp_path, orders, load(10), "--check", "auto", "--output", "json")
    assert res.returncode == EXIT_OK, res.describe()
    out = res.json()
    assert out["check"]["outcome"] == "passed", out["check"]["report"]
    assert out["check"]["report"]["baseline"]["versions"] == list(range(10))
    assert version(orders) == 10


@pytest.mark.parametrize("case,detector,column,detail", [
    (dict(scale=0.01), "SCALE_SHIFT", "amount", "factor 0.01"),
    (dict(hours=2), "TIME_OFFSET_SHIFT", "event_ts", "+2 h"),
    (dict(null_email=1.0), "NULL_RATE_SHIFT", "email", ""),
])
def test_article_cases_that_fail_commit_nothing(tmp_path, orders, case, detector,
                                                column, detail):
    res = write(tmp_path, orders, load(10, **case), "--check", "auto")
    assert res.returncode == EXIT_REFUSED, res.describe()
    assert "DATA_TEST_FAILED" in res.stderr and "committed nothing" in res.stderr
    assert f"{detector}" in res.stderr and column in res.stderr, res.stderr
    assert detail in res.stderr
    assert version(orders) == 9  # nothing committed
    # `check` of the same rows written without --check says the same
    res = write(tmp_path, orders, load(10, **case))
    assert res.returncode == EXIT_OK
    res = run_cli("check", orders, "--format", "json")
    assert res.returncode == EXIT_REFUSED
    failed = [f for f in json.loads(res.stdout)["findings"] if f["outcome"] == "failed"]
    assert [(f["test"], f["column"]) for f in failed] == [(detector, column)]


@pytest.mark.parametrize("case,detectors,values", [
    (dict(new_status=0.02), {"NEW_CATEGORY"}, ["PARTIALLY_SHIPPED"]),
    (dict(names=True), {"FORMAT_DRIFT", "NEW_CATEGORY", "CATEGORY_DROPPED"}, None),
])
def test_article_cases_that_warn_go_through(tmp_path, orders, case, detectors, values):
    column = "status" if values else "country"
    text = write(tmp_path, orders, load(10, **case), "--check", "auto")
    assert text.returncode == EXIT_OK, text.describe()
    assert "data tests (auto): warning" in text.stdout
    assert "WARNING" in text.stdout and column in text.stdout
    assert f"data test NEW_CATEGORY {column}" in text.stderr  # the warning lines
    assert version(orders) == 10
    # the same verdict from `check` of the committed version, as JSON
    res = run_cli("check", orders, "--format", "json")
    assert res.returncode == EXIT_OK, res.describe()
    report = res.json()
    assert report["outcome"] == "warning"
    raised = {f["test"] for f in report["findings"] if f["outcome"] == "warning"}
    assert detectors <= raised, raised
    if values:
        new = [f for f in report["findings"] if f["test"] == "NEW_CATEGORY"][0]
        assert new["values"] == values
    # the next load with the same values: the write's JSON says what it checked
    res = write(tmp_path, orders, load(11, **case), "--check", "auto", "--output", "json")
    assert res.returncode == EXIT_OK, res.describe()
    assert res.json()["check"]["report"]["baseline"]["versions"][-1] == 10


def test_warn_mode_commits_a_failing_batch(tmp_path, orders):
    res = write(tmp_path, orders, load(10, scale=0.01), "--check", "auto",
                "--on-check-failure", "warn", "--output", "json")
    assert res.returncode == EXIT_OK, res.describe()
    assert res.json()["check"]["outcome"] == "failed"
    assert any("SCALE_SHIFT amount" in w for w in res.json()["warnings"])
    assert version(orders) == 10


def test_quarantine_holds_a_failing_batch(tmp_path, orders):
    q = str(tmp_path / "held")
    res = write(tmp_path, orders, load(10, scale=0.01), "--check", "auto",
                "--on-check-failure", f"quarantine={q}", "--output", "json")
    assert res.returncode == EXIT_OK, res.describe()
    out = res.json()
    assert out["check"]["held"] is True
    assert out["quarantine"]["rows"] == 2000
    assert version(orders) == 9
    rows = run_cli("sql", f"SELECT _violated_constraint, count(*) AS n FROM delta.`{q}` "
                          "GROUP BY _violated_constraint", "--format", "jsonl").stdout
    assert json.loads(rows) == {
        "_violated_constraint": "data test SCALE_SHIFT amount (factor 0.01)", "n": 2000}


TESTS = """\
baseline: trailing:7
table:
  - row_count: {min: 100}
columns:
  order_id: [not_null, unique]
  status:
    - accepted_values: {values: [pending, shipped, delivered]}
  amount:
    - range: {min: 0}
    - median: {max_change: 0.5}
"""


def test_tests_file_at_commit_time_and_after(tmp_path, orders):
    tests = tmp_path / "orders.tests.yml"
    tests.write_text(TESTS)
    res = write(tmp_path, orders, load(10, new_status=0.01), "--check", str(tests))
    assert res.returncode == EXIT_REFUSED, res.describe()
    assert "accepted_values(status)" in res.stderr
    assert "PARTIALLY_SHIPPED" in res.stderr
    # quarantine: the rows breaking the row test are routed, the rest committed
    q = str(tmp_path / "q")
    res = write(tmp_path, orders, load(10, new_status=0.01), "--check", str(tests),
                "--on-check-failure", f"quarantine={q}", "--output", "json")
    assert res.returncode == EXIT_OK, res.describe()
    out = res.json()
    bad = out["quarantine"]["rows"]
    assert 5 < bad < 50
    assert out["quarantine"]["by_constraint"] == {
        "data test accepted_values(status)": bad}
    assert out["rows"] == 2000 - bad and out["check"]["outcome"] == "passed"
    assert version(orders) == 10
    # check afterwards with the same file: the committed rows pass, in JUnit too
    res = run_cli("check", orders, "--tests", str(tests), "--format", "json")
    assert res.returncode == EXIT_OK, res.describe()
    report = res.json()
    assert report["tests"] == str(tests)
    assert report["baseline"]["spec"] == "trailing:7"
    byname = {f["test"]: f for f in report["findings"]}
    assert byname["unique(order_id)"]["violating_rows"] == 0
    assert byname["accepted_values(status)"]["location"] == f"{tests}:7"
    junit = run_cli("check", orders, "--tests", str(tests), "--format", "junit").stdout
    assert 'name="accepted_values(status) status"' in junit or "accepted_values" in junit


def test_tests_from_a_contract(tmp_path, orders):
    contract = tmp_path / "orders.odcs.yaml"
    contract.write_text("""\
apiVersion: v3.1.0
kind: DataContract
id: orders
name: orders
version: 1.0.0
status: active
schema:
  - name: orders
    properties:
      - name: order_id
        logicalType: integer
        unique: true
      - name: status
        logicalType: string
        quality:
          - type: library
            metric: invalidValues
            arguments:
              validValues: [pending, shipped]
            mustBe: 0
""")
    res = run_cli("check", orders, "--tests", str(contract), "--format", "json")
    assert res.returncode == EXIT_REFUSED, res.describe()
    failed = [f for f in json.loads(res.stdout)["findings"] if f["outcome"] == "failed"]
    assert len(failed) == 1 and failed[0]["violating_rows"] > 100
    assert "delivered" in failed[0]["values"][0]


@pytest.mark.parametrize("text,message", [
    ("columns:\n  status:\n    - accepted_value: {values: [a]}\n",
     "t.yml:3: unknown test 'accepted_value'"),
    ("columns:\n  amount:\n    - range: {min: low}\n",
     "t.yml:3: 'min' must be a number, not 'low'"),
    ("columns:\n  amout: [not_null]\n", "t.yml:2: test not_null(amout): column 'amout'"),
    ("columns: [\n", "t.yml"),
])
def test_bad_tests_file_names_file_and_line(tmp_path, orders, text, message,
                                            monkeypatch):
    tests = tmp_path / "t.yml"
    tests.write_text(text)
    monkeypatch.chdir(tmp_path)
    for res in (run_cli("check", orders, "--tests", "t.yml"),
                write(tmp_path, orders, load(10), "--check", "t.yml")):
        assert res.returncode == EXIT_USAGE, res.describe()
        assert message in res.stderr, res.stderr
    assert version(orders) == 9


def test_corrupt_profile_table_is_reported(tmp_path, orders):
    profiles = os.path.join(orders, "_deltaguard", "profiles")
    victim = sorted(f for f in os.listdir(profiles) if f.endswith(".parquet"))[0]
    with open(os.path.join(profiles, victim), "r+b") as f:
        f.truncate(100)
    res = run_cli("check", orders)
    assert res.returncode == EXIT_IO, res.describe()
    assert "profile table" in res.stderr and victim in res.stderr
    res = write(tmp_path, orders, load(10), "--check", "auto")
    assert res.returncode == EXIT_IO and "profile table" in res.stderr
    assert version(orders) == 9


def test_sql_session_setting_checks_inserts(tmp_path, orders):
    res = run_cli("sql", f"SET deltaguard.check = auto; "
                         f"CREATE TEMPORARY VIEW v AS SELECT * FROM delta.`{orders}` "
                         f"VERSION AS OF 9; "
                         f"INSERT INTO delta.`{orders}` SELECT order_id, amount * 100, "
                         f"event_ts, status, country, email FROM v")
    assert res.returncode == EXIT_REFUSED, res.describe()
    assert "SCALE_SHIFT" in res.stderr and "factor 100" in res.stderr
    assert version(orders) == 9
    res = run_cli("sql", f"SET deltaguard.check = auto; "
                         f"SET deltaguard.check.onFailure = warn; "
                         f"INSERT INTO delta.`{orders}` SELECT * FROM delta.`{orders}` "
                         f"VERSION AS OF 9")
    assert res.returncode == EXIT_OK, res.describe()
    assert version(orders) == 10
