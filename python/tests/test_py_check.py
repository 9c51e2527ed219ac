"""Data tests from Python (docs/data_tests.md): Table.check() with and without a tests
file gives the CLI's answers, and write_table(check=...) refuses, warns or holds a
batch in quarantine exactly as `deltaguard write --check` does."""

import json
import warnings

import pytest

import deltaguard as dg
from cli_helpers import EXIT_OK, EXIT_REFUSED, run_cli
from test_check import TESTS, load


@pytest.fixture
def orders(tmp_path):
    path = str(tmp_path / "orders")
    for day in range(10):
        dg.write_table(path, load(day))
    return path


def test_check_matches_the_cli(tmp_path, orders):
    tests = tmp_path / "t.yml"
    tests.write_text(TESTS)
    dg.write_table(orders, load(10, new_status=0.02))
    for extra, kwargs in (([], {}), (["--tests", str(tests)], {"tests": tests})):
        report = dg.Table(orders).check(format="json", **kwargs)
        cli = run_cli("check", orders, "--format", "json", *extra)
        assert json.loads(cli.stdout) == report.to_dict()
        assert cli.returncode == (EXIT_REFUSED if report.outcome == "failed" else EXIT_OK)
    report = dg.Table(orders).check(tests=tests)
    assert report.outcome == "failed" and report.tests == str(tests)
    failed = [f for f in report.findings if f.outcome == "failed"]
    assert [f.test for f in failed] == ["accepted_values(status)"]
    assert failed[0].violating_rows > 0 and failed[0].location == f"{tests}:7"
    assert "PARTIALLY_SHIPPED" in failed[0].values[0]


def test_write_check_refuses_a_scale_change(orders):
    with pytest.raises(dg.ConstraintViolationError) as err:
        dg.write_table(orders, load(10, scale=0.01), check="auto")
    assert "DATA_TEST_FAILED" in str(err.value)
    assert err.value.constraint == "SCALE_SHIFT amount (factor 0.01)"
    report = err.value.check_report
    assert report.outcome == "failed"
    scale = [f for f in report.findings if f.test == "SCALE_SHIFT" and f.column == "amount"]
    assert scale[0].factor == 0.01
    assert dg.Table(orders).version == 9


def test_write_check_warn_and_pass(orders):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = dg.write_table(orders, load(10, scale=0.01), check="auto",
                                on_check_failure="warn")
    assert result["version"] == 10
    assert result["check"].outcome == "failed"
    assert any("SCALE_SHIFT amount" in str(w.message) for w in caught)
    result = dg.write_table(orders, load(11, scale=0.01), check="auto", baseline="trailing:1")
    # against the one commit before it (already in dollars): no scale change
    assert result["check"].baseline_versions == [10]
    assert "SCALE_SHIFT" not in [f.test for f in result["check"].raised]


def test_write_check_holds_the_batch_in_quarantine(tmp_path, orders):
    q = str(tmp_path / "held")
    result = dg.write_table(orders, load(10, hours=2), check="auto",
                            on_check_failure=dg.Quarantine(q))
    assert result["check"].held is True
    assert result["check"].held_reason == "data test TIME_OFFSET_SHIFT event_ts (+2 h)"
    assert result["quarantine"]["rows"] == 2000
    assert dg.Table(orders).version == 9
    held = dg.Table(q).to_arrow()
    assert held.num_rows == 2000
    assert set(held.column("_violated_constraint").to_pylist()) == {
        "data test TIME_OFFSET_SHIFT event_ts (+2 h)"}


def test_bad_arguments(orders):
    with pytest.raises(ValueError, match="need check="):
        dg.write_table(orders, load(10), on_check_failure="warn")
    with pytest.raises(ValueError, match="on_check_failure must be"):
        dg.write_table(orders, load(10), check="auto", on_check_failure="loud")
    with pytest.raises(dg.InvalidInputError, match="no such file|not found|No such"):
        dg.write_table(orders, load(10), check="missing.yml")


def test_dml_checks_and_profiles_through_conf(tmp_path, orders):
    """Table(conf={"deltaguard.check": ...}) runs the tests before MERGE/UPDATE/DELETE
    commit, and their commits keep profiles like writes do."""
    tests = tmp_path / "t.yml"
    tests.write_text(TESTS)
    table = dg.Table(orders, conf={"deltaguard.check": str(tests)})
    with pytest.raises(dg.ConstraintViolationError) as err:
        table.update(set={"status": "'lost'"}, where="order_id = 900001")
    assert "accepted_values(status)" in str(err.value)
    assert err.value.check_report.outcome == "failed"
    assert dg.Table(orders).version == 9
    result = table.update(set={"status": "'shipped'"}, where="order_id = 900001")
    assert result["warnings"] == []
    kept = dg.Table(orders).profiles(10, 10)
    assert [p.operation for p in kept] == ["UPDATE"]
    assert kept[0].rows == 2000  # the rewritten file: every row it holds
