"""deltaguard.Table: a Delta table at one version, read as Arrow (zero-copy through
the Arrow PyCapsule interface), with its history, its description and the operations
that change it (MERGE, UPDATE, DELETE, ALTER)."""

from __future__ import annotations

import datetime as _dt
import json
import os
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import pyarrow as pa  # loads Arrow C++ before the native module links against it

from . import _native
from ._schema import Schema

if TYPE_CHECKING:  # pragma: no cover
    from ._alter import Alter
    from ._drift import DriftReport
    from ._merge import MergeBuilder
    from ._profile import CheckReport, Profile


class _Capsule:
    """Hands a native stream capsule to a consumer that asks for __arrow_c_stream__."""

    __slots__ = ("_capsule",)

    def __init__(self, capsule: object) -> None:
        self._capsule = capsule

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        capsule, self._capsule = self._capsule, None
        if capsule is None:
            raise RuntimeError("an Arrow stream can be consumed only once")
        return capsule


def _reader(capsule: object) -> pa.RecordBatchReader:
    return pa.RecordBatchReader.from_stream(_Capsule(capsule))


def _table_path(target: "str | os.PathLike[str] | Table") -> str:
    if isinstance(target, Table):
        return target.path
    return os.fspath(target)


def _timestamp_args(timestamp: Any) -> tuple[int | None, str | None]:
    """(epoch ms, text) for Table(timestamp=...): a datetime (naive means UTC, as the
    CLI reads a timestamp without offset), epoch milliseconds, or the CLI's text."""
    if timestamp is None:
        return None, None
    if isinstance(timestamp, _dt.datetime):
        if timestamp.tzinfo is None:
            timestamp = timestamp.replace(tzinfo=_dt.timezone.utc)
        return int(timestamp.timestamp() * 1000), None
    if isinstance(timestamp, _dt.date):
        return None, timestamp.isoformat()
    if isinstance(timestamp, bool):
        raise TypeError("timestamp must be a datetime, a date, epoch ms or a string")
    if isinstance(timestamp, int):
        return timestamp, None
    if isinstance(timestamp, str):
        return None, timestamp
    raise TypeError("timestamp must be a datetime, a date, epoch ms or a string")


