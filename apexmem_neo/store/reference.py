"""InMemoryGraphStore: the executable specification of the GraphStore protocol.

Plain Python over lists, written to read like the rules in ``apexmem_neo.store.protocol``
rather than to be fast. The shared test suite runs every case against it, and the
property-based tests check the real backends against it on random timelines.
"""

from __future__ import annotations

import threading
from collections.abc import Collection

from apexmem_neo.ontology import Entity, EntityType, Event, GraphBatch
from apexmem_neo.ontology.ids import DEFAULT_SCOPE, normalize_text
from apexmem_neo.ontology.metadata import matches, read_metadata
from apexmem_neo.ontology.types import TimeLike, normalize_time
from apexmem_neo.store import columns
from apexmem_neo.store.backend import StoreBackend, in_scope
from apexmem_neo.store.erasure import Erasure, ErasureTarget
from apexmem_neo.store.pages import KeyValue, Kind, PageRequest
from apexmem_neo.store.protocol import (
    TABLES,
    FactRecord,
    Item,
    StoreCounts,
    StoreNotReadyError,
    between_order_key,
    check_interval,
    ensure_references,
    fact_order_key,
    latest_holding,
)
from apexmem_neo.store.timeutil import Clock, utc_now

ERASE_TABLES = {
    "session": "sessions",
    "turn": "turns",
    "evidence": "evidence",
    "event": "events",
    "fact": "facts",
    "entity": "entities",
    "property": "properties",
}
"""Per id kind, the table whose key it is (what an erasure lists)."""


def _owns(table: str, kind: str) -> bool:
    """Whether a row of ``table`` goes when an id of ``kind`` in it is erased."""
    if table == "event_participants":
        return kind in ("event", "entity")
    return ERASE_TABLES[kind] == table


KIND_TABLES = {
    "session": "sessions",
    "turn": "turns",
    "entity": "entities",
    "evidence": "evidence",
    "event": "events",
}


