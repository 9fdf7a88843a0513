"""Reads resolve names as writes do (issue 48): entity and property names as a user or the
agent would say them, on a real SQLite memory (no LLM, facts written straight in).

An unknown name is ``UnknownEntityError`` listing the scope's nearest names, two equally good
matches are ``AmbiguousEntityError``, and no read ever returns another entity's data.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from apexmem_neo import AsyncMemory, Memory
from apexmem_neo.memory import AmbiguousEntityError, UnknownEntityError
from apexmem_neo.ontology import Entity, Fact, GraphBatch
from apexmem_neo.testing import HashingEmbedder
from apexmem_neo.tools.names import match_property

SCOPE = "team"
ALICE = Entity(name="Alice", entity_type="Person", aliases=("Ally",), scope=SCOPE)
PRIYA = Entity(name="Priya", entity_type="Person", scope=SCOPE)
LEE = Entity(name="Maya Lee", entity_type="Person", scope=SCOPE)
CHEN = Entity(name="Maya Chen", entity_type="Person", scope=SCOPE)
CAROLINE = Entity(name="Dr. Caroline Smith", entity_type="Person", scope=SCOPE)
OTHER_BOB = Entity(name="Bob", entity_type="Person", scope="elsewhere")


def fact(entity: Entity, prop: str, value: str, t_from: str) -> Fact:
    return Fact(entity_id=entity.entity_id, property=prop, value=value, dtype="str",
                t_from=t_from)  # fmt: skip


FACTS = [
    fact(ALICE, "favourite_restaurant", "Italian Garden", "2024-01-15"),
    fact(ALICE, "favourite_restaurant", "Sakura Sushi", "2024-03-20"),
    fact(ALICE, "employer", "Acme", "2024-01-15"),
    fact(ALICE, "lives_in", "Denver", "2024-01-15"),
    fact(ALICE, "lives_in", "Austin", "2024-05-01"),
    fact(PRIYA, "favourite_restaurant", "Dosa Hut", "2024-02-01"),
    fact(LEE, "employer", "Globex", "2024-01-01"),
    fact(CAROLINE, "pet", "Rex", "2024-01-01"),
]


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Memory]:
    with Memory.sqlite(
        tmp_path / "m.sqlite", home=tmp_path / "home", embedder=HashingEmbedder(), lm=None
    ) as mem:
        mem.store.write(
            GraphBatch(scope=SCOPE, entities=[ALICE, PRIYA, LEE, CHEN, CAROLINE], facts=FACTS)
        )
        bob = fact(OTHER_BOB, "favourite_restaurant", "Bob's Diner", "2024-01-01")
        mem.store.write(GraphBatch(scope="elsewhere", entities=[OTHER_BOB], facts=[bob]))
        yield mem


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Alice", ALICE),
        (ALICE.entity_id, ALICE),
        ("  alice ", ALICE),
        ("ALICE'S", ALICE),
        ("ally", ALICE),  # an alias
        ("Alicee", ALICE),  # a close misspelling
        ("maya-lee", LEE),  # punctuation
        ("caroline smith", CAROLINE),  # the honorific dropped
        ("Caroline", CAROLINE),  # a person's first name
    ],
)
def test_entity_accepts_the_names_a_user_would_use(
    memory: Memory, name: str, expected: Entity
) -> None:
    assert memory.entity(name, scope=SCOPE).entity_id == expected.entity_id


@pytest.mark.parametrize("name", ["Maya", "Bob", "Zorro the Magnificent", "Ali", "Pri"])
def test_a_name_that_fits_no_one_entity_never_returns_anothers_data(
    memory: Memory, name: str
) -> None:
    with pytest.raises(UnknownEntityError):
        memory.entity(name, scope=SCOPE)
    with pytest.raises(UnknownEntityError):
        memory.history(name, "favourite_restaurant", scope=SCOPE)
    with pytest.raises(UnknownEntityError):
        memory.current(name, "favourite_restaurant", scope=SCOPE)


def test_an_unknown_name_lists_the_nearest_known_names_of_the_scope(memory: Memory) -> None:
    with pytest.raises(UnknownEntityError) as caught:
        memory.current("Bob", "favourite_restaurant", scope=SCOPE)
    message = str(caught.value)
    assert message.startswith("no entity named 'Bob' in scope 'team'; nearest known names: ")
    assert "\n" not in message and len(caught.value.nearest) == 5
    assert set(caught.value.nearest) <= {e.name for e in (ALICE, PRIYA, LEE, CHEN, CAROLINE)}
    with pytest.raises(UnknownEntityError) as caught:
        memory.entity("Maya L", scope=SCOPE)  # too far for a misspelling; listed first
    assert caught.value.nearest[0] == "Maya Lee"


def test_two_people_with_one_first_name_are_ambiguous(memory: Memory) -> None:
    with pytest.raises(AmbiguousEntityError) as caught:
        memory.entity("Maya", scope=SCOPE)
    message = str(caught.value)
    assert f"Maya Lee (Person, {LEE.entity_id})" in message
    assert f"Maya Chen (Person, {CHEN.entity_id})" in message
    assert "'Maya' names more than one entity in scope 'team'" in message
    with pytest.raises(AmbiguousEntityError):
        memory.current("maya", "employer", scope=SCOPE)


def test_another_scopes_names_are_never_candidates(memory: Memory) -> None:
    with pytest.raises(UnknownEntityError) as caught:
        memory.entity("Bob", scope=SCOPE)
    assert "Bob" not in caught.value.nearest
    with pytest.raises(UnknownEntityError):
        memory.entity(OTHER_BOB.entity_id, scope=SCOPE)  # an id of another scope
    assert memory.entity("bob", scope="elsewhere").entity_id == OTHER_BOB.entity_id


@pytest.mark.parametrize(
    ("asked", "stored"),
    [
        ("favourite_restaurant", "favourite_restaurant"),
        ("favorite_restaurant", "favourite_restaurant"),
        ("favorite restaurant", "favourite_restaurant"),
        ("Favourite Restaurant", "favourite_restaurant"),
        ("favouriteRestaurant", "favourite_restaurant"),
        ("favourite_resturant", "favourite_restaurant"),
        ("works_at", "employer"),
        ("current employer", "employer"),
        ("home city", "lives_in"),
        ("moved_to", "lives_in"),
    ],
)
def test_properties_resolve_among_the_entitys_own(memory: Memory, asked: str, stored: str) -> None:
    history = memory.history("Alice", asked, scope=SCOPE)
    assert history.property == stored and history.facts
    current = memory.current("alice", asked, scope=SCOPE)
    assert current is not None and current.property == stored


def test_every_read_resolves_both_names(memory: Memory) -> None:
    held = memory.as_of("ally", "favorite restaurant", "2024-02-01", scope=SCOPE)
    assert held is not None and held.value == "Italian Garden"
    changes = memory.changes("Alice", "home city", scope=SCOPE)
    assert [(c.old_value, c.new_value) for c in changes] == [("Denver", "Austin")]
    before = memory.before("Alicee", "favorite restaurant", "2024-03-20", scope=SCOPE)
    assert before is not None and before.value == "Italian Garden"
    history = memory.history("Alice", "favorite restaurant", scope=SCOPE)
    assert [c.new_value for c in history.changes] == ["Sakura Sushi"]

    async def read() -> tuple[object, object]:
        amem = AsyncMemory(memory)
        moved = await amem.changes("Alice", "moved_to", scope=SCOPE)
        was = await amem.before("Alice", "lives_in", "2024-05-01", scope=SCOPE)
        return moved, was

    moved, was = asyncio.run(read())
    assert len(moved) == 1 and was is not None and was.value == "Denver"  # type: ignore[arg-type, attr-defined]


def test_a_property_the_entity_lacks_reads_as_no_facts(memory: Memory) -> None:
    """Never another property's or another entity's value: Priya has a favourite restaurant,
    Alice has no pet, and Caroline's pet is not Alice's."""
    assert memory.current("Alice", "pet", scope=SCOPE) is None
    assert memory.as_of("Alice", "favourite_colour", "2024-06-01", scope=SCOPE) is None
    empty = memory.history("Alice", "favourite colour", scope=SCOPE)
    assert (empty.property, empty.facts, empty.changes) == ("favourite_colour", [], [])
    assert memory.current("Maya Lee", "favorite restaurant", scope=SCOPE) is None


def test_match_property_rules() -> None:
    key = ("2024-01-01T00:00:00", "", "")
    newer = ("2024-06-01T00:00:00", "", "")
    known = {"favourite_restaurant": key, "child_1_name": key, "moved_to": key, "lives": newer}
    assert match_property("favorite restaurant", known) == "favourite_restaurant"
    assert match_property("child_2_name", known) is None  # numbers never fuzzy-match
    assert match_property("restaurant_rating", known) is None  # a shared word is no match
    # The lexicon's synonym plus "_name" is the concept, as it is when facts are written.
    assert match_property("restaurant_name", known) == "favourite_restaurant"
    # Two names stored before the lexicon joined them: the latest-asserted one.
    assert match_property("lives_in", known) == "lives"
    assert match_property("lives_in", {}) is None
