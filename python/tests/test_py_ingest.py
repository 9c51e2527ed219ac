"""Ingestion from Python (docs/ingest.md "Python"): dg.ingest gives the CLI's answers
(the same batches, the same table), raises on new columns under addNewColumns and picks
them up on the next call, and checks its options as the CLI does."""

import json

import pytest

import deltaguard as dg
from cli_helpers import EXIT_OK, run_cli


def put(directory, name, records):
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_text("".join(json.dumps(r) + "\n" for r in records))


def test_ingest_matches_the_cli(tmp_path):
    src = tmp_path / "in"
    opts = {"cloudFiles.inferColumnTypes": "true", "cloudFiles.maxFilesPerTrigger": "1",
            "cloudFiles.schemaEvolutionMode": "rescue"}
    args = [a for k, v in opts.items() for a in ("--option", f"{k}={v}")]
    batches, cli_batches = [], []
    for name, records in (("a.json", [{"id": 1, "amount": 1.5}, {"id": 2, "amount": 3.5}]),
                          ("b.json", [{"id": 3, "amount": "275.50"},
                                      {"id": 4, "amount": 1.25, "Amount": 9}])):
        put(src, name, records)
        batches += dg.ingest(src, tmp_path / "py", checkpoint=tmp_path / "cp_py",
                             options=opts)
        cli = run_cli("ingest", str(src), str(tmp_path / "cli"), "--checkpoint",
                      str(tmp_path / "cp_cli"), *args, "--output", "json")
        assert cli.returncode == EXIT_OK, cli.describe()
        cli_batches += cli.jsonl()
    strip = ("seconds",)
    assert [{k: v for k, v in vars(b).items() if k not in strip} for b in batches] == \
        [{k: v for k, v in b.items() if k not in strip} for b in cli_batches]
    assert [b.rescued_rows for b in batches] == [0, 2]
    py = dg.Table(tmp_path / "py").to_arrow().sort_by("id").to_pylist()
    cl = dg.Table(tmp_path / "cli").to_arrow().sort_by("id").to_pylist()
    for row in py + cl:  # the rescued JSON names each run's own file
        if row["_rescued_data"]:
            row["_rescued_data"] = json.loads(row["_rescued_data"])
            row["_rescued_data"].pop("_file_path")
    assert py == cl
    assert py[2]["amount"] is None and py[2]["_rescued_data"] == {"amount": "275.50"}
    assert py[3]["amount"] == 1.25 and py[3]["_rescued_data"] == {"Amount": 9}


def test_new_columns_raise_then_land(tmp_path):
    src = tmp_path / "in"
    put(src, "a.json", [{"id": "1"}])
    dg.ingest(src, tmp_path / "t", checkpoint=tmp_path / "cp")
    put(src, "b.json", [{"id": "2", "payment_method": "card"}])
    with pytest.raises(dg.SchemaMismatchError, match="payment_method"):
        dg.ingest(src, tmp_path / "t", checkpoint=tmp_path / "cp")
    [batch] = dg.ingest(src, tmp_path / "t", checkpoint=tmp_path / "cp")
    assert batch.replayed and batch.rows == 1
    rows = dg.Table(tmp_path / "t").to_arrow().sort_by("id").to_pylist()
    assert [r["payment_method"] for r in rows] == [None, "card"]


def test_bad_options_raise(tmp_path):
    with pytest.raises(dg.InvalidInputError, match="unknown ingestion option"):
        dg.ingest(tmp_path, tmp_path / "t", checkpoint=tmp_path / "cp",
                  options={"cloudFiles.schemaEvolutionMod": "rescue"})
    with pytest.raises(ValueError, match="on_check_failure"):
        dg.ingest(tmp_path, tmp_path / "t", checkpoint=tmp_path / "cp",
                  on_check_failure="warn")


def test_parquet_and_sql_stream_match_the_cli(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    src = tmp_path / "in"
    src.mkdir()
    pq.write_table(pa.table({"id": [1, 2], "amount": ["1.5", "oops"]}), src / "a.parquet")
    py = dg.ingest(src, tmp_path / "py", checkpoint=tmp_path / "cp_py", format="parquet",
                   options={"cloudFiles.schemaHints": "amount DOUBLE"})
    cli = run_cli("ingest", str(src), str(tmp_path / "cli"), "--checkpoint",
                  str(tmp_path / "cp_cli"), "--format", "parquet", "--option",
                  "cloudFiles.schemaHints=amount DOUBLE", "--output", "json")
    assert cli.returncode == EXIT_OK, cli.describe()
    assert [(b.rows, b.rescued_rows) for b in py] == \
        [(b["rows"], b["rescued_rows"]) for b in cli.jsonl()] == [(2, 1)]
    got = dg.Table(tmp_path / "py").to_arrow().sort_by("id").to_pylist()
    assert [(r["id"], r["amount"]) for r in got] == [(1, 1.5), (2, None)]
    assert json.loads(got[1]["_rescued_data"])["amount"] == "oops"
    # The same load from SQL in a session: new files only, each once.
    session = dg.Session(warehouse=tmp_path / "wh")
    stmt = (f"INSERT INTO delta.`{tmp_path / 'sql'}` SELECT * FROM STREAM read_files("
            f"'{src}', format => 'parquet', schemaHints => 'amount DOUBLE', "
            f"checkpointLocation => '{tmp_path / 'cp_sql'}')")
    first = session.sql(stmt).to_pylist()
    assert first[0]["num_inserted_rows"] == 2 and first[0]["num_rescued_rows"] == 1
    assert session.sql(stmt).to_pylist()[0]["num_inserted_rows"] == 0
    same = dg.Table(tmp_path / "sql").to_arrow().sort_by("id").to_pylist()
    assert [(r["id"], r["amount"]) for r in same] == [(1, 1.5), (2, None)]
