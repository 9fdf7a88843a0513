"""`apexmem ask | query | schema | entity | history --store neo4j` against the real Neo4j.

The server is shared: the Alice graph is written with ids that start with a unique prefix and
an entity name no other test uses, its search documents live in their own namespace, and the
fixture deletes exactly those nodes (and the namespace's indexes) at the end.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from neo4j import Driver
from typer.testing import CliRunner

from apexmem_neo.cli.app import app
from apexmem_neo.search import HybridSearch, documents_from_batch
from apexmem_neo.search.backends.neo4j_native import Neo4jNativeIndex
from apexmem_neo.search.embedder import SentenceTransformerEmbedder
from apexmem_neo.store.neo4j import Neo4jGraphStore
from tests.unit.agent.alice import ALICE, TURN_2, alice_batch

pytestmark = [pytest.mark.integration, pytest.mark.timeout(1800)]  # torch import under load

runner = CliRunner()
TAG = uuid.uuid4().hex[:8]
PREFIX = f"cli{TAG}_"
NAME = f"Alice Cli{TAG}"
NAMESPACE = f"cli{TAG}"
ID_KEYS = {"Session": "session_id", "Turn": "turn_id", "Entity": "entity_id",
           "Evidence": "evidence_id", "Event": "event_id", "Fact": "fact_id"}  # fmt: skip


def _delete_mine(driver: Driver) -> None:
    with driver.session() as session:
        for label, key in ID_KEYS.items():
            session.run(
                f"MATCH (n:{label}) WHERE n.{key} STARTS WITH $p "
                "CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 2000 ROWS",
                p=PREFIX,
            ).consume()


@pytest.fixture(scope="module")
def graph(neo4j_uri: str, neo4j_driver: Driver) -> Iterator[str]:
    store = Neo4jGraphStore(neo4j_driver)
    store.init_schema()
    batch = alice_batch(PREFIX, NAME)
    index = Neo4jNativeIndex(neo4j_driver, namespace=NAMESPACE, url=neo4j_uri)
    try:
        store.write(batch)
        search = HybridSearch(index, SentenceTransformerEmbedder())
        search.create()
        search.index_documents(documents_from_batch(batch))
        yield neo4j_uri
    finally:
        index.drop()
        _delete_mine(neo4j_driver)


@pytest.fixture
def env(graph: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("NEO4J_URI", graph)
    monkeypatch.setenv("APEXMEM_HOME", str(tmp_path))
    for name in ("APEXMEM_SEARCH", "APEXMEM_INDEX_NAME", "APEXMEM_EMBED_MODEL"):
        monkeypatch.delenv(name, raising=False)  # the namespace was indexed with the default
    return tmp_path


def neo4j(*args: str) -> list[str]:
    return [*args, "--store", "neo4j"]


def test_query_cypher_and_sql_through_the_shim(env: Path) -> None:
    cypher = (
        f"MATCH (f:Fact) WHERE f.entity_id = '{PREFIX}{ALICE}' "
        "RETURN f.value_json AS value ORDER BY f.t_from"
    )
    res = runner.invoke(app, neo4j("query", cypher))  # Cypher: the store's own language
    assert res.exit_code == 0, res.output
    assert res.output.index("Italian Garden") < res.output.index("Sakura Sushi")
    sql = f"SELECT COUNT(*) AS n FROM facts WHERE entity_id = '{PREFIX}{ALICE}'"
    shim = runner.invoke(app, neo4j("query", "--sql", sql))
    assert shim.exit_code == 0 and "| 2 |" in shim.output, shim.output
    as_json = runner.invoke(app, neo4j("query", "--lang", "sql", sql, "--json"))
    found = json.loads(as_json.stdout)
    assert found["rows"] == [[2]] and "MATCH" in found["translated"], as_json.output
    refused = runner.invoke(app, neo4j("query", "MATCH (n) DETACH DELETE n"))
    assert refused.exit_code == 1 and refused.stderr.startswith("error:"), refused.output
    assert len(refused.stderr.strip().splitlines()) == 1 and "Traceback" not in refused.output


def test_schema_on_neo4j(env: Path) -> None:
    res = runner.invoke(app, neo4j("schema", "--examples"))
    assert res.exit_code == 0, res.output
    assert res.output.startswith("# Memory schema (Neo4j") and "MATCH" in res.output


def test_entity_and_history_on_neo4j(env: Path) -> None:
    ent = runner.invoke(app, neo4j("entity", NAME, "--k", "1"))
    assert ent.exit_code == 0, ent.output
    assert f"{PREFIX}{ALICE}" in ent.output and "Sakura Sushi" in ent.output
    hist = runner.invoke(app, neo4j("history", NAME, "favourite_restaurant"))
    assert hist.exit_code == 0, hist.output
    changes = hist.output.split("## Changes")[1]
    assert "2024-03-20T00:00:00 | Italian Garden | Sakura Sushi" in changes
    as_json = runner.invoke(app, neo4j("history", NAME, "favourite_restaurant", "--json"))
    assert [f["value"] for f in json.loads(as_json.stdout)["facts"]] == [
        "Italian Garden", "Sakura Sushi",
    ]  # fmt: skip


def test_search_and_stats_on_neo4j(env: Path) -> None:
    res = runner.invoke(app, neo4j("search", "Sakura Sushi", "--index-name", NAMESPACE,
                                   "--kind", "turn", "--json"))  # fmt: skip
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["turns"][0]["graph_id"] == PREFIX + TURN_2
    stats = runner.invoke(app, neo4j("stats", "--index-name", NAMESPACE, "--json"))
    found = json.loads(stats.stdout)
    assert found["store"] == "Neo4j" and found["search_documents"] >= 6, stats.output


def ask_now(env: Path, lm_api_base: str, mode: str) -> tuple[str, dict[str, Any]]:
    """`apexmem ask` of Alice's favourite restaurant now in ``mode``: its output and trace."""
    trace = env / "trace.json"
    args = neo4j("ask", f"What is {NAME}'s favourite restaurant now?", "--date", "2024-04-01",
                 "--mode", mode, "--index-name", NAMESPACE, "--trace", str(trace))  # fmt: skip
    res = runner.invoke(app, args, env={"APEXMEM_LM_API_BASE": lm_api_base})
    assert res.exit_code == 0, res.output
    return res.output, json.loads(trace.read_text())


