"""End-to-end: `deltaguard contract lint|init|diff|test` (docs/contracts.md): the seed
001 story (a silver contract written against v1 with cust_id; the rename release is
caught by the contract at the first run), init -> lint -> test round trips on the
corpus tables, contract diff against git, every output format and exit code, and bad
input named by file and line."""

import json
import os
import subprocess
import xml.etree.ElementTree as ET

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cli_helpers import (EXIT_OK, EXIT_REFUSED, EXIT_USAGE, corpora_dir, run_cli)

SILVER_V1 = """apiVersion: v3.1.0
kind: DataContract
id: silver-orders
name: orders
version: 1.0.0
status: active
schema:
  - id: orders_obj
    name: orders
    physicalType: table
    quality:
      - {id: has_rows, metric: rowCount, mustBeGreaterThan: 0}
      - id: no_negative_totals
        type: sql
        query: SELECT COUNT(*) FROM {object} WHERE amount < 0
        mustBe: 0
    properties:
      - {id: order_id, name: order_id, physicalType: bigint, required: true, primaryKey: true}
      - {id: cust_id, name: cust_id, physicalType: string, required: true}
      - id: amount
        name: amount
        physicalType: 'decimal(18,2)'
        logicalTypeOptions: {minimum: 0}
      - id: status
        name: status
        physicalType: string
        quality:
          - id: status_values
            metric: invalidValues
            arguments: {validValues: [pending, shipped]}
            mustBe: 0
customProperties:
  - {property: medallionLayer, value: silver}
"""


def write_table(tmp_path, name, table):
    path = str(tmp_path / name)
    f = tmp_path / f"{name}.parquet"
    pq.write_table(table, str(f))
    res = run_cli("write", path, str(f))
    assert res.returncode == EXIT_OK, res.describe()
    return path


def orders_v1():
    return pa.table({
        "order_id": pa.array([1, 2, 3], pa.int64()),
        "cust_id": ["c1", "c2", "c3"],
        "amount": pa.array([10, 20, 5], pa.decimal128(18, 2)),
        "status": ["pending", "shipped", "shipped"]})


@pytest.fixture
def contract_file(tmp_path):
    f = tmp_path / "orders.odcs.yaml"
    f.write_text(SILVER_V1)
    return str(f)


def test_lint_clean_and_every_format(contract_file):
    res = run_cli("contract", "lint", contract_file)
    assert res.returncode == EXIT_OK, res.describe()
    assert "1 file linted: 1 valid, 0 invalid" in res.stdout
    j = json.loads(run_cli("contract", "lint", contract_file, "--format", "json").stdout)
    assert j["valid"] is True and j["files"][0]["errors"] == 0
    junit = run_cli("contract", "lint", contract_file, "--format", "junit").stdout
    assert ET.fromstring(junit).get("failures") == "0"


def test_lint_reports_every_error_with_file_line_and_key(tmp_path):
    bad = tmp_path / "bad.odcs.yaml"
    bad.write_text(SILVER_V1.replace("physicalType: bigint", "physicalType: bigintt")
                   .replace("metric: rowCount", "metric: rowCounts")
                   .replace("version: 1.0.0", "version: 1.0"))
    res = run_cli("contract", "lint", str(bad))
    assert res.returncode == EXIT_REFUSED, res.describe()
    out = res.stdout
    assert f"{bad}:18:" in out and "physicalType 'bigintt' is not a Delta type" in out
    assert "schema[0].properties[0].physicalType" in out
    assert "unknown metric 'rowCounts'" not in out  # lint runs only on a clean parse
    gh = run_cli("contract", "lint", str(bad), "--format", "github").stdout
    assert gh.startswith(f"::error file={bad},line=18,")
    malformed = tmp_path / "broken.yaml"
    malformed.write_text("apiVersion: v3.1.0\nschema: [\n")
    res = run_cli("contract", "lint", str(malformed), "--format", "json")
    assert res.returncode == EXIT_REFUSED
    d = json.loads(res.stdout)["files"][0]["diagnostics"][0]
    assert d["severity"] == "error" and "malformed YAML" in d["message"]
    assert run_cli("contract", "lint", str(tmp_path / "nope.yaml")).returncode == EXIT_USAGE
    assert run_cli("contract", "frobnicate").returncode == EXIT_USAGE


