"""EntityLookup and Timeline resolve names as every read does (``apexmem_neo.tools.names``),
over a real SQLite store seen through one scope: an unknown name answers with the nearest
names of that scope, an ambiguous one with its candidates, never with another's facts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from apexmem_neo.ontology import Entity, Fact, GraphBatch
from apexmem_neo.store.scoped import ScopedStore
from apexmem_neo.store.sqlite import SQLiteGraphStore
from apexmem_neo.tools.entity_lookup import lookup_entities
from apexmem_neo.tools.timeline import timeline

SCOPE = "team"
LEE = Entity(name="Maya Lee", entity_type="Person", aliases=("Mimi",), scope=SCOPE)
CHEN = Entity(name="Maya Chen", entity_type="Person", scope=SCOPE)
BOB = Entity(name="Bob", entity_type="Person", scope="other")


def fact(entity: Entity, prop: str, value: str, t_from: str) -> Fact:
    return Fact(entity_id=entity.entity_id, property=prop, value=value, dtype="str",
                t_from=t_from)  # fmt: skip


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ScopedStore]:
    raw = SQLiteGraphStore(tmp_path / "g.sqlite")
    raw.init_schema()
    facts = [
        fact(LEE, "favourite_restaurant", "Italian Garden", "2024-01-15"),
        fact(LEE, "favourite_restaurant", "Sakura Sushi", "2024-03-20"),
        fact(CHEN, "employer", "Globex", "2024-01-01"),
    ]
    raw.write(GraphBatch(scope=SCOPE, entities=[LEE, CHEN], facts=facts))
    secret = fact(BOB, "favourite_restaurant", "Secret Diner", "2024-01-01")
    raw.write(GraphBatch(scope="other", entities=[BOB], facts=[secret]))
    yield ScopedStore(raw, SCOPE)
    raw.close()


def test_timeline_reads_a_property_asked_in_other_words(store: ScopedStore) -> None:
    for asked in ("favorite restaurant", "favourite_resturant", "Favourite Restaurant"):
        out = timeline(store, "maya lee", asked, as_of="2024-02-01")
        assert out.text.startswith("# Maya Lee · favourite_restaurant (2 facts"), out
        assert out.text.endswith("Value on 2024-02-01: Italian Garden")
    assert str(timeline(store, "Mimi", "favorite restaurant")).startswith("# Maya Lee")


def test_timeline_answers_unknown_and_ambiguous_names_with_the_names_to_choose(
    store: ScopedStore,
) -> None:
    unknown = timeline(store, "Bob", "favourite_restaurant")
    assert unknown.text.startswith("No entity matches 'Bob'; nearest known names: ")
    assert "Maya Lee" in str(unknown) and "Secret Diner" not in str(unknown)
    ambiguous = timeline(store, "Maya", "employer")
    assert ambiguous.text.startswith("'Maya' names more than one entity: ")
    assert "Maya Lee (Person" in str(ambiguous) and "Maya Chen (Person" in str(ambiguous)
    assert "Globex" not in str(ambiguous)
    lacking = timeline(store, "Maya Chen", "favorite restaurant")
    assert "has no facts for property 'favorite restaurant'. Its properties: employer." in str(
        lacking
    )


def test_lookup_shows_every_equally_good_match_and_only_those(store: ScopedStore) -> None:
    both = lookup_entities(store, "Maya", k=3)
    assert "# Maya Lee (Person)" in str(both) and "# Maya Chen (Person)" in str(both)
    assert "Secret Diner" not in str(both)
    one = lookup_entities(store, "Maya Leee", k=3)  # a misspelling of one of them
    assert one.text.startswith("# Maya Lee (Person)") and "Maya Chen" not in str(one)


def test_lookup_of_another_scopes_name_lists_this_scopes_names(store: ScopedStore) -> None:
    out = lookup_entities(store, "Bob")
    assert out.text.startswith("No entity matches 'Bob'; nearest known names: ")
    assert "Secret Diner" not in str(out) and "# " not in str(out)
    assert str(lookup_entities(store, BOB.entity_id)).startswith("No entity matches")
