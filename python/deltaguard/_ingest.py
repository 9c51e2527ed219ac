"""Incremental ingestion with Auto Loader's semantics (docs/ingest.md): the new files of
a directory into a Delta table, one commit per micro-batch, every field that does not
fit kept in the rescued column, exactly once across crashes."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Mapping

from . import _native
from ._write import Quarantine


@dataclass(frozen=True)
class BatchProgress:
    """One micro-batch, as ``deltaguard ingest --output json`` prints it."""

    batch: int
    table_version: int  # -1: nothing committed (a replayed batch already in the table)
    replayed: bool
    files: int
    rows: int
    bytes: int
    rescued_rows: int
    malformed_rows: int
    dropped_rows: int
    quarantined_rows: int
    schema_version: int
    backlog_files: int  # listed files still waiting after this batch
    seconds: float
    warnings: list[str] = field(default_factory=list)


def ingest(
    source: "str | os.PathLike[str]",
    table: "str | os.PathLike[str]",
    *,
    checkpoint: "str | os.PathLike[str]",
    format: str | None = None,
    options: Mapping[str, str] | None = None,
    schema: str | None = None,
    trigger: str = "available-now",
    check: "str | os.PathLike[str] | None" = None,
    on_check_failure: "str | Quarantine" = "fail",
    baseline: str | None = None,
) -> list[BatchProgress]:
    """Ingest the new files of ``source`` into ``table`` (created by the first batch).

    ``options`` take Auto Loader's names (``cloudFiles.schemaEvolutionMode``,
    ``cloudFiles.schemaHints``, ``rescuedDataColumn``, ``mode``, ...); an unknown key
    raises :class:`InvalidInputError`. ``trigger`` is ``"available-now"`` (the backlog
    in batches), ``"once"`` (one batch) or ``"continuous=10s"`` (until Ctrl-C).
    Returns the progress of each committed batch. New columns under ``addNewColumns``
    raise :class:`SchemaMismatchError` after recording them in the schema location;
    calling again picks them up.
    """
    opts = {str(k): str(v) for k, v in (options or {}).items()}
    if format is not None:
        opts["cloudFiles.format"] = format
    if schema is not None:
        opts["schema"] = schema
    quarantine = None
    if check is None and (on_check_failure != "fail" or baseline is not None):
        raise ValueError("on_check_failure and baseline need check='auto' or a tests file")
    action = "fail"
    if isinstance(on_check_failure, Quarantine):
        action, quarantine = "quarantine", os.fspath(on_check_failure.table)
    elif on_check_failure in ("fail", "warn"):
        action = on_check_failure
    else:
        raise ValueError("on_check_failure must be 'fail', 'warn' or "
                         "deltaguard.Quarantine(table)")
    raw = _native.ingest(os.fspath(source), os.fspath(table), os.fspath(checkpoint), opts,
                         trigger, None if check is None else os.fspath(check), action,
                         quarantine, baseline)
    return [BatchProgress(**json.loads(line)) for line in raw]
