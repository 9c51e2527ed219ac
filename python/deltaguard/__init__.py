"""deltaguard: Delta Lake tables for the day a source schema changes.

    import deltaguard as dg
    dg.write_table("bronze/orders", arrow_table)            # enforced: no silent change
    dg.write_table("bronze/orders", new_drop, merge_schema=True)
    t = dg.Table("bronze/orders")
    t.to_arrow(filter="amount > 10")

See docs/python.md for the whole API.
"""

from __future__ import annotations

# Arrow C++ comes from pyarrow's own libraries: load them before the native module.
import pyarrow as _pyarrow  # noqa: F401

from . import errors
from ._schema import Field, Schema
from ._sql import Session, StatementResult, sql
from ._table import Table
from ._write import Quarantine, create_table, write_table
from .errors import (
    CommitConflictError,
    ConstraintViolationError,
    CorruptTableError,
    DeltaguardError,
    InternalError,
    InvalidInputError,
    NotFoundError,
    ParseError,
    SchemaMismatchError,
    StorageError,
    TableAlreadyExistsError,
    UnsupportedFeatureError,
)

__version__ = "0.1.0"

__all__ = [
    "CommitConflictError",
    "ConstraintViolationError",
    "CorruptTableError",
    "DeltaguardError",
    "Field",
    "InternalError",
    "InvalidInputError",
    "NotFoundError",
    "ParseError",
    "Quarantine",
    "Schema",
    "SchemaMismatchError",
    "Session",
    "StatementResult",
    "StorageError",
    "Table",
    "TableAlreadyExistsError",
    "UnsupportedFeatureError",
    "create_table",
    "errors",
    "sql",
    "write_table",
]
