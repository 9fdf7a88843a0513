"""`apexmem demo` end to end through the local LLM: ingest the sample, index it, answer.

Six extraction calls and three agent calls on the small local model; all three answers are
what a user reads first, so each is pinned: Sakura Sushi now, Italian Garden on 2024-02-01, the
change on 2024-03-20. The facts are checked too: Alice lives in Seattle from the day she said
so (the turn gives no earlier date), and "I moved there from Boston" is no hometown.
A question saying "these days" gets the answer "now" gets. A second run reuses the
checkpoints: no turn is extracted again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from apexmem_neo.cli.demo import DEMO_SCOPE, QUESTIONS, demo_db, run_demo
from apexmem_neo.memory import Memory
from apexmem_neo.samples import sample_path
from apexmem_neo.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.llm]


@pytest.mark.timeout(5400)
def test_demo_answers_all_three_questions(
    lm_api_base: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("APEXMEM_HOME", str(tmp_path))
    monkeypatch.setenv("APEXMEM_LM_API_BASE", lm_api_base)
    monkeypatch.delenv("APEXMEM_LM", raising=False)
    settings = Settings()
    results = run_demo(settings)
    assert len(results) == len(QUESTIONS)
    current, as_of, changed = results
    assert all(r.error is None for r in results), [r.error for r in results]
    assert "sakura sushi" in current.answer.lower(), current.answer
    assert "italian garden" in as_of.answer.lower(), as_of.answer
    dates = ("2024-03-20", "march 20", "20 march")
    assert any(d in changed.answer.lower() for d in dates), changed.answer
    assert all(r.trace and r.llm_calls >= 1 for r in results)
    assert demo_db(settings).is_file()
    assert demo_db(settings).with_suffix(".search.sqlite").is_file()
    assert list((tmp_path / "runs").glob("*.json"))  # the run's statistics were saved
    with Memory.from_settings(settings, store="sqlite", db=demo_db(settings)) as memory:
        lives_in = memory.history("Alice", "lives_in", scope=DEMO_SCOPE).facts
        assert [(f.value, f.t_from[:10]) for f in lives_in][-1] == ("Seattle", "2024-06-10")
        hometowns = memory.history("Alice", "hometown", scope=DEMO_SCOPE).facts
        assert "Boston" not in [f.value for f in hometowns]
        # "these days" asks about the state now, as "now" does (the default mode).
        these_days = "Which restaurant does Alice like best these days?"
        answer = memory.ask(these_days, scope=DEMO_SCOPE, at="2024-07-01").answer
        assert "sakura sushi" in answer.lower(), answer
        again = memory.ingest_file(sample_path(), fmt="jsonl")
    assert again.llm_calls == 0 and again.run is not None
    assert again.run.turns_skipped == len(again.turns) == 6
    assert {t.status for t in again.turns} == {"skipped"}
