"""EntityLookup over a small SQLite graph built in the test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from apexmem_neo.store.sqlite import SQLiteGraphStore
from apexmem_neo.tools.entity_lookup import (
    entity_lookup_tool,
    entity_view,
    lookup_entities,
    name_candidates,
)
from tests.unit.agent.alice import ALICE, TURN_2, alice_store
from tests.unit.tools.results import error_title


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteGraphStore]:
    s = alice_store(tmp_path / "alice.sqlite")
    yield s
    s.close()


def test_name_candidates_strip_possessives_and_ngrams() -> None:
    cands = name_candidates("Alice's favourite restaurant")
    assert cands[0] == "Alice's favourite restaurant"
    assert "Alice" in cands
    assert "Alice favourite" in cands


def test_lookup_by_name_shows_latest_anchors_and_facts(store: SQLiteGraphStore) -> None:
    doc = lookup_entities(store, "What is Alice's favourite restaurant?")
    assert doc.text.startswith("# Alice (Person)")
    assert f"`{ALICE}`" in str(doc)
    latest = str(doc).split("## Latest value per property")[1].split("## Facts")[0]
    assert "Sakura Sushi" in latest and "Italian Garden" not in latest
    assert "2024-03-20T00:00:00" in latest and TURN_2 in latest
    assert "last_anchor: 2024-03-20T10:00:00" in str(doc)
    facts = str(doc).split("## Facts")[1]
    assert facts.index("Italian Garden") < facts.index("Sakura Sushi")


def test_facts_table_is_bounded(store: SQLiteGraphStore) -> None:
    doc = lookup_entities(store, "Alice", max_facts=1)
    assert "## Facts (1 of 2, oldest first)" in str(doc)
    assert "Italian Garden" not in str(doc).split("## Facts")[1]


def test_unknown_and_empty_queries_answer_text(store: SQLiteGraphStore) -> None:
    unknown = lookup_entities(store, "Zorro the Magnificent")
    assert unknown.text.startswith(
        "No entity matches 'Zorro the Magnificent'; nearest known names: Alice."
    )
    assert "Sakura Sushi" not in str(unknown)
    assert error_title(lookup_entities(store, "  ")).startswith("Empty query")


def test_closed_store_reports_error_instead_of_raising(tmp_path: Path) -> None:
    s = alice_store(tmp_path / "x.sqlite")
    s.close()
    assert error_title(lookup_entities(s, "Alice")).startswith("Lookup failed")


def test_words_naming_no_entity_never_show_another_entitys_facts(store: SQLiteGraphStore) -> None:
    for query in ("Bob", "sushi restaurant", "Ali"):
        doc = lookup_entities(store, query)
        assert doc.text.startswith(f"No entity matches {query!r}"), doc
        assert "Sakura Sushi" not in str(doc) and "# Alice" not in str(doc)


def test_spelling_case_and_possessive_variants_find_the_entity(store: SQLiteGraphStore) -> None:
    for query in ("alice", "  ALICE ", "Alice's", "Alice's favourite restaurant"):
        assert str(lookup_entities(store, query, k=1)).startswith("# Alice (Person)"), query


def test_tool_is_named_and_documented(store: SQLiteGraphStore) -> None:
    tool = entity_lookup_tool(store)
    assert tool.__name__ == "EntityLookup"
    assert "validity interval" in (tool.__doc__ or "")
    assert "Sakura Sushi" in str(tool("Alice", 1))


def test_view_latest_uses_fact_order(store: SQLiteGraphStore) -> None:
    entity = store.get_entity(ALICE)
    assert entity is not None
    view = entity_view(store, entity)
    assert [f.value for f in view.latest()] == ["Sakura Sushi"]
    assert view.anchors() == ["2024-01-15T10:00:00", "2024-03-20T10:00:00"]


def test_an_ended_value_reads_as_ended(store: SQLiteGraphStore) -> None:
    from apexmem_neo.ontology import ENDED, Fact, GraphBatch

    end = Fact(entity_id=ALICE, property="favourite_restaurant", dtype="str", value=None,
               t_from="2024-05-01")  # fmt: skip
    store.write(GraphBatch(facts=[end], scope="default"))
    latest = str(lookup_entities(store, "Alice")).split("## Latest value per property")[1]
    assert ENDED in latest.split("## Facts")[0] and "None" not in latest
