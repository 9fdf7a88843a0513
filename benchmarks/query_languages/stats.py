"""Uncertainty and significance of the study's figures: bootstrap intervals, McNemar tests.

Accuracy and query success, per arm and per question kind, get a percentile bootstrap 95%
interval: the questions are resampled with replacement ``RESAMPLES`` times (a numpy generator
seeded with ``SEED``, so a report is reproducible) and the 2.5th and 97.5th percentiles of the
statistic are taken. Query success is a ratio over queries, which cluster by question (one
question's retries tend to fail alike), so its resampling unit is the question as well.

Two arms are compared on the questions both answered with McNemar's exact test: under the
null hypothesis each of the n discordant questions (right in one arm only) is right in
either arm with probability 1/2, so the two-sided p-value is twice the Binomial(n, 1/2)
tail at the smaller count, at most 1, computed exactly with integer binomials.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any, Final

import numpy as np

from benchmarks.query_languages.metrics import (
    PROGRAMS,
    Program,
    QuestionRecord,
    aggregate,
    by_kind,
    query_calls,
)

RESAMPLES: Final = 2000
SEED: Final = 1
PERCENTILES: Final = (2.5, 97.5)


def bootstrap_ratio_ci(
    numerators: Sequence[float],
    denominators: Sequence[float],
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> list[float] | None:
    """The 95% interval, in percent, of sum(numerators) / sum(denominators) when the
    (numerator, denominator) pairs are resampled; None when there is nothing to divide by."""
    tops, bottoms = np.asarray(numerators, float), np.asarray(denominators, float)
    if not len(tops) or bottoms.sum() == 0:
        return None
    picks = np.random.default_rng(seed).integers(0, len(tops), size=(resamples, len(tops)))
    top, bottom = tops[picks].sum(axis=1), bottoms[picks].sum(axis=1)
    ratios = np.divide(top, bottom, out=np.full(resamples, np.nan), where=bottom > 0)
    low, high = np.nanpercentile(ratios, PERCENTILES)
    return [round(100.0 * float(low), 1), round(100.0 * float(high), 1)]


def accuracy_ci(records: Sequence[QuestionRecord]) -> list[float] | None:
    return bootstrap_ratio_ci([float(r.correct) for r in records], [1.0] * len(records))


def query_success_ci(records: Sequence[QuestionRecord]) -> list[float] | None:
    """Resampled by question: each contributes (queries that ran, queries made)."""
    ok = [float(sum(c.ok for c in query_calls(r))) for r in records]
    made = [float(len(query_calls(r))) for r in records]
    return bootstrap_ratio_ci(ok, made)


def kind_figures(records: Sequence[QuestionRecord]) -> dict[str, dict[str, Any]]:
    """Per question kind: questions, accuracy and query success with their intervals."""
    out: dict[str, dict[str, Any]] = {}
    for kind, rs in by_kind(records).items():
        figures = aggregate(rs)
        out[kind] = {
            "questions": len(rs),
            "accuracy_pct": figures["accuracy_pct"],
            "accuracy_ci95": accuracy_ci(rs),
            "queries": figures["queries"],
            "query_success_pct": figures["query_success_pct"],
            "query_success_ci95": query_success_ci(rs),
        }
    return out


def arm_figures(records: Sequence[QuestionRecord]) -> dict[str, Any]:
    """``aggregate``'s figures with the intervals, overall and per kind."""
    return {
        **aggregate(records),
        "accuracy_ci95": accuracy_ci(records),
        "query_success_ci95": query_success_ci(records),
        "by_kind": kind_figures(records),
    }


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for ``b`` and ``c`` discordant pairs."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(b, c) + 1))
    return min(1.0, 2 * tail / (1 << n))


def mcnemar_pairs(by_arm: Mapping[str, Sequence[QuestionRecord]]) -> list[dict[str, Any]]:
    """Every pair of arms on the questions both answered: who alone was right, and p (None
    when no question was answered by both)."""
    out = []
    for a, b in combinations(by_arm, 2):
        right_a = {r.qid: r.correct for r in by_arm[a]}
        right_b = {r.qid: r.correct for r in by_arm[b]}
        both = right_a.keys() & right_b.keys()
        only_a = sum(right_a[q] and not right_b[q] for q in both)
        only_b = sum(right_b[q] and not right_a[q] for q in both)
        out.append({
            "arm_a": a, "arm_b": b, "questions": len(both), "only_a_correct": only_a,
            "only_b_correct": only_b,
            "p_value": round(mcnemar_exact(only_a, only_b), 4) if both else None,
        })  # fmt: skip
    return out


def model_figures(by_arm: Mapping[str, Sequence[QuestionRecord]]) -> dict[str, Any]:
    """One model's part of the summary: every arm's figures and the pairwise tests."""
    return {
        "arms": {arm: arm_figures(rs) for arm, rs in by_arm.items()},
        "mcnemar": mcnemar_pairs(by_arm),
    }


def row_name(arm: str, program: str) -> str:
    """An arm's row in the report: the arm itself with its demos, marked without them."""
    return arm if program == "compiled" else f"{arm} ({program})"


def program_rows(
    arms: Sequence[str], records: Sequence[QuestionRecord], default: Program = "compiled"
) -> dict[str, list[QuestionRecord]]:
    """Row name -> records, per arm its compiled row then its zero-shot row, each when it has
    records (an arm without any gets the row of the ``default`` program)."""
    rows = {}
    for arm in arms:
        mine = [r for r in records if r.arm == arm]
        for program in PROGRAMS:
            chosen = [r for r in mine if r.program == program]
            if chosen or (not mine and program == default):
                rows[row_name(arm, program)] = chosen
    return rows
