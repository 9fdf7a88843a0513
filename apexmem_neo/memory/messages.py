"""Chat messages -> ``TurnInput``s: what ``Memory.add`` accepts, made into turns of one session;
and the checks every entry that stores turns applies (scope names, text, turn length).

A message is an OpenAI-style dict (``role``, ``content``, optional ``name``, ``timestamp``
and ``metadata``: a dict of string keys to JSON scalars, stored with the turn), a plain
string (said by the user) or a ``TurnInput`` (taken as it is). The speaker is the message's
``name``, else its role ("user" -> "User"); when a session has two speakers each one's
listener is the other. Turns are numbered from the first number the store reserved for them
(``GraphStore.reserve_turn_seqs``), so every ``add`` appends, and two writers of one session
never share a number. A message without a ``timestamp`` takes ``at``, else the
time of the message before it, else now.

Everything is checked before anything is stored: a bad message fails the whole call with
``InvalidInputError`` naming the message and the problem, and no turn of it is written.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, Final, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from apexmem_neo.construction.loaders import TurnInput, text_problem
from apexmem_neo.errors import InvalidInputError as InvalidInputError
from apexmem_neo.ontology.metadata import Metadata, check_metadata, metadata_problem
from apexmem_neo.ontology.types import TimeLike, normalize_time
from apexmem_neo.settings import MAX_TURN_CHARS, MAX_TURN_CHARS_LIMIT

Message: TypeAlias = Mapping[str, Any] | str | TurnInput
DEFAULT_SESSION = "default"
SCOPE_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:@/-]{0,127}")
"""A scope name, matched whole (``fullmatch``: ``$`` would also match before a newline)."""
SCOPE_RULE: Final = "1-128 letters, digits or _.:@/- starting with a letter or digit"
_NOT_IN_SCOPE = re.compile(r"[^A-Za-z0-9_.:@/-]+")


class ChatMessage(BaseModel):
    """One OpenAI-style chat message."""

    model_config = ConfigDict(extra="ignore")

    role: str = Field(min_length=1)
    content: str
    name: str | None = None
    timestamp: str | datetime | date | None = None
    """An ISO 8601 string or a ``datetime``/``date`` (naive means UTC, like ``at``)."""
    metadata: Any = None
    """The caller's own keys and JSON scalars, stored with the turn; checked by
    ``_check_message`` so a bad one is named like every other problem of a message."""


@dataclass(frozen=True)
class Said:
    """A checked chat message, not numbered yet: who said what, to whom, when."""

    speaker: str
    listener: str | None
    text: str
    anchor: str
    metadata: Metadata = field(default_factory=dict)


def check_scope(scope: str) -> str:
    """``scope`` itself if it is a usable name (letters, digits, ``_.:@/-``, at most 128)."""
    if not isinstance(scope, str) or not SCOPE_PATTERN.fullmatch(scope):
        raise InvalidInputError(
            f"scope {scope!r} is not a valid scope name: use {SCOPE_RULE} (e.g. a user id)"
        )
    return scope


def check_max_turn_chars(value: int) -> int:
    """``value`` if it is a usable turn length limit (1 to ``MAX_TURN_CHARS_LIMIT``)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInputError(f"max_turn_chars must be an integer, not {value!r}")
    if not 1 <= value <= MAX_TURN_CHARS_LIMIT:
        raise InvalidInputError(
            f"max_turn_chars {value} is out of range: use 1 to {MAX_TURN_CHARS_LIMIT:,} "
            "(the longest text every later step reads back)"
        )
    return value


def check_text(value: str, what: str) -> None:
    """InvalidInputError naming ``what`` if ``value`` holds a NUL or a lone surrogate."""
    problem = text_problem(value)
    if problem is not None:
        raise InvalidInputError(f"{what} {problem}")


def check_length(text: str, max_chars: int, what: str) -> None:
    """InvalidInputError naming ``what`` if ``text`` is longer than ``max_chars``."""
    if len(text) > max_chars:
        raise InvalidInputError(
            f"{what} is {len(text):,} characters, more than the {max_chars:,} a turn may hold: "
            "split it into several turns, or raise the limit with max_turn_chars= "
            f"(APEXMEM_MAX_TURN_CHARS, at most {MAX_TURN_CHARS_LIMIT:,})"
        )


