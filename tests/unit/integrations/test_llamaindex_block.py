"""ApexMemBlock in LlamaIndex's own chat Memory, on a real SQLite memory with the hashing
embedder (no LLM: turns are stored without extraction), and the example run as a user runs it."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.memory import Memory as ChatMemory
from pydantic import ValidationError

from apexmem_neo.errors import InvalidInputError
from apexmem_neo.integrations.llamaindex import ApexMemBlock
from apexmem_neo.memory import Memory
from apexmem_neo.testing import HashingEmbedder
from tests.unit.agent.alice import alice_batch

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "llamaindex_memory_block.py"


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[Memory]:
    with Memory.sqlite(
        tmp_path / "m.sqlite", home=tmp_path, lm=None, embedder=HashingEmbedder()
    ) as opened:
        yield opened


def test_put_stores_user_and_assistant_text_as_turns(memory: Memory) -> None:
    block = ApexMemBlock(memory=memory, scope="alice", user_name="Alice", session="chat")
    messages = [
        ChatMessage(role=MessageRole.USER, content="I live in Lisbon."),
        ChatMessage(role=MessageRole.ASSISTANT, content="Lisbon is lovely."),
        ChatMessage(role=MessageRole.TOOL, content="{'weather': 'grey'}"),
        ChatMessage(role=MessageRole.SYSTEM, content="Be brief."),
        ChatMessage(role=MessageRole.USER, content=""),
    ]
    asyncio.run(block.aput(messages))
    turns = memory.turns("alice", session="chat").items
    assert [(t.speaker, t.text) for t in turns] == [
        ("Alice", "I live in Lisbon."),
        ("assistant", "Lisbon is lovely."),
    ]


def test_get_renders_what_the_memory_finds_for_the_latest_message(memory: Memory) -> None:
    memory.add({"role": "user", "name": "Alice", "content": "I moved to Porto."}, scope="alice",
               extract=False)  # fmt: skip
    memory.add({"role": "user", "name": "Bob", "content": "I moved to Oslo."}, scope="bob",
               extract=False)  # fmt: skip
    block = ApexMemBlock(memory=memory, scope="alice")
    asked = [ChatMessage(role=MessageRole.USER, content="Where did I move to?")]
    text = asyncio.run(block.aget(asked))
    assert "Alice: I moved to Porto." in text and "Oslo" not in text
    assert asyncio.run(block.aget([])) == ""
    assert asyncio.run(ApexMemBlock(memory=memory, scope="nobody").aget(asked)) == ""


def test_get_opens_with_the_current_values_of_matching_properties(tmp_path: Path) -> None:
    with Memory.sqlite(
        tmp_path / "a.sqlite", home=tmp_path, lm=None, embedder=HashingEmbedder()
    ) as memory:
        memory.store.write(alice_batch())
        memory.index()
        block = ApexMemBlock(memory=memory, scope="default")
        asked = [ChatMessage(role=MessageRole.USER, content="Alice favorite restaurant")]
        text = asyncio.run(block.aget(asked))
    head, _, rest = text.partition("Results for")
    assert head.startswith("Current values:\n- Alice · ")
    assert "'Sakura Sushi' from 2024-03-20" in head and "Italian Garden" not in head
    assert "Italian Garden" in rest or "Sakura Sushi" in rest


def test_a_bad_scope_is_refused(memory: Memory) -> None:
    with pytest.raises((InvalidInputError, ValidationError), match="scope"):
        ApexMemBlock(memory=memory, scope="has space")


def test_the_chat_memory_flushes_into_the_block_and_reads_it_back(memory: Memory) -> None:
    block = ApexMemBlock(memory=memory, scope="alice", user_name="Alice")
    chat = ChatMemory.from_defaults(
        session_id="alice", token_limit=40, chat_history_token_ratio=0.5, token_flush_size=15,
        memory_blocks=[block],
    )  # fmt: skip

    async def converse() -> list[ChatMessage]:
        for text in ("I moved to Porto last week.", "The weather is grey.", "I like ramen a lot."):
            await chat.aput(ChatMessage(role=MessageRole.USER, content=text))
        await chat.aput(ChatMessage(role=MessageRole.USER, content="Where did I move?"))
        return await chat.aget()

    messages = asyncio.run(converse())
    assert memory.turns("alice").items, "nothing overflowed into the block"
    assert messages[0].role == MessageRole.SYSTEM and "<apexmem>" in (messages[0].content or "")


def test_the_example_runs(tmp_path: Path) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(EXAMPLE.parents[1])}
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--db", str(tmp_path / "li.sqlite"), "--no-llm",
         "--fake-embedder"],
        capture_output=True, text=True, timeout=300, env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "turns the block stored in scope alice: 6"
    assert lines[1] == "the chat memory's first message is the block's context: True"
    assert "Alice: Big news: I have just moved from Lisbon to Porto." in done.stdout
