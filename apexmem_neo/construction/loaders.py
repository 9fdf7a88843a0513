"""Input formats for ingestion: LOCOMO JSON and a documented JSONL turn stream.

LOCOMO (the original release format): a JSON list (or one object) of conversations, each
with ``sample_id`` and ``conversation`` holding ``speaker_a``, ``speaker_b`` and, for each N,
``session_N_date_time`` ("1:56 pm on 8 May, 2023") and ``session_N`` (a list of turns with
``speaker``, ``dia_id``, ``text`` and optionally ``blip_caption`` for a shared image). Every
turn of a session is anchored at the session's date_time; the listener is the other speaker;
an image caption is appended to the text as ``[shares a photo: CAPTION]``.

JSONL (one turn per line, UTF-8)::

    {"speaker": "Alice", "listener": "Bob", "text": "...", "timestamp": "2024-01-15T19:00:00",
     "session": "s1", "conversation": "alice-bob", "id": "t1"}

``speaker``, ``text`` and ``timestamp`` (ISO 8601 date or datetime) are required;
``listener`` (default none), ``session`` (default "default"), ``conversation`` (default: the
file name without extension) and ``id`` (default ``<session>:<line>``) are optional. A
session is stored under the number of its name (``ids.session_number``, as
``Memory.add(session=...)`` stores it), so ``forget(session="s1")`` finds it; turns are
numbered in file order within their session. A document stream uses ``"speaker": "World"``
with one document (or passage) per line.

Every bad input (a missing or binary file, malformed JSON, a wrong shape, a file without
turns, an empty ``conversation``, text with a NUL character or a lone surrogate) raises
``LoaderError`` with a one-line message naming the file and what is wrong.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from apexmem_neo.errors import LoaderError as LoaderError
from apexmem_neo.ontology import Session, Turn
from apexmem_neo.ontology.ids import session_id, session_number
from apexmem_neo.ontology.metadata import Metadata, check_metadata
from apexmem_neo.ontology.types import IsoTime, normalize_time

InputFormat = Literal["auto", "locomo", "jsonl"]
LOCOMO_TIME = "%I:%M %p on %d %B, %Y"
LOCOMO_TIME_EXAMPLE = "1:56 pm on 8 May, 2023"
JSONL_REQUIRED = ("speaker", "text", "timestamp")
TEXT_KEYS = ("speaker", "listener", "text", "session", "conversation", "id", "blip_caption")
"""The keys of a turn whose string values are stored (or key the checkpoint)."""
_SURROGATE = re.compile("[\ud800-\udfff]")
# How a JSON value is named in messages ("the top level is a number").
JSON_KINDS: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (type(None), "null"),
    (bool, "a boolean"),
    ((int, float), "a number"),
    (str, "a string"),
    (list, "a list"),
    (dict, "an object"),
)


def text_problem(value: str) -> str | None:
    """Why ``value`` cannot be stored as text, or None. A NUL character ends a string in C
    and in SQLite's text functions; a lone surrogate (an escaped ``\\ud800`` in JSON) is not
    Unicode, so UTF-8 cannot encode it and every later step would fail on it."""
    if "\x00" in value:
        return "contains a NUL character (\\u0000)"
    found = _SURROGATE.search(value)
    if found is not None:
        return f"contains a lone surrogate (\\u{ord(found.group()):04x}), which is not Unicode"
    return None


class TurnInput(BaseModel):
    """One turn to ingest, with where it came from (``source_key``) and its session."""

    model_config = ConfigDict(frozen=True)

    source_key: str
    conversation_id: str
    session_seq: int
    session_started: IsoTime | None = None
    seq: int
    speaker: str
    listener: str | None = None
    text: str
    anchor: IsoTime
    metadata: Metadata = Field(default_factory=dict)
    """The caller's metadata, stored with the turn (``Turn.metadata``)."""

    @field_validator("metadata", mode="before")
    @classmethod
    def _metadata(cls, value: Any) -> Metadata:
        return check_metadata(value)

    @property
    def scope(self) -> str:
        """A conversation is its own scope: its entities, facts and turns belong to it."""
        return self.conversation_id

    @property
    def session_id(self) -> str:
        return session_id(self.conversation_id, self.session_seq)

    def session(self) -> Session:
        return Session(
            conversation_id=self.conversation_id,
            seq=self.session_seq,
            started_at=self.session_started,
        )

    def turn(self) -> Turn:
        return Turn(
            session_id=self.session_id,
            seq=self.seq,
            speaker=self.speaker,
            listener=self.listener,
            text=self.text,
            anchor_datetime=self.anchor,
            metadata=self.metadata,
        )


