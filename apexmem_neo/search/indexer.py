"""Index a memory graph for search, reading it through the store's typed pages.

Every scope is read kind by kind with ``GraphStore.page`` (keyset pages of ontology models),
so the indexer never asks which backend it runs on and needs no query language. Documents
are built with ``apexmem_neo.search.documents`` and upserted by ``doc_id``: indexing the same
graph again replaces documents and adds nothing (idempotent); with a ``CachedEmbedder`` it
costs cache lookups, not model calls. Every document takes the scope it was read from, so
the index keeps the store's walls between scopes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Final

from apexmem_neo.ontology import Fact, GraphBatch, Session, Turn, ids
from apexmem_neo.search.documents import (
    DEFAULT_WINDOW,
    DocKind,
    SearchDocument,
    entity_document,
    event_document,
    event_documents,
    evidence_document,
    property_document,
    turn_documents,
)
from apexmem_neo.search.engine import HybridSearch
from apexmem_neo.store.columns import fact_model
from apexmem_neo.store.pages import (
    ENTITIES,
    EVENTS,
    EVIDENCE,
    FACTS,
    PROPERTIES,
    SESSIONS,
    TURNS,
    Kind,
    every_item,
    turn_cursor,
)
from apexmem_neo.store.protocol import GraphStore, Item

PAGE: Final = 2000
"""Items per page the indexer reads."""
INDEX_CHUNK: Final = 512
Progress = Callable[[int, int], None]
"""Called with (documents indexed so far, documents in all)."""


def read_all(
    store: GraphStore, kind: Kind[Item], scope: str, start: str | None = None, **filters: str
) -> list[Item]:
    """Every item of ``kind`` in ``scope`` that ``filters`` admit, from cursor ``start`` on."""
    return every_item(
        lambda after: store.page(kind, scope=scope, after=after, limit=PAGE, filters=filters),
        start,
    )


def _entity_documents(store: GraphStore, scope: str) -> list[SearchDocument]:
    facts: dict[str, list[Fact]] = defaultdict(list)
    for record in read_all(store, FACTS, scope):
        facts[record.entity_id].append(fact_model(record))
    entities = read_all(store, ENTITIES, scope)
    return [entity_document(e, facts.get(e.entity_id, [])) for e in entities]


def _event_documents(store: GraphStore, scope: str, turns: Sequence[Turn]) -> list[SearchDocument]:
    """Every event (with the evidence it cites) and every evidence no event cites (dated by
    its turn)."""
    evidence = {ev.evidence_id: ev for ev in read_all(store, EVIDENCE, scope)}
    anchors = {t.turn_id: t.anchor_datetime for t in turns}
    events = read_all(store, EVENTS, scope)
    docs = [event_document(e, evidence.get(e.evidence_id or ""), scope=scope) for e in events]
    cited = {e.evidence_id for e in events}
    docs += [
        evidence_document(ev, anchors.get(ev.turn_id or ""), scope=scope)
        for ev_id, ev in evidence.items()
        if ev_id not in cited
    ]
    return docs


def scope_documents(store: GraphStore, scope: str) -> list[SearchDocument]:
    """Every search document of ``scope`` (turns, entities, properties, events and uncited
    evidence), the same documents ``documents_from_batch`` makes."""
    turns = read_all(store, TURNS, scope)
    docs = turn_documents(turns, read_all(store, SESSIONS, scope), scope=scope)
    docs += _entity_documents(store, scope)
    docs += [property_document(p) for p in read_all(store, PROPERTIES, scope)]
    docs += _event_documents(store, scope, turns)
    return docs


def graph_documents(store: GraphStore) -> list[SearchDocument]:
    """Every search document of every scope of ``store``."""
    return [doc for scope in store.scopes() for doc in scope_documents(store, scope)]


def index_graph(search: HybridSearch, store: GraphStore, progress: Progress | None = None) -> int:
    """Create the index if needed and upsert every document of the graph; returns the count.

    An index built before the short id prefixes (ontology/ids.py) is rebuilt whole: its
    property documents name ids the migrated graph no longer has, and upserting today's
    documents beside them would list every property twice.
    """
    search.create()
    docs = graph_documents(store)
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


def _session_turn_documents(
    store: GraphStore, scope: str, session_id: str, first_new: int, window: int
) -> list[SearchDocument]:
    """Documents of a session's new turns and of the turns before them whose context now
    holds them; the turns read start further back, so every rewritten document keeps its
    full context."""
    start = turn_cursor(session_id, first_new - 2 * window)
    turns = read_all(store, TURNS, scope, start, session_id=session_id)
    sessions: list[Session] = read_all(store, SESSIONS, scope, session_id=session_id)
    kept = {t.turn_id for t in turns if t.seq >= first_new - window}
    docs = turn_documents(turns, sessions, window=window, scope=scope)
    return [d for d in docs if d.graph_id in kept]


def _entity_document(store: GraphStore, scope: str, entity_id: str) -> list[SearchDocument]:
    """The document of a stored entity with all its facts (none if it is not stored)."""
    entity = store.get_entity(entity_id, scope=scope)
    if entity is None:
        return []
    facts = read_all(store, FACTS, scope, entity_id=entity_id)
    return [entity_document(entity, [fact_model(f) for f in facts])]


def batch_documents(
    store: GraphStore, batches: Sequence[GraphBatch], window: int = DEFAULT_WINDOW
) -> list[SearchDocument]:
    """The documents that ``batches`` (just written) add or change: their turns and the
    turns whose context window reaches them, every entity they touch (with all its facts),
    and their properties, events and evidence."""
    first_new: dict[tuple[str, str], int] = {}
    touched: dict[str, str] = {}
    for batch in batches:
        for turn in batch.turns:
            where = (batch.scope, turn.session_id)
            first_new[where] = min(turn.seq, first_new.get(where, turn.seq))
        touched |= {e.entity_id: batch.scope for e in batch.entities}
        touched |= {f.entity_id: batch.scope for f in batch.facts}
    docs: list[SearchDocument] = []
    for (scope, session_id), seq in first_new.items():
        docs += _session_turn_documents(store, scope, session_id, seq, window)
    for entity_id, scope in touched.items():
        docs += _entity_document(store, scope, entity_id)
    for batch in batches:
        docs += event_documents(batch)
    return list({d.doc_id: d for d in docs}.values())


def index_batches(search: HybridSearch, store: GraphStore, batches: Sequence[GraphBatch]) -> int:
    """Bring the index up to date with ``batches`` just written (no full rebuild)."""
    search.create()
    return index_in_chunks(search, batch_documents(store, batches))


def _holds_old_property_ids(search: HybridSearch, docs: Sequence[SearchDocument]) -> bool:
    old_prefix = ids.OLD_PREFIXES["property"]
    old_doc_ids = [
        d.doc_id.replace(d.graph_id, f"{old_prefix}_{d.graph_id[-32:]}")
        for d in docs
        if d.kind is DocKind.PROPERTY
    ]
    return bool(old_doc_ids) and bool(search.index.get(old_doc_ids))
