"""The search Cypher files load, fill their slots safely and stay on the allow-lists."""

from __future__ import annotations

import pytest

from apexmem_neo.search.backends.neo4j_native import Neo4jNativeIndex, load_cypher

NAMES = [
    "schema/search_create",
    "schema/search_drop",
    "queries/search_upsert",
    "queries/search_fulltext",
    "queries/search_vector_ann",
    "queries/search_vector_exact",
    "queries/search_get",
    "queries/search_count",
    "queries/search_delete_all",
    "queries/search_unscoped",
]


@pytest.mark.parametrize("name", NAMES)
def test_every_file_loads(name: str) -> None:
    statements = load_cypher(name, label="SearchDoc_T1", prefix="search_t1", dimensions=384)
    assert statements and all("{{" not in s and "//" not in s for s in statements)


def test_schema_fills_label_index_names_and_dimensions() -> None:
    statements = load_cypher("schema/search_create", label="SearchDoc", prefix="p", dimensions=8)
    vector_indexes = [s for s in statements if s.startswith("CREATE VECTOR INDEX")]
    assert len(vector_indexes) == 8  # four kinds x (text, context)
    assert any(
        "p_turn_text_vector" in s and "n.turn_text_vector" in s and "`vector.dimensions`: 8" in s
        for s in vector_indexes
    )


def test_loader_refuses_non_identifiers_and_missing_slots() -> None:
    with pytest.raises(ValueError, match="identifier"):
        load_cypher("queries/search_count", label="X) DETACH DELETE (n", prefix="p")
    with pytest.raises(ValueError, match="slots"):
        load_cypher("queries/search_count")


def test_namespace_must_be_an_identifier() -> None:
    with pytest.raises(ValueError, match="identifier"):
        Neo4jNativeIndex(driver=None, namespace="bad name")  # type: ignore[arg-type]
