"""Read-time name resolution: the words a user or the agent uses -> one entity, one property.

Reads resolve names with the rules writes use (``apexmem_neo.construction.candidates``:
``EntityCatalog.rank``, ``loose_name``, ``stored_property_name``, ``PropertyCatalog.rank`` and
``settle_property``; the lexicon's canonical names). A read has no LLM to settle an
ambiguous case, so it accepts only what is unambiguous, and a name that fits nothing is an
error listing the nearest known names: never another entity's data.

Entities, among the scope's own (the store given is one scope's view), best tier first: an
id, the exact name, an alias, the loose name (case, spacing, punctuation, articles,
honorifics, possessives), a person's first name ("Maya" for "Maya Lee"), a close spelling
(rapidfuzz ratio >= ``READ_FUZZY_MIN``). The first tier that matches decides: one entity is
the answer, several equally good ones raise ``AmbiguousEntityError``. Dense similarity is
not used: an embedding neighbour of a name is usually another entity ("Bob" ~ "Rob"), which
writes only take as a candidate for the LLM to confirm.

Properties, among those the entity has facts for: the name as asked, its snake_case, its
lexicon canonical name (``favorite restaurant`` -> ``favourite_restaurant``, ``works_at`` ->
``employer``), a stored name with that canonical name, then one close spelling
(``settle_property``: a single candidate at or above ``PROPERTY_AUTO_ACCEPT``). Nothing
matching resolves to the name a write would store (``stored_property_name``), which holds no
facts: the read returns what it returns for a property without facts, never another one's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from rapidfuzz import fuzz, process

from apexmem_neo.construction.candidates import (
    Candidate,
    EntityCatalog,
    PropertyCatalog,
    loose_name,
    settle_property,
    stored_property_name,
    to_snake_case,
)
from apexmem_neo.errors import AmbiguousEntityError, UnknownEntityError
from apexmem_neo.ontology import DType, Entity, EntityType, Property
from apexmem_neo.ontology.lexicon import canonical_property_name
from apexmem_neo.store.protocol import GraphStore, fact_order_key

EARLIEST: Final = "0001-01-01T00:00:00"
LATEST: Final = "9999-12-31T23:59:59"
READ_FUZZY_MIN: Final = 0.90
"""A misspelled name resolves only this close (rapidfuzz ratio of loose names, 0-1)."""
TIE_MARGIN: Final = 0.02
"""Fuzzy matches this close to the best one are equally good: the name is ambiguous."""
NEAREST: Final = 5
"""How many known names an unknown-entity error lists."""

_TIERS: Final = {"exact": 0, "alias": 1, "loose": 2, "prefix": 3, "fuzzy": 4}
_DIGITS = re.compile(r"\d+")


def entity_catalog(store: GraphStore) -> EntityCatalog:
    """The store's entities (one scope's, through a scoped store) as a resolution catalog."""
    catalog = EntityCatalog()
    for entity in store.list_entities():
        catalog.add(entity)
    return catalog


def match_entities(catalog: EntityCatalog, name: str) -> list[Entity]:
    """The entities ``name`` resolves to by name: one, several equally good ones, or none."""
    if not name.strip():
        return []
    loose = loose_name(name)
    ranked = catalog.rank(name, EntityType.PERSON)  # PERSON only lets first names count
    accepted = [c for c in ranked if _accepted(catalog, c, loose)]
    if not accepted:
        return []
    tier = min(_TIERS[c.via] for c in accepted)
    same = [c for c in accepted if _TIERS[c.via] == tier]
    top = max(c.score for c in same)
    keys = dict.fromkeys(c.key for c in same if c.score >= top - TIE_MARGIN)
    return [catalog.entities[k] for k in keys]


def _accepted(catalog: EntityCatalog, candidate: Candidate, loose: str) -> bool:
    if candidate.via in ("exact", "alias", "loose"):
        return True
    if candidate.via == "fuzzy":
        return candidate.score >= READ_FUZZY_MIN
    if candidate.via == "prefix":  # a whole first name, not any prefix ("Ali" is not Alice)
        entity = catalog.entities[candidate.key]
        return any(loose_name(n).split(" ")[0] == loose for n in (entity.name, *entity.aliases))
    return False


def nearest_names(catalog: EntityCatalog, name: str, limit: int = NEAREST) -> tuple[str, ...]:
    """The catalog's names most like ``name``, best first (for an error message)."""
    names = {e.name: loose_name(e.name) for e in catalog.entities.values()}
    if not names:
        return ()
    found = process.extract(loose_name(name), names, scorer=fuzz.WRatio, limit=limit)
    return tuple(key for _, _, key in found)


