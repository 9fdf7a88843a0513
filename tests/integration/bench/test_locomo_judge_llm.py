"""The LOCOMO judge's LLM fallback through the local model, on one answer the rules leave
open: "early June 2023" overlaps the gold "The week before 9 June 2023" but does not lie in
it. The model must be asked with the gold resolved ("(= 29 May 2023 to 8 June 2023)") and
give a readable verdict; one short call. Which verdict is the model's judgement (the local
1.5B model has called this pair WRONG), so it is not asserted."""

from __future__ import annotations

import pytest

from benchmarks.locomo.judge import Judge
from benchmarks.locomo.prejudge import prejudge
from benchmarks.memory import resolve_lm

pytestmark = [pytest.mark.integration, pytest.mark.llm]

QUESTION, GOLD, ANSWER = "When did Ana go hiking?", "The week before 9 June 2023", "early June 2023"


@pytest.mark.timeout(600)
def test_the_local_judge_is_asked_with_the_resolved_gold(lm_api_base: str) -> None:
    assert prejudge(QUESTION, GOLD, ANSWER).correct is None  # the rules leave it open
    lm, _ = resolve_lm(None, lm_api_base, 64)
    verdict = Judge(lm)(QUESTION, GOLD, ANSWER)
    assert verdict.error is None, verdict
    assert verdict.gold_seen == "The week before 9 June 2023 (= 29 May 2023 to 8 June 2023)"
    assert verdict.tokens > 0  # the LLM was asked
    assert verdict.correct in (True, False), verdict.raw  # a readable verdict
