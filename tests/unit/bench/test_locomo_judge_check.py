"""The judge check: grading sheets from judged records, and agreement with the grader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.locomo.data import LocomoQuestion
from benchmarks.locomo.judge import Verdict
from benchmarks.locomo.judge_check import (
    agreement,
    locomo_questions,
    main,
    rejudge,
    sheet_rows,
)


def _row(system: str, category: int, judge: bool, human: bool | None) -> dict[str, object]:
    return {"system": system, "category": category, "judge": judge, "human": human}


def test_a_sheet_keeps_judged_answers_with_an_empty_human_verdict() -> None:
    records = [
        {"system": "rag", "qid": "c:q0", "category": 2, "question": "When?", "gold": "May",
         "answer": "in May", "correct": True, "f1": 0.5},
        {"system": "rag", "qid": "c:q1", "category": 2, "question": "Who?", "gold": "Ann",
         "answer": "?", "correct": None},
    ]  # fmt: skip
    assert sheet_rows(records) == [  # LOCOMO's own text stays in its file
        {"system": "rag", "qid": "c:q0", "category": 2, "answer": "in May", "judge": True,
         "human": None},
    ]  # fmt: skip


def test_agreement_counts_both_kinds_of_disagreement_and_kappa() -> None:
    rows = [
        _row("agent", 2, True, True), _row("agent", 2, False, False),
        _row("rag", 4, True, False), _row("rag", 4, False, True),
        _row("rag", 4, True, None),  # not graded: left out
    ]  # fmt: skip
    summary = agreement(rows)
    assert summary["n"] == 4 and summary["agreement"] == 0.5
    assert summary["judge_correct_human_wrong"] == 1 == summary["judge_wrong_human_correct"]
    assert summary["cohen_kappa"] == 0.0
    assert summary["by_system"] == {"agent": {"n": 2, "agreement": 1.0},
                                    "rag": {"n": 2, "agreement": 0.0}}  # fmt: skip


def test_questions_are_read_from_the_locomo_file(tmp_path: Path) -> None:
    data = tmp_path / "locomo.json"
    qa = [
        {"question": "Who?", "answer": "Ann", "category": 4, "evidence": ["D1:1"]},
        {"question": "When?", "answer": "May 2023", "category": 2, "evidence": ["D1:2"]},
    ]
    conversation = {"session_1_date_time": "1:56 pm on 8 May, 2023"}
    data.write_text(json.dumps([{"sample_id": "c", "qa": qa, "conversation": conversation}]))
    q = locomo_questions(data, ["c:q1"])["c:q1"]
    assert (q.question, q.gold, q.said_on) == ("When?", "May 2023", "2023-05-08T13:56:00")


def test_an_ungraded_sheet_is_one_clear_error(tmp_path: Path) -> None:
    sheet = tmp_path / "sheet.jsonl"
    sheet.write_text(json.dumps(_row("rag", 1, True, None)) + "\n")
    with pytest.raises(SystemExit, match="no graded rows"):
        main(["agreement", str(sheet)])


def test_rejudging_replaces_the_recorded_verdicts() -> None:
    class Always:
        def __call__(self, question: str, gold: str, answer: str, said_on: str) -> Verdict:
            assert said_on == "2023-05-08"  # the evidence day reaches the judge
            return Verdict(correct=True, raw="CORRECT")

    rows = [{**_row("rag", 4, False, True), "qid": "c:q0", "answer": "a"}]
    q = LocomoQuestion(qid="c:q0", category=4, question="q", gold="g", said_on="2023-05-08")
    again = rejudge(rows, Always(), {"c:q0": q})
    assert again[0]["judge"] is True and again[0]["judge_raw"] == "CORRECT"
    assert agreement(again)["agreement"] == 1.0
