"""The agent's fast path through the local LLM on the Alice case (gold facts, no extraction).

Alice's favourite restaurant was Italian Garden from 2024-01-15 and Sakura Sushi from
2024-03-20. The prefetched context is small (one entity, its two facts) so that a slow
CPU-bound local model still answers within the timeout.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from apexmem_neo.agent import AgentConfig, MemoryAgent, build_tools
from apexmem_neo.llm import make_lm
from apexmem_neo.store.sqlite import SQLiteGraphStore
from apexmem_neo.tools import SQLiteQueryBackend
from tests.unit.agent.alice import TURN_2, alice_store

pytestmark = [pytest.mark.integration, pytest.mark.llm]

MODEL = "openai/qwen2.5-coder-1.5b-instruct"
CONFIG = AgentConfig(mode="fast", prefetch_entities=1, prefetch_turns=0, max_facts=6)


@pytest.fixture
def agent(lm_api_base: str, tmp_path: Path) -> Iterator[MemoryAgent]:
    path = tmp_path / "alice.sqlite"
    store: SQLiteGraphStore = alice_store(path)
    backend = SQLiteQueryBackend(path)
    lm = make_lm(MODEL, lm_api_base, "local", max_tokens=160, timeout=1500)
    yield MemoryAgent(lm, store, build_tools(store, backend), backend, None, CONFIG)
    store.close()


@pytest.mark.timeout(3000)
def test_fast_path_current_favourite(agent: MemoryAgent) -> None:
    res = agent.ask("What is Alice's favourite restaurant now?", "2024-04-01")
    assert res.error is None, res.error
    assert res.mode == "fast" and res.llm_calls >= 1
    assert "sakura sushi" in res.answer.lower(), res.answer
    assert all(e.turn_id.startswith("alice_turn_") for e in res.evidence)


@pytest.mark.timeout(3000)
def test_fast_path_when_it_changed(agent: MemoryAgent) -> None:
    res = agent.ask("When did Alice's favourite restaurant change?", "2024-04-01")
    assert res.error is None, res.error
    answer = res.answer.lower()
    assert "2024-03-20" in answer or "march 20" in answer, res.answer
    assert TURN_2 in [e.turn_id for e in res.evidence] or not res.evidence
