"""The shared SearchIndex suite on the embedded index (SQLite FTS5 + numpy)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from apexmem_neo.search.backends import embedded
from apexmem_neo.search.backends.embedded import EmbeddedIndex
from apexmem_neo.search.config import DocField, Method
from apexmem_neo.search.documents import DocKind, SearchDocument
from apexmem_neo.search.engine import HybridSearch
from apexmem_neo.search.protocol import (
    ChannelRequest,
    IndexedDocument,
    SearchError,
    SearchFilters,
)
from apexmem_neo.testing import HashingEmbedder
from tests.unit.search.contract import *  # noqa: F403
from tests.unit.search.contract import IN_SCOPE, corpus
from tests.unit.search.scope_contract import *  # noqa: F403


@pytest.fixture(params=["memory", "file", "sign-bits"])
def make_index(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[[], EmbeddedIndex]]:
    """Each backend case runs in memory, on a file, and with the large-index dense path
    (sign-bit first pass, then exact scores) forced on the small test corpus."""
    made: list[EmbeddedIndex] = []
    if request.param == "sign-bits":
        monkeypatch.setattr(embedded, "EXACT_DENSE_LIMIT", 0)

    def _make() -> EmbeddedIndex:
        path = ":memory:" if request.param != "file" else tmp_path / f"s{len(made)}.sqlite3"
        made.append(EmbeddedIndex(path))
        return made[-1]

    yield _make
    for index in made:
        index.close()


def built_index_file(path: Path) -> HybridSearch:
    """Build the contract corpus into an index file, close it; a fresh search on the file."""
    embedder = HashingEmbedder(dimensions=16)
    builder = HybridSearch(EmbeddedIndex(path), embedder)
    builder.create()
    builder.index_documents(corpus())
    builder.index.close()
    return HybridSearch(EmbeddedIndex(path), embedder)


def test_index_survives_reopening(tmp_path: Path) -> None:
    again = built_index_file(tmp_path / "x.sqlite3")
    again.create()
    assert again.index.count() == len(corpus())
    assert (
        again.search("necklace", k=1, filters=IN_SCOPE)
        .turns[0]
        .text.startswith("Caroline: My friends")
    )


def test_a_built_index_file_is_searchable_without_create(tmp_path: Path) -> None:
    """The benchmarks' readers opened a built file without create(): every search raised and
    the agent's prefetch showed no turns. A reader now opens an existing file by itself."""
    reader = built_index_file(tmp_path / "built.sqlite3")
    assert (
        reader.search("necklace", k=1, filters=IN_SCOPE)
        .turns[0]
        .text.startswith("Caroline: My friends")
    )
    assert reader.index.count() == len(corpus())


def test_a_file_that_is_not_an_index_is_named(tmp_path: Path) -> None:
    other = tmp_path / "graph.sqlite3"
    sqlite3.connect(other).execute("CREATE TABLE facts (x)").connection.commit()
    with pytest.raises(SearchError, match="graph.sqlite3 is not a search index"):
        EmbeddedIndex(other).count()


def test_use_before_create_and_dimension_mismatch(tmp_path: Path) -> None:
    index = EmbeddedIndex(tmp_path / "y.sqlite3")
    with pytest.raises(SearchError, match=r"no index at .*y\.sqlite3; call create\(\)"):
        index.count()
    index.create(8)
    index.close()
    with pytest.raises(SearchError, match="8-d"):
        EmbeddedIndex(tmp_path / "y.sqlite3").create(16)


def test_writes_after_the_first_query_are_searchable() -> None:
    from apexmem_neo.search.config import BM25_ONLY
    from apexmem_neo.search.engine import HybridSearch
    from apexmem_neo.testing import HashingEmbedder
    from tests.unit.search.contract import corpus

    docs = corpus()
    search = HybridSearch(EmbeddedIndex(), HashingEmbedder(dimensions=16), BM25_ONLY)
    search.create()
    search.index_documents([d for d in docs if "necklace" not in d.context_text])
    assert (
        search.search("necklace", k=3, filters=IN_SCOPE).turns == []
    )  # loads the in-memory arrays
    search.index_documents(docs)
    assert (
        search.search("necklace", k=1, filters=IN_SCOPE)
        .turns[0]
        .text.startswith("Caroline: My friends")
    )
    search.index.close()


