"""MERGE as a builder, the way delta-spark's ``DeltaTable.merge`` reads:

    t.merge(source, "t.id = s.id", source_alias="s", target_alias="t")
     .when_matched_update_all()
     .when_not_matched_insert_all()
     .execute()

Conditions and values are Spark SQL text over the two aliases. Unlike Spark, a source
column that ``*`` cannot store fails the MERGE unless ``with_schema_evolution()`` adds
it (or the session setting ``deltaguard.merge.ignoreUnmatchedSourceColumns`` is true);
see docs/behaviour.md.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from . import _native

if TYPE_CHECKING:  # pragma: no cover
    from ._table import Table


def _pairs(values: Mapping[str, str] | None, what: str) -> list[tuple[str, str]]:
    if not values:
        raise ValueError(f"{what} needs at least one column")
    return [(str(k), str(v)) for k, v in values.items()]


class MergeBuilder:
    def __init__(self, table: "Table", source: Any, predicate: str, source_alias: str,
                 target_alias: str) -> None:
        self._table = table
        self._source = source
        self._predicate = predicate
        self._source_alias = source_alias
        self._target_alias = target_alias
        self._clauses: list[tuple[str, str, list[tuple[str, str]], list[str]]] = []
        self._schema_evolution: bool | None = None
        self._contract: tuple[str, str, str] | None = None  # (yaml, file, object)
        self._executed = False

    def _add(self, kind: str, condition: str | None, sets: list[tuple[str, str]] | None = None,
             except_columns: Sequence[str] | None = None) -> "MergeBuilder":
        self._clauses.append((kind, condition or "", sets or [], list(except_columns or [])))
        return self

    def when_matched_update_all(self, condition: str | None = None, *,
                                except_columns: Sequence[str] | None = None) -> "MergeBuilder":
        return self._add("matched_update_all", condition, except_columns=except_columns)

    def when_matched_update(self, condition: str | None = None, *,
                            set: Mapping[str, str]) -> "MergeBuilder":
        return self._add("matched_update", condition, _pairs(set, "when_matched_update"))

    def when_matched_delete(self, condition: str | None = None) -> "MergeBuilder":
        return self._add("matched_delete", condition)

    def when_not_matched_insert_all(self, condition: str | None = None, *,
                                    except_columns: Sequence[str] | None = None
                                    ) -> "MergeBuilder":
        return self._add("not_matched_insert_all", condition, except_columns=except_columns)

    def when_not_matched_insert(self, condition: str | None = None, *,
                                values: Mapping[str, str]) -> "MergeBuilder":
        return self._add("not_matched_insert", condition,
                         _pairs(values, "when_not_matched_insert"))

    def when_not_matched_by_source_update(self, condition: str | None = None, *,
                                          set: Mapping[str, str]) -> "MergeBuilder":
        return self._add("not_matched_by_source_update", condition,
                         _pairs(set, "when_not_matched_by_source_update"))

    def when_not_matched_by_source_delete(self, condition: str | None = None) -> "MergeBuilder":
        return self._add("not_matched_by_source_delete", condition)

    def with_schema_evolution(self, enabled: bool = True) -> "MergeBuilder":
        """WITH SCHEMA EVOLUTION: source columns the target lacks are added."""
        self._schema_evolution = enabled
        return self

    def with_contract(self, contract: Any, contract_object: str | None = None
                      ) -> "MergeBuilder":
        """Conform the source to ``contract`` (a :class:`Contract` or a file's path)
        before the MERGE: declared columns cast to the declared types, undeclared ones
        left out of ``*`` clauses and reported in ``warnings`` (docs/contracts.md)."""
        from ._contract import Contract

        if not isinstance(contract, Contract):
            contract = Contract.load(contract)
        self._contract = (contract.yaml, contract.file, contract_object or "")
        return self

    def execute(self) -> dict:
        """Run the MERGE (one commit). Returns Spark's MERGE metrics and ``version``."""
        if self._executed:
            raise RuntimeError("this MERGE was already executed; build a new one")
        if not self._clauses:
            raise ValueError("MERGE needs at least one WHEN clause")
        self._executed = True
        metrics = _native.merge(self._table.path, self._source, self._predicate,
                                self._target_alias, self._source_alias, self._clauses,
                                self._schema_evolution, self._table._conf, self._contract)
        self._table.refresh()
        for message in metrics.get("warnings", []):
            warnings.warn(message, UserWarning, stacklevel=2)
        return metrics
