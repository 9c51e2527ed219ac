"""Helpers for write tests: input files in every format, and the table's state."""

import json
import os

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
from deltalake import DeltaTable

from cli_helpers import run_cli


def write_parquet(path, table):
    pq.write_table(table, str(path))
    return str(path)


def write_csv(path, table, header=True):
    pacsv.write_csv(table, str(path),
                    pacsv.WriteOptions(include_header=header))
    return str(path)


def write_ndjson(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    return str(path)


def write_ipc(path, table):
    with ipc.new_file(str(path), table.schema) as w:
        w.write_table(table)
    return str(path)


def log_versions(table_path):
    log = os.path.join(table_path, "_delta_log")
    if not os.path.isdir(log):
        return []
    return sorted(int(n[:20]) for n in os.listdir(log)
                  if n.endswith(".json") and n[:20].isdigit())


def data_files(table_path):
    """The table's Parquet data files: directories whose name starts with `_`
    (`_delta_log`, the profile table under `_deltaguard`) are not table data."""
    out = []
    for root, dirs, files in os.walk(table_path):
        dirs[:] = [d for d in dirs if not d.startswith("_")]
        out += [os.path.join(root, f) for f in files if f.endswith(".parquet")]
    return sorted(out)


def commit_actions(table_path, version):
    with open(os.path.join(table_path, "_delta_log", f"{version:020d}.json")) as f:
        return [json.loads(l) for l in f if l.strip()]


def dg_write(table, *files, ok=True, **flags):
    args = ["write", table, *files]
    for k, v in flags.items():
        flag = "--" + k.replace("_", "-")
        if v is True:
            args.append(flag)
        elif isinstance(v, (list, tuple)):
            for item in v:
                args += [flag, item]
        else:
            args += [flag, v]
    res = run_cli(*args)
    if ok:
        assert res.returncode == 0, res.describe()
    return res


def dg_rows(table, **kw):
    """deltaguard's scan as a list of dicts (JSON values), sorted."""
    res = run_cli("scan", table, "--format", "jsonl")
    return sorted(res.jsonl(), key=lambda r: json.dumps(r, sort_keys=True))


def deltalake_table(table):
    return DeltaTable(table).to_pyarrow_table()


def dg_schema(table):
    res = run_cli("describe", table, "--format", "json")
    assert res.returncode == 0, res.describe()
    return json.loads(res.stdout)