def test_contract_test_passes_then_catches_the_rename(tmp_path, contract_file):
    table = write_table(tmp_path, "orders", orders_v1())
    res = run_cli("contract", "test", table, "--contract", contract_file, "--format", "json")
    report = json.loads(res.stdout)
    assert res.returncode == EXIT_OK, res.describe()
    assert report["outcome"] == "passed", report
    ids = {c["id"]: c for c in report["checks"]}
    assert ids["order_id.required"]["outcome"] == "passed"
    assert ids["order_id.primaryKey"]["outcome"] == "passed"
    assert ids["no_negative_totals"]["observed"] == 0
    assert ids["has_rows"]["observed"] == 3

    # the rename release: cust_id is now customer_id, and a new status appears
    renamed = pa.table({
        "order_id": pa.array([4, 4], pa.int64()),
        "customer_id": ["c4", "c5"],
        "amount": pa.array([-1, 7], pa.decimal128(18, 2)),
        "status": ["PARTIALLY_SHIPPED", "pending"]})
    other = write_table(tmp_path, "orders_v2", renamed)
    res = run_cli("contract", "test", other, "--contract", contract_file)
    assert res.returncode == EXIT_REFUSED, res.describe()
    out = res.stdout
    assert "failed   schema.cust_id" in out
    assert "declared column 'cust_id' (string not null) is not in the table" in out
    assert "warning  schema.customer_id: COLUMN_RENAME_SUSPECTED cust_id -> customer_id" in out
    assert "error    cust_id.required" in out  # a check on the missing column cannot run
    assert "failed   order_id.primaryKey" in out and "e.g. {order_id: 4}" in out
    assert "failed   amount.minimum" in out and "{amount: -1.00}" in out
    assert "failed   status_values" in out and 'PARTIALLY_SHIPPED' in out
    assert "failed   no_negative_totals" in out
    junit = ET.fromstring(run_cli("contract", "test", other, "--contract", contract_file,
                                  "--format", "junit").stdout)
    assert int(junit.get("failures")) >= 5
    gh = run_cli("contract", "test", other, "--contract", contract_file, "--format",
                 "github").stdout
    assert "::error title=contract silver-orders schema.cust_id::" in gh


def test_warning_severity_and_fail_on(tmp_path, contract_file):
    text = open(contract_file).read().replace(
        "            mustBe: 0\n", "            mustBe: 0\n            severity: warning\n")
    warn = tmp_path / "warn.odcs.yaml"
    warn.write_text(text)
    table = write_table(tmp_path, "t", orders_v1().set_column(
        3, "status", pa.array(["pending", "lost", "shipped"])))
    res = run_cli("contract", "test", table, "--contract", str(warn), "--format", "json")
    assert res.returncode == EXIT_OK, res.describe()
    checks = {c["id"]: c for c in json.loads(res.stdout)["checks"]}
    assert checks["status_values"]["outcome"] == "warning"
    assert checks["status_values"]["violating_rows"] == 1
    res = run_cli("contract", "test", table, "--contract", str(warn), "--fail-on", "warning")
    assert res.returncode == EXIT_REFUSED


def test_test_at_a_version_and_bad_input(tmp_path, contract_file):
    table = write_table(tmp_path, "orders", orders_v1())
    f = tmp_path / "more.parquet"
    pq.write_table(orders_v1().set_column(3, "status", pa.array(["x", "y", "z"])), str(f))
    assert run_cli("write", table, str(f)).returncode == EXIT_OK
    assert run_cli("contract", "test", table, "--contract", contract_file).returncode == \
        EXIT_REFUSED
    res = run_cli("contract", "test", table, "--contract", contract_file, "--version", "0")
    assert res.returncode == EXIT_OK, res.describe()
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v3.1.0\nkind: DataContract\n")
    res = run_cli("contract", "test", table, "--contract", str(bad))
    assert res.returncode == EXIT_USAGE
    assert f"contract {bad} is not valid" in res.stderr and "required key missing" in res.stderr
    res = run_cli("contract", "test", table, "--contract", contract_file, "--object", "x")
    assert res.returncode == EXIT_USAGE and "has no schema object 'x'" in res.stderr


