"""Two `apexmem serve` processes on one Neo4j serve one memory: a key made on one opens the
other and a key revoked on one is refused by the other; a job accepted by server A is seen by
server B while A runs it, and when A is killed (SIGKILL) midway, B takes the job up once A's
lease has run out and finishes it, every turn stored exactly once.

Each server has its own APEXMEM_HOME (as on two machines) and runs with --no-llm, storing
plain turns that the packaged MiniLM embedder indexes. The Neo4j server is shared: the test
uses its own scope, search namespace and job namespace, and deletes what it made."""

from __future__ import annotations

import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from neo4j import Driver

from apexmem_neo.ontology import ids
from apexmem_neo.search.backends.neo4j_native import Neo4jNativeIndex
from apexmem_neo.server.keys import KeyStore
from apexmem_neo.server.state_neo4j import Neo4jServerState
from tests.integration.server.test_served import (
    JOB_S,
    finished,
    job,
    server_env,
    server_process,
)

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]
SESSIONS = 12
TURNS = 8
"""The job: SESSIONS batches of TURNS turns, long enough to be killed midway."""


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def conversation() -> dict[str, Any]:
    return {
        "messages": [
            {"name": "Dana", "content": f"Session {s}, line {t}.", "session": f"s{s}",
             "timestamp": f"2024-05-{s % 28 + 1:02d}T10:{t:02d}:00"}
            for s in range(SESSIONS)
            for t in range(TURNS)
        ],
        "extract": False,
    }  # fmt: skip


class Place:
    """The test's own corner of the shared Neo4j: a scope, a search namespace (also the job
    namespace) and the keys it made, deleted at the end."""

    def __init__(self, driver: Driver) -> None:
        tag = uuid.uuid4().hex[:10]
        self.driver = driver
        self.scope = f"multi-{tag}"
        self.index = f"ms{tag}"
        self.state = Neo4jServerState(driver, namespace=self.index).create()
        self.keys_before = {key.key_id for key in self.state.list_keys()}

    def stored_texts(self) -> Counter[str]:
        records, _, _ = self.driver.execute_query(
            "MATCH (t:Turn) WHERE t.scope = $scope RETURN t.text AS text", scope=self.scope
        )
        return Counter(record["text"] for record in records)

    def clean(self) -> None:
        names = [f"s{s}" for s in range(SESSIONS)]
        sessions = [ids.session_id(self.scope, ids.session_number(name)) for name in names]
        made = [k.key_id for k in self.state.list_keys() if k.key_id not in self.keys_before]
        for query, params in [
            ("MATCH (n) WHERE n.scope = $scope DETACH DELETE n", {"scope": self.scope}),
            ("MATCH (c:TurnSeq) WHERE c.session_id IN $ids DELETE c", {"ids": sessions}),
            ("MATCH (j:ApexIngestJob {namespace: $ns}) DELETE j", {"ns": self.index}),
            ("MATCH (k:ApexServerKey) WHERE k.key_id IN $ids DELETE k", {"ids": made}),
        ]:
            self.driver.execute_query(query, params)
        Neo4jNativeIndex(self.driver, namespace=self.index).drop()


@pytest.fixture
def place(neo4j_driver: Driver) -> Iterator[Place]:
    made = Place(neo4j_driver)
    try:
        yield made
    finally:
        made.clean()


def neo4j_env(place: Place, uri: str, home: Path) -> dict[str, str]:
    env = server_env(home)
    env.update(APEXMEM_STORE="neo4j", NEO4J_URI=uri, APEXMEM_INDEX_NAME=place.index)
    return env


def midway(client: httpx.Client, key: str, job_id: str) -> dict[str, Any]:
    """The job's state once some of its turns, but not half, are stored."""
    deadline = time.monotonic() + JOB_S
    while True:
        seen = job(client, key, job_id)
        stored = len((seen["summary"] or {}).get("turns", []))
        if seen["state"] == "running" and TURNS <= stored < SESSIONS * TURNS // 2:
            return seen
        assert seen["state"] in ("queued", "running") and time.monotonic() < deadline, seen
        time.sleep(0.05)


def test_two_servers_share_keys_and_finish_each_others_jobs(
    place: Place, neo4j_uri: str, tmp_path: Path
) -> None:
    admin = KeyStore(place.state).create([], admin=True).key
    with (
        server_process(["--no-llm"], neo4j_env(place, neo4j_uri, tmp_path / "a"), tmp_path) as (
            a,
            process_a,
        ),
        server_process(["--no-llm"], neo4j_env(place, neo4j_uri, tmp_path / "b"), tmp_path) as (
            b,
            _,
        ),
    ):
        made = a.post("/v1/keys", json={"scopes": [place.scope]}, headers=bearer(admin))
        key = made.json()["key"]
        assert b.get(f"/v1/scopes/{place.scope}/sessions", headers=bearer(key)).status_code == 200
        other = b.post("/v1/keys", json={"scopes": [place.scope]}, headers=bearer(admin)).json()
        assert b.delete(f"/v1/keys/{other['key_id']}", headers=bearer(admin)).status_code == 200
        assert a.get("/v1/scopes", headers=bearer(other["key"])).status_code == 401

        accepted = a.post(f"/v1/scopes/{place.scope}/messages", json=conversation(),
                          headers=bearer(key))  # fmt: skip
        assert accepted.status_code == 202, accepted.text
        job_id = accepted.json()["job_id"]
        seen_on_b = midway(b, key, job_id)
        process_a.kill()
        process_a.wait(30)
        assert seen_on_b["attempts"] == 1

        done = finished(b, key, job_id)
    assert done["state"] == "done" and done["attempts"] == 2, done
    outcomes = done["summary"]["turns"]
    assert len(outcomes) == SESSIONS * TURNS
    assert len({t["turn_id"] for t in outcomes}) == SESSIONS * TURNS
    expected = {f"Session {s}, line {t}.": 1 for s in range(SESSIONS) for t in range(TURNS)}
    assert place.stored_texts() == Counter(expected)
    records, _, _ = place.driver.execute_query(
        "MATCH (j:ApexIngestJob {job_id: $id}) RETURN j.work AS work", id=job_id
    )
    assert records[0]["work"] is None  # the messages are gone with the job
