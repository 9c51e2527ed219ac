"""The exceptions deltaguard raises.

Every error of the engine is a :class:`DeltaguardError`; the subclass says what kind of
error it is, and the message is the one the CLI prints (``"Schema Error: ..."``). The
``exit_code`` is the CLI's exit status for the same error: 1 refused or check failed,
2 usage or invalid input, 3 I/O or internal error.
"""

from __future__ import annotations

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
    which option would accept the change (``merge_schema=True``, ...).
    """

    exit_code = 1


class ConstraintViolationError(DeltaguardError):
    """A NOT NULL, CHECK or CHAR/VARCHAR constraint was violated (CLI exit code 1).

    Nothing was committed; the message names the constraint and the first violating
    row. ``on_violation=Quarantine(...)`` routes such rows instead.
    """

    exit_code = 1


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


def _from_native(code: str, message: str) -> DeltaguardError:
    """Called by the native module: the exception for an engine error."""
    cls = _BY_CODE.get(code, InternalError)
    return cls(message, code)
