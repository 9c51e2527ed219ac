"""ALTER TABLE from Python: each method runs the ALTER TABLE statement ``deltaguard sql``
runs for it, so both share the rules (column mapping for rename and drop, type
widening, constraints checked against existing rows) and the messages."""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

from . import _native

if TYPE_CHECKING:  # pragma: no cover
    from ._table import Table


def _ident(name: str) -> str:
    """A column path as SQL: each dotted part backquoted (`a`.`b`)."""
    return ".".join(_native.quote_identifier(part) for part in name.split("."))


def _string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


class Alter:
    def __init__(self, table: "Table") -> None:
        self._table = table

    def _run(self, clause: str) -> dict:
        from ._sql import Session

        target = "delta." + _native.quote_identifier(self._table.path)
        session = Session(conf=self._table._conf)
        result = session.execute(f"ALTER TABLE {target} {clause}")
        self._table.refresh()
        return {"version": result.version, "message": result.message}

    def add_columns(self, columns: str) -> dict:
        """ADD COLUMNS: a DDL column list, e.g. ``"discount DECIMAL(5,2), note STRING"``
        (``AFTER x`` / ``FIRST`` and nested ``a.b`` paths as in SQL)."""
        return self._run(f"ADD COLUMNS ({columns})")

    def rename_column(self, column: str, new_name: str) -> dict:
        return self._run(f"RENAME COLUMN {_ident(column)} TO {_ident(new_name)}")

    def drop_columns(self, columns: "str | Sequence[str]", if_exists: bool = False) -> dict:
        if isinstance(columns, str):
            columns = [columns]
        names = ", ".join(_ident(c) for c in columns)
        return self._run(f"DROP COLUMNS {'IF EXISTS ' if if_exists else ''}({names})")

    def change_type(self, column: str, new_type: str) -> dict:
        """Type widening (``"int"`` -> ``"bigint"``, ...), as ALTER COLUMN ... TYPE."""
        return self._run(f"ALTER COLUMN {_ident(column)} TYPE {new_type}")

    def set_not_null(self, column: str) -> dict:
        return self._run(f"ALTER COLUMN {_ident(column)} SET NOT NULL")

    def drop_not_null(self, column: str) -> dict:
        return self._run(f"ALTER COLUMN {_ident(column)} DROP NOT NULL")

    def set_comment(self, column: str, comment: str) -> dict:
        return self._run(f"ALTER COLUMN {_ident(column)} COMMENT {_string(comment)}")

    def add_constraint(self, name: str, expression: str) -> dict:
        """ADD CONSTRAINT name CHECK (expression); existing rows must satisfy it."""
        return self._run(f"ADD CONSTRAINT {_ident(name)} CHECK ({expression})")

    def drop_constraint(self, name: str, if_exists: bool = False) -> dict:
        return self._run(f"DROP CONSTRAINT {'IF EXISTS ' if if_exists else ''}{_ident(name)}")

    def set_properties(self, properties: Mapping[str, str]) -> dict:
        items = ", ".join(f"{_string(k)} = {_string(v)}" for k, v in properties.items())
        return self._run(f"SET TBLPROPERTIES ({items})")

    def unset_properties(self, keys: Sequence[str], if_exists: bool = False) -> dict:
        items = ", ".join(_string(k) for k in keys)
        return self._run(f"UNSET TBLPROPERTIES {'IF EXISTS ' if if_exists else ''}({items})")
