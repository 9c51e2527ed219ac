"""The test helpers themselves: the INDEX schema rendering and the canonical value form
must be right, or the end-to-end comparisons prove nothing."""

import datetime as dt
import decimal
import json

import pyarrow as pa
import pytest

from cli_helpers import (assert_same_rows, canon_arrow_value, canon_cli_value,
                         canonical_rows_from_arrow, canonical_rows_from_cli, render_schema)


def test_render_schema_nested_and_not_null():
    schema = {"type": "struct", "fields": [
        {"name": "id", "type": "long", "nullable": False, "metadata": {}},
        {"name": "s", "type": {"type": "struct", "fields": [
            {"name": "a", "type": {"type": "array", "elementType": "string",
                                   "containsNull": True}, "nullable": True},
            {"name": "m", "type": {"type": "map", "keyType": "string",
                                   "valueType": "decimal(10,2)",
                                   "valueContainsNull": True}, "nullable": False}]},
         "nullable": True, "metadata": {}}]}
    assert render_schema(schema) == \
        "id:long NOT NULL, s:struct<a:array<string>, m:map<string,decimal(10,2)> NOT NULL>"


@pytest.mark.parametrize("value,typ,expected", [
    (decimal.Decimal("5.00"), pa.decimal128(10, 2), "5.00"),
    (decimal.Decimal("0E-2"), pa.decimal128(10, 2), "0.00"),
    (decimal.Decimal("-0.000001"), pa.decimal128(38, 6), "-0.000001"),
    (dt.datetime(2024, 1, 1, 12, 0, tzinfo=dt.timezone.utc), pa.timestamp("us", "UTC"),
     "2024-01-01T12:00:00.000000Z"),
    (dt.datetime(1, 1, 1, 0, 0, 0, 5), pa.timestamp("us"), "0001-01-01T00:00:00.000005"),
    (dt.date(2024, 2, 29), pa.date32(), "2024-02-29"),
    (b"\x00\xff", pa.binary(), "AP8="),
    (float("nan"), pa.float64(), "NaN"),
    (float("-inf"), pa.float32(), "-Infinity"),
    ([("a", 1)], pa.map_(pa.string(), pa.int64()), [{"key": "a", "value": 1}]),
    ({"x": None}, pa.struct([("x", pa.int32())]), {"x": None}),
])
def test_canonical_values(value, typ, expected):
    assert canon_arrow_value(value, typ) == expected


def test_float32_compared_at_float32_precision():
    # pyarrow widens float32 0.1 to 0.10000000149011612; a CLI printing "0.1" is right.
    assert canon_cli_value(0.1, pa.float32()) == canon_arrow_value(
        pa.array([0.1], pa.float32()).to_pylist()[0], pa.float32())
    assert canon_cli_value(0.1, pa.float64()) != canon_cli_value(0.10000001, pa.float64())


def test_row_comparison_detects_differences():
    table = pa.table({"id": pa.array([1, 2], pa.int64()),
                      "amount": pa.array([decimal.Decimal("1.50"), None],
                                         pa.decimal128(5, 2))})
    expected = canonical_rows_from_arrow(table)
    good = [json.loads('{"id": 2, "amount": null}'), json.loads('{"id": 1, "amount": "1.50"}')]
    assert_same_rows(canonical_rows_from_cli(good, table.schema), expected)
    for bad in ([{"id": 1, "amount": "1.5"}, {"id": 2, "amount": None}],
                [{"id": 1, "amount": "1.50"}],
                [{"id": 1, "amount": "1.50"}, {"id": 2, "amount": None},
                 {"id": 3, "amount": None}]):
        with pytest.raises(AssertionError):
            assert_same_rows(canonical_rows_from_cli(bad, table.schema), expected)
    with pytest.raises(AssertionError, match="not in the table schema"):
        canonical_rows_from_cli([{"id": 1, "amount": None, "extra": 1}], table.schema)
