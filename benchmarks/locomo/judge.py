"""Scoring LOCOMO answers: a judge in the spirit of the "generous" LOCOMO judge, and
LOCOMO's own token F1.

The judge first applies the deterministic rules of ``benchmarks.locomo.prejudge`` (dates read
in any format against the gold's time words resolved on its evidence day, numbers in digits
or words, every item of a list, a shorter form of a name, most of the gold's words); only
what they leave undecided goes to the LLM, which then sees the resolved gold ("last Saturday
(= 20 May 2023)"). The prompt is written for this project: CORRECT when the answer means what
the gold answer says (longer, reworded or less precise answers count; dates in any format
count when they name the same day, month or period), WRONG otherwise. It runs at temperature
0 on any LiteLLM model (``make_lm``). Token F1 follows LOCOMO's evaluation: SQuAD-style
normalisation, Porter-stemmed tokens; multi-hop answers are split on commas (mean over gold
parts of the best predicted part); open-domain keeps the gold's first ';' alternative;
adversarial scores 1 when the answer says the thing was not mentioned.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from typing import Any

import dspy
import Stemmer
from pydantic import BaseModel

from apexmem_neo.agent.react_loop import token_total
from apexmem_neo.llm.lm import SchemaJSONAdapter
from benchmarks.locomo.prejudge import PreVerdict, normalize_answer, prejudge

_STEMMER = Stemmer.Stemmer("porter")
_NOT_MENTIONED = ("no information available", "not mentioned")


class JudgeAnswer(dspy.Signature):  # type: ignore[misc]
    """You grade an answer to a question about a long conversation between two people,
    against the gold answer. Be generous: say CORRECT when the generated answer means the
    same as the gold answer or contains it, even if it is longer, worded differently or less
    precise. Dates and times in any format are CORRECT when they name the same day, month,
    year or period as the gold answer ("May 7th" = "7 May 2023"; "the week before 9 June"
    = "early June 2023"). A gold answer may be followed by "(= ...)": the dates its time
    words mean; an answer naming a date in that period is CORRECT. When the gold answer
    lists several things, the generated answer must give every one of them. When the gold
    answer says the thing was not mentioned, CORRECT means the generated answer also says
    it is unknown or not mentioned. Say WRONG when the generated answer is about something
    else, contradicts the gold answer, is empty, or says it does not know while the gold
    answer gives one."""

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
    _demo("When did Ben visit his aunt?",
          "The weekend before 13 March 2023 (= 11 March 2023 to 12 March 2023)",
          "He visited her on the Saturday, 11 March.", "CORRECT"),
    _demo("Which cities did Ana visit?", "Lisbon and Porto", "Ana visited Lisbon.", "WRONG"),
)  # fmt: skip


class Verdict(BaseModel):
    correct: bool | None
    raw: str = ""
    seconds: float = 0.0
    tokens: int = 0
    error: str | None = None
    gold_seen: str | None = None  # the gold as resolved for the LLM (None: no LLM call)


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


def judge_by_rules(
    question: str, gold: str, answer: str, said_on: str | None = None
) -> Verdict | None:
    """The verdict without a call (an empty answer is WRONG; then the pre-judge's rules), or
    None when the LLM must decide."""
    return _ruled(answer, prejudge(question, gold, answer, said_on))


def _ruled(answer: str, pre: PreVerdict) -> Verdict | None:
    if not answer.strip():
        return Verdict(correct=False, raw="(empty answer)")
    return None if pre.correct is None else Verdict(correct=pre.correct, raw=f"({pre.reason})")


class Judge:
    """Grades (question, gold, answer) by ``judge_by_rules`` and, when they cannot decide,
    with ``lm`` and the JUDGE_DEMOS on the gold resolved against ``said_on``, the day its
    evidence turn was said (the local 1.5B judge marked right dates WRONG against relative
    golds, "adoption agencies" WRONG against "Adoption agencies", and "2" WRONG for "two")."""

    def __init__(self, lm: Any, adapter: Any | None = None) -> None:
        self.lm = lm
        self.adapter = adapter if adapter is not None else SchemaJSONAdapter()
        self.predict = dspy.Predict(JudgeAnswer)
        self.predict.demos = list(JUDGE_DEMOS)

    def __call__(
        self, question: str, gold: str, answer: str, said_on: str | None = None
    ) -> Verdict:
        pre = prejudge(question, gold, answer, said_on)
        ruled = _ruled(answer, pre)
        return ruled if ruled is not None else self.ask(question, pre.gold_seen, answer)

    def ask(self, question: str, gold_seen: str, answer: str) -> Verdict:
        """The LLM's verdict on ``answer`` against ``gold_seen`` (the resolved gold)."""
        t0 = time.perf_counter()
        with dspy.context(lm=self.lm, adapter=self.adapter), dspy.track_usage() as tracker:
            try:
                pred = self.predict(
                    question=question, gold_answer=gold_seen, generated_answer=answer
                )
                raw = str(pred.verdict)
                verdict = Verdict(correct=parse_verdict(raw), raw=raw, gold_seen=gold_seen)
            except Exception as exc:  # an unparseable reply is recorded, not guessed
                error = f"{type(exc).__name__}: {exc}"[:300]
                verdict = Verdict(correct=None, error=error, gold_seen=gold_seen)
        verdict.seconds = round(time.perf_counter() - t0, 3)
        verdict.tokens = token_total(tracker).get("total_tokens", 0)
        return verdict


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
