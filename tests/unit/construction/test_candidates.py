"""Candidate generation and the decisions taken without an LLM."""

from __future__ import annotations

import pytest

from apexmem_neo.construction.candidates import (
    EntityCatalog,
    PropertyCatalog,
    convert_value,
    infer_dtype,
    loose_name,
    settle_entity,
    settle_property,
    to_snake_case,
)
from apexmem_neo.construction.merge import locate_evidence
from apexmem_neo.ontology import DType, Entity, EntityType, Property


def catalog(*entities: Entity) -> EntityCatalog:
    cat = EntityCatalog()
    for e in entities:
        cat.add(e)
    return cat


MELANIE = Entity(name="Melanie", entity_type=EntityType.PERSON, aliases=("Mel",))
GARDEN = Entity(name="Italian Garden", entity_type=EntityType.CORPORATION)


@pytest.mark.parametrize(
    ("raw", "snake"),
    [
        ("Favourite Restaurant", "favourite_restaurant"),
        ("favouriteRestaurant", "favourite_restaurant"),
        ("has-children", "has_children"),
        ("  emotional state ", "emotional_state"),
        ("2nd_job", "p_2nd_job"),
        ("!!!", "statement"),
    ],
)
def test_snake_case(raw: str, snake: str) -> None:
    assert to_snake_case(raw) == snake


def test_loose_name_drops_articles_possessives_and_honorifics() -> None:
    assert loose_name("The Italian Garden's") == "italian garden"
    assert loose_name("Dr. Smith") == "smith"
    assert loose_name("my  Mom") == "mom"


def test_exact_name_is_chosen_without_llm_even_with_another_type() -> None:
    cat = catalog(GARDEN)
    cands = cat.rank("italian garden", EntityType.PLACE)
    settled = settle_entity("italian garden", EntityType.PLACE, cands)
    assert settled is not None and settled.candidate is not None
    assert settled.candidate.key == GARDEN.entity_id
    assert settled.candidate.via == "exact"


def test_alias_and_loose_matches_are_chosen() -> None:
    cat = catalog(MELANIE, GARDEN)
    alias = settle_entity("Mel", EntityType.PERSON, cat.rank("Mel", EntityType.PERSON))
    assert alias is not None and alias.candidate is not None
    assert alias.candidate.via == "alias"
    loose = settle_entity(
        "the Italian Garden",
        EntityType.CORPORATION,
        cat.rank("the Italian Garden", EntityType.CORPORATION),
    )
    assert loose is not None and loose.candidate is not None
    assert loose.candidate.key == GARDEN.entity_id


def test_unrelated_mention_is_new_without_llm() -> None:
    cat = catalog(MELANIE, GARDEN)
    settled = settle_entity(
        "Sakura Sushi", EntityType.CORPORATION, cat.rank("Sakura Sushi", EntityType.CORPORATION)
    )
    assert settled is not None and settled.candidate is None


def test_near_names_are_ambiguous_and_left_to_the_llm() -> None:
    cat = catalog(Entity(name="Caroline", entity_type=EntityType.PERSON))
    cands = cat.rank("Carolina", EntityType.PERSON)
    assert cands and cands[0].via == "fuzzy"
    assert settle_entity("Carolina", EntityType.PERSON, cands) is None


def test_person_short_form_is_a_prefix_candidate() -> None:
    cat = catalog(Entity(name="Melanie", entity_type=EntityType.PERSON))
    cands = cat.rank("Mela", EntityType.PERSON)
    assert any(c.via == "prefix" for c in cands)


def test_catalog_alias_addition_is_idempotent() -> None:
    cat = catalog(MELANIE)
    assert cat.add_alias(MELANIE.entity_id, "Melly") is True
    assert cat.add_alias(MELANIE.entity_id, "melly") is False
    assert cat.entities[MELANIE.entity_id].aliases == ("Mel", "Melly")


def test_property_exact_and_spelling_variant_are_settled() -> None:
    props = PropertyCatalog()
    props.add(Property(name="favourite_restaurant", dtype=DType.STR))
    exact = settle_property("favourite_restaurant", props.rank("favourite_restaurant"))
    assert exact is not None and exact.candidate is not None
    variant = settle_property("favorite_restaurant", props.rank("Favorite restaurant"))
    assert variant is not None and variant.candidate is not None
    assert variant.candidate.key == "favourite_restaurant"
    new = settle_property("has_children", props.rank("has_children"))
    assert new is not None and new.candidate is None


@pytest.mark.parametrize(
    ("value", "dtype"),
    [
        (True, DType.BOOL),
        ("yes", DType.BOOL),
        (3, DType.INT),
        ("42", DType.INT),
        (2.5, DType.FLOAT),
        ("2.5", DType.FLOAT),
        ("2024-01-15", DType.DATE),
        ("2024-01-15T19:00", DType.DATETIME),
        ("https://x.org/a", DType.URL),
        (["a", "b"], DType.LIST),
        ("Italian Garden", DType.STR),
    ],
)
def test_infer_dtype(value: object, dtype: DType) -> None:
    assert infer_dtype(value) == dtype


def test_convert_value() -> None:
    assert convert_value("true", DType.BOOL) is True
    assert convert_value("2", DType.INT) == 2
    assert convert_value("2.5", DType.INT) is None
    assert convert_value("2024-01-15", DType.DATE) == "2024-01-15"
    assert convert_value("soon", DType.DATE) is None
    assert convert_value(["a", "b"], DType.STR) == "a, b"
    assert convert_value("nope", DType.URL) is None


def test_locate_evidence_exact_case_insensitive_and_fuzzy() -> None:
    text = "I went to a LGBTQ support group yesterday and it was so powerful."
    assert locate_evidence("support group yesterday", text) == (18, 41)
    assert locate_evidence("SUPPORT GROUP", text) == (18, 31)
    span = locate_evidence("went to an LGBTQ support group", text)
    assert span is not None and text[span[0] : span[1]].startswith("went to a")
    assert locate_evidence("completely unrelated words", text) is None