def check_turn(turn: TurnInput, max_chars: int, what: str) -> None:
    """Every check a stored turn must pass (its scope, its texts, its length), a failure
    naming the turn as ``what``."""
    try:
        check_scope(turn.conversation_id)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{what}: {exc}") from None
    for name, value in (("speaker", turn.speaker), ("listener", turn.listener)):
        if value is not None:
            check_text(value, f"{what}: {name}")
    check_text(turn.text, f"{what}: text")
    check_length(turn.text, max_chars, f"{what}: text")


def check_turns(turns: Sequence[TurnInput], max_chars: int) -> None:
    """``check_turn`` on each of ``turns`` (named by index and source), for callers to run
    before they write anything, so a bad turn leaves no part of its batch stored."""
    for index, turn in enumerate(turns):
        check_turn(turn, max_chars, f"turn {index} ({turn.source_key!r})")


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


def _check_message(message: ChatMessage, index: int, max_chars: int) -> None:
    """The message's texts are storable, its content fits in a turn and its metadata is a
    dict of string keys to JSON scalars."""
    for name in ("content", "role", "name", "timestamp"):
        value = getattr(message, name)
        if isinstance(value, str):
            check_text(value, f"message {index}: {name}")
    check_length(message.content, max_chars, f"message {index}: content")
    problem = metadata_problem(message.metadata) if message.metadata is not None else None
    if problem is not None:
        raise InvalidInputError(f"message {index}: metadata {problem}")


def _anchor(message: ChatMessage, at: TimeLike | None, index: int) -> str:
    """The message's own timestamp, else ``at`` (the previous message's time, or now)."""
    raw = message.timestamp if message.timestamp is not None else at
    if raw is None:
        return datetime.now(UTC).replace(tzinfo=None).isoformat(timespec="seconds")
    try:
        return normalize_time(raw)
    except ValueError as exc:
        raise InvalidInputError(f"message {index}: timestamp {raw!r}: {exc}") from None


def read_messages(
    messages: Sequence[Message] | Message,
    at: TimeLike | None = None,
    max_chars: int = MAX_TURN_CHARS,
    session: str = DEFAULT_SESSION,
) -> list[Said | TurnInput]:
    """The messages checked and dated, not yet numbered (``TurnInput``s pass through,
    checked too); InvalidInputError naming the first bad message, before anything is stored."""
    check_text(session, "session name")
    items = [messages] if isinstance(messages, str | Mapping | TurnInput) else list(messages)
    if not items:
        raise InvalidInputError("no messages to add")
    parsed = [_parse(m, i) for i, m in enumerate(items)]
    chats = [p for p in parsed if isinstance(p, ChatMessage)]
    speakers = list(dict.fromkeys(_speaker(m) for m in chats))
    read: list[Said | TurnInput] = []
    for index, item in enumerate(parsed):
        if isinstance(item, TurnInput):
            check_turn(item, max_chars, f"message {index}")
            read.append(item)
            continue
        _check_message(item, index, max_chars)
        speaker = _speaker(item)
        others = [s for s in speakers if s != speaker]
        at = _anchor(item, at, index)  # a later message without a time is no earlier
        listener = others[0] if len(others) == 1 else None
        read.append(Said(speaker, listener, item.content, at, check_metadata(item.metadata)))
    return read


def new_turns(read: Sequence[Said | TurnInput]) -> int:
    """How many turn numbers ``read`` needs (``TurnInput``s keep their own)."""
    return sum(isinstance(item, Said) for item in read)


def number_turns(
    read: Sequence[Said | TurnInput], scope: str, session: str, session_seq: int, first_seq: int
) -> list[TurnInput]:
    """``read`` as turns of ``session`` in conversation ``scope``, numbered from
    ``first_seq``; ``TurnInput``s pass through unchanged."""
    turns: list[TurnInput] = []
    seq = first_seq
    for item in read:
        if isinstance(item, TurnInput):
            turns.append(item)
            continue
        turns.append(
            TurnInput(
                source_key=f"{scope}:{session}:{seq}",
                conversation_id=scope,
                session_seq=session_seq,
                seq=seq,
                speaker=item.speaker,
                listener=item.listener,
                text=item.text,
                anchor=item.anchor,
                metadata=item.metadata,
            )
        )
        seq += 1
    return turns


