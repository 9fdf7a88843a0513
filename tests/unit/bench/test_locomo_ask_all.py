"""The LOCOMO harness's question loop: per system all answers first, then the judge, and an
interrupted run resumes without asking or judging anything twice. The systems and the judge
are plain fakes (control flow only; tests/integration/bench/test_locomo_llm.py runs the real
ones through the local model)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, cast

import pytest

from apexmem_neo.llm.lm import SchemaJSONAdapter
from benchmarks.locomo.baselines import AnswerFromTranscript
from benchmarks.locomo.data import LocomoQuestion
from benchmarks.locomo.judge import Judge, Verdict
from benchmarks.locomo.run import Systems, ask_all
from benchmarks.memory import AnswerLog, read_jsonl

QUESTIONS = [
    LocomoQuestion(qid=f"c:q{i}", category=1, question=f"question {i}?", gold=f"gold {i}")
    for i in range(3)
]


class FakeSystems:
    def __init__(self, log: list[str]) -> None:
        self.log = log

    def answer(self, system: str, q: LocomoQuestion, qdate: str) -> dict[str, Any]:
        self.log.append(f"answer {system} {q.qid}")
        return {"answer": f"gold {q.qid[-1]}", "cited": [], "seconds": 1.0, "tokens": {},
                "tool_calls": 0, "tools": {}, "llm_calls": 1, "tool_output_chars": 0,
                "error": None}  # fmt: skip


class FakeJudge:
    def __init__(self, log: list[str], fail_at: int | None = None) -> None:
        self.log, self.fail_at = log, fail_at

    def __call__(self, question: str, gold: str, answer: str, said_on: str | None) -> Verdict:
        if self.fail_at is not None and len([e for e in self.log if "judge" in e]) == self.fail_at:
            raise KeyboardInterrupt  # the run is stopped mid-way through the judging
        self.log.append(f"judge {question}")
        return Verdict(correct=answer == gold, raw="CORRECT")


def ask(
    calls: list[str],
    jsonl: Path,
    names: list[str],
    questions: list[LocomoQuestion] = QUESTIONS,
    db: str = "/tmp/fake.sqlite",
    fail_at: int | None = None,
) -> None:
    """``ask_all`` with the fakes, logging their calls to ``calls``; ``db`` the store in use."""
    log = AnswerLog(jsonl, "system", lambda _: db)
    systems = cast(Systems, FakeSystems(calls))
    judge = cast(Judge, FakeJudge(calls, fail_at))
    ask_all(systems, names, questions, "2023-10-22", judge, log)


def test_systems_answer_interleaved_then_are_judged(tmp_path: Path) -> None:
    calls: list[str] = []
    jsonl = tmp_path / "locomo_t.jsonl"
    ask(calls, jsonl, ["agent", "rag"])
    assert calls == [
        "answer agent c:q0", "answer rag c:q0",
        "answer rag c:q1", "answer agent c:q1",  # which goes first alternates
        "answer agent c:q2", "answer rag c:q2",
        *(f"judge question {i}?" for i in range(3)),
        *(f"judge question {i}?" for i in range(3)),
    ]  # fmt: skip
    records = read_jsonl(jsonl)
    assert [(r["system"], r["qid"]) for r in records] == [
        (s, q.qid) for s in ("agent", "rag") for q in QUESTIONS
    ]
    assert all(r["correct"] is True and r["db"] == "/tmp/fake.sqlite" for r in records)


def test_an_interrupted_run_resumes_without_asking_or_judging_twice(tmp_path: Path) -> None:
    jsonl = tmp_path / "locomo_t.jsonl"
    first: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        ask(first, jsonl, ["agent"], fail_at=1)
    assert first == [*(f"answer agent c:q{i}" for i in range(3)), "judge question 0?"]
    assert len(read_jsonl(jsonl)) == 1
    assert len(read_jsonl(jsonl.with_suffix(".answers.jsonl"))) == 3

    second: list[str] = []
    ask(second, jsonl, ["agent"])
    assert second == ["judge question 1?", "judge question 2?"]  # no answer asked again
    assert [r["qid"] for r in read_jsonl(jsonl)] == ["c:q0", "c:q1", "c:q2"]


def test_full_context_answers_back_to_back_first(tmp_path: Path) -> None:
    calls: list[str] = []
    ask(calls, tmp_path / "locomo_t.jsonl", ["agent", "full_context", "rag"], QUESTIONS[:2])
    answered = [c for c in calls if c.startswith("answer")]
    assert answered == [
        "answer full_context c:q0", "answer full_context c:q1",
        "answer agent c:q0", "answer rag c:q0", "answer rag c:q1", "answer agent c:q1",
    ]  # fmt: skip


def test_answers_of_another_store_are_not_reused(tmp_path: Path) -> None:
    jsonl = tmp_path / "locomo_t.jsonl"
    ask([], jsonl, ["agent"], QUESTIONS[:1])
    calls: list[str] = []
    ask(calls, jsonl, ["agent"], QUESTIONS[:1], db="/tmp/other.sqlite")
    assert calls == ["answer agent c:q0", "judge question 0?"]


def test_the_transcript_leads_the_prompt_so_questions_share_its_prefix() -> None:
    def user_message(question: str) -> str:
        inputs = {"transcript": "[D1:1] 2023-05-08 A: hi", "question_date": "2023-10-22",
                  "question": question}  # fmt: skip
        messages = SchemaJSONAdapter().format(AnswerFromTranscript, demos=[], inputs=inputs)
        return str(messages[-1]["content"])

    first, second = user_message("Where?"), user_message("When?")
    shared = os.path.commonprefix([first, second])
    assert "[D1:1] 2023-05-08 A: hi" in shared and "2023-10-22" in shared
    assert first.index("transcript") < first.index("question_date") < first.index("Where?")
