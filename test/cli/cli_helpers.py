"""Shared helpers for the CLI end-to-end tests: locating the binary and the corpora,
running the CLI with crash detection, the INDEX.json schema rendering, and the canonical
JSON rendering of Arrow values that `deltaguard scan --format jsonl` uses."""

import base64
import datetime as dt
import decimal
import json
import math
import os
import struct
import subprocess
from dataclasses import dataclass

import pyarrow as pa
from deltalake import DeltaTable

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLE_TABLE = os.path.join(REPO_ROOT, "examples", "orders")
CLI_TIMEOUT_S = 300

# Exit codes of the CLI contract.
EXIT_OK = 0
EXIT_REFUSED = 1  # operation refused / check failed (e.g. unsupported table feature)
EXIT_USAGE = 2  # usage or invalid input (bad flags, not a Delta table, missing version)
EXIT_IO = 3  # I/O or internal error (corrupt log/data)


def cli_path():
    """The deltaguard binary: $DELTAGUARD_BIN or <repo>/build/bin/deltaguard."""
    return os.environ.get("DELTAGUARD_BIN") or os.path.join(REPO_ROOT, "build", "bin",
                                                            "deltaguard")


def corpora_dir():
    """The shared corpora: $DELTAGUARD_CORPORA or <repo>/../shared/corpora; None if absent."""
    path = os.environ.get("DELTAGUARD_CORPORA") or os.path.join(REPO_ROOT, "..", "shared",
                                                                "corpora")
    path = os.path.abspath(path)
    return path if os.path.isfile(os.path.join(path, "INDEX.json")) else None


