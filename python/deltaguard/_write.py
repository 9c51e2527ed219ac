"""deltaguard.write_table and create_table: writes with the CLI's enforcement."""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from . import _native
from ._schema import Schema
from ._table import Table, _table_path

if TYPE_CHECKING:  # pragma: no cover
    from ._contract import Contract


@dataclass(frozen=True)
class Quarantine:
    """``on_violation=Quarantine("path/to/quarantine")``: rows that violate a NOT NULL,
    CHECK or CHAR/VARCHAR constraint go to that table (created when absent, with the
    constraint and the time of each row); the other rows are committed."""

    table: "str | os.PathLike[str]"


_MODES = ("append", "overwrite", "error", "errorifexists", "ignore")


def write_table(
    target: "str | os.PathLike[str] | Table",
    data: Any,
    mode: str = "append",
    *,
    merge_schema: bool | None = None,
    overwrite_schema: bool = False,
    replace_where: str | None = None,
    partition_by: Sequence[str] | str | None = None,
    on_violation: "str | Quarantine" = "fail",
    txn: tuple[str, int] | None = None,
    properties: Mapping[str, str] | None = None,
    compression: str | None = None,
    target_file_size: int | None = None,
    checkpoint: bool = True,
    conf: Mapping[str, str] | None = None,
    contract: "Contract | str | os.PathLike[str] | None" = None,
    contract_object: str | None = None,
    check: "str | os.PathLike[str] | None" = None,
    on_check_failure: "str | Quarantine" = "fail",
    baseline: str | None = None,
) -> dict:
    """Write ``data`` (any Arrow producer: pyarrow Table or RecordBatchReader, polars
    or pandas DataFrame, DuckDB relation, or a dict of columns) into the Delta table at
    ``target``, creating it when absent.

    The schema is enforced as ``deltaguard write`` enforces it: new columns need
    ``merge_schema=True``, a different schema needs ``mode="overwrite",
    overwrite_schema=True``, only lossless casts are made, NOT NULL and CHECK
    constraints hold. Returns the write's metrics (``version``, ``rows``, ...).

    ``contract`` (a :class:`Contract` or the path of a contract file) conforms the
    input to it first, as ``deltaguard write --contract``: declared columns only, cast
    to the declared types, required columns present (docs/contracts.md "Writes"); a
    table that carries a contract follows it without being told. New upstream columns
    the contract ignores are in ``result["warnings"]`` and raised as a ``UserWarning``.

    ``check`` (``"auto"`` or a tests file) runs data tests on the incoming rows
    against the table's baseline before the commit, as ``deltaguard write --check``
    (docs/data_tests.md "At commit time"). ``on_check_failure``: ``"fail"`` commits
    nothing and raises ``ConstraintViolationError`` (its ``check_report`` is the
    :class:`CheckReport`), ``"warn"`` commits and warns, ``Quarantine(table)`` routes
    rows breaking row tests there and holds the whole batch there when a test of the
    batch fails. ``result["check"]`` is the :class:`CheckReport`.
    """
    if mode.lower() not in _MODES:
        raise ValueError(f"mode must be one of {', '.join(_MODES)}, got {mode!r}")
    args = _native.WriteArgs()
    args.mode = mode
    args.merge_schema = merge_schema
    args.overwrite_schema = overwrite_schema
    args.replace_where = replace_where
    if isinstance(partition_by, str):
        partition_by = [partition_by]
    args.partition_by = list(partition_by or [])
    args.properties = dict(properties or {})
    if txn is not None:
        app_id, version = txn
        args.txn_app_id = str(app_id)
        args.txn_version = int(version)
    args.compression = compression
    args.target_file_size = target_file_size
    args.checkpoint = checkpoint
    if contract is not None:
        from ._contract import Contract

        if not isinstance(contract, Contract):
            contract = Contract.load(contract)
        args.contract_yaml = contract.yaml
        args.contract_file = contract.file
    args.contract_object = contract_object or ""
    quarantine = None
    if isinstance(on_violation, Quarantine):
        quarantine = os.fspath(on_violation.table)
    elif on_violation != "fail":
        raise ValueError("on_violation must be 'fail' or deltaguard.Quarantine(table)")
    if check is None and (on_check_failure != "fail" or baseline is not None):
        raise ValueError("on_check_failure and baseline need check='auto' or a tests file")
    if check is not None:
        args.check = os.fspath(check)
        args.check_baseline = baseline or ""
        if isinstance(on_check_failure, Quarantine):
            held = os.fspath(on_check_failure.table)
            if quarantine is not None and quarantine != held:
                raise ValueError("on_violation and on_check_failure name different "
                                 "quarantine tables; use one")
            quarantine = held
            args.on_check_failure = "quarantine"
        elif on_check_failure in ("fail", "warn"):
            args.on_check_failure = on_check_failure
        else:
            raise ValueError("on_check_failure must be 'fail', 'warn' or "
                             "deltaguard.Quarantine(table)")
    result = _native.write_table(_table_path(target), data, args, quarantine, dict(conf or {}))
    if result.get("check") is not None:
        from ._profile import CheckReport

        raw = result["check"]
        report = CheckReport(raw["report_json"], raw["report_text"], "text")
        report.held = raw["held"]
        report.held_reason = raw["held_reason"]
        result["check"] = report
    if isinstance(target, Table):
        target.refresh()
    for message in result.get("warnings", []):
        warnings.warn(message, UserWarning, stacklevel=2)
    return result


def create_table(
    path: "str | os.PathLike[str]",
    schema: "Schema | str | Any",
    *,
    partition_by: Sequence[str] | str | None = None,
    properties: Mapping[str, str] | None = None,
    name: str | None = None,
    comment: str | None = None,
    if_not_exists: bool = False,
) -> Table:
    """Create an empty table (version 0), as ``deltaguard create``. ``schema`` is a
    :class:`Schema`, a DDL string, or an Arrow schema."""
    if isinstance(schema, str):
        schema = Schema.from_ddl(schema)
    elif not isinstance(schema, Schema):
        schema = Schema.from_arrow(schema)
    if isinstance(partition_by, str):
        partition_by = [partition_by]
    _native.create_table(
        os.fspath(path),
        schema.to_json(),
        list(partition_by or []),
        dict(properties or {}),
        name,
        comment,
        if_not_exists,
    )
    return Table(path)
