"""Turn metadata in the shared store suite: every backend stores it, reads it back and keeps
exactly the turns ``matches`` keeps when a page filters on it."""

from __future__ import annotations

import random

import pytest

from apexmem_neo.ontology import GraphBatch, Session, Turn
from apexmem_neo.ontology.metadata import Metadata, matches, metadata_json, metadata_needles
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


def tagged_batch(given: list[Metadata] | None = None) -> GraphBatch:
    turns = [
        Turn(
            session_id=SESSION.session_id,
            seq=n,
            speaker="Ann",
            text=f"turn {n}",
            anchor_datetime="2024-01-01",
            metadata=tags,
        )
        for n, tags in enumerate(TAGS if given is None else given)
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


TRICKY: list[Metadata] = [
    {"k": 'v","k":"x'},
    {"k": "v,"},
    {"k": "a\\"},
    {"k\\": "v"},
    {"k": '"v"'},
    {"a": 'x,"k":1}', "b": '{"k":1,'},
    {"k": 12},
    {"k": 1.5},
    {"k": "1"},
    {"kk": 1, "k": None},
    {"k": "ü"},
]
WANTED: list[Metadata] = [
    {"k": "v"},
    {"k": "x"},
    {"k": 1},
    {"k": "a\\"},
    {"k\\": "v"},
    {"k": '"v"'},
    {"k": None},
    {"k": "ü"},
    {"k": "v,"},
    {"k": 12, "kk": 1},
]
ALPHABET = ['"', "\\", ",", ":", "{", "}", "k", "v", "1", " "]


def text_rule(stored: Metadata, wanted: Metadata) -> bool:
    """What a page on Neo4j keeps: each entry's needle somewhere in the stored text."""
    text = metadata_json(stored)
    return all(any(n in text for n in needles) for needles in metadata_needles(wanted))


def test_the_text_rule_keeps_what_matches_keeps() -> None:
    for stored in TRICKY:
        for wanted in WANTED:
            assert text_rule(stored, wanted) == matches(stored, wanted), (stored, wanted)


def test_the_text_rule_agrees_on_random_strings() -> None:
    rng = random.Random(52)

    def word() -> str:
        return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 5)))

    for _ in range(3000):
        stored: Metadata = {word(): word() for _ in range(rng.randint(0, 3))}
        key = rng.choice([*stored, word()]) if stored else word()
        value = stored.get(key, word()) if rng.random() < 0.5 else word()
        wanted: Metadata = {key: value}
        assert text_rule(stored, wanted) == matches(stored, wanted), (stored, wanted)


def test_stores_keep_what_matches_keeps_for_tricky_strings(store: GraphStore) -> None:
    store.write(tagged_batch(TRICKY))
    for wanted in WANTED:
        expected = [n for n, tags in enumerate(TRICKY) if matches(tags, wanted)]
        assert [t.seq for t in read_all(store, wanted)] == expected, wanted