@dataclass
class CliResult:
    args: list
    returncode: int
    stdout: str
    stderr: str

    def describe(self):
        return (f"deltaguard {' '.join(self.args)} -> rc={self.returncode}\n"
                f"--- stderr ---\n{self.stderr[-3000:]}\n--- stdout ---\n{self.stdout[:3000]}")

    def json(self):
        assert self.returncode == 0, self.describe()
        try:
            return json.loads(self.stdout)
        except json.JSONDecodeError as e:
            raise AssertionError(f"stdout is not one JSON document: {e}\n{self.describe()}")

    def jsonl(self):
        assert self.returncode == 0, self.describe()
        rows = []
        for n, line in enumerate(self.stdout.splitlines(), 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise AssertionError(f"line {n} is not JSON ({e}): {line[:300]!r}")
        return rows


def run_cli(*args, timeout=CLI_TIMEOUT_S):
    """Runs the CLI; fails the test on a crash (signal, sanitizer report, uncaught C++
    exception) or an exit code outside the contract (0..3)."""
    args = [str(a) for a in args]
    proc = subprocess.run([cli_path(), *args], capture_output=True, text=True,
                          errors="replace", timeout=timeout)
    res = CliResult(args, proc.returncode, proc.stdout, proc.stderr)
    assert proc.returncode >= 0, f"CLI killed by signal {-proc.returncode}\n{res.describe()}"
    for marker in ("AddressSanitizer", "runtime error:", "terminate called",
                   "Segmentation fault", "Aborted"):
        assert marker not in proc.stderr, f"crash marker {marker!r}\n{res.describe()}"
    assert proc.returncode in (0, 1, 2, 3), f"exit code outside 0..3\n{res.describe()}"
    return res


def assert_error(res, code, *, names=(), contains=(), multiline=False):
    """The contract for failures: exit `code` and one line on stderr that names each of
    `names` (e.g. the table, a file, a feature); `contains` are case-insensitive words.
    With `multiline`, the message may continue on more lines (schemas side by side): the
    first line still starts with "deltaguard:", and names/words may be anywhere."""
    assert res.returncode == code, f"expected exit {code}\n{res.describe()}"
    lines = [l for l in res.stderr.splitlines() if l.strip()]
    assert lines and lines[0].startswith("deltaguard:"), res.describe()
    if not multiline:
        assert len(lines) == 1, f"expected exactly one stderr line, got {len(lines)}\n" + \
            res.describe()
    text = "\n".join(lines)
    for name in names:
        assert str(name) in text, f"stderr does not name {name!r}\n{res.describe()}"
    for word in contains:
        assert word.lower() in text.lower(), f"stderr lacks {word!r}\n{res.describe()}"


# --- INDEX.json schema rendering ----------------------------------------------------------
# INDEX.json renders a schema as `name:type, name:type NOT NULL, ...` with nested types as
# struct<a:t, b:t>, array<t>, map<k,v> and primitive type names as in the Delta JSON.

def render_type(t):
    if isinstance(t, str):
        return t
    kind = t["type"]
    if kind == "struct":
        return "struct<" + render_fields(t["fields"]) + ">"
    if kind == "array":
        return "array<" + render_type(t["elementType"]) + ">"
    if kind == "map":
        return "map<" + render_type(t["keyType"]) + "," + render_type(t["valueType"]) + ">"
    raise ValueError(f"unknown Delta type {t!r}")


def render_fields(fields):
    return ", ".join(
        f"{f['name']}:{render_type(f['type'])}" + ("" if f.get("nullable", True) else " NOT NULL")
        for f in fields)


def render_schema(schema):
    """schema: the Delta schema JSON object {"type":"struct","fields":[...]}."""
    assert schema.get("type") == "struct", f"not a struct schema: {schema!r}"
    return render_fields(schema["fields"])


# --- Canonical JSON values (the `scan --format jsonl` contract) ---------------------------
# decimal -> "123.45"; timestamp -> "2024-01-01T12:00:00.000000Z"; timestamp_ntz -> same
# without Z; date -> "2024-01-01"; binary -> base64; float/double -> number or "NaN",
# "Infinity", "-Infinity"; map -> [{"key":k,"value":v}, ...]; struct -> object; array -> list.

def _iso(d):
    return (f"{d.year:04d}-{d.month:02d}-{d.day:02d}T{d.hour:02d}:{d.minute:02d}:"
            f"{d.second:02d}.{d.microsecond:06d}")


def _float_canon(x, single):
    if x is None or isinstance(x, str):
        return x
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    x = float(x)
    if single:  # compare float32 values at float32 precision
        x = struct.unpack("<f", struct.pack("<f", x))[0]
    return x


def canon_arrow_value(v, t):
    """Python value from pyarrow's to_pylist() -> canonical JSON value for Arrow type t."""
    if v is None:
        return None
    if pa.types.is_struct(t):
        return {t.field(i).name: canon_arrow_value(v.get(t.field(i).name), t.field(i).type)
                for i in range(t.num_fields)}
    if pa.types.is_map(t):
        return [{"key": canon_arrow_value(k, t.key_type),
                 "value": canon_arrow_value(x, t.item_type)} for k, x in v]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [canon_arrow_value(x, t.value_type) for x in v]
    if pa.types.is_decimal(t):
        return format(v, "f") if isinstance(v, decimal.Decimal) else v
    if pa.types.is_timestamp(t):
        if t.tz is not None:
            return _iso(v.astimezone(dt.timezone.utc)) + "Z"
        return _iso(v)
    if pa.types.is_date(t):
        return v.isoformat()
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return base64.b64encode(v).decode("ascii")
    if pa.types.is_floating(t):
        return _float_canon(v, pa.types.is_float32(t))
    return v


def canon_cli_value(v, t):
    """A value parsed from the CLI's jsonl -> the same canonical form (only floats need
    normalising: float32 precision and the NaN/Infinity strings)."""
    if v is None:
        return None
    if pa.types.is_struct(t) and isinstance(v, dict):
        return {t.field(i).name: canon_cli_value(v.get(t.field(i).name), t.field(i).type)
                for i in range(t.num_fields)}
    if pa.types.is_map(t) and isinstance(v, list):
        return [{"key": canon_cli_value(e.get("key"), t.key_type),
                 "value": canon_cli_value(e.get("value"), t.item_type)}
                if isinstance(e, dict) else e for e in v]
    if (pa.types.is_list(t) or pa.types.is_large_list(t)) and isinstance(v, list):
        return [canon_cli_value(x, t.value_type) for x in v]
    if pa.types.is_floating(t) and isinstance(v, (int, float)):
        return _float_canon(v, pa.types.is_float32(t))
    return v


def sort_key(row):
    return json.dumps(row, sort_keys=True, default=str)


def canonical_rows_from_arrow(table):
    schema = table.schema
    rows = []
    for r in table.to_pylist():
        rows.append({f.name: canon_arrow_value(r[f.name], f.type) for f in schema})
    return sorted(rows, key=sort_key)


def canonical_rows_from_cli(rows, schema):
    out = []
    for r in rows:
        extra = set(r) - set(schema.names)
        assert not extra, f"CLI row has columns not in the table schema: {sorted(extra)}"
        out.append({f.name: canon_cli_value(r.get(f.name), f.type) for f in schema})
    return sorted(out, key=sort_key)


def assert_same_rows(actual, expected, context=""):
    """Compares two sorted canonical row lists with a readable first difference."""
    if actual == expected:
        return
    msg = [f"{context}: CLI returned {len(actual)} rows, deltalake {len(expected)}"]
    for a, e in zip(actual, expected):
        if a != e:
            cols = [k for k in e if a.get(k) != e.get(k)]
            msg.append(f"first differing row, columns {cols}:\n  deltaguard: "
                       f"{json.dumps(a, default=str)[:1500]}\n  deltalake:  "
                       f"{json.dumps(e, default=str)[:1500]}")
            break
    raise AssertionError("\n".join(msg))


def deltalake_rows(path, version=None, columns=None):
    table = DeltaTable(path, version=version).to_pyarrow_table()
    table = pa.table(table)
    if columns:
        table = table.select(columns)
    return table


def assert_scan_matches(path, version=None, columns=None):
    expected_table = deltalake_rows(path, version, columns)
    args = ["scan", path, "--format", "jsonl"]
    if version is not None:
        args += ["--version", version]
    if columns:
        args += ["--columns", ",".join(columns)]
    res = run_cli(*args)
    actual = canonical_rows_from_cli(res.jsonl(), expected_table.schema)
    expected = canonical_rows_from_arrow(expected_table)
    assert_same_rows(actual, expected, f"{os.path.basename(path)}@{version}")
