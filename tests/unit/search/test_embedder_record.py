"""The embedded index records its embedder (model name and dimensions) and refuses another."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from apexmem_neo.search import EmbedderMismatchError, SearchError
from apexmem_neo.search.backends.embedded import EmbeddedIndex
from apexmem_neo.search.engine import HybridSearch
from apexmem_neo.search.protocol import reconcile_embedder
from apexmem_neo.testing import HashingEmbedder
from tests.unit.search.contract import corpus


class RenamedEmbedder(HashingEmbedder):
    """The hashing embedder under another model name (same dimensions, same vectors)."""

    @property
    def name(self) -> str:
        return "other-model"


def built(path: Path, embedder: HashingEmbedder) -> None:
    search = HybridSearch(EmbeddedIndex(path), embedder)
    search.create()
    search.index_documents(corpus())
    search.index.close()


def test_create_records_the_embedder(tmp_path: Path) -> None:
    path = tmp_path / "x.sqlite3"
    assert EmbeddedIndex(path).embedder_info() is None
    built(path, HashingEmbedder(dimensions=16))
    assert EmbeddedIndex(path).embedder_info() == ("hashing-16-0", 16)


def test_another_model_is_refused_in_one_line_naming_both(tmp_path: Path) -> None:
    path = tmp_path / "x.sqlite3"
    built(path, HashingEmbedder(dimensions=16))
    search = HybridSearch(EmbeddedIndex(path), RenamedEmbedder(dimensions=16))
    with pytest.raises(EmbedderMismatchError) as caught:
        search.create()
    message = str(caught.value)
    assert "\n" not in message
    assert "'hashing-16-0' (16-d)" in message and "'other-model' (16-d)" in message
    assert "APEXMEM_EMBED_MODEL=hashing-16-0" in message and "apexmem index --rebuild" in message
    assert isinstance(caught.value, SearchError)
    assert caught.value.stored == ("hashing-16-0", 16)
    search.index.close()
    assert EmbeddedIndex(path).embedder_info() == ("hashing-16-0", 16)  # record unchanged


def test_the_same_model_reopens(tmp_path: Path) -> None:
    path = tmp_path / "x.sqlite3"
    built(path, HashingEmbedder(dimensions=16))
    search = HybridSearch(EmbeddedIndex(path), HashingEmbedder(dimensions=16))
    search.create()
    assert search.index.count() == len(corpus())
    search.index.close()


def test_another_vector_size_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.sqlite3"
    built(path, HashingEmbedder(dimensions=16))
    with pytest.raises(EmbedderMismatchError, match=r"\(16-d\).*'hashing-8-0' \(8-d\)"):
        HybridSearch(EmbeddedIndex(path), HashingEmbedder(dimensions=8)).create()


def test_an_index_without_a_name_adopts_the_first_one(tmp_path: Path) -> None:
    """Indexes written before names were recorded hold only their vector size."""
    path = tmp_path / "old.sqlite3"
    built(path, HashingEmbedder(dimensions=16))
    db = sqlite3.connect(path)
    db.execute("DELETE FROM search_meta WHERE key = 'embedder'")
    db.commit()
    db.close()
    assert EmbeddedIndex(path).embedder_info() == ("", 16)
    with pytest.raises(EmbedderMismatchError, match="an unrecorded embedder"):
        HybridSearch(EmbeddedIndex(path), HashingEmbedder(dimensions=8)).create()
    search = HybridSearch(EmbeddedIndex(path), RenamedEmbedder(dimensions=16))
    search.create()
    search.index.close()
    assert EmbeddedIndex(path).embedder_info() == ("other-model", 16)
    with pytest.raises(EmbedderMismatchError, match="'other-model'"):
        HybridSearch(EmbeddedIndex(path), HashingEmbedder(dimensions=16)).create()


def test_a_caller_without_a_name_is_checked_on_dimensions(tmp_path: Path) -> None:
    path = tmp_path / "x.sqlite3"
    built(path, HashingEmbedder(dimensions=16))
    index = EmbeddedIndex(path)
    index.create(16)
    assert index.embedder_info() == ("hashing-16-0", 16)
    index.close()
    with pytest.raises(EmbedderMismatchError, match="an unnamed embedder"):
        EmbeddedIndex(path).create(8)


def test_drop_forgets_the_record(tmp_path: Path) -> None:
    index = EmbeddedIndex(tmp_path / "x.sqlite3")
    index.create(16, "hashing-16-0")
    index.drop()
    assert index.embedder_info() is None
    index.create(8, "other-model")
    assert index.embedder_info() == ("other-model", 8)
    index.close()


def test_an_in_memory_index_records_its_embedder() -> None:
    index = EmbeddedIndex()
    assert index.embedder_info() is None
    index.create(16, "hashing-16-0")
    assert index.embedder_info() == ("hashing-16-0", 16)
    with pytest.raises(EmbedderMismatchError, match=":memory:"):
        index.create(16, "other-model")
    index.close()


@pytest.mark.parametrize(
    ("stored", "given", "record"),
    [
        (None, ("m", 8), True),
        (("m", 8), ("m", 8), False),
        (("", 8), ("m", 8), True),
        (("m", 8), ("", 8), False),
        (("", 8), ("", 8), False),
    ],
)
def test_reconcile_accepts_and_says_when_to_record(
    stored: tuple[str, int] | None, given: tuple[str, int], record: bool
) -> None:
    assert reconcile_embedder("here", stored, given) is record


@pytest.mark.parametrize(
    ("stored", "given"), [(("m", 8), ("n", 8)), (("m", 8), ("m", 16)), (("", 8), ("", 16))]
)
def test_reconcile_refuses(stored: tuple[str, int], given: tuple[str, int]) -> None:
    with pytest.raises(EmbedderMismatchError, match="search index here was built with"):
        reconcile_embedder("here", stored, given)
