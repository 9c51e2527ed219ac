"""The exceptions deltaguard raises.

Every error of the engine is a :class:`DeltaguardError`; the subclass says what kind of
error it is, and the message is the one the CLI prints (``"Schema Error: ..."``). The
``exit_code`` is the CLI's exit status for the same error: 1 refused or check failed,
2 usage or invalid input, 3 I/O or internal error.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "DeltaguardError",
    "InvalidInputError",
    "NotFoundError",
    "TableAlreadyExistsError",
    "SchemaMismatchError",
    "ConstraintViolationError",
    "CommitConflictError",
    "UnsupportedFeatureError",
    "CorruptTableError",
    "StorageError",
    "ParseError",
    "InternalError",
]


class DeltaguardError(Exception):
    """Base class of every deltaguard error.

    Attributes:
        code: the engine's error code (``"schema_mismatch"``, ``"not_found"``, ...).
        exit_code: what ``deltaguard`` would exit with for this error.
        message: the full message, as the CLI prints it.
    """

    exit_code = 3

    def __init__(self, message: str, code: str = "internal") -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class InvalidInputError(DeltaguardError, ValueError):
    """Bad arguments, values or expressions (CLI exit code 2)."""

    exit_code = 2


class ParseError(InvalidInputError):
    """Text (SQL, DDL, JSON, CSV) that cannot be parsed (CLI exit code 2)."""


class NotFoundError(InvalidInputError, LookupError):
    """A table, file, version or column that does not exist (CLI exit code 2)."""


class TableAlreadyExistsError(DeltaguardError):
    """The table exists and the operation refuses to touch it (CLI exit code 1)."""

    exit_code = 1


class SchemaMismatchError(DeltaguardError):
    """A write or read that does not fit the table's schema (CLI exit code 1).

    The message shows both schemas side by side with the differences marked, and says
    which option would accept the change (``merge_schema=True``, ...). Raised by a
    write or MERGE, it also carries:

    Attributes:
        table_schema: the table's :class:`deltaguard.Schema` (None for a new table).
        input_schema: the input's schema, in Delta types.
        changes: the changes from the table's schema to the input's, classified as
            ``deltaguard drift`` classifies them: :class:`deltaguard.DriftChange`
            objects (``change_class``, ``path``, ``before``, ``after``, ``risk``,
            ``option``, ...), the same lines the message lists.
        hint: what to do, as the message says it (its first line's last sentence).
    """

    exit_code = 1

    def __init__(self, message: str, code: str = "schema_mismatch", *,
                 table_schema: Any = None, input_schema: Any = None,
                 changes: list[Any] | None = None) -> None:
        super().__init__(message, code)
        self.table_schema = table_schema
        self.input_schema = input_schema
        self.changes = list(changes or [])

    @property
    def hint(self) -> str:
        first = self.message.split("\n", 1)[0]
        sentences = [s for s in first.split(". ") if s.strip()]
        return sentences[-1].strip() if sentences else first


class ConstraintViolationError(DeltaguardError):
    """A NOT NULL, CHECK or CHAR/VARCHAR constraint was violated (CLI exit code 1).

    Nothing was committed; the message names the constraint and the first violating
    rows. ``on_violation=Quarantine(...)`` routes such rows instead. A write's
    violation also carries what the message says, as fields (None where the check
    does not know it, e.g. a table-wide refusal such as an append-only table):

    Attributes:
        constraint: the CHECK constraint's name, ``"NOT NULL"``, or
            ``"__CHAR_VARCHAR_STRING_LENGTH_CHECK__"`` for a CHAR/VARCHAR length.
        expression: the condition the rows fail (``"price > 0"``, ``"id IS NOT NULL"``).
        column: the column of a NOT NULL or CHAR/VARCHAR check.
        violating_rows: how many rows of the batch that failed violate it.
        first_row: the 1-based input row of the first violation (NOT NULL checks).
        sample_rows: up to five violating rows as the message shows them
            (``"{id: 2, price: -1}"``).
        check_report: when data tests refused a write (``check=``), the
            :class:`CheckReport` of the incoming rows; ``constraint`` then names the
            failed tests (``"SCALE_SHIFT amount (factor 100)"``).
    """

    exit_code = 1

    def __init__(self, message: str, code: str = "constraint_violation", *,
                 constraint: str | None = None, expression: str | None = None,
                 column: str | None = None, violating_rows: int | None = None,
                 first_row: int | None = None,
                 sample_rows: list[str] | None = None,
                 check_report: Any = None) -> None:
        super().__init__(message, code)
        self.check_report = check_report
        self.constraint = constraint
        self.expression = expression
        self.column = column
        self.violating_rows = violating_rows
        self.first_row = first_row
        self.sample_rows = list(sample_rows or [])


class CommitConflictError(DeltaguardError):
    """Another writer committed a conflicting change first (CLI exit code 1)."""

    exit_code = 1


class UnsupportedFeatureError(DeltaguardError):
    """A protocol version, table feature or type deltaguard does not support (exit 1)."""

    exit_code = 1


class CorruptTableError(DeltaguardError):
    """The Delta log, a checkpoint or a data file breaks the protocol (exit code 3)."""


class StorageError(DeltaguardError, OSError):
    """The file system failed, or the operation was interrupted (exit code 3)."""


class InternalError(DeltaguardError):
    """A deltaguard bug; please report it with the message (exit code 3)."""


_BY_CODE: dict[str, type[DeltaguardError]] = {
    "invalid_argument": InvalidInputError,
    "parse_error": ParseError,
    "not_found": NotFoundError,
    "already_exists": TableAlreadyExistsError,
    "schema_mismatch": SchemaMismatchError,
    "constraint_violation": ConstraintViolationError,
    "commit_conflict": CommitConflictError,
    "unsupported_feature": UnsupportedFeatureError,
    "corrupt_log": CorruptTableError,
    "corrupt_data": CorruptTableError,
    "io_error": StorageError,
    "internal": InternalError,
}


def _from_native(code: str, message: str, details: dict | None = None) -> DeltaguardError:
    """Called by the native module: the exception for an engine error. ``details`` are
    what the front end knows besides the message (a write's two schemas)."""
    cls = _BY_CODE.get(code, InternalError)
    if cls is SchemaMismatchError and details:
        from ._schema import Schema

        def schema(key: str) -> Any:
            text = details.get(key)
            return Schema(text) if text else None

        changes = None
        if details.get("drift_changes"):
            from ._drift import changes_from_json

            changes = changes_from_json(details["drift_changes"])
        return SchemaMismatchError(message, code, table_schema=schema("table_schema_json"),
                                   input_schema=schema("input_schema_json"),
                                   changes=changes)
    if cls is ConstraintViolationError and details:

        def number(key: str) -> int | None:
            text = details.get(key)
            return int(text) if text is not None else None

        report = None
        if details.get("check_report"):
            from ._profile import CheckReport

            report = CheckReport(details["check_report"], details["check_report"], "json")
        return ConstraintViolationError(
            message, code, constraint=details.get("constraint"),
            expression=details.get("expression"), column=details.get("column"),
            violating_rows=number("violating_rows"), first_row=number("first_row"),
            sample_rows=details.get("sample_row"), check_report=report)
    return cls(message, code)