def test_init_lint_test_round_trip(tmp_path):
    table = write_table(tmp_path, "orders", orders_v1())
    res = run_cli("contract", "init", table, "--layer", "silver")
    assert res.returncode == EXIT_OK, res.describe()
    text = res.stdout
    assert "# proposed from the data: 2 distinct values in every row" in text
    assert "validValues: [pending, shipped]" in text
    assert "- {property: medallionLayer, value: silver}" in text
    assert "- {property: compatibility, value: BACKWARD_TRANSITIVE}" in text
    f = tmp_path / "init.odcs.yaml"
    f.write_text(text)
    assert run_cli("contract", "lint", str(f)).returncode == EXIT_OK
    res = run_cli("contract", "test", table, "--contract", str(f), "--format", "json")
    assert res.returncode == EXIT_OK, res.describe()
    assert json.loads(res.stdout)["outcome"] in ("passed", "warning")


CORPORA = corpora_dir()


@pytest.mark.skipif(CORPORA is None, reason="shared corpora not present (../shared/corpora)")
def test_init_lint_test_on_corpus_tables(tmp_path):
    with open(os.path.join(CORPORA, "INDEX.json")) as f:
        index = json.load(f)
    tables = index if isinstance(index, list) else index["tables"]
    checked = 0
    for entry in tables:
        path = os.path.join(CORPORA, entry.get("path", ""))
        if not os.path.isdir(os.path.join(path, "_delta_log")):
            continue
        if run_cli("scan", path, "--limit", "1").returncode != EXIT_OK:
            continue  # tables without data files, unsupported features: test_corpus.py
        res = run_cli("contract", "init", path)
        assert res.returncode == EXIT_OK, (path, res.stderr)
        f = tmp_path / f"c{checked}.yaml"
        f.write_text(res.stdout)
        lint = run_cli("contract", "lint", str(f))
        if "is not a Delta type" in lint.stdout or "no ODCS" in lint.stdout:
            continue  # types the contract model cannot express (map, variant, ...)
        assert lint.returncode == EXIT_OK, (path, lint.stdout)
        test = run_cli("contract", "test", path, "--contract", str(f), "--format", "json")
        assert test.returncode == EXIT_OK, (path, test.stdout, test.stderr)
        checked += 1
    assert checked >= 50


def git(cwd, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})


def test_diff_against_git_fails_a_breaking_gold_change(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    gold = SILVER_V1.replace("value: silver", "value: gold")
    f = repo / "orders.odcs.yaml"
    f.write_text(gold)
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "v1")
    # rename cust_id (id kept) without a major bump: breaking under FULL_TRANSITIVE
    f.write_text(gold.replace("name: cust_id", "name: customer_id")
                 .replace("version: 1.0.0", "version: 1.1.0"))
    res = run_cli("contract", "diff", str(f), "--against", "HEAD")
    assert res.returncode == EXIT_REFUSED, res.describe()
    assert "BREAKING COLUMN_RENAMED orders.cust_id -> customer_id" in res.stdout
    assert "without a major version bump (1.0.0 -> 1.1.0)" in res.stdout
    assert "add 'customer_id' beside 'cust_id'" in res.stdout
    f.write_text(gold.replace("name: cust_id", "name: customer_id")
                 .replace("version: 1.0.0", "version: 2.0.0"))
    res = run_cli("contract", "diff", str(f), "--against", "HEAD", "--format", "json")
    assert res.returncode == EXIT_OK, res.describe()
    d = json.loads(res.stdout)
    assert d["major_bump"] and not d["compatible"] and not d["fails"]
    res = run_cli("contract", "diff", str(f), "--against", "no-such-ref")
    assert res.returncode == EXIT_USAGE and "at git revision no-such-ref" in res.stderr


