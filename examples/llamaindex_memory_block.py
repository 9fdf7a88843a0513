"""LlamaIndex's chat ``Memory`` with an apexmem-neo long-term memory block.

LlamaIndex keeps the latest messages in a short-term buffer; the older ones overflow into its
memory blocks. Here the block is ``ApexMemBlock``: overflowing messages become turns of the
user's scope (with their events and typed facts, extracted by the memory's LLM), and when the
chat memory is read the block adds what the memory knows about the new message, so an answer
can rest on something said long before the buffer's window.

    python examples/llamaindex_memory_block.py                # ~/.apexmem memory, local LLM
    python examples/llamaindex_memory_block.py --db /tmp/li.sqlite --no-llm --fake-embedder

``--no-llm`` stores the turns without extraction (no model server needed) and
``--fake-embedder`` uses the deterministic hashing embedder of ``apexmem_neo.testing`` (no model
weights to load), as the example's test does.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.memory import Memory as ChatMemory

from apexmem_neo import Memory
from apexmem_neo.integrations.llamaindex import ApexMemBlock

CONVERSATION = [
    (MessageRole.USER, "Hi! I live in Lisbon and I work as a nurse."),
    (MessageRole.ASSISTANT, "Nice to meet you. Lisbon is lovely."),
    (MessageRole.USER, "Big news: I have just moved from Lisbon to Porto."),
    (MessageRole.ASSISTANT, "Congratulations on the move to Porto!"),
    (MessageRole.USER, "My favourite food is ramen, by the way."),
    (MessageRole.ASSISTANT, "Noted: ramen."),
    (MessageRole.USER, "The weather has been grey all week."),
    (MessageRole.ASSISTANT, "Sorry to hear it; sunnier days will come."),
]
QUESTION = "Which city do I live in now?"


async def run(memory: Memory, scope: str) -> None:
    block = ApexMemBlock(memory=memory, scope=scope, user_name="Alice", k=3)
    chat = ChatMemory.from_defaults(
        session_id=scope,
        token_limit=60,  # small, so the conversation overflows into the block
        chat_history_token_ratio=0.5,
        token_flush_size=20,
        memory_blocks=[block],
    )
    for role, text in CONVERSATION:
        await chat.aput(ChatMessage(role=role, content=text))
    stored = memory.turns(scope).items
    print(f"turns the block stored in scope {scope}: {len(stored)}")
    await chat.aput(ChatMessage(role=MessageRole.USER, content=QUESTION))
    messages = await chat.aget()
    memory_text = (messages[0].content or "") if messages[0].role == MessageRole.SYSTEM else ""
    print(f"the chat memory's first message is the block's context: {'Porto' in memory_text}")
    print(memory_text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=None, help="SQLite file (default ~/.apexmem)")
    parser.add_argument("--scope", default="alice")
    parser.add_argument("--no-llm", action="store_true", help="store turns without extraction")
    parser.add_argument("--fake-embedder", action="store_true", help="hashing embedder")
    args = parser.parse_args()
    options: dict[str, object] = {}
    if args.no_llm:
        options["lm"] = None
    if args.fake_embedder:
        from apexmem_neo.testing import HashingEmbedder

        options["embedder"] = HashingEmbedder()
    if args.db is not None:
        options["home"] = args.db.parent
    with Memory.sqlite(args.db, **options) as memory:  # type: ignore[arg-type]
        asyncio.run(run(memory, args.scope))


if __name__ == "__main__":
    main()
