"""Scoring LOCOMO answers: an LLM judge in the spirit of the "generous" LOCOMO judge, and
LOCOMO's own token F1.

The judge prompt is written for this project: CORRECT when the answer means what the gold
answer says (longer, reworded or less precise answers count; dates in any format count when
they name the same day, month or period), WRONG otherwise. It runs at temperature 0 on any
LiteLLM model (``make_lm``). Token F1 follows LOCOMO's evaluation: SQuAD-style normalisation,
Porter-stemmed tokens; multi-hop answers are split on commas (mean over gold parts of the best
predicted part); open-domain keeps the gold's first ';' alternative; adversarial scores 1 when
the answer says the thing was not mentioned.
"""

from __future__ import annotations

import re
import string
import time
from collections import Counter
from typing import Any

import dspy
import Stemmer
from pydantic import BaseModel

from apexmem_neo.agent.react_loop import token_total
from apexmem_neo.llm.lm import SchemaJSONAdapter

_STEMMER = Stemmer.Stemmer("porter")
_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
_NOT_MENTIONED = ("no information available", "not mentioned")


class JudgeAnswer(dspy.Signature):  # type: ignore[misc]
    """You grade an answer to a question about a long conversation between two people,
    against the gold answer. Be generous: say CORRECT when the generated answer means the
    same as the gold answer or contains it, even if it is longer, worded differently or less
    precise. Dates and times in any format are CORRECT when they name the same day, month,
    year or period as the gold answer ("May 7th" = "7 May 2023"; "the week before 9 June"
    = "early June 2023"). When the gold answer says the thing was not mentioned, CORRECT
    means the generated answer also says it is unknown or not mentioned. Say WRONG when the
    generated answer is about something else, contradicts the gold answer, is empty, or
    says it does not know while the gold answer gives one."""

    question: str = dspy.InputField()
    gold_answer: str = dspy.InputField()
    generated_answer: str = dspy.InputField()
    verdict: str = dspy.OutputField(desc="exactly one word: CORRECT or WRONG")


def _demo(question: str, gold: str, answer: str, verdict: str) -> dspy.Example:
    return dspy.Example(
        question=question, gold_answer=gold, generated_answer=answer, verdict=verdict
    ).with_inputs("question", "gold_answer", "generated_answer")


# Written for this project (no LOCOMO text). The local judge marked long answers that hold the
# gold among other details WRONG, and vague answers that repeat the question CORRECT.
JUDGE_DEMOS = (
    _demo("What did Mia say about her new job?", "it's challenging but fun",
          "Mia said her new job at the bakery is challenging, but she finds it a lot of fun "
          "and she loves her coworkers.", "CORRECT"),
    _demo("What does Tom think of the new park?", "It's peaceful",
          "Tom is talking about the new park.", "WRONG"),
    _demo("When did Ana adopt her cat?", "March 2022", "2022-03-14", "CORRECT"),
    _demo("How does Priya feel about moving?", "nervous",
          "Priya feels anxious and a bit scared about the move.", "CORRECT"),
    _demo("What is Leo's favourite sport?", "tennis", "football", "WRONG"),
    _demo("When did Sam start his new job?", "June 2023", "2023-09-01", "WRONG"),
)  # fmt: skip


class Verdict(BaseModel):
    correct: bool | None
    raw: str = ""
    seconds: float = 0.0
    tokens: int = 0
    error: str | None = None


def parse_verdict(text: str) -> bool:
    """CORRECT -> True, WRONG/INCORRECT -> False, whatever the case or punctuation.

    Raises ``ValueError`` when the text says neither (or both).
    """
    words = set(re.findall(r"[a-z]+", text.lower()))
    wrong = bool(words & {"wrong", "incorrect"})
    right = "correct" in words
    if wrong == right:
        raise ValueError(f"judge reply is neither CORRECT nor WRONG: {text[:200]!r}")
    return right


class Judge:
    """Grades (question, gold, answer) with ``lm`` and the JUDGE_DEMOS. Without a call: an
    empty answer is WRONG, and one holding most content words of the gold and every number in
    it (``holds_most_gold_words``) is CORRECT: the local 1.5B judge marked "adoption agencies"
    WRONG against the gold "Adoption agencies", and long answers quoting the gold WRONG too."""

    def __init__(self, lm: Any, adapter: Any | None = None) -> None:
        self.lm = lm
        self.adapter = adapter if adapter is not None else SchemaJSONAdapter()
        self.predict = dspy.Predict(JudgeAnswer)
        self.predict.demos = list(JUDGE_DEMOS)

    def __call__(self, question: str, gold: str, answer: str) -> Verdict:
        if not answer.strip():
            return Verdict(correct=False, raw="(empty answer)")
        if holds_most_gold_words(answer, gold):
            return Verdict(correct=True, raw="(most content words and every number of the gold)")
        if names_gold_period(answer, gold):
            return Verdict(correct=True, raw="(a date of the answer lies in the gold's period)")
        t0 = time.perf_counter()
        with dspy.context(lm=self.lm, adapter=self.adapter), dspy.track_usage() as tracker:
            try:
                pred = self.predict(question=question, gold_answer=gold, generated_answer=answer)
                raw = str(pred.verdict)
                verdict = Verdict(correct=parse_verdict(raw), raw=raw)
            except Exception as exc:  # an unparseable reply is recorded, not guessed
                verdict = Verdict(correct=None, error=f"{type(exc).__name__}: {exc}"[:300])
        verdict.seconds = round(time.perf_counter() - t0, 3)
        verdict.tokens = token_total(tracker).get("total_tokens", 0)
        return verdict


