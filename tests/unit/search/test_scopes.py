"""Scopes in the search layer: filters, the required scope, documents built from batches and
from the store, the incremental index, and embedded index files written before scopes."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from apexmem_neo.ontology import Entity, Event, Evidence, Fact, GraphBatch, Session, Turn
from apexmem_neo.search import MissingScopeError, documents_from_batch
from apexmem_neo.search.backends.embedded import EmbeddedIndex
from apexmem_neo.search.config import BM25_ONLY, DENSE_ONLY, HYBRID, SearchConfig
from apexmem_neo.search.documents import ALL_KINDS, DocKind, SearchDocument
from apexmem_neo.search.engine import HybridSearch
from apexmem_neo.search.indexer import graph_documents, index_batches, index_graph
from apexmem_neo.search.protocol import SearchFilters
from apexmem_neo.store.sqlite import SQLiteGraphStore
from apexmem_neo.testing import HashingEmbedder
from tests.unit.search.contract import corpus

CITIES = {"scope-a": "Lisbon", "scope-b": "Oslo"}


def mom_batch(scope: str, city: str) -> GraphBatch:
    """A conversation of ``scope`` about Mom's city: two turns, Mom, her home_city fact, an
    event citing the first turn's evidence and loose evidence from the second turn."""
    session = Session(conversation_id=f"conv-{scope}", seq=1, started_at="2024-01-01T10:00:00")
    turns = [
        Turn(session_id=session.session_id, seq=i, speaker="Ann", text=text,
             anchor_datetime="2024-01-01T10:00:00")
        for i, text in enumerate((f"Mom lives in {city}", f"Mom moved to {city} last year"))
    ]  # fmt: skip
    mom = Entity(name="Mom", entity_type="Person", scope=scope)
    cited = Evidence(text=f"Mom lives in {city}", turn_id=turns[0].turn_id)
    loose = Evidence(text=f"Mom moved to {city}", turn_id=turns[1].turn_id)
    event = Event(event_type="residence", anchor_datetime="2024-01-01", location=city,
                  turn_id=turns[0].turn_id, evidence_id=cited.evidence_id)  # fmt: skip
    fact = Fact(entity_id=mom.entity_id, property="home_city", dtype="str", value=city,
                t_from="2024-01-01", event_id=event.event_id,
                evidence_id=cited.evidence_id)  # fmt: skip
    return GraphBatch(sessions=[session], turns=turns, entities=[mom], evidence=[cited, loose],
                      events=[event], facts=[fact], scope=scope)  # fmt: skip


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteGraphStore]:
    """Both scopes' conversations about Mom in one store."""
    store = SQLiteGraphStore(tmp_path / "graph.sqlite")
    store.init_schema()
    for scope, city in CITIES.items():
        store.write(mom_batch(scope, city))
    yield store
    store.close()


def _search(config: SearchConfig = HYBRID) -> HybridSearch:
    search = HybridSearch(EmbeddedIndex(), HashingEmbedder(dimensions=48, seed=3), config)
    search.create()
    return search


def _scopes_of(search: HybridSearch, docs: list[SearchDocument]) -> dict[str, str]:
    stored = search.index.get([d.doc_id for d in docs])
    return {doc_id: doc.scope for doc_id, doc in stored.items()}


def test_filters_admit_their_scope_only() -> None:
    doc = corpus()[0]
    assert SearchFilters(scope=doc.scope).admits(doc)
    assert not SearchFilters(scope="someone-else").admits(doc)
    assert SearchFilters().admits(doc)  # no restriction: the index's own reads
    with pytest.raises(ValueError):
        SearchFilters(scope="")


def test_a_search_without_a_scope_is_refused() -> None:
    search = _search()
    search.index_documents(corpus())
    for filters in (None, SearchFilters(), SearchFilters(kinds=(DocKind.TURN,))):
        with pytest.raises(MissingScopeError, match=r"SearchFilters\(scope=\.\.\.\)"):
            search.search("necklace", 5, filters)
        with pytest.raises(ValueError, match="needs a scope"):
            search.rank("necklace", 5, filters)


def test_batch_documents_carry_the_batch_scope_and_unique_ids() -> None:
    docs = {s: documents_from_batch(mom_batch(s, c)) for s, c in CITIES.items()}
    for scope, scope_docs in docs.items():
        assert {d.scope for d in scope_docs} == {scope}
        assert {d.kind for d in scope_docs} == set(ALL_KINDS)
    ids_a, ids_b = ({d.doc_id for d in scope_docs} for scope_docs in docs.values())
    assert not ids_a & ids_b  # the property home_city too: its id hashes the scope


