"""The Memory API against the real services: Neo4j (store and native search), Elasticsearch,
the local LLM, and a hosted-model setup answered through an OpenAI-compatible server on
another port."""

from __future__ import annotations

import uuid
from pathlib import Path

import dspy
import pytest
from dspy.utils import DummyLM
from neo4j import Driver

from apexmem_neo import Memory
from apexmem_neo.agent import AgentConfig
from apexmem_neo.errors import ServiceUnavailableError
from apexmem_neo.settings import Settings
from apexmem_neo.testing import HashingEmbedder
from tests.openai_stub_server import CHAT_PATH, OpenAIStubServer
from tests.unit.agent.alice import alice_batch

pytestmark = [pytest.mark.integration]
LOCAL_MODEL = "qwen2.5-coder-1.5b-instruct"
MESSAGES = [
    {"role": "user", "name": "Alice", "timestamp": "2024-01-15T19:00:00",
     "content": "I live in Boston."},
    {"role": "user", "name": "Alice", "timestamp": "2024-06-10T09:00:00",
     "content": "Seattle is my home now: I moved here from Boston last week."},
]  # fmt: skip


@pytest.mark.neo4j
def test_memory_on_neo4j_adds_searches_and_queries_in_cypher(
    neo4j_driver: Driver, tmp_path: Path
) -> None:
    neo4j_driver.execute_query("MATCH (n) DETACH DELETE n")
    namespace = f"mem{uuid.uuid4().hex[:8]}"
    memory = Memory.neo4j(
        neo4j_driver, embedder=HashingEmbedder(), lm=None, index_name=namespace,
        home=tmp_path,
    )  # fmt: skip
    with memory:
        added = memory.add(MESSAGES, scope="alice", extract=False)
        assert [t.status for t in added.turns] == ["stored", "stored"] and added.indexed >= 2
        assert memory.language == "cypher"
        rows = memory.query("MATCH (t:Turn) RETURN t.text AS text ORDER BY t.seq", scope="alice")
        assert [r[0] for r in rows.rows] == [m["content"] for m in MESSAGES]
        assert (
            memory.search("Seattle home", scope="alice", k=2)
            .turns[0]
            .text.startswith("Alice: Seattle")
        )
        memory.store.write(alice_batch(scope="alice"))
        history = memory.history("Alice", "favourite_restaurant", scope="alice")
        assert [f.value for f in history.facts] == ["Italian Garden", "Sakura Sushi"]
        assert memory.stats().counts.turns >= 2
    neo4j_driver.verify_connectivity()  # a driver given by the caller stays open


@pytest.mark.neo4j
def test_the_answer_context_dates_each_turns_time_words_on_neo4j(
    neo4j_driver: Driver, tmp_path: Path
) -> None:
    """The agent's context over a Neo4j memory: the turns with their days and time words."""
    neo4j_driver.execute_query("MATCH (n) DETACH DELETE n")
    memory = Memory.neo4j(
        neo4j_driver, embedder=HashingEmbedder(), lm=None, index_name=f"ctx{uuid.uuid4().hex[:8]}",
        home=tmp_path,
    )  # fmt: skip
    with memory:
        memory.store.write(alice_batch(scope="alice"))
        memory.index()
        reply = {"answer": "Sakura Sushi", "evidence_turn_ids": [], "enough_context": True}
        dummy = DummyLM([reply], adapter=dspy.JSONAdapter())
        agent = memory.agent(scope="alice", lm=dummy, config=AgentConfig(mode="fast"))
        assert agent.ask("Which restaurant does Alice like?").answer == "Sakura Sushi"
    prompt = str(dummy.history[-1]["messages"])
    assert "15 January 2024 Alice: My favourite restaurant is Italian Garden." in prompt
    assert "last Saturday (13 January 2024)" in prompt and "memory:" not in prompt


@pytest.mark.neo4j
def test_a_neo4j_that_does_not_answer_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ServiceUnavailableError, match="neo4j is not reachable"):
        Memory.neo4j("bolt://127.0.0.1:1", lm=None, home=tmp_path)


@pytest.mark.elasticsearch
def test_memory_on_sqlite_with_elasticsearch_search(es_url: str, tmp_path: Path) -> None:
    memory = Memory.sqlite(
        tmp_path / "m.sqlite", search="elasticsearch", elasticsearch=es_url,
        embedder=HashingEmbedder(), lm=None, home=tmp_path,
        index_name=f"mem{uuid.uuid4().hex[:8]}",
    )  # fmt: skip
    with memory:
        try:
            memory.add(MESSAGES, scope="alice", extract=False)
            hits = memory.search("Boston", scope="alice", k=2).turns
            assert hits and "Boston" in hits[0].text
        finally:
            assert memory.search_index is not None
            memory.search_index.index.drop()


@pytest.mark.llm
def test_memory_extracts_and_answers_with_the_local_model(lm_api_base: str, tmp_path: Path) -> None:
    memory = Memory.sqlite(
        tmp_path / "m.sqlite", lm=f"openai/{LOCAL_MODEL}", lm_api_base=lm_api_base,
        lm_api_key="local", embedder="all-MiniLM-L6-v2", home=tmp_path,
    )  # fmt: skip
    with memory:
        added = memory.add(MESSAGES, scope="alice")
        assert [t.status for t in added.turns] == ["done", "done"], added.failures
        assert added.llm_calls >= 2 and added.facts
        cities = [f.value for f in added.facts if f.property == "lives_in"]
        assert "Seattle" in cities, [f.model_dump() for f in added.facts]
        result = memory.ask("Where does Alice live now?", scope="alice", at="2024-07-01")
        assert result.error is None and "Seattle" in result.answer


@pytest.mark.llm
def test_a_hosted_model_is_reached_by_apexmem_lm_alone(
    lm_api_base: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with OpenAIStubServer(chat_upstream=lm_api_base, upstream_model=LOCAL_MODEL) as hosted:
        for name in ("APEXMEM_LM_API_BASE", "APEXMEM_LM_API_KEY", "OPENAI_BASE_URL"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("APEXMEM_LM", "openai/gpt-4o-mini")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-hosted")
        monkeypatch.setenv("OPENAI_API_BASE", hosted.url)  # the provider's own variable
        monkeypatch.setenv("APEXMEM_HOME", str(tmp_path))
        monkeypatch.setenv("APEXMEM_EMBED_MODEL", "all-MiniLM-L6-v2")
        with Memory.from_settings(Settings(), db=tmp_path / "m.sqlite") as memory:
            added = memory.add(MESSAGES[:1], scope="alice")
        chats = [r for r in hosted.requests if r.path == CHAT_PATH]
        assert chats, "no request reached the hosted endpoint"
        assert {r.body["model"] for r in chats} == {"gpt-4o-mini"}
        assert {r.authorization for r in chats} == {"Bearer sk-test-hosted"}
        assert added.turns[0].status == "done"


@pytest.mark.llm
def test_the_readme_quickstart_runs_with_the_local_model(
    lm_api_base: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from apexmem_neo.settings import default_models_dir
    from tests.readme_quickstart import quickstart

    assert lm_api_base.rstrip("/") == "http://127.0.0.1:8080/v1"  # the quickstart's default
    models = default_models_dir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr("apexmem_neo.memory.build.default_models_dir", lambda: models)
    exec(compile(quickstart(), "README.md quickstart", "exec"), {})
    out = capsys.readouterr().out
    assert "Italian Garden" in out.splitlines()[-1], out
