"""Append-only vs overwrite end to end through the local LLM, at its smallest: one generated
conversation with one attribute (three values over time), ingested by the construction
pipeline, the overwrite copy materialised, and two question kinds asked of both memories,
then judged. A second run asks and judges nothing again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.memory import read_jsonl
from benchmarks.temporal.run import main

pytestmark = [pytest.mark.integration, pytest.mark.llm]


@pytest.mark.timeout(3600)
def test_one_conversation_both_memories(lm_api_base: str, tmp_path: Path) -> None:
    argv = [
        "--conversations", "1", "--attributes", "1", "--kinds", "current,as_of",
        "--mode", "fast", "--api-base", lm_api_base,
        "--out-dir", str(tmp_path), "--work-dir", str(tmp_path / "work"), "--tag", "it",
    ]  # fmt: skip
    assert main(argv) == 0
    result = json.loads((tmp_path / "temporal_it.json").read_text())
    records = read_jsonl(tmp_path / "temporal_it.jsonl")
    assert result["questions"] == 2 and result["setup"]["turns"] == 3
    assert sorted((r["mode"], r["kind"]) for r in records) == [
        ("append_only", "as_of"), ("append_only", "current"),
        ("overwrite", "as_of"), ("overwrite", "current"),
    ]  # fmt: skip
    for r in records:
        assert r["error"] is None, r
        assert r["answer"].strip(), r
        assert r["correct"] in (True, False), r  # the judge gave a readable verdict
        assert r["exact"] in (True, False)
        assert r["tokens"].get("total_tokens", 0) > 0
    assert len(read_jsonl(tmp_path / "temporal_it.answers.jsonl")) == 4  # answered, then judged
    assert result["construction"]["turns"] == 3 and result["construction"]["tokens"] > 0
    assert set(result["summary"]) == {"append_only", "overwrite"}
    assert (tmp_path / "temporal_it_accuracy.png").is_file()
    # resumable: a second run answers and judges nothing again
    assert main(argv) == 0
    assert len(read_jsonl(tmp_path / "temporal_it.jsonl")) == 4
    assert len(read_jsonl(tmp_path / "temporal_it.answers.jsonl")) == 4
