"""Bootstrap intervals and exact McNemar tests of the study's figures."""

from __future__ import annotations

import pytest

from benchmarks.query_languages.metrics import CallRecord, QuestionRecord
from benchmarks.query_languages.stats import (
    accuracy_ci,
    arm_figures,
    bootstrap_ratio_ci,
    mcnemar_exact,
    mcnemar_pairs,
    model_figures,
    query_success_ci,
)


def rec(
    qid: str, correct: bool, oks: tuple[bool, ...] = (True,), kind: str = "join"
) -> QuestionRecord:
    calls = [CallRecord(tool="GraphQuery", args={"query": "SELECT 1"}, ok=ok) for ok in oks]
    return QuestionRecord(arm="a", qid=qid, kind=kind, question="?", gold="x",
                          answer_type="name", correct=correct, calls=calls)  # fmt: skip


def test_bootstrap_interval_is_seeded_and_brackets_the_estimate() -> None:
    records = [rec(str(i), i % 3 == 0) for i in range(30)]  # 10 of 30 right
    ci = accuracy_ci(records)
    assert ci == accuracy_ci(records) and ci is not None
    assert ci[0] < 100 / 3 < ci[1] and 10 < ci[1] - ci[0] < 45
    assert bootstrap_ratio_ci([1, 1], [1, 1]) == [100.0, 100.0]
    assert bootstrap_ratio_ci([], []) is None and accuracy_ci([]) is None
    assert bootstrap_ratio_ci([0, 1], [1, 1], seed=1) != bootstrap_ratio_ci([0, 1], [1, 1], 5, 2)


def test_query_success_resamples_questions_not_queries() -> None:
    records = [rec("1", True, (True, True, True)), rec("2", False, (False,)), rec("3", False, ())]
    ci = query_success_ci(records)
    assert ci is not None and ci[0] <= 75.0 <= ci[1]
    assert query_success_ci([rec("1", False, ())]) is None  # no query: nothing to divide


@pytest.mark.parametrize(
    ("b", "c", "p"),
    [(0, 0, 1.0), (0, 6, 0.03125), (1, 9, 2 * 11 / 1024), (5, 5, 1.0), (3, 4, 1.0)],
)
def test_mcnemar_exact_two_sided(b: int, c: int, p: float) -> None:
    assert mcnemar_exact(b, c) == pytest.approx(p)
    assert mcnemar_exact(c, b) == pytest.approx(p)


def test_mcnemar_agrees_with_scipy_when_installed() -> None:
    stats = pytest.importorskip("scipy.stats")
    for b, c in [(2, 11), (7, 20), (40, 61)]:
        expected = stats.binomtest(min(b, c), b + c, 0.5).pvalue
        assert mcnemar_exact(b, c) == pytest.approx(expected)


def test_pairs_use_the_questions_both_arms_answered() -> None:
    by_arm = {
        "sql": [rec("1", True), rec("2", True), rec("3", False), rec("4", True)],
        "cypher": [rec("1", False), rec("2", True), rec("3", True)],
        "t2c": [rec("9", True)],
    }
    pairs = mcnemar_pairs(by_arm)
    assert [(p["arm_a"], p["arm_b"]) for p in pairs] == [
        ("sql", "cypher"), ("sql", "t2c"), ("cypher", "t2c"),
    ]  # fmt: skip
    first = pairs[0]
    assert (first["questions"], first["only_a_correct"], first["only_b_correct"]) == (3, 1, 1)
    assert first["p_value"] == 1.0 and pairs[1]["questions"] == 0 and pairs[1]["p_value"] is None


def test_arm_figures_have_intervals_overall_and_by_kind() -> None:
    records = [rec("1", True, kind="join"), rec("2", False, (False,), kind="as_of")]
    figures = arm_figures(records)
    assert figures["accuracy_pct"] == 50.0 and figures["accuracy_ci95"] == [0.0, 100.0]
    assert figures["by_kind"]["join"] == {
        "questions": 1, "accuracy_pct": 100.0, "accuracy_ci95": [100.0, 100.0], "queries": 1,
        "query_success_pct": 100.0, "query_success_ci95": [100.0, 100.0],
    }  # fmt: skip
    assert figures["by_kind"]["as_of"]["query_success_ci95"] == [0.0, 0.0]
    summary = model_figures({"x": records, "y": records})
    assert set(summary["arms"]) == {"x", "y"} and len(summary["mcnemar"]) == 1
