"""Turn metadata in the shared store suite: every backend stores it, reads it back and keeps
exactly the turns ``matches`` keeps when a page filters on it."""

from __future__ import annotations

import pytest

from apexmem_neo.ontology import GraphBatch, Session, Turn
from apexmem_neo.ontology.metadata import Metadata, matches
from apexmem_neo.store import GraphStore
from apexmem_neo.store.pages import ENTITIES, TURNS, Page, every_item

SESSION = Session(conversation_id="tags", seq=1)
TAGS: list[Metadata] = [
    {"lang": "en", "n": 1},
    {"lang": "de", "n": 1.0},
    {"lang": "en", "n": True, "note": None},
    {},
    {"lang": "en", "n": "1", "é": "ü"},
]
FILTERS: list[Metadata] = [
    {"lang": "en"},
    {"n": 1},
    {"n": 1.0},
    {"n": True},
    {"n": "1"},
    {"note": None},
    {"lang": "en", "n": 1},
    {"é": "ü"},
    {"missing": None},
]


def tagged_batch() -> GraphBatch:
    turns = [
        Turn(
            session_id=SESSION.session_id,
            seq=n,
            speaker="Ann",
            text=f"turn {n}",
            anchor_datetime="2024-01-01",
            metadata=tags,
        )
        for n, tags in enumerate(TAGS)
    ]
    return GraphBatch(scope="tags", sessions=[SESSION], turns=turns)


def read_all(store: GraphStore, metadata: Metadata | None = None) -> list[Turn]:
    def read(after: str | None) -> Page[Turn]:
        return store.page(TURNS, scope="tags", after=after, limit=1, metadata=metadata)

    return every_item(read)


def test_metadata_is_read_back_as_written(store: GraphStore) -> None:
    store.write(tagged_batch())
    assert [t.metadata for t in read_all(store)] == TAGS


@pytest.mark.parametrize("wanted", FILTERS, ids=str)
def test_a_metadata_filter_keeps_what_matches_keeps(store: GraphStore, wanted: Metadata) -> None:
    store.write(tagged_batch())
    expected = [t.text for t in tagged_batch().turns if matches(t.metadata, wanted)]
    assert [t.text for t in read_all(store, wanted)] == expected


def test_a_session_page_filters_on_metadata_too(store: GraphStore) -> None:
    store.write(tagged_batch())
    page = store.page(
        TURNS, scope="tags", filters={"session_id": SESSION.session_id}, metadata={"lang": "en"}
    )
    assert [t.seq for t in page.items] == [0, 2, 4]


def test_only_turns_have_metadata_to_filter_on(store: GraphStore) -> None:
    with pytest.raises(ValueError, match="entities pages have no metadata"):
        store.page(ENTITIES, scope="tags", metadata={"lang": "en"})
