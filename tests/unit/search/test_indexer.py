"""Indexing a stored graph for Search (apexmem_neo.search.indexer): documents read page by page
from the store, idempotence, `apexmem index`, missing index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from apexmem_neo.cli.app import app
from apexmem_neo.construction.loaders import load_turns
from apexmem_neo.memory import Memory
from apexmem_neo.search import HybridSearch, SearchFilters, documents_from_batch
from apexmem_neo.search.backends.embedded import EmbeddedIndex
from apexmem_neo.search.documents import DocKind
from apexmem_neo.search.embedder import CachedEmbedder
from apexmem_neo.search.indexer import graph_documents, index_graph
from apexmem_neo.settings import Settings
from apexmem_neo.store.sqlite import SQLiteGraphStore
from apexmem_neo.testing import HashingEmbedder
from tests.unit.agent.alice import TURN_2, alice_batch, alice_store
from tests.unit.store import old_ids

runner = CliRunner()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteGraphStore]:
    """The Alice case in a SQLite store."""
    s = alice_store(tmp_path / "alice.sqlite")
    yield s
    s.close()


@pytest.mark.parametrize("page", [1, 2000], ids=["pages-of-one", "one-page"])
def test_graph_documents_equal_the_batch_documents(
    store: SQLiteGraphStore, page: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("apexmem_neo.search.indexer.PAGE", page)
    from_store = sorted(graph_documents(store), key=lambda d: d.doc_id)
    from_batch = sorted(documents_from_batch(alice_batch()), key=lambda d: d.doc_id)
    assert from_store == from_batch


def test_reindexing_is_idempotent_and_uses_the_cache(
    store: SQLiteGraphStore, tmp_path: Path
) -> None:
    inner = HashingEmbedder()
    embedder = CachedEmbedder(inner, tmp_path / "cache.db")
    index = EmbeddedIndex(tmp_path / "idx.sqlite")
    search = HybridSearch(index, embedder)
    first = index_graph(search, store)
    calls = len(inner.calls)
    second = index_graph(search, store)
    assert first == second == index.count() == len(documents_from_batch(alice_batch()))
    assert len(inner.calls) == calls  # the second pass embedded nothing new
    hits = search.search("Sakura Sushi", k=2, filters=SearchFilters(scope="default")).turns
    assert hits and hits[0].graph_id == TURN_2
    index.close()
    embedder.close()


def test_an_index_of_old_property_ids_is_rebuilt_not_doubled(
    store: SQLiteGraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index built before the short prefixes names prop_ ids the migrated graph lacks."""
    old_ids.use_old_prefixes(monkeypatch)
    old_docs = documents_from_batch(alice_batch())
    old_ids.restore_prefixes(monkeypatch)
    old_property_ids = [d.doc_id for d in old_docs if d.kind is DocKind.PROPERTY]
    assert old_property_ids and all(":prop_" in i for i in old_property_ids)
    index = EmbeddedIndex(tmp_path / "idx.sqlite")
    search = HybridSearch(index, HashingEmbedder())
    search.create()
    search.index_documents(old_docs)
    assert index_graph(search, store) == index.count() == len(old_docs)
    assert index.get(old_property_ids) == {}
    properties = search.search("favourite", k=20, filters=SearchFilters(scope="default")).properties
    assert properties and all(h.graph_id.startswith("prp_") for h in properties)
    index.close()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("APEXMEM_HOME", str(tmp_path))
    monkeypatch.setenv("APEXMEM_EMBED_MODEL", "all-MiniLM-L6-v2")  # packaged, loads offline
    for name in ("APEXMEM_EMBED_CACHE", "APEXMEM_STORE", "APEXMEM_DB", "APEXMEM_SEARCH"):
        monkeypatch.delenv(name, raising=False)
    path = tmp_path / "data" / "apexmem.sqlite"
    path.parent.mkdir(parents=True)
    s = SQLiteGraphStore(path)
    s.init_schema()
    s.write(alice_batch())
    s.close()
    return tmp_path


def test_embedding_cache_lives_under_apexmem_home(home: Path) -> None:
    assert Settings().embed_cache == home / "cache" / "embeddings.db"


def test_missing_index_is_reported_with_the_command_to_build_it(home: Path) -> None:
    res = runner.invoke(app, ["search", "Sakura Sushi"])
    assert res.exit_code == 0, res.output
    err = " ".join(res.stderr.split())
    assert "no search index" in err and "Build it with `apexmem index`" in err
    assert not (home / "data" / "apexmem.search.sqlite").exists()  # looking does not create it


@pytest.mark.timeout(300)
def test_index_command_builds_the_index_beside_the_store(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from apexmem_neo.search.backends.embedded import EmbeddedIndex

    optimized: list[int] = []  # document counts at each optimize() (the real one runs too)
    real_optimize = EmbeddedIndex.optimize

    def counting_optimize(index: EmbeddedIndex) -> None:
        optimized.append(index.count())
        real_optimize(index)

    monkeypatch.setattr(EmbeddedIndex, "optimize", counting_optimize)
    first = runner.invoke(app, ["index"])
    assert first.exit_code == 0, first.output
    path = home / "data" / "apexmem.search.sqlite"
    assert path.is_file() and "indexed 6 documents" in first.output
    assert optimized == [6]  # a bulk load into an empty index is optimised
    again = runner.invoke(app, ["index"])
    assert again.exit_code == 0 and "indexed 6 documents" in again.output
    assert optimized == [6]  # the index held documents: a refresh, not a bulk load
    rebuilt = runner.invoke(app, ["index", "--rebuild"])
    assert rebuilt.exit_code == 0 and "indexed 6 documents" in rebuilt.output
    assert optimized == [6, 6]
    skipped = runner.invoke(app, ["index", "--rebuild", "--no-optimize"])
    assert skipped.exit_code == 0 and optimized == [6, 6]
    assert (home / "cache" / "embeddings.db").is_file()
    with Memory.from_settings(Settings(), create=False) as memory:
        found = memory.search("Sakura Sushi", scope="default", k=2)
        assert TURN_2 in [h.graph_id for h in found.turns]
        assert [h.graph_id for h in found.entities] == ["alice_ent"]


def test_sample_conversation_is_value_first_jsonl() -> None:
    from apexmem_neo.samples import sample_path

    turns = load_turns(sample_path(), "auto")
    assert len(turns) == 6 and {t.speaker for t in turns} == {"Alice"}
    texts = [t.text for t in turns]
    assert texts[0] == "My favourite restaurant is Italian Garden."
    assert texts[3] == "Sakura Sushi is my favourite restaurant now."
    assert [t.anchor[:10] for t in turns if "favourite" in t.text] == ["2024-01-15", "2024-03-20"]
