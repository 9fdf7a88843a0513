"""The LOCOMO judge's parsing and LLM fallback (scripted DummyLM) and LOCOMO's token F1
(the pre-judge's rules are tested in test_locomo_prejudge.py)."""

from __future__ import annotations

import dspy
import pytest
from dspy.utils import DummyLM

from benchmarks.locomo.judge import Judge, f1_score, locomo_f1, parse_verdict
from benchmarks.locomo.prejudge import holds_most_gold_words, normalize_answer


@pytest.mark.parametrize(
    ("text", "expected"),
    [("CORRECT", True), ("correct.", True), ("Verdict: Correct", True), ("WRONG", False),
     ("wrong!", False), ("INCORRECT", False), ("The answer is incorrect", False)],
)  # fmt: skip
def test_parse_verdict(text: str, expected: bool) -> None:
    assert parse_verdict(text) is expected


@pytest.mark.parametrize("text", ["maybe", "", "correct or wrong"])
def test_parse_verdict_rejects_neither_or_both(text: str) -> None:
    with pytest.raises(ValueError, match="neither CORRECT nor WRONG"):
        parse_verdict(text)


def judge(replies: list[str]) -> Judge:
    lm = DummyLM([{"verdict": r} for r in replies], adapter=dspy.JSONAdapter())
    return Judge(lm, adapter=dspy.JSONAdapter())


def test_judge_reads_the_model_verdict() -> None:
    j = judge(["CORRECT", "Wrong."])
    first = j("What did Mia bring?", "a red scarf", "something warm to wear")
    second = j("What did Mia bring?", "a red scarf", "a cake")
    assert first.correct is True and first.raw == "CORRECT" and first.error is None
    assert second.correct is False and second.raw == "Wrong."
    assert first.gold_seen == "a red scarf" and first.tokens >= 0


def test_judge_records_an_unreadable_verdict_as_none() -> None:
    verdict = judge(["perhaps"])("q?", "gold", "answer")
    assert verdict.correct is None
    assert verdict.error is not None and "neither CORRECT nor WRONG" in verdict.error


def test_empty_answer_is_wrong_without_a_call() -> None:
    lm = DummyLM([], adapter=dspy.JSONAdapter())  # any call would fail: no scripted reply
    verdict = Judge(lm, adapter=dspy.JSONAdapter())("q?", "gold", "  ")
    assert verdict.correct is False and lm.history == []


def test_answer_equal_to_the_gold_after_normalisation_is_correct_without_a_call() -> None:
    lm = DummyLM([], adapter=dspy.JSONAdapter())
    verdict = Judge(lm, adapter=dspy.JSONAdapter())("q?", "Adoption agencies", "adoption agencies.")
    assert verdict.correct is True and lm.history == []


def test_normalize_answer_drops_case_punctuation_and_articles() -> None:
    assert normalize_answer("The Italian, Garden!") == "italian garden"
    assert normalize_answer("a cat and an owl") == "cat owl"


def test_f1_score_uses_stemmed_token_overlap() -> None:
    assert f1_score("7 May 2023", "7 May 2023") == 1.0
    assert f1_score("painting sunrises", "painted a sunrise") == 1.0  # stems match
    assert f1_score("nothing", "7 May 2023") == 0.0
    # pred {went, to, paris} vs gold {paris}: p = 1/3, r = 1 -> F1 = 0.5
    assert f1_score("went to Paris", "Paris") == pytest.approx(0.5)


def test_locomo_f1_per_category() -> None:
    # multi-hop: mean over gold parts of the best predicted part
    assert locomo_f1("pottery, camping", "camping, pottery, painting", 1) == pytest.approx(2 / 3)
    # open-domain: only the gold's first ';' alternative counts
    assert locomo_f1("psychology", "psychology; counseling", 3) == 1.0
    # adversarial: 1 when the answer says it was not mentioned
    assert locomo_f1("That was not mentioned in the conversation.", "x", 5) == 1.0
    assert locomo_f1("self-care is important", "x", 5) == 0.0
    assert locomo_f1("2022", "2022", 2) == 1.0


def test_an_answer_holding_every_content_word_of_the_gold_needs_no_call() -> None:
    judge = Judge(lm=None)  # any call would fail without an LM
    said = "Jon and Gina both like to destress by dancing and venting."
    assert judge("How do they destress?", "by dancing", said).correct is True
    assert not holds_most_gold_words("ballet", "Contemporary")
    assert not holds_most_gold_words("anything at all", "by the")  # function words never match


def test_most_of_the_gold_words_with_every_number_need_no_call() -> None:
    gold = "Winning first place at a regionals dance competition"
    assert holds_most_gold_words("My team won first place at a regionals dance show.", gold)
    assert not holds_most_gold_words("They look great", "They look graceful")  # one of two
    assert not holds_most_gold_words("first place", gold)  # two of six
    assert not holds_most_gold_words("20 January 2023", "19 January, 2023")  # numbers exact
    assert holds_most_gold_words("on 19 January 2023", "19 January, 2023")


def test_the_judge_reads_its_demonstrations() -> None:
    verdicts = {d.verdict for d in Judge(lm=None).predict.demos}
    assert verdicts == {"CORRECT", "WRONG"}


@pytest.mark.parametrize(
    ("answer", "gold", "expected"),
    [("2023-01-19", "19 January, 2023", True), ("on 2023-01-20.", "January, 2023", True),
     ("2023-01-29", "28 January 2023", False), ("2023-07-23", "February, 2023", False)],
)  # fmt: skip
def test_an_iso_date_is_judged_against_the_gold_day_or_month_without_a_call(
    answer: str, gold: str, expected: bool
) -> None:
    assert Judge(lm=None)("When?", gold, answer).correct is expected
