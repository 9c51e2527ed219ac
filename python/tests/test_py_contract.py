"""Data contracts from Python: dg.Contract.load / from_yaml, lint, test, diff and init
give typed results equal to the CLI's (`deltaguard contract ...`), and invalid
contracts raise InvalidInputError naming file and line."""

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import deltaguard as dg
from cli_helpers import EXIT_OK, EXIT_REFUSED, run_cli

CONTRACT = """apiVersion: v3.1.0
kind: DataContract
id: orders
name: orders
version: 1.0.0
status: active
schema:
  - name: orders
    quality:
      - {id: rows, metric: rowCount, mustBeGreaterThan: 0}
    properties:
      - {id: oid, name: order_id, physicalType: bigint, required: true, unique: true}
      - id: st
        name: status
        physicalType: string
        quality:
          - {id: st_values, metric: invalidValues, arguments: {validValues: [new, done]}, mustBe: 0}
          - {id: st_nulls, metric: nullValues, unit: percent, mustBeLessThan: 50, severity: warning}
customProperties:
  - {property: medallionLayer, value: silver}
"""


@pytest.fixture
def setup(tmp_path):
    path = str(tmp_path / "orders")
    dg.write_table(path, pa.table({"order_id": pa.array([1, 2, 2], pa.int64()),
                                   "status": ["new", "done", "lost"]}))
    f = tmp_path / "orders.odcs.yaml"
    f.write_text(CONTRACT)
    return path, str(f)


def test_load_and_properties(setup):
    _, f = setup
    c = dg.Contract.load(f)
    assert (c.id, c.version, c.layer, c.compatibility) == (
        "orders", "1.0.0", "silver", "BACKWARD_TRANSITIVE")
    assert c.objects == ["orders"] and len(c.hash) == 32 and c.file == f
    assert c.yaml == CONTRACT
    assert c.lint().valid and not c.lint().errors


def test_test_matches_the_cli(setup):
    path, f = setup
    result = dg.Contract.load(f).test(dg.Table(path))
    assert isinstance(result, dg.ContractTestResult)
    assert result.outcome == "failed" and not result.passed and result.rows == 3
    checks = {c.id: c for c in result.checks}
    assert isinstance(checks["st_values"], dg.CheckResult)
    assert checks["st_values"].outcome == "failed"
    assert checks["st_values"].violating_rows == 1
    assert checks["st_values"].samples == ['{status: "lost"}']
    assert checks["order_id.unique"].outcome == "failed"
    assert checks["order_id.required"].outcome == "passed"
    assert checks["st_nulls"].outcome == "passed" and checks["st_nulls"].observed == 0
    assert checks["rows"].observed == 3
    res = run_cli("contract", "test", path, "--contract", f, "--format", "json")
    assert res.returncode == EXIT_REFUSED
    cli = json.loads(res.stdout)
    mine = result.to_dict()
    assert mine["checks"] == cli["checks"] and mine["counts"] == cli["counts"]
    assert result.render("junit") == run_cli("contract", "test", path, "--contract", f,
                                             "--format", "junit").stdout
    # at an older version (the first write had no duplicate): same API
    dg.write_table(path, pa.table({"order_id": pa.array([9], pa.int64()),
                                   "status": ["new"]}))
    old = dg.Contract.load(f).test(dg.Table(path, version=0))
    assert old.version == 0 and old.rows == 3


