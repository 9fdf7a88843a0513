"""CatalogDenseSource: dense top-k over the live resolution catalogs."""

from __future__ import annotations

from apexmem_neo.construction.candidates import EntityCatalog, PropertyCatalog
from apexmem_neo.construction.dense import CatalogDenseSource
from apexmem_neo.ontology import DType, Entity, EntityType, Property
from apexmem_neo.testing import HashingEmbedder


def _catalogs() -> tuple[EntityCatalog, PropertyCatalog]:
    entities, properties = EntityCatalog(), PropertyCatalog()
    entities.add(Entity(name="Italian Garden restaurant", entity_type=EntityType.ORGANIZATION))
    entities.add(Entity(name="Caroline", entity_type=EntityType.PERSON))
    properties.add(Property(name="favourite_restaurant", dtype=DType.STR))
    properties.add(Property(name="home_city", dtype=DType.STR))
    return entities, properties


def test_nearest_ranks_the_closest_name_first_with_scores_in_unit_range() -> None:
    entities, properties = _catalogs()
    source = CatalogDenseSource(HashingEmbedder(dimensions=64), entities, properties)
    found = source.nearest("the Italian Garden", "entity", 2)
    assert found[0][0] == next(
        i for i, e in entities.entities.items() if e.name.startswith("Italian")
    )
    assert all(0.0 <= score <= 1.0 for _, score in found)
    assert found[0][1] > found[1][1]
    assert source.nearest("favourite restaurant", "property", 1)[0][0] == "favourite_restaurant"


def test_entities_added_later_and_new_aliases_are_seen_without_reembedding_the_rest() -> None:
    entities, properties = _catalogs()
    embedder = HashingEmbedder(dimensions=64)
    source = CatalogDenseSource(embedder, entities, properties)
    source.nearest("Caroline", "entity", 1)
    embedded_before = sum(len(batch) for batch in embedder.calls)
    melanie = Entity(name="Melanie", entity_type=EntityType.PERSON)
    entities.add(melanie)
    entities.add_alias(melanie.entity_id, "Mel")
    assert source.nearest("Mel", "entity", 1)[0][0] == melanie.entity_id
    # Only Melanie (with her alias) and the query were embedded again.
    assert sum(len(batch) for batch in embedder.calls) - embedded_before == 2


def test_empty_catalog_or_blank_text_gives_no_candidates() -> None:
    source = CatalogDenseSource(HashingEmbedder(), EntityCatalog(), PropertyCatalog())
    assert source.nearest("anything", "entity", 3) == []
    entities, properties = _catalogs()
    source = CatalogDenseSource(HashingEmbedder(), entities, properties)
    assert source.nearest(" ", "entity", 3) == []