_FUNCTION_WORDS = frozenset(
    "by of to in on at for from with is are was were be been it its he she they them his her "
    "their we our you your i my me that this these those as or but so do did does".split()
)


def content_stems(text: str) -> set[str]:
    """Porter stems of the normalised text's words, function words left out."""
    words = normalize_answer(text).split()
    return {_STEMMER.stemWord(w) for w in words if w not in _FUNCTION_WORDS}


MOST_OF_GOLD = 2 / 3
_NUMBER = re.compile(r"\d+")


def holds_most_gold_words(answer: str, gold: str) -> bool:
    """True when the answer holds every number of the gold and, of its content words, all of
    them or at least two thirds and at least two: "my team won first place at a regionals"
    for "Winning first place at a regionals dance competition". A number must match exactly,
    so "20 January 2023" never passes for "19 January, 2023"."""
    if not set(_NUMBER.findall(gold)) <= set(_NUMBER.findall(answer)):
        return False
    wanted = content_stems(gold)
    found = wanted & content_stems(answer)
    if not wanted:
        return False
    return found == wanted or (len(found) >= 2 and len(found) >= MOST_OF_GOLD * len(wanted))


_MONTHS = {m: i for i, m in enumerate(
    "january february march april may june july august september october november december"
    .split(), start=1)}  # fmt: skip
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_GOLD_DAY = re.compile(r"^(?:(\d{1,2})\s+)?([a-z]+),?\s+(\d{4})$")


def gold_period(gold: str) -> tuple[int, int, int | None] | None:
    """(year, month, day or None) of a gold answer that is only a date: "19 January, 2023" or
    "January, 2023" (LOCOMO's forms); None for anything else."""
    match = _GOLD_DAY.match(gold.strip().lower().rstrip("."))
    if match is None or match.group(2) not in _MONTHS:
        return None
    day = int(match.group(1)) if match.group(1) else None
    return int(match.group(3)), _MONTHS[match.group(2)], day


def names_gold_period(answer: str, gold: str) -> bool:
    """True when the gold is a day or a month and the answer gives an ISO date on that day or
    in that month ("2023-01-19" for "19 January, 2023"). The local judge marked such pairs
    WRONG once it had seen a wrong date among its demonstrations."""
    period = gold_period(gold)
    if period is None:
        return False
    year, month, day = period
    for y, m, d in _ISO_DATE.findall(answer):
        if (int(y), int(m)) == (year, month) and day in (None, int(d)):
            return True
    return False


def normalize_answer(text: str) -> str:
    """LOCOMO's (SQuAD's) normalisation: lower case, no punctuation or articles, one space."""
    text = text.replace(",", "").lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    return " ".join(_ARTICLES.sub(" ", text).split())


def f1_score(prediction: str, gold: str) -> float:
    """Token F1 of Porter-stemmed normalised tokens."""
    pred = [_STEMMER.stemWord(w) for w in normalize_answer(prediction).split()]
    truth = [_STEMMER.stemWord(w) for w in normalize_answer(gold).split()]
    same = sum((Counter(pred) & Counter(truth)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(truth)
    return 2 * precision * recall / (precision + recall)


def multi_f1(prediction: str, gold: str) -> float:
    """Multi-hop: mean over comma-separated gold parts of the best F1 against a predicted part."""
    preds = [p.strip() for p in prediction.split(",")]
    golds = [g.strip() for g in gold.split(",")]
    return sum(max(f1_score(p, g) for p in preds) for g in golds) / len(golds)


def locomo_f1(prediction: str, gold: str, category: int) -> float:
    """LOCOMO's per-category token F1 (see the module docstring)."""
    if category == 5:
        low = prediction.lower()
        return 1.0 if any(phrase in low for phrase in _NOT_MENTIONED) else 0.0
    if category == 3:
        gold = gold.split(";")[0].strip()
    if category == 1:
        return multi_f1(prediction, gold)
    return f1_score(prediction, gold)
