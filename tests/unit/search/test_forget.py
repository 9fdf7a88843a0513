"""Forgetting on the embedded index and the embedding cache: the shared cases, then the files.

After ``HybridSearch.forget`` no byte of the index file, its write-ahead log or the cache
file holds the secret word, whatever the file went through before (re-indexing, rows an
older version replaced without zeroing them, WAL mode), and the cache holds no vector of an
erased document's texts.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from apexmem_neo.search.backends.embedded import EmbeddedIndex
from apexmem_neo.search.backends.neo4j_native import load_cypher
from apexmem_neo.search.documents import SearchDocument
from apexmem_neo.search.embedder import CachedEmbedder
from apexmem_neo.search.engine import HybridSearch, embedded_texts
from apexmem_neo.search.protocol import ForgetfulEmbedder, SearchError, SearchFilters
from apexmem_neo.testing import HashingEmbedder
from tests.unit.search.forget_contract import *  # noqa: F403
from tests.unit.search.forget_contract import (
    SCOPE_A,
    SCOPE_B,
    SECRET,
    SECRET_FORMS,
    SECRET_IDS,
    a_documents,
    b_documents,
    graph_ids_found,
)


@pytest.fixture(params=["memory", "file"])
def make_index(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[Callable[[], EmbeddedIndex]]:
    made: list[EmbeddedIndex] = []

    def _make() -> EmbeddedIndex:
        path = ":memory:" if request.param == "memory" else tmp_path / f"f{len(made)}.sqlite"
        made.append(EmbeddedIndex(path))
        return made[-1]

    yield _make
    for index in made:
        index.close()


def secret_bytes(folder: Path) -> dict[str, int]:
    """Occurrences of the secret (as said and as analysed) in every file under ``folder``."""
    found: dict[str, int] = {}
    for file in sorted(folder.iterdir()):
        data = file.read_bytes().lower()
        hits = sum(data.count(form.encode()) for form in SECRET_FORMS)
        if hits:
            found[file.name] = hits
    return found


def cache_keys(path: Path) -> set[str]:
    with sqlite3.connect(path) as db:
        return {row[0] for row in db.execute("SELECT text_hash FROM embeddings")}


def keys_of(texts: list[str]) -> set[str]:
    return {hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts}


def only_erased_say_the_secret(tmp_path: Path) -> tuple[HybridSearch, Path]:
    """An index file and a cache file of scope A's documents (only the erased ones say the
    secret) and scope B's documents, which do not say it here."""
    index_file, cache_file = tmp_path / "index.sqlite", tmp_path / "cache.sqlite"
    search = HybridSearch(
        EmbeddedIndex(index_file), CachedEmbedder(HashingEmbedder(dimensions=32), cache_file)
    )
    search.create()
    b_docs = [
        d.model_copy(update={"text": "Cy: a quiet day", "context": ""}) for d in b_documents()
    ]
    search.index_documents(a_documents() + b_docs)
    return search, cache_file


def retitled() -> list[SearchDocument]:
    """Scope A's documents changed a little: re-indexing them rewrites their rows (SQLite
    skips writing a row that did not change)."""
    return [d.model_copy(update={"title": f"{d.title} v2"}) for d in a_documents()]


def close(search: HybridSearch) -> None:
    search.index.close()
    assert isinstance(search.embedder, CachedEmbedder)
    search.embedder.close()


def test_no_byte_of_the_secret_is_left_in_any_file(tmp_path: Path) -> None:
    search, cache_file = only_erased_say_the_secret(tmp_path)
    search.index_documents(retitled())  # re-indexing replaces rows: old versions too
    search.search(f"what is {SECRET}", filters=SearchFilters(scope=SCOPE_A))
    assert "index.sqlite" in secret_bytes(tmp_path)
    erased = search.forget(SCOPE_A, SECRET_IDS)
    assert len(erased) == len(SECRET_IDS)
    close(search)
    assert secret_bytes(tmp_path) == {}
    kept = [d for d in a_documents() if d.graph_id not in SECRET_IDS]
    assert keys_of(embedded_texts(erased)).isdisjoint(cache_keys(cache_file))
    assert keys_of(embedded_texts(kept)) <= cache_keys(cache_file)
    reopened = HybridSearch(
        EmbeddedIndex(tmp_path / "index.sqlite"), HashingEmbedder(dimensions=32)
    )
    assert "ent_forget_ann" in graph_ids_found(reopened, "Ann person", SCOPE_A)
    assert graph_ids_found(reopened, "quiet day", SCOPE_B)
    reopened.index.close()


def test_the_cache_keeps_no_vector_of_an_erased_text(tmp_path: Path) -> None:
    """Exactly the texts the index embedded for the erased documents leave the cache."""
    search, cache_file = only_erased_say_the_secret(tmp_path)
    everything = cache_keys(cache_file)
    erased = search.forget(SCOPE_A, SECRET_IDS)
    kept = [d for d in a_documents() if d.graph_id not in SECRET_IDS]
    assert keys_of(embedded_texts(erased)) <= everything  # the keys the index embedded
    assert cache_keys(cache_file) == everything - (
        keys_of(embedded_texts(erased)) - keys_of(embedded_texts(kept))
    )
    assert any(d.date_words for d in erased)  # the keys cover the dated form, as embedded
    close(search)


