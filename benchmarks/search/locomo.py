"""LOCOMO conversations as ontology turns and search documents (shared by the benchmarks)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from apexmem_neo.ontology import Session, Turn
from apexmem_neo.search.documents import DEFAULT_WINDOW, SearchDocument, turn_documents

_DIA = re.compile(r"D\d+:\d+")


@dataclass
class Question:
    question: str
    category: int
    evidence: list[str]


@dataclass
class Conversation:
    """One LOCOMO sample: its turns' documents, dia_id per turn id, and questions 1-4."""

    conversation_id: str
    documents: list[SearchDocument]
    dia_of: dict[str, str]
    questions: list[Question] = field(default_factory=list)


def parse_locomo_time(raw: str) -> str:
    """``1:56 pm on 8 May, 2023`` -> ``2023-05-08T13:56:00``."""
    stamp = datetime.strptime(raw.strip(), "%I:%M %p on %d %B, %Y")
    return stamp.strftime("%Y-%m-%dT%H:%M:%S")


def load(path: Path, window: int = DEFAULT_WINDOW, after: int | None = None) -> list[Conversation]:
    """Every conversation of the file, with documents built by ``turn_documents``."""
    samples: list[dict[str, Any]] = json.loads(path.read_text())
    return [_conversation(sample, window, after) for sample in samples]


def _conversation(sample: dict[str, Any], window: int, after: int | None) -> Conversation:
    conv = sample["conversation"]
    cid = str(sample["sample_id"])
    sessions: list[Session] = []
    turns: list[Turn] = []
    captions: dict[str, str] = {}
    dia_of: dict[str, str] = {}
    seqs = sorted(int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k))
    for seq in seqs:
        anchor = parse_locomo_time(conv[f"session_{seq}_date_time"])
        session = Session(conversation_id=cid, seq=seq, started_at=anchor)
        sessions.append(session)
        for i, raw in enumerate(conv[f"session_{seq}"]):
            turn = Turn(
                session_id=session.session_id,
                seq=i,
                speaker=raw["speaker"],
                text=raw["text"],
                anchor_datetime=anchor,
            )
            turns.append(turn)
            dia_of[turn.turn_id] = raw["dia_id"]
            if raw.get("blip_caption"):
                captions[turn.turn_id] = raw["blip_caption"]
    questions = [
        Question(q["question"], int(q["category"]), _DIA.findall(" ".join(q.get("evidence", []))))
        for q in sample["qa"]
        if int(q["category"]) in (1, 2, 3, 4)
    ]
    docs = turn_documents(turns, sessions, captions, window=window, after=after, scope=cid)
    return Conversation(cid, docs, dia_of, questions)