def test_a_full_rebuild_reads_each_rows_scope(store: SQLiteGraphStore) -> None:
    from_store = sorted(graph_documents(store), key=lambda d: d.doc_id)
    from_batches = [d for s, c in CITIES.items() for d in documents_from_batch(mom_batch(s, c))]
    assert from_store == sorted(from_batches, key=lambda d: d.doc_id)
    search = _search()
    assert index_graph(search, store) == len(from_batches)
    assert _scopes_of(search, from_batches) == {d.doc_id: d.scope for d in from_batches}


@pytest.mark.parametrize("config", [BM25_ONLY, DENSE_ONLY, HYBRID], ids=lambda c: c.name)
def test_an_index_that_follows_batches_keeps_their_scopes(
    store: SQLiteGraphStore, config: SearchConfig
) -> None:
    """Memory indexes each written batch with ``index_batches``: the documents it rebuilds
    from the store (turn windows, touched entities) and from the batch keep their scope."""
    search = _search(config)
    batches = {s: mom_batch(s, c) for s, c in CITIES.items()}
    for batch in batches.values():
        index_batches(search, store, [batch])
    expected = [d for b in batches.values() for d in documents_from_batch(b)]
    assert search.index.count() == len(expected)
    assert _scopes_of(search, expected) == {d.doc_id: d.scope for d in expected}
    for scope, batch in batches.items():
        own = {d.graph_id for d in documents_from_batch(batch)}
        for query in ("Where does Mom live? home city Lisbon", "Mom moved to Oslo, home city"):
            results = search.search(query, k=10, filters=SearchFilters(scope=scope))
            for kind in ALL_KINDS:
                found = {h.graph_id for h in results.group(kind)}
                assert found and found <= own, (scope, query, kind)


def _schema_2_file(path: Path, docs: list[SearchDocument], embedder: HashingEmbedder) -> None:
    """An index file as written before scopes: no scope column, no scope in the JSON."""
    prepared = HybridSearch(EmbeddedIndex(), embedder).prepare(docs)
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE search_docs (rowid INTEGER PRIMARY KEY, doc_id TEXT UNIQUE NOT NULL, "
        "kind TEXT NOT NULL, conversation_id TEXT, session_id TEXT, speaker TEXT, time TEXT, "
        "doc_json TEXT NOT NULL, text_vector BLOB NOT NULL, context_vector BLOB NOT NULL, "
        "text_terms TEXT NOT NULL DEFAULT '', context_terms TEXT NOT NULL DEFAULT '')"
    )
    db.execute("CREATE TABLE search_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.executemany(
        "INSERT INTO search_meta VALUES (?, ?)",
        [("dimensions", str(embedder.dimensions)), ("embedder", embedder.name), ("schema", "2")],
    )
    for item in prepared:
        d = item.doc
        db.execute(
            "INSERT INTO search_docs (doc_id, kind, conversation_id, session_id, speaker, time, "
            "doc_json, text_vector, context_vector, text_terms, context_terms) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (d.doc_id, d.kind.value, d.conversation_id, d.session_id, d.speaker, d.time,
             d.model_dump_json(exclude={"scope"}), item.text_vector.tobytes(),
             item.context_vector.tobytes(), item.text_terms, item.context_terms),
        )  # fmt: skip
    db.commit()
    db.close()


@pytest.mark.parametrize("opening", ["create", "reader"])
def test_an_index_file_from_before_scopes_joins_the_default_scope(
    tmp_path: Path, opening: str
) -> None:
    """Its documents get the scope 'default', the scope the store gives rows written before
    scopes; a reader that never calls create() migrates the file as well."""
    path = tmp_path / "old.sqlite3"
    embedder = HashingEmbedder(dimensions=16)
    _schema_2_file(path, corpus(), embedder)
    search = HybridSearch(EmbeddedIndex(path), embedder)
    if opening == "create":
        search.create()
    default = SearchFilters(scope="default")
    assert (
        search.search("necklace", k=1, filters=default)
        .turns[0]
        .text.startswith("Caroline: My friends")
    )
    assert {d.scope for d in search.index.get([d.doc_id for d in corpus()]).values()} == {"default"}
    assert search.search("necklace", k=1, filters=SearchFilters(scope="conv-a")).turns == []
    newcomer = corpus()[0].model_copy(update={"graph_id": "turn_new", "scope": "conv-a"})
    search.index_documents([newcomer])
    found = search.search("support group", k=5, filters=SearchFilters(scope="conv-a")).turns
    assert [h.graph_id for h in found] == ["turn_new"]
    search.index.close()
    db = sqlite3.connect(path)
    columns = {row[1] for row in db.execute("PRAGMA table_info(search_docs)")}
    indexes = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    db.close()
    assert "scope" in columns and "search_docs_scope" in indexes
    reopened = HybridSearch(EmbeddedIndex(path), embedder)
    reopened.create()  # migrating twice changes nothing
    assert reopened.index.count() == len(corpus()) + 1
    reopened.index.close()
