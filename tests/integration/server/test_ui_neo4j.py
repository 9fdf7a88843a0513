"""The /ui timeline page over a Neo4j memory: the same reads (the listings, the events, the
turns, changes and as_of) draw the same page as on SQLite, and another scope is refused.

The Neo4j server is shared: the test uses its own scopes and deletes only their nodes."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver

from apexmem_neo import Memory
from apexmem_neo.server.app import create_app
from apexmem_neo.server.keys import KeyStore
from apexmem_neo.server.state import SqliteServerState
from apexmem_neo.testing import HashingEmbedder
from tests.unit.server.timeline_case import CHANGES, demo_batch, extra_batch, said

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]


@pytest.fixture
def scopes() -> tuple[str, str]:
    tag = uuid.uuid4().hex[:10]
    return f"ui-a-{tag}", f"ui-b-{tag}"


@pytest.fixture
def memory(neo4j_driver: Driver, tmp_path: Path, scopes: tuple[str, str]) -> Iterator[Memory]:
    memory = Memory.neo4j(neo4j_driver, embedder=HashingEmbedder(), lm=None,
                          home=tmp_path / "home", search=None)  # fmt: skip
    first, second = scopes
    try:
        memory.store.write(demo_batch(first))
        memory.store.write(extra_batch(first))
        memory.store.write(said(second, (("s1", "2024-02-02T10:00:00", "I grow apples.",
                                          "orchard", "hidden orchard"),)))  # fmt: skip
        yield memory
    finally:
        neo4j_driver.execute_query(
            "MATCH (n) WHERE n.scope IN $scopes DETACH DELETE n", scopes=list(scopes)
        )
        memory.close()


def test_the_page_draws_a_neo4j_memory(
    memory: Memory, scopes: tuple[str, str], tmp_path: Path
) -> None:
    first, second = scopes
    state = SqliteServerState(tmp_path / "server.sqlite")
    key = KeyStore(state.create()).create([first]).key
    auth = {"Authorization": f"Bearer {key}"}
    with TestClient(create_app(memory, state)) as client:
        page = client.get("/ui", params={"scope": first, "at": "2024-05-01"}, headers=auth)
        assert page.status_code == 200, page.text
        html = page.text
        changes = re.findall(r"<time[^>]*>([^<]+)</time> (\w+):", html.split('"changes">')[1])
        assert [c for c in changes if c[1] != "pet"] == [(d, p) for d, p, _, _ in CHANGES]
        assert '<a class="bar ended open"' in html
        assert "Alice, 2024-03-20: “Sakura Sushi is my favourite restaurant now.”" in html
        assert 'pet: <span class="none">ended</span>' in html
        refused = client.get("/ui", params={"scope": second}, headers=auth)
        assert refused.status_code == 403 and "orchard" not in refused.text