def test_a_file_an_older_version_wrote_is_scrubbed_of_old_row_versions(tmp_path: Path) -> None:
    """Rows replaced by a connection that did not zero freed space leave their old bytes in
    the file; the first erase rewrites such a file (no ``secure_delete`` mark in its meta)."""
    search, _ = only_erased_say_the_secret(tmp_path)
    close(search)
    with sqlite3.connect(tmp_path / "index.sqlite") as raw:
        raw.execute("PRAGMA secure_delete = OFF")
        raw.execute("DELETE FROM search_meta WHERE key = 'secure_delete'")
        raw.execute("UPDATE search_docs SET context_terms = context_terms || hex(randomblob(300))")
        live = sum(
            str(value).lower().count(SECRET)
            for row in raw.execute("SELECT doc_json, text_terms, context_terms FROM search_docs")
            for value in row
        )
    raw.close()
    on_disk = (tmp_path / "index.sqlite").read_bytes().count(SECRET.encode())
    assert on_disk > live  # old row versions the update left behind
    index = EmbeddedIndex(tmp_path / "index.sqlite")
    assert len(index.delete_documents(SCOPE_A, SECRET_IDS)) == len(SECRET_IDS)
    index.close()
    assert "index.sqlite" not in secret_bytes(tmp_path)


def test_a_write_ahead_log_is_truncated(tmp_path: Path) -> None:
    search, _ = only_erased_say_the_secret(tmp_path)
    close(search)
    with sqlite3.connect(tmp_path / "index.sqlite") as raw:
        assert raw.execute("PRAGMA journal_mode = WAL").fetchone() == ("wal",)
    raw.close()
    index = EmbeddedIndex(tmp_path / "index.sqlite")
    HybridSearch(index, HashingEmbedder(dimensions=32)).index_documents(retitled())
    assert secret_bytes(tmp_path).get("index.sqlite-wal")  # the re-indexed rows are in the log
    index.delete_documents(SCOPE_A, SECRET_IDS)
    assert (tmp_path / "index.sqlite-wal").stat().st_size == 0
    assert secret_bytes(tmp_path) == {}
    index.close()


def test_a_reader_holding_the_log_makes_forget_fail_until_it_is_done(tmp_path: Path) -> None:
    search, _ = only_erased_say_the_secret(tmp_path)
    close(search)
    with sqlite3.connect(tmp_path / "index.sqlite") as raw:
        raw.execute("PRAGMA journal_mode = WAL")
    raw.close()
    index = EmbeddedIndex(tmp_path / "index.sqlite")
    HybridSearch(index, HashingEmbedder(dimensions=32)).index_documents(retitled())
    reader = sqlite3.connect(tmp_path / "index.sqlite", isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM search_docs").fetchone()
    with pytest.raises(SearchError, match="erase again"):
        index.delete_documents(SCOPE_A, SECRET_IDS)
    reader.execute("COMMIT")
    reader.close()
    assert index.delete_documents(SCOPE_A, SECRET_IDS) == []  # already deleted: log truncated
    assert secret_bytes(tmp_path) == {}
    index.close()


def test_cached_embedder_forgets_texts_of_its_model_only(tmp_path: Path) -> None:
    inner = HashingEmbedder(dimensions=8)
    cache = CachedEmbedder(inner, tmp_path / "cache.sqlite")
    other = CachedEmbedder(HashingEmbedder(dimensions=8, seed=1), tmp_path / "cache.sqlite")
    cache.embed(["alpha one", "beta two", "gamma three"])
    other.embed(["alpha one"])
    assert isinstance(cache, ForgetfulEmbedder)
    assert cache.forget(["alpha one", "beta two", "never cached"]) == 2
    assert len(cache_keys(tmp_path / "cache.sqlite")) == 2  # gamma, and the other model's alpha
    inner.calls.clear()
    cache.embed(["alpha one", "gamma three"])
    assert inner.calls == [["alpha one"]]  # forgotten: computed again; gamma still cached
    cache.close()
    other.close()


def test_forgetting_with_no_cache_file_creates_none(tmp_path: Path) -> None:
    cache = CachedEmbedder(HashingEmbedder(dimensions=8), tmp_path / "cache.sqlite")
    assert cache.forget(["anything"]) == 0
    assert not (tmp_path / "cache.sqlite").exists()


def test_an_embedder_without_a_cache_is_left_alone() -> None:
    assert not isinstance(HashingEmbedder(), ForgetfulEmbedder)
    search = HybridSearch(EmbeddedIndex(), HashingEmbedder(dimensions=32))
    search.create()
    search.index_documents(a_documents())
    assert len(search.forget(SCOPE_A, SECRET_IDS)) == len(SECRET_IDS)


def test_the_neo4j_forget_statement_loads() -> None:
    (statement,) = load_cypher("queries/search_forget", label="SearchDoc_T1", prefix="search_t1")
    assert "DETACH DELETE n" in statement and "SearchDoc_T1" in statement
