"""End-to-end: `deltaguard describe/scan/history` over every Delta table of the shared
corpora, checked against the expectations in INDEX.json (version, row count, schema,
partition columns, expected failures)."""

import json
import os

import pytest

from cli_helpers import (EXIT_IO, EXIT_OK, EXIT_REFUSED, assert_error, corpora_dir,
                         render_schema, run_cli)

CORPORA = corpora_dir()
if CORPORA is None:
    pytest.skip("corpora not found (set DELTAGUARD_CORPORA or place shared/corpora beside "
                "the repo)", allow_module_level=True)

with open(os.path.join(CORPORA, "INDEX.json"), encoding="utf-8") as f:
    TABLES = [e for e in json.load(f) if "latest_version" in e]

# Reader features this engine must refuse (exit 1, naming the feature).
MUST_REFUSE = {"catalogManaged", "catalogOwned", "catalogOwned-preview", "blahabl"}
# Reader features the engine may refuse for now; when it reads the table, the result must
# be right.
MAY_REFUSE = {"geospatial", "variantType", "variantType-preview", "variantShredding-preview"}
# Tables whose data cannot be read although their files are present: scan must fail
# cleanly with exit 3.
UNREADABLE_DATA = {
    # The DV of its data file has an absolute 'p' path that is a test-harness template
    # ('{{FOLDER_WITH_SPECIAL_CHAR}}/...'), substituted by the origin's test at run time.
    "delta/table-with-dv-special-char",
}
# Column types whose data the scan may refuse (exit 1, "not supported").
UNSUPPORTED_SCAN_TYPES = ("variant", "geometry", "geography")


def table_id(e):
    return e["path"]


def reader_features(e):
    return set((e.get("protocol") or {}).get("readerFeatures") or [])


def classify(e):
    """'error', 'refuse', 'maybe' or 'ok' for describe."""
    if e.get("errors_when_replayed"):
        return "error"
    if reader_features(e) & MUST_REFUSE:
        return "refuse"
    if reader_features(e) & MAY_REFUSE:
        return "maybe"
    return "ok"


def table_path(e):
    return os.path.join(CORPORA, e["path"])


def check_refusal(res, e, features):
    """Exit 1 naming the table and an unsupported reader feature (or the reader version,
    when it is above 3 and so refused before features are looked at)."""
    assert_error(res, EXIT_REFUSED, names=[os.path.basename(e["path"])])
    named = sorted(f for f in reader_features(e) & features if f in res.stderr)
    if e["protocol"]["minReaderVersion"] > 3 and "reader version" in res.stderr:
        named.append(f"reader version {e['protocol']['minReaderVersion']}")
    assert named, f"refusal does not name any of {sorted(reader_features(e) & features)}\n" + \
        res.describe()


def check_describe(doc, e):
    assert doc["version"] == e["latest_version"]
    # INDEX has no count where data files and numRecords stats are both missing: describe
    # reads only the log, so it must still succeed and say the count is unknown.
    assert doc["num_rows"] == e["row_count_latest"]
    assert render_schema(doc["schema"]) == e["schema_latest"]
    assert list(doc["partition_columns"]) == list(e["partition_columns"])
    proto = doc["protocol"]
    assert proto["minReaderVersion"] == e["protocol"]["minReaderVersion"]
    assert proto["minWriterVersion"] == e["protocol"]["minWriterVersion"]
    if "readerFeatures" in e["protocol"]:
        assert sorted(proto.get("readerFeatures") or []) == \
            sorted(e["protocol"]["readerFeatures"])
    for key in ("num_files", "timestamp"):
        assert isinstance(doc[key], int), f"{key} is not an int: {doc[key]!r}"
    assert isinstance(doc["properties"], dict)
    assert isinstance(doc["features"], list)


@pytest.mark.parametrize("entry", TABLES, ids=table_id)
def test_describe(entry):
    res = run_cli("describe", table_path(entry), "--format", "json")
    kind = classify(entry)
    if kind == "error":
        assert res.returncode in (EXIT_IO, EXIT_REFUSED), res.describe()
        assert_error(res, res.returncode, names=[os.path.basename(entry["path"])])
        return
    if kind == "refuse":
        check_refusal(res, entry, MUST_REFUSE)
        return
    if kind == "maybe" and res.returncode == EXIT_REFUSED:
        check_refusal(res, entry, MAY_REFUSE)
        return
    assert res.returncode == EXIT_OK, res.describe()
    check_describe(res.json(), entry)


def schema_has_unsupported_type(e):
    schema = e.get("schema_latest") or ""
    return any(t in schema for t in UNSUPPORTED_SCAN_TYPES)


@pytest.mark.parametrize("entry", TABLES, ids=table_id)
def test_scan(entry):
    res = run_cli("scan", table_path(entry), "--format", "jsonl")
    kind = classify(entry)
    name = os.path.basename(entry["path"])
    if kind == "error":
        assert res.returncode in (EXIT_IO, EXIT_REFUSED), res.describe()
        assert_error(res, res.returncode, names=[name])
        return
    if kind == "refuse":
        check_refusal(res, entry, MUST_REFUSE)
        return
    if kind == "maybe" and res.returncode == EXIT_REFUSED and \
            any(f in res.stderr for f in reader_features(entry) & MAY_REFUSE):
        check_refusal(res, entry, MAY_REFUSE)
        return
    if schema_has_unsupported_type(entry) and res.returncode == EXIT_REFUSED:
        assert_error(res, EXIT_REFUSED, contains=["not supported"])
        return
    if entry["path"] in UNREADABLE_DATA:
        assert_error(res, EXIT_IO, names=[name])
        return
    if entry["row_count_note"] is not None:
        # Data files are absent: reading must fail cleanly (or succeed with no files).
        if res.returncode == EXIT_OK:
            assert res.jsonl() == [], "scan of a table with absent data files returned rows"
        else:
            assert_error(res, EXIT_IO)
        return
    rows = res.jsonl()
    assert len(rows) == entry["row_count_latest"]
    assert all(isinstance(r, dict) for r in rows)
    if rows:
        top = [f.split(":", 1)[0] for f in split_top_level(entry["schema_latest"])]
        assert set(rows[0]) == set(top), f"row columns {sorted(rows[0])} != schema {top}"


def split_top_level(rendered):
    """Splits an INDEX schema string at top-level ', ' (not inside <...>)."""
    parts, depth, cur = [], 0, ""
    i = 0
    while i < len(rendered):
        c = rendered[i]
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        if depth == 0 and rendered.startswith(", ", i):
            parts.append(cur)
            cur = ""
            i += 2
            continue
        cur += c
        i += 1
    if cur:
        parts.append(cur)
    return parts


def latest_commit_file(e):
    return os.path.join(table_path(e), "_delta_log", f"{e['latest_version']:020d}.json")


@pytest.mark.parametrize(
    "entry", [e for e in TABLES if classify(e) == "ok" and os.path.exists(latest_commit_file(e))],
    ids=table_id)
def test_history(entry):
    res = run_cli("history", table_path(entry), "--format", "json")
    assert res.returncode == EXIT_OK, res.describe()
    hist = res.json()
    assert isinstance(hist, list) and hist
    versions = [h["version"] for h in hist]
    assert max(versions) == entry["latest_version"]
    assert len(set(versions)) == len(versions), f"duplicate versions in history: {versions}"
    for h in hist:
        assert isinstance(h["timestamp"], int)