def test_diff_two_files_and_modes(tmp_path, contract_file):
    new = tmp_path / "new.odcs.yaml"
    new.write_text(SILVER_V1.replace("[pending, shipped]", "[pending, shipped, lost]")
                   .replace("version: 1.0.0", "version: 1.1.0"))
    res = run_cli("contract", "diff", contract_file, str(new), "--format", "json")
    d = json.loads(res.stdout)
    assert d["mode"] == "BACKWARD_TRANSITIVE"  # silver's preset
    assert [(c["class"], c["after"]) for c in d["changes"]] == [("ENUM_VALUE_ADDED", "lost")]
    assert res.returncode == EXIT_OK  # adding a value breaks FORWARD only
    res = run_cli("contract", "diff", contract_file, str(new), "--mode", "FULL")
    assert res.returncode == EXIT_REFUSED
    assert run_cli("contract", "diff", contract_file).returncode == EXIT_USAGE


def test_write_under_the_silver_contract(tmp_path, contract_file):
    table = str(tmp_path / "silver")
    # the upstream drop: columns in another order and case, a new column, amount as text
    drop = tmp_path / "drop.csv"
    drop.write_text("STATUS,order_id,amount,cust_id,coupon\n"
                    "pending,1,10.50,c1,X\nshipped,2,20.00,c2,Y\n")
    res = run_cli("write", table, str(drop), "--contract", contract_file, "--output", "json")
    assert res.returncode == EXIT_OK, res.describe()
    out = json.loads(res.stdout)
    assert out["contract"]["id"] == "silver-orders"
    assert out["contract"]["ignored_columns"] == ["coupon"]
    assert out["warnings"] == ["contract silver-orders 1.0.0: new upstream column ignored "
                               "(not in the contract): coupon"]
    assert "WARNING: contract silver-orders 1.0.0: new upstream column ignored" in res.stderr
    rows = run_cli("scan", table, "--format", "jsonl").jsonl()
    assert rows == [{"order_id": 1, "cust_id": "c1", "amount": "10.50", "status": "pending"},
                    {"order_id": 2, "cust_id": "c2", "amount": "20.00", "status": "shipped"}]
    desc = run_cli("describe", table, "--format", "json").json()
    assert [f["name"] for f in desc["schema"]["fields"]] == [
        "order_id", "cust_id", "amount", "status"]
    log = run_cli("log", table, "0", "--format", "json").stdout
    assert '"contract":"silver-orders 1.0.0"' in log
    assert '"contractIgnoredColumns":"[\\"coupon\\"]"' in log

    # the rename release: refused at the first run, naming the change; nothing written
    renamed = tmp_path / "renamed.csv"
    renamed.write_text("order_id,customer_id,amount,status\n3,c3,1.00,pending\n")
    res = run_cli("write", table, str(renamed), "--contract", contract_file)
    assert res.returncode == EXIT_REFUSED, res.describe()
    assert "contract silver-orders 1.0.0: input" in res.stderr
    assert "required column 'cust_id' is missing" in res.stderr
    assert "COLUMN_RENAME_SUSPECTED cust_id -> customer_id" in res.stderr
    assert run_cli("describe", table, "--format", "json").json()["version"] == 0

    # a value that does not fit the declared type is refused under the strict policy:
    # text is read as the contract declares it (invalid input, exit 2), typed data is
    # cast and refused when digits would be lost (exit 1)
    bad = tmp_path / "bad.csv"
    bad.write_text("order_id,cust_id,amount,status\n4,c4,12.345,pending\n")
    res = run_cli("write", table, str(bad), "--contract", contract_file)
    assert res.returncode == EXIT_USAGE, res.describe()
    assert "amount" in res.stderr and "12.345" in res.stderr
    typed = tmp_path / "typed.parquet"
    pq.write_table(pa.table({"order_id": pa.array([4], pa.int64()), "cust_id": ["c4"],
                             "amount": [12.345], "status": ["pending"]}), str(typed))
    res = run_cli("write", table, str(typed), "--contract", contract_file)
    assert res.returncode == EXIT_REFUSED, res.describe()
    assert "casting 'amount' (double -> decimal(18,2)) would lose digits in 1 value" \
        in res.stderr and "{amount: 12.345}" in res.stderr
    assert run_cli("describe", table, "--format", "json").json()["version"] == 0


