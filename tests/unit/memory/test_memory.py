"""The Memory API on SQLite with the embedded index: no service, no LLM (extract=False)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from apexmem_neo import AsyncMemory, Memory
from apexmem_neo.memory import (
    InvalidInputError,
    NoLanguageModelError,
    StoreNotFoundError,
    UnknownEntityError,
)
from apexmem_neo.query.backend import ToolError
from apexmem_neo.search import EmbedderMismatchError
from apexmem_neo.settings import LOCAL_LM, LOCAL_LM_API_BASE, Settings
from apexmem_neo.testing import HashingEmbedder
from tests.unit.agent.alice import alice_batch


class OtherEmbedder(HashingEmbedder):
    """The hashing embedder under another model name (same dimensions)."""

    @property
    def name(self) -> str:
        return "other-embedder"


def open_memory(tmp_path: Path, **options: object) -> Memory:
    options.setdefault("embedder", HashingEmbedder())
    options.setdefault("lm", None)
    return Memory.sqlite(tmp_path / "m.sqlite", home=tmp_path / "home", **options)  # type: ignore[arg-type]


def test_add_without_extraction_stores_and_indexes_turns(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory:
        first = memory.add(
            [
                {"role": "user", "name": "Alice", "content": "I moved to Seattle.",
                 "timestamp": "2024-06-10T09:00:00"},
                {"role": "assistant", "content": "Seattle is lovely in summer."},
            ],
            scope="alice", extract=False,
        )  # fmt: skip
        second = memory.add("My dog is called Rex.", scope="alice", at="2024-06-11", extract=False)
        assert [t.status for t in first.turns] == ["stored", "stored"]
        assert first.turns[0].speaker == "Alice" and first.turns[1].speaker == "Assistant"
        assert first.turns[1].anchor == "2024-06-10T09:00:00"  # no timestamp: the one before
        assert first.indexed >= 2 and second.indexed >= 1
        assert first.llm_calls == 0 and first.facts == []
        rows = memory.query("SELECT seq, speaker, listener FROM turns ORDER BY seq", scope="alice")
        assert rows.rows == (
            (0, "Alice", "Assistant"),
            (1, "Assistant", "Alice"),
            (2, "User", None),
        )
        turns = memory.search("dog Rex", scope="alice", k=3).turns
        assert turns and turns[0].text == "User: My dog is called Rex."


def test_search_on_an_empty_memory_finds_nothing(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory:
        results = memory.search("anything at all", scope="alice")
        assert results.turns == [] and results.entities == []
        assert memory.stats().search_documents == 0


def test_query_runs_in_the_store_language_and_refuses_writes(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory:
        assert memory.language == "sql"
        with pytest.raises(ToolError):
            memory.query("DELETE FROM turns", scope="alice")
        with pytest.raises(ToolError):
            memory.query("MATCH (n) RETURN n", scope="alice")


def test_history_and_as_of_read_facts_by_entity_name(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory:
        memory.store.write(alice_batch())
        history = memory.history("Alice", "favourite_restaurant", scope="default")
        assert [f.value for f in history.facts] == ["Italian Garden", "Sakura Sushi"]
        assert [c.new_value for c in history.changes] == ["Sakura Sushi"]
        held = memory.as_of("Alice", "favourite_restaurant", "2024-02-01", scope="default")
        assert held is not None and held.value == "Italian Garden"
        with pytest.raises(UnknownEntityError, match="Zebulon"):
            memory.history("Zebulon", "city", scope="default")


def test_extraction_needs_a_language_model(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory, pytest.raises(NoLanguageModelError, match="lm="):
        memory.add("I live in Boston.", scope="alice")
    with open_memory(tmp_path) as memory, pytest.raises(NoLanguageModelError):
        memory.ask("Where does Alice live?", scope="alice")


@pytest.mark.parametrize("scope", ["", " alice", "a" * 129, "bob; DROP", "ümlaut"])
def test_bad_scopes_are_refused_in_one_line(tmp_path: Path, scope: str) -> None:
    with open_memory(tmp_path) as memory:
        with pytest.raises(InvalidInputError) as caught:
            memory.add("hello", scope=scope, extract=False)
        assert "\n" not in str(caught.value)
        assert memory.store.counts().turns == 0


def test_bad_messages_are_refused_and_nothing_is_stored(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory:
        for bad in (
            [{"content": "no role"}],
            [42],
            [],
            [{"role": "user", "content": "x", "timestamp": "yesterday-ish"}],
        ):
            with pytest.raises(InvalidInputError):
                memory.add(bad, scope="alice", extract=False)  # type: ignore[arg-type]
        assert memory.store.counts().turns == 0


def test_a_missing_store_opened_for_reading_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(StoreNotFoundError, match="no memory at"):
        Memory.sqlite(tmp_path / "absent.sqlite", create=False, lm=None)
    assert not (tmp_path / "absent.sqlite").exists()


def test_ingest_file_with_a_scope_needs_one_conversation(tmp_path: Path) -> None:
    lines = [
        {"speaker": "A", "text": "hi", "timestamp": "2024-01-01", "conversation": "c1"},
        {"speaker": "B", "text": "yo", "timestamp": "2024-01-01", "conversation": "c2"},
    ]
    data = tmp_path / "two.jsonl"
    data.write_text("\n".join(json.dumps(x) for x in lines), encoding="utf-8")
    with open_memory(tmp_path) as memory:
        with pytest.raises(InvalidInputError, match="2 conversations"):
            memory.ingest_file(data, scope="x", extract=False)
        added = memory.ingest_file(data, extract=False)
        assert [t.status for t in added.turns] == ["stored", "stored"]
        for conversation in ("c1", "c2"):  # each conversation is its own scope
            sql = "SELECT conversation_id FROM sessions"
            assert memory.query(sql, scope=conversation).rows == ((conversation,),)


def test_an_index_built_with_another_embedder_is_refused(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory:
        memory.add("I moved to Seattle.", scope="alice", extract=False)
    with open_memory(tmp_path, embedder=OtherEmbedder()) as memory:
        with pytest.raises(EmbedderMismatchError) as caught:
            memory.search("Seattle", scope="alice")
        assert "other-embedder" in str(caught.value) and "\n" not in str(caught.value)


def test_async_memory_adds_and_searches_off_the_event_loop(tmp_path: Path) -> None:
    async def run() -> list[str]:
        memory = AsyncMemory(open_memory(tmp_path))
        async with memory:
            await memory.add("Our cat is called Tom.", scope="alice", extract=False)
            found = await memory.search("cat", scope="alice")
            stats = await memory.stats()
            assert stats.counts.turns == 1
            return [h.text for h in found.turns]

    assert asyncio.run(run()) == ["User: Our cat is called Tom."]


def test_the_local_api_base_applies_only_to_the_local_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("APEXMEM_LM", "APEXMEM_LM_API_BASE", "APEXMEM_LM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    assert Settings().lm_endpoint() == (LOCAL_LM_API_BASE, "local")
    monkeypatch.setenv("APEXMEM_LM", "openai/gpt-4o-mini")
    assert Settings().lm_endpoint() == (None, None)
    monkeypatch.setenv("APEXMEM_LM_API_BASE", "http://127.0.0.1:9999/v1")
    monkeypatch.setenv("APEXMEM_LM_API_KEY", "sk-secret-value")
    assert Settings().lm_endpoint() == ("http://127.0.0.1:9999/v1", "sk-secret-value")
    assert LOCAL_LM != "openai/gpt-4o-mini"


def test_the_effective_configuration_masks_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_USER", "neo")
    monkeypatch.setenv("NEO4J_PASSWORD", "hunter2-password")
    monkeypatch.setenv("APEXMEM_LM_API_KEY", "sk-secret-value")
    monkeypatch.setenv("ELASTICSEARCH_API_KEY", "es-secret-key")
    settings = Settings()
    text = json.dumps(settings.effective())
    assert "hunter2" not in text and "sk-secret" not in text and "es-secret" not in text
    assert settings.neo4j_auth() == ("neo", "hunter2-password")
    assert settings.elasticsearch_options() == {"api_key": "es-secret-key"}
