"""`apexmem demo` end to end through the local LLM: ingest the sample, index it, answer.

Six extraction calls and three agent calls on the small local model; the current-favourite
answer must name Sakura Sushi. A second run reuses the checkpoints: no turn is extracted again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from apexmem_neo.cli.demo import QUESTIONS, demo_db, run_demo
from apexmem_neo.memory import Memory
from apexmem_neo.samples import sample_path
from apexmem_neo.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.llm]


@pytest.mark.timeout(5400)
def test_demo_answers_the_current_favourite(
    lm_api_base: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("APEXMEM_HOME", str(tmp_path))
    monkeypatch.setenv("APEXMEM_LM_API_BASE", lm_api_base)
    monkeypatch.delenv("APEXMEM_LM", raising=False)
    settings = Settings()
    results = run_demo(settings)
    assert len(results) == len(QUESTIONS)
    current = results[0]
    assert current.error is None, current.error
    assert "sakura sushi" in current.answer.lower(), current.answer
    assert all(r.trace and r.llm_calls >= 1 for r in results)
    assert demo_db(settings).is_file()
    assert demo_db(settings).with_suffix(".search.sqlite").is_file()
    assert list((tmp_path / "runs").glob("*.json"))  # the run's statistics were saved
    with Memory.from_settings(settings, store="sqlite", db=demo_db(settings)) as memory:
        again = memory.ingest_file(sample_path(), fmt="jsonl")
    assert again.llm_calls == 0 and again.run is not None
    assert again.run.turns_skipped == len(again.turns) == 6
    assert {t.status for t in again.turns} == {"skipped"}
