"""The construction-quality benchmark end to end on its tiny set (4 turns, 6 questions):
generated, ingested through ``Memory`` with the local LLM into SQLite, asked in the default
mode, read back and scored; the result holds every figure. A second run asks nothing again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.construction_quality.run import PUBLISHED_FIGURES, main
from benchmarks.construction_quality.scoring import GOALS
from benchmarks.memory import read_jsonl

pytestmark = [pytest.mark.integration, pytest.mark.llm]

FIGURES = (
    *PUBLISHED_FIGURES, "answers", "names_per_concept_mean", "facts_stored", "fact_errors",
    "llm_calls_per_turn", "seconds_per_turn", "failed_turns", "answer_seconds_p50",
)  # fmt: skip


@pytest.mark.timeout(1800)
def test_tiny_set_end_to_end(
    lm_api_base: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("APEXMEM_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("APEXMEM_LM_API_BASE", lm_api_base)
    out = tmp_path / "tiny.json"
    argv = ["--set", "tiny", "--store", "sqlite", "--work-dir", str(tmp_path), "--out", str(out)]
    assert main(argv) == 0
    record = json.loads(out.read_text())
    assert record["data"] == {**record["data"], "conversations": 1, "turns": 4, "questions": 6}
    system = record["systems"]["apexmem"]
    figures = system["figures"]
    assert set(FIGURES) <= set(figures)
    assert figures["now"]["n"] == 3 and figures["as_of"]["n"] == 1
    assert figures["when"]["n"] == 1 and figures["before"]["n"] == 1
    assert figures["current"]["n"] == 3 and figures["as_of_read"]["n"] == 2
    assert figures["fact_recall"]["n"] == 4 and figures["llm_calls_per_turn"] > 0
    assert figures["facts_stored"] > 0 and figures["seconds_per_turn"] > 0
    assert set(system["goals"]) == set(GOALS)
    assert all(a["answer"].strip() and a["error"] is None for a in system["answers"])
    assert len(system["reads"]) == 2 * (3 + 2)  # canonical and resolved
    assert record["command"].startswith(".venv/bin/python -m benchmarks.construction_quality")
    # resumable: the second run ingests and asks nothing again
    assert main(argv) == 0
    assert len(read_jsonl(out.with_suffix(".jsonl").with_suffix(".answers.jsonl"))) == 6
    again = json.loads(out.read_text())["systems"]["apexmem"]
    assert [a["answer"] for a in again["answers"]] == [a["answer"] for a in system["answers"]]
    assert again["construction"]["turns"] == 4