def test_lint_of_invalid_files_and_load_errors(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(CONTRACT.replace("physicalType: bigint", "physicalType: bigintt"))
    result = dg.lint_contracts([str(bad)])
    assert isinstance(result, dg.LintResult) and not result.valid and not result
    (err,) = result.errors
    assert isinstance(err, dg.Diagnostic)
    assert err.line == 12 and "bigintt" in err.message
    assert err.key == "schema[0].properties[0].physicalType"
    cli = run_cli("contract", "lint", str(bad), "--format", "json")
    assert json.loads(cli.stdout) == result.to_dict()
    with pytest.raises(dg.InvalidInputError, match=r"bad.yaml:12:"):
        dg.Contract.load(bad)
    with pytest.raises(dg.ParseError, match="malformed YAML"):
        dg.Contract.from_yaml("a: [1,", "x.yaml")
    with pytest.raises(ValueError, match="format"):
        dg.lint_contracts([str(bad)]).render("yaml")


def test_diff_matches_the_cli(setup, tmp_path):
    _, f = setup
    g = tmp_path / "v2.yaml"
    g.write_text(CONTRACT.replace("name: status", "name: state")
                 .replace("[new, done]", "[new]").replace("version: 1.0.0", "version: 1.1.0"))
    d = dg.Contract.load(f).diff(dg.Contract.load(g))
    assert isinstance(d, dg.ContractDiffResult)
    assert [(c.change_class, c.path, c.breaks) for c in d.changes] == [
        ("COLUMN_RENAMED", "state", False), ("ENUM_VALUE_REMOVED", "state", True)]
    assert isinstance(d.changes[0], dg.ContractChange)
    assert d.mode == "BACKWARD_TRANSITIVE" and d.fails and not d.compatible
    cli = run_cli("contract", "diff", f, str(g), "--format", "json")
    assert cli.returncode == EXIT_REFUSED and json.loads(cli.stdout) == d.to_dict()
    assert not dg.Contract.load(f).diff(dg.Contract.load(g), mode="NONE").fails


def test_init_round_trip(setup):
    path, _ = setup
    text = dg.Contract.init(dg.Table(path), layer="gold", version="2.0.0")
    res = run_cli("contract", "init", path, "--layer", "gold", "--contract-version", "2.0.0")
    assert res.returncode == EXIT_OK and res.stdout == text
    c = dg.Contract.from_yaml(text, "init.yaml")
    assert c.version == "2.0.0" and c.compatibility == "FULL_TRANSITIVE"
    assert c.test(dg.Table(path)).passed
    with pytest.raises(dg.InvalidInputError, match="medallion layer"):
        dg.Contract.init(dg.Table(path), layer="platinum")


def test_write_table_under_a_contract_matches_the_cli(tmp_path):
    f = tmp_path / "orders.odcs.yaml"
    f.write_text(CONTRACT)
    data = pa.table({"STATUS": ["new", "done"], "order_id": pa.array([1, 2], pa.int32()),
                     "coupon": ["a", "b"]})
    with pytest.warns(UserWarning, match="new upstream column ignored .*: coupon"):
        result = dg.write_table(str(tmp_path / "py"), data, contract=str(f))
    assert result["contract"]["ignored_columns"] == ["coupon"]
    assert result["contract"]["cast_columns"] == ["order_id: integer -> long"]
    pq.write_table(data, str(tmp_path / "in.parquet"))
    res = run_cli("write", str(tmp_path / "cli"), str(tmp_path / "in.parquet"),
                  "--contract", str(f), "--output", "json")
    assert res.returncode == EXIT_OK, res.describe()
    assert json.loads(res.stdout)["contract"] == result["contract"]
    assert dg.Table(str(tmp_path / "py")).to_arrow() == \
        dg.Table(str(tmp_path / "cli")).to_arrow()
    # a row breaking a rule: ConstraintViolationError naming the rule, nothing written
    bad = pa.table({"order_id": pa.array([3], pa.int64()), "status": ["lost"]})
    with pytest.raises(dg.ConstraintViolationError) as err:
        dg.write_table(str(tmp_path / "py"), bad, contract=dg.Contract.load(str(f)))
    assert err.value.constraint == "st_values (orders 1.0.0)"
    assert err.value.sample_rows == ['{status: "lost"}']
    assert dg.Table(str(tmp_path / "py")).version == 0
    # quarantined instead, named by the rule
    with pytest.warns(UserWarning, match="ignored .*: x"):
        dg.write_table(str(tmp_path / "py"), bad.append_column("x", pa.array([1])),
                       contract=str(f), on_violation=dg.Quarantine(str(tmp_path / "q")))
    q = dg.Table(str(tmp_path / "q")).to_arrow().to_pylist()
    assert [r["_violated_constraint"] for r in q] == ["contract rule st_values (orders 1.0.0)"]


def test_merge_under_a_contract(tmp_path):
    f = tmp_path / "orders.odcs.yaml"
    f.write_text(CONTRACT)
    path = str(tmp_path / "orders")
    dg.write_table(path, pa.table({"order_id": pa.array([1, 2], pa.int64()),
                                   "status": ["new", "new"]}), contract=str(f))
    source = pa.table({"order_id": pa.array([1, 2, 3], pa.int32()),
                       "STATUS": ["done", "done", "new"], "op": ["U", "D", "I"]})
    t = dg.Table(path)
    # without the contract the new column `op` is refused by `*`
    with pytest.raises(dg.SchemaMismatchError):
        (t.merge(source, "t.order_id = s.order_id", source_alias="s", target_alias="t")
         .when_matched_update_all().execute())
    with pytest.warns(UserWarning, match="ignored .*: op"):
        metrics = (t.merge(source, "t.order_id = s.order_id", source_alias="s",
                           target_alias="t", contract=str(f))
                   .when_matched_delete("s.op = 'D'")
                   .when_matched_update_all()
                   .when_not_matched_insert_all()
                   .execute())
    assert metrics["contract"]["ignored_columns"] == ["op"]
    assert (metrics["num_target_rows_updated"], metrics["num_target_rows_deleted"],
            metrics["num_target_rows_inserted"]) == (1, 1, 1)
    assert sorted(t.to_arrow().to_pylist(), key=lambda r: r["order_id"]) == [
        {"order_id": 1, "status": "done"}, {"order_id": 3, "status": "new"}]
    # a source row breaking a rule refuses the MERGE; the table stays as it was
    version = t.version
    with pytest.raises(dg.ConstraintViolationError, match="st_values"):
        (t.merge(pa.table({"order_id": pa.array([9], pa.int64()), "status": ["lost"]}),
                 "t.order_id = s.order_id", source_alias="s", target_alias="t")
         .with_contract(dg.Contract.load(str(f)))
         .when_not_matched_insert_all().execute())
    assert t.version == version