def _kind(value: object) -> str:
    return next((name for types, name in JSON_KINDS if isinstance(value, types)), "a value")


def _read_text(path: str | Path) -> str:
    """The text of ``path``; LoaderError if it is missing, not a file, binary or empty."""
    file = Path(path)
    if file.is_dir():
        raise LoaderError(f"{path}: is a directory, not a file")
    if not file.exists():
        raise LoaderError(f"{path}: no such file")
    if not file.is_file():
        raise LoaderError(f"{path}: not a regular file")
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise LoaderError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    try:
        # utf-8-sig: a byte order mark (as some editors write) is dropped, not a JSON error.
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise LoaderError(
            f"{path}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None
    if "\x00" in text:
        raise LoaderError(f"{path}: not UTF-8 text (it contains NUL bytes)")
    if not text.strip():
        raise LoaderError(f"{path}: no turns (the file is empty or only whitespace)")
    return text


def _lines(text: str) -> list[str]:
    """Lines as a text file yields them: split at LF, CR or CRLF only, not at U+2028."""
    return list(io.StringIO(text, newline=None))


def _loads(text: str, where: str, lines: bool) -> object:
    """``json.loads`` with any failure a LoaderError at ``where`` (with line if ``lines``)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        place = f"line {exc.lineno}, column {exc.colno}" if lines else f"column {exc.colno}"
        raise LoaderError(f"{where}: not JSON ({exc.msg} at {place})") from None
    except (ValueError, RecursionError) as exc:
        # Nesting too deep for the parser, or an integer beyond Python's digit limit.
        raise LoaderError(f"{where}: not JSON ({' '.join(str(exc).split())})") from None


def _check_turn(record: object, where: str, required: tuple[str, ...]) -> dict[str, Any]:
    """``record`` if it is an object with ``required`` keys, a speaker and a string text."""
    if not isinstance(record, dict):
        raise LoaderError(f"{where}: a turn must be a JSON object, not {_kind(record)}")
    for key in required:
        if key not in record:
            raise LoaderError(f"{where}: missing required key {key!r}")
    speaker, text = record["speaker"], record["text"]
    if not isinstance(speaker, str):
        raise LoaderError(f"{where}: 'speaker' must be a string, not {_kind(speaker)}")
    if not speaker.strip():
        raise LoaderError(f"{where}: 'speaker' is empty")
    if not isinstance(text, str):
        raise LoaderError(f"{where}: 'text' must be a string, not {_kind(text)}")
    for key in TEXT_KEYS:
        value = record.get(key)
        problem = text_problem(value) if isinstance(value, str) else None
        if problem is not None:
            raise LoaderError(f"{where}: {key!r} {problem}")
    if isinstance(record.get("conversation"), str) and not record["conversation"].strip():
        raise LoaderError(
            f"{where}: 'conversation' is empty: name it, or leave the key out to use the "
            "file name"
        )
    return record


def _check_name(value: str, what: str, where: str) -> None:
    """LoaderError unless ``value`` (a name) is non-empty, storable text."""
    problem = text_problem(value) if value.strip() else "is empty"
    if problem is not None:
        raise LoaderError(f"{where}: {what} {problem}")


def parse_locomo_time(value: str) -> str:
    """``"1:56 pm on 8 May, 2023"`` -> ``"2023-05-08T13:56:00"``."""
    problem = f"LOCOMO date_time {value!r} is not like {LOCOMO_TIME_EXAMPLE!r}"
    if not isinstance(value, str):
        raise LoaderError(problem)
    try:
        moment = datetime.strptime(" ".join(value.split()), LOCOMO_TIME)
    except ValueError:
        raise LoaderError(problem) from None
    return moment.isoformat(timespec="seconds")


def _session_numbers(conversation: dict[str, Any], where: str) -> list[int]:
    """Numbers N of the non-empty ``session_N`` lists, in order; other values are errors."""
    numbers = []
    for key, value in conversation.items():
        parts = key.split("_")
        if len(parts) != 2 or parts[0] != "session" or not parts[1].isdigit():
            continue
        if value is not None and not isinstance(value, list):
            raise LoaderError(f"{where}: {key!r} must be a list of turns, not {_kind(value)}")
        if value:
            numbers.append(int(parts[1]))
    return sorted(numbers)


def _session_start(conversation: dict[str, Any], number: int, where: str) -> str:
    key = f"session_{number}_date_time"
    value = conversation.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise LoaderError(f"{where}: has turns but no (or an empty) {key!r}")
    try:
        return parse_locomo_time(value)
    except LoaderError as exc:
        raise LoaderError(f"{where}: {exc}") from None


PHOTO_WORDS = "shares a photo"
"""The words of the markup a turn's text carries for its photo (``[shares a photo: CAPTION]``)."""


def _locomo_text(turn: dict[str, Any]) -> str:
    text = str(turn.get("text", "")).strip()
    caption = turn.get("blip_caption")
    if caption:
        text = f"{text} [{PHOTO_WORDS}: {caption}]".strip()
    return text


def _session_turns(
    conversation: dict[str, Any], number: int, conv_id: str, speakers: tuple[Any, Any]
) -> list[TurnInput]:
    """The turns of ``session_N``, anchored at its date_time, the listener the other speaker."""
    where = f"conversation {conv_id!r} session {number}"
    started = _session_start(conversation, number, where)
    turns = []
    for seq, item in enumerate(conversation[f"session_{number}"]):
        raw = _check_turn(item, f"{where} turn {seq + 1}", ("speaker", "text"))
        speaker = raw["speaker"]
        others = [s for s in speakers if s and s != speaker]
        turns.append(
            TurnInput(
                source_key=f"{conv_id}:{raw.get('dia_id', f'S{number}:{seq}')}",
                conversation_id=conv_id,
                session_seq=number,
                session_started=started,
                seq=seq,
                speaker=speaker,
                listener=others[0] if others else None,
                text=_locomo_text(raw),
                anchor=started,
            )
        )
    return turns


def locomo_turns(
    sample: dict[str, Any], max_sessions: int | None = None, max_turns: int | None = None
) -> list[TurnInput]:
    """The turns of one LOCOMO conversation, sessions in order.

    A sample not in the LOCOMO shape raises LoaderError naming its sample_id and the place.
    """
    if not isinstance(sample, dict):
        raise LoaderError(f"a LOCOMO conversation must be a JSON object, not {_kind(sample)}")
    conv_id = str(sample.get("sample_id", "conversation"))
    where = f"conversation {conv_id!r}"
    _check_name(conv_id, "'sample_id'", where)
    if "conversation" not in sample:
        raise LoaderError(f"{where}: no 'conversation' key")
    conversation = sample["conversation"]
    if not isinstance(conversation, dict):
        raise LoaderError(f"{where}: 'conversation' must be an object, not {_kind(conversation)}")
    speakers = (conversation.get("speaker_a"), conversation.get("speaker_b"))
    for key, speaker in zip(("'speaker_a'", "'speaker_b'"), speakers, strict=True):
        if isinstance(speaker, str):
            _check_name(speaker, key, where)
    turns: list[TurnInput] = []
    for number in _session_numbers(conversation, where)[:max_sessions]:
        turns.extend(_session_turns(conversation, number, conv_id, speakers))
    return turns[:max_turns] if max_turns is not None else turns


def _locomo_samples(data: object, path: str | Path) -> list[dict[str, Any]]:
    """The conversations of a LOCOMO document (a list of them, or one object)."""
    samples = [data] if isinstance(data, dict) else data
    if not isinstance(samples, list):
        raise LoaderError(
            f"{path}: not LOCOMO (the top level is {_kind(data)}, not a list of conversations)"
        )
    for index, sample in enumerate(samples, start=1):
        if not isinstance(sample, dict):
            raise LoaderError(
                f"{path}: not LOCOMO (item {index} is {_kind(sample)}, not a conversation object)"
            )
        if "conversation" not in sample:
            label = (
                f"item {index} {sample['sample_id']!r}"
                if "sample_id" in sample
                else f"item {index}"
            )
            raise LoaderError(f"{path}: not LOCOMO ({label} has no 'conversation')")
    return samples


def _first_sessions(turns: list[TurnInput], max_sessions: int | None) -> list[TurnInput]:
    if max_sessions is None:
        return turns
    keep = sorted({t.session_seq for t in turns})[:max_sessions]
    return [t for t in turns if t.session_seq in keep]


def _parse_locomo(
    text: str,
    path: str | Path,
    conversations: Iterable[str] | None,
    max_sessions: int | None,
) -> list[TurnInput]:
    """Every conversation is checked (not only the wanted ones): a bad file fails as a whole."""
    samples = _locomo_samples(_loads(text, str(path), lines=True), path)
    wanted = set(conversations) if conversations is not None else None
    turns: list[TurnInput] = []
    total = 0
    for sample in samples:
        try:
            sample_turns = locomo_turns(sample)
        except LoaderError as exc:
            raise LoaderError(f"{path}: {exc}") from None
        total += len(sample_turns)
        if wanted is None or str(sample.get("sample_id")) in wanted:
            turns.extend(_first_sessions(sample_turns, max_sessions))
    if not total:
        raise LoaderError(f"{path}: no turns (no conversation has a non-empty session_N)")
    return turns


def load_locomo(
    path: str | Path,
    conversations: Iterable[str] | None = None,
    max_sessions: int | None = None,
) -> list[TurnInput]:
    """Turns of the LOCOMO file, optionally only the given sample ids and first sessions."""
    return _parse_locomo(_read_text(path), path, conversations, max_sessions)


def _jsonl_turn(
    record: dict[str, Any], where: str, line_id: str, default_conv: str, sessions: dict[str, int]
) -> tuple[str, TurnInput]:
    session = str(record.get("session", "default"))
    conv = str(record.get("conversation", default_conv))
    seq = sessions.setdefault(f"{conv}\x00{session}", session_number(session))
    try:
        anchor = normalize_time(record["timestamp"])
        metadata = check_metadata(record.get("metadata"))
    except ValueError as exc:
        raise LoaderError(f"{where}: {exc}") from None
    listener = record.get("listener")
    turn = TurnInput(
        source_key=f"{conv}:{record.get('id', line_id)}",
        conversation_id=conv,
        session_seq=seq,
        seq=0,
        speaker=record["speaker"],
        listener=str(listener) if listener else None,
        text=record["text"],
        anchor=anchor,
        metadata=metadata,
    )
    return f"{conv}\x00{session}", turn


def _parse_jsonl(text: str, path: str | Path) -> list[TurnInput]:
    """Errors name ``path:line``; a turn without an ``id`` is keyed by file name and line."""
    name, stem = Path(path).name, Path(path).stem
    sessions: dict[str, int] = {}
    counters: dict[str, int] = {}
    turns: list[TurnInput] = []
    for number, line in enumerate(_lines(text), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        record = _check_turn(_loads(line, where, lines=False), where, JSONL_REQUIRED)
        key, turn = _jsonl_turn(record, where, f"{name}:{number}", stem, sessions)
        seq = counters.get(key, 0)
        counters[key] = seq + 1
        turns.append(turn.model_copy(update={"seq": seq}))
    return turns


def load_jsonl(path: str | Path) -> list[TurnInput]:
    """Turns of a JSONL file in the format of the module docstring."""
    return _parse_jsonl(_read_text(path), path)


def _jsonl_name(path: str | Path) -> bool:
    return str(path).lower().endswith((".jsonl", ".ndjson"))


def _detect(path: str | Path, text: str) -> Literal["locomo", "jsonl"]:
    if _jsonl_name(path):
        return "jsonl"
    lines = [line.strip() for line in _lines(text)[:2]]
    objects = [line for line in lines if line.startswith("{") and line.endswith("}")]
    return "jsonl" if len(objects) == len(lines) and lines else "locomo"


def detect_format(path: str | Path) -> Literal["locomo", "jsonl"]:
    """``jsonl`` for .jsonl/.ndjson or a file whose first two lines are JSON objects."""
    if _jsonl_name(path):
        return "jsonl"
    return _detect(path, _read_text(path))


def load_turns(
    path: str | Path,
    fmt: InputFormat = "auto",
    conversations: Iterable[str] | None = None,
    max_sessions: int | None = None,
) -> list[TurnInput]:
    """Turns of ``path`` in ``fmt`` (``auto``: .jsonl/.ndjson or one object per line)."""
    text = _read_text(path)
    kind = _detect(path, text) if fmt == "auto" else fmt
    if kind == "jsonl":
        return _parse_jsonl(text, path)
    return _parse_locomo(text, path, conversations, max_sessions)
