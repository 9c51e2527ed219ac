"""deltaguard.Schema: tree, DDL, JSON and Arrow forms, equality."""

import json

import pyarrow as pa
import pytest

import deltaguard as dg


def test_ddl_round_trip_and_tree():
    s = dg.Schema.from_ddl("id BIGINT NOT NULL, name VARCHAR(10) COMMENT 'who''s', "
                           "tags ARRAY<STRING>, addr STRUCT<city: STRING, zip: INT>")
    assert dg.Schema.from_ddl(s.to_ddl()) == s
    tree = str(s)
    assert "  id: long not null" in tree
    assert "  addr: struct" in tree and "    city: string" in tree
    assert s["name"].comment == "who's"
    assert s.names == ["id", "name", "tags", "addr"]
    assert len(s) == 4


def test_arrow_round_trip():
    s = dg.Schema.from_ddl("id BIGINT NOT NULL, ts TIMESTAMP, d DECIMAL(10,2)")
    arrow = s.to_arrow()
    assert arrow.field("id").type == pa.int64() and not arrow.field("id").nullable
    assert arrow.field("ts").type == pa.timestamp("us", tz="UTC")
    assert dg.Schema.from_arrow(arrow) == s
    assert pa.schema(s) == arrow


def test_json_form_is_the_protocol_schema_string():
    s = dg.Schema.from_ddl("x INT")
    parsed = json.loads(s.to_json())
    assert parsed == {"type": "struct", "fields": [
        {"name": "x", "type": "integer", "nullable": True, "metadata": {}}]}
    assert dg.Schema.from_json(parsed) == s


def test_bad_schemas_are_clear_errors():
    with pytest.raises(dg.ParseError):
        dg.Schema.from_ddl("x INTEGR")
    with pytest.raises(dg.DeltaguardError):
        dg.Schema.from_json("{")
    with pytest.raises(dg.InvalidInputError):
        dg.Schema.from_arrow(object())
