"""The common-property lexicon: synonyms map to one canonical name, nothing else changes."""

from __future__ import annotations

import pytest

from apexmem_neo.ontology import DType
from apexmem_neo.ontology.lexicon import (
    COMMON_PROPERTIES,
    canonical_property_name,
    common_property,
    common_property_names,
    offered_properties,
)


@pytest.mark.parametrize(
    ("proposed", "canonical"),
    [
        ("moved_to", "lives_in"),
        ("moved", "lives_in"),
        ("current_city", "lives_in"),
        ("lives_in", "lives_in"),
        ("works_at", "employer"),
        ("new_employer", "employer"),
        ("is_dating", "partner"),
        ("drives", "car"),
        ("new_car", "car"),
        ("favorite_restaurant", "favourite_restaurant"),
        ("new_favorite_restaurant", "favourite_restaurant"),
        ("current_favourite_cafe", "favourite_cafe"),
        ("date_of_birth", "birthday"),
        ("based_in", "lives_in"),
        ("rental_location", "lives_in"),
        ("restaurant_name", "favourite_restaurant"),
        ("city_name", "lives_in"),
    ],
)
def test_synonyms_become_the_canonical_name(proposed: str, canonical: str) -> None:
    assert canonical_property_name(proposed) == canonical


@pytest.mark.parametrize(
    "name",
    ["location", "moved_from", "attended_event", "new_baby", "weather_condition", "name",
     "first_name"],
)  # fmt: skip
def test_names_outside_the_lexicon_are_unchanged(name: str) -> None:
    assert canonical_property_name(name) == name
    assert common_property(name) is None


def test_every_alias_belongs_to_one_property_and_is_not_itself_canonical() -> None:
    aliases = [a for p in COMMON_PROPERTIES for a in p.aliases]
    assert len(aliases) == len(set(aliases))
    assert not set(aliases) & set(common_property_names())


def test_common_property_carries_its_dtype() -> None:
    assert common_property("years_old").dtype == DType.INT  # type: ignore[union-attr]
    assert common_property("has_kids").dtype == DType.BOOL  # type: ignore[union-attr]


def test_offered_properties_lists_common_names_first_without_repeats() -> None:
    offered = offered_properties(["attended_event", "lives_in", "weather_condition"])
    common = common_property_names()
    assert offered[: len(common)] == common
    assert offered[len(common) :] == ["attended_event", "weather_condition"]
