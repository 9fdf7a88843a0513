"""A Neo4j search namespace records its embedder on one meta node and refuses another."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest
from neo4j import Driver

from apexmem_neo.search import EmbedderMismatchError
from apexmem_neo.search.backends.neo4j_native import Neo4jNativeIndex

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]


@pytest.fixture
def make_index(neo4j_driver: Driver) -> Iterator[Callable[[], Neo4jNativeIndex]]:
    made: list[Neo4jNativeIndex] = []

    def _make() -> Neo4jNativeIndex:
        made.append(Neo4jNativeIndex(neo4j_driver, namespace=f"T{uuid.uuid4().hex[:10]}"))
        return made[-1]

    yield _make
    for index in made:
        index.drop()


def test_the_record_is_kept_and_another_model_refused(
    make_index: Callable[[], Neo4jNativeIndex],
) -> None:
    index = make_index()
    assert index.embedder_info() is None
    index.create(16, "model-a")
    index.create(16, "model-a")  # the same model reopens
    assert index.embedder_info() == ("model-a", 16)
    assert index.count() == 0  # the meta node is no search document
    with pytest.raises(EmbedderMismatchError) as caught:
        index.create(16, "model-b")
    message = str(caught.value)
    assert "\n" not in message and "Neo4j" in message
    assert "'model-a' (16-d)" in message and "'model-b' (16-d)" in message
    assert "apexmem index --store neo4j --rebuild" in message
    with pytest.raises(EmbedderMismatchError, match=r"'model-a' \(16-d\).*\(8-d\)"):
        index.create(8, "model-a")


def test_a_namespace_without_a_record_adopts_the_first_name(
    neo4j_driver: Driver, make_index: Callable[[], Neo4jNativeIndex]
) -> None:
    """A namespace created before the meta node: its vector indexes tell the size."""
    index = make_index()
    index.create(16)
    # The test plays an older version, so it reads the index's private meta label.
    neo4j_driver.execute_query(f"MATCH (m:{index._meta_label}) DELETE m")
    assert index.embedder_info() == ("", 16)
    with pytest.raises(EmbedderMismatchError, match="an unrecorded embedder"):
        index.create(8, "model-a")
    index.create(16, "model-a")
    assert index.embedder_info() == ("model-a", 16)
    with pytest.raises(EmbedderMismatchError):
        index.create(16, "model-b")


def test_drop_forgets_the_record(make_index: Callable[[], Neo4jNativeIndex]) -> None:
    index = make_index()
    index.create(16, "model-a")
    index.drop()
    assert index.embedder_info() is None
    index.create(8, "model-b")
    assert index.embedder_info() == ("model-b", 8)
