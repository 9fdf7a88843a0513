"""Chat messages -> ``TurnInput``s: what ``Memory.add`` accepts, made into turns of one session.

A message is an OpenAI-style dict (``role``, ``content``, optional ``name`` and
``timestamp``), a plain string (said by the user) or a ``TurnInput`` (taken as it is). The
speaker is the message's ``name``, else its role ("user" -> "User"); when a session has two
speakers each one's listener is the other. Turns are numbered after the session's last stored
turn, so every ``add`` appends. A message without a ``timestamp`` takes ``at``, else the time
of the message before it, else now.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from apexmem_neo.construction.loaders import TurnInput
from apexmem_neo.errors import ApexMemError
from apexmem_neo.ontology.types import TimeLike, normalize_time

Message: TypeAlias = Mapping[str, Any] | str | TurnInput
DEFAULT_SESSION = "default"
SCOPE_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:@/-]{0,127}$")


class InvalidInputError(ApexMemError, ValueError):
    """Input given to the memory is malformed; the message names the item and the problem."""


class ChatMessage(BaseModel):
    """One OpenAI-style chat message."""

    model_config = ConfigDict(extra="ignore")

    role: str = Field(min_length=1)
    content: str
    name: str | None = None
    timestamp: str | None = None


def check_scope(scope: str) -> str:
    """``scope`` itself if it is a usable name (letters, digits, ``_.:@/-``, at most 128)."""
    if not isinstance(scope, str) or not SCOPE_PATTERN.match(scope):
        raise InvalidInputError(
            f"scope {scope!r} is not a valid scope name: use 1-128 letters, digits or _.:@/- "
            "starting with a letter or digit (e.g. a user id)"
        )
    return scope


def _speaker(message: ChatMessage) -> str:
    if message.name and message.name.strip():
        return message.name.strip()
    return message.role.strip().capitalize()


def _parse(message: Message, index: int) -> ChatMessage | TurnInput:
    if isinstance(message, TurnInput):
        return message
    if isinstance(message, str):
        return ChatMessage(role="user", content=message)
    if not isinstance(message, Mapping):
        raise InvalidInputError(
            f"message {index}: expected a dict with role and content, a string or a TurnInput, "
            f"not {type(message).__name__}"
        )
    try:
        return ChatMessage.model_validate(dict(message))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "message"
        raise InvalidInputError(f"message {index}: {where}: {first['msg']}") from None


def _anchor(message: ChatMessage, at: TimeLike | None, index: int) -> str:
    """The message's own timestamp, else ``at`` (the previous message's time, or now)."""
    raw = message.timestamp if message.timestamp is not None else at
    if raw is None:
        return datetime.now(UTC).replace(tzinfo=None).isoformat(timespec="seconds")
    try:
        return normalize_time(raw)
    except ValueError as exc:
        raise InvalidInputError(f"message {index}: timestamp {raw!r}: {exc}") from None


def to_turns(
    messages: Sequence[Message] | Message,
    scope: str,
    session: str,
    session_seq: int,
    first_seq: int,
    at: TimeLike | None = None,
) -> list[TurnInput]:
    """The messages as turns of ``session`` in conversation ``scope``, numbered from
    ``first_seq``; ``TurnInput``s pass through unchanged."""
    items = [messages] if isinstance(messages, str | Mapping | TurnInput) else list(messages)
    if not items:
        raise InvalidInputError("no messages to add")
    parsed = [_parse(m, i) for i, m in enumerate(items)]
    chats = [p for p in parsed if isinstance(p, ChatMessage)]
    speakers = list(dict.fromkeys(_speaker(m) for m in chats))
    turns: list[TurnInput] = []
    seq = first_seq
    for index, item in enumerate(parsed):
        if isinstance(item, TurnInput):
            turns.append(item)
            continue
        speaker = _speaker(item)
        others = [s for s in speakers if s != speaker]
        anchor = _anchor(item, at, index)
        at = anchor  # a later message without a time was said no earlier than this one
        turns.append(
            TurnInput(
                source_key=f"{scope}:{session}:{seq}",
                conversation_id=scope,
                session_seq=session_seq,
                seq=seq,
                speaker=speaker,
                listener=others[0] if len(others) == 1 else None,
                text=item.content,
                anchor=anchor,
            )
        )
        seq += 1
    return turns


def session_number(session: str) -> int:
    """A stable number for a session name (the ``seq`` its Session row is stored under)."""
    return int(hashlib.sha256(session.encode("utf-8")).hexdigest()[:7], 16)
