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
file name without extension) and ``id`` (default ``<session>:<line>``) are optional. Sessions
are numbered in order of first appearance, turns in file order within their session. A
document stream uses ``"speaker": "World"`` with one document (or passage) per line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from apexmem_neo.ontology import Session, Turn
from apexmem_neo.ontology.ids import session_id
from apexmem_neo.ontology.types import IsoTime, normalize_time

InputFormat = Literal["auto", "locomo", "jsonl"]
LOCOMO_TIME = "%I:%M %p on %d %B, %Y"


class LoaderError(ValueError):
    """An input file is not in the format it claims (the message names file and place)."""


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
        )


def parse_locomo_time(value: str) -> str:
    """``"1:56 pm on 8 May, 2023"`` -> ``"2023-05-08T13:56:00"``."""
    try:
        moment = datetime.strptime(" ".join(value.split()), LOCOMO_TIME)
    except ValueError:
        raise LoaderError(
            f"LOCOMO date_time {value!r} is not like '1:56 pm on 8 May, 2023'"
        ) from None
    return moment.isoformat(timespec="seconds")


def _session_numbers(conversation: dict[str, Any]) -> list[int]:
    numbers = []
    for key, value in conversation.items():
        parts = key.split("_")
        if len(parts) == 2 and parts[0] == "session" and parts[1].isdigit() and value:
            numbers.append(int(parts[1]))
    return sorted(numbers)


def _locomo_text(turn: dict[str, Any]) -> str:
    text = str(turn.get("text", "")).strip()
    caption = turn.get("blip_caption")
    if caption:
        text = f"{text} [shares a photo: {caption}]".strip()
    return text


def locomo_turns(
    sample: dict[str, Any], max_sessions: int | None = None, max_turns: int | None = None
) -> list[TurnInput]:
    """The turns of one LOCOMO conversation, sessions in order."""
    conv_id = str(sample.get("sample_id", "conversation"))
    conversation = sample["conversation"]
    speakers = (conversation.get("speaker_a"), conversation.get("speaker_b"))
    turns: list[TurnInput] = []
    for number in _session_numbers(conversation)[:max_sessions]:
        started = parse_locomo_time(conversation[f"session_{number}_date_time"])
        for seq, raw in enumerate(conversation[f"session_{number}"]):
            speaker = str(raw["speaker"])
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
    return turns[:max_turns] if max_turns is not None else turns


def load_locomo(
    path: str | Path,
    conversations: Iterable[str] | None = None,
    max_sessions: int | None = None,
) -> list[TurnInput]:
    """Turns of the LOCOMO file, optionally only the given sample ids and first sessions."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    samples = data if isinstance(data, list) else [data]
    wanted = set(conversations) if conversations is not None else None
    turns: list[TurnInput] = []
    for sample in samples:
        if not isinstance(sample, dict) or "conversation" not in sample:
            raise LoaderError(f"{path}: not LOCOMO (an item has no 'conversation')")
        if wanted is None or str(sample.get("sample_id")) in wanted:
            turns.extend(locomo_turns(sample, max_sessions))
    return turns


def _jsonl_turn(
    record: dict[str, Any], where: str, default_conv: str, sessions: dict[str, int]
) -> tuple[str, TurnInput]:
    for key in ("speaker", "text", "timestamp"):
        if key not in record:
            raise LoaderError(f"{where}: missing required key {key!r}")
    session = str(record.get("session", "default"))
    conv = str(record.get("conversation", default_conv))
    seq = sessions.setdefault(f"{conv}\x00{session}", len(sessions))
    try:
        anchor = normalize_time(record["timestamp"])
    except ValueError as exc:
        raise LoaderError(f"{where}: {exc}") from None
    listener = record.get("listener")
    turn = TurnInput(
        source_key=f"{conv}:{record.get('id', where)}",
        conversation_id=conv,
        session_seq=seq,
        seq=0,
        speaker=str(record["speaker"]),
        listener=str(listener) if listener else None,
        text=str(record["text"]),
        anchor=anchor,
    )
    return f"{conv}\x00{session}", turn


def load_jsonl(path: str | Path) -> list[TurnInput]:
    """Turns of a JSONL file in the format of the module docstring."""
    file = Path(path)
    sessions: dict[str, int] = {}
    counters: dict[str, int] = {}
    turns: list[TurnInput] = []
    for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{file.name}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise LoaderError(f"{where}: not JSON ({exc.msg})") from None
        if not isinstance(record, dict):
            raise LoaderError(f"{where}: a line must be a JSON object")
        key, turn = _jsonl_turn(record, where, file.stem, sessions)
        seq = counters.get(key, 0)
        counters[key] = seq + 1
        turns.append(turn.model_copy(update={"seq": seq}))
    return turns


def detect_format(path: str | Path) -> Literal["locomo", "jsonl"]:
    """``jsonl`` for .jsonl/.ndjson or a file whose first two lines are JSON objects."""
    if str(path).lower().endswith((".jsonl", ".ndjson")):
        return "jsonl"
    with Path(path).open(encoding="utf-8") as handle:
        lines = [line.strip() for line, _ in zip(handle, range(2), strict=False)]
    objects = [line for line in lines if line.startswith("{") and line.endswith("}")]
    return "jsonl" if len(objects) == len(lines) and lines else "locomo"


def load_turns(
    path: str | Path,
    fmt: InputFormat = "auto",
    conversations: Iterable[str] | None = None,
    max_sessions: int | None = None,
) -> list[TurnInput]:
    """Turns of ``path`` in ``fmt`` (``auto``: .jsonl/.ndjson or one object per line)."""
    if not Path(path).is_file():
        raise LoaderError(f"{path}: no such file")
    kind = detect_format(path) if fmt == "auto" else fmt
    if kind == "jsonl":
        return load_jsonl(path)
    return load_locomo(path, conversations, max_sessions)
