"""Neo4j failures are fast and quiet: a port nobody listens on is one error at once, with no
driver retries logged; a new scope and search namespace log no "does not exist" warning;
``forget`` takes a JSONL session by its name and refuses one that is not there.

Every name here is unique to the run, and the test removes what it wrote (the server is
shared).
"""

from __future__ import annotations

import contextlib
import json
import logging
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from apexmem_neo import Memory
from apexmem_neo.errors import ServiceUnavailableError
from apexmem_neo.memory import NothingToForgetError
from apexmem_neo.testing import HashingEmbedder
from tests.unit.test_lm_failures import free_port

pytestmark = [pytest.mark.integration]

RUN = uuid.uuid4().hex[:8]
SCOPE = f"ff-{RUN}"


def driver_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    """What the neo4j driver logged at WARNING or above (what a user sees by default)."""
    return [
        r.getMessage()
        for r in caplog.records
        if r.name.startswith("neo4j") and r.levelno >= logging.WARNING
    ]


@pytest.mark.parametrize("scheme", ["bolt", "neo4j"])
def test_a_port_nobody_listens_on_is_one_error_and_no_retries(
    scheme: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="neo4j")
    uri = f"{scheme}://127.0.0.1:{free_port()}"
    with pytest.raises(ServiceUnavailableError) as info:
        Memory.neo4j(uri, lm=None, embedder=HashingEmbedder(), home=tmp_path)
    assert str(info.value).startswith(f"neo4j is not reachable at {uri}: ")
    assert "Connection refused" in str(info.value) and "\n" not in str(info.value)
    assert driver_lines(caplog) == []


@pytest.fixture
def memory(neo4j_uri: str, tmp_path: Path) -> Iterator[Memory]:
    """A memory on the shared server under a new search namespace, cleaned up after."""
    with Memory.neo4j(
        neo4j_uri, lm=None, embedder=HashingEmbedder(), home=tmp_path, index_name=f"ff{RUN}"
    ) as memory:
        yield memory
        search = memory.search_index
        assert search is not None
        search.index.drop()
        with contextlib.suppress(NothingToForgetError):  # the test may have erased it all
            memory.forget(scope=SCOPE)


@pytest.mark.neo4j
def test_a_new_scope_and_namespace_log_no_unknown_name_warnings(
    neo4j_uri: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="neo4j")
    fresh = f"{SCOPE}-new"
    with Memory.neo4j(
        neo4j_uri, lm=None, embedder=HashingEmbedder(), home=tmp_path, index_name=f"fn{RUN}"
    ) as memory:
        try:
            assert memory.search("tea", scope=fresh).turns == []
            assert memory.query("MATCH (t:Turn) RETURN count(t) AS n", scope=fresh).rows == ((0,),)
            memory.add("I like tea.", scope=fresh, extract=False)
            assert memory.search("tea", scope=fresh).turns
            memory.forget(scope=fresh)
        finally:
            search = memory.search_index
            assert search is not None
            search.index.drop()
    assert driver_lines(caplog) == []


@pytest.mark.neo4j
def test_forget_takes_a_jsonl_session_by_name_on_neo4j(memory: Memory, tmp_path: Path) -> None:
    path = tmp_path / "talk.jsonl"
    turn = {"conversation": SCOPE, "speaker": "Ann", "timestamp": "2024-01-15"}
    lines = [
        {**turn, "session": "s1", "text": "The kettle is blue."},
        {**turn, "session": "s1", "text": "It whistles."},
        {**turn, "session": "s2", "text": "The cat sleeps.", "timestamp": "2024-02-01"},
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")
    memory.ingest_file(path, extract=False)
    with pytest.raises(NothingToForgetError) as info:
        memory.forget(scope=SCOPE, session="s3")
    message = str(info.value)
    assert f"no session 's3' in scope '{SCOPE}'; its sessions: " in message
    assert "(2 turns from 2024-01-15)" in message and "(1 turns from 2024-02-01)" in message
    assert memory.forget(scope=SCOPE, session="s1").erasure.counts["turns"] == 2
    rows = memory.query("MATCH (t:Turn) RETURN t.text AS text", scope=SCOPE).rows
    assert rows == (("The cat sleeps.",),)
