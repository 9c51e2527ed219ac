"""Interop: tables written by deltalake (delta-rs) are scanned by deltaguard, and the rows
must equal deltalake's own reading of the same version, value for value (compared in the
canonical JSON form of `scan --format jsonl`, see cli_helpers)."""

import datetime as dt
import decimal
import os

import pyarrow as pa
import pytest
from deltalake import DeltaTable, WriterProperties, write_deltalake

from cli_helpers import assert_scan_matches, run_cli

UTC = dt.timezone.utc
D = decimal.Decimal


# --- every type -------------------------------------------------------------------------

ALL_TYPES_SCHEMA = pa.schema([
    ("b", pa.bool_()),
    ("i8", pa.int8()),
    ("i16", pa.int16()),
    ("i32", pa.int32()),
    ("i64", pa.int64()),
    ("f32", pa.float32()),
    ("f64", pa.float64()),
    ("dec", pa.decimal128(10, 2)),
    ("dec38", pa.decimal128(38, 6)),
    ("s", pa.string()),
    ("bin", pa.binary()),
    ("d", pa.date32()),
    ("ts", pa.timestamp("us", tz="UTC")),
    ("ntz", pa.timestamp("us")),
    ("arr", pa.list_(pa.int32())),
    ("arr2", pa.list_(pa.list_(pa.string()))),
    ("st", pa.struct([("x", pa.int64()), ("inner", pa.struct([("y", pa.string()),
                                                              ("z", pa.float64())]))])),
    ("arr_st", pa.list_(pa.struct([("k", pa.string()), ("v", pa.int32())]))),
    ("m", pa.map_(pa.string(), pa.int64())),
    ("m_int", pa.map_(pa.int32(), pa.string())),
])


def all_types_rows_1():
    return [
        {"b": True, "i8": -128, "i16": 32767, "i32": -2147483648, "i64": 9223372036854775807,
         "f32": 0.1, "f64": 1e-300, "dec": D("-12345678.90"),
         "dec38": D("12345678901234567890123456789012.345678"), "s": "plain",
         "bin": bytes(range(256)), "d": dt.date(1970, 1, 1),
         "ts": dt.datetime(2024, 1, 1, 12, 0, 0, 123456, tzinfo=UTC),
         "ntz": dt.datetime(2024, 1, 1, 12, 0, 0, 1), "arr": [1, None, 3],
         "arr2": [["a"], [], None, ["b", None]],
         "st": {"x": 1, "inner": {"y": "why", "z": 2.5}},
         "arr_st": [{"k": "one", "v": 1}, None, {"k": None, "v": None}],
         "m": [("a", 1), ("b", None)], "m_int": [(1, "one"), (-2, None)]},
        {"b": False, "i8": 127, "i16": -32768, "i32": 2147483647,
         "i64": -9223372036854775808, "f32": float("nan"), "f64": float("inf"),
         "dec": D("0.00"), "dec38": D("-0.000001"),
         "s": "quotes \" and \\ backslash\nnewline\ttab \u0001 ünïcødé 🦆",
         "bin": b"", "d": dt.date(1, 1, 1),
         "ts": dt.datetime(1900, 1, 1, 0, 0, 0, 1, tzinfo=UTC),
         "ntz": dt.datetime(9999, 12, 31, 23, 59, 59, 999999), "arr": [],
         "arr2": [], "st": {"x": None, "inner": None}, "arr_st": [], "m": [],
         "m_int": None},
    ]


def all_types_rows_2():
    nulls = {name: None for name in ALL_TYPES_SCHEMA.names}
    return [
        nulls,
        dict(nulls, f32=float("-inf"), f64=float("nan"), s="", st=None, i64=0,
             dec=D("99999999.99"), ts=dt.datetime(2262, 4, 11, 23, 47, 16, tzinfo=UTC)),
        dict(nulls, f32=-0.0, f64=-1.5e308, s="x" * 10000, arr=[None],
             d=dt.date(9999, 12, 31)),
    ]


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    return tmp_path_factory.mktemp("interop")


@pytest.fixture(scope="module")
def all_types_table(tables):
    path = str(tables / "all_types")
    write_deltalake(path, pa.Table.from_pylist(all_types_rows_1(), schema=ALL_TYPES_SCHEMA))
    write_deltalake(path, pa.Table.from_pylist(all_types_rows_2(), schema=ALL_TYPES_SCHEMA),
                    mode="append")
    return path


def test_all_types(all_types_table):
    assert_scan_matches(all_types_table)


def test_all_types_first_version(all_types_table):
    assert_scan_matches(all_types_table, version=0)


def test_all_types_projection(all_types_table):
    assert_scan_matches(all_types_table, columns=["i64", "m", "s"])


# --- partitions ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def partitioned_table(tables):
    path = str(tables / "partitioned")
    data = pa.table({
        "id": pa.array(range(8), pa.int64()),
        "region": pa.array(["a b", "x/y", None, "p%q", "ünï", "a=b", "a b", None]),
        "day": pa.array([dt.date(2024, 1, 1), None, dt.date(2024, 1, 2), dt.date(2024, 1, 1),
                         None, dt.date(1999, 12, 31), dt.date(2024, 1, 1), None]),
        "bucket": pa.array([1, None, 2, 1, 3, -7, 1, None], pa.int32()),
        "flag": pa.array([True, False, None, True, False, True, None, False]),
        "value": pa.array([1.5, 2.5, None, 4.0, 5.5, 6.0, 7.25, 8.0]),
    })
    write_deltalake(path, data, partition_by=["region", "day", "bucket", "flag"])
    more = pa.table({
        "id": pa.array([100, 101], pa.int64()),
        "region": pa.array(["a b", "new"]),
        "day": pa.array([dt.date(2024, 1, 1), dt.date(2025, 6, 30)]),
        "bucket": pa.array([1, 9], pa.int32()),
        "flag": pa.array([True, None]),
        "value": pa.array([None, 0.0]),
    })
    write_deltalake(path, more, mode="append")
    return path


