"""A seed vocabulary of common personal-attribute properties, with the synonyms that map to them.

A small extraction model names the same attribute differently turn by turn: "I live in
Denver" came out as ``location``, "I just moved to Austin" as ``moved_to`` and a later move as
``moved``. Three property names for one timeline break "where does she live now", the count
of moves and every as-of question. Fuzzy spelling and dense similarity do not join them (they
are different words), and asking the LLM for every new name costs a call per fact.

So construction resolves a proposed name through this lexicon first: an alias (``moved_to``)
becomes its canonical name (``lives_in``) before the usual exact/fuzzy/dense resolution
against memory, and the canonical names are offered to the extractor as known properties.
Only unambiguous synonyms are listed: ``location`` is not an alias of ``lives_in`` because
"where someone is today" is not "where someone lives", and ``moved_from`` maps to nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from apexmem_neo.ontology.types import DType


@dataclass(frozen=True)
class CommonProperty:
    """A canonical property name, its dtype, what it means and its accepted synonyms.

    ``one_at_a_time``: a person holds one value at once (one home city, one favourite
    restaurant), so a turn giving two at the same time has misread one of them. Concepts a
    person may hold several of at once (hobbies, pets, cars, jobs) are not.
    ``names_a_thing``: its values are names of places, organisations, people or products
    (a city, an employer, a car), not activities or descriptions."""

    name: str
    dtype: DType
    description: str
    aliases: tuple[str, ...] = ()
    one_at_a_time: bool = False
    names_a_thing: bool = False

    @property
    def names(self) -> tuple[str, ...]:
        """The canonical name, then every synonym."""
        return (self.name, *self.aliases)


COMMON_PROPERTIES: Final[tuple[CommonProperty, ...]] = (
    CommonProperty(
        "lives_in", DType.STR, "the city or place someone lives in (a move starts a new value)",
        ("lives", "live_in", "lives_at", "living_in", "resides_in", "residence",
         "place_of_residence", "city_of_residence", "home_city", "current_city", "city",
         "moved", "moved_to", "moves_to", "moving_to", "relocated", "relocated_to",
         "new_city", "new_home", "home_location", "based_in", "rental_location", "rents_in",
         "renting_in"),
        one_at_a_time=True, names_a_thing=True,
    ),
    CommonProperty(
        "hometown", DType.STR, "where someone grew up", ("home_town", "grew_up_in"),
        one_at_a_time=True, names_a_thing=True,
    ),
    CommonProperty(
        "birthplace", DType.STR, "where someone was born", ("born_in", "place_of_birth"),
        one_at_a_time=True, names_a_thing=True,
    ),
    CommonProperty(
        "employer", DType.STR, "the organisation someone works for",
        ("works_at", "works_for", "working_at", "working_for", "workplace", "company",
         "employed_by", "employed_at", "job_at", "started_working_at", "new_employer",
         "current_employer", "new_job_at", "employment", "joined", "joined_company",
         "company_name", "employer_name"),
        names_a_thing=True,
    ),
    CommonProperty(
        "occupation", DType.STR, "someone's job or profession",
        ("job", "job_title", "profession", "works_as", "career", "new_job", "current_job"),
    ),
    CommonProperty(
        "partner", DType.STR, "the person someone is dating or in a relationship with",
        ("dating", "is_dating", "dating_partner", "boyfriend", "girlfriend",
         "significant_other", "romantic_partner", "relationship_with",
         "in_relationship_with", "current_partner", "new_partner"),
        one_at_a_time=True, names_a_thing=True,
    ),
    CommonProperty(
        "spouse", DType.STR, "husband or wife", ("husband", "wife", "married_to"),
        one_at_a_time=True, names_a_thing=True,
    ),
    CommonProperty(
        "relationship_status", DType.STR, "single, dating, married, divorced...",
        ("marital_status",), one_at_a_time=True,
    ),
    CommonProperty(
        "car", DType.STR, "the car someone drives or owns",
        ("drives", "drives_car", "vehicle", "owns_car", "car_model", "current_car",
         "bought_car", "new_car", "car_owned", "car_make", "car_brand", "car_name",
         "vehicle_make", "vehicle_model", "vehicle_brand", "vehicle_name", "vehicle_owned"),
        names_a_thing=True,
    ),
    CommonProperty(
        "favourite_restaurant", DType.STR, "the restaurant someone likes best",
        ("restaurant", "favourite_place_to_eat", "favourite_eatery", "go_to_restaurant",
         "preferred_restaurant", "favourite_spot_to_eat", "favourite_dining_spot",
         "usual_restaurant", "best_restaurant"),
        one_at_a_time=True, names_a_thing=True,
    ),
    CommonProperty("pet", DType.STR, "an animal someone keeps", ("pets", "owns_pet")),
    CommonProperty(
        "age", DType.INT, "age in years", ("years_old", "age_years"), one_at_a_time=True
    ),
    CommonProperty(
        "birthday", DType.DATE, "date of birth", ("date_of_birth", "birth_date", "dob"),
        one_at_a_time=True,
    ),
    CommonProperty(
        "emotional_state", DType.ENUM, "how someone feels",
        ("mood", "feeling", "feels", "emotion", "emotional_status"),
    ),
    CommonProperty(
        "has_children", DType.BOOL, "whether someone has children", ("has_kids",),
        one_at_a_time=True,
    ),
    CommonProperty(
        "number_of_children", DType.INT, "how many children someone has",
        ("children_count", "num_children", "number_of_kids", "kids_count"),
        one_at_a_time=True,
    ),
    CommonProperty(
        "studies_at", DType.STR, "the school or university someone attends",
        ("attends_school", "studying_at", "enrolled_at", "school", "university", "college"),
        names_a_thing=True,
    ),
    CommonProperty("hobby", DType.STR, "a pastime someone enjoys", ("hobbies", "pastime")),
    CommonProperty("nationality", DType.STR, "someone's citizenship", ("citizenship",)),
)  # fmt: skip

PEOPLE_ONLY: Final = frozenset(
    {"favourite_restaurant", "employer", "occupation", "partner", "spouse", "hobby", "studies_at"}
)
"""Concepts only a person holds: a restaurant has no favourite restaurant and a company no
hobby, so such a fact filed on a thing the speaker names is the speaker's."""

