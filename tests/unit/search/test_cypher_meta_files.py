"""The Cypher files of the Neo4j embedder record load with the meta label and only it."""

from __future__ import annotations

import pytest

from apexmem_neo.search.backends.neo4j_native import load_cypher

META_NAMES = [
    "queries/search_meta_get",
    "queries/search_meta_set",
    "queries/search_meta_delete",
    "queries/search_vector_dimensions",
]


@pytest.mark.parametrize("name", META_NAMES)
def test_every_meta_file_loads(name: str) -> None:
    (statement,) = load_cypher(
        name, label="SearchDoc_T1", meta_label="SearchMeta_T1", prefix="search_t1"
    )
    assert "{{" not in statement and "//" not in statement


def test_the_record_lives_on_the_meta_label_with_values_as_parameters() -> None:
    (statement,) = load_cypher("queries/search_meta_set", meta_label="SearchMeta_T1")
    assert "(m:SearchMeta_T1)" in statement
    assert "$embedder" in statement and "$dimensions" in statement


def test_a_meta_file_needs_its_label_slot() -> None:
    with pytest.raises(ValueError, match="slots"):
        load_cypher("queries/search_meta_get", label="SearchDoc_T1")