def test_an_fts5_index_file_is_migrated(tmp_path: Path) -> None:
    """Files written by schema 1 kept the terms only in FTS5 tables."""
    import sqlite3

    from apexmem_neo.search.engine import HybridSearch
    from apexmem_neo.testing import HashingEmbedder
    from tests.unit.search.contract import corpus

    path = tmp_path / "old.sqlite3"
    embedder = HashingEmbedder(dimensions=16)
    prepared = HybridSearch(EmbeddedIndex(), embedder).prepare(corpus())
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE search_docs (rowid INTEGER PRIMARY KEY, doc_id TEXT UNIQUE NOT NULL, "
        "kind TEXT NOT NULL, conversation_id TEXT, session_id TEXT, speaker TEXT, time TEXT, "
        "doc_json TEXT NOT NULL, text_vector BLOB NOT NULL, context_vector BLOB NOT NULL)"
    )
    db.execute("CREATE TABLE search_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.execute("INSERT INTO search_meta VALUES ('dimensions', '16')")
    for table in ("search_fts_text", "search_fts_context"):
        db.execute(f"CREATE VIRTUAL TABLE {table} USING fts5(terms)")
    for rowid, item in enumerate(prepared, start=1):
        d = item.doc
        db.execute(
            "INSERT INTO search_docs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (rowid, d.doc_id, d.kind.value, d.conversation_id, d.session_id, d.speaker,
             d.time, d.model_dump_json(exclude={"scope"}), item.text_vector.tobytes(),
             item.context_vector.tobytes()),
        )  # fmt: skip
        db.execute("INSERT INTO search_fts_text VALUES (?)", (item.text_terms,))
        db.execute("INSERT INTO search_fts_context VALUES (?)", (item.context_terms,))
    db.commit()
    db.close()
    search = HybridSearch(EmbeddedIndex(path), embedder)
    search.create()
    # Schema 1 predates scopes too: its documents join the scope 'default'.
    hits = search.search("necklace", k=1, filters=SearchFilters(scope="default")).turns
    assert hits[0].text.startswith("Caroline: My friends")
    tables = sqlite3.connect(path).execute("SELECT name FROM sqlite_master").fetchall()
    assert not [name for (name,) in tables if name.startswith("search_fts")]
    search.index.close()


def test_a_repeated_query_is_embedded_once() -> None:
    from apexmem_neo.search.engine import HybridSearch
    from apexmem_neo.testing import HashingEmbedder
    from tests.unit.search.contract import corpus

    embedder = HashingEmbedder(dimensions=16)
    search = HybridSearch(EmbeddedIndex(), embedder)
    search.create()
    search.index_documents(corpus())
    embedder.calls.clear()
    first = search.search("painted sunrise", k=3, filters=IN_SCOPE)
    again = search.search("painted sunrise", k=3, filters=IN_SCOPE)
    assert first == again
    assert embedder.calls == [["painted sunrise"]]
    search.index.close()


def _clustered_index(n: int, dims: int, seed: int) -> tuple[EmbeddedIndex, np.ndarray]:
    """``n`` turns whose unit vectors sit around 50 centres (sentence embeddings cluster)."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((50, dims))
    vectors = centres[rng.integers(0, 50, n)] + 0.7 * rng.standard_normal((n, dims)) + 2.0
    vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
    index = EmbeddedIndex()
    index.create(dims)
    docs = [
        SearchDocument(kind=DocKind.TURN, graph_id=f"t{i}", scope="s", text=f"turn {i}", context="")
        for i in range(n)
    ]
    index.upsert(IndexedDocument(d, "", "", v, v) for d, v in zip(docs, vectors, strict=True))
    return index, vectors


def test_large_index_sign_bit_first_pass_finds_the_exact_neighbours(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Above EXACT_DENSE_LIMIT only the documents nearest in sign bits are scored exactly;
    with 96-d vectors (not whole 64-bit words) the top 10 must match exact search."""
    index, vectors = _clustered_index(3000, 96, seed=5)
    rng = np.random.default_rng(6)
    queries = []
    for source in rng.integers(0, 3000, 20):
        q = vectors[source] + 0.02 * rng.standard_normal(96)
        queries.append((int(source), tuple(float(x) for x in q / np.linalg.norm(q))))

    def top10(vector: tuple[float, ...]) -> list[str]:
        request = ChannelRequest(method=Method.DENSE, field=DocField.TEXT, k=10, vector=vector)
        return [h.doc_id for h in index.retrieve([request])[0]]

    exact = [top10(q) for _, q in queries]
    monkeypatch.setattr(embedded, "EXACT_DENSE_LIMIT", 1000)
    monkeypatch.setattr(embedded, "MIN_CANDIDATES", 100)  # 100 of 3000 scored exactly
    memory = index._memory
    assert memory is not None
    memory.changed()
    first_pass = memory.dense_query(DocField.TEXT, np.asarray(queries[0][1], np.float32))
    assert first_pass.exact is None and first_pass.distances is not None  # not the exact scan
    approximate = [top10(q) for _, q in queries]
    overlap = [len(set(a) & set(e)) / 10 for a, e in zip(approximate, exact, strict=True)]
    assert sum(overlap) / len(overlap) >= 0.9, overlap
    assert [ids[0] for ids in approximate] == [ids[0] for ids in exact]
    docs = index.get([ids[0] for ids in approximate])
    assert [docs[ids[0]].graph_id for ids in approximate] == [f"t{s}" for s, _ in queries]
    index.close()
