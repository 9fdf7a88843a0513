"""Ask through the MCP server with the local LLM: the SDK's client in process over a memory
holding the Alice case (favourite restaurant Italian Garden, then Sakura Sushi from
2024-03-20). The fast path with a small context and few tokens keeps the CPU-bound model quick.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult

from apexmem_neo import Memory
from apexmem_neo.agent import AgentConfig
from apexmem_neo.llm import make_lm
from apexmem_neo.mcp_server import IngestJobs, build_server
from tests.unit.agent.alice import alice_batch

pytestmark = [pytest.mark.integration, pytest.mark.llm]

MODEL = "openai/qwen2.5-coder-1.5b-instruct"
CONFIG = AgentConfig(mode="fast", prefetch_entities=1, prefetch_turns=0, max_facts=6)


@pytest.mark.timeout(3000)
def test_ask_answers_through_the_local_model(lm_api_base: str, tmp_path: Path) -> None:
    lm = make_lm(MODEL, lm_api_base, "local", max_tokens=160, timeout=1500)
    memory = Memory.sqlite(
        tmp_path / "m.sqlite", lm=lm, search=None, agent_config=CONFIG, home=tmp_path
    )
    question = {"question": "What is Alice's favourite restaurant now?", "date": "2024-04-01"}

    async def ask() -> CallToolResult:
        async with Client(build_server(memory, "alice", jobs=jobs)) as client:
            return await client.call_tool("Ask", question)

    with memory:
        memory.store.write(alice_batch(scope="alice"))
        jobs = IngestJobs(memory)
        result = anyio.run(ask)
        jobs.close()
    text = "\n".join(getattr(c, "text", "") for c in result.content)
    assert not result.is_error, text
    answer = text.split("## Evidence")[0].lower()
    assert answer.startswith("## answer") and "sakura sushi" in answer, text
    assert "## Trace" in text and "mode fast" in text
