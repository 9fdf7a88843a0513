"""Helpers for construction tests: scripted DummyLM answers and a real SQLite store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from apexmem_neo.construction.checkpoint import Checkpoint
from apexmem_neo.construction.loaders import TurnInput
from apexmem_neo.store.sqlite import SQLiteGraphStore


def fact(
    subject: str,
    prop: str,
    value: Any,
    evidence: str,
    dtype: str = "str",
    when: str | None = None,
    t_from: str | None = None,
) -> dict[str, Any]:
    return {
        "subject": subject,
        "property": prop,
        "value": value,
        "dtype": dtype,
        "when": when,
        "t_from": t_from,
        "t_to": None,
        "confidence": 0.9,
        "evidence": evidence,
    }


def event(
    participants: list[tuple[str, str, str]],
    facts: list[dict[str, Any]],
    kind: str = "statement",
    when: str | None = None,
) -> dict[str, Any]:
    people = [{"name": n, "type": t, "role": r} for n, t, r in participants]
    return {
        "event": {
            "type": kind,
            "when": when,
            "time": None,
            "location": None,
            "participants": people,
            "facts": facts,
        }
    }


def turn(
    text: str, anchor: str, seq: int = 0, session: int = 1, speaker: str = "Alice"
) -> TurnInput:
    return TurnInput(
        source_key=f"test:{session}:{seq}",
        conversation_id="test",
        session_seq=session,
        session_started=anchor,
        seq=seq,
        speaker=speaker,
        listener="Bob" if speaker != "Bob" else "Alice",
        text=text,
        anchor=anchor,
    )


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "graph.sqlite"


@pytest.fixture
def store(db_path: Path) -> Iterator[SQLiteGraphStore]:
    graph = SQLiteGraphStore(db_path)
    graph.init_schema()
    yield graph
    graph.close()


@pytest.fixture
def checkpoint(db_path: Path) -> Iterator[Checkpoint]:
    cp = Checkpoint(db_path)
    cp.open()
    yield cp
    cp.close()