class InMemoryGraphStore(StoreBackend):
    """GraphStore held in dicts; ``init_schema()`` creates the empty tables."""

    def __init__(self, clock: Clock | None = None) -> None:
        self._clock = clock or utc_now
        self._tables: dict[str, dict[tuple[str, ...], columns.Row]] | None = None
        self._next_seq: dict[str, int] = {}
        self._seq_lock = threading.Lock()

    def init_schema(self) -> None:
        if self._tables is None:
            self._tables = {table: {} for table in TABLES}

    def close(self) -> None:
        self._tables = None

    @property
    def tables(self) -> dict[str, dict[tuple[str, ...], columns.Row]]:
        if self._tables is None:
            raise StoreNotReadyError("InMemoryGraphStore: call init_schema() first")
        return self._tables

    def write(self, batch: GraphBatch) -> None:
        tables = self.tables
        ensure_references(batch, lambda kind, wanted: self._existing(kind, wanted, batch.scope))
        default = batch.recorded_at or normalize_time(self._clock())
        # Everything that can fail has been checked: from here on, the writes cannot fail.
        for table, new_rows in columns.batch_columns(batch, default).items():
            key_columns = columns.PRIMARY_KEYS[table]
            for row in new_rows:
                tables[table].setdefault(tuple(row[c] for c in key_columns), row)

    def reserve_turn_seqs(self, session_id: str, count: int) -> int:
        """One past both the session's last reservation and its last stored turn."""
        if count < 1:
            raise ValueError(f"count must be positive, got {count}")
        with self._seq_lock:
            seqs = [
                r["seq"] for r in self.tables["turns"].values() if r["session_id"] == session_id
            ]
            first = max(self._next_seq.get(session_id, 0), max(seqs, default=-1) + 1)
            self._next_seq[session_id] = first + count
        return first

    def _existing(self, kind: str, wanted: Collection[str], scope: str) -> set[str]:
        table = self.tables[KIND_TABLES[kind]]
        return {i for i in wanted if (i,) in table and table[(i,)]["scope"] == scope}

    def erase(self, target: ErasureTarget) -> Erasure:
        """The erasure rules of ``apexmem_neo.store.erasure``, written out over the dicts."""
        x = self._erased_ids(target)
        touched = {r["entity_id"] for r in self._rows_of("facts", "fact", x)}
        touched |= {r["entity_id"] for r in self._rows_of("event_participants", "event", x)}
        if target.kind == "sessions":
            used = self._rows_left("facts", "fact", x)
            used += self._rows_left("event_participants", "event", x)
            x["entity"] |= touched - {r["entity_id"] for r in used}
        if target.kind != "scope":
            left = {r["property_id"] for r in self._rows_left("facts", "fact", x)}
            mine = {r["property_id"] for r in self._scope_rows("properties", target.scope)}
            x["property"] |= mine - left
        erasure = Erasure(
            scope=target.scope, kind=target.kind, targets=target.sessions or target.entities
        )
        erasure.touched_entities = sorted(touched - x["entity"])
        erasure.erased_ids = {kind: sorted(ids) for kind, ids in x.items()}
        erasure.counts = self._delete(x)
        for session_id in x["session"]:
            self._next_seq.pop(session_id, None)
        return erasure

    def compact(self) -> None:
        """Nothing to do: deleted rows are gone from the dicts."""

    def _scope_rows(self, table: str, scope: str) -> list[columns.Row]:
        return [row for row in self.tables[table].values() if row["scope"] == scope]

    def _rows_of(self, table: str, kind: str, x: dict[str, set[str]]) -> list[columns.Row]:
        return [r for r in self.tables[table].values() if r[f"{kind}_id"] in x[kind]]

    def _rows_left(self, table: str, kind: str, x: dict[str, set[str]]) -> list[columns.Row]:
        return [r for r in self.tables[table].values() if r[f"{kind}_id"] not in x[kind]]

    def _erased_ids(self, target: ErasureTarget) -> dict[str, set[str]]:
        s, kind = target.scope, target.kind
        rows = {table: self._scope_rows(table, s) for table in TABLES}
        x: dict[str, set[str]] = {k: set() for k in ERASE_TABLES}
        if kind == "scope":
            return {k: {r[f"{k}_id"] for r in rows[t]} for k, t in ERASE_TABLES.items()}
        if kind == "entities":
            x["entity"] = {r["entity_id"] for r in rows["entities"]} & set(target.entities)
            x["fact"] = {r["fact_id"] for r in rows["facts"] if r["entity_id"] in x["entity"]}
            return x
        x["session"] = {r["session_id"] for r in rows["sessions"]} & set(target.sessions)
        x["turn"] = {r["turn_id"] for r in rows["turns"] if r["session_id"] in x["session"]}
        x["evidence"] = {r["evidence_id"] for r in rows["evidence"] if r["turn_id"] in x["turn"]}
        x["event"] = {
            r["event_id"] for r in rows["events"]
            if r["turn_id"] in x["turn"] or r["evidence_id"] in x["evidence"]
        }  # fmt: skip
        x["fact"] = {
            r["fact_id"] for r in rows["facts"]
            if r["event_id"] in x["event"] or r["evidence_id"] in x["evidence"]
        }  # fmt: skip
        return x

    def _delete(self, x: dict[str, set[str]]) -> dict[str, int]:
        counts: dict[str, int] = {}
        for table, rows in self.tables.items():
            gone = [
                key for key, row in rows.items()
                if any(row.get(f"{k}_id") in ids for k, ids in x.items() if _owns(table, k))
            ]  # fmt: skip
            for key in gone:
                del rows[key]
            counts[table] = len(gone)
        return counts

    def counts(self, scope: str | None = None) -> StoreCounts:
        return StoreCounts(
            **{
                table: sum(1 for r in rows.values() if scope is None or r["scope"] == scope)
                for table, rows in self.tables.items()
            }
        )

    def scopes(self) -> list[str]:
        return sorted({row["scope"] for rows in self.tables.values() for row in rows.values()})

    def _page_rows(self, request: PageRequest[Item]) -> list[columns.Row]:
        """The rule written out: the scope's rows that pass the filters and hold the
        metadata, in key order, those whose key comes after the cursor's, ``limit`` of them."""
        kind, tags, start = request.kind, request.metadata, request.start
        wanted = {"scope": request.scope, **request.filters}
        rows = [
            row
            for row in self.tables[kind.table].values()
            if all(row[column] == value for column, value in wanted.items())
            and (not tags or matches(read_metadata(row["metadata_json"]), tags))
            and (start is None or _key(kind, row) > tuple(start))
        ]
        rows.sort(key=lambda row: _key(kind, row))
        return rows[: request.limit + 1]

    def get_entity(self, entity_id: str, scope: str | None = None) -> Entity | None:
        row = in_scope(self.tables["entities"].get((entity_id,)), scope)
        return None if row is None else columns.entity_from_row(row)

    def find_entities(
        self, name: str, entity_type: EntityType | None = None, *, scope: str = DEFAULT_SCOPE
    ) -> list[Entity]:
        wanted = normalize_text(name)
        found = [
            columns.entity_from_row(row)
            for row in self.tables["entities"].values()
            if row["norm_name"] == wanted
            and row["scope"] == scope
            and (entity_type is None or row["entity_type"] == EntityType(entity_type).value)
        ]
        return sorted(found, key=lambda e: e.entity_id)

    def list_entities(self, *, scope: str = DEFAULT_SCOPE) -> list[Entity]:
        rows = self.tables["entities"].values()
        found = [columns.entity_from_row(row) for row in rows if row["scope"] == scope]
        return sorted(found, key=lambda e: e.entity_id)

    def get_event(self, event_id: str, scope: str | None = None) -> Event | None:
        row = in_scope(self.tables["events"].get((event_id,)), scope)
        return None if row is None else columns.event_from_row(row)

    # ---- temporal queries: the rules, written out ----

    def _facts(self, entity_id: str, property: str | None = None) -> list[FactRecord]:
        return [
            columns.fact_from_row(row)
            for row in self.tables["facts"].values()
            if row["entity_id"] == entity_id and (property is None or row["property"] == property)
        ]

    def history(self, entity_id: str, property: str) -> list[FactRecord]:
        return sorted(self._facts(entity_id, property), key=fact_order_key)

    def as_of(self, entity_id: str, property: str, t: TimeLike) -> FactRecord | None:
        return latest_holding(self.history(entity_id, property), normalize_time(t))

    def _latest(self, entity_id: str, property: str) -> FactRecord | None:
        facts = self.history(entity_id, property)
        return facts[-1] if facts else None

    def facts_between(self, entity_id: str, t1: TimeLike, t2: TimeLike) -> list[FactRecord]:
        start, end = check_interval(t1, t2)
        began = [f for f in self._facts(entity_id) if start <= f.t_from <= end]
        return sorted(began, key=between_order_key)

    def _known(
        self, entity_id: str, property: str, cutoff: str, at: str | None
    ) -> FactRecord | None:
        known = [f for f in self.history(entity_id, property) if f.recorded_at <= cutoff]
        if at is not None:
            return latest_holding(known, at)
        return known[-1] if known else None


def _key(kind: Kind[Item], row: columns.Row) -> tuple[KeyValue, ...]:
    return tuple(row[column] for column in kind.key)
