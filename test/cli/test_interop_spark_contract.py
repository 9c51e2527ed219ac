"""Interop of `deltaguard contract apply` (docs/contracts.md "Apply") with Apache Spark
+ Delta Lake and deltalake: the table an applied contract leaves reads the same in all
three, and Spark enforces what the contract added (NOT NULL and the CHECK constraints
of accepted values and ranges) on its own writes."""

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cli_helpers import EXIT_OK, run_cli
from interop_helpers import assert_same_table

CONTRACT = """apiVersion: v3.1.0
kind: DataContract
id: orders
name: orders
version: 1.0.0
status: active
schema:
  - name: orders
    properties:
      - {id: oid, name: order_id, physicalType: bigint, required: true,
         description: the order}
      - id: amt
        name: amount
        physicalType: 'decimal(18,2)'
        logicalTypeOptions: {minimum: 0}
      - id: st
        name: status
        physicalType: string
        quality:
          - {id: st_values, metric: invalidValues, arguments: {validValues: [new, done]},
             mustBe: 0}
"""


def test_spark_enforces_an_applied_contract(spark, tmp_path):
    path = str(tmp_path / "orders")
    f = tmp_path / "in.parquet"
    pq.write_table(pa.table({"order_id": pa.array([1, 2], pa.int64()),
                             "amount": pa.array([5, 7], pa.decimal128(18, 2)),
                             "status": ["new", "done"]}), str(f))
    assert run_cli("write", path, str(f)).returncode == EXIT_OK
    c = tmp_path / "orders.odcs.yaml"
    c.write_text(CONTRACT)
    res = run_cli("contract", "apply", path, str(c))
    assert res.returncode == EXIT_OK, res.describe()
    rows = assert_same_table(path, spark)
    assert sorted(r["order_id"] for r in rows) == [1, 2]
    t = f"delta.`{path}`"
    schema = {f.name: f for f in spark.table(t).schema.fields}
    assert not schema["order_id"].nullable
    assert schema["order_id"].metadata.get("comment") == "the order"
    for bad, constraint in (("(3, 1.00, 'lost')", "contract_st_values"),
                            ("(4, -1.00, 'new')", "contract_amount_minimum")):
        with pytest.raises(Exception) as err:
            spark.sql(f"INSERT INTO {t} VALUES {bad}").collect()
        assert constraint in str(err.value), str(err.value)[:2000]
    with pytest.raises(Exception) as err:
        spark.sql(f"INSERT INTO {t} VALUES (NULL, 1.00, 'new')").collect()
    assert "order_id" in str(err.value), str(err.value)[:2000]
    spark.sql(f"INSERT INTO {t} VALUES (5, 2.50, 'done')").collect()
    assert sorted(r["order_id"] for r in assert_same_table(path, spark)) == [1, 2, 5]
