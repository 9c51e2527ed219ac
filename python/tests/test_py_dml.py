"""MERGE / UPDATE / DELETE / ALTER from Python, checked against the SQL statements."""

import os

import pyarrow as pa
import pytest

import deltaguard as dg

TARGET = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "v": ["a", "b", "c"]})


@pytest.fixture()
def target(tmp_path):
    path = str(tmp_path / "t")
    dg.write_table(path, TARGET)
    return dg.Table(path)


def rows(t):
    return sorted(t.to_arrow().to_pylist(), key=lambda r: r["id"])


def test_merge_upsert_with_builder(target):
    source = pa.table({"id": pa.array([2, 4], pa.int64()), "v": ["B", "D"]})
    m = (target.merge(source, "t.id = s.id", source_alias="s", target_alias="t")
         .when_matched_update_all()
         .when_not_matched_insert_all()
         .execute())
    assert m["num_target_rows_updated"] == 1 and m["num_target_rows_inserted"] == 1
    assert target.version == m["version"] == 1
    assert rows(target) == [{"id": 1, "v": "a"}, {"id": 2, "v": "B"}, {"id": 3, "v": "c"},
                            {"id": 4, "v": "D"}]


def test_merge_matches_the_sql_statement(tmp_path, target):
    source = pa.table({"id": pa.array([1, 5], pa.int64()), "v": ["x", "y"]})
    (target.merge(source, "t.id = s.id", "s", "t")
     .when_matched_delete("s.v = 'x'")
     .when_not_matched_insert(values={"id": "s.id", "v": "upper(s.v)"})
     .execute())
    other = str(tmp_path / "other")
    dg.write_table(other, TARGET)
    session = dg.Session(warehouse=str(tmp_path / "wh"))
    session.register("src", source)
    session.sql(f"MERGE INTO delta.`{other}` t USING src s ON t.id = s.id "
                "WHEN MATCHED AND s.v = 'x' THEN DELETE "
                "WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, upper(s.v))")
    assert rows(target) == rows(dg.Table(other))


def test_merge_refuses_a_new_source_column_unless_evolving(target):
    source = pa.table({"id": pa.array([9], pa.int64()), "v": ["z"], "extra": [1]})
    with pytest.raises(dg.SchemaMismatchError, match="extra") as e:
        target.merge(source, "t.id = s.id", "s", "t").when_not_matched_insert_all().execute()
    assert e.value.table_schema.names == ["id", "v"]
    assert e.value.input_schema.names == ["id", "v", "extra"]
    assert [(c.change_class, c.path) for c in e.value.changes] == [
        ("COLUMN_ADDED_NULLABLE", "extra")]
    assert "with_schema_evolution()" in str(e.value)
    assert target.refresh().version == 0
    (target.merge(source, "t.id = s.id", "s", "t").when_not_matched_insert_all()
     .with_schema_evolution().execute())
    assert target.schema.names == ["id", "v", "extra"]


def test_merge_builder_misuse(target):
    source = pa.table({"id": pa.array([9], pa.int64()), "v": ["z"]})
    with pytest.raises(ValueError):
        target.merge(source, "t.id = s.id", "s", "t").execute()
    b = target.merge(source, "t.id = s.id", "s", "t").when_not_matched_insert_all()
    b.execute()
    with pytest.raises(RuntimeError):
        b.execute()
    with pytest.raises(dg.InvalidInputError):
        target.merge(source, "t.nope = s.id", "s", "t").when_matched_delete().execute()


def test_update_and_delete(target):
    m = target.update(set={"v": "concat(v, '!')"}, where="id >= 2")
    assert m["num_updated_rows"] == 2 and target.version == 1
    m = target.delete(where="id = 1")
    assert m["num_deleted_rows"] == 1 and target.version == 2
    assert rows(target) == [{"id": 2, "v": "b!"}, {"id": 3, "v": "c!"}]
    with pytest.raises(dg.InvalidInputError):
        target.update(set={"nope": "1"})
    with pytest.raises(ValueError):
        target.update()


def test_alter_operations(target):
    target.alter.add_columns("discount DECIMAL(5,2) COMMENT 'off'")
    assert target.schema["discount"].type == "decimal(5,2)"
    assert target.schema["discount"].comment == "off"
    target.alter.set_properties({"delta.columnMapping.mode": "name"})
    target.alter.rename_column("v", "value")
    assert target.schema.names == ["id", "value", "discount"]
    target.alter.drop_columns(["discount"])
    assert target.schema.names == ["id", "value"]
    target.alter.add_constraint("id_positive", "id > 0")
    with pytest.raises(dg.ConstraintViolationError):
        dg.write_table(target, pa.table({"id": pa.array([-1], pa.int64()), "value": ["n"]}))
    target.alter.drop_constraint("id_positive")
    target.alter.set_not_null("id")
    assert target.schema["id"].nullable is False
    with pytest.raises(dg.ConstraintViolationError):
        target.alter.add_constraint("small", "id < 2")
    v = target.version
    with pytest.raises(dg.DeltaguardError):
        target.alter.rename_column("missing", "x")
    assert target.refresh().version == v
    assert len(target.history()) == v + 1


def test_names_with_backquotes_and_dots_reach_sql_quoted(tmp_path):
    # The table path and the column names are written into the ALTER and VACUUM
    # statements: a backquote or a dot in them must not change what they name.
    path = str(tmp_path / "we`ird.dir")
    dg.create_table(path, "id BIGINT, `a``b` STRING",
                    properties={"delta.columnMapping.mode": "name"})
    t = dg.Table(path)
    assert t.schema.names == ["id", "a`b"]
    t.alter.rename_column("a`b", "c`d")
    assert t.schema.names == ["id", "c`d"]
    t.alter.drop_columns(["c`d"])
    assert t.schema.names == ["id"]
    assert t.vacuum(dry_run=True).num_rows == 0
    assert dg._native.quote_identifier("x`y") == "`x``y`"


def test_change_type_widens(tmp_path):
    path = str(tmp_path / "w")
    dg.create_table(path, "n INT", properties={"delta.enableTypeWidening": "true"})
    t = dg.Table(path)
    t.alter.change_type("n", "BIGINT")
    assert t.schema["n"].type == "long"
    with pytest.raises(dg.DeltaguardError):
        t.alter.change_type("n", "INT")


def test_vacuum_matches_the_sql_statement(tmp_path):
    path = str(tmp_path / "v")
    dg.write_table(path, TARGET)
    dg.write_table(path, TARGET, mode="overwrite")  # the first file is now unreferenced
    t = dg.Table(path)
    with pytest.raises(dg.InvalidInputError, match="retention"):
        t.vacuum(retain_hours=0)
    conf = {"spark.databricks.delta.retentionDurationCheck.enabled": "false"}
    t = dg.Table(path, conf=conf)
    listed = t.vacuum(retain_hours=0, dry_run=True)
    assert listed.num_rows == 1
    files = [f for f in os.listdir(path) if f.endswith(".parquet")]
    assert len(files) == 2
    t.vacuum(retain_hours=0)
    assert len([f for f in os.listdir(path) if f.endswith(".parquet")]) == 1
    assert rows(t) == rows(dg.Table(path, version=t.version))
