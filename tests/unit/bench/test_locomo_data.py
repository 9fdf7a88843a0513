"""Selecting LOCOMO questions for a subset of sessions, with gold answers and dia_ids."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarks.locomo.data import (
    NOT_MENTIONED,
    evidence_date,
    last_session_date,
    questions_by_qid,
    sample_turns,
    select_questions,
    turn_dia_ids,
)
from benchmarks.locomo.training import training_rows


def sample() -> dict[str, Any]:
    turn = {"speaker": "A", "text": "hi"}
    return {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "A", "speaker_b": "B",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [{**turn, "dia_id": "D1:1"}, {"speaker": "B", "text": "yo",
                                                       "dia_id": "D1:2"}],
            "session_2_date_time": "2:00 pm on 9 June, 2023",
            "session_2": [{**turn, "dia_id": "D2:1"}],
            "session_3_date_time": "3:00 pm on 1 July, 2023",
            "session_3": [],
        },
        "qa": [
            {"question": "q0", "answer": 2022, "evidence": ["D1:1"], "category": 2},
            {"question": "q1", "answer": "x", "evidence": ["D1:2", "D2:1"], "category": 1},
            {"question": "q2", "evidence": ["D1:2"], "category": 5, "adversarial_answer": "y"},
            {"question": "q3", "answer": "z", "evidence": [], "category": 4},
        ],
    }  # fmt: skip


def test_last_session_date_skips_empty_sessions() -> None:
    assert last_session_date(sample()) == "2023-06-09T14:00:00"


def test_subset_asks_only_what_it_was_told() -> None:
    s = sample()
    one = select_questions(s, sample_turns(s, 1))
    assert [q.qid for q in one] == ["conv-x:q0", "conv-x:q2"]
    assert one[0].gold == "2022" and one[0].category == 2
    assert one[1].gold == NOT_MENTIONED and one[1].adversarial_answer == "y"
    both = select_questions(s, sample_turns(s, None), categories=(1, 2))
    assert [q.qid for q in both] == ["conv-x:q0", "conv-x:q1"]
    assert select_questions(s, sample_turns(s, None), limit=1)[0].qid == "conv-x:q0"


def test_turn_ids_map_to_dia_ids() -> None:
    turns = sample_turns(sample(), None)
    mapping = turn_dia_ids(turns)
    assert sorted(mapping.values()) == ["D1:1", "D1:2", "D2:1"]
    assert mapping[turns[2].turn().turn_id] == "D2:1"


def test_training_rows_leave_out_the_development_sessions_questions(tmp_path: Path) -> None:
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps([sample()]), encoding="utf-8")
    every = training_rows(data, "conv-x", None)
    assert [r["question"] for r in every] == ["q0", "q1"]
    assert every[0] == {"question": "q0", "answer": "2022", "date": "2023-06-09T14:00:00"}
    assert [r["question"] for r in training_rows(data, "conv-x", None, skip_sessions=1)] == ["q1"]


def test_a_question_knows_the_day_its_evidence_was_said(tmp_path: Path) -> None:
    s = sample()
    one, two = select_questions(s, sample_turns(s, None), categories=(1, 2))
    assert one.said_on == "2023-05-08T13:56:00"  # D1:1, session 1
    assert two.said_on == "2023-05-08T13:56:00"  # the first evidence id's session
    assert evidence_date(s, ["D2:1"]) == "2023-06-09T14:00:00"
    assert evidence_date(s, ["D9:1", "oops"]) is None  # no such session: no day
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps([s]))
    found = questions_by_qid(data, ["conv-x:q0", "conv-x:q1"])
    assert found["conv-x:q1"] == two and found["conv-x:q0"].gold == "2022"
