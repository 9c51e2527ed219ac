"""deltaguard: Delta Lake tables for the day a source schema changes.

    import deltaguard as dg
    dg.write_table("bronze/orders", arrow_table)            # enforced: no silent change
    dg.write_table("bronze/orders", new_drop, merge_schema=True)
    t = dg.Table("bronze/orders")
    t.to_arrow(filter="amount > 10")

See docs/python.md for the whole API.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import errors
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

# The engine (and pyarrow with it) loads on first use, so that `import deltaguard` and
# the `deltaguard` console script start fast (PEP 562 module __getattr__).
_LAZY = {
    "CheckResult": "._contract",
    "Contract": "._contract",
    "ContractChange": "._contract",
    "ContractDiffResult": "._contract",
    "ContractTestResult": "._contract",
    "Diagnostic": "._contract",
    "LintResult": "._contract",
    "lint_contracts": "._contract",
    "BreakingChange": "._drift",
    "DriftChange": "._drift",
    "DriftReport": "._drift",
    "InferredColumn": "._drift",
    "Verdict": "._drift",
    "diff": "._drift",
    "CheckReport": "._profile",
    "Finding": "._profile",
    "Profile": "._profile",
    "profile": "._profile",
    "BatchProgress": "._ingest",
    "ingest": "._ingest",
    "Field": "._schema",
    "Schema": "._schema",
    "Session": "._sql",
    "StatementResult": "._sql",
    "sql": "._sql",
    "Table": "._table",
    "Quarantine": "._write",
    "create_table": "._write",
    "write_table": "._write",
}

if TYPE_CHECKING:  # pragma: no cover
    from ._contract import (
        CheckResult,
        Contract,
        ContractChange,
        ContractDiffResult,
        ContractTestResult,
        Diagnostic,
        LintResult,
        lint_contracts,
    )
    from ._drift import (
        BreakingChange,
        DriftChange,
        DriftReport,
        InferredColumn,
        Verdict,
        diff,
    )
    from ._ingest import BatchProgress, ingest
    from ._profile import CheckReport, Finding, Profile, profile
    from ._schema import Field, Schema
    from ._sql import Session, StatementResult, sql
    from ._table import Table
    from ._write import Quarantine, create_table, write_table


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'deltaguard' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))

__all__ = [
    "BatchProgress",
    "ingest",
    "CheckResult",
    "Contract",
    "ContractChange",
    "ContractDiffResult",
    "ContractTestResult",
    "Diagnostic",
    "LintResult",
    "lint_contracts",
    "BreakingChange",
    "DriftChange",
    "DriftReport",
    "InferredColumn",
    "Verdict",
    "diff",
    "CommitConflictError",
    "ConstraintViolationError",
    "CorruptTableError",
    "DeltaguardError",
    "Field",
    "InternalError",
    "InvalidInputError",
    "NotFoundError",
    "ParseError",
    "CheckReport",
    "Finding",
    "Profile",
    "profile",
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
