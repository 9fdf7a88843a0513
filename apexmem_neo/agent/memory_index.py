"""Index a whole memory graph for the agent's Search tool, reading it through a QueryBackend.

The graph is read table by table with plain SQL (SQLite runs it directly, Neo4j through the
SQL-compat shim), in pages ordered by primary key, so this code never asks which backend it
runs on. Documents are built with ``apexmem_neo.search.documents`` and upserted by
``doc_id``: indexing the same graph again replaces documents and adds nothing (idempotent);
with a ``CachedEmbedder`` it costs cache lookups, not model calls. Every document takes the
scope of the rows it is built from (the ``scope`` column, or the batch's scope), so the index
keeps the store's walls between scopes.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from typing import Any

from apexmem_neo.ontology import Entity, Event, Evidence, Fact, GraphBatch, Session, Turn, ids
from apexmem_neo.query.backend import QueryBackend, QueryLimits
from apexmem_neo.search import HybridSearch, SearchDocument
from apexmem_neo.search.documents import (
    DEFAULT_WINDOW,
    DocKind,
    entity_document,
    event_document,
    event_documents,
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

PAGE = 2000
READ_LIMITS = QueryLimits(
    max_rows=PAGE, timeout_s=120.0, max_cell_chars=1_000_000, max_result_bytes=2_000_000_000
)
"""The index's own reads page by rows; a byte cap (the agent's guard) would end a page early
and look like the last one, so it is set beyond any page."""
INDEX_CHUNK = 512
GRAPH_ID = re.compile(r"^[a-z]{2,4}_[0-9a-f]{32}$")
TURN_FIELDS = ("turn_id", "session_id", "seq", "speaker", "listener", "text", "anchor_datetime")
SESSION_FIELDS = ("session_id", "conversation_id", "seq", "started_at")
Progress = Callable[[int, int], None]
"""Called with (documents indexed so far, documents in all)."""


def table_rows(backend: QueryBackend, table: str, where: str = "") -> Iterator[dict[str, Any]]:
    """Every row of ``table`` (that ``where`` admits) as ``{column: value}``, in pages of
    ``PAGE`` rows."""
    columns = COLUMNS[table]
    order = ", ".join(PRIMARY_KEYS[table])
    condition = f" WHERE {where}" if where else ""
    offset = 0
    while True:
        sql = (
            f"SELECT {', '.join(columns)} FROM {table}{condition} ORDER BY {order} "
            f"LIMIT {PAGE} OFFSET {offset}"
        )
        result = backend.run(sql, "sql", {}, READ_LIMITS)
        for row in result.rows:
            yield dict(zip(columns, row, strict=True))
        if len(result.rows) < PAGE:
            return
        offset += PAGE


def _scoped_turn_documents(
    turn_rows: Iterable[dict[str, Any]], sessions: Sequence[Session], window: int = DEFAULT_WINDOW
) -> list[SearchDocument]:
    """Turn documents of ``turn_rows``, each in its row's scope. A session belongs to one
    scope, so grouping by scope leaves every context window whole."""
    by_scope: dict[str, list[Turn]] = defaultdict(list)
    for r in turn_rows:
        by_scope[r["scope"]].append(Turn(**{k: r[k] for k in TURN_FIELDS}))
    return [
        doc
        for scope, turns in by_scope.items()
        for doc in turn_documents(turns, sessions, window=window, scope=scope)
    ]


def _conversation_documents(backend: QueryBackend) -> list[SearchDocument]:
    sessions = [
        Session(**{k: r[k] for k in SESSION_FIELDS}) for r in table_rows(backend, "sessions")
    ]
    return _scoped_turn_documents(table_rows(backend, "turns"), sessions)


def _entity_documents(backend: QueryBackend) -> list[SearchDocument]:
    facts: dict[str, list[Fact]] = defaultdict(list)
    for row in table_rows(backend, "facts"):
        facts[row["entity_id"]].append(fact_model_from_row(row))
    entities: list[Entity] = [entity_from_row(r) for r in table_rows(backend, "entities")]
    return [entity_document(e, facts.get(e.entity_id, [])) for e in entities]


def _event_documents(backend: QueryBackend) -> list[SearchDocument]:
    evidence_rows = {r["evidence_id"]: r for r in table_rows(backend, "evidence")}
    evidence = {
        ev_id: Evidence(evidence_id=ev_id, turn_id=r["turn_id"], text=r["text"])
        for ev_id, r in evidence_rows.items()
    }
    anchors = {r["turn_id"]: r["anchor_datetime"] for r in table_rows(backend, "turns")}
    events: list[tuple[Event, str]] = [
        (event_from_row(r), r["scope"]) for r in table_rows(backend, "events")
    ]
    docs = [
        event_document(e, evidence.get(e.evidence_id or ""), scope=scope) for e, scope in events
    ]
    cited = {e.evidence_id for e, _ in events}
    docs += [
        evidence_document(ev, anchors.get(ev.turn_id or ""), scope=evidence_rows[ev_id]["scope"])
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


def index_graph(
    search: HybridSearch, backend: QueryBackend, progress: Progress | None = None
) -> int:
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
    return index_in_chunks(search, docs, progress)


def index_in_chunks(
    search: HybridSearch, docs: Sequence[SearchDocument], progress: Progress | None = None
) -> int:
    """Upsert ``docs`` (one call without ``progress``, else chunk by chunk, reporting each)."""
    if not docs:
        return 0
    if progress is None:
        return search.index_documents(docs)
    done = 0
    progress(0, len(docs))
    for start in range(0, len(docs), INDEX_CHUNK):
        done += search.index_documents(docs[start : start + INDEX_CHUNK])
        progress(done, len(docs))
    return done


def _in_list(ids_: Collection[str]) -> str:
    """A SQL ``IN`` list of graph ids; each is checked to be an id (they are spliced in)."""
    bad = [i for i in ids_ if not GRAPH_ID.match(i)]
    if bad:
        raise ValueError(f"not a graph id: {bad[0]!r}")
    return "(" + ", ".join(f"'{i}'" for i in sorted(ids_)) + ")"


def _session_turn_documents(
    backend: QueryBackend, first_new: dict[str, int], window: int
) -> list[SearchDocument]:
    """Documents of the new turns and of the turns before them whose context now holds them;
    the turns read start further back, so every rewritten document keeps its full context."""
    docs: list[SearchDocument] = []
    for session_id, seq in first_new.items():
        where = f"session_id IN {_in_list([session_id])} AND seq >= {seq - 2 * window}"
        rows = list(table_rows(backend, "turns", where))
        sessions = [
            Session(**{k: r[k] for k in SESSION_FIELDS})
            for r in table_rows(backend, "sessions", f"session_id IN {_in_list([session_id])}")
        ]
        kept = {r["turn_id"] for r in rows if r["seq"] >= seq - window}
        docs += [d for d in _scoped_turn_documents(rows, sessions) if d.graph_id in kept]
    return docs


def _touched_entity_documents(backend: QueryBackend, entity_ids: set[str]) -> list[SearchDocument]:
    if not entity_ids:
        return []
    where = f"entity_id IN {_in_list(entity_ids)}"
    facts: dict[str, list[Fact]] = defaultdict(list)
    for row in table_rows(backend, "facts", where):
        facts[row["entity_id"]].append(fact_model_from_row(row))
    entities = [entity_from_row(r) for r in table_rows(backend, "entities", where)]
    return [entity_document(e, facts.get(e.entity_id, [])) for e in entities]


def batch_documents(
    backend: QueryBackend, batches: Sequence[GraphBatch], window: int = DEFAULT_WINDOW
) -> list[SearchDocument]:
    """The documents that ``batches`` (just written) add or change: their turns and the
    turns whose context window reaches them, every entity they touch (with all its facts),
    and their properties, events and evidence."""
    first_new: dict[str, int] = {}
    for turn in (t for b in batches for t in b.turns):
        first_new[turn.session_id] = min(turn.seq, first_new.get(turn.session_id, turn.seq))
    docs = _session_turn_documents(backend, first_new, window)
    touched = {e.entity_id for b in batches for e in b.entities}
    touched |= {f.entity_id for b in batches for f in b.facts}
    docs += _touched_entity_documents(backend, touched)
    for batch in batches:
        docs += event_documents(batch)
    return list({d.doc_id: d for d in docs}.values())


def index_batches(
    search: HybridSearch, backend: QueryBackend, batches: Sequence[GraphBatch]
) -> int:
    """Bring the index up to date with ``batches`` just written (no full rebuild)."""
    search.create()
    return index_in_chunks(search, batch_documents(backend, batches))


def _holds_old_property_ids(search: HybridSearch, docs: Sequence[SearchDocument]) -> bool:
    old_prefix = ids.OLD_PREFIXES["property"]
    old_doc_ids = [
        d.doc_id.replace(d.graph_id, f"{old_prefix}_{d.graph_id[-32:]}")
        for d in docs
        if d.kind is DocKind.PROPERTY
    ]
    return bool(old_doc_ids) and bool(search.index.get(old_doc_ids))
