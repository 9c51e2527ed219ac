"""deltaguard.Schema: a Delta table schema, convertible to and from Arrow, DDL and the
Delta protocol's JSON (``schemaString``), printed as the same tree ``deltaguard
describe`` shows."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterator

import pyarrow as pa

from . import _native


@dataclass(frozen=True)
class Field:
    """One top-level column: its name, Delta type (``"long"``, ``"decimal(10,2)"``, or a
    dict for nested types, as in the protocol's JSON), nullability and metadata."""

    name: str
    type: Any
    nullable: bool
    metadata: dict

    @property
    def comment(self) -> str | None:
        return self.metadata.get("comment")


class Schema:
    """An immutable Delta schema. Two schemas are equal when their Delta JSON is."""

    __slots__ = ("_json",)

    def __init__(self, json_text: str) -> None:
        self._json = _native.schema_normalize_json(json_text)

    # --- constructors -------------------------------------------------------------
    @classmethod
    def from_json(cls, text: str | dict) -> "Schema":
        """From the protocol's schema JSON (a string or the parsed dict)."""
        if isinstance(text, dict):
            text = json.dumps(text)
        return cls(text)

    @classmethod
    def from_ddl(cls, ddl: str) -> "Schema":
        """From a DDL column list: ``"id BIGINT NOT NULL, name STRING COMMENT 'x'"``."""
        return cls(_native.schema_from_ddl(ddl))

    @classmethod
    def from_arrow(cls, schema: Any) -> "Schema":
        """From an Arrow schema (anything with ``__arrow_c_schema__``); columns keep
        their nullability; types map as a write would map them."""
        return cls(_native.schema_from_arrow(schema))

    # --- conversions --------------------------------------------------------------
    def to_json(self) -> str:
        return self._json

    def to_ddl(self) -> str:
        return _native.schema_to_ddl(self._json)

    def to_arrow(self) -> pa.Schema:
        return pa.schema(self)

    def __arrow_c_schema__(self) -> object:
        return _native.schema_to_arrow(self._json)

    # --- inspection ---------------------------------------------------------------
    @property
    def fields(self) -> list[Field]:
        parsed = json.loads(self._json)
        return [
            Field(f["name"], f["type"], f.get("nullable", True), f.get("metadata", {}))
            for f in parsed["fields"]
        ]

    @property
    def names(self) -> list[str]:
        return [f.name for f in self.fields]

    def __getitem__(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        for f in self.fields:  # Delta column names are case-insensitive
            if f.name.lower() == name.lower():
                return f
        raise KeyError(name)

    def __iter__(self) -> Iterator[Field]:
        return iter(self.fields)

    def __len__(self) -> int:
        return len(self.fields)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Schema) and self._json == other._json

    def __hash__(self) -> int:
        return hash(self._json)

    def __str__(self) -> str:
        return _native.schema_tree(self._json).rstrip("\n")

    def __repr__(self) -> str:
        return f"Schema({self.to_ddl()!r})"
