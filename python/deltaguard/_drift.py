"""Schema drift: ``Table.drift(data)`` and ``diff(a, b)`` classify every schema change
between two sides with the closed set of classes of ``deltaguard drift`` and judge them
with a schema-registry mode (docs/drift.md). The report is built by the same library
call the CLI makes, so the changes, the verdict and every rendering are the CLI's."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

from . import _native
from ._schema import Schema

if TYPE_CHECKING:  # pragma: no cover
    from ._table import Table

_FORMATS = ("text", "json", "markdown", "junit", "github")


@dataclass(frozen=True)
class DriftChange:
    """One classified change (the objects of ``changes[]`` in the CLI's JSON).

    ``change_class`` is the class name (``"TYPE_WIDENED"``), ``path`` the column path
    as Spark prints it, ``risk`` ``"low"``, ``"high"`` or ``"very high"``,
    ``backward``/``forward`` ``"ok"``, ``"break"`` or ``"not judged"``; ``spark`` and
    ``deltaguard`` say what each does with it on append, ``option`` what lets it
    through. Heuristic classes carry a ``score`` in [0, 1] and their ``evidence``.
    ``fails``: the change fails the report's ``fail_on`` bar."""

    change_class: str
    path: str
    old_path: str
    before: str
    after: str
    risk: str
    backward: str
    forward: str
    spark: str
    deltaguard: str
    option: str
    heuristic: bool
    score: float | None
    evidence: str
    fails: bool = False

    def __str__(self) -> str:
        if self.before and self.after:
            what = f"{self.before} -> {self.after}"
        else:
            what = self.before or self.after
        text = f"{self.change_class} {self.path}"
        return f"{text}: {what} (risk {self.risk})" if what else f"{text} (risk {self.risk})"


@dataclass(frozen=True)
class BreakingChange:
    """A change that breaks the verdict's mode, in which direction and why."""

    change: DriftChange
    index: int
    direction: str
    reason: str


@dataclass(frozen=True)
class Verdict:
    """The judgement of the changes under a schema-registry ``mode`` (``"BACKWARD"``,
    ``"FULL_TRANSITIVE"``, ...)."""

    mode: str
    compatible: bool
    breaking: list[BreakingChange] = field(default_factory=list)

    def __bool__(self) -> bool:
        return self.compatible


@dataclass(frozen=True)
class InferredColumn:
    """A CSV/JSON input column: the type inferred, the table's, the cast a write needs."""

    column: str
    inferred_type: str
    table_type: str
    cast: str


class DriftReport:
    """The changes from ``before`` to ``after``, their verdict and whether they fail
    the bar. ``str(report)`` is the CLI's text; :meth:`render` gives any of its
    formats; :meth:`to_dict` the documented JSON object."""

    __slots__ = ("_native", "_json", "changes", "verdict", "inferred")

    def __init__(self, native: Any) -> None:
        self._native = native
        self._json = json.loads(native.render("json"))
        verdict = self._json["verdict"]
        self.changes = [
            _change(c, fails)
            for c, fails in zip(self._json["changes"], native.change_fails)
        ]
        self.verdict = None
        if verdict is not None:
            self.verdict = Verdict(
                verdict["mode"],
                verdict["compatible"],
                [
                    BreakingChange(self.changes[b["change"]], b["change"], b["direction"],
                                   b["reason"])
                    for b in verdict["breaking"]
                ],
            )
        self.inferred = [InferredColumn(**c) for c in self._json.get("inferred", [])]

    @property
    def before_label(self) -> str:
        return self._json["before"]["label"]

    @property
    def after_label(self) -> str:
        return self._json["after"]["label"]

    @property
    def before_schema(self) -> Schema | None:
        return _schema(self._json["before"]["schema"])

    @property
    def after_schema(self) -> Schema | None:
        return _schema(self._json["after"]["schema"])

    @property
    def fail_on(self) -> str:
        return self._json["fail_on"]

    @property
    def fails(self) -> bool:
        """Whether a change fails the bar (the CLI's exit code 1)."""
        return bool(self._json["fails"])

    def render(self, format: str = "text") -> str:
        """The report as ``deltaguard drift --format FORMAT`` prints it: ``text``,
        ``json``, ``markdown``, ``junit`` or ``github``."""
        if format.lower() not in _FORMATS:
            raise ValueError(f"format must be one of {', '.join(_FORMATS)}, got {format!r}")
        return self._native.render(format)

    def to_dict(self) -> dict:
        """The documented JSON object (docs/drift.md "JSON")."""
        return json.loads(self._native.render("json"))

    def to_json(self) -> str:
        return self._native.render("json")

    def __iter__(self):
        return iter(self.changes)

    def __len__(self) -> int:
        return len(self.changes)

    def __str__(self) -> str:
        return self._native.render("text").rstrip("\n")

    def __repr__(self) -> str:
        return (f"DriftReport({self.before_label!r} -> {self.after_label!r}, "
                f"{len(self.changes)} change(s), fails={self.fails})")


def _change(c: dict, fails: bool) -> DriftChange:
    return DriftChange(
        change_class=c["class"], path=c["path"], old_path=c["old_path"],
        before=c["before"], after=c["after"], risk=c["risk"], backward=c["backward"],
        forward=c["forward"], spark=c["spark"], deltaguard=c["deltaguard"],
        option=c["option"], heuristic=c["heuristic"], score=c["score"],
        evidence=c["evidence"], fails=fails)


def changes_from_json(text: str) -> list[DriftChange]:
    """DriftChange objects from a JSON array of change objects (an error's details)."""
    return [_change(c, True) for c in json.loads(text)]


def _schema(obj: Any) -> Schema | None:
    return None if obj is None else Schema(json.dumps(obj))


def _is_arrow_data(obj: Any) -> bool:
    return (hasattr(obj, "__arrow_c_stream__") or hasattr(obj, "__arrow_c_array__")
            or isinstance(obj, dict) or type(obj).__name__ == "DataFrame")


def _side(obj: Any, hint: Any, label: str | None, files: dict) -> Any:
    """A native drift side for ``obj``: a Table, a Schema (or an Arrow schema), a path
    or spec string as the CLI's ``diff`` takes it, a list of data files, or any Arrow
    producer (its schema and first batch)."""
    from ._table import Table

    if isinstance(obj, Table):
        return _native.drift_source_table(obj._native)
    if isinstance(obj, Schema):
        return _native.drift_source_schema(obj.to_json(), label or "schema")
    if hasattr(obj, "__arrow_c_schema__") and not _is_arrow_data(obj):
        return _native.drift_source_schema(Schema.from_arrow(obj).to_json(),
                                           label or "Arrow schema")
    if isinstance(obj, (str, os.PathLike)):
        return _native.drift_source_spec(os.fspath(obj), hint, **files)
    if isinstance(obj, (list, tuple)) and obj and all(
            isinstance(p, (str, os.PathLike)) for p in obj):
        return _native.drift_source_files([os.fspath(p) for p in obj], hint, **files)
    if _is_arrow_data(obj):
        return _native.drift_source_data(obj, label or type(obj).__name__)
    raise TypeError(
        "a drift side is a Table, a Schema, a path or schema text, a list of data "
        f"files, or Arrow data; got {type(obj).__name__}")


def _files(input_format: str | None, header: bool, delimiter: str | None) -> dict:
    return {"input_format": input_format, "header": header, "delimiter": delimiter}


def diff(
    a: Any,
    b: Any,
    *,
    mode: str | None = None,
    fail_on: str | None = None,
    input_format: str | None = None,
    header: bool = True,
    delimiter: str | None = None,
) -> DriftReport:
    """The drift from ``a`` to ``b``, as ``deltaguard diff A B``. Each side is a
    :class:`Table` (at its version), a :class:`Schema` or Arrow schema, a string the CLI
    takes (``"path"``, ``"path@v12"``, ``"path@2024-05-01T00:00:00Z"``, a data file,
    directory or glob, a schema file, DDL or schema JSON), a list of data files, or any
    Arrow producer. ``mode`` is a schema-registry mode (``"BACKWARD"``, ...,
    ``"FULL_TRANSITIVE"``); ``fail_on`` ``"breaking"``, ``"high"`` or ``"any"``
    (default: ``"breaking"`` with a mode, else ``"high"``)."""
    files = _files(input_format, header, delimiter)
    before = _side(a, None, None, files)
    after = _side(b, before, None, files)
    return DriftReport(_native.drift_report(before, after, mode, fail_on))


def table_drift(
    table: "Table",
    data: Any,
    *,
    mode: str | None = None,
    fail_on: str | None = None,
    input_format: str | None = None,
    header: bool = True,
    delimiter: str | None = None,
    label: str | None = None,
) -> DriftReport:
    """``Table.drift``: ``data`` (Arrow data, data files, or a schema) against the
    table's schema at its version, as ``deltaguard drift TABLE INPUT``."""
    files = _files(input_format, header, delimiter)
    before = _native.drift_source_table(table._native)
    if isinstance(data, (str, os.PathLike)):
        data = [data]  # a path is an input file, as for `deltaguard drift`
    after = _side(data, before, label, files)
    return DriftReport(_native.drift_report(before, after, mode, fail_on))


__all__: Sequence[str] = (
    "BreakingChange", "DriftChange", "DriftReport", "InferredColumn", "Verdict", "diff",
)
