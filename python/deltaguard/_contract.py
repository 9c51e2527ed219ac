"""Data contracts (ODCS v3.1, docs/contracts.md): ``Contract.load(path)`` with
``.lint()``, ``.test(table)``, ``.diff(other)`` and ``Contract.init(table)``. Every
result is built by the library call the CLI makes (``deltaguard contract ...``), so
checks, changes and renderings are the CLI's."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

from . import _native

if TYPE_CHECKING:  # pragma: no cover
    from ._table import Table

_FORMATS = ("text", "json", "junit", "github")


def _check_format(format: str) -> str:
    if format.lower() not in _FORMATS:
        raise ValueError(f"format must be one of {', '.join(_FORMATS)}, got {format!r}")
    return format.lower()


class _Rendered:
    """A result the CLI would print: ``str()`` is its text, ``render(format)`` any of
    text, json, junit, github, ``to_dict()`` the JSON object."""

    __slots__ = ("_native", "_json")

    def __init__(self, native: Any) -> None:
        self._native = native
        self._json = json.loads(native.render("json"))

    def render(self, format: str = "text") -> str:
        return self._native.render(_check_format(format))

    def to_dict(self) -> dict:
        return json.loads(self._native.render("json"))

    def to_json(self) -> str:
        return self._native.render("json")

    def __str__(self) -> str:
        return self._native.render("text").rstrip("\n")


@dataclass(frozen=True)
class Diagnostic:
    """One lint finding: ``severity`` is ``"error"`` or ``"warning"``; ``key`` the path
    of the key in the file (``schema[0].properties[2].physicalType``)."""

    file: str
    severity: str
    line: int
    column: int
    key: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.column}" if self.line else self.file
        key = f"{self.key}: " if self.key else ""
        return f"{where}: {self.severity}: {key}{self.message}"


class LintResult(_Rendered):
    """``contract lint``: ``valid`` when no file has an error."""

    __slots__ = ("diagnostics",)

    def __init__(self, native: Any) -> None:
        super().__init__(native)
        self.diagnostics = [
            Diagnostic(f["file"], d["severity"], d["line"], d["column"], d["key"],
                       d["message"])
            for f in self._json["files"] for d in f["diagnostics"]
        ]

    @property
    def valid(self) -> bool:
        return bool(self._json["valid"])

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]

    def __bool__(self) -> bool:
        return self.valid


@dataclass(frozen=True)
class CheckResult:
    """One check of ``contract test``: ``outcome`` is passed, warning, failed, error or
    skipped; ``observed`` the metric; ``samples`` violating rows."""

    id: str
    description: str
    kind: str
    property: str
    severity: str
    outcome: str
    observed: float | None
    threshold: str
    violating_rows: int
    samples: list[str] = field(default_factory=list)
    message: str = ""


class ContractTestResult(_Rendered):
    """``contract test``: the checks, their counts and the worst ``outcome``."""

    __slots__ = ("checks",)

    def __init__(self, native: Any) -> None:
        super().__init__(native)
        self.checks = [CheckResult(**c) for c in self._json["checks"]]

    @property
    def outcome(self) -> str:
        return self._json["outcome"]

    @property
    def rows(self) -> int:
        return self._json["rows"]

    @property
    def version(self) -> int:
        return self._json["version"]

    @property
    def counts(self) -> dict[str, int]:
        return dict(self._json["counts"])

    @property
    def passed(self) -> bool:
        """No check failed or errored (warnings pass, as `contract test` exits 0)."""
        return self.counts["failed"] == 0 and self.counts["error"] == 0

    def failed(self) -> list[CheckResult]:
        return [c for c in self.checks if c.outcome in ("failed", "error")]

    def __bool__(self) -> bool:
        return self.passed


@dataclass(frozen=True)
class ContractChange:
    """One change of ``contract diff``: a drift class (``COLUMN_RENAMED``) or a
    contract class (``ENUM_VALUE_ADDED``), ``breaks`` under the mode."""

    change_class: str
    object: str
    path: str
    old_path: str
    before: str
    after: str
    risk: str
    backward: str
    forward: str
    breaks: bool
    reason: str


class ContractDiffResult(_Rendered):
    """``contract diff``: ``fails`` for a breaking change without a major version bump,
    with ``problems`` and the ``migration`` paths."""

    __slots__ = ("changes",)

    def __init__(self, native: Any) -> None:
        super().__init__(native)
        self.changes = [
            ContractChange(c["class"], c["object"], c["path"], c["old_path"], c["before"],
                           c["after"], c["risk"], c["backward"], c["forward"],
                           c["breaks"], c["reason"])
            for c in self._json["changes"]
        ]

    mode = property(lambda self: self._json["mode"])
    compatible = property(lambda self: self._json["compatible"])
    major_bump = property(lambda self: self._json["major_bump"])
    fails = property(lambda self: self._json["fails"])
    problems = property(lambda self: list(self._json["problems"]))
    migration = property(lambda self: list(self._json["migration"]))
    notes = property(lambda self: list(self._json["notes"]))


class Contract:
    """A data contract (an ODCS v3.1 YAML file) that lints clean. Loading an invalid
    contract raises ``InvalidInputError`` listing every error with file and line; use
    :func:`lint` to inspect a file without raising."""

    __slots__ = ("_native",)

    def __init__(self, native: Any) -> None:
        self._native = native

    @classmethod
    def load(cls, path: "str | os.PathLike[str]") -> "Contract":
        path = os.fspath(path)
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
        return cls(_native.contract_load(text, path))

    @classmethod
    def from_yaml(cls, text: str, name: str = "<string>") -> "Contract":
        return cls(_native.contract_load(text, name))

    @classmethod
    def init(cls, table: "Table", *, layer: str | None = None, id: str | None = None,
             name: str | None = None, version: str | None = None,
             sample_rows: int | None = None) -> str:
        """``contract init``: a first contract for ``table`` as YAML text, proposals
        from the data marked by comments."""
        return _native.contract_init(table._native, layer, id, name, version, sample_rows)

    id = property(lambda self: self._native.id)
    name = property(lambda self: self._native.name)
    version = property(lambda self: self._native.version)
    status = property(lambda self: self._native.status)
    file = property(lambda self: self._native.file)
    hash = property(lambda self: self._native.hash)
    layer = property(lambda self: self._native.layer or None)
    compatibility = property(lambda self: self._native.compatibility)
    objects = property(lambda self: list(self._native.objects))
    yaml = property(lambda self: self._native.text)
    warnings = property(lambda self: list(self._native.warnings))

    def lint(self) -> LintResult:
        return lint_contracts([self])

    def test(self, table: "Table", object: str | None = None) -> ContractTestResult:
        """``contract test``: ``table`` (at its version) against this contract."""
        return ContractTestResult(_native.contract_test(self._native, table._native,
                                                        object or ""))

    def apply(self, table: "Table | str | os.PathLike[str]", object: str | None = None) -> dict:
        """``contract apply``: make ``table`` carry this contract natively in one commit
        (NOT NULL, CHECK constraints, comments, the contract itself); existing rows are
        checked first. Returns ``{"version", "changes"}``."""
        from ._table import Table

        path = table.path if isinstance(table, Table) else os.fspath(table)
        result = _native.contract_apply(self._native, path, object or "")
        if isinstance(table, Table):
            table.refresh()
        return result

    def diff(self, other: "Contract", mode: str | None = None) -> ContractDiffResult:
        """``contract diff``: from this contract to ``other``."""
        return ContractDiffResult(_native.contract_diff(self._native, other._native, mode))

    def __repr__(self) -> str:
        return f"Contract({self.id!r}, version={self.version!r}, file={self.file!r})"


def lint_contracts(files: "Sequence[str | os.PathLike[str] | Contract]") -> LintResult:
    """``contract lint`` of several files (paths or loaded contracts)."""
    if isinstance(files, (str, os.PathLike, Contract)):
        files = [files]
    pairs = []
    for f in files:
        if isinstance(f, Contract):
            pairs.append((f.yaml, f.file))
        else:
            path = os.fspath(f)
            with open(path, encoding="utf-8", errors="surrogateescape") as fh:
                pairs.append((fh.read(), path))
    return LintResult(_native.contract_lint(pairs))


__all__ = [
    "CheckResult", "Contract", "ContractChange", "ContractDiffResult",
    "ContractTestResult", "Diagnostic", "LintResult", "lint_contracts",
]