def test_try_cast_policy_counts_nulls(tmp_path, contract_file):
    text = open(contract_file).read().replace(
        "  - {property: medallionLayer, value: silver}",
        "  - {property: medallionLayer, value: silver}\n"
        "  - {property: castPolicy, value: try}\n  - {property: maxCastNulls, value: 1}")
    f = tmp_path / "try.odcs.yaml"
    f.write_text(text)
    table = str(tmp_path / "t")
    one = tmp_path / "one.ndjson"
    one.write_text('{"order_id": 1, "cust_id": "a", "amount": "12.50", "status": "pending"}\n'
                   '{"order_id": 2, "cust_id": "b", "amount": "n/a", "status": "pending"}\n')
    res = run_cli("write", table, str(one), "--contract", str(f), "--output", "json")
    assert res.returncode == EXIT_OK, res.describe()
    assert json.loads(res.stdout)["contract"]["cast_nulls"] == {"amount": 1}
    two = tmp_path / "two.ndjson"
    two.write_text('{"order_id": 3, "cust_id": "c", "amount": "x", "status": "pending"}\n'
                   '{"order_id": 4, "cust_id": "d", "amount": "y", "status": "pending"}\n')
    res = run_cli("write", table, str(two), "--contract", str(f))
    assert res.returncode == EXIT_REFUSED, res.describe()
    assert "turned 2 values into NULL" in res.stderr and "maxCastNulls 1" in res.stderr


def test_cast_nulls_are_a_profile_statistic_a_test_can_fail_on(tmp_path, contract_file):
    """docs/data_tests.md "Cast safety": the NULLs castPolicy try introduced are kept in
    the commit's profile, and `cast_nulls` fails on them at commit time and after."""
    text = open(contract_file).read().replace(
        "  - {property: medallionLayer, value: silver}",
        "  - {property: medallionLayer, value: silver}\n"
        "  - {property: castPolicy, value: try}\n  - {property: maxCastNulls, value: 100}")
    f = tmp_path / "try.odcs.yaml"
    f.write_text(text)
    tests = tmp_path / "t.yml"
    tests.write_text("defaults: false\ncolumns:\n  amount: [cast_nulls]\n")
    table = str(tmp_path / "t")
    data = tmp_path / "one.ndjson"
    data.write_text('{"order_id": 1, "cust_id": "a", "amount": "12.50", "status": "pending"}\n'
                    '{"order_id": 2, "cust_id": "b", "amount": "n/a", "status": "pending"}\n')
    res = run_cli("write", table, str(data), "--contract", str(f), "--check", str(tests))
    assert res.returncode == EXIT_REFUSED, res.describe()
    assert "cast_nulls(amount): 1 NULLs from casts" in res.stderr
    res = run_cli("write", table, str(data), "--contract", str(f), "--check", str(tests),
                  "--on-check-failure", "warn")
    assert res.returncode == EXIT_OK, res.describe()
    shown = run_cli("profile", table, "--show", "--format", "json")
    assert shown.json()[0]["columns"]["amount"]["cast_nulls"] == 1
    res = run_cli("check", table, "--tests", str(tests), "--format", "json")
    assert res.returncode == EXIT_REFUSED, res.describe()
    [finding] = [x for x in json.loads(res.stdout)["findings"]
                 if x["test"] == "cast_nulls(amount)"]
    assert finding["outcome"] == "failed" and finding["observed"] == "1 NULLs from casts"