class Table:
    """A Delta table at one version (the latest unless ``version`` or ``timestamp``
    picks an older one).

    Reads use that version until :meth:`refresh`; operations that commit (``merge``,
    ``update``, ``delete``, ``alter``) act on the latest version and then refresh.
    """

    def __init__(
        self,
        path: "str | os.PathLike[str]",
        version: int | None = None,
        timestamp: "_dt.datetime | _dt.date | int | str | None" = None,
        *,
        conf: Mapping[str, str] | None = None,
    ) -> None:
        if version is not None and timestamp is not None:
            raise ValueError("pass version or timestamp, not both")
        if version is not None and (isinstance(version, bool) or not isinstance(version, int)):
            raise TypeError("version must be an int")
        ms, text = _timestamp_args(timestamp)
        self._conf = dict(conf or {})
        self._native = _native.open_table(os.fspath(path), version, ms, text)

    @classmethod
    def for_name(
        cls,
        name: str,
        warehouse: "str | os.PathLike[str]" = "warehouse",
        version: int | None = None,
        timestamp: Any = None,
        *,
        conf: Mapping[str, str] | None = None,
    ) -> "Table":
        """The table ``database.table`` (or ``table`` in ``default``) of a warehouse, as
        ``deltaguard sql --warehouse`` names it."""
        parts = name.split(".")
        if not 1 <= len(parts) <= 2 or not all(parts):
            raise ValueError(f"table name {name!r} must be 'table' or 'database.table'")
        path = _native.resolve_table_name(parts, os.fspath(warehouse))
        return cls(path, version=version, timestamp=timestamp, conf=conf)

    # --- what the table is --------------------------------------------------------
    @property
    def path(self) -> str:
        """The table's directory (absolute)."""
        return self._native.table_root

    @property
    def version(self) -> int:
        return self._native.version

    @property
    def timestamp(self) -> _dt.datetime:
        """When this version was committed (UTC)."""
        return _dt.datetime.fromtimestamp(self._native.timestamp_ms / 1000, _dt.timezone.utc)

    @property
    def schema(self) -> Schema:
        return Schema(self._native.schema_json)

    @property
    def partition_columns(self) -> list[str]:
        return list(self._native.partition_columns)

    @property
    def properties(self) -> dict[str, str]:
        return dict(self._native.properties)

    def describe(self) -> dict:
        """What ``deltaguard describe --format json`` prints, as a dict."""
        return json.loads(self._native.describe("json"))

    def history(self) -> list[dict]:
        """One dict per commit, oldest first, as ``deltaguard history --format json``."""
        return json.loads(self._native.history("json"))

    def refresh(self) -> "Table":
        """Load the latest version (returns self)."""
        self._native = _native.open_table(self.path, None, None, None)
        return self

    # --- reading ------------------------------------------------------------------
    def to_arrow(
        self,
        columns: Sequence[str] | None = None,
        filter: str | None = None,
        limit: int | None = None,
    ) -> pa.Table:
        """The rows as a pyarrow Table. ``columns`` selects (dotted paths reach into
        structs); ``filter`` is a Spark SQL predicate (``"amount > 10 AND country =
        'NL'"``), pruning files by their statistics as a SQL query does."""
        stream = self._native.collect(list(columns or []), filter, limit)
        return _reader(stream).read_all()

    def to_batches(
        self, columns: Sequence[str] | None = None, filter: str | None = None
    ) -> pa.RecordBatchReader:
        """A streaming reader: batches are decoded as they are pulled."""
        stream = self._native.scan(list(columns or []), filter, None)
        return _reader(stream)

    def to_pandas(self, columns: Sequence[str] | None = None, filter: str | None = None,
                  **kwargs: Any):
        return self.to_arrow(columns, filter).to_pandas(**kwargs)

    def to_polars(self, columns: Sequence[str] | None = None, filter: str | None = None):
        import polars as pl

        return pl.from_arrow(self.to_arrow(columns, filter))

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        # requested_schema is a hint the protocol lets a producer ignore; the columns
        # come in the table's own Arrow types.
        return self._native.scan([], None, None)

    # --- governance ---------------------------------------------------------------
    def profile(self, version: int | None = None) -> "Profile":
        """The stored profile of ``version`` (default: the current one): what the rows
        that commit added look like, per column (docs/profiles.md)."""
        from ._profile import table_profile

        return table_profile(self, version)

    def profiles(self, start: int = 0, end: int | None = None) -> "list[Profile]":
        """The stored profiles of versions ``start`` .. ``end``, ascending."""
        from ._profile import table_profiles

        return table_profiles(self, start, end)

    def check(self, version: int | None = None, baseline: str | None = None,
              format: str = "text", tests: "str | os.PathLike[str] | None" = None,
              contract_object: str = "") -> "CheckReport":
        """Data tests of ``version`` (default the latest) against the profiles of the
        commits before it (``deltaguard check``, docs/data_tests.md): null-rate
        shifts, scale changes, time-zone shifts, new categories, format changes,
        distribution shifts, volume anomalies. ``tests`` is a tests file (or an ODCS
        contract) adding named tests and tuning; ``baseline`` is ``trailing:N``
        commits or ``trailing:Nd`` days (default: the tests file's, else
        ``trailing:14``)."""
        from ._profile import check

        return check(self, version, baseline, format, tests, contract_object)

    def backfill_profiles(self, start: int = 0, end: int | None = None) -> dict:
        """Profile every commit in the range that has no stored profile, from the files
        it added (``deltaguard profile TABLE``). Returns the versions ``profiled``,
        ``present``, ``no_data`` and ``unavailable``."""
        from ._profile import backfill

        return backfill(self, start, end)

    def drift(
        self,
        data: Any,
        *,
        mode: str | None = None,
        fail_on: str | None = None,
        input_format: str | None = None,
        header: bool = True,
        delimiter: str | None = None,
    ) -> "DriftReport":
        """How ``data`` differs from this version's schema, change by change, as
        ``deltaguard drift TABLE INPUT`` classifies it (docs/drift.md). ``data`` is any
        Arrow producer (its schema and first batch are read), a data file, directory or
        glob (or a list of them; ``input_format``, ``header`` and ``delimiter`` as for
        the CLI), or a :class:`Schema`. ``mode`` judges with a schema-registry mode
        (transitive modes against every earlier schema of the table); ``fail_on`` is
        ``"breaking"``, ``"high"`` or ``"any"``. Nothing is written."""
        from ._drift import table_drift

        return table_drift(self, data, mode=mode, fail_on=fail_on,
                           input_format=input_format, header=header, delimiter=delimiter)

    # --- changing the table -------------------------------------------------------
    def merge(
        self,
        source: Any,
        predicate: str,
        source_alias: str = "source",
        target_alias: str = "target",
        *,
        contract: Any = None,
        contract_object: str | None = None,
    ) -> "MergeBuilder":
        """Start a MERGE of ``source`` (any Arrow producer) into this table, as
        delta-spark's ``DeltaTable.merge``; finish with ``.execute()``.

        ``contract`` (a :class:`Contract` or a contract file's path) conforms the source
        to it first, as ``write_table(contract=)`` does (docs/contracts.md "MERGE"); a
        table that carries a contract follows it without being told."""
        from ._merge import MergeBuilder

        builder = MergeBuilder(self, source, predicate, source_alias, target_alias)
        if contract is not None:
            builder.with_contract(contract, contract_object)
        return builder

    def update(
        self,
        set: Mapping[str, str] | None = None,
        where: str | None = None,
        *,
        updates: Mapping[str, str] | None = None,
    ) -> dict:
        """UPDATE: ``set`` maps columns to Spark SQL expressions. Returns the metrics."""
        assignments = dict(set or {})
        assignments.update(updates or {})
        if not assignments:
            raise ValueError("update needs at least one column in set=")
        metrics = _native.update(self.path, list(assignments.items()), where or "", self._conf)
        self.refresh()
        return metrics

    def delete(self, where: str | None = None) -> dict:
        """DELETE the rows matching ``where`` (every row when None). Returns the metrics."""
        metrics = _native.delete(self.path, where or "", self._conf)
        self.refresh()
        return metrics

    def vacuum(self, retain_hours: float | None = None, dry_run: bool = False) -> pa.Table:
        """VACUUM: delete the files no version within the retention references (the
        table's ``delta.deletedFileRetentionDuration``, 7 days, unless
        ``retain_hours``); ``dry_run`` only lists them. Returns the rows
        ``VACUUM`` returns in SQL (docs/vacuum.md)."""
        from ._sql import Session

        statement = "VACUUM delta." + _native.quote_identifier(self.path)
        if retain_hours is not None:
            statement += f" RETAIN {float(retain_hours)!r} HOURS"
        if dry_run:
            statement += " DRY RUN"
        rows = Session(conf=self._conf).execute(statement).rows
        self.refresh()
        return rows if rows is not None else pa.table({})

    @property
    def alter(self) -> "Alter":
        """Schema evolution and constraints: ``t.alter.add_columns("c INT")``, ..."""
        from ._alter import Alter

        return Alter(self)

    def __repr__(self) -> str:
        return f"Table({self.path!r}, version={self.version})"
