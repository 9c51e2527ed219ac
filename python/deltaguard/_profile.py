"""Column profiles (docs/profiles.md): ``dg.profile(data)`` for any Arrow producer and
``Table.profile()`` / ``Table.profiles()`` for the profiles a table keeps per commit.
The JSON behind them is the CLI's ``deltaguard profile --show --format json``."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any, Iterator, Mapping

from . import _native

if TYPE_CHECKING:  # pragma: no cover
    from ._table import Table


class Profile(Mapping[str, dict]):
    """The profile of a set of rows: a commit's added rows, or any data.

    A read-only mapping from column path to its statistics (``rows``, ``nulls``,
    ``null_rate``, ``min``, ``max``, ``mean``, ``stddev``, ``quantiles``, ``distinct``,
    ``top``, ``hours``, ``length``, ``patterns``, ... as apply to the column's kind).
    """

    def __init__(self, data: dict) -> None:
        self._data = data

    @property
    def version(self) -> int | None:
        """The table version profiled (None for data that is not a commit)."""
        v = self._data.get("version", -1)
        return None if v < 0 else v

    @property
    def timestamp(self) -> int:
        """The commit's time in milliseconds since the epoch (0 for data)."""
        return self._data.get("timestamp", 0)

    @property
    def operation(self) -> str:
        return self._data.get("operation", "")

    @property
    def rows(self) -> int:
        return self._data.get("rows", 0)

    def __getitem__(self, column: str) -> dict:
        columns = self._data["columns"]
        if column in columns:
            return columns[column]
        for name, value in columns.items():
            if name.lower() == column.lower():
                return value
        raise KeyError(column)

    def __iter__(self) -> Iterator[str]:
        return iter(self._data["columns"])

    def __len__(self) -> int:
        return len(self._data["columns"])

    def to_dict(self) -> dict:
        """``{column: {"rows", "nulls", "min", "max", "distinct", "quantiles", "top",
        ...}}``."""
        return json.loads(json.dumps(self._data["columns"]))

    def __repr__(self) -> str:
        what = f"version {self.version}" if self.version is not None else "data"
        return f"Profile({what}, {self.rows} rows, {len(self)} columns)"


def profile(data: Any) -> Profile:
    """The profile of ``data`` (any Arrow producer: pyarrow Table, RecordBatch,
    RecordBatchReader, a pandas/polars frame through the Arrow C stream)."""
    return Profile(json.loads(_native.profile_data(data)))


def table_profiles(table: "Table", start: int = 0, end: int | None = None) -> list[Profile]:
    raw = _native.read_profiles(table.path, start, -1 if end is None else end)
    return [Profile(p) for p in json.loads(raw)]


def table_profile(table: "Table", version: int | None = None) -> Profile:
    v = table.version if version is None else version
    found = table_profiles(table, v, v)
    if not found:
        from .errors import NotFoundError

        raise NotFoundError(
            f"table '{table.path}' has no profile of version {v}; "
            f"Table.backfill_profiles() (or `deltaguard profile {table.path}`) computes it")
    return found[0]


def backfill(table: "Table", start: int = 0, end: int | None = None) -> dict:
    return _native.backfill_profiles(table.path, start, -1 if end is None else end)


class Finding:
    """One detector's verdict on one column (``column`` "" for the table)."""

    def __init__(self, data: dict) -> None:
        self.test: str = data["test"]
        self.column: str = data["column"]
        self.outcome: str = data["outcome"]  # passed | warning | failed | skipped
        self.observed: str = data["observed"]
        self.baseline: str = data["baseline"]
        self.threshold: str = data["threshold"]
        self.message: str = data["message"]
        self.values: list[str] = data["values"]
        self.factor: float | None = data["factor"]
        self.hours: int | None = data["hours"]
        # Row tests: the rows breaking the test (samples are in ``values``).
        self.violating_rows: int | None = data.get("violating_rows")
        # Where the test is defined ("tests.yml:12"); "" for the default detectors.
        self.location: str = data.get("location", "")

    def __repr__(self) -> str:
        where = f" {self.column}" if self.column else ""
        return f"Finding({self.outcome} {self.test}{where})"


class CheckReport:
    """What ``deltaguard check`` reports: a commit against its baseline."""

    def __init__(self, json_text: str, rendered: str, format: str) -> None:
        self._data = json.loads(json_text)
        self._rendered = {format: rendered, "json": json_text}
        self.version: int = self._data["version"]
        self.rows: int = self._data["rows"]
        self.baseline: str = self._data["baseline"]["spec"]
        self.baseline_versions: list[int] = self._data["baseline"]["versions"]
        self.tests: str = self._data.get("tests", "")
        self.outcome: str = self._data["outcome"]
        self.counts: dict[str, int] = self._data["counts"]
        self.findings: list[Finding] = [Finding(f) for f in self._data["findings"]]

    @property
    def passed(self) -> bool:
        """No test failed (warnings allowed), as the CLI's exit code 0."""
        return self.outcome != "failed"

    @property
    def raised(self) -> list[Finding]:
        """The failed and warning findings."""
        return [f for f in self.findings if f.outcome in ("failed", "warning")]

    def to_dict(self) -> dict:
        return json.loads(self._rendered["json"])

    def render(self, format: str = "text") -> str:
        """The CLI's output in ``format`` (text, json, junit or github)."""
        if format not in self._rendered:
            raise ValueError(f"render this report with format {format!r} by "
                             f"Table.check(format={format!r})")
        return self._rendered[format]

    def __str__(self) -> str:
        return self._rendered.get("text", self._rendered["json"]).rstrip("\n")

    def __repr__(self) -> str:
        return f"CheckReport(version {self.version}: {self.outcome}, {self.counts})"


def check(table: "Table", version: int | None = None, baseline: str | None = None,
          format: str = "text", tests: "str | os.PathLike[str] | None" = None,
          contract_object: str = "") -> CheckReport:
    json_text, rendered = _native.check_table(
        table.path, version, baseline, format,
        os.fspath(tests) if tests is not None else None, contract_object)
    return CheckReport(json_text, rendered, format)
