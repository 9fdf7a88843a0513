"""The faithfulness counts of the LOCOMO construction A/B (benchmarks.construction.faithful_ab)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from apexmem_neo.store.sqlite import SQLiteGraphStore
from benchmarks.construction.faithful_ab import (
    counted,
    hand_sheet,
    on_both_speakers,
    photo_only,
    session_ratios,
)
from tests.unit.agent.alice import alice_batch


def fact(subject: str, value: str, text: str, turn: str = "t1") -> dict[str, Any]:
    return {
        "subject": subject, "property": "hobby", "value_json": json.dumps(value),
        "dtype": "str", "turn_id": turn, "text": text, "speaker": "Jon",
    }  # fmt: skip


def test_a_fact_stored_on_both_speakers_is_counted_once() -> None:
    facts = [fact("Jon", "dance", "I dance"), fact("Gina", "dance", "I dance"),
             fact("Jon", "chess", "I play chess", turn="t2"),
             fact("Studio", "dance", "I dance")]  # fmt: skip
    assert on_both_speakers(facts, ("Jon", "Gina")) == {"successes": 1, "n": 2}


def test_a_value_said_only_in_the_photo_caption_is_photo_only() -> None:
    caption = "Look at this! [shares a photo: a red bicycle leaning on a wall]"
    facts = [
        fact("Jon", "red bicycle", caption),
        fact("Jon", "this", caption),
        fact("Jon", "dance", "I dance"),
        {**fact("Jon", "3", caption), "dtype": "int"},
    ]
    assert photo_only(facts) == {"successes": 1, "n": 3}


def test_seconds_ratios_are_per_session_both_arms_ran() -> None:
    before = {"arms": {"compact": {"seconds_per_session": {"1": [10, 100.0], "2": [5, 50.0]}}}}
    after = {"arms": {"compact": {"seconds_per_session": {"1": [10, 120.0]}}}}
    assert session_ratios(before, after) == [1.2]


def test_a_hand_count_is_successes_of_n() -> None:
    assert counted("5/15") == {"successes": 5, "n": 15}
    for bad in ("5", "16/15", "a/b"):
        with pytest.raises(argparse.ArgumentTypeError, match="successes/n"):
            counted(bad)


def test_the_hand_sheet_mixes_both_stores_and_keeps_the_arms_aside(tmp_path: Path) -> None:
    """Two real SQLite stores (the Alice case, two text facts each): the sheet shows every
    drawn fact with its turn and no arm; the key names each row's arm."""
    for arm, name in (("before", "Alice"), ("after", "Alicia")):
        (tmp_path / arm).mkdir()
        store = SQLiteGraphStore(tmp_path / arm / "compact.sqlite")
        store.init_schema()
        store.write(alice_batch(name=name))
        store.close()
    dbs = {"before": tmp_path / "before", "after": tmp_path / "after"}
    sheet = tmp_path / "sheet.jsonl"
    key = hand_sheet(dbs, per_arm=2, seed=1, out=sheet)
    rows = [json.loads(line) for line in sheet.read_text().splitlines()]
    arms = json.loads(key.read_text())
    assert sorted(arms.values()) == ["after", "after", "before", "before"]
    assert all("arm" not in row and row["turn"] and row["fact"] for row in rows)
    alicia = {r["id"] for r in rows if r["fact"].startswith("Alicia.")}
    assert {i for i, arm in arms.items() if arm == "after"} == alicia
