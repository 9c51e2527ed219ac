"""Spark SQL's Delta dialect from Python, as ``deltaguard sql`` runs it."""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from typing import Any, Mapping

import pyarrow as pa

from . import _native
from ._table import _reader


@dataclass
class StatementResult:
    """One statement's outcome: its rows (None when it has none, as for CREATE), the
    one-line message the CLI prints, warnings, and the version a write committed."""

    kind: str
    message: str
    rows: pa.Table | None
    version: int | None = None
    warnings: list[str] = field(default_factory=list)


class Session:
    """A SQL session: a warehouse (``database.table`` names), Spark settings (``conf``
    and ``SET``), ``USE``, temp views, and Python data registered as views."""

    def __init__(self, warehouse: "str | os.PathLike[str]" = "warehouse",
                 conf: Mapping[str, str] | None = None) -> None:
        self._native = _native.NativeSession(os.fspath(warehouse), dict(conf or {}))

    def execute(self, script: str) -> StatementResult:
        """Run every statement of ``script`` (stopping at the first error) and return
        the last statement's result. Warnings (e.g. MERGE dropping a source column)
        are also issued as Python warnings."""
        outcomes = self._native.execute(script)
        results = []
        for kind, message, warns, rows, version in outcomes:
            for w in warns:
                warnings.warn(w, stacklevel=2)
            table = _reader(rows).read_all() if rows is not None else None
            results.append(StatementResult(kind, message, table, version, list(warns)))
        if not results:
            return StatementResult("EMPTY", "", None)
        return results[-1]

    def sql(self, script: str) -> pa.Table:
        """The rows of the last statement as a pyarrow Table (empty, with no columns,
        for a statement without rows)."""
        rows = self.execute(script).rows
        return rows if rows is not None else pa.table({})

    def register(self, name: str, data: Any) -> None:
        """Make ``data`` (any Arrow producer) queryable as the temp view ``name``. The
        data is read into memory now."""
        self._native.register(name, data)

    def unregister(self, name: str) -> None:
        self._native.unregister(name)

    @property
    def current_database(self) -> str:
        return self._native.current_database


def sql(script: str, warehouse: "str | os.PathLike[str]" = "warehouse",
        conf: Mapping[str, str] | None = None) -> pa.Table:
    """Run ``script`` in a new :class:`Session` and return the last statement's rows."""
    return Session(warehouse, conf).sql(script)
