"""The Neo4j state store: the same contract as the SQLite file (keys as hashes, a job claimed
by one server of many, leases that run out), and its nodes out of every scope's sight:
GraphQuery, SchemaViewer, export, the scope list and the counts never show a key or a job.

The Neo4j server is shared: each test has its own job namespace and scope, and deletes the
jobs, keys and scope nodes it made."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver
from typer.testing import CliRunner

from apexmem_neo import Memory
from apexmem_neo.cli.serve import earlier_state_file, keys_app
from apexmem_neo.errors import ToolError
from apexmem_neo.server.keys import KeyStore
from apexmem_neo.server.state import ServerStateStore, SqliteServerState
from apexmem_neo.server.state_neo4j import Neo4jServerState
from apexmem_neo.settings import Settings
from apexmem_neo.testing import HashingEmbedder
from tests.unit.agent.alice import alice_batch
from tests.unit.server.state_contract import CONTRACT, RawJob, new_job

pytestmark = [pytest.mark.integration, pytest.mark.neo4j]
SECRET = "the jobs message nobody may read"


@pytest.fixture
def state(neo4j_driver: Driver) -> Iterator[Neo4jServerState]:
    namespace = f"state-{uuid.uuid4().hex[:10]}"
    made = Neo4jServerState(neo4j_driver, namespace=namespace).create()
    keys_before = {key.key_id for key in made.list_keys()}
    try:
        yield made
    finally:
        neo4j_driver.execute_query(
            "MATCH (j:ApexIngestJob {namespace: $namespace}) DELETE j", namespace=namespace
        )
        new_keys = [key.key_id for key in made.list_keys() if key.key_id not in keys_before]
        neo4j_driver.execute_query(
            "MATCH (k:ApexServerKey) WHERE k.key_id IN $ids DELETE k", ids=new_keys
        )


def raw_reader(driver: Driver) -> RawJob:
    def raw(job_id: str) -> dict[str, Any]:
        records, _, _ = driver.execute_query(
            "MATCH (j:ApexIngestJob {job_id: $job_id}) RETURN j {.*} AS job", job_id=job_id
        )
        found: dict[str, Any] = records[0]["job"]
        return found

    return raw


@pytest.mark.parametrize("check", CONTRACT, ids=lambda check: check.__name__)
def test_the_neo4j_state_keeps_the_contract(
    check: Callable[[ServerStateStore, RawJob], None],
    state: Neo4jServerState,
    neo4j_driver: Driver,
) -> None:
    check(state, raw_reader(neo4j_driver))


def test_a_server_takes_up_only_its_namespaces_jobs(state: Neo4jServerState) -> None:
    other = Neo4jServerState(state.driver, namespace=state.namespace + "-other")
    job, work = new_job()
    state.add_job(job, work)
    assert other.get_job(job.job_id) == job  # any server answers for it
    assert other.claim_job("b", 30.0) is None
    assert state.claim_job("a", 30.0) is not None


@pytest.fixture
def memory(neo4j_driver: Driver, tmp_path: Path) -> Iterator[tuple[Memory, str]]:
    scope = f"hidden-{uuid.uuid4().hex[:10]}"
    memory = Memory.neo4j(neo4j_driver, embedder=HashingEmbedder(), lm=None,
                          home=tmp_path / "home", search=None)  # fmt: skip
    try:
        memory.store.write(alice_batch(prefix=f"{scope}_", scope=scope))
        yield memory, scope
    finally:
        neo4j_driver.execute_query("MATCH (n) WHERE n.scope = $scope DETACH DELETE n", scope=scope)
        memory.close()


def test_keys_and_jobs_are_out_of_every_scopes_sight(
    memory: tuple[Memory, str], state: Neo4jServerState, tmp_path: Path
) -> None:
    mem, scope = memory
    before = (mem.scopes(), mem.store.counts(scope))
    KeyStore(state).create([scope], admin=True)
    job, work = new_job()
    work.batches[0].messages = [{"role": "user", "content": SECRET}]
    state.add_job(job.model_copy(update={"scope": scope}), work)
    assert (mem.scopes(), mem.store.counts(scope)) == before
    for query in (
        "MATCH (n) RETURN labels(n) AS labels, properties(n) AS props",
        "MATCH (n:ApexIngestJob) RETURN n",
        "MATCH (n:ApexServerKey) RETURN n",
    ):
        try:
            result = mem.query(query, "cypher", scope=scope, limit=1000)
        except ToolError as refused:
            assert "Apex" not in str(refused) or "does not exist" in str(refused)
            continue
        shown = json.dumps(result.model_dump(mode="json"))
        assert SECRET not in shown and "ApexIngestJob" not in shown and "key_hash" not in shown
    schema = mem.schema(examples=True, guide=True, scope=scope)
    assert "Apex" not in schema and "apex_" not in schema
    mem.export(tmp_path / "out.jsonl", scope=scope)
    exported = (tmp_path / "out.jsonl").read_text()
    assert SECRET not in exported and "Apex" not in exported and "key_hash" not in exported


def test_the_keys_command_keeps_keys_in_neo4j_and_copies_an_earlier_files(
    state: Neo4jServerState, neo4j_uri: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("APEXMEM_DB", "APEXMEM_SERVER_STATE", "NEO4J_DATABASE", "NEO4J_USER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("APEXMEM_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("APEXMEM_STORE", "neo4j")
    monkeypatch.setenv("NEO4J_URI", neo4j_uri)
    earlier = earlier_state_file(None, Settings())
    old = KeyStore(SqliteServerState(earlier).create()).create(["old-scope"])
    listed = CliRunner().invoke(keys_app, ["list", "--json"])
    assert listed.exit_code == 0 and "copied 1 API key" in listed.stderr
    assert old.key_id in [key["key_id"] for key in json.loads(listed.stdout)]
    assert KeyStore(state).authenticate(old.key) is not None  # the same key, now in Neo4j
    made = CliRunner().invoke(keys_app, ["create", "--scope", "new-scope", "--json"])
    assert made.exit_code == 0, made.stderr
    assert KeyStore(state).authenticate(json.loads(made.stdout)["key"]) is not None
    again = CliRunner().invoke(keys_app, ["list"])
    assert again.exit_code == 0 and "copied" not in again.stderr
