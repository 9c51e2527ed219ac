"""The quick start's Python half: the bronze table the CLI just landed, read and
extended from Python with the deltaguard package (scripts/quickstart.sh runs it)."""

import sys

import pyarrow as pa

import deltaguard as dg

bronze = dg.Table(sys.argv[1])
print(f"{bronze!r}: {bronze.to_arrow().num_rows} rows")
print(bronze.schema)

# A source renames a column: refused with both schemas side by side, nothing committed.
renamed = pa.table({
    "order_id": pa.array([1006], pa.int64()),
    "client": ["farid"],  # was "customer"
    "amount": pa.array([12], pa.decimal128(10, 2)),
    "country": ["US"],
})
try:
    dg.write_table(bronze, renamed)
except dg.SchemaMismatchError as e:
    print(f"\nrefused as intended (exit code {e.exit_code}):\n{e}\n")

print("per-country totals:")
totals = dg.sql(f"SELECT country, sum(amount) AS total FROM delta.`{bronze.path}` "
                "GROUP BY country ORDER BY country")
for row in totals.to_pylist():
    print(f"  {row['country']}: {row['total']}")