_BY_NAME: Final = {p.name: p for p in COMMON_PROPERTIES}
_BY_ALIAS: Final = {alias: p for p in COMMON_PROPERTIES for alias in p.aliases}
_SPELLINGS: Final = ((re.compile(r"(^|_)favorite(_|$)"), r"\1favourite\2"),)
_PREFIXES: Final = ("new_", "current_", "present_")
_NAME_SUFFIX: Final = "_name"


def common_property(name: str) -> CommonProperty | None:
    """The common property a snake_case ``name`` stands for, or None.

    ``moved_to`` -> lives_in; ``restaurant_name`` -> favourite_restaurant (a synonym and
    "_name"); ``new_favorite_cafe`` -> None (its spelling is still normalised by
    ``canonical_property_name``).
    """
    bare = name.removesuffix(_NAME_SUFFIX) if name != _NAME_SUFFIX[1:] else name
    unprefixed = (name[len(p) :] for p in _PREFIXES if name.startswith(p))
    for candidate in dict.fromkeys((name, *unprefixed, bare)):
        found = _BY_NAME.get(candidate) or _BY_ALIAS.get(candidate)
        if found is not None:
            return found
    return None


def canonical_property_name(name: str) -> str:
    """The name memory stores for a proposed snake_case property name.

    A lexicon alias becomes its canonical name; "favorite" is spelled "favourite"; and a
    leading ``new_``/``current_`` is dropped when the rest is a canonical name or favourite
    (``new_favourite_restaurant`` -> ``favourite_restaurant``). Anything else is unchanged.
    """
    for pattern, replacement in _SPELLINGS:
        name = pattern.sub(replacement, name)
    found = common_property(name)
    if found is not None:
        return found.name
    for prefix in _PREFIXES:
        rest = name[len(prefix) :]
        if name.startswith(prefix) and rest.startswith("favourite_"):
            return rest
    return name


def common_property_names() -> list[str]:
    """The canonical names, in lexicon order (offered to the extractor)."""
    return [p.name for p in COMMON_PROPERTIES]


def offered_properties(known: list[str]) -> list[str]:
    """The property names the extractor is offered: the common ones, then memory's others."""
    common = common_property_names()
    return [*common, *(name for name in known if name not in _BY_NAME)]