def test_apply_then_writes_follow_the_table_contract(tmp_path, contract_file):
    table = write_table(tmp_path, "orders", orders_v1())
    res = run_cli("contract", "apply", table, contract_file)
    assert res.returncode == EXIT_OK, res.describe()
    assert "set NOT NULL on 'order_id'" in res.stdout
    assert "added constraint contract_status_values" in res.stdout
    props = run_cli("describe", table, "--format", "json").json()["properties"]
    assert props["deltaguard.contract.id"] == "silver-orders"
    assert props["deltaguard.contract.version"] == "1.0.0"
    assert "contract_amount_minimum" in props["deltaguard.contract.constraints"]
    assert props["delta.constraints.contract_amount_minimum"] == \
        "amount IS NULL OR amount >= 0"
    # a later write without --contract still follows it
    extra = tmp_path / "extra.parquet"
    pq.write_table(orders_v1().append_column("coupon", pa.array(["a", "b", "c"])),
                   str(extra))
    res = run_cli("write", table, str(extra))
    assert res.returncode == EXIT_OK, res.describe()
    assert "new upstream column ignored (not in the contract): coupon" in res.stderr
    # a bad status is refused by the carried contract's rule (checked before the
    # table's CHECK constraint contract_status_values, which other engines enforce:
    # test_interop_spark_contract.py)
    bad = tmp_path / "bad.parquet"
    pq.write_table(orders_v1().set_column(3, "status", pa.array(["x", "pending", "pending"])),
                   str(bad))
    res = run_cli("write", table, str(bad))
    assert res.returncode == EXIT_REFUSED, res.describe()
    assert "contract rule status_values (silver-orders 1.0.0)" in res.stderr
    assert "violated by 1 row, e.g. {status: \"x\"}" in res.stderr
    # a breaking new version of the contract is refused for writes until applied
    v2 = tmp_path / "v2.odcs.yaml"
    v2.write_text(SILVER_V1.replace("[pending, shipped]", "[pending]")
                  .replace("version: 1.0.0", "version: 2.0.0"))
    res = run_cli("write", table, str(extra), "--contract", str(v2))
    assert res.returncode == EXIT_REFUSED, res.describe()
    assert "writing under silver-orders 2.0.0 is refused" in res.stderr
    assert "ENUM_VALUE_REMOVED" in res.stderr


def test_apply_refuses_when_rows_violate(tmp_path, contract_file):
    table = write_table(tmp_path, "orders", orders_v1().set_column(
        3, "status", pa.array(["pending", "lost", "lost"])))
    before = run_cli("describe", table, "--format", "json").json()["version"]
    res = run_cli("contract", "apply", table, contract_file)
    assert res.returncode == EXIT_REFUSED, res.describe()
    assert "existing rows violate it; nothing was changed" in res.stderr
    assert "CHECK constraint contract_status_values" in res.stderr and "2 rows" in res.stderr
    assert '{status: "lost"}' in res.stderr
    assert run_cli("describe", table, "--format", "json").json()["version"] == before
    missing = write_table(tmp_path, "other", pa.table({"order_id": pa.array([1], pa.int64())}))
    res = run_cli("contract", "apply", missing, contract_file)
    assert res.returncode == EXIT_REFUSED
    assert "column 'cust_id' is not in the table" in res.stderr


def test_row_rules_refuse_a_write_or_route_rows_to_quarantine(tmp_path, contract_file):
    table = str(tmp_path / "silver")
    good = tmp_path / "good.csv"
    good.write_text("order_id,cust_id,amount,status\n1,c1,10.00,pending\n")
    assert run_cli("write", table, str(good), "--contract", contract_file).returncode == EXIT_OK
    drop = tmp_path / "drop.csv"
    drop.write_text("order_id,cust_id,amount,status\n"
                    "10,c1,1.00,pending\n11,,2.00,pending\n"
                    "12,c3,-5.00,shipped\n13,c4,4.00,lost\n")
    # without quarantine the first broken rule refuses the write; nothing is written
    res = run_cli("write", table, str(drop), "--contract", contract_file)
    assert res.returncode == EXIT_REFUSED, res.describe()
    assert "required column 'cust_id' holds 1 NULL value" in res.stderr
    no_null = tmp_path / "no_null.csv"
    no_null.write_text("order_id,cust_id,amount,status\n12,c3,-5.00,shipped\n")
    res = run_cli("write", table, str(no_null), "--contract", contract_file)
    assert res.returncode == EXIT_REFUSED, res.describe()
    assert ("contract rule amount.minimum (silver-orders 1.0.0) "
            "(amount IS NULL OR amount >= 0) violated by 1 row, e.g. {amount: -5.00}"
            in res.stderr)
    assert run_cli("describe", table, "--format", "json").json()["version"] == 0

    # with quarantine each row names the rule of the contract it broke
    quarantine = str(tmp_path / "quarantine")
    res = run_cli("write", table, str(drop), "--contract", contract_file,
                  "--on-violation", f"quarantine={quarantine}", "--output", "json")
    assert res.returncode == EXIT_OK, res.describe()
    out = json.loads(res.stdout)
    assert out["quarantine"]["rows"] == 3
    rows = run_cli("scan", quarantine, "--format", "jsonl").jsonl()
    assert [(r["order_id"], r["_violated_constraint"]) for r in rows] == [
        (11, "contract rule cust_id.required (silver-orders 1.0.0)"),
        (12, "contract rule amount.minimum (silver-orders 1.0.0)"),
        (13, "contract rule status_values (silver-orders 1.0.0)")]
    kept = run_cli("scan", table, "--format", "jsonl").jsonl()
    assert sorted(r["order_id"] for r in kept) == [1, 10]


