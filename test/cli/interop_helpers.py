"""Cross-engine comparison helpers for the interop tests: the same Delta table read by
Spark (+ delta-spark), deltalake (delta-rs) and deltaguard (CLI `scan --format jsonl`),
each turned into CANONICAL Python values so that `==` across engines is meaningful:

  integers/bools/strings as is; float32 rounded to float32 precision; NaN as the string
  "NaN" (so NaN == NaN); decimals as decimal.Decimal; timestamp as an aware UTC datetime;
  timestamp_ntz as a naive datetime; date as datetime.date; binary as bytes; struct as
  dict; array as list; map as dict (or a sorted tuple of (key, value) pairs when the keys
  are not hashable).

Rows are dicts column -> value, returned sorted by a deterministic key. Schemas are lists
of (name, type string, nullable) with nested types rendered as struct<a:int NOT NULL>,
array<int> / array<int NOT NULL> (containsNull), map<k,v> / map<k,v NOT NULL>; field
metadata (column mapping ids/physical names, widening history) is not part of the form."""

import base64
import collections
import datetime as dt
import decimal
import json
import math
import struct

import pyarrow as pa

from cli_helpers import run_cli

UTC = dt.timezone.utc
NAN = "NaN"


# --- canonical values ---------------------------------------------------------------------

def _f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def _canon_float(x, single):
    if x is None:
        return None
    x = float(x)
    if math.isnan(x):
        return NAN
    if single and not math.isinf(x):
        x = _f32(x)
    return x


def _freeze(v):
    """A hashable, totally ordered stand-in (its repr) for sorting and multiset diffs."""
    if isinstance(v, dict):
        items = sorted(f"{_freeze(k)}:{_freeze(x)}" for k, x in v.items())
        return "{" + ",".join(items) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(_freeze(x) for x in v) + "]"
    return repr(v)


def _make_map(pairs):
    try:
        out = {}
        for k, v in pairs:
            hash(k)
            out[k] = v
        return out
    except TypeError:
        return tuple(sorted(pairs, key=_freeze))


def canon_arrow(v, t):
    """A value from pyarrow's to_pylist() for Arrow type t -> canonical value."""
    if v is None:
        return None
    if pa.types.is_struct(t):
        return {t.field(i).name: canon_arrow(v.get(t.field(i).name), t.field(i).type)
                for i in range(t.num_fields)}
    if pa.types.is_map(t):
        return _make_map([(canon_arrow(k, t.key_type), canon_arrow(x, t.item_type))
                          for k, x in v])
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_list_view(t):
        return [canon_arrow(x, t.value_type) for x in v]
    if pa.types.is_decimal(t):
        return decimal.Decimal(v)
    if pa.types.is_timestamp(t):
        if t.tz is not None:
            return v.astimezone(UTC)
        return v
    if pa.types.is_floating(t):
        return _canon_float(v, pa.types.is_float32(t) or pa.types.is_float16(t))
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or \
            pa.types.is_fixed_size_binary(t) or pa.types.is_binary_view(t):
        return bytes(v)
    if pa.types.is_dictionary(t):
        return canon_arrow(v, t.value_type)
    return v


def canon_rows_from_arrow(table):
    rows = [{f.name: canon_arrow(r[f.name], f.type) for f in table.schema}
            for r in table.to_pylist()]
    return sorted(rows, key=_freeze)


_DECIMAL_PREFIX = "decimal("


def canon_json(v, t):
    """A value of deltaguard's `scan --format jsonl` for Delta type t (schema JSON form)
    -> canonical value. See cli_helpers.py for the jsonl value encoding."""
    if v is None:
        return None
    if isinstance(t, dict):
        kind = t["type"]
        if kind == "struct":
            assert isinstance(v, dict), f"struct value is not an object: {v!r}"
            return {f["name"]: canon_json(v.get(f["name"]), f["type"]) for f in t["fields"]}
        if kind == "array":
            return [canon_json(x, t["elementType"]) for x in v]
        if kind == "map":
            return _make_map([(canon_json(e["key"], t["keyType"]),
                               canon_json(e["value"], t["valueType"])) for e in v])
        raise AssertionError(f"unknown nested Delta type {t!r}")
    if t.startswith(_DECIMAL_PREFIX):
        return decimal.Decimal(v)
    if t == "timestamp":
        assert v.endswith("Z"), f"timestamp without Z: {v!r}"
        return dt.datetime.fromisoformat(v[:-1]).replace(tzinfo=UTC)
    if t == "timestamp_ntz":
        return dt.datetime.fromisoformat(v)
    if t == "date":
        return dt.date.fromisoformat(v)
    if t == "binary":
        return base64.b64decode(v)
    if t in ("float", "double"):
        if isinstance(v, str):
            v = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[v]
        return _canon_float(v, t == "float")
    return v


# --- schema forms -------------------------------------------------------------------------

def render_type(t):
    """Delta/Spark schema-JSON type -> string with nested nullability."""
    if isinstance(t, str):
        return t
    kind = t["type"]
    if kind == "struct":
        return "struct<" + ", ".join(
            f"{f['name']}:{render_type(f['type'])}" +
            ("" if f.get("nullable", True) else " NOT NULL") for f in t["fields"]) + ">"
    if kind == "array":
        nn = "" if t.get("containsNull", True) else " NOT NULL"
        return f"array<{render_type(t['elementType'])}{nn}>"
    if kind == "map":
        nn = "" if t.get("valueContainsNull", True) else " NOT NULL"
        return f"map<{render_type(t['keyType'])},{render_type(t['valueType'])}{nn}>"
    raise AssertionError(f"unknown Delta type {t!r}")


