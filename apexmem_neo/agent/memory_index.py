"""Index a whole memory graph for the agent's Search tool, reading it through a QueryBackend.

The graph is read table by table with plain SQL (SQLite runs it directly, Neo4j through the
SQL-compat shim), in pages ordered by primary key, so this code never asks which backend it
runs on. Documents are built with ``apexmem_neo.search.documents`` and upserted by
``doc_id``: indexing the same graph again replaces documents and adds nothing (idempotent);
with a ``CachedEmbedder`` it costs cache lookups, not model calls.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import Any

from apexmem_neo.ontology import Entity, Event, Evidence, Fact, Session, Turn, ids
from apexmem_neo.search import HybridSearch, SearchDocument
from apexmem_neo.search.documents import (
    DocKind,
    entity_document,
    event_document,
    evidence_document,
    property_document,
    turn_documents,
)
from apexmem_neo.store.columns import (
    COLUMNS,
    PRIMARY_KEYS,
    entity_from_row,
    event_from_row,
    fact_model_from_row,
    property_from_row,
)
from apexmem_neo.tools.backend import QueryBackend, QueryLimits

PAGE = 2000
READ_LIMITS = QueryLimits(max_rows=PAGE, timeout_s=120.0, max_cell_chars=1_000_000)


def table_rows(backend: QueryBackend, table: str) -> Iterator[dict[str, Any]]:
    """Every row of ``table`` as ``{column: value}``, in pages of ``PAGE`` rows."""
    columns = COLUMNS[table]
    order = ", ".join(PRIMARY_KEYS[table])
    offset = 0
    while True:
        sql = (
            f"SELECT {', '.join(columns)} FROM {table} ORDER BY {order} "
            f"LIMIT {PAGE} OFFSET {offset}"
        )
        result = backend.run(sql, "sql", {}, READ_LIMITS)
        for row in result.rows:
            yield dict(zip(columns, row, strict=True))
        if len(result.rows) < PAGE:
            return
        offset += PAGE


def _conversation_documents(backend: QueryBackend) -> list[SearchDocument]:
    sessions = [
        Session(
            session_id=r["session_id"],
            conversation_id=r["conversation_id"],
            seq=r["seq"],
            started_at=r["started_at"],
        )
        for r in table_rows(backend, "sessions")
    ]
    fields = ("turn_id", "session_id", "seq", "speaker", "listener", "text", "anchor_datetime")
    turns = [Turn(**{k: r[k] for k in fields}) for r in table_rows(backend, "turns")]
    return turn_documents(turns, sessions)


def _entity_documents(backend: QueryBackend) -> list[SearchDocument]:
    facts: dict[str, list[Fact]] = defaultdict(list)
    for row in table_rows(backend, "facts"):
        facts[row["entity_id"]].append(fact_model_from_row(row))
    entities: list[Entity] = [entity_from_row(r) for r in table_rows(backend, "entities")]
    return [entity_document(e, facts.get(e.entity_id, [])) for e in entities]


def _event_documents(backend: QueryBackend) -> list[SearchDocument]:
    evidence = {
        r["evidence_id"]: Evidence(
            evidence_id=r["evidence_id"], turn_id=r["turn_id"], text=r["text"]
        )
        for r in table_rows(backend, "evidence")
    }
    anchors = {r["turn_id"]: r["anchor_datetime"] for r in table_rows(backend, "turns")}
    events: list[Event] = [event_from_row(r) for r in table_rows(backend, "events")]
    docs = [event_document(e, evidence.get(e.evidence_id or "")) for e in events]
    cited = {e.evidence_id for e in events}
    docs += [
        evidence_document(ev, anchors.get(ev.turn_id or ""))
        for ev_id, ev in evidence.items()
        if ev_id not in cited
    ]
    return docs


def graph_documents(backend: QueryBackend) -> list[SearchDocument]:
    """Every search document of the graph behind ``backend`` (turns, entities, properties,
    events and uncited evidence), the same documents ``documents_from_batch`` makes."""
    docs = _conversation_documents(backend)
    docs += _entity_documents(backend)
    docs += [property_document(property_from_row(r)) for r in table_rows(backend, "properties")]
    docs += _event_documents(backend)
    return docs


def index_graph(search: HybridSearch, backend: QueryBackend) -> int:
    """Create the index if needed and upsert every document of the graph; returns the count.

    An index built before the short id prefixes (ontology/ids.py) is rebuilt whole: its
    property documents name ids the migrated graph no longer has, and upserting today's
    documents beside them would list every property twice.
    """
    search.create()
    docs = graph_documents(backend)
    if _holds_old_property_ids(search, docs):
        search.index.drop()
        search.create()
    return search.index_documents(docs) if docs else 0


def _holds_old_property_ids(search: HybridSearch, docs: Sequence[SearchDocument]) -> bool:
    old_prefix = ids.OLD_PREFIXES["property"]
    old_doc_ids = [
        d.doc_id.replace(d.graph_id, f"{old_prefix}_{d.graph_id[-32:]}")
        for d in docs
        if d.kind is DocKind.PROPERTY
    ]
    return bool(old_doc_ids) and bool(search.index.get(old_doc_ids))
