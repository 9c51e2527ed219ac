"""Column profiles from Python (docs/profiles.md): dg.profile(data) for any Arrow
producer, Table.profile()/profiles() for what writes kept, backfill for tables whose
profiles were off; the JSON equals the CLI's `deltaguard profile --show --format json`."""

import json

import pyarrow as pa
import pytest

import deltaguard as dg
from cli_helpers import EXIT_OK, run_cli


def test_profile_of_data():
    data = pa.table({"amount": [100.0, 250.0, None, 50.0],
                     "country": ["US", "DE", "US", "United States"],
                     "at": pa.array([0, 3_600_000_000, 7_200_000_000, None],
                                    pa.timestamp("us", tz="UTC"))})
    p = dg.profile(data)
    assert p.version is None and p.rows == 4 and len(p) == 3
    d = p.to_dict()
    assert d["amount"]["nulls"] == 1 and d["amount"]["min"] == 50.0
    assert d["amount"]["mean"] == pytest.approx(400 / 3)
    assert d["amount"]["quantiles"]["p50"] == 100.0
    assert d["country"]["top"][0] == {"value": "US", "count": 2}
    assert d["country"]["patterns"][0] == {"value": "A+", "count": 3}
    assert d["country"]["length"] == {"min": 2, "max": 13, "mean": pytest.approx(4.75)}
    assert d["at"]["hours"][:3] == [1, 1, 1] and sum(d["at"]["hours"]) == 3
    assert p["COUNTRY"]["distinct"] == 3
    with pytest.raises(KeyError):
        p["missing"]
    with pytest.raises(dg.InvalidInputError):
        dg.profile(42)


def test_table_profiles_match_the_cli(tmp_path):
    path = str(tmp_path / "orders")
    dg.write_table(path, pa.table({"id": [1, 2, 3], "status": ["new", "new", None]}))
    dg.write_table(path, pa.table({"id": [4], "status": ["done"]}))
    t = dg.Table(path)
    assert [p.version for p in t.profiles()] == [0, 1]
    assert t.profile().rows == 1 and t.profile(0)["status"]["nulls"] == 1
    res = run_cli("profile", path, "--show", "--format", "json")
    assert res.returncode == EXIT_OK, res.describe()
    assert json.loads(res.stdout)[0]["columns"] == t.profile(0).to_dict()
    with pytest.raises(dg.NotFoundError, match="no profile of version 7"):
        t.profile(7)


def test_backfill_when_profiles_were_off(tmp_path):
    path = str(tmp_path / "legacy")
    dg.write_table(path, pa.table({"x": [1, 2]}),
                   properties={"deltaguard.profiles": "false"})
    t = dg.Table(path)
    assert t.profiles() == []
    assert t.backfill_profiles() == {"profiled": [0], "present": [], "no_data": [],
                                     "unavailable": []}
    assert t.profile(0)["x"]["max"] == 2
    assert t.backfill_profiles()["present"] == [0]