@pytest.mark.llm
@pytest.mark.timeout(3000)
def test_ask_on_neo4j_with_the_native_search_index(env: Path, lm_api_base: str) -> None:
    output, saved = ask_now(env, lm_api_base, "fast")
    assert "no search index" not in output
    assert "sakura sushi" in saved["answer"].lower(), saved
    assert saved["mode"] == "fast" and saved["llm_calls"] >= 1
    assert [e["turn_id"] for e in saved["evidence"]] in ([], [PREFIX + TURN_2])


@pytest.mark.llm
@pytest.mark.timeout(3000)
def test_ask_in_query_mode_writes_cypher_on_neo4j(env: Path, lm_api_base: str) -> None:
    _, saved = ask_now(env, lm_api_base, "query")
    queries = [s["args"]["query"] for s in saved["trace"] if s["phase"] == "query" and s["tool"]]
    assert saved["mode"] == "query" and queries, saved
    assert all(q.lstrip().upper().startswith(("MATCH", "OPTIONAL", "WITH")) for q in queries)
    assert "sakura sushi" in saved["answer"].lower(), (saved["answer"], queries)


def test_ask_without_an_index_says_so(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # An unreachable LM: the warning comes before any LLM call, and the fast path reports
    # the failure as an error in the result instead of crashing.
    monkeypatch.setenv("APEXMEM_LM_API_BASE", "http://127.0.0.1:9/v1")
    args = neo4j("ask", "Anything?", "--mode", "fast", "--index-name", f"none{TAG}")
    res = runner.invoke(app, args)
    out = " ".join(res.output.split())
    assert "no search index" in out and f"apexmem index --store neo4j --index-name none{TAG}" in out
    assert "error:" in out
