"""``Memory.reserve_turns``: messages numbered as ``add`` numbers them, nothing stored; adding
the numbered turns stores them, and adding them again stores no second copy."""

from __future__ import annotations

from pathlib import Path

import pytest

from apexmem_neo.memory import InvalidInputError
from tests.unit.memory.test_memory import open_memory


def test_reserved_turns_are_stored_once_however_often_added(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory:
        turns = memory.reserve_turns(
            [{"role": "user", "name": "Dana", "content": "I moved to Oslo."}, "Welcome!"],
            scope="dana", session="moves", at="2024-05-01",
        )  # fmt: skip
        assert [(t.seq, t.speaker, t.anchor) for t in turns] == [
            (0, "Dana", "2024-05-01T00:00:00"), (1, "User", "2024-05-01T00:00:00"),
        ]  # fmt: skip
        assert memory.scopes() == []  # numbered, not stored
        later = memory.add("And I like it.", scope="dana", session="moves", extract=False)
        assert later.turns[0].turn_id != turns[0].turn().turn_id
        for _ in range(2):
            memory.add(turns, scope="dana", session="moves", extract=False)
        listed = memory.turns("dana", session="moves").items
        assert [(t.seq, t.text) for t in listed] == [
            (0, "I moved to Oslo."), (1, "Welcome!"), (2, "And I like it."),
        ]  # fmt: skip


def test_reserving_checks_the_messages_first(tmp_path: Path) -> None:
    with open_memory(tmp_path) as memory, pytest.raises(InvalidInputError, match="scope"):
        memory.reserve_turns("hi", scope="not a scope")