def sql(*statements):
    return run_cli("sql", "; ".join(statements))


def test_sql_merge_and_insert_under_the_session_contract(tmp_path, contract_file):
    table = str(tmp_path / "silver")
    first = tmp_path / "first.csv"
    first.write_text("order_id,cust_id,amount,status\n1,c1,10.00,pending\n2,c2,20.00,shipped\n")
    assert run_cli("write", table, str(first), "--contract", contract_file).returncode == EXIT_OK
    # the upstream feed: another column order and case, amount as double, two new columns
    source = str(tmp_path / "changes")
    feed = tmp_path / "feed.csv"
    feed.write_text("STATUS,order_id,amount,cust_id,coupon,op\n"
                    "shipped,1,11.5,c1,X,U\npending,2,0,c2,Y,D\npending,3,3.25,c3,Z,I\n")
    assert run_cli("write", source, str(feed)).returncode == EXIT_OK
    merge = (f"MERGE INTO delta.`{table}` AS t USING delta.`{source}` AS s "
             "ON t.order_id = s.order_id WHEN MATCHED AND s.op = 'D' THEN DELETE "
             "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    # without the contract the MERGE refuses the new columns and the double
    res = sql(merge)
    assert res.returncode == EXIT_REFUSED, res.describe()
    # under it: conformed (cast, renamed case), op still readable by the clause,
    # coupon and op left out of `*` and reported
    res = sql(f"SET deltaguard.contract = '{contract_file}'", merge)
    assert res.returncode == EXIT_OK, res.describe()
    assert ("WARNING: contract silver-orders 1.0.0: new upstream columns ignored "
            "(not in the contract): coupon, op") in res.stdout + res.stderr
    rows = run_cli("scan", table, "--format", "jsonl").jsonl()
    assert sorted(rows, key=lambda r: r["order_id"]) == [
        {"order_id": 1, "cust_id": "c1", "amount": "11.50", "status": "shipped"},
        {"order_id": 3, "cust_id": "c3", "amount": "3.25", "status": "pending"}]
    log = run_cli("log", table, "1", "--format", "json").stdout
    assert '"contract":"silver-orders 1.0.0"' in log
    assert '"contractIgnoredColumns":"[\\"coupon\\",\\"op\\"]"' in log
    # SET shows the setting; INSERT BY NAME follows it too
    res = sql(f"SET deltaguard.contract = '{contract_file}'", "SET deltaguard.contract")
    assert res.stdout.count(contract_file) == 2, res.describe()
    res = sql(f"SET deltaguard.contract = '{contract_file}'",
              f"INSERT INTO delta.`{table}` BY NAME SELECT * FROM delta.`{source}` "
              "WHERE order_id = 2")
    assert res.returncode == EXIT_OK, res.describe()
    assert len(run_cli("scan", table, "--format", "jsonl").jsonl()) == 3

    # the rename release: the MERGE is refused at its first run, nothing written
    renamed = str(tmp_path / "renamed")
    feed.write_text("order_id,customer_id,amount,status\n4,c4,1.00,pending\n")
    assert run_cli("write", renamed, str(feed)).returncode == EXIT_OK
    version = run_cli("describe", table, "--format", "json").json()["version"]
    res = sql(f"SET deltaguard.contract = '{contract_file}'",
              merge.replace(source, renamed).replace(" AND s.op = 'D'", " AND false"))
    assert res.returncode == EXIT_REFUSED, res.describe()
    assert "required column 'cust_id' is missing" in res.stderr
    assert "COLUMN_RENAME_SUSPECTED cust_id -> customer_id" in res.stderr
    assert run_cli("describe", table, "--format", "json").json()["version"] == version
