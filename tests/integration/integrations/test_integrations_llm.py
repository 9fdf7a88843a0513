"""The framework adapters through the local LLM: LlamaIndex's chat memory overflowing into
``ApexMemBlock`` (facts extracted by the model, then read back as the block's context), and
the LangChain ``memory_ask`` tool answering with the memory's own agent."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.memory import Memory as ChatMemory

from apexmem_neo.integrations.langchain import memory_tools
from apexmem_neo.integrations.llamaindex import ApexMemBlock
from apexmem_neo.memory import Memory
from tests.readme_quickstart import QUICKSTART_TURNS

pytestmark = [pytest.mark.integration, pytest.mark.llm]

CONVERSATION = [
    (MessageRole.USER, "Hi! I live in Lisbon and I work as a nurse."),
    (MessageRole.ASSISTANT, "Nice to meet you."),
    (MessageRole.USER, "Big news: I have just moved from Lisbon to Porto."),
    (MessageRole.ASSISTANT, "Congratulations on the move!"),
]


def _open(tmp_path: Path, lm_api_base: str) -> Memory:
    return Memory.sqlite(
        tmp_path / "m.sqlite", home=tmp_path, lm_api_base=lm_api_base, lm_api_key="local"
    )


async def _chat(block: ApexMemBlock) -> list[ChatMessage]:
    chat = ChatMemory.from_defaults(
        session_id="alice", token_limit=40, chat_history_token_ratio=0.5, token_flush_size=15,
        memory_blocks=[block],
    )  # fmt: skip
    for role, text in CONVERSATION:
        await chat.aput(ChatMessage(role=role, content=text))
    await chat.aput(ChatMessage(role=MessageRole.USER, content="Which city do I live in now?"))
    return await chat.aget()


@pytest.mark.timeout(1800)
def test_llamaindex_overflow_becomes_facts_and_context(tmp_path: Path, lm_api_base: str) -> None:
    with _open(tmp_path, lm_api_base) as memory:
        block = ApexMemBlock(memory=memory, scope="alice", user_name="Alice")
        messages = asyncio.run(_chat(block))
        turns = memory.turns("alice").items
        assert [(t.speaker, t.text) for t in turns][:2] == [
            ("Alice", "Hi! I live in Lisbon and I work as a nurse."),
            ("assistant", "Nice to meet you."),
        ]
        cities = [str(f.value) for f in memory.history("Alice", "city", scope="alice").facts]
        assert cities and cities[-1] == "Porto", cities
        assert messages[0].role == MessageRole.SYSTEM and "Porto" in (messages[0].content or "")


@pytest.mark.timeout(1800)
def test_the_memory_ask_tool_answers_through_the_local_model(
    tmp_path: Path, lm_api_base: str
) -> None:
    with _open(tmp_path, lm_api_base) as memory:
        memory.add(QUICKSTART_TURNS, scope="alice")
        (ask,) = memory_tools(memory, "alice", names=["memory_ask"])
        out = ask.invoke(
            {"question": "What is Alice's favourite restaurant now?", "date": "2024-06-01"}
        )
        answer, _, evidence = out.partition("\n\nEvidence:")
        assert "sakura sushi" in answer.lower(), out
        assert "Sakura Sushi is my favourite restaurant now." in evidence, out
