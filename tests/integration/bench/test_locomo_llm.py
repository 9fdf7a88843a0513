"""The LOCOMO QA harness end to end through the local LLM, on 2 questions.

Ingests session 1 (5 turns) of an invented conversation in LOCOMO's format
(``tests/data/mini_conversation.json``, whose session 1 answers exactly two of its three
questions: a temporal one and a single-hop one), asks them through the agent and the RAG
baseline, judges, and writes the result files.
A second run must answer nothing again (resumable) and reuse the ingest.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.locomo import context_recall
from benchmarks.locomo.run import main
from benchmarks.memory import read_jsonl

pytestmark = [pytest.mark.integration, pytest.mark.llm]
MINI = Path(__file__).resolve().parents[2] / "data" / "mini_conversation.json"


@pytest.mark.timeout(3600)
def test_two_locomo_questions(lm_api_base: str, tmp_path: Path) -> None:
    argv = [
        "--data", str(MINI), "--conversation", "conv-mini", "--sessions", "1",
        "--systems", "agent,rag", "--mode", "fast",
        "--api-base", lm_api_base, "--db", str(tmp_path / "g.sqlite"),
        "--out-dir", str(tmp_path), "--tag", "it",
    ]  # fmt: skip
    assert main(argv) == 0
    result = json.loads((tmp_path / "locomo_it.json").read_text())
    records = read_jsonl(tmp_path / "locomo_it.jsonl")
    assert result["questions"] == 2 and len(records) == 4
    assert {r["qid"] for r in records} == {"conv-mini:q0", "conv-mini:q1"}
    for r in records:
        assert r["error"] is None, r
        assert r["answer"].strip(), r
        assert r["correct"] in (True, False), r  # the judge gave a readable verdict
        assert 0.0 <= r["f1"] <= 1.0
        assert r["tokens"].get("total_tokens", 0) > 0
    assert result["construction"]["turns"] == 5 and result["construction"]["tokens"] > 0
    agent = result["summary"]["agent"]
    assert agent["categories"]["overall_1_4"]["n"] == 2
    assert (tmp_path / "locomo_it_accuracy.png").is_file()
    # resumable: a second run asks nothing and ingests nothing new
    assert main(argv) == 0
    assert len(read_jsonl(tmp_path / "locomo_it.jsonl")) == 4
    again = json.loads((tmp_path / "locomo_it.json").read_text())
    assert again["construction"]["turns"] == 5
    # context recall on the same store, no LLM: five turns fit every system's context, so
    # each shows the gold turn of both questions
    assert context_recall.main(argv) == 0
    recall = json.loads((tmp_path / "context_recall_conv-mini_it.json").read_text())
    assert recall["questions"] == {"1-4": 2, "5": 0}
    assert recall["context_recall"]["1-4"] == {"agent": 1.0, "rag": 1.0, "full_context": 1.0}