def test_partitioned(partitioned_table):
    assert_scan_matches(partitioned_table)


def test_partitioned_first_version(partitioned_table):
    assert_scan_matches(partitioned_table, version=0)


def test_partition_columns_in_describe(partitioned_table):
    doc = run_cli("describe", partitioned_table, "--format", "json").json()
    assert doc["partition_columns"] == ["region", "day", "bucket", "flag"]
    assert doc["num_rows"] == 10


# --- many commits, an overwrite and a checkpoint -------------------------------------------

@pytest.fixture(scope="module")
def checkpointed_table(tables):
    path = str(tables / "checkpointed")
    for i in range(14):
        batch = pa.table({"id": pa.array([i * 10 + k for k in range(3)], pa.int64()),
                          "name": pa.array([f"n{i}-{k}" for k in range(3)])})
        mode = "overwrite" if i == 5 else "append"
        write_deltalake(path, batch, mode=mode)
        if i == 9:
            DeltaTable(path).create_checkpoint()
    return path


def test_checkpoint_written(checkpointed_table):
    names = os.listdir(os.path.join(checkpointed_table, "_delta_log"))
    assert any(".checkpoint." in n and n.endswith(".parquet") for n in names), names


@pytest.mark.parametrize("version", [None, 4, 5, 9, 11])
def test_checkpointed_versions(checkpointed_table, version):
    assert_scan_matches(checkpointed_table, version=version)


def test_checkpointed_describe(checkpointed_table):
    doc = run_cli("describe", checkpointed_table, "--format", "json").json()
    assert doc["version"] == 13
    assert doc["num_rows"] == 27  # overwrite at v5 kept 3 rows, then 8 appends of 3


# --- schema evolution --------------------------------------------------------------------

@pytest.fixture(scope="module")
def evolved_table(tables):
    path = str(tables / "evolved")
    write_deltalake(path, pa.table({"a": pa.array([1, 2], pa.int64()),
                                    "b": pa.array(["x", "y"])}))
    write_deltalake(path, pa.table({"a": pa.array([3], pa.int64()), "b": pa.array(["z"]),
                                    "c": pa.array([3.5])}),
                    mode="append", schema_mode="merge")
    write_deltalake(path, pa.table({
        "a": pa.array([4], pa.int64()), "c": pa.array([None], pa.float64()),
        "d": pa.array([{"p": 1, "q": "r"}], pa.struct([("p", pa.int32()), ("q", pa.string())])),
    }), mode="append", schema_mode="merge")
    return path


@pytest.mark.parametrize("version", [None, 0, 1])
def test_schema_evolution(evolved_table, version):
    assert_scan_matches(evolved_table, version=version)


def test_schema_evolution_history(evolved_table):
    hist = run_cli("history", evolved_table, "--format", "json").json()
    assert sorted(h["version"] for h in hist) == [0, 1, 2]


# --- deletes and updates (copy-on-write in delta-rs) ---------------------------------------

@pytest.fixture(scope="module")
def dml_table(tables):
    path = str(tables / "dml")
    write_deltalake(path, pa.table({"id": pa.array(range(50), pa.int64()),
                                    "grp": pa.array([f"g{i % 4}" for i in range(50)]),
                                    "val": pa.array([float(i) for i in range(50)])}),
                    partition_by=["grp"])
    dt_ = DeltaTable(path)
    dt_.delete("id % 7 = 0")
    dt_ = DeltaTable(path)
    dt_.update(updates={"val": "val * 2"}, predicate="grp = 'g1'")
    DeltaTable(path).delete("grp = 'g3'")
    return path


@pytest.mark.parametrize("version", [None, 1, 2])
def test_deletes_and_updates(dml_table, version):
    assert_scan_matches(dml_table, version=version)


@pytest.fixture(scope="module")
def dv_feature_table(tables):
    """deletionVectors enabled: delta-rs adds the reader feature (and others) to the
    protocol but still deletes copy-on-write."""
    path = str(tables / "dv_enabled")
    write_deltalake(path, pa.table({"id": pa.array(range(20), pa.int64())}),
                    configuration={"delta.enableDeletionVectors": "true"})
    DeltaTable(path).delete("id >= 15")
    return path


def test_table_with_deletion_vector_feature(dv_feature_table):
    # deltalake's own pyarrow reader refuses this table (reader feature deletionVectors),
    # so the expectation is explicit.
    rows = run_cli("scan", dv_feature_table, "--format", "jsonl").jsonl()
    assert sorted(r["id"] for r in rows) == list(range(15))
    assert all(set(r) == {"id"} for r in rows)


# --- larger data: many row groups and files -------------------------------------------------

@pytest.fixture(scope="module")
def large_table(tables):
    path = str(tables / "large")
    n = 30000
    data = pa.table({
        "id": pa.array(range(n), pa.int64()),
        "txt": pa.array([f"row-{i}" if i % 11 else None for i in range(n)]),
        "amount": pa.array([D(i) / 100 for i in range(n)], pa.decimal128(12, 2)),
        "tags": pa.array([[str(i % 5)] * (i % 3) for i in range(n)], pa.list_(pa.string())),
    })
    props = WriterProperties(max_row_group_size=1000, data_page_size_limit=4096)
    write_deltalake(path, data, writer_properties=props)
    write_deltalake(path, data.slice(0, 5000), mode="append", writer_properties=props)
    return path


def test_large_table(large_table):
    assert_scan_matches(large_table)