def to_turns(
    messages: Sequence[Message] | Message,
    scope: str,
    session: str,
    session_seq: int,
    first_seq: int,
    at: TimeLike | None = None,
    max_chars: int = MAX_TURN_CHARS,
) -> list[TurnInput]:
    """The messages as turns of ``session`` in conversation ``scope``, numbered from
    ``first_seq``, every check passed; ``TurnInput``s pass through unchanged."""
    read = read_messages(messages, at, max_chars, session)
    return number_turns(read, check_scope(scope), session, session_seq, first_seq)


def _shown(name: str) -> str:
    """``name`` quoted for a message, cut to 40 characters."""
    return repr(name) if len(name) <= 40 else repr(name[:40]) + "..."


def derive_scope(conversation: str) -> str:
    """The scope a conversation is stored under when the caller gives none: its name when
    that is a valid scope, else the name's letters and digits joined by "-" (accents dropped:
    "my file (1)" -> "my-file-1"). InvalidInputError when no letter or digit is left, or the
    name is longer than a scope may be (a cut name could merge two conversations)."""
    if SCOPE_PATTERN.fullmatch(conversation):
        return conversation
    where = f"conversation {_shown(conversation)}"
    check_text(conversation, where)
    fix = "rename it, or give the file's one conversation a scope (scope=, --scope)"
    if len(conversation) > 128:
        raise InvalidInputError(
            f"{where} is {len(conversation)} characters, too long for a scope ({SCOPE_RULE}): "
            f"{fix}"
        )
    plain = unicodedata.normalize("NFKD", conversation).encode("ascii", "ignore").decode()
    derived = _NOT_IN_SCOPE.sub("-", plain).strip("-")
    derived = re.sub(r"^[^A-Za-z0-9]+", "", derived)
    if not SCOPE_PATTERN.fullmatch(derived):
        raise InvalidInputError(
            f"{where} has no letter or digit to name a scope ({SCOPE_RULE}): {fix}"
        )
    return derived


def derive_scopes(turns: Sequence[TurnInput]) -> tuple[list[TurnInput], dict[str, str]]:
    """Each turn in the scope ``derive_scope`` gives its conversation, and the conversations
    so renamed ({name: scope}) for the caller to report; InvalidInputError when two
    conversations would share one scope."""
    scopes = {name: derive_scope(name) for name in dict.fromkeys(t.conversation_id for t in turns)}
    owners: dict[str, str] = {}
    for name, scope in scopes.items():
        first = owners.setdefault(scope, name)
        if first != name:
            raise InvalidInputError(
                f"conversations {_shown(first)} and {_shown(name)} would both be stored as "
                f"scope {scope!r}: rename one of them"
            )
    renamed = {name: scope for name, scope in scopes.items() if name != scope}
    moved = [
        t.model_copy(update={"conversation_id": renamed[t.conversation_id]})
        if t.conversation_id in renamed
        else t
        for t in turns
    ]
    return moved, renamed


def in_scope(turns: Sequence[TurnInput], scope: str, source: str | Path) -> list[TurnInput]:
    """The turns of a one-conversation input, moved into ``scope``."""
    conversations = sorted({t.conversation_id for t in turns})
    if len(conversations) > 1:
        shown = ", ".join(_shown(c) for c in conversations[:5])
        raise InvalidInputError(
            f"{source}: holds {len(conversations)} conversations ({shown}); ingest it without a "
            "scope (each conversation is its own) or pick one with conversations=[...]"
        )
    return [t.model_copy(update={"conversation_id": scope}) for t in turns]


def scope_turns(
    turns: Sequence[TurnInput], scope: str | None, source: str | Path, max_chars: int
) -> tuple[list[TurnInput], dict[str, str]]:
    """Turns loaded from ``source`` in their scopes, every check passed: with ``scope`` all in
    it (one conversation), else each conversation in its own (``derive_scopes``; the renamed
    ones come back). The one gate for ingesting, run before anything is stored."""
    renamed: dict[str, str] = {}
    if scope is not None:
        placed = in_scope(turns, check_scope(scope), source)
    else:
        placed, renamed = derive_scopes(turns)
    check_turns(placed, max_chars)
    return placed, renamed
