"""The judge check: grading sheets from judged records, and agreement with the grader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.locomo.data import LocomoQuestion
from benchmarks.locomo.judge import Verdict
from benchmarks.locomo.judge_check import (
    agreement,
    is_relative_gold,
    join_verdicts,
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
         "human": None, "reason": None},
    ]  # fmt: skip
    assert "judge" not in sheet_rows(records, blind=True)[0]  # graded before it is seen


def test_a_blind_sheet_gets_the_verdicts_back_by_system_and_qid() -> None:
    rows = [
        {"system": "rag", "qid": "c:q0", "category": 2, "answer": "May", "human": True},
        {"system": "agent", "qid": "c:q0", "category": 2, "answer": "June", "human": False},
    ]
    records = [{"system": "agent", "qid": "c:q0", "correct": True},
               {"system": "rag", "qid": "c:q0", "correct": True}]  # fmt: skip
    joined = join_verdicts(rows, records)
    assert [r["judge"] for r in joined] == [True, True]
    assert agreement(joined)["by_system"]["agent"]["agreement"] == 0.0


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
    assert summary["by_system"] == {
        "agent": {"n": 2, "agreement": 1.0, "human_accuracy": 0.5},
        "rag": {"n": 2, "agreement": 0.0, "human_accuracy": 0.5},
    }
    assert set(summary["by_system_and_category"]) == {"agent/2", "rag/4"}


def test_relative_golds_are_split_out_of_the_temporal_answers() -> None:
    rows = [{**_row("agent", 2, True, True), "qid": "c:q0"},
            {**_row("agent", 2, False, True), "qid": "c:q1"},
            {**_row("rag", 4, True, True), "qid": "c:q2"}]  # fmt: skip
    golds = {"c:q0": "The week before 9 June 2023", "c:q1": "7 May 2023", "c:q2": "a year ago"}
    relative = agreement(rows, golds)["temporal_relative_gold"]
    assert relative == {"agent": {"n": 1, "agreement": 1.0, "human_accuracy": 1.0}}
    assert is_relative_gold("10 years ago") and not is_relative_gold("June 2023")


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


def test_each_blind_sheet_joins_its_own_runs_verdicts(tmp_path: Path) -> None:
    def write(name: str, rows: list[dict[str, object]]) -> str:
        path = tmp_path / name
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        return str(path)

    row = {"system": "rag", "qid": "c:q0", "category": 4, "answer": "x", "human": True}
    sheets = [write("a.jsonl", [row]), write("b.jsonl", [row])]  # two runs, one qid
    runs = [write("ra.jsonl", [{"system": "rag", "qid": "c:q0", "correct": True}]),
            write("rb.jsonl", [{"system": "rag", "qid": "c:q0", "correct": False}])]  # fmt: skip
    out = tmp_path / "summary.json"
    assert main(["agreement", *sheets, "--verdicts", *runs, "--out", str(out)]) == 0
    assert json.loads(out.read_text())["agreement"] == 0.5
    with pytest.raises(SystemExit, match="one --verdicts file per sheet"):
        main(["agreement", *sheets, sheets[0], "--verdicts", *runs])