def schema_form(schema_json):
    """{"type":"struct","fields":[...]} -> [(name, type string, nullable), ...]."""
    if isinstance(schema_json, str):
        schema_json = json.loads(schema_json)
    assert schema_json.get("type") == "struct", f"not a struct schema: {schema_json!r}"
    return [(f["name"], render_type(f["type"]), bool(f.get("nullable", True)))
            for f in schema_json["fields"]]


# --- the three engines --------------------------------------------------------------------

def spark_df(spark, path, version=None):
    reader = spark.read.format("delta")
    if version is not None:
        reader = reader.option("versionAsOf", version)
    return reader.load(str(path))


def rows_spark(spark, path, version=None):
    """Spark's read, via Arrow (timestamps arrive as UTC: the session time zone)."""
    return canon_rows_from_arrow(spark_df(spark, path, version).toArrow())


def schema_spark(spark, path, version=None):
    return schema_form(spark_df(spark, path, version).schema.jsonValue())


def rows_deltalake(path, version=None):
    from deltalake import DeltaTable
    return canon_rows_from_arrow(pa.table(DeltaTable(str(path), version=version)
                                          .to_pyarrow_table()))


def schema_deltalake(path, version=None):
    from deltalake import DeltaTable
    return schema_form(DeltaTable(str(path), version=version).schema().to_json())


def describe_deltaguard(path, version=None):
    args = ["describe", path, "--format", "json"]
    if version is not None:
        args += ["--version", version]
    return run_cli(*args).json()


def schema_deltaguard(path, version=None):
    return schema_form(describe_deltaguard(path, version)["schema"])


def rows_deltaguard(path, version=None):
    schema = describe_deltaguard(path, version)["schema"]
    args = ["scan", path, "--format", "jsonl"]
    if version is not None:
        args += ["--version", version]
    types = {f["name"]: f["type"] for f in schema["fields"]}
    out = []
    for r in run_cli(*args).jsonl():
        extra = set(r) - set(types)
        assert not extra, f"deltaguard row has columns not in its schema: {sorted(extra)}"
        out.append({name: canon_json(r.get(name), t) for name, t in types.items()})
    return sorted(out, key=_freeze)


# --- comparison ---------------------------------------------------------------------------

def _show(row):
    return repr(row)[:600]


def diff_rows(actual, expected, actual_name, expected_name, limit=3):
    """'' when equal, else a description: counts plus a few rows only on one side."""
    if actual == expected:
        return ""
    a = collections.Counter(_freeze(r) for r in actual)
    e = collections.Counter(_freeze(r) for r in expected)
    by_key = {_freeze(r): r for r in list(actual) + list(expected)}
    only_a = list((a - e).elements())
    only_e = list((e - a).elements())
    lines = [f"{actual_name} has {len(actual)} rows, {expected_name} {len(expected)}; "
             f"{len(only_a)} only in {actual_name}, {len(only_e)} only in {expected_name}"]
    for k in only_a[:limit]:
        lines.append(f"  only in {actual_name}:  {_show(by_key[k])}")
    for k in only_e[:limit]:
        lines.append(f"  only in {expected_name}: {_show(by_key[k])}")
    return "\n".join(lines)


def diff_schema(actual, expected, actual_name, expected_name):
    if actual == expected:
        return ""
    lines = [f"schema of {actual_name} differs from {expected_name}:"]
    for i in range(max(len(actual), len(expected))):
        a = actual[i] if i < len(actual) else None
        e = expected[i] if i < len(expected) else None
        if a != e:
            lines.append(f"  field {i}: {actual_name}={a} {expected_name}={e}")
    return "\n".join(lines)


def _attempt(what, fn):
    """(result, '') or (None, 'what failed: error') so one engine's failure does not hide
    another's result."""
    try:
        return fn(), ""
    except Exception as e:  # noqa: BLE001 - reported, never swallowed
        first = str(e).strip().splitlines()
        return None, f"{what} failed: {type(e).__name__}: {' | '.join(first[:6])[:1500]}"


def assert_same_table(path, spark, *, version=None, deltalake_known_issue=None):
    """Spark's own read is the reference; deltaguard and deltalake must return the same
    schema form and the same rows. `deltalake_known_issue` (a reason string) records a
    known bug of the PEER on this table: deltalake must then still fail or differ (so the
    test notices when the peer is fixed) and is otherwise left out. Returns Spark's rows."""
    path = str(path)
    ref_rows = rows_spark(spark, path, version)
    ref_schema = schema_spark(spark, path, version)
    problems = []
    for name, schema_fn, rows_fn in (("deltaguard", schema_deltaguard, rows_deltaguard),
                                     ("deltalake", schema_deltalake, rows_deltalake)):
        schema, err = _attempt(f"{name} schema", lambda: schema_fn(path, version))
        found = [err or diff_schema(schema, ref_schema, name, "spark")]
        rows, err = _attempt(f"{name} scan", lambda: rows_fn(path, version))
        found.append(err or diff_rows(rows, ref_rows, name, "spark"))
        found = [p for p in found if p]
        if name == "deltalake" and deltalake_known_issue is not None:
            if not found:
                problems.append("deltalake now reads the table like Spark although a "
                                f"known issue was recorded ({deltalake_known_issue}): "
                                "drop the note")
            continue
        problems += found
    assert not problems, f"{path}@{version}:\n" + "\n".join(problems)
    return ref_rows
