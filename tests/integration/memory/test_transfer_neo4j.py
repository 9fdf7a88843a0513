"""Export and import across stores: a scope exported from SQLite imports into Neo4j with equal
rows (read with the same SQL, through the shim), and back; the files are the same bytes.

The Neo4j server is shared: every test uses its own scopes and search namespace and deletes
only its own scopes' nodes."""

from __future__ import annotations

import io
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from neo4j import Driver

from apexmem_neo import Memory
from apexmem_neo.testing import HashingEmbedder
from tests.unit.memory.transfer_graph import fill, tables

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]


@pytest.fixture
def scope() -> str:
    return f"transfer-{uuid.uuid4().hex[:10]}"


@pytest.fixture
def neo4j_memory(neo4j_driver: Driver, tmp_path: Path, scope: str) -> Iterator[Memory]:
    """A Neo4j memory with its own search namespace; removes the scope's nodes after."""
    memory = Memory.neo4j(
        neo4j_driver, embedder=HashingEmbedder(), lm=None, home=tmp_path / "neo4j-home",
        index_name=f"tr{uuid.uuid4().hex[:8]}",
    )  # fmt: skip
    try:
        yield memory
    finally:
        if memory.search_index is not None:
            memory.search_index.index.drop()
        neo4j_driver.execute_query(
            "MATCH (n) WHERE n.scope IN $scopes DETACH DELETE n", scopes=[scope]
        )
        memory.close()


def sqlite_memory(path: Path) -> Memory:
    return Memory.sqlite(path, embedder=HashingEmbedder(), lm=None, home=path.parent / "home")


def test_sqlite_to_neo4j_gives_equal_rows(neo4j_memory: Memory, tmp_path: Path, scope: str) -> None:
    with sqlite_memory(tmp_path / "source.sqlite") as source:
        fill(source, scope)
        exported = io.StringIO()
        source.export(exported, scope=scope)
        rows = tables(source, scope)
    result = neo4j_memory.import_file(io.StringIO(exported.getvalue()), scope=scope)
    assert result.added == {table: len(found) for table, found in rows.items()}
    assert result.indexed > 0
    assert tables(neo4j_memory, scope) == rows
    again = neo4j_memory.import_file(io.StringIO(exported.getvalue()))
    assert set(again.added.values()) == {0}
    hits = neo4j_memory.search("Boston autumn", scope=scope, k=3).turns
    assert any("Boston is lovely" in hit.text for hit in hits)
    back = io.StringIO()
    neo4j_memory.export(back, scope=scope)
    assert back.getvalue() == exported.getvalue()


def test_neo4j_to_sqlite_gives_equal_rows(neo4j_memory: Memory, tmp_path: Path, scope: str) -> None:
    fill(neo4j_memory, scope)
    rows = tables(neo4j_memory, scope)
    path = tmp_path / "neo4j.jsonl"
    exported = neo4j_memory.export(path, scope=scope)
    assert exported.rows == {table: len(found) for table, found in rows.items()}
    with sqlite_memory(tmp_path / "copy.sqlite") as copy:
        copy.import_file(path, scope=scope)
        assert tables(copy, scope) == rows
        back = io.StringIO()
        copy.export(back, scope=scope)
    assert back.getvalue() == path.read_text(encoding="utf-8")


def test_an_empty_scope_exports_only_the_header(neo4j_memory: Memory, scope: str) -> None:
    out = io.StringIO()
    result = neo4j_memory.export(out, scope=scope)  # no node carries the scope's label yet
    assert result.batches == 0 and len(out.getvalue().splitlines()) == 1
    assert neo4j_memory.import_file(io.StringIO(out.getvalue())).scope == scope