def describe(entity: Entity) -> str:
    return f"{entity.name} ({entity.entity_type.value}, {entity.entity_id})"


def resolve_entity(store: GraphStore, name: str, scope: str | None = None) -> Entity:
    """The one entity ``name`` names in ``store`` (see the module docstring for the rules).

    Raises ``UnknownEntityError`` listing the nearest known names when nothing matches, and
    ``AmbiguousEntityError`` listing the candidates when several match equally well.
    ``scope`` only names the scope in those messages.
    """
    text = name.strip()
    by_id = store.get_entity(text) if text else None
    if by_id is not None:
        return by_id
    found = store.find_entities(text) if text else []  # an exact name needs no catalog
    catalog = None
    if not found:
        catalog = entity_catalog(store)
        found = match_entities(catalog, name)
    if len(found) == 1:
        return found[0]
    if found:
        raise AmbiguousEntityError(name, scope, tuple(describe(e) for e in found))
    raise UnknownEntityError(name, scope, nearest_names(catalog or entity_catalog(store), name))


def entity_properties(store: GraphStore, entity_id: str) -> dict[str, tuple[str, str, str]]:
    """The properties the entity has facts for, each with its latest fact's order key."""
    latest: dict[str, tuple[str, str, str]] = {}
    for fact in store.facts_between(entity_id, EARLIEST, LATEST):
        latest[fact.property] = max(latest.get(fact.property, ("",) * 3), fact_order_key(fact))
    return latest


def match_property(asked: str, known: Mapping[str, tuple[str, str, str]]) -> str | None:
    """The name among ``known`` (name -> latest fact key) that ``asked`` means, or None."""
    snake = to_snake_case(asked)
    canonical = stored_property_name(asked)
    for name in (asked.strip(), snake, canonical):
        if name in known:
            return name
    legacy = [p for p in known if canonical_property_name(p) == canonical]
    if legacy:  # stored before the lexicon joined them: the latest-asserted one
        return max(legacy, key=lambda p: known[p])
    return _close_spelling(known, dict.fromkeys((canonical, snake)))


def _close_spelling(known: Iterable[str], queries: Iterable[str]) -> str | None:
    catalog = PropertyCatalog()
    for name in known:
        catalog.add(Property(name=name, dtype=DType.STR))
    for query in queries:
        digits = _DIGITS.findall(query)
        ranked = [c for c in catalog.rank(query) if _DIGITS.findall(c.key) == digits]
        settled = settle_property(query, ranked)
        if settled is not None and settled.candidate is not None:
            return settled.candidate.key
    return None


def resolve_property(store: GraphStore, entity_id: str, asked: str) -> str:
    """The entity's property that ``asked`` names (see the module docstring); when it has
    none, the name a write would store ``asked`` under (which then holds no facts)."""
    found = match_property(asked, entity_properties(store, entity_id))
    return found if found is not None else stored_property_name(asked)


def named_entities(store: GraphStore, query: str, k: int, ngrams: Sequence[str]) -> list[Entity]:
    """Up to ``k`` entities for a lookup: those ``query`` names (all equally good matches),
    else those its ``ngrams`` (word n-grams, longest first) name, resolved the same way."""
    by_id = store.get_entity(query.strip())
    if by_id is not None:
        return [by_id]
    catalog = entity_catalog(store)
    found = {e.entity_id: e for e in match_entities(catalog, query)}
    for text in ngrams if not found else ():
        for entity in match_entities(catalog, text):
            found.setdefault(entity.entity_id, entity)
        if len(found) >= k:
            break
    return list(found.values())[:k]
