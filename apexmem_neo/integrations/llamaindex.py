"""``ApexMemBlock``: a long-term memory block for LlamaIndex's ``Memory`` (the ``llamaindex``
extra), backed by one scope of a ``Memory``.

LlamaIndex keeps a short-term chat buffer and hands the messages that overflow it to its memory
blocks; when an agent reads its memory, each block adds text beside the chat history. This
block stores the messages it is handed as append-only turns of its scope (extracting events
and typed facts with the memory's LLM when it has one, unless ``extract`` says otherwise),
and contributes what the memory finds for the latest messages: the current value of each
matching property of the matching entities (with since when it holds), then the matching
turns, entities, properties and events, so an agent sees what holds now and what was said.
LlamaIndex's messages carry no time of their own, so a turn is dated when the block gets it.

    from llama_index.core.memory import Memory as ChatMemory
    block = ApexMemBlock(memory=memory, scope="alice", user_name="Alice")
    chat_memory = ChatMemory.from_defaults(session_id="s1", memory_blocks=[block])
"""

from __future__ import annotations

import asyncio
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, MessageRole, TextBlock
from llama_index.core.memory.memory import BaseMemoryBlock
from pydantic import Field, field_validator

from apexmem_neo.errors import ApexMemError
from apexmem_neo.integrations.render import render_fact, render_search
from apexmem_neo.memory.core import Memory
from apexmem_neo.memory.messages import check_scope
from apexmem_neo.search import SearchResults

CURRENT_ENTITIES = 2
"""How many of the best matching entities get their current values shown."""
_STORED_ROLES = {MessageRole.USER: "user", MessageRole.ASSISTANT: "assistant"}


class ApexMemBlock(BaseMemoryBlock[str]):
    """LlamaIndex memory block over ``scope`` of ``memory``; see the module docstring."""

    name: str = Field(default="apexmem", description="The block's name in the memory prompt.")
    memory: Memory = Field(exclude=True, description="The apexmem-neo memory it reads and writes.")
    scope: str = Field(description="Whose memory: a user or agent id.")
    session: str | None = Field(default=None, description="The session turns are stored in.")
    user_name: str | None = Field(
        default=None, description="The speaker name of user messages (facts are filed on it)."
    )
    assistant_name: str = Field(default="assistant", description="The assistant's speaker name.")
    extract: bool | None = Field(
        default=None,
        description="Extract events and facts from stored turns with the memory's LLM "
        "(default: when the memory has one).",
    )
    k: int = Field(default=5, ge=1, le=50, description="Search hits of each kind to show.")
    query_messages: int = Field(
        default=1, ge=1, description="How many of the latest messages make the search query."
    )

    @field_validator("scope")
    @classmethod
    def _valid_scope(cls, scope: str) -> str:
        check_scope(scope)
        return scope

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        """What the memory finds for the latest messages, as text; empty with nothing to ask
        or without a search index."""
        query = " ".join(_text(m) for m in (messages or [])[-self.query_messages :]).strip()
        if not query or self.memory.search_index is None:
            return ""
        return await asyncio.to_thread(self._context, query)

    def _context(self, query: str) -> str:
        found = self.memory.search(query, scope=self.scope, k=self.k)
        if found.empty:
            return ""
        now = self._current_values(found)
        head = ["Current values:", *(f"- {line}" for line in now), ""] if now else []
        return "\n".join([*head, render_search(found)])

    def _current_values(self, found: SearchResults) -> list[str]:
        """The latest value of every matching property of the best matching entities."""
        lines = []
        for entity in found.entities[:CURRENT_ENTITIES]:
            for prop in found.properties:
                try:
                    fact = self.memory.current(entity.title, prop.title, scope=self.scope)
                except (ApexMemError, LookupError):
                    continue
                if fact is not None:
                    lines.append(render_fact(f"{entity.title} · {prop.title}", fact))
        return lines

    async def _aput(self, messages: list[ChatMessage]) -> None:
        """Store the user and assistant messages handed over as turns of the scope."""
        stored = [self._message(m) for m in messages if m.role in _STORED_ROLES and _text(m)]
        if stored:
            extract = self.memory.lm is not None if self.extract is None else self.extract
            await asyncio.to_thread(
                self.memory.add,
                stored,
                scope=self.scope,
                session=self.session,
                extract=extract,
            )

    def _message(self, message: ChatMessage) -> dict[str, Any]:
        role = _STORED_ROLES[message.role]
        name = self.user_name if role == "user" else self.assistant_name
        out: dict[str, Any] = {"role": role, "content": _text(message)}
        if name:
            out["name"] = name
        return out


def _text(message: ChatMessage) -> str:
    """A message's text blocks joined (images and tool calls carry no text to remember)."""
    return "\n".join(b.text for b in message.blocks if isinstance(b, TextBlock) and b.text)
