"""Judging a run's kept answers again from the answers file and a LOCOMO-shaped file (golds
read by qid at judge time), by the rules alone and with a scripted LLM judge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import dspy
import pytest
from dspy.utils import DummyLM

from benchmarks.locomo.data import LOCOMO_DATA_ENV, questions_by_qid
from benchmarks.locomo.judge import Judge
from benchmarks.locomo.rejudge import accuracy_change, main, rejudge_rows, with_llm
from benchmarks.memory import read_jsonl


def locomo_file(tmp_path: Path) -> Path:
    """A LOCOMO-shaped file with invented questions (two sessions, three questions)."""
    qa = [
        {"question": "When did Ana go hiking?", "answer": "last Saturday", "category": 2,
         "evidence": ["D2:1"]},
        {"question": "How many cats does Ben have?", "answer": "two", "category": 4,
         "evidence": ["D1:1"]},
        {"question": "What did Ana bake?", "answer": "a lemon cake", "category": 4,
         "evidence": ["D1:2"]},
    ]  # fmt: skip
    conversation = {
        "session_1_date_time": "1:00 pm on 1 May, 2023",
        "session_2_date_time": "2:00 pm on 24 May, 2023",  # a Wednesday
    }
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([{"sample_id": "c", "qa": qa, "conversation": conversation}]))
    return path


def answers_file(tmp_path: Path) -> Path:
    rows: list[dict[str, Any]] = [
        {"qid": "c:q0", "system": "agent", "category": 2, "answer": "2023-05-20",
         "correct": False},
        {"qid": "c:q1", "system": "agent", "category": 4, "answer": "2", "correct": False},
        {"qid": "c:q2", "system": "agent", "category": 4, "answer": "a dessert",
         "correct": True},
    ]  # fmt: skip
    path = tmp_path / "locomo_c.answers.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_rules_only_rejudges_what_rules_decide_and_keeps_the_rest(tmp_path: Path) -> None:
    out = tmp_path / "again.jsonl"
    argv = [str(answers_file(tmp_path)), "--data", str(locomo_file(tmp_path)), "--rules-only",
            "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    rows = {r["qid"]: r for r in read_jsonl(out)}
    assert rows["c:q0"]["correct"] is True and rows["c:q0"]["judged_by"] == "rules"
    assert rows["c:q1"]["correct"] is True and rows["c:q1"]["recorded"] is False
    assert rows["c:q2"]["correct"] is True and rows["c:q2"]["judged_by"] == "recorded"
    assert all("gold" not in r and "question" not in r for r in rows.values())
    change = accuracy_change(list(rows.values()))["agent"]
    assert change == {"n": 3, "accuracy_recorded": 0.3333, "accuracy_again": 1.0,
                      "changed": 2, "by_rules": 2, "by_llm": 0}  # fmt: skip


def test_what_rules_leave_goes_to_the_llm_with_the_resolved_gold(tmp_path: Path) -> None:
    lm = DummyLM([{"verdict": "WRONG"}], adapter=dspy.JSONAdapter())
    grade = with_llm(Judge(lm, adapter=dspy.JSONAdapter()))
    rows = read_jsonl(answers_file(tmp_path))
    questions = questions_by_qid(locomo_file(tmp_path), [r["qid"] for r in rows])
    again = rejudge_rows(rows, questions, grade)
    assert [r["judged_by"] for r in again] == ["rules", "rules", "llm"]
    assert again[2]["correct"] is False and len(lm.history) == 1


def test_missing_inputs_are_one_clear_error(tmp_path: Path, capsys: Any) -> None:
    assert main([str(tmp_path / "none.jsonl"), "--rules-only"]) == 2
    assert "no answers in" in capsys.readouterr().err
    argv = [str(answers_file(tmp_path)), "--data", str(tmp_path / "no.json"), "--rules-only"]
    with pytest.raises(SystemExit, match="LOCOMO data not found at .*no.json: give --data"):
        main(argv)


def test_without_data_the_error_names_the_flag_and_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(LOCOMO_DATA_ENV, raising=False)
    with pytest.raises(SystemExit, match=f"PATH/locomo10.json or set {LOCOMO_DATA_ENV}"):
        main([str(answers_file(tmp_path)), "--rules-only"])
    monkeypatch.setenv(LOCOMO_DATA_ENV, str(tmp_path / "elsewhere.json"))
    with pytest.raises(SystemExit, match="not found at .*elsewhere.json"):
        main([str(answers_file(tmp_path)), "--rules-only"])
