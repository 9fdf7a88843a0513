"""EntityLookup over a small SQLite graph built in the test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from apexmem_neo.ontology import Entity, GraphBatch
from apexmem_neo.store.protocol import STILL_HOLDS, FactRecord
from apexmem_neo.store.sqlite import SQLiteGraphStore
from apexmem_neo.tools.entity_lookup import (
    entity_lookup_tool,
    entity_view,
    find_candidates,
    held_until_by_fact,
    lookup_entities,
    name_candidates,
)
from tests.unit.agent.alice import ALICE, TURN_2, alice_search, alice_store
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


def facts_rows(doc: object) -> dict[str, list[str]]:
    """The facts table's rows by value: [property, value, t_from, until, turn_id, fact_id]."""
    table = str(doc).split("## Facts")[1].splitlines()
    rows = [[c.strip() for c in row.strip("|").split("|")] for row in table if row.startswith("| ")]
    return {row[1]: row for row in rows[1:]}


def test_lookup_by_name_shows_anchors_and_each_value_with_the_time_it_held(
    store: SQLiteGraphStore,
) -> None:
    doc = lookup_entities(store, "What is Alice's favourite restaurant?")
    assert doc.text.startswith("# Alice (Person)")
    assert f"`{ALICE}`" in str(doc)
    assert "last_anchor: 2024-03-20T10:00:00" in str(doc)
    facts = str(doc).split("## Facts")[1]
    assert facts.index("Italian Garden") < facts.index("Sakura Sushi")
    rows = facts_rows(doc)
    # the stored t_to is empty: the old value held until the new one began, read as reads do
    assert rows["Italian Garden"][3] == rows["Sakura Sushi"][2] == "2024-03-20T00:00:00"
    assert rows["Sakura Sushi"][3] == STILL_HOLDS and rows["Sakura Sushi"][4] == TURN_2


def test_until_is_a_stated_end_or_the_next_value_of_the_same_property() -> None:
    def fact(fid: str, prop: str, t_from: str, t_to: str | None = None) -> FactRecord:
        return FactRecord(fact_id=fid, entity_id="e", property=prop, value="v",
                          value_json='"v"', dtype="str", t_from=t_from, t_to=t_to,
                          confidence=1.0, event_id=None, evidence_id=None,
                          recorded_at=t_from)  # fmt: skip

    facts = [fact("a1", "city", "2024-01-01"), fact("b1", "job", "2024-02-01", "2024-02-10"),
             fact("a2", "city", "2024-03-01"), fact("b2", "job", "2024-04-01")]  # fmt: skip
    assert held_until_by_fact(facts) == {"a1": "2024-03-01", "b1": "2024-02-10",
                                 "a2": STILL_HOLDS, "b2": STILL_HOLDS}  # fmt: skip


def test_facts_table_is_bounded(store: SQLiteGraphStore) -> None:
    doc = lookup_entities(store, "Alice", max_facts=1)
    assert "## Facts (1 of 2), each property oldest first" in str(doc)
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
    assert "until (its stated end, else the next value's t_from" in (tool.__doc__ or "")
    assert "Sakura Sushi" in str(tool("Alice", 1))


def test_view_keeps_fact_order_and_anchors(store: SQLiteGraphStore) -> None:
    entity = store.get_entity(ALICE)
    assert entity is not None
    view = entity_view(store, entity)
    assert [f.value for f in view.facts] == ["Italian Garden", "Sakura Sushi"]
    assert view.anchors() == ["2024-01-15T10:00:00", "2024-03-20T10:00:00"]


def test_an_ended_value_reads_as_ended(store: SQLiteGraphStore) -> None:
    from apexmem_neo.ontology import ENDED, Fact, GraphBatch

    end = Fact(entity_id=ALICE, property="favourite_restaurant", dtype="str", value=None,
               t_from="2024-05-01")  # fmt: skip
    store.write(GraphBatch(facts=[end], scope="default"))
    doc = lookup_entities(store, "Alice")
    assert facts_rows(doc)[ENDED][3] == STILL_HOLDS and "None" not in str(doc)
    assert facts_rows(doc)["Sakura Sushi"][3] == "2024-05-01T00:00:00"


def test_candidates_put_the_entities_a_question_names_before_search_hits(
    store: SQLiteGraphStore,
) -> None:
    olga = Entity(entity_id="olga_ent", name="Olga", entity_type="Person", role="Mentioned")
    store.write(GraphBatch(entities=[olga], recorded_at="2024-03-21T00:00:00"))
    question = "Is Olga's favourite restaurant Sakura Sushi or Italian Garden?"
    search = alice_search()
    assert search.search(question, k=1).entities[0].graph_id == ALICE  # search prefers Alice
    assert [e.name for e in find_candidates(store, question, 1, search)] == ["Olga"]
    assert [e.name for e in find_candidates(store, question, 2, search)] == ["Olga", "Alice"]
